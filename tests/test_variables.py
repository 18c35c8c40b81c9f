"""tf.Variable: creation, names, repr, assignment semantics and errors,
snapshot reads, unknown shapes, operators, hashing."""
import copy

import numpy as np
import pytest

import tensorlet as tf
from tensorlet.errors import InvalidArgumentError


# ------------------------------------------------------------------ creation

def test_dtype_inferred_like_constants():
  assert tf.Variable(1.0).dtype == tf.float32
  assert tf.Variable(1).dtype == tf.int32
  assert tf.Variable([True]).dtype == tf.bool
  assert tf.Variable(np.zeros(2)).dtype == tf.float64
  assert tf.Variable(tf.constant([1, 2], tf.int64)).dtype == tf.int64


def test_dtype_argument_converts_python_values():
  v = tf.Variable(1, dtype=tf.float64)
  assert v.dtype == tf.float64 and v.numpy() == 1.0
  assert tf.Variable([1.0, 2.0], dtype="float16").dtype == tf.float16


def test_dtype_argument_with_a_tensor_of_other_dtype_raises():
  with pytest.raises(ValueError):
    tf.Variable(tf.constant(1), dtype=tf.float32)
  with pytest.raises(TypeError):
    tf.Variable([1.5, 2.0], dtype=tf.int32)


def test_callable_initial_value():
  calls = []

  def init():
    calls.append(1)
    return tf.ones([2, 3]) * 2.0

  v = tf.Variable(init)
  assert calls == [1]
  assert v.shape == (2, 3)
  np.testing.assert_array_equal(v.numpy(), np.full((2, 3), 2.0, np.float32))
  assert tf.Variable(lambda: 7, dtype=tf.int64).dtype == tf.int64


def test_initial_value_from_another_variable_is_a_copy():
  a = tf.Variable([1.0, 2.0])
  b = tf.Variable(a)
  a.assign([5.0, 5.0])
  np.testing.assert_array_equal(b.numpy(), [1.0, 2.0])


def test_initial_value_numpy_array_is_copied():
  arr = np.array([1.0, 2.0], np.float32)
  v = tf.Variable(arr)
  arr[0] = 100.0
  np.testing.assert_array_equal(v.numpy(), [1.0, 2.0])


def test_missing_initial_value_and_bad_constraint_raise():
  with pytest.raises(ValueError):
    tf.Variable()
  with pytest.raises(ValueError):
    tf.Variable(1.0, constraint="not callable")


def test_shape_argument_must_be_compatible():
  with pytest.raises(ValueError):
    tf.Variable([1.0, 2.0], shape=[3])
  v = tf.Variable([[1.0, 2.0]], shape=[None, 2])
  assert v.shape.as_list() == [None, 2]


def test_constraint_is_stored_not_applied_on_assign():
  def nonneg(x):
    return tf.maximum(x, 0.0)
  v = tf.Variable(1.0, constraint=nonneg)
  assert v.constraint is nonneg
  v.assign(-3.0)
  assert v.numpy() == -3.0
  assert tf.Variable(1.0).constraint is None


def test_trainable_flag():
  assert tf.Variable(1.0).trainable is True
  assert tf.Variable(1.0, trainable=False).trainable is False
  on_read = tf.Variable(1.0, synchronization=tf.VariableSynchronization.ON_READ)
  assert on_read.trainable is False
  with pytest.raises(ValueError):
    tf.Variable(1.0, trainable=True, synchronization=tf.VariableSynchronization.ON_READ)


# --------------------------------------------------------------- names, repr

def test_default_and_given_names():
  assert tf.Variable(1.0).name == "Variable:0"
  assert tf.Variable(1.0).name == "Variable:0"      # eager names are not uniquified
  assert tf.Variable(5.0, name="weight").name == "weight:0"


def test_names_under_name_scopes():
  with tf.name_scope("outer"):
    with tf.name_scope("inner"):
      v = tf.Variable(1.0, name="w")
    u = tf.Variable(1.0)
  assert v.name == "outer/inner/w:0"
  assert u.name == "outer/Variable:0"
  assert tf.Variable(1.0).name == "Variable:0"


