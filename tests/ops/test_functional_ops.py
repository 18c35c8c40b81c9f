"""tf.map_fn, tf.scan, tf.foldl, tf.foldr, tf.vectorized_map: values against
NumPy loops, structures, ragged elements and results, one While node inside
tf.function, errors, and finite-difference gradients."""
import warnings

import numpy as np
import pytest

import tensorlet as tf
from gradcheck import check_grads

X = np.array([[1.0, 2.0], [3.0, -1.0], [0.5, 4.0]], np.float32)


def test_map_fn_values_and_structures():
  np.testing.assert_allclose(tf.map_fn(lambda v: v * v, tf.constant(X)).numpy(), X * X)
  a, b = tf.map_fn(lambda t: (t[0] + t[1], t[0] * 2.0), (tf.constant(X), tf.constant(X)))
  np.testing.assert_allclose(a.numpy(), 2 * X)
  np.testing.assert_allclose(b.numpy(), 2 * X)
  d = tf.map_fn(lambda t: {"s": tf.reduce_sum(t["x"])}, {"x": tf.constant(X)},
                fn_output_signature={"s": tf.float32})
  np.testing.assert_allclose(d["s"].numpy(), X.sum(1))
  r = tf.map_fn(lambda v: tf.cast(tf.reduce_sum(v), tf.int64), tf.constant(X),
                fn_output_signature=tf.int64)
  assert r.dtype == tf.int64 and r.numpy().tolist() == X.sum(1).astype(np.int64).tolist()
  # as TF 2.21: no element ran, so the result has no element shape
  assert tf.map_fn(lambda v: v, tf.zeros([0, 2])).shape.as_list() == [0]


def test_map_fn_ragged_elements_and_results():
  rt = tf.ragged.constant([[1, 2, 3], [], [4, 5]])
  np.testing.assert_array_equal(
      tf.map_fn(tf.reduce_sum, rt, fn_output_signature=tf.int32).numpy(), [6, 0, 9])
  assert tf.map_fn(lambda r: r * 2, rt).to_list() == [[2, 4, 6], [], [8, 10]]
  out = tf.map_fn(lambda n: tf.range(n), tf.constant([2, 0, 3]),
                  fn_output_signature=tf.RaggedTensorSpec(shape=[None], dtype=tf.int32))
  assert out.to_list() == [[0, 1], [], [0, 1, 2]]
  with pytest.raises(tf.errors.InvalidArgumentError):
    tf.map_fn(tf.reduce_sum, rt)        # a scalar where the default ragged signature is


def test_map_fn_errors():
  with pytest.raises(ValueError, match="1\\+ dimensional"):
    tf.map_fn(lambda v: v, tf.constant(1))
  with pytest.raises(ValueError):
    tf.map_fn(lambda t: t[0], (tf.constant([1, 2]), tf.constant([1, 2, 3])))
  with pytest.raises(tf.errors.InvalidArgumentError, match="dtype"):
    tf.map_fn(lambda v: tf.cast(v, tf.float32), tf.constant([1, 2]))
  with pytest.raises(TypeError):
    tf.map_fn(3, tf.constant([1]))


def test_scan_and_folds():
  x = tf.constant([1, 2, 3, 4])
  np.testing.assert_array_equal(tf.scan(lambda a, v: a + v, x).numpy(), np.cumsum([1, 2, 3, 4]))
  np.testing.assert_array_equal(tf.scan(lambda a, v: a + v, x, initializer=10).numpy(),
                                10 + np.cumsum([1, 2, 3, 4]))
  np.testing.assert_array_equal(tf.scan(lambda a, v: a + v, x, reverse=True).numpy(),
                                [10, 9, 7, 4])
  s, p = tf.scan(lambda a, v: (a[0] + v, a[1] * v), tf.constant([1.0, 2.0, 3.0]),
                 initializer=(tf.constant(0.0), tf.constant(1.0)))
  assert s.numpy().tolist() == [1, 3, 6] and p.numpy().tolist() == [1, 2, 6]
  assert int(tf.foldl(lambda a, v: a - v, tf.constant([1, 2, 3]))) == -4
  assert int(tf.foldr(lambda a, v: a - v, tf.constant([1, 2, 3]))) == 0
  assert float(tf.foldl(lambda a, v: a + v, tf.constant([1.0, 2.0]), initializer=0.5)) == 3.5
  np.testing.assert_allclose(
      tf.foldl(lambda a, v: a * 2 + v, tf.constant(X), initializer=tf.zeros([2])).numpy(),
      ((0 * 2 + X[0]) * 2 + X[1]) * 2 + X[2])


def test_one_while_loop_each_inside_tf_function():
  @tf.function
  def g(x):
    return tf.map_fn(lambda v: v * 2.0, x), tf.scan(lambda a, v: a * v, x), \
        tf.foldl(lambda a, v: a + v, x), tf.foldr(lambda a, v: a + v, x)
  x = tf.constant([1.0, 2.0, 3.0])
  m, s, l, r = g(x)
  assert m.numpy().tolist() == [2, 4, 6] and s.numpy().tolist() == [1, 2, 6]
  assert float(l) == 6.0 and float(r) == 6.0
  ops = [o.type for o in g.get_concrete_function(x).graph.get_operations()]
  assert ops.count("While") == 4
  g(tf.constant([1.0, 2.0, 3.0, 4.0, 5.0]))


