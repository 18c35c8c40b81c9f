"""Seed 000's Keras examples: the 100-layer SequentialModel and EagerLayer with run_eagerly."""
from datetime import datetime

import numpy as np

import tensorlet as tf


class EagerLayer(tf.keras.layers.Layer):
  def __init__(self, **kwargs):
    super(EagerLayer, self).__init__(**kwargs)

  def call(self, inputs):
    print("\nCurrently running eagerly", str(datetime.now()))
    return inputs


class SequentialModel(tf.keras.Model):
  def __init__(self):
    super(SequentialModel, self).__init__()
    self.flatten = tf.keras.layers.Flatten(input_shape=(28, 28))
    self.dense_1 = tf.keras.layers.Dense(128, activation="relu")
    self.dropout = tf.keras.layers.Dropout(0.2)
    self.dense_2 = tf.keras.layers.Dense(10)
    self.eager = EagerLayer()

  def call(self, x):
    x = self.flatten(x)
    x = self.dense_1(x)
    x = self.dropout(x)
    x = self.dense_2(x)
    return self.eager(x)


class ManyLayers(tf.keras.Model):
  def __init__(self, **kwargs):
    super(ManyLayers, self).__init__(**kwargs)
    self.flatten = tf.keras.layers.Flatten(input_shape=(28, 28))
    self.my_layers = [tf.keras.layers.Dense(64, activation="relu") for n in range(100)]
    self.dropout = tf.keras.layers.Dropout(0.2)
    self.dense_2 = tf.keras.layers.Dense(10)

  def call(self, x):
    x = self.flatten(x)
    for layer in self.my_layers:
      x = layer(x)
    x = self.dropout(x)
    x = self.dense_2(x)
    return x


def test_hundred_layer_model_eager_and_graph_agree():
  input_data = tf.random.uniform([20, 28, 28])
  eager_model = ManyLayers()
  out = eager_model(input_data)
  assert out.shape == (20, 10) and len(eager_model.trainable_variables) == 202
  graph_model = ManyLayers()
  graph_model.call = tf.function(graph_model.call)
  graph_model(input_data)
  graph_model.set_weights(eager_model.get_weights())
  np.testing.assert_allclose(graph_model(input_data).numpy(), eager_model(input_data).numpy(),
                             rtol=1e-4, atol=1e-6)
  np.testing.assert_allclose(tf.function(eager_model)(input_data).numpy(), out.numpy(),
                             rtol=1e-4, atol=1e-6)


def test_eager_layer_prints_while_tracing_in_graph_mode_and_every_step_eagerly(capsys):
  model = SequentialModel()
  input_data = tf.random.uniform([60, 28, 28])
  labels = tf.random.uniform([60])
  loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
  model.compile(run_eagerly=False, loss=loss_fn)
  history = model.fit(input_data, labels, epochs=3)
  out = capsys.readouterr().out
  assert out.count("Currently running eagerly") == 2  # the two traces of the first step
  assert out.count("Epoch ") == 3 and "2/2 [==============================]" in out
  assert history.history["loss"][-1] < history.history["loss"][0]
  model.compile(run_eagerly=True, loss=loss_fn)
  model.fit(input_data, labels, epochs=1)
  assert capsys.readouterr().out.count("Currently running eagerly") == 2  # one per batch
