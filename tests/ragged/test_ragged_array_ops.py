"""tf.shape / tf.size / tf.rank / tf.expand_dims / tf.where(rt) of RaggedTensors,
concat and stack along inner axes, reductions over every axis of ragged_rank >= 2
values, and how RaggedTensors print (expectations checked against TensorFlow 2.21;
the reductions also against a Python reference)."""
import functools

import numpy as np
import pytest

import tensorlet as tf
from gradcheck import check_grads

R2 = [[[1, 2], [3]], [[4]], [[5, 6, 7], [], [8]]]


def r2(dtype=None):
  return tf.ragged.constant(R2, dtype=dtype)


# ---------------------------------------------------------------- tf.shape
def test_shape_is_a_dynamic_ragged_shape():
  rt = tf.ragged.constant([[1, 2, 3], [], [4, 5]])
  s = tf.shape(rt)
  assert type(s).__name__ == "DynamicRaggedShape"
  assert repr(s) == "<DynamicRaggedShape lengths=[3, (3, 0, 2)] num_row_partitions=1>"
  assert s.rank == 2 and s.num_row_partitions == 1 and s.dtype == tf.int32
  assert s[0].dtype == tf.int32 and int(s[0]) == 3
  assert int(s[-2]) == 3
  with pytest.raises(ValueError, match="Index 1 is not uniform"):
    s[1]
  with pytest.raises(IndexError, match="too big"):
    s[5]
  with pytest.raises(IndexError, match="non-negative"):
    s[-3]
  with pytest.raises(TypeError, match="not an int"):
    s[1.5]
  assert tf.shape(rt, out_type=tf.int64)[0].dtype == tf.int64
  assert repr(tf.shape(r2())) == ("<DynamicRaggedShape lengths=[3, (2, 1, 3), "
                                  "(2, 1, 1, 3, 0, 1)] num_row_partitions=2>")


def test_shape_of_dense_inner_dims():
  rt = tf.RaggedTensor.from_row_lengths(tf.zeros([5, 4, 2]), [3, 0, 2])
  s = tf.shape(rt)
  assert s.rank == 4 and s.static_lengths() == [3, (3, 0, 2), 4, 2]
  assert [int(s[i]) for i in (0, 2, 3, -1, -2)] == [3, 4, 2, 2, 4]
  assert s.inner_shape.numpy().tolist() == [5, 4, 2]
  assert not s.is_uniform(1) and s.is_uniform(2) and s.is_uniform(0)
  head = s[0:1]
  assert repr(head) == "<DynamicRaggedShape lengths=[3] num_row_partitions=0>"
  assert repr(s[:3]) == "<DynamicRaggedShape lengths=[3, (3, 0, 2), 4] num_row_partitions=1>"
  with pytest.raises(ValueError, match="must be uniform"):
    s[1:]
  with pytest.raises(TypeError, match="no len"):
    len(s)
  assert [p.row_lengths().numpy().tolist() for p in s.row_partitions] == [[3, 0, 2]]


def test_shape_in_tf_function_gives_static_batch_size():
  seen = []

  @tf.function
  def f(x):
    s = tf.shape(x)
    seen.append(repr(s))
    return s[0], tf.size(x), tf.rank(x)

  n, size, rank = f(tf.ragged.constant([[1, 2, 3], [], [4, 5]]))
  assert (int(n), int(size), int(rank)) == (3, 5, 2)
  assert seen == ["<DynamicRaggedShape lengths=[3, None] num_row_partitions=1>"]

  @tf.function(input_signature=[tf.RaggedTensorSpec([None, None], tf.int32)])
  def g(x):
    return tf.shape(x)[0]
  assert int(g(tf.ragged.constant([[1], [2, 3], [], [4]]))) == 4


def test_size_and_rank():
  rt = tf.RaggedTensor.from_row_lengths(tf.zeros([5, 4, 2]), [3, 0, 2])
  assert int(tf.size(rt)) == 40 and tf.size(rt).dtype == tf.int32
  assert tf.size(rt, out_type=tf.int64).dtype == tf.int64
  assert int(tf.rank(rt)) == 4 and tf.rank(rt).dtype == tf.int32
  assert int(tf.size(r2())) == 8 and int(tf.rank(r2())) == 3