@pytest.mark.parametrize("f", [
    lambda x: tf.map_fn(lambda v: tf.sin(v) * v, x),
    lambda x: tf.scan(lambda a, v: a * v + 1.0, x),
    lambda x: tf.foldl(lambda a, v: a * v, x),
    lambda x: tf.foldr(lambda a, v: a * v - v, x, initializer=tf.constant(
        np.ones(2), tf.float64)),
], ids=["map_fn", "scan", "foldl", "foldr"])
def test_gradients_by_finite_differences(f):
  check_grads(f, [np.array([[0.3, -1.2], [2.0, 0.7], [-0.4, 1.1]])])


def test_gradient_inside_tf_function_matches_eager():
  v = tf.Variable([1.0, 2.0, 3.0])

  def loss():
    return tf.reduce_sum(tf.scan(lambda a, x: a * x, v))

  with tf.GradientTape() as t:
    y = loss()
  eager = t.gradient(y, v).numpy()

  @tf.function
  def graph():
    with tf.GradientTape() as t:
      y = loss()
    return t.gradient(y, v)
  np.testing.assert_allclose(graph().numpy(), eager)
  np.testing.assert_allclose(eager, [9.0, 4.0, 2.0])


def test_vectorized_map_batches_with_rules():
  with warnings.catch_warnings():
    warnings.simplefilter("error")       # no fallback: every op has a batch rule
    s, m = tf.vectorized_map(lambda v: (tf.reduce_sum(v * 2.0 + 1.0, axis=0),
                                        tf.matmul(tf.reshape(v, [1, 2]), tf.ones([2, 3]))),
                             tf.constant(X))
  np.testing.assert_allclose(s.numpy(), (X * 2 + 1).sum(1))
  np.testing.assert_allclose(m.numpy(), X[:, None, :] @ np.ones([2, 3]))
  c = tf.vectorized_map(lambda v: tf.constant(7.0), tf.constant(X))
  assert c.numpy().tolist() == [7.0, 7.0, 7.0]


def test_vectorized_map_falls_back_with_a_warning():
  with pytest.warns(RuntimeWarning, match="no batch rule"):
    out = tf.vectorized_map(lambda v: tf.sort(v), tf.constant(X))
  np.testing.assert_allclose(out.numpy(), np.sort(X, 1))
  with pytest.raises(ValueError):
    tf.vectorized_map(lambda v: tf.sort(v), tf.constant(X), fallback_to_while_loop=False)


def test_vectorized_map_gradient():
  check_grads(lambda x: tf.vectorized_map(lambda v: tf.reduce_sum(v * v, axis=0), x),
              [X.astype(np.float64)])


def test_vectorized_map_layout_rules():
  x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
  with warnings.catch_warnings():
    warnings.simplefilter("error")
    t = tf.vectorized_map(lambda v: tf.transpose(v), tf.constant(x))
    e = tf.vectorized_map(lambda v: tf.expand_dims(v, 0), tf.constant(x))
    s = tf.vectorized_map(lambda v: tf.nn.softmax(v), tf.constant(x))
  np.testing.assert_array_equal(t.numpy(), x.transpose(0, 2, 1))
  assert e.shape.as_list() == [2, 1, 3, 4]
  ex = np.exp(x - x.max(-1, keepdims=True))
  np.testing.assert_allclose(s.numpy(), ex / ex.sum(-1, keepdims=True), rtol=1e-6)


def test_empty_elems():
  assert tf.map_fn(lambda v: v, tf.zeros([0, 3]), parallel_iterations=4).shape.as_list() == \
      [0]  # as TF 2.21 eagerly; a TensorSpec signature gives the element shape
  assert tf.map_fn(lambda v: v, tf.zeros([0, 3]),
                   fn_output_signature=tf.TensorSpec([3])).shape.as_list() == [0, 3]
  assert float(tf.foldl(lambda a, v: a + v, tf.zeros([0]), initializer=1.0)) == 1.0
  with pytest.raises(tf.errors.OutOfRangeError):
    tf.scan(lambda a, v: a + v, tf.zeros([0]))
  with pytest.raises(tf.errors.OutOfRangeError):
    tf.foldl(lambda a, v: a + v, tf.zeros([0]))


def test_vectorized_map_reductions_over_all_axes_are_batched():
  x = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
  with warnings.catch_warnings():
    warnings.simplefilter("error")  # the batch rule, not the loop fallback
    np.testing.assert_allclose(tf.vectorized_map(lambda v: tf.reduce_sum(v * v), x).numpy(),
                               [5.0, 25.0, 61.0])
    np.testing.assert_allclose(tf.vectorized_map(lambda v: tf.reduce_max(v), x).numpy(),
                               [2.0, 4.0, 6.0])
    np.testing.assert_allclose(
        tf.vectorized_map(lambda v: tf.reduce_mean(v, keepdims=True), x).numpy(),
        [[1.5], [3.5], [5.5]])
