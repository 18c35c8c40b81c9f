"""tf.TensorArray: every method eagerly and inside tf.function, as a
tf.while_loop variable, its errors, and gradients through its list ops
(finite differences, order 1 and 2)."""
import numpy as np
import pytest

import tensorlet as tf
from gradcheck import check_grads

MODES = ["eager", "function"]


def run(mode, fn, *args):
  if mode == "eager":
    return fn(*args)
  return tf.function(fn, autograph=False)(*args)


M = np.arange(6, dtype=np.float32).reshape(3, 2)


@pytest.mark.parametrize("mode", MODES)
def test_write_read_stack_size(mode):
  def f(x):
    ta = tf.TensorArray(tf.float32, size=3)
    ta = ta.write(0, x[0]).write(1, x[1]).write(2, x[2])
    return ta.read(1), ta.stack(), ta.size()
  r, s, n = run(mode, f, tf.constant(M))
  assert r.numpy().tolist() == [2.0, 3.0]
  assert s.dtype == tf.float32 and np.array_equal(s.numpy(), M)
  assert n.dtype == tf.int32 and int(n) == 3


@pytest.mark.parametrize("mode", MODES)
def test_write_returns_a_new_array_and_python_values_convert(mode):
  def f():
    a = tf.TensorArray(tf.float32, size=2)
    b = a.write(0, 1).write(1, 2.5)  # Python numbers take the array's dtype
    return a.stack(), b.stack()
  a, b = run(mode, f)
  assert a.numpy().tolist() == [0.0, 0.0]  # unwritten elements of known shape read as zeros
  assert b.numpy().tolist() == [1.0, 2.5]


@pytest.mark.parametrize("mode", MODES)
def test_unstack_gather_concat(mode):
  def f(x):
    ta = tf.TensorArray(tf.float32, size=3).unstack(x)
    return ta.read(2), ta.gather([2, 0]), ta.concat(), ta.size()
  r, g, c, n = run(mode, f, tf.constant(M))
  assert r.numpy().tolist() == [4.0, 5.0]
  assert g.numpy().tolist() == [[4.0, 5.0], [0.0, 1.0]]
  assert c.numpy().tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
  assert int(n) == 3


@pytest.mark.parametrize("mode", MODES)
def test_scatter(mode):
  def f(v):
    return tf.TensorArray(tf.float32, size=3).scatter([2, 0], v).stack()
  out = run(mode, f, tf.constant([[1.0, 2.0], [3.0, 4.0]]))
  assert out.numpy().tolist() == [[3.0, 4.0], [0.0, 0.0], [1.0, 2.0]]


@pytest.mark.parametrize("mode", MODES)
def test_split_and_concat_of_unequal_pieces(mode):
  def f(v):
    ta = tf.TensorArray(tf.float32, size=2).split(v, [2, 3])
    return ta.size(), ta.read(0), ta.read(1), ta.concat()
  n, a, b, c = run(mode, f, tf.constant([1.0, 2.0, 3.0, 4.0, 5.0]))
  assert int(n) == 2 and a.numpy().tolist() == [1.0, 2.0]
  assert b.numpy().tolist() == [3.0, 4.0, 5.0]
  assert c.numpy().tolist() == [1.0, 2.0, 3.0, 4.0, 5.0]


@pytest.mark.parametrize("mode", MODES)
def test_concat_of_matrices_and_empty_arrays(mode):
  def f(x):
    ta = tf.TensorArray(tf.float32, size=2, infer_shape=False).write(0, x).write(1, x[:1] * 10.0)
    empty = tf.TensorArray(tf.float32, size=0, element_shape=[0, 2])
    return ta.concat(), empty.concat(), tf.TensorArray(tf.float32, size=0).stack()
  c, e, s = run(mode, f, tf.constant(M))
  assert c.shape == (4, 2) and c.numpy()[3].tolist() == [0.0, 10.0]
  assert e.shape == (0, 2)
  assert s.shape == (0,) and s.dtype == tf.float32