def test_shape_size_rank_of_sparse():
  sp = tf.sparse.from_dense([[1, 0, 0], [0, 2, 0]])
  assert tf.shape(sp).numpy().tolist() == [2, 3] and tf.shape(sp).dtype == tf.int32
  assert tf.shape(sp, out_type=tf.int64).dtype == tf.int64
  assert int(tf.size(sp)) == 6 and int(tf.rank(sp)) == 2
  with pytest.raises(ValueError):
    tf.expand_dims(sp, 0)


# ------------------------------------------------------------ expand_dims
def test_expand_dims():
  rt = tf.ragged.constant([[1, 2, 3], [], [4, 5]])
  assert tf.expand_dims(rt, 0).to_list() == [[[1, 2, 3], [], [4, 5]]]
  assert tf.expand_dims(rt, 1).to_list() == [[[1, 2, 3]], [[]], [[4, 5]]]
  assert tf.expand_dims(rt, 2).to_list() == [[[1], [2], [3]], [], [[4], [5]]]
  assert tf.expand_dims(rt, -1).to_list() == [[[1], [2], [3]], [], [[4], [5]]]
  assert tf.expand_dims(rt, -3).to_list() == [[[1, 2, 3], [], [4, 5]]]
  e = tf.expand_dims(r2(), 2)
  assert e.to_list() == [[[[1, 2]], [[3]]], [[[4]]], [[[5, 6, 7]], [[]], [[8]]]]
  assert tf.expand_dims(r2(), 3).to_list() == [[[[1], [2]], [[3]]], [[[4]]],
                                              [[[5], [6], [7]], [], [[8]]]]
  assert tf.expand_dims(rt, 1).row_splits.dtype == tf.int64
  r32 = tf.ragged.constant([[1], [2, 3]], row_splits_dtype=tf.int32)
  assert tf.expand_dims(r32, 0).row_splits.dtype == tf.int32
  with pytest.raises(ValueError, match="out of bounds"):
    tf.expand_dims(rt, 3)
  with pytest.raises(ValueError, match="out of bounds"):
    tf.expand_dims(rt, -4)


# ------------------------------------------------------------ tf.where(rt)
def test_where_single_argument():
  c = tf.ragged.constant([[True, False], [True], [False, True, True]])
  w = tf.where(c)
  assert w.dtype == tf.int64
  assert w.numpy().tolist() == [[0, 0], [1, 0], [2, 1], [2, 2]]
  c3 = tf.ragged.constant([[[True, False]], [[True]], []])
  assert tf.where(c3).numpy().tolist() == [[0, 0, 0], [1, 0, 0]]
  assert tf.where(tf.ragged.constant([[1, 0], [3]])).numpy().tolist() == [[0, 0], [1, 0]]
  u = tf.RaggedTensor.from_row_lengths(tf.constant([[True, False], [False, True]]), [0, 2])
  assert tf.where(u).numpy().tolist() == [[1, 0, 0], [1, 1, 1]]
  # the same coordinates as the dense where of the padded tensor
  pad = tf.where(c.to_tensor()).numpy().tolist()
  assert pad == w.numpy().tolist()


def test_where_in_tf_function():
  f = tf.function(lambda c: tf.where(c))
  c = tf.ragged.constant([[False, True], [], [True]])
  assert f(c).numpy().tolist() == [[0, 1], [2, 0]]


