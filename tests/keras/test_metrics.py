"""Keras metrics: state, weights, graphs, reset, lookup."""
import numpy as np
import pytest

import tensorlet as tf
from tensorlet.keras import metrics


def test_mean_weighted_and_reset():
  m = metrics.Mean()
  m.update_state([1.0, 2.0, 3.0], sample_weight=[1.0, 0.0, 2.0])
  np.testing.assert_allclose(m.result().numpy(), 7 / 3, rtol=1e-6)
  assert [v.name for v in m.variables] == ["total:0", "count:0"]
  assert all(not v.trainable for v in m.variables) and m.trainable_variables == []
  assert m.get_config() == {"name": "mean", "dtype": "float32"}
  m.reset_state()
  assert m.result().numpy() == 0.0 and m.result().dtype == tf.float32
  assert m([1.0, 2.0]).numpy() == 1.5  # __call__ updates, then returns the result
  m.reset_states()
  # Weights of a lower rank are expanded ([2] -> [2, 1]) and broadcast.
  m.update_state([[1.0, 2.0], [3.0, 4.0]], sample_weight=[1.0, 0.0])
  assert m.result().numpy() == 1.5


def test_mean_with_weights_that_do_not_broadcast():
  m = metrics.Mean()
  values = np.arange(12, dtype=np.float32).reshape(2, 3, 2)
  m.update_state(values, sample_weight=np.array([[1.0, 0.0, 1.0], [0.0, 0.0, 1.0]]))
  per = values.mean(-1)
  want = (per * [[1, 0, 1], [0, 0, 1]]).sum() / 3
  np.testing.assert_allclose(m.result().numpy(), want, rtol=1e-6)


def test_sum():
  s = metrics.Sum()
  s.update_state([1.0, 2.0])
  s.update_state(3.0, sample_weight=2.0)
  assert s.result().numpy() == 9.0 and len(s.variables) == 1


@pytest.mark.parametrize("metric,y_true,y_pred,want", [
    (metrics.Accuracy(), [1, 2, 3], [1, 2, 4], 2 / 3),
    (metrics.BinaryAccuracy(), [[1.0, 0.0], [1.0, 1.0]], [[0.7, 0.6], [0.1, 0.9]], 0.5),
    (metrics.BinaryAccuracy(threshold=0.05), [[1.0], [1.0]], [[0.1], [0.01]], 0.5),
    (metrics.SparseCategoricalAccuracy(), [[1], [2]], [[.1, .9, 0], [.5, .4, .1]], 0.5),
    (metrics.SparseCategoricalAccuracy(), [1, 0, 2], [[.1, .9, 0], [.5, .4, .1], [1, 0, 0]],
     2 / 3),
    (metrics.CategoricalAccuracy(), [[0, 0, 1], [0, 1, 0]], [[.1, .9, .8], [.05, .95, 0]], 0.5),
    (metrics.MeanSquaredError(), [[0.0, 1.0], [0.0, 0.0]], [[1.0, 1.0], [1.0, 0.0]], 0.5),
    (metrics.MeanAbsoluteError(), [[0.0, 1.0]], [[3.0, 1.0]], 1.5),
])
def test_wrappers(metric, y_true, y_pred, want):
  np.testing.assert_allclose(metric(y_true, y_pred).numpy(), want, rtol=1e-6)
  metric.reset_state()
  f = tf.function(lambda a, b: metric.update_state(a, b))
  f(tf.constant(y_true), tf.constant(y_pred))
  f(tf.constant(y_true), tf.constant(y_pred))
  np.testing.assert_allclose(metric.result().numpy(), want, rtol=1e-6)


def test_update_state_in_a_function_traces_once_and_accumulates():
  m = metrics.Mean(name="loss")

  @tf.function
  def step(x):
    m.update_state(x)
    return m.result()
  for k in range(1, 4):
    step(tf.constant([float(k)]))
  assert m.result().numpy() == 2.0
  assert m.name == "loss"


def test_functions():
  np.testing.assert_allclose(metrics.binary_accuracy([[1.0, 0.0], [1.0, 1.0]],
                                                     [[.7, .6], [.1, .9]]).numpy(), [0.5, 0.5])
  np.testing.assert_array_equal(metrics.sparse_categorical_accuracy(
      [[1], [2]], [[.1, .9, 0], [.5, .4, .1]]).numpy(), [[1.0], [0.0]])
  np.testing.assert_array_equal(metrics.categorical_accuracy(
      [[0, 1]], [[0.2, 0.8]]).numpy(), [1.0])
  np.testing.assert_array_equal(metrics.accuracy([1, 2], [1, 3]).numpy(), [1.0, 0.0])


def test_custom_metric_subclass():
  class CountPositives(metrics.Metric):
    def __init__(self, name="positives", **kwargs):
      super().__init__(name=name, **kwargs)
      self.n = self.add_weight("n", initializer="zeros")

    def update_state(self, y_true, y_pred, sample_weight=None):
      self.n.assign_add(tf.reduce_sum(tf.cast(y_pred > 0, tf.float32)))

    def result(self):
      return self.n
  c = CountPositives()
  c.update_state(None, tf.constant([1.0, -1.0, 2.0]))
  assert float(c.result()) == 2.0 and c.name == "positives"
  with pytest.raises(NotImplementedError, match="update_state"):
    metrics.Metric()([1.0])


def test_get_and_serialize():
  assert metrics.get("mse") is metrics.mean_squared_error
  assert metrics.get("accuracy") is metrics.accuracy
  acc = metrics.get("Accuracy")
  assert isinstance(acc, metrics.Accuracy) and repr(acc) == "Accuracy(name=accuracy,dtype=float32)"
  assert metrics.BinaryAccuracy().get_config() == {"name": "binary_accuracy",
                                                   "dtype": "float32", "threshold": 0.5}
  again = metrics.get(metrics.serialize(metrics.BinaryAccuracy(threshold=0.3)))
  assert again.get_config()["threshold"] == 0.3
  m = metrics.Mean()
  assert metrics.get(m) is m
  assert metrics.SparseCategoricalAccuracy().name == "sparse_categorical_accuracy"
  with pytest.raises(ValueError, match="Unknown metric function: 'foo'"):
    metrics.get("foo")
  with pytest.raises(ValueError, match="Could not interpret metric identifier: 3"):
    metrics.get(3)
