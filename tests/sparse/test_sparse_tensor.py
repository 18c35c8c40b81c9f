"""tf.SparseTensor, tf.SparseTensorSpec and tf.sparse: values against NumPy
dense references, shapes, dtypes, TF's errors, tf.function tracing and
finite-difference gradients (expectations checked against TensorFlow 2.21)."""
import numpy as np
import pytest

import tensorlet as tf
from gradcheck import check_grads

IDX = [[0, 0], [1, 2], [2, 1]]
VALS = [1.0, -2.0, 3.0]
SHAPE = [3, 4]


def st(idx=IDX, vals=VALS, shape=SHAPE):
  return tf.sparse.SparseTensor(idx, vals, shape)


def dense(idx=IDX, vals=VALS, shape=SHAPE):
  out = np.zeros(shape, np.asarray(vals).dtype)
  for i, v in zip(idx, vals):
    out[tuple(i)] += v
  return out


def D(x):
  return tf.sparse.to_dense(x).numpy()


# ----------------------------------------------------------- construction
def test_components_shape_dtype_and_repr():
  s = st()
  assert s.indices.dtype == tf.int64 and s.dense_shape.dtype == tf.int64
  assert s.dtype == tf.float32 and s.shape.as_list() == SHAPE and s.get_shape() == s.shape
  assert tf.SparseTensor is tf.sparse.SparseTensor
  assert repr(tf.sparse.SparseTensor([[0, 0]], [1.0], [2, 3])) == (
      "SparseTensor(indices=tf.Tensor([[0 0]], shape=(1, 2), dtype=int64), values=tf.Tensor("
      "[1.], shape=(1,), dtype=float32), dense_shape=tf.Tensor([2 3], shape=(2,), "
      "dtype=int64))")


@pytest.mark.parametrize("make, err", [
    (lambda: tf.SparseTensor([[0, 0]], [1.0, 2.0], [2, 2]), ValueError),
    (lambda: tf.SparseTensor([[0]], [1.0], [2, 2]), ValueError),
    (lambda: tf.SparseTensor(tf.constant([[0, 0]], tf.int32), [1.0], [2, 2]), ValueError),
    (lambda: tf.SparseTensor([0, 0], [1.0], [2, 2]), ValueError),
])
def test_construction_errors(make, err):
  with pytest.raises(err):
    make()


@pytest.mark.parametrize("idx, msg", [
    ([[1, 0], [0, 0]], r"indices\[1\] = \[0,0\] is out of order"),
    ([[0, 0], [0, 0]], r"indices\[1\] = \[0,0\] is repeated"),
    ([[3, 0], [0, 0]], r"indices\[0\] = \[3,0\] is out of bounds: need 0 <= index < \[2,2\]"),
])
def test_to_dense_validates_indices(idx, msg):
  with pytest.raises(tf.errors.InvalidArgumentError, match=msg):
    tf.sparse.to_dense(tf.SparseTensor(idx, [1.0, 2.0], [2, 2]))


def test_to_dense_without_validation_and_defaults():
  np.testing.assert_array_equal(
      tf.sparse.to_dense(tf.SparseTensor([[1, 0], [0, 0]], [1.0, 2.0], [2, 2]),
                         validate_indices=False).numpy(), [[2.0, 0.0], [1.0, 0.0]])
  np.testing.assert_array_equal(tf.sparse.to_dense(st(), default_value=-1.0).numpy(),
                                np.where(dense() == 0, -1, dense()))
  s = tf.SparseTensor([[1]], ["a"], [2])
  np.testing.assert_array_equal(tf.sparse.to_dense(s).numpy(), np.array([b"", b"a"], object))


def test_from_dense_roundtrip():
  d = np.array([[0, 1, 0], [2, 0, 3]], np.int32)
  s = tf.sparse.from_dense(d)
  np.testing.assert_array_equal(s.indices.numpy(), [[0, 1], [1, 0], [1, 2]])
  np.testing.assert_array_equal(s.values.numpy(), [1, 2, 3])
  np.testing.assert_array_equal(D(s), d)


