"""Seed 004 (eager execution guide): the MNIST model trained by a GradientTape
loop over `tf.keras.datasets.mnist.load_data()` + tf.data. The data file is a
small synthetic mnist.npz in a temporary KERAS_HOME (tests never download);
the TF1 names of the seed (`tf.train.AdamOptimizer`, `tf.losses.
sparse_softmax_cross_entropy`, global_step) are written as TF2 does."""
import hashlib
import os

import numpy as np

import tensorlet as tf


def _write_mnist(home, n=1280):
  rng = np.random.RandomState(0)
  labels = rng.randint(0, 10, n).astype(np.uint8)
  # each class has its own brightness, which survives the model's global pooling
  images = (labels[:, None, None] * 24 + rng.rand(n, 28, 28) * 16).astype(np.uint8)
  os.makedirs(os.path.join(home, "datasets"), exist_ok=True)
  np.savez(os.path.join(home, "datasets", "mnist.npz"), x_train=images, y_train=labels,
           x_test=images[:64], y_test=labels[:64])


def test_mnist_training_loop(tmp_path, monkeypatch, capsys):
  monkeypatch.setenv("KERAS_HOME", str(tmp_path))
  _write_mnist(str(tmp_path))
  # As Keras, a cached file is used only if it has the published checksum: the
  # stand-in's checksum stands in for it.
  from tensorlet.keras.datasets import mnist
  with open(os.path.join(str(tmp_path), "datasets", "mnist.npz"), "rb") as f:
    monkeypatch.setattr(mnist, "SHA256", hashlib.sha256(f.read()).hexdigest())
  tf.random.set_seed(0)

  (mnist_images, mnist_labels), _ = tf.keras.datasets.mnist.load_data()

  dataset = tf.data.Dataset.from_tensor_slices(
    (tf.cast(mnist_images[...,tf.newaxis]/255, tf.float32),
     tf.cast(mnist_labels,tf.int64)))
  dataset = dataset.shuffle(1000).batch(32)

  mnist_model = tf.keras.Sequential([
    tf.keras.layers.Conv2D(16,[3,3], activation='relu'),
    tf.keras.layers.Conv2D(16,[3,3], activation='relu'),
    tf.keras.layers.GlobalAveragePooling2D(),
    tf.keras.layers.Dense(10)
  ])

  for images,labels in dataset.take(1):
    print("Logits: ", mnist_model(images[0:1]).numpy())
  out = capsys.readouterr().out
  assert out.startswith("Logits:  [[") and out.count(".") == 10  # ten float logits

  optimizer = tf.keras.optimizers.Adam(1e-2)
  loss_history = []
  for (batch, (images, labels)) in enumerate(dataset.take(400)):
    if batch % 10 == 0:
      print('.', end='')
    with tf.GradientTape() as tape:
      logits = mnist_model(images, training=True)
      loss_value = tf.reduce_mean(
          tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits))

    loss_history.append(loss_value.numpy())
    grads = tape.gradient(loss_value, mnist_model.trainable_variables)
    optimizer.apply_gradients(zip(grads, mnist_model.trainable_variables))
  assert capsys.readouterr().out == "...." and len(loss_history) == 40
  assert int(optimizer.iterations) == 40
  assert np.mean(loss_history[-5:]) < 0.8 * np.mean(loss_history[:5])
