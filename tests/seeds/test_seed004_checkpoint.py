"""Seed 004 (eager guide), object-based saving: tf.train.Checkpoint of a
tf.Variable, and of a Keras model with its optimizer and a step counter
(TF2 spelling: tf.keras.optimizers.Adam and an int64 step variable)."""
import os

import numpy as np

import tensorlet as tf


def test_variable_checkpoint_example(tmp_path, monkeypatch, capsys):
  monkeypatch.chdir(tmp_path)
  x = tf.Variable(10.)
  checkpoint = tf.train.Checkpoint(x=x)

  x.assign(2.)   # assign a new value and save it
  checkpoint_path = './ckpt/'
  checkpoint.save('./ckpt/')

  x.assign(11.)  # change the variable after saving

  # restore the value from the checkpoint
  checkpoint.restore(tf.train.latest_checkpoint(checkpoint_path))

  print(x)  # => 2.0
  assert capsys.readouterr().out == "<tf.Variable 'Variable:0' shape=() dtype=float32, " \
      "numpy=2.0>\n"
  assert sorted(os.listdir("ckpt")) == ["-1.data-00000-of-00001", "-1.index", "checkpoint"]


def _model():
  return tf.keras.Sequential([
      tf.keras.layers.Conv2D(16, [3, 3], activation='relu'),
      tf.keras.layers.GlobalAveragePooling2D(),
      tf.keras.layers.Dense(10)
  ])


def _step(model, optimizer, images, labels):
  with tf.GradientTape() as tape:
    logits = model(images)
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels, logits))
  grads = tape.gradient(loss, model.trainable_variables)
  optimizer.apply_gradients(zip(grads, model.trainable_variables))
  return loss


def test_model_optimizer_checkpoint_example(tmp_path):
  tf.random.set_seed(4)
  rng = np.random.default_rng(4)
  images = tf.constant(rng.random((4, 8, 8, 1)).astype(np.float32))
  labels = tf.constant(rng.integers(0, 10, 4))

  model = _model()
  optimizer = tf.keras.optimizers.Adam(learning_rate=0.001)
  step = tf.Variable(0, dtype=tf.int64)
  for _ in range(2):
    _step(model, optimizer, images, labels)
    step.assign_add(1)

  checkpoint_dir = str(tmp_path)
  checkpoint_prefix = os.path.join(checkpoint_dir, "ckpt")
  root = tf.train.Checkpoint(optimizer=optimizer, model=model, optimizer_step=step)
  root.save(checkpoint_prefix)
  root.restore(tf.train.latest_checkpoint(checkpoint_dir)).assert_consumed()

  # A fresh program: nothing is built yet, so the weights and Adam's slots are
  # restored when the first call and the first update create them.
  model2 = _model()
  optimizer2 = tf.keras.optimizers.Adam(learning_rate=0.001)
  step2 = tf.Variable(0, dtype=tf.int64)
  status = tf.train.Checkpoint(optimizer=optimizer2, model=model2,
                               optimizer_step=step2).restore(
                                   tf.train.latest_checkpoint(checkpoint_dir))
  assert step2.numpy() == 2 and optimizer2.iterations.numpy() == 2
  np.testing.assert_allclose(model2(images).numpy(), model(images).numpy(), rtol=1e-6)
  loss = _step(model, optimizer, images, labels)
  loss2 = _step(model2, optimizer2, images, labels)
  status.assert_consumed()
  np.testing.assert_allclose(loss2.numpy(), loss.numpy(), rtol=1e-6)
  for a, b in zip(model.trainable_variables, model2.trainable_variables):
    np.testing.assert_allclose(b.numpy(), a.numpy(), rtol=1e-5, atol=1e-7)
  assert optimizer2.iterations.numpy() == 3