# ---------------------------------------------------------------- ops
def test_reorder_reshape_slice_transpose_expand_dims():
  u = tf.SparseTensor([[1, 0], [0, 0]], [1.0, 2.0], [2, 2])
  r = tf.sparse.reorder(u)
  np.testing.assert_array_equal(r.indices.numpy(), [[0, 0], [1, 0]])
  np.testing.assert_array_equal(r.values.numpy(), [2.0, 1.0])
  np.testing.assert_array_equal(D(tf.sparse.reshape(st(), [4, -1])), dense().reshape(4, 3))
  with pytest.raises(tf.errors.InvalidArgumentError):
    tf.sparse.reshape(st(), [5, 2])
  np.testing.assert_array_equal(D(tf.sparse.slice(st(), [1, 1], [2, 2])), dense()[1:3, 1:3])
  np.testing.assert_array_equal(D(tf.sparse.slice(st(), [2, 2], [5, 5])), dense()[2:, 2:])
  t = tf.sparse.transpose(st())
  np.testing.assert_array_equal(D(t), dense().T)
  np.testing.assert_array_equal(t.indices.numpy(), [[0, 0], [1, 2], [2, 1]])
  np.testing.assert_array_equal(D(tf.sparse.expand_dims(st(), 0)), dense()[None])
  np.testing.assert_array_equal(D(tf.sparse.expand_dims(st(), -1)), dense()[..., None])


def test_concat():
  a = tf.SparseTensor([[0, 0], [1, 1]], [1.0, 2.0], [2, 2])
  b = tf.SparseTensor([[0, 0], [0, 1]], [-1.0, 3.0], [2, 2])
  np.testing.assert_array_equal(D(tf.sparse.concat(1, [a, b])),
                                np.concatenate([D(a), D(b)], 1))
  np.testing.assert_array_equal(D(tf.sparse.concat(0, [a, b])),
                                np.concatenate([D(a), D(b)], 0))
  c = tf.SparseTensor([[0, 2]], [5.0], [1, 3])
  np.testing.assert_array_equal(D(tf.sparse.concat(0, [a, c], expand_nonconcat_dims=True)),
                                [[1, 0, 0], [0, 2, 0], [0, 0, 5]])
  with pytest.raises(ValueError):
    tf.sparse.concat(0, [a, c])


def test_add_maximum_minimum():
  a = tf.SparseTensor([[0, 0], [1, 1]], [1.0, 2.0], [2, 2])
  b = tf.SparseTensor([[0, 0], [0, 1]], [-1.0, 3.0], [2, 2])
  s = tf.sparse.add(a, b)
  np.testing.assert_array_equal(s.indices.numpy(), [[0, 0], [0, 1], [1, 1]])
  np.testing.assert_array_equal(s.values.numpy(), [0.0, 3.0, 2.0])
  t = tf.sparse.add(a, b, threshold=0.5)
  np.testing.assert_array_equal(t.indices.numpy(), [[0, 1], [1, 1]])
  np.testing.assert_array_equal(tf.sparse.add(a, tf.ones([2, 2])).numpy(), D(a) + 1)
  np.testing.assert_array_equal(tf.sparse.maximum(a, b).values.numpy(), [1.0, 3.0, 2.0])
  np.testing.assert_array_equal(tf.sparse.minimum(a, b).values.numpy(), [-1.0, 0.0, 0.0])


def test_matmul_matches_numpy():
  rng = np.random.RandomState(0)
  b = rng.standard_normal([4, 2]).astype(np.float32)
  np.testing.assert_allclose(tf.sparse.sparse_dense_matmul(st(), b).numpy(), dense() @ b,
                             rtol=1e-6)
  np.testing.assert_allclose(
      tf.sparse.sparse_dense_matmul(st(), b.T, adjoint_b=True).numpy(), dense() @ b,
      rtol=1e-6)
  c = rng.standard_normal([3, 5]).astype(np.float32)
  np.testing.assert_allclose(
      tf.sparse.sparse_dense_matmul(st(), c, adjoint_a=True).numpy(), dense().T @ c,
      rtol=1e-6)
  with pytest.raises(tf.errors.InvalidArgumentError, match="inner dimension"):
    tf.sparse.sparse_dense_matmul(st(), tf.ones([3, 2]))