@pytest.mark.parametrize("mode", MODES)
def test_dynamic_size_grows(mode):
  def f():
    ta = tf.TensorArray(tf.int32, size=0, dynamic_size=True)
    ta = ta.write(0, 1).write(1, 2).write(4, 5)
    return ta.size(), ta.stack()
  n, s = run(mode, f)
  assert int(n) == 5 and s.numpy().tolist() == [1, 2, 0, 0, 5]


def test_element_shape_and_dtype_properties():
  ta = tf.TensorArray(tf.float32, size=2, element_shape=[2])
  assert ta.element_shape == tf.TensorShape([2]) and ta.dtype == tf.float32
  assert not ta.dynamic_size
  assert tf.TensorArray(tf.float32, size=2).element_shape.rank is None
  inferred = tf.TensorArray(tf.float32, size=2).write(0, [1.0, 2.0, 3.0])
  assert inferred.element_shape == tf.TensorShape([3])
  assert tf.TensorArray(tf.int64, size=1, dynamic_size=True).dynamic_size


@pytest.mark.parametrize("mode", MODES)
def test_element_shape_sets_the_static_shape_in_graphs(mode):
  seen = []

  def f(x):
    ta = tf.TensorArray(tf.float32, size=3, element_shape=[2])
    for i in range(3):
      ta = ta.write(i, x[i])
    seen.append((ta.read(0).shape.as_list(), ta.stack().shape.as_list()[1:]))
    return ta.stack()
  run(mode, f, tf.constant(M))
  assert seen == [([2], [2])]


@pytest.mark.parametrize("mode", MODES)
def test_read_out_of_range(mode):
  def f(i):
    return tf.TensorArray(tf.float32, size=3).write(0, 1.0).read(i)
  with pytest.raises(tf.errors.InvalidArgumentError,
                     match="Tried to read from index 5 but array size is: 3"):
    run(mode, f, tf.constant(5))


@pytest.mark.parametrize("mode", MODES)
def test_write_beyond_fixed_size(mode):
  def f(i):
    return tf.TensorArray(tf.float32, size=3).write(i, 1.0).stack()
  with pytest.raises(tf.errors.InvalidArgumentError,
                     match="Tried to write to index 3 but array is not resizeable and size is: 3"):
    run(mode, f, tf.constant(3))


@pytest.mark.parametrize("mode", MODES)
def test_dtype_and_shape_mismatch(mode):
  with pytest.raises(tf.errors.InvalidArgumentError,
                     match="TensorArray dtype is float32 but Op is trying to write dtype int32"):
    run(mode, lambda x: tf.TensorArray(tf.float32, size=2).write(0, x).stack(),
        tf.constant([1, 2]))
  with pytest.raises(ValueError, match="Inconsistent shapes"):
    run(mode, lambda x: tf.TensorArray(tf.float32, size=2).write(0, x).write(1, x[:1]).stack(),
        tf.constant([1.0, 2.0]))
  with pytest.raises(ValueError, match="Inconsistent shapes"):
    run(mode, lambda x: tf.TensorArray(tf.float32, size=2, element_shape=[3]).write(0, x),
        tf.constant([1.0, 2.0]))


def test_size_required_without_dynamic_size():
  with pytest.raises(ValueError, match="Size must be provided"):
    tf.TensorArray(tf.float32)


def test_unknown_size_in_a_graph():
  @tf.function(autograph=False)
  def f(x):
    n = tf.shape(x)[0]
    ta = tf.TensorArray(tf.float32, size=n)
    _, ta = tf.while_loop(lambda i, ta: i < n, lambda i, ta: (i + 1, ta.write(i, x[i] + 1.0)),
                          (0, ta))
    return ta.stack()
  assert f(tf.constant(M)).numpy().tolist() == (M + 1).tolist()
  assert f(tf.constant(M[:2])).numpy().tolist() == (M[:2] + 1).tolist()


@pytest.mark.parametrize("mode", MODES)
def test_as_while_loop_variable_and_dynamic_size(mode):
  def f(n):
    ta = tf.TensorArray(tf.int32, size=0, dynamic_size=True)
    i, ta = tf.while_loop(lambda i, ta: i < n, lambda i, ta: (i + 1, ta.write(i, i * i)), (0, ta))
    return ta.stack(), ta.size()
  s, size = run(mode, f, tf.constant(5))
  assert s.numpy().tolist() == [0, 1, 4, 9, 16] and int(size) == 5