# ------------------------------------------------------ concat and stack
def test_concat_inner_axes():
  a = r2()
  b = a * 10
  want = [[[1, 2, 10, 20], [3, 30]], [[4, 40]], [[5, 6, 7, 50, 60, 70], [], [8, 80]]]
  assert tf.concat([a, b], axis=2).to_list() == want
  assert tf.concat([a, b], axis=-1).to_list() == want
  u = tf.RaggedTensor.from_row_lengths(tf.reshape(tf.range(6), [3, 2]), [2, 1])
  assert tf.concat([u, u + 6], axis=2).to_list() == [[[0, 1, 6, 7], [2, 3, 8, 9]],
                                                    [[4, 5, 10, 11]]]
  with pytest.raises(tf.errors.InvalidArgumentError):
    tf.concat([a, tf.ragged.constant([[[1]], [[2]], [[3]]])], axis=2)


def test_stack_inner_axes():
  a = r2()
  b = a * 10
  assert tf.stack([a, b], axis=2).to_list() == [
      [[[1, 2], [10, 20]], [[3], [30]]], [[[4], [40]]],
      [[[5, 6, 7], [50, 60, 70]], [[], []], [[8], [80]]]]
  assert tf.stack([a, b], axis=3).to_list() == [
      [[[1, 10], [2, 20]], [[3, 30]]], [[[4, 40]]],
      [[[5, 50], [6, 60], [7, 70]], [], [[8, 80]]]]
  rt = tf.ragged.constant([[1, 2, 3], [], [4, 5]])
  want = [[[1, 10], [2, 20], [3, 30]], [], [[4, 40], [5, 50]]]
  assert tf.stack([rt, rt * 10], axis=2).to_list() == want
  assert tf.stack([rt, rt * 10], axis=-1).to_list() == want


def test_concat_stack_inner_axes_gradients():
  a = tf.ragged.constant([[[1.0, 2.0], [3.0]], [[4.0]]])

  def f(v):
    x = a.with_flat_values(v)
    return tf.concat([x, x * 2.0], axis=2).flat_values * tf.range(8, dtype=tf.float64) + \
        tf.reduce_sum(tf.stack([x, x * 3.0], axis=3).flat_values)
  check_grads(f, [tf.constant([1.0, 2.0, 3.0, 4.0], tf.float64)])


# -------------------------------------------------------------- reductions
_IDENT = {"sum": 0, "max": np.iinfo(np.int32).min, "min": np.iinfo(np.int32).max, "prod": 1}
_OPS = {"sum": sum, "max": max, "min": min, "prod": lambda xs: functools.reduce(
    lambda a, b: a * b, xs, 1)}


def ref_reduce(x, axis, kind, depth):
  """Python reference: rows combined elementwise, aligned at their starts."""
  if axis == 0:
    return _combine(list(x), kind, depth - 1)
  return [ref_reduce(e, axis - 1, kind, depth - 1) for e in x]


def _combine(items, kind, depth):
  if depth == 0:
    return _OPS[kind](items) if items else _IDENT[kind]
  width = max((len(i) for i in items), default=0)
  return [_combine([i[c] for i in items if c < len(i)], kind, depth - 1) for c in range(width)]


def _as_list(x):
  return x.to_list() if isinstance(x, tf.RaggedTensor) else x.numpy().tolist()


@pytest.mark.parametrize("kind", ["sum", "max", "min", "prod"])
@pytest.mark.parametrize("axis", [0, 1, 2, -1, -2, -3])
def test_reductions_every_axis_ragged_rank_2(kind, axis):
  fn = getattr(tf, f"reduce_{kind}")
  got = fn(r2(), axis=axis)
  assert got.dtype == tf.int32
  assert _as_list(got) == ref_reduce(R2, axis % 3, kind, 3)


def test_reductions_ragged_rank_3_against_reference():
  rng = np.random.RandomState(0)
  rows = [[[list(rng.randint(0, 9, rng.randint(0, 4))) for _ in range(rng.randint(0, 3))]
           for _ in range(rng.randint(1, 4))] for _ in range(4)]
  rows = [[[[int(v) for v in c] for c in b] for b in a] for a in rows]
  x = tf.ragged.constant(rows, dtype=tf.int32, ragged_rank=3)
  for axis in range(4):
    for kind in ("sum", "max"):
      got = getattr(tf, f"reduce_{kind}")(x, axis=axis)
      assert _as_list(got) == ref_reduce(rows, axis, kind, 4), (axis, kind)


