"""t[mask] as tf.boolean_mask and v[key].assign(...), with TF 2.21's values and errors."""
import numpy as np
import pytest

import tensorlet as tf

_T = [[1., 2.], [3., 4.], [5., 6.]]


@pytest.mark.parametrize("traced", [False, True])
def test_bool_tensor_or_array_key_is_a_mask(traced):
  t = tf.constant(_T)
  for m in (tf.constant([True, False, True]), np.array([True, False, True])):
    f = (lambda a: a[m])
    r = tf.function(f)(t) if traced else f(t)
    np.testing.assert_array_equal(r.numpy(), [[1., 2.], [5., 6.]])
    assert r.dtype == tf.float32
  r = (tf.function(lambda a: a[a > 2.5]) if traced else (lambda a: a[a > 2.5]))(t)
  np.testing.assert_array_equal(r.numpy(), [3., 4., 5., 6.])


def test_mask_gradient_scatters_back():
  x = tf.Variable(_T)
  m = tf.constant([True, False, True])
  with tf.GradientTape() as tape:
    y = tf.reduce_sum(x[m] * 2)
  np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [[2., 2.], [0., 0.], [2., 2.]])
  t = tf.constant(_T)
  with tf.GradientTape() as tape:
    tape.watch(t)
    y = tf.reduce_sum(tf.function(lambda a: a[a > 2.5])(t) ** 2)
  np.testing.assert_array_equal(tape.gradient(y, t).numpy(), [[0., 0.], [6., 8.], [10., 12.]])


def test_scalar_bool_key_raises_as_tf():
  with pytest.raises(ValueError, match="mask cannot be scalar"):
    tf.constant(_T)[True]


def test_sliced_assign_eager():
  v = tf.Variable([1., 2., 3., 4.])
  r = v[1:3].assign([9., 8.])
  assert r is v
  np.testing.assert_array_equal(v.numpy(), [1., 9., 8., 4.])
  w = tf.Variable([[1, 2], [3, 4]])
  w[0, 1].assign(7)
  np.testing.assert_array_equal(w.numpy(), [[1, 7], [3, 4]])
  w[:, 0].assign([5, 6])
  np.testing.assert_array_equal(w.numpy(), [[5, 7], [6, 4]])
  w[1].assign(0)  # NOTE: broadcast into the slice, as TF's strided-slice assign
  np.testing.assert_array_equal(w.numpy(), [[5, 7], [0, 0]])
  assert w.dtype == tf.int32 and w[0].dtype == tf.int32
  assert w[0].assign(1, read_value=False) is None


def test_sliced_assign_bad_shape_changes_nothing():
  v = tf.Variable([1., 2., 3., 4.])
  with pytest.raises(tf.errors.InvalidArgumentError):
    v[1:3].assign([1., 2., 3.])
  np.testing.assert_array_equal(v.numpy(), [1., 2., 3., 4.])
  with pytest.raises(AttributeError):
    v[0].assign_add(1.)  # NOTE: TF's slice has `assign` only


def test_sliced_assign_in_function():
  v = tf.Variable([1., 2., 3., 4.])

  @tf.function
  def g(x):
    v[::2].assign([0., 0.])
    v[-1].assign(x)
    return v.read_value()
  np.testing.assert_array_equal(g(tf.constant(7.)).numpy(), [0., 2., 0., 7.])
  np.testing.assert_array_equal(v.numpy(), [0., 2., 0., 7.])


def test_slice_is_a_plain_tensor_value():
  v = tf.Variable([1., 2., 3.])
  s = v[1:]
  assert isinstance(s, tf.Tensor) and tf.is_tensor(s)
  np.testing.assert_array_equal((s * 2).numpy(), [4., 6.])
  v.assign([0., 0., 0.])
  np.testing.assert_array_equal(s.numpy(), [2., 3.])  # a read, not a view


def test_list_of_python_bools_is_not_a_mask():
  # NOTE: TF 2.21 treats it as bool StridedSlice indices and rejects the dtype.
  with pytest.raises(tf.errors.InvalidArgumentError, match="'Index' of bool"):
    tf.constant(_T)[[True, False, True]]