def test_repr_format():
  v = tf.Variable([[1.0]])
  assert repr(v) == ("<tf.Variable 'Variable:0' shape=(1, 1) dtype=float32, "
                     "numpy=array([[1.]], dtype=float32)>")
  assert str(v) == repr(v)
  assert repr(tf.Variable(2.5, name="s")) == \
      "<tf.Variable 's:0' shape=() dtype=float32, numpy=2.5>"
  assert repr(tf.Variable([1, 2])) == \
      "<tf.Variable 'Variable:0' shape=(2,) dtype=int32, numpy=array([1, 2], dtype=int32)>"


def test_properties():
  v = tf.Variable(np.zeros((2, 3), np.float32))
  assert v.shape == tf.TensorShape([2, 3])
  assert v.get_shape() == (2, 3)
  assert v.ndim == 2
  assert v.device.endswith("CPU:0")
  assert v.handle.dtype == tf.resource


# ----------------------------------------------------------------- assigning

def test_assign_returns_the_updated_variable():
  v = tf.Variable(1.0)
  r = v.assign(2.0)
  assert r.numpy() == 2.0 and v.numpy() == 2.0
  assert v.assign_add(3.0).numpy() == 5.0
  assert v.assign_sub(1.5).numpy() == 3.5
  assert v.assign(10.0, read_value=False) is None
  assert v.assign_add(1.0, read_value=False) is None
  assert v.assign_sub(1.0, read_value=False) is None
  assert v.numpy() == 10.0


def test_assign_chaining_and_from_tensors_and_variables():
  v = tf.Variable([1.0, 2.0])
  v.assign([0.0, 0.0]).assign_add(tf.constant([1.0, 1.0])).assign_sub(np.array([0.5, 0.5]))
  np.testing.assert_array_equal(v.numpy(), [0.5, 0.5])
  v.assign(tf.Variable([7.0, 8.0]))
  np.testing.assert_array_equal(v.numpy(), [7.0, 8.0])
  v.assign(3.0 * v)
  np.testing.assert_array_equal(v.numpy(), [21.0, 24.0])


def test_integer_variable_assign_add():
  v = tf.Variable(0)
  for _ in range(5):
    v.assign_add(2)
  assert v.dtype == tf.int32 and v.numpy() == 10


def test_assign_wrong_shape_is_value_error():
  v = tf.Variable([1.0, 2.0])
  with pytest.raises(ValueError, match="Shape mismatch"):
    v.assign([1.0, 2.0, 3.0])
  with pytest.raises(ValueError):
    v.assign(1.0)


def test_assign_add_and_sub_wrong_shape_is_invalid_argument():
  v = tf.Variable([1.0, 2.0])
  with pytest.raises(InvalidArgumentError, match="shapes must be equal"):
    v.assign_add([1.0, 2.0, 3.0])
  with pytest.raises(InvalidArgumentError):
    v.assign_sub([1.0])
  with pytest.raises(tf.errors.InvalidArgumentError):
    v.assign_add(1.0)        # no broadcasting either


def test_assign_wrong_dtype_raises():
  v = tf.Variable([1.0, 2.0])
  with pytest.raises(ValueError):
    v.assign(tf.constant([1, 2]))
  with pytest.raises(ValueError):
    v.assign_add(tf.constant([1.0, 2.0], tf.float64))
  with pytest.raises(TypeError):
    tf.Variable(1).assign(1.5)
  with pytest.raises(TypeError):
    v.assign(["a", "b"])


def test_failed_assign_leaves_the_value_unchanged():
  v = tf.Variable([1.0, 2.0])
  for bad in (lambda: v.assign([1.0, 2.0, 3.0]), lambda: v.assign_add([1.0]),
              lambda: v.assign(tf.constant([1, 2])), lambda: v.assign_sub(["x", "y"])):
    with pytest.raises((ValueError, TypeError, InvalidArgumentError)):
      bad()
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0])
  assert v.shape == (2,) and v.dtype == tf.float32