def test_reduce_known_values_from_tf():
  x = r2()
  assert tf.reduce_sum(x, axis=0).to_list() == [[10, 8, 7], [3], [8]]
  assert tf.reduce_max(x, axis=2).to_list() == [[2, 3], [4], [7, -2147483648, 8]]
  assert tf.reduce_sum(x, axis=(0, 1)).numpy().tolist() == [21, 8, 7]
  assert tf.reduce_sum(x, axis=(0, 2)).numpy().tolist() == [25, 3, 8]
  assert int(tf.reduce_sum(x, axis=(0, 1, 2))) == 36
  assert tf.reduce_sum(x, axis=1, keepdims=True).to_list() == [[[4, 2]], [[4]], [[13, 6, 7]]]
  assert tf.reduce_sum(x, axis=0, keepdims=True).to_list() == [[[10, 8, 7], [3], [8]]]
  assert tf.reduce_sum(x, axis=2, keepdims=True).to_list() == [[[3], [3]], [[4]],
                                                              [[18], [0], [8]]]


def test_reduce_mean_is_sum_over_count_and_float64_for_ints():
  x = r2()
  m = tf.reduce_mean(x)
  assert m.dtype == tf.float64 and float(m) == 4.5
  assert tf.reduce_mean(x, axis=0).to_list() == [[10 / 3, 4.0, 7.0], [3.0], [8.0]]
  assert np.allclose(tf.reduce_mean(x, axis=(0, 1)).numpy(), [4.2, 4.0, 7.0])
  got = tf.reduce_mean(x, axis=2).to_list()
  assert got[0] == [1.5, 3.0] and np.isnan(got[2][1])
  f = tf.reduce_mean(tf.ragged.constant([[1.0, 2.0], [4.0]]), axis=0)
  assert f.dtype == tf.float32 and f.numpy().tolist() == [2.5, 2.0]


def test_reduce_any_all_ragged_rank_2():
  b = tf.ragged.constant([[[True, False], [False]], [[]], [[True]]])
  assert tf.reduce_any(b, axis=1).to_list() == [[True, False], [], [True]]
  assert tf.reduce_all(b, axis=0).to_list() == [[True, False], [False]]
  assert tf.reduce_all(b, axis=2).to_list() == [[False, False], [True], [True]]


def test_reductions_ragged_rank_2_gradients():
  base = tf.ragged.constant([[[1.0, 2.0], [3.0]], [[4.0]], [[5.0, 6.0], [], [7.0]]],
                            dtype=tf.float64)
  w = tf.constant([1.0, -2.0, 3.0], tf.float64)

  def f(v):
    x = base.with_flat_values(v)
    return (tf.reduce_sum(x, axis=0).flat_values[:3] * w +
            tf.reduce_max(x, axis=1).flat_values[:3] * w +
            tf.reduce_mean(x, axis=(0, 1))[0] * w)
  check_grads(f, [tf.constant([1.0, 2.5, 3.0, 4.0, 5.5, 6.0, 7.0], tf.float64)])


def test_reductions_in_tf_function_match_eager():
  f = tf.function(lambda x: (tf.reduce_sum(x, axis=0), tf.reduce_max(x, axis=1)))
  s, m = f(r2())
  assert s.to_list() == [[10, 8, 7], [3], [8]]
  assert m.to_list() == [[3, 2], [4], [8, 6, 7]]


# ---------------------------------------------------------- operators, print
def test_division_and_pow_of_ragged():
  x = tf.ragged.constant([[1, 2, 3], [], [4, 5]])
  assert (x / 2).to_list() == [[0.5, 1.0, 1.5], [], [2.0, 2.5]]
  assert (x / 2).dtype == tf.float64
  assert tf.math.divide(x, x).to_list() == [[1.0, 1.0, 1.0], [], [1.0, 1.0]]
  assert (x ** 2).to_list() == [[1, 4, 9], [], [16, 25]]
  assert tf.pow(tf.cast(x, tf.float32), 0.5).flat_values.numpy().tolist() == \
      np.sqrt(np.float32([1, 2, 3, 4, 5])).tolist()
  assert (1.0 / tf.cast(x, tf.float32)).to_list()[2] == [0.25, 0.20000000298023224]