@pytest.mark.parametrize("mode", MODES)
def test_through_cond(mode):
  def f(p, x):
    ta = tf.TensorArray(tf.float32, size=2).write(0, x)
    ta = tf.cond(p, lambda: ta.write(1, x * 2.0), lambda: ta.write(1, -x))
    return ta.stack()
  assert run(mode, f, tf.constant(True), tf.constant(3.0)).numpy().tolist() == [3.0, 6.0]
  assert run(mode, f, tf.constant(False), tf.constant(3.0)).numpy().tolist() == [3.0, -3.0]


# ------------------------------------------------------------------ gradients

def ta_stack(x, y):
  ta = tf.TensorArray(tf.float64, size=2).write(0, x * y).write(1, tf.sin(x))
  return ta.stack()


def ta_read(x):
  ta = tf.TensorArray(tf.float64, size=3).unstack(x)
  return ta.read(0) * ta.read(2) + ta.read(0)  # element 1 is never read: zero gradient


def ta_gather_concat(x):
  ta = tf.TensorArray(tf.float64, size=3).unstack(x)
  return tf.concat([tf.reshape(ta.gather([2, 1]), [-1]) ** 2, tf.exp(ta.concat())], axis=0)


def ta_scatter(v):
  ta = tf.TensorArray(tf.float64, size=3).scatter([2, 0], v * v)
  return ta.stack()


def ta_split(v):
  ta = tf.TensorArray(tf.float64, size=2).split(v, [1, 3])
  return tf.concat([ta.read(1) * ta.read(1)[0], tf.tanh(ta.concat())], 0)


def ta_overwrite_in_loop(x):
  def body(i, ta):
    return i + 1, ta.write(i % 2, ta.read((i + 1) % 2) * x + 1.0)
  ta = tf.TensorArray(tf.float64, size=2, clear_after_read=False).write(0, x).write(1, x * x)
  return tf.while_loop(lambda i, ta: i < 3, body, (0, ta))[1].stack()


rs = np.random.RandomState(3)
CASES = [
    ("stack", ta_stack, [rs.uniform(-1, 1, [2]), rs.uniform(-1, 1, [2])]),
    ("read", ta_read, [rs.uniform(-1, 1, [3, 2])]),
    ("gather_concat", ta_gather_concat, [rs.uniform(-1, 1, [3, 2])]),
    ("scatter", ta_scatter, [rs.uniform(-1, 1, [2, 2])]),
    ("split", ta_split, [rs.uniform(-1, 1, [4])]),
    ("overwrite_in_loop", ta_overwrite_in_loop, [rs.uniform(0.5, 1, [2])]),
]


@pytest.mark.parametrize("name,f,args", CASES, ids=[c[0] for c in CASES])
@pytest.mark.parametrize("mode", MODES)
def test_gradients(mode, name, f, args):
  check_grads(f if mode == "eager" else tf.function(f, autograph=False), args, order=2)


def test_gradient_of_unread_element_is_zero_and_of_read_values():
  x = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
  with tf.GradientTape() as t:
    t.watch(x)
    ta = tf.TensorArray(tf.float32, size=3).unstack(x)
    y = ta.read(0) * 2.0 + ta.read(2) * ta.read(2)
  assert t.gradient(y, x).numpy().tolist() == [[2.0, 2.0], [0.0, 0.0], [10.0, 12.0]]


def test_gradient_inside_a_function():
  @tf.function(autograph=False)
  def f(x):
    with tf.GradientTape() as t:
      t.watch(x)
      ta = tf.TensorArray(tf.float32, size=3)
      _, ta = tf.while_loop(lambda i, ta: i < 3,
                            lambda i, ta: (i + 1, ta.write(i, x * tf.cast(i + 1, tf.float32))),
                            (0, ta))
      y = tf.reduce_sum(ta.stack() ** 2)
    return t.gradient(y, x)
  # y = sum_k (k x)^2 for k = 1..3, dy/dx = 2 x * 14
  assert f(tf.constant([1.0, -2.0])).numpy().tolist() == [28.0, -56.0]