def test_assigned_array_is_copied_in():
  v = tf.Variable([0.0, 0.0])
  arr = np.array([1.0, 2.0], np.float32)
  v.assign(arr)
  arr[0] = 99.0
  np.testing.assert_array_equal(v.numpy(), [1.0, 2.0])


# ------------------------------------------------------------ snapshot reads

def test_read_value_is_a_snapshot():
  v = tf.Variable([1.0, 2.0])
  before = v.read_value()
  as_tensor = tf.convert_to_tensor(v)
  value = v.value()
  v.assign([10.0, 20.0])
  v.assign_add([1.0, 1.0])
  for t in (before, as_tensor, value):
    assert isinstance(t, tf.Tensor)
    np.testing.assert_array_equal(t.numpy(), [1.0, 2.0])
  np.testing.assert_array_equal(v.read_value().numpy(), [11.0, 21.0])


def test_result_of_an_op_on_a_variable_is_a_snapshot():
  v = tf.Variable(2.0)
  y = v * 3.0
  v.assign(100.0)
  assert y.numpy() == 6.0


def test_numpy_returns_a_copy():
  v = tf.Variable([1.0, 2.0])
  a = v.numpy()
  a[0] = 100.0
  b = np.asarray(v)
  b[1] = 100.0
  np.testing.assert_array_equal(v.numpy(), [1.0, 2.0])


# -------------------------------------------------------------- unknown shape