def test_printing_as_tf():
  assert str(tf.ragged.constant([[1.5, 2, 3], [], [4, 5]])) == \
      "<tf.RaggedTensor [[1.5, 2.0, 3.0], [], [4.0, 5.0]]>"
  assert str(r2()) == ("<tf.RaggedTensor [[[1, 2], [3]], [[4]], [[5, 6, 7], [], [8]]]>")
  assert str(tf.ragged.constant([[[1, 2, 3]], [[]], [[4, 5]]])) == \
      "<tf.RaggedTensor [[[1, 2, 3]],\n [[]],\n [[4, 5]]]>"
  assert str(tf.ragged.constant([["a", "bc"], []])) == "<tf.RaggedTensor [[b'a', b'bc'], []]>"
  u = tf.RaggedTensor.from_row_lengths(tf.reshape(tf.range(6.0), [3, 2]), [2, 1])
  assert str(u) == "<tf.RaggedTensor [[[0.0, 1.0],\n  [2.0, 3.0]], [[4.0, 5.0]]]>"
  assert str(tf.RaggedTensor.from_row_lengths(tf.zeros([3, 0]), [2, 1])) == \
      "<tf.RaggedTensor [[[], []], [[]]]>"
  assert str(tf.ragged.constant([], ragged_rank=1)) == "<tf.RaggedTensor []>"


def test_dynamic_ragged_shape_is_public():
  assert isinstance(tf.shape(r2()), tf.experimental.DynamicRaggedShape)


# ------------------------------------------------------ uniform row lengths
def test_uniform_row_lengths_are_static_dims_as_tf():
  u = tf.RaggedTensor.from_uniform_row_length(tf.range(6), 2)
  assert u.shape.as_list() == [3, 2] and (u * 2).shape.as_list() == [3, 2]
  assert u.with_values(u.values).shape.as_list() == [3, 2]
  assert tf.concat([u, u], 0).shape.as_list() == [6, None]
  assert tf.RaggedTensor.from_tensor([[1, 2], [3, 4]]).shape.as_list() == [2, 2]
  assert tf.RaggedTensor.from_tensor([[1, 2], [3, 4]], lengths=[1, 2]).shape.as_list() == \
      [2, None]
  r3 = tf.RaggedTensor.from_tensor(tf.reshape(tf.range(8), [2, 2, 2]), ragged_rank=2)
  assert r3.shape.as_list() == [2, 2, 2] and r3.row_splits.dtype == tf.int64
  assert tf.strings.split([["a b"], ["c"]]).shape.as_list() == [2, 1, None]
  rt = tf.ragged.constant([[1, 2, 3], [], [4, 5]])
  assert tf.expand_dims(rt, 0).shape.as_list() == [1, 3, None]
  assert tf.expand_dims(rt, 1).shape.as_list() == [3, 1, None]
  assert tf.expand_dims(rt, 2).shape.as_list() == [3, None, 1]
  assert tf.expand_dims(r2(), 2).shape.as_list() == [3, None, 1, None]
  assert tf.stack([rt, rt], axis=1).shape.as_list() == [3, None, None]
  assert tf.gather(rt, [[2, 0], [1, 1]]).shape.as_list() == [2, None, None]
  assert repr(tf.shape(tf.expand_dims(rt, 1))) == \
      "<DynamicRaggedShape lengths=[3, 1, (3, 0, 2)] num_row_partitions=2>"
  s = tf.shape(u)
  assert repr(s) == "<DynamicRaggedShape lengths=[3, 2] num_row_partitions=1>"
  assert int(s[1]) == 2 and s.is_uniform(1)