@pytest.mark.parametrize("axis", [None, 0, 1, -1, [0, 1]])
@pytest.mark.parametrize("keepdims", [False, True])
def test_reduce_sum_and_max(axis, keepdims):
  d = dense()
  ax = None if axis is None else tuple(axis) if isinstance(axis, list) else axis
  np.testing.assert_allclose(
      tf.sparse.reduce_sum(st(), axis=axis, keepdims=keepdims).numpy(),
      d.sum(axis=ax, keepdims=keepdims))
  sp = tf.sparse.reduce_sum(st(), axis=axis, keepdims=keepdims, output_is_sparse=True)
  np.testing.assert_allclose(D(sp), np.broadcast_to(d.sum(axis=ax, keepdims=keepdims),
                                                    D(sp).shape))
  # max over the entries present only (the implicit zeros do not count); empty -> 0
  present = np.where(np.isin(np.arange(d.size), np.ravel_multi_index(
      np.array(IDX).T, SHAPE)).reshape(SHAPE), d, -np.inf)
  want = present.max(axis=ax, keepdims=keepdims)
  want = np.where(np.isinf(want), 0, want)
  np.testing.assert_allclose(tf.sparse.reduce_max(st(), axis=axis, keepdims=keepdims).numpy(),
                             want)


def test_reduce_max_ignores_implicit_zeros():
  s = tf.SparseTensor([[0, 0], [1, 2]], [-1.0, 2.0], [2, 3])
  np.testing.assert_array_equal(tf.sparse.reduce_max(s, axis=1).numpy(), [-1.0, 2.0])
  o = tf.sparse.reduce_max(s, axis=1, output_is_sparse=True)
  np.testing.assert_array_equal(o.indices.numpy(), [[0], [1]])


def test_retain_fill_empty_rows_indicator_bincount():
  r = tf.sparse.retain(st(), [True, False, True])
  np.testing.assert_array_equal(r.values.numpy(), [1.0, 3.0])
  f, empty = tf.sparse.fill_empty_rows(tf.SparseTensor([[1, 0]], [5], [3, 2]), -1)
  np.testing.assert_array_equal(f.indices.numpy(), [[0, 0], [1, 0], [2, 0]])
  np.testing.assert_array_equal(f.values.numpy(), [-1, 5, -1])
  np.testing.assert_array_equal(empty.numpy(), [True, False, True])
  ids = tf.SparseTensor([[0, 0], [0, 1], [1, 0]], [0, 3, 2], [2, 2])
  np.testing.assert_array_equal(tf.sparse.to_indicator(ids, 4).numpy(),
                                [[True, False, False, True], [False, False, True, False]])
  b = tf.sparse.bincount(ids)
  np.testing.assert_array_equal(b.indices.numpy(), [[0], [2], [3]])
  np.testing.assert_array_equal(b.values.numpy(), [1, 1, 1])
  b2 = tf.sparse.bincount(ids, axis=-1)
  np.testing.assert_array_equal(D(b2), [[1, 0, 0, 1], [0, 0, 1, 0]])


def test_segment_ops():
  data = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
  np.testing.assert_allclose(tf.sparse.segment_sum(data, [0, 2], [0, 0]).numpy(), [[6, 8]])
  np.testing.assert_allclose(tf.sparse.segment_mean(data, [0, 2], [0, 1]).numpy(),
                             [[1, 2], [5, 6]])
  np.testing.assert_allclose(tf.sparse.segment_sqrt_n(data, [0, 2], [0, 0]).numpy(),
                             [[6 / np.sqrt(2), 8 / np.sqrt(2)]], rtol=1e-6)
  np.testing.assert_allclose(
      tf.sparse.segment_sum(data, [0, 1], [0, 2], num_segments=4).numpy(),
      [[1, 2], [0, 0], [3, 4], [0, 0]])


def test_elementwise_on_values():
  s = st()
  assert tf.abs(s).values.numpy().tolist() == [1.0, 2.0, 3.0]
  assert tf.math.square(s).values.numpy().tolist() == [1.0, 4.0, 9.0]
  assert (s * 2.0).values.numpy().tolist() == [2.0, -4.0, 6.0]
  np.testing.assert_array_equal((s * tf.constant([1.0, 2.0, 3.0, 4.0])).values.numpy(),
                                [1.0, -6.0, 6.0])
  assert tf.cast(s, tf.int32).dtype == tf.int32
  assert (-s).values.numpy().tolist() == [-1.0, 2.0, -3.0]
  with pytest.raises(ValueError):
    tf.math.exp(s)          # exp(0) != 0: TF has no sparse exp either