def test_unknown_shape_variable_changes_shape():
  v = tf.Variable(tf.zeros([2, 2]), shape=tf.TensorShape(None))
  assert v.shape.rank is None
  assert "shape=<unknown>" in repr(v)
  v.assign(tf.ones([3]))
  np.testing.assert_array_equal(v.numpy(), [1.0, 1.0, 1.0])
  np.testing.assert_array_equal(tf.shape(v).numpy(), [3])
  v.assign([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
  assert v.numpy().shape == (3, 2)
  v.assign_add(tf.ones([3, 2]))
  np.testing.assert_array_equal(v.numpy()[:, 0], [2.0, 4.0, 6.0])
  with pytest.raises(InvalidArgumentError):
    v.assign_add(tf.ones([2]))          # must equal the current value's shape
  with pytest.raises(ValueError):
    v.assign(tf.constant([1, 2]))       # the dtype stays fixed


def test_partially_known_shape_variable():
  v = tf.Variable(tf.zeros([1, 2]), shape=[None, 2])
  v.assign(tf.ones([4, 2]))
  assert v.numpy().shape == (4, 2)
  with pytest.raises(ValueError):
    v.assign(tf.ones([4, 3]))


# ------------------------------------------------------------------ operators

def test_arithmetic_operators_give_tensors():
  v = tf.Variable([1.0, 2.0])
  for expr, want in [(v + 1, [2.0, 3.0]), (1 + v, [2.0, 3.0]), (v - 1, [0.0, 1.0]),
                     (10 - v, [9.0, 8.0]), (v * v, [1.0, 4.0]), (v / 2, [0.5, 1.0]),
                     (2 / v, [2.0, 1.0]), (v ** 2, [1.0, 4.0]), (-v, [-1.0, -2.0]),
                     (abs(-v), [1.0, 2.0]), (v + tf.constant([1.0, 1.0]), [2.0, 3.0])]:
    assert isinstance(expr, tf.Tensor) and not isinstance(expr, tf.Variable)
    np.testing.assert_array_equal(expr.numpy(), want)


def test_matmul_comparison_indexing_and_integer_operators():
  m = tf.Variable([[1.0, 2.0], [3.0, 4.0]])
  np.testing.assert_array_equal((m @ m).numpy(), [[7.0, 10.0], [15.0, 22.0]])
  np.testing.assert_array_equal((m > 2.0).numpy(), [[False, False], [True, True]])
  assert m[1, 0].numpy() == 3.0
  np.testing.assert_array_equal(m[:, 1].numpy(), [2.0, 4.0])
  i = tf.Variable(7)
  assert (i // 2).numpy() == 3 and (i % 3).numpy() == 1
  np.testing.assert_array_equal(tf.matmul(m, m).numpy(), (m @ m).numpy())
  assert tf.reduce_sum(m).numpy() == 10.0


def test_python_conversions():
  assert float(tf.Variable(2.5)) == 2.5
  assert int(tf.Variable(3)) == 3
  assert bool(tf.Variable(True))
  # TF 2.21: a variable formats as its repr and takes no format spec.
  assert f"{tf.Variable(2.5)}" == repr(tf.Variable(2.5))
  with pytest.raises(TypeError):
    "{:.2f}".format(tf.Variable(2.5))
  v = tf.Variable([1, 2, 3])
  assert len(v) == 3
  assert [int(x) for x in v] == [1, 2, 3]


def test_in_place_operators_raise_runtime_error():
  v = tf.Variable(1.0)
  with pytest.raises(RuntimeError, match="assign_add"):
    v += 1.0
  with pytest.raises(RuntimeError, match="assign_sub"):
    v -= 1.0
  with pytest.raises(RuntimeError):
    v *= 2.0
  with pytest.raises(RuntimeError):
    v /= 2.0
  assert v.numpy() == 1.0


def test_rebinding_with_plus_gives_a_tensor():
  v = tf.Variable(1.0)
  w = v
  w = w + 1.0
  assert isinstance(w, tf.Tensor) and w.numpy() == 2.0
  assert v.numpy() == 1.0


# ------------------------------------------------------------ hashing, refs

def test_variables_are_unhashable_use_ref():
  v = tf.Variable(1.0)
  with pytest.raises(TypeError, match="ref"):
    hash(v)
  with pytest.raises(TypeError):
    {v: 1}
  u = tf.Variable(1.0)
  table = {v.ref(): "v", u.ref(): "u"}
  assert table[v.ref()] == "v" and table[u.ref()] == "u"
  assert v.ref() == v.ref() and v.ref() != u.ref()
  assert v.ref().deref() is v
  assert v.experimental_ref().deref() is v
  assert {r.deref().name for r in {v.ref(), v.ref()}} == {"Variable:0"}


def test_deepcopy_is_an_independent_variable():
  v = tf.Variable([1.0, 2.0], name="orig", trainable=False)
  c = copy.deepcopy(v)
  assert c is not v and c.name == "orig:0" and c.trainable is False
  c.assign([3.0, 4.0])
  np.testing.assert_array_equal(v.numpy(), [1.0, 2.0])


def test_variable_in_tf_function_assign_and_read():
  v = tf.Variable(1.0)

  @tf.function
  def step(x):
    v.assign_add(x)
    return v.read_value() * 2.0

  assert step(tf.constant(2.0)).numpy() == 6.0
  assert step(tf.constant(1.0)).numpy() == 8.0
  assert v.numpy() == 4.0


def test_sparse_read_gather_nd_and_nd_min_max_updates():
  # Values from TF 2.21.
  v = tf.Variable([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
  assert v.is_initialized().numpy()
  assert v.sparse_read([0]).numpy().tolist() == [[1.0, 2.0]]
  v.scatter_nd_max([[0, 0]], [100.0])
  assert v.scatter_nd_min([[0, 1]], [-1.0]).numpy().tolist() == [[100.0, -1.0], [3.0, 4.0],
                                                                  [5.0, 6.0]]
  assert v.gather_nd([[0, 1], [2, 0]]).numpy().tolist() == [-1.0, 5.0]

  @tf.function
  def f():
    return v.sparse_read([1]), v.gather_nd([[1, 1]])
  a, b = f()
  assert a.numpy().tolist() == [[3.0, 4.0]] and b.numpy().tolist() == [4.0]
  with tf.GradientTape() as t:
    y = tf.reduce_sum(v.sparse_read([1, 1]))
  g = tf.convert_to_tensor(t.gradient(y, v))
  assert g.numpy().tolist() == [[0.0, 0.0], [2.0, 2.0], [0.0, 0.0]]