def test_uniform_row_lengths_in_trace_types():
  shapes = []

  @tf.function
  def f(x):
    shapes.append(x.shape.as_list())
    return x * 2
  f(tf.RaggedTensor.from_uniform_row_length(tf.range(6), 2))
  f(tf.RaggedTensor.from_uniform_row_length(tf.range(9), 3))
  out = f(tf.ragged.constant([[1], [2, 3], []]))
  assert shapes == [[3, 2], [3, 3], [3, None]]
  assert out.to_list() == [[2], [4, 6], []]
  same = f(tf.RaggedTensor.from_uniform_row_length(tf.range(6), 2))
  assert len(shapes) == 3 and same.shape.as_list() == [3, 2]


def test_reverse():
  rt = tf.ragged.constant([[1, 2, 3], [], [4, 5]])
  assert tf.reverse(rt, [1]).to_list() == [[3, 2, 1], [], [5, 4]]
  assert tf.reverse(rt, [0]).to_list() == [[4, 5], [], [1, 2, 3]]
  assert tf.reverse(r2(), [1]).to_list() == [[[3], [1, 2]], [[4]], [[8], [], [5, 6, 7]]]
  assert tf.reverse(r2(), [2]).to_list() == [[[2, 1], [3]], [[4]], [[7, 6, 5], [], [8]]]
  assert tf.reverse(r2(), [0, 2]).to_list() == [[[7, 6, 5], [], [8]], [[4]], [[2, 1], [3]]]
  u = tf.RaggedTensor.from_row_lengths(tf.reshape(tf.range(6), [3, 2]), [2, 1])
  assert tf.reverse(u, [2]).to_list() == [[[1, 0], [3, 2]], [[5, 4]]]
  assert tf.reverse(u, [-2]).to_list() == [[[2, 3], [0, 1]], [[4, 5]]]
  assert tf.function(lambda r: tf.reverse(r, [1]))(rt).to_list() == [[3, 2, 1], [], [5, 4]]
  base = tf.ragged.constant([[1.0, 2.0, 3.0], [4.0, 5.0]], dtype=tf.float64)
  w = tf.constant([1.0, 2.0, 3.0, 4.0, 5.0], tf.float64)
  check_grads(lambda v: tf.reverse(base.with_flat_values(v), [1]).flat_values * w,
              [tf.constant([0.5, 1.0, 2.0, 3.0, 4.0], tf.float64)])


def test_nest_assert_same_structure_expands_composites_as_tf():
  rt = tf.ragged.constant([[1, 2, 3], [], [4, 5]])
  sp = tf.sparse.SparseTensor([[0, 1], [1, 0]], [1.0, 2.0], [2, 3])
  tf.nest.assert_same_structure(rt, tf.ragged.constant([[1]]), expand_composites=True)
  tf.nest.assert_same_structure(rt, sp)  # leaves alike without expanding
  with pytest.raises(ValueError, match="same nested structure"):
    tf.nest.assert_same_structure(rt, sp, expand_composites=True)
  with pytest.raises(ValueError, match="Incompatible CompositeTensor TypeSpecs"):
    tf.nest.assert_same_structure(rt, tf.ragged.constant([[[1]]]), expand_composites=True)
  with pytest.raises(ValueError):
    tf.nest.assert_same_structure(rt, tf.constant([1]), expand_composites=True)


def test_tile():
  rt = tf.ragged.constant([[1, 2, 3], [], [4, 5]])
  assert tf.tile(rt, [1, 2]).to_list() == [[1, 2, 3, 1, 2, 3], [], [4, 5, 4, 5]]
  assert tf.tile(rt, [2, 2]).to_list() == [[1, 2, 3, 1, 2, 3], [], [4, 5, 4, 5]] * 2
  r = tf.ragged.constant([[[1, 2], [3]], [[4]]])
  assert tf.tile(r, [1, 2, 2]).to_list() == [[[1, 2, 1, 2], [3, 3], [1, 2, 1, 2], [3, 3]],
                                             [[4, 4], [4, 4]]]
  u = tf.RaggedTensor.from_row_lengths(tf.reshape(tf.range(6), [3, 2]), [2, 1])
  t = tf.tile(u, [2, 1, 2])
  assert t.shape.as_list() == [4, None, 4]
  assert t.to_list() == [[[0, 1, 0, 1], [2, 3, 2, 3]], [[4, 5, 4, 5]]] * 2
  assert tf.function(lambda x: tf.tile(x, [1, 3]))(rt).to_list() == \
      [[1, 2, 3] * 3, [], [4, 5] * 3]
  with pytest.raises(tf.errors.InvalidArgumentError):
    tf.tile(rt, [2, 1, 1])
  base = tf.ragged.constant([[1.0, 2.0], [3.0]], dtype=tf.float64)
  w = tf.constant([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], tf.float64)
  check_grads(lambda v: tf.tile(base.with_flat_values(v), [1, 2]).flat_values * w,
              [tf.constant([0.5, 1.0, 2.0], tf.float64)])