# ------------------------------------------------------------ tf.function
def test_spec_and_tracing_as_tensorflow():
  assert repr(st()._type_spec) == "SparseTensorSpec(TensorShape([3, 4]), tf.float32)"
  count = []

  @tf.function
  def g(s):
    count.append(1)
    return tf.sparse.reduce_sum(s)
  g(st())
  g(tf.SparseTensor([[0, 1]], [5.0], SHAPE))     # same dense shape: no retrace
  assert g.experimental_get_tracing_count() == 1
  g(tf.SparseTensor([[0, 1]], [5.0], [4, 4]))    # another dense shape: retrace
  assert g.experimental_get_tracing_count() == 2
  spec = tf.SparseTensorSpec([None, 4], tf.float32)
  assert st()._type_spec.is_subtype_of(spec)
  assert [c.shape.as_list() for c in spec._component_specs] == [[None, 2], [None], [2]]


def test_one_trace_under_a_sparse_input_signature_and_sparse_results():
  @tf.function(input_signature=[tf.SparseTensorSpec([None, 3], tf.float32)])
  def f(s):
    assert s.shape.as_list() == [None, 3]
    return tf.sparse.to_dense(s), tf.sparse.transpose(s)
  d, t = f(tf.SparseTensor([[0, 0]], [1.0], [2, 3]))
  np.testing.assert_array_equal(d.numpy(), [[1, 0, 0], [0, 0, 0]])
  assert isinstance(t, tf.SparseTensor)
  np.testing.assert_array_equal(t.dense_shape.numpy(), [3, 2])
  f(tf.SparseTensor([[4, 2]], [1.0], [5, 3]))
  assert f.experimental_get_tracing_count() == 1
  with pytest.raises(TypeError):
    f(tf.SparseTensor([[0, 0]], [1.0], [2, 4]))
  with pytest.raises(tf.errors.InvalidArgumentError):
    f(tf.SparseTensor([[1, 0], [0, 0]], [1.0, 2.0], [2, 3]))


def test_nest_expand_composites():
  flat = tf.nest.flatten([st(), 1], expand_composites=True)
  assert len(flat) == 4
  back = tf.nest.pack_sequence_as([st(), 0], flat, expand_composites=True)
  np.testing.assert_array_equal(D(back[0]), dense())


def test_bincount_in_a_graph():
  f = tf.function(lambda x: tf.math.bincount(x, minlength=4))
  np.testing.assert_array_equal(f(tf.constant([0, 2, 2])).numpy(), [1, 0, 2, 0])
  with pytest.raises(tf.errors.InvalidArgumentError):
    tf.math.bincount([-1, 2])


# ------------------------------------------------------------- gradients
def _sp(v):
  return tf.SparseTensor(IDX, v, SHAPE)


@pytest.mark.parametrize("f", [
    lambda v: tf.sparse.to_dense(_sp(v)),
    lambda v: tf.sparse.reduce_sum(_sp(v), axis=1),
    lambda v: tf.sparse.reduce_sum(_sp(v), axis=0, output_is_sparse=True).values,
    lambda v: tf.sparse.reduce_max(_sp(v), axis=1),
    lambda v: tf.sparse.add(_sp(v), tf.ones(SHAPE, tf.float64)),
    lambda v: tf.sparse.add(_sp(v), _sp(v * v)).values,
    lambda v: tf.sparse.to_dense(tf.sparse.transpose(_sp(v))),
], ids=["to_dense", "reduce_sum", "reduce_sum_sparse", "reduce_max", "add_dense", "add_sparse",
        "transpose"])
def test_gradients_by_finite_differences(f):
  check_grads(f, [np.array([0.3, -1.2, 2.0])])


def test_matmul_gradients_by_finite_differences():
  rng = np.random.RandomState(1)
  check_grads(lambda v, b: tf.sparse.sparse_dense_matmul(_sp(v), b),
              [np.array([0.3, -1.2, 2.0]), rng.standard_normal([4, 2])])
  check_grads(lambda v, b: tf.sparse.sparse_dense_matmul(_sp(v), b, adjoint_a=True),
              [np.array([0.3, -1.2, 2.0]), rng.standard_normal([3, 2])])


def test_unsorted_segment_sqrt_n():
  data = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], np.float32)
  got = tf.math.unsorted_segment_sqrt_n(data, [0, 0, 2], 3).numpy()
  np.testing.assert_allclose(got, [[4 / np.sqrt(2), 6 / np.sqrt(2)], [0, 0], [5, 6]],
                             rtol=1e-6)
  check_grads(lambda x: tf.math.unsorted_segment_sqrt_n(x, [0, 0, 2], 3),
              [data.astype(np.float64)])
