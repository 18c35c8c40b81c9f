"""Variable.scatter_* with IndexedSlices (values as TF 2.21 gives them), eager and in
tf.function; bad input raises TF's exception types and changes nothing."""
import numpy as np
import pytest

import tensorlet as tf

ROWS = tf.IndexedSlices(tf.constant([[1., 2.], [3., 4.], [5., 6.]]), tf.constant([0, 2, 0]))
# TF's results on [[1, 1], [2, 2], [4, 4]] (rows 0 and 2; row 0 twice, in order)
EXPECTED = {
    "scatter_add": [[7, 9], [2, 2], [7, 8]], "scatter_sub": [[-5, -7], [2, 2], [1, 0]],
    "scatter_update": [[5, 6], [2, 2], [3, 4]], "scatter_max": [[5, 6], [2, 2], [4, 4]],
    "scatter_min": [[1, 1], [2, 2], [3, 4]], "scatter_mul": [[5, 12], [2, 2], [12, 16]],
    "scatter_div": [[0.2, 1 / 12], [2, 2], [4 / 3, 1]],
}


def _var():
  return tf.Variable([[1., 1.], [2., 2.], [4., 4.]])


@pytest.mark.parametrize("method", sorted(EXPECTED))
def test_scatter_methods(method):
  v = _var()
  assert getattr(v, method)(ROWS) is v
  np.testing.assert_allclose(v.numpy(), EXPECTED[method], rtol=1e-6)


@pytest.mark.parametrize("method", sorted(EXPECTED))
def test_scatter_methods_in_function(method):
  v = _var()
  tf.function(lambda s: getattr(v, method)(s).read_value())(ROWS)
  np.testing.assert_allclose(v.numpy(), EXPECTED[method], rtol=1e-6)


def test_scalar_updates_broadcast():
  v = _var()
  v.scatter_add(tf.IndexedSlices(tf.constant(2.), tf.constant([1, 2])))
  np.testing.assert_array_equal(v.numpy(), [[1, 1], [4, 4], [6, 6]])


def test_earlier_reads_keep_their_values():
  v = _var()
  before = v.read_value()
  v.scatter_add(ROWS)
  np.testing.assert_array_equal(before.numpy(), [[1, 1], [2, 2], [4, 4]])


def test_integer_division_truncates():
  v = tf.Variable([[1, 2], [-7, 7]])
  v.scatter_div(tf.IndexedSlices(tf.constant([[2, -2]]), tf.constant([1])))
  np.testing.assert_array_equal(v.numpy(), [[1, 2], [-3, -3]])
  with pytest.raises(tf.errors.InvalidArgumentError, match="must not contain 0"):
    v.scatter_div(tf.IndexedSlices(tf.constant([[2, 0]]), tf.constant([1])))
  np.testing.assert_array_equal(v.numpy(), [[1, 2], [-3, -3]])


@pytest.mark.parametrize("delta, error, match", [
    (tf.constant([[1., 2.]]), TypeError, "must be a `tf.IndexedSlices`"),
    (tf.IndexedSlices(tf.constant([[1., 2.]]), tf.constant([5])), tf.errors.InvalidArgumentError,
     r"indices\[0\] = 5 is not in \[0, 3\)"),
    (tf.IndexedSlices(tf.constant([[1., 2.]]), tf.constant([-1])),
     tf.errors.InvalidArgumentError, r"indices\[0\] = -1 is not in \[0, 3\)"),
    (tf.IndexedSlices(tf.constant([[1., 2.]]), tf.constant([[1]])),
     tf.errors.InvalidArgumentError, "Must have updates.shape = indices.shape"),
    (tf.IndexedSlices(tf.constant([[1, 2]]), tf.constant([1])), ValueError,
     "requested dtype float32"),
])
def test_bad_input_changes_nothing(delta, error, match):
  for method in EXPECTED:
    v = _var()
    with pytest.raises(error, match=match):
      getattr(v, method)(delta)
    np.testing.assert_array_equal(v.numpy(), [[1, 1], [2, 2], [4, 4]])


def test_batch_scatter_update():
  v = tf.Variable([1., 2., 3.])
  v.batch_scatter_update(tf.IndexedSlices(tf.constant([9.]), tf.constant([1])))
  np.testing.assert_array_equal(v.numpy(), [1, 9, 3])
  w = tf.Variable(np.zeros((2, 3), np.float32))
  w.batch_scatter_update(tf.IndexedSlices(tf.constant([[1., 2.], [3., 4.]]),
                                          tf.constant([[0, 2], [1, 1]])))
  np.testing.assert_array_equal(w.numpy(), [[1, 0, 2], [0, 4, 0]])
