"""scan, unique, ignore_errors, rejection_resample, unbatch of any rank,
assert_cardinality: values, element_spec, cardinality, seeds, in tf.function,
TF's errors."""
import numpy as np
import pytest

import tensorlet as tf

I64 = tf.TensorSpec([], tf.int64)


def _np(ds):
  return [np.asarray(x).tolist() for x in ds.as_numpy_iterator()]


def test_scan_values_spec_and_cardinality():
  d = tf.data.Dataset.range(10)
  s = d.scan(np.int64(0), lambda st, x: (st + x, st * 10))
  assert s.element_spec == I64 and int(s.cardinality()) == 10
  assert _np(s) == [0, 0, 10, 30, 60, 100, 150, 210, 280, 360]
  # Tuple elements arrive as one argument (TF's rule for scan).
  t = tf.data.Dataset.from_tensor_slices(([1, 2], [3, 4])).scan(
      0, lambda st, e: (st + e[0], e[1] + st))
  assert _np(t) == [3, 5]
  applied = d.apply(tf.data.experimental.scan(np.int64(0), lambda st, x: (st + 1, st)))
  assert _np(applied) == list(range(10))


def test_scan_relaxes_a_growing_state_shape():
  s = tf.data.Dataset.range(10).scan(tf.constant([0], tf.int64),
                                     lambda st, x: (tf.concat([st, [x]], 0), tf.size(st)))
  assert s.element_spec == tf.TensorSpec([], tf.int32)
  assert _np(s.take(3)) == [1, 2, 3]


def test_scan_in_tf_function_and_errors():
  @tf.function
  def running_max():
    best = tf.constant(0, tf.int64)
    for v in tf.data.Dataset.from_tensor_slices(np.array([3, 1, 4, 1, 5], np.int64)).scan(
        np.int64(0), lambda m, x: (tf.maximum(m, x), tf.maximum(m, x))):
      best = v
    return best
  assert int(running_max()) == 5
  d = tf.data.Dataset.range(3)
  with pytest.raises(TypeError, match="element types for the new state"):
    d.scan(np.int64(0), lambda st, x: (tf.cast(st, tf.float32), x))
  with pytest.raises(TypeError, match="pair"):
    d.scan(np.int64(0), lambda st, x: st)


def test_unique():
  u = tf.data.Dataset.from_tensor_slices([1, 3, 1, 2, 3, 5]).unique()
  assert u.element_spec == tf.TensorSpec([], tf.int32)
  assert int(u.cardinality()) == -2
  assert _np(u) == [1, 3, 2, 5]
  s = tf.data.Dataset.from_tensor_slices([b"a", b"b", b"a"]).apply(
      tf.data.experimental.unique())
  assert list(s.as_numpy_iterator()) == [b"a", b"b"]
  with pytest.raises(TypeError, match="only `tf.int32`, `tf.int64`, and `tf.string`"):
    tf.data.Dataset.from_tensor_slices([1.0]).unique()


def test_ignore_errors_drops_failed_elements():
  d = tf.data.Dataset.from_tensor_slices([1.0, 0.0, 2.0, 0.0, 4.0]).map(
      lambda x: tf.debugging.check_numerics(1 / x, "bad"))
  with pytest.raises(tf.errors.InvalidArgumentError):
    list(d)
  e = d.ignore_errors()
  assert int(e.cardinality()) == -2 and e.element_spec == tf.TensorSpec([], tf.float32)
  assert _np(e) == [1.0, 0.5, 0.25]
  f = tf.data.Dataset.range(6).filter(
      lambda x: tf.debugging.check_numerics(1.0 / tf.cast(x % 3, tf.float32), "z") > 0.6)
  assert _np(f.apply(tf.data.experimental.ignore_errors())) == [1, 4]
  chained = d.map(lambda x: x * 2).ignore_errors(log_warning=True)
  assert _np(chained) == [2.0, 1.0, 0.5]


def test_rejection_resample_follows_target_and_seed():
  d = tf.data.Dataset.range(1000).repeat()
  r = d.rejection_resample(lambda x: tf.cast(x % 2, tf.int32), [0.8, 0.2],
                           initial_dist=[0.5, 0.5], seed=1).take(2000)
  assert r.element_spec == (tf.TensorSpec([], tf.int32), I64)
  got = _np(r)
  classes = np.array([c for c, _ in got])
  assert abs(classes.mean() - 0.2) < 0.04
  assert all(c == x % 2 for c, x in got)
  again = _np(d.rejection_resample(lambda x: tf.cast(x % 2, tf.int32), [0.8, 0.2],
                                   initial_dist=[0.5, 0.5], seed=1).take(2000))
  assert again == got
  est = d.rejection_resample(lambda x: x % 2, [0.3, 0.7], seed=2).take(2000)
  assert abs(np.mean([c for c, _ in est.as_numpy_iterator()]) - 0.7) < 0.05
  with pytest.raises(ValueError, match="integer"):
    d.rejection_resample(lambda x: tf.cast(x, tf.float32), [0.5, 0.5])


def test_unbatch_any_rank_and_cardinality():
  x = tf.data.Dataset.from_tensors(tf.reshape(tf.range(24), [2, 3, 4])).unbatch().unbatch()
  assert x.element_spec == tf.TensorSpec([4], tf.int32)
  assert int(x.cardinality()) == 6
  assert np.array_equal(np.stack(_np(x)), np.arange(24).reshape(6, 4))
  y = tf.data.Dataset.from_tensor_slices(tf.reshape(tf.range(24), [2, 3, 4])).unbatch()
  assert y.element_spec == tf.TensorSpec([4], tf.int32) and int(y.cardinality()) == 6


def test_assert_cardinality():
  d = tf.data.Dataset.range(10)
  ok = d.filter(lambda x: True).apply(tf.data.experimental.assert_cardinality(10))
  assert int(ok.cardinality()) == 10 and len(_np(ok)) == 10
  with pytest.raises(tf.errors.InvalidArgumentError, match="at least 6"):
    list(d.apply(tf.data.experimental.assert_cardinality(5)))
  with pytest.raises(tf.errors.InvalidArgumentError, match="contained only 3"):
    list(d.take(3).apply(tf.data.experimental.assert_cardinality(5)))
