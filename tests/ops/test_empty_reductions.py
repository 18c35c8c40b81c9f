"""Reductions over empty tensors, with TF 2.21's values, dtypes and errors."""
import numpy as np
import pytest

import tensorlet as tf

# NOTE: expected values were printed by TF 2.21 for tf.zeros([0], dtype).
_EXPECTED = {
    "float32": {"reduce_max": -np.inf, "reduce_min": np.inf, "reduce_prod": 1.0,
                "reduce_mean": np.nan, "reduce_sum": 0.0},
    "float64": {"reduce_max": -np.inf, "reduce_min": np.inf, "reduce_prod": 1.0,
                "reduce_mean": np.nan, "reduce_sum": 0.0},
    "int32": {"reduce_max": -2**31, "reduce_min": 2**31 - 1, "reduce_prod": 1,
              "reduce_mean": 0, "reduce_sum": 0},
    "int64": {"reduce_max": -2**63, "reduce_min": 2**63 - 1, "reduce_prod": 1,
              "reduce_mean": 0, "reduce_sum": 0},
    "uint8": {"reduce_max": 0, "reduce_min": 255, "reduce_prod": 1, "reduce_mean": 0,
              "reduce_sum": 0},
}


@pytest.mark.parametrize("traced", [False, True])
@pytest.mark.parametrize("dtype", sorted(_EXPECTED))
def test_empty_reductions_give_the_identity(dtype, traced):
  x = tf.zeros([0], getattr(tf, dtype))
  for name, want in _EXPECTED[dtype].items():
    fn = getattr(tf, name)
    r = tf.function(fn)(x) if traced else fn(x)
    assert r.dtype.name == dtype and r.shape == []
    np.testing.assert_equal(r.numpy(), np.array(want, dtype))


def test_empty_axis_keeps_the_other_dims_without_warnings():
  x = tf.zeros([2, 0])
  with np.errstate(all="raise"):
    np.testing.assert_equal(tf.reduce_max(x, axis=1).numpy(), [-np.inf, -np.inf])
    np.testing.assert_equal(tf.reduce_mean(x, axis=1).numpy(), [np.nan, np.nan])
  assert tf.reduce_max(x, axis=0).shape == [0]
  assert tf.reduce_logsumexp(tf.zeros([0])).numpy() == -np.inf
  assert np.isnan(tf.math.reduce_std(tf.zeros([0])).numpy())
  assert tf.reduce_any(tf.zeros([0], tf.bool)).numpy() == False  # noqa: E712
  assert tf.reduce_all(tf.zeros([0], tf.bool)).numpy() == True  # noqa: E712


def test_gradient_of_an_empty_max_is_empty():
  x = tf.Variable(tf.zeros([2, 0]))
  with tf.GradientTape() as t:
    y = tf.reduce_max(x, axis=1)
  g = t.gradient(y, x)
  assert g.shape == [2, 0] and g.dtype == tf.float32


@pytest.mark.parametrize("fn", ["argmax", "argmin"])
def test_argmax_of_an_empty_axis_raises_invalid_argument(fn):
  f = getattr(tf, fn)
  with pytest.raises(tf.errors.InvalidArgumentError, match="Reduction axis 0 is empty"):
    f(tf.zeros([0]))
  with pytest.raises(tf.errors.InvalidArgumentError, match="Reduction axis 0 is empty"):
    tf.function(f)(tf.zeros([0]))
  r = f(tf.zeros([2, 0]), axis=0)  # NOTE: an empty result along a non-empty axis is fine
  assert r.shape == [0] and r.dtype == tf.int64


def test_bool_max_is_rejected_as_tf():
  with pytest.raises(tf.errors.InvalidArgumentError, match="'T' of bool"):
    tf.reduce_max(tf.zeros([0], tf.bool))
