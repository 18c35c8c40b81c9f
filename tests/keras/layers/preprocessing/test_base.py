"""PreprocessingLayer.adapt: batching of arrays/datasets/ragged data, state hooks, errors."""
import numpy as np
import pytest

import tensorlet as tf
from tensorlet.keras.layers.preprocessing.base import PreprocessingLayer


class _Total(PreprocessingLayer):
  """Sums the data it is adapted on, in Python (adapted eagerly)."""

  def __init__(self, **kwargs):
    super().__init__(**kwargs)
    self.log = []
    self.total = 0.0

  def build(self, input_shape):
    self.log.append(("build", tuple(input_shape)))
    super().build(input_shape)

  def reset_state(self):
    self.log.append("reset")
    self.total = 0.0

  def update_state(self, data):
    self.log.append(("update", tuple(data.shape)))
    self.total += float(tf.reduce_sum(data))

  def finalize_state(self):
    self.log.append("finalize")

  def call(self, x):
    return x + self.total


class _VarTotal(PreprocessingLayer):
  """Keeps its statistic in a variable; adapt traces update_state as Keras does."""

  def build(self, input_shape):
    self.v = self.add_weight("v", [], initializer="zeros", trainable=False)

  def reset_state(self):
    self.v.assign(0.0)

  def update_state(self, data):
    self.v.assign_add(tf.reduce_sum(tf.cast(data, "float32")))

  def call(self, x):
    return x + self.v


def _eager_total():
  layer = _Total()
  layer.compile(run_eagerly=True)
  return layer


def test_adapt_arrays_batches_of_32_then_finalize():
  layer = _eager_total()
  assert not layer.is_adapted
  data = np.arange(70.0).reshape(35, 2)
  layer.adapt(data)
  # Not built before: no reset; built with an unknown batch dimension.
  assert layer.log == [("build", (None, 2)), ("update", (32, 2)), ("update", (3, 2)),
                       "finalize"]
  assert layer.total == data.sum()
  assert layer.is_adapted
  assert layer.get_config()["batch_input_shape"] == (None, None)


def test_adapt_again_resets_and_honours_batch_size_and_steps():
  layer = _eager_total()
  data = np.arange(70.0).reshape(35, 2)
  layer.adapt(data)
  layer.log.clear()
  layer.adapt(data, batch_size=10, steps=2)
  assert layer.log == ["reset", ("update", (10, 2)), ("update", (10, 2)), "finalize"]
  assert layer.total == data[:20].sum()


def test_adapt_dataset_lists_tensors_and_ragged():
  layer = _eager_total()
  layer.adapt(tf.data.Dataset.range(10).batch(4))
  assert layer.total == 45
  assert [e for e in layer.log if e[0] == "update"] == [("update", (4,)), ("update", (4,)),
                                                       ("update", (2,))]
  layer.adapt(tf.data.Dataset.range(10).batch(4), steps=1)
  assert layer.total == 6
  layer.adapt([1.0, 2.0, 3.0])
  assert layer.total == 6
  layer.adapt(tf.constant([[1.0, 2.0], [3.0, 4.0]]))
  assert layer.total == 10
  layer.adapt(tf.ragged.constant([[1.0, 2.0], [3.0]] * 20), batch_size=16)
  assert layer.total == 120
  assert layer.log[-4:] == [("update", (16, None)), ("update", (16, None)),
                            ("update", (8, None)), "finalize"]


def test_reset_state_clears_is_adapted():
  layer = _eager_total()
  layer.adapt(np.ones([3]))
  assert layer.is_adapted
  layer.reset_state()
  assert not layer.is_adapted


def test_traced_adapt_with_variables_and_normal_call_paths():
  layer = _VarTotal()
  layer.adapt(np.arange(70.0).reshape(35, 2))
  assert layer.v.numpy() == np.arange(70.0).sum()
  layer.adapt(tf.data.Dataset.range(10).batch(4))
  assert layer.v.numpy() == 45.0
  x = tf.keras.Input((2,))
  model = tf.keras.Model(x, layer(x))
  np.testing.assert_array_equal(model(np.ones((1, 2))).numpy(), [[46.0, 46.0]])
  np.testing.assert_array_equal(tf.function(layer)(tf.ones([2])).numpy(), [46.0, 46.0])
  ds = tf.data.Dataset.from_tensor_slices(np.zeros((3, 2), "float32")).batch(2).map(layer)
  np.testing.assert_array_equal(np.concatenate(list(ds.as_numpy_iterator())),
                                np.full((3, 2), 45.0))


def test_base_hooks_and_errors():
  class Bare(PreprocessingLayer):
    pass
  layer = Bare()
  with pytest.raises(NotImplementedError):
    layer.reset_state()
  with pytest.raises(NotImplementedError):
    layer.update_state(1)
  assert layer.finalize_state() is None
  with pytest.raises(NotImplementedError):
    layer.adapt(np.ones([3]))
  assert not layer.is_adapted

  total = _eager_total()

  @tf.function
  def adapt_inside():
    total.adapt(np.ones([3]))
  with pytest.raises(RuntimeError, match="inside a `tf.function`"):
    adapt_inside()
  with pytest.raises(ValueError, match="batch_size"):
    total.adapt(np.ones([3]), batch_size=0)
  with pytest.raises(ValueError, match="non-empty"):
    total.adapt(np.ones([0, 2]))