def test_squeeze():
  rt = tf.ragged.constant([[1, 2, 3], [], [4, 5]])
  ones = tf.ragged.constant([[[1], [2]], [[3]]])
  assert tf.squeeze(ones, axis=2).to_list() == [[1, 2], [3]]
  assert tf.squeeze(ones, axis=[-1]).to_list() == [[1, 2], [3]]
  assert tf.squeeze(tf.ragged.constant([[[1], [2]], [[3]]], ragged_rank=1), axis=2).to_list() \
      == [[1, 2], [3]]
  assert tf.squeeze(tf.expand_dims(rt, 0), 0).to_list() == rt.to_list()
  flat = tf.squeeze(tf.RaggedTensor.from_uniform_row_length(tf.range(3), 1), 1)
  assert isinstance(flat, tf.Tensor) and flat.numpy().tolist() == [0, 1, 2]
  with pytest.raises(ValueError, match="must have an axis"):
    tf.squeeze(ones)
  with pytest.raises(tf.errors.InvalidArgumentError, match="not squeezable"):
    tf.squeeze(rt, 1)


def test_from_sparse_and_to_sparse():
  st = tf.SparseTensor(indices=[[0, 0], [2, 0], [2, 1]], values=["a", "b", "c"],
                       dense_shape=[3, 3])
  rt = tf.RaggedTensor.from_sparse(st)
  assert rt.to_list() == [[b"a"], [], [b"b", b"c"]] and rt.row_splits.dtype == tf.int64
  assert tf.RaggedTensor.from_sparse(st, row_splits_dtype=tf.int32).row_splits.dtype == \
      tf.int32
  with pytest.raises(tf.errors.InvalidArgumentError, match="right-ragged"):
    tf.RaggedTensor.from_sparse(tf.SparseTensor([[0, 1]], [1.0], [2, 3]))
  with pytest.raises(ValueError, match="rank"):
    tf.RaggedTensor.from_sparse(tf.SparseTensor([[0, 0, 0]], [1.0], [1, 1, 1]))
  s = tf.ragged.constant([["Hi"], ["Welcome", "to", "the", "fair"], ["Have", "fun"]]).to_sparse()
  assert s.indices.numpy().tolist() == [[0, 0], [1, 0], [1, 1], [1, 2], [1, 3], [2, 0], [2, 1]]
  assert s.values.numpy().tolist() == [b"Hi", b"Welcome", b"to", b"the", b"fair", b"Have",
                                       b"fun"]
  assert s.dense_shape.numpy().tolist() == [3, 4]
  u = tf.RaggedTensor.from_row_lengths(tf.constant([[1, 2], [3, 4], [5, 6]]), [2, 0, 1])
  su = u.to_sparse()
  np.testing.assert_array_equal(tf.sparse.to_dense(su).numpy(), u.to_tensor().numpy())
  back = tf.RaggedTensor.from_sparse(tf.ragged.constant([[1, 2], [], [3]]).to_sparse())
  assert back.to_list() == [[1, 2], [], [3]]


def test_constant_of_mixed_kinds_is_value_error():
  with pytest.raises(ValueError, match="mixed types"):
    tf.ragged.constant([["one", "two"], [3, 4]])
