"""tf.RaggedTensor, tf.RaggedTensorSpec and tf.ragged: values against NumPy-built
rows, shapes, dtypes, errors, tf.function tracing, tf.nest and gradients (all
expectations checked against TensorFlow 2.21)."""
import numpy as np
import pytest

import tensorlet as tf
from gradcheck import check_grads

ROWS = [[1.0, 2.0], [], [3.0, 4.0, 5.0]]


def rt(rows=ROWS, **kw):
  return tf.ragged.constant(rows, **kw)


def np_rows(rows, dtype=np.float32):
  return [np.asarray(r, dtype) for r in rows]


# ----------------------------------------------------------- construction
def test_constant_infers_dtype_shape_and_ragged_rank():
  r = rt()
  assert r.dtype == tf.float32 and r.shape.as_list() == [3, None] and r.ragged_rank == 1
  assert r.to_list() == ROWS
  assert tf.ragged.constant([[1, 2], [3]]).dtype == tf.int32
  assert tf.ragged.constant([["a"], []]).dtype == tf.string
  r2 = tf.ragged.constant([[[1, 2], [3]], [[4]]])
  assert r2.ragged_rank == 2 and r2.shape.as_list() == [2, None, None]
  u = tf.ragged.constant([[[1, 2]], [[3, 4], [5, 6]]], ragged_rank=1)
  assert u.shape.as_list() == [2, None, 2] and u.flat_values.shape == [3, 2]
  assert tf.ragged.constant([[1.0]], dtype=tf.float64).dtype == tf.float64


def test_constant_rejects_mixed_depth():
  with pytest.raises(ValueError, match="same nesting depth"):
    tf.ragged.constant([[1, [2]], [3]])


def test_factories_agree():
  v = tf.constant([1, 2, 3, 4, 5])
  want = [[1, 2], [], [3, 4, 5]]
  R = tf.RaggedTensor
  assert R.from_row_splits(v, [0, 2, 2, 5]).to_list() == want
  assert R.from_row_lengths(v, [2, 0, 3]).to_list() == want
  assert R.from_value_rowids(v, [0, 0, 2, 2, 2], nrows=3).to_list() == want
  assert R.from_value_rowids(v, [0, 0, 2, 2, 2]).to_list() == want
  assert R.from_row_starts(v, [0, 2, 2]).to_list() == want
  assert R.from_row_limits(v, [2, 2, 5]).to_list() == want
  assert R.from_uniform_row_length(tf.range(6), 2).to_list() == [[0, 1], [2, 3], [4, 5]]
  n = R.from_nested_row_lengths(tf.range(4), [[2, 1], [1, 0, 3]])
  assert n.to_list() == [[[0], []], [[1, 2, 3]]]
  assert R.from_nested_row_splits(tf.range(4), [[0, 2, 3], [0, 1, 1, 4]]).to_list() == \
      n.to_list()
  assert R.from_nested_value_rowids(tf.range(4), [[0, 0, 1], [0, 2, 2, 2]]).to_list() == \
      n.to_list()


@pytest.mark.parametrize("make", [
    lambda: tf.RaggedTensor.from_row_splits([1, 2, 3], [0, 2, 1]),
    lambda: tf.RaggedTensor.from_row_splits([1, 2, 3], [1, 3]),
    lambda: tf.RaggedTensor.from_row_splits([1, 2, 3], [0, 2]),
    lambda: tf.RaggedTensor.from_row_lengths([1, 2, 3], [2, -1, 2]),
    lambda: tf.RaggedTensor.from_value_rowids([1, 2, 3], [1, 0, 0]),
    lambda: tf.RaggedTensor.from_value_rowids([1, 2, 3], [0, 0, 3], nrows=2),
])
def test_invalid_partitions_raise_invalid_argument(make):
  with pytest.raises(tf.errors.InvalidArgumentError):
    make()


def test_constructor_is_private_and_splits_must_be_integers():
  with pytest.raises(ValueError, match="private"):
    tf.RaggedTensor(tf.constant([1]), tf.constant([0, 1], tf.int64))
  with pytest.raises(TypeError):
    tf.RaggedTensor.from_row_splits([1, 2], tf.constant([0.0, 2.0]))


def test_from_tensor_with_lengths_padding_and_ragged_rank():
  t = tf.constant([[1, 2, 0], [3, 0, 0], [4, 5, 6]])
  assert tf.RaggedTensor.from_tensor(t).to_list() == t.numpy().tolist()
  assert tf.RaggedTensor.from_tensor(t, lengths=[2, 1, 3]).to_list() == \
      [[1, 2], [3], [4, 5, 6]]
  assert tf.RaggedTensor.from_tensor(t, padding=0).to_list() == [[1, 2], [3], [4, 5, 6]]
  r = tf.RaggedTensor.from_tensor(tf.reshape(tf.range(8), [2, 2, 2]), ragged_rank=2)
  assert r.ragged_rank == 2 and r.to_list() == [[[0, 1], [2, 3]], [[4, 5], [6, 7]]]


# ------------------------------------------------------------- properties
def test_partition_accessors():
  r = rt()
  np.testing.assert_array_equal(r.row_splits.numpy(), [0, 2, 2, 5])
  assert r.row_splits.dtype == tf.int64
  np.testing.assert_array_equal(r.row_lengths().numpy(), [2, 0, 3])
  np.testing.assert_array_equal(r.value_rowids().numpy(), [0, 0, 2, 2, 2])
  np.testing.assert_array_equal(r.row_starts().numpy(), [0, 2, 2])
  np.testing.assert_array_equal(r.row_limits().numpy(), [2, 2, 5])
  assert int(r.nrows()) == 3
  np.testing.assert_array_equal(r.values.numpy(), [1, 2, 3, 4, 5])
  np.testing.assert_array_equal(r.bounding_shape().numpy(), [3, 3])
  r2 = tf.ragged.constant([[[1, 2], [3]], [[4]]])
  assert [x.numpy().tolist() for x in r2.nested_row_lengths()] == [[2, 1], [2, 1, 1]]
  np.testing.assert_array_equal(r2.flat_values.numpy(), [1, 2, 3, 4])
  np.testing.assert_array_equal(r2.bounding_shape().numpy(), [2, 2, 2])
  assert r2.row_lengths(axis=2).to_list() == [[2, 1], [1]]


def test_numpy_and_repr():
  r = rt()
  got = r.numpy()
  assert got.dtype == object and len(got) == 3
  for g, w in zip(got, np_rows(ROWS)):
    np.testing.assert_array_equal(g, w)
  assert repr(tf.math.sqrt(tf.ragged.constant([[1.0, 2.0], []]))) == \
      "<tf.RaggedTensor [[1.0, 1.4142135], []]>"
  assert repr(tf.ragged.constant([["a"], []])) == "<tf.RaggedTensor [[b'a'], []]>"


def test_to_tensor_default_and_shape():
  r = rt()
  want = np.array([[1, 2, 0], [0, 0, 0], [3, 4, 5]], np.float32)
  np.testing.assert_array_equal(r.to_tensor().numpy(), want)
  np.testing.assert_array_equal(r.to_tensor(default_value=-1).numpy(),
                                np.where(want == 0, -1, want))
  np.testing.assert_array_equal(r.to_tensor(default_value=-1, shape=[2, 2]).numpy(),
                                [[1, 2], [-1, -1]])
  np.testing.assert_array_equal(r.to_tensor(shape=[4, 4]).numpy(), np.pad(want, [[0, 1],
                                                                                 [0, 1]]))
  r2 = tf.ragged.constant([[[1, 2], [3]], [[4]]])
  np.testing.assert_array_equal(r2.to_tensor().numpy(),
                                [[[1, 2], [3, 0]], [[4, 0], [0, 0]]])
  np.testing.assert_array_equal(tf.ragged.constant([["a"], []]).to_tensor().numpy(),
                                np.array([[b"a"], [b""]], dtype=object))


# --------------------------------------------------------------- indexing
def test_indexing_and_slicing():
  r = rt()
  np.testing.assert_array_equal(r[0].numpy(), [1, 2])
  np.testing.assert_array_equal(r[-1].numpy(), [3, 4, 5])
  assert r[1:].to_list() == ROWS[1:]
  assert r[:, 1:].to_list() == [row[1:] for row in ROWS]
  assert r[:, :-1].to_list() == [row[:-1] for row in ROWS]
  assert r[::1, :2].to_list() == [row[:2] for row in ROWS]
  with pytest.raises(ValueError, match="inner ragged dimension"):
    r[:, 1]
  with pytest.raises(IndexError, match="Row key 3 out of bounds"):
    r[3]
  r2 = tf.ragged.constant([[[1, 2], [3]], [[4]]])
  np.testing.assert_array_equal(r2[0, 1].numpy(), [3])
  assert r2[0].to_list() == [[1, 2], [3]]
  u = tf.ragged.constant([[[1, 2]], [[3, 4], [5, 6]]], ragged_rank=1)
  assert u[:, :, 1].to_list() == [[2], [4, 6]]


def test_merge_dims():
  r2 = tf.ragged.constant([[[1, 2], [3]], [[4]]])
  assert r2.merge_dims(0, 1).to_list() == [[1, 2], [3], [4]]
  assert r2.merge_dims(1, 2).to_list() == [[1, 2, 3], [4]]
  u = tf.ragged.constant([[[1, 2]], [[3, 4], [5, 6]]], ragged_rank=1)
  assert u.merge_dims(1, 2).to_list() == [[1, 2], [3, 4, 5, 6]]
  np.testing.assert_array_equal(r2.merge_dims(0, 2).numpy(), [1, 2, 3, 4])


# ------------------------------------------------------------ elementwise
def test_elementwise_math_and_comparisons():
  r = rt()
  assert (r + 1).to_list() == [[x + 1 for x in row] for row in ROWS]
  assert (2 * r).to_list() == [[2 * x for x in row] for row in ROWS]
  assert (r - r).to_list() == [[0.0] * len(row) for row in ROWS]
  assert tf.math.square(r).to_list() == [[x * x for x in row] for row in ROWS]
  assert tf.add(r, r).to_list() == [[2 * x for x in row] for row in ROWS]
  assert (r > 2).to_list() == [[x > 2 for x in row] for row in ROWS]
  assert (r == r).to_list() == [[True] * len(row) for row in ROWS]
  assert tf.cast(r, tf.int32).dtype == tf.int32
  assert tf.abs(-r).to_list() == ROWS
  assert (r + tf.constant([[10.0], [20.0], [30.0]])).to_list() == \
      [[11.0, 12.0], [], [33.0, 34.0, 35.0]]
  assert tf.ones_like(r).to_list() == [[1.0] * len(row) for row in ROWS]


def test_elementwise_with_different_row_lengths_fails():
  with pytest.raises(tf.errors.InvalidArgumentError):
    rt() + tf.ragged.constant([[1.0], [2.0], [3.0, 4.0, 5.0, 6.0]])


@pytest.mark.parametrize("name, ref", [
    ("reduce_sum", lambda r: r.sum() if r.size else 0.0),
    ("reduce_max", lambda r: r.max() if r.size else np.finfo(np.float32).min),
    ("reduce_min", lambda r: r.min() if r.size else np.finfo(np.float32).max),
    ("reduce_prod", lambda r: r.prod() if r.size else 1.0),
    ("reduce_mean", lambda r: r.mean() if r.size else np.nan)])
def test_reductions_over_rows_and_columns(name, ref):
  r = rt()
  fn = getattr(tf, name) if hasattr(tf, name) else getattr(tf.math, name)
  rows = np_rows(ROWS)
  np.testing.assert_allclose(fn(r, axis=1).numpy(), [ref(x) for x in rows], rtol=1e-6)
  np.testing.assert_allclose(fn(r, axis=-1, keepdims=True).numpy(),
                             [[ref(x)] for x in rows], rtol=1e-6)
  cols = [np.array([row[j] for row in ROWS if len(row) > j], np.float32) for j in range(3)]
  np.testing.assert_allclose(fn(r, axis=0).numpy(), [ref(c) for c in cols], rtol=1e-6)
  np.testing.assert_allclose(fn(r).numpy(), ref(np.concatenate(rows)), rtol=1e-6)


def test_bool_reductions_and_inner_axis():
  b = tf.ragged.constant([[True, False], [], [True]])
  np.testing.assert_array_equal(tf.reduce_any(b, axis=1).numpy(), [True, False, True])
  np.testing.assert_array_equal(tf.reduce_all(b, axis=1).numpy(), [False, True, True])
  u = tf.ragged.constant([[[1, 2]], [[3, 4], [5, 6]]], ragged_rank=1)
  assert tf.reduce_sum(u, axis=2).to_list() == [[3], [7, 11]]


# ----------------------------------------------- concat, stack, gather ...
def test_concat_stack_gather_where():
  r = rt()
  assert tf.concat([r, r], axis=0).to_list() == ROWS + ROWS
  assert tf.concat([r, r], axis=1).to_list() == [row + row for row in ROWS]
  assert tf.stack([r, r], axis=0).to_list() == [ROWS, ROWS]
  assert tf.stack([r, r], axis=1).to_list() == [[row, row] for row in ROWS]
  assert tf.ragged.stack([tf.constant([1, 2]), tf.constant([3])]).to_list() == [[1, 2], [3]]
  assert tf.gather(r, [2, 0]).to_list() == [ROWS[2], ROWS[0]]
  assert tf.gather(r, [[2], [1]]).to_list() == [[ROWS[2]], [ROWS[1]]]
  assert tf.gather(tf.constant([10, 20, 30]), tf.ragged.constant([[0, 2], [1]])).to_list() \
      == [[10, 30], [20]]
  assert tf.where(r > 2, r, -r).to_list() == [[-1.0, -2.0], [], [3.0, 4.0, 5.0]]


def test_boolean_mask_and_range_and_map_flat_values():
  r = rt()
  assert tf.ragged.boolean_mask(r, r > 1.5).to_list() == [[2.0], [], [3.0, 4.0, 5.0]]
  assert tf.ragged.boolean_mask(r, tf.constant([True, False, True])).to_list() == \
      [ROWS[0], ROWS[2]]
  assert tf.ragged.boolean_mask(tf.constant([[1, 2], [3, 4]]),
                                tf.constant([[True, False], [True, True]])).to_list() == \
      [[1], [3, 4]]
  assert tf.boolean_mask(r, r > 1.5).to_list() == [[2.0], [], [3.0, 4.0, 5.0]]
  assert tf.ragged.range([3, 0, 2]).to_list() == [[0, 1, 2], [], [0, 1]]
  assert tf.ragged.range([1, 2], [4, 8], [2, 3]).to_list() == [[1, 3], [2, 5]]
  assert tf.ragged.range([0.0, 1.0], 2.0, 0.5).to_list() == [[0.0, 0.5, 1.0, 1.5], [1.0, 1.5]]
  assert tf.ragged.map_flat_values(tf.ones_like, r).to_list() == \
      [[1.0] * len(row) for row in ROWS]
  np.testing.assert_array_equal(
      tf.ragged.row_splits_to_segment_ids([0, 2, 2, 5]).numpy(), [0, 0, 2, 2, 2])
  np.testing.assert_array_equal(
      tf.ragged.segment_ids_to_row_splits([0, 0, 2]).numpy(), [0, 2, 2, 3])


def test_strings_return_ragged():
  assert tf.strings.split(["a b", "c"]).to_list() == [[b"a", b"b"], [b"c"]]
  assert tf.strings.split([["a b"], ["c d e"]]).to_list() == [[[b"a", b"b"]],
                                                              [[b"c", b"d", b"e"]]]
  assert tf.strings.split(["a,b", ""], sep=",").to_list() == [[b"a", b"b"], [b""]]
  np.testing.assert_array_equal(tf.strings.split("a b").numpy(), [b"a", b"b"])
  assert tf.strings.unicode_split(["hé", "x"], "UTF-8").to_list() == \
      [[b"h", "é".encode()], [b"x"]]
  assert tf.strings.bytes_split(["ab", ""]).to_list() == [[b"a", b"b"], []]
  d = tf.ragged.constant([["a", "b", "c"], ["d"], []])
  assert tf.strings.ngrams(d, 2).to_list() == [[b"a b", b"b c"], [], []]
  assert tf.strings.ngrams(d, [1, 2]).to_list() == [[b"a", b"b", b"c", b"a b", b"b c"],
                                                    [b"d"], []]
  assert tf.strings.ngrams(d, 3, pad_values="#").to_list()[2] == [b"# # #", b"# # #"]
  assert tf.strings.ngrams(d, 3, preserve_short_sequences=True).to_list() == \
      [[b"a b c"], [b"d"], []]
  assert tf.strings.ngrams(tf.strings.split(["x y z"]), 2, separator="_").to_list() == \
      [[b"x_y", b"y_z"]]


# --------------------------------------------------------------- typing
def test_spec_subtyping_and_repr():
  s = rt()._type_spec
  assert repr(s) == "RaggedTensorSpec(TensorShape([3, None]), tf.float32, 1, tf.int64)"
  g = tf.RaggedTensorSpec([None, None], tf.float32)
  assert s.is_subtype_of(g) and not g.is_subtype_of(s)
  assert s.most_specific_common_supertype([rt(ROWS[:2])._type_spec]) == g
  assert s != tf.RaggedTensorSpec([3, None], tf.float64)
  assert [c.shape.as_list() for c in g._component_specs] == [[None], [None]]
  with pytest.raises(ValueError):
    tf.RaggedTensorSpec(None, tf.float32)


def test_tf_function_traces_as_tensorflow():
  count = []

  @tf.function
  def f(x):
    count.append(1)
    return x * 2

  assert f(rt()).to_list() == [[2 * v for v in row] for row in ROWS]
  f(rt([[1.0], [2.0, 3.0], []]))              # same nrows, other lengths: no retrace
  assert f.experimental_get_tracing_count() == 1
  f(rt([[1.0]]))                              # other nrows: a new trace, as in TF
  assert f.experimental_get_tracing_count() == 2
  f(rt([[1]]))                                # other dtype
  assert f.experimental_get_tracing_count() == 3
  cf = f.get_concrete_function(rt())
  assert cf.structured_input_signature == ((tf.RaggedTensorSpec([3, None], tf.float32),), {})
  assert "x (POSITIONAL_OR_KEYWORD): RaggedTensorSpec(TensorShape([3, None]), tf.float32, 1, " \
      "tf.int64)" in str(cf)


def test_one_trace_under_a_ragged_input_signature():
  @tf.function(input_signature=[tf.RaggedTensorSpec([None, None], tf.int32)])
  def h(x):
    return tf.reduce_sum(x, axis=1), x + 1
  s, y = h(tf.ragged.constant([[1, 2], [3]]))
  assert s.numpy().tolist() == [3, 3] and y.to_list() == [[2, 3], [4]]
  h(tf.ragged.constant([[1], [2], [3, 4, 5]]))
  assert h.experimental_get_tracing_count() == 1
  with pytest.raises(TypeError):
    h(tf.ragged.constant([[1.0]]))


def test_graph_ops_on_ragged_inside_function():
  @tf.function
  def g(x):
    return (x.to_tensor(), x[1:], tf.concat([x, x], axis=1), x.row_lengths(),
            tf.reduce_max(x, axis=0))
  dense, tail, cat, lens, colmax = g(rt())
  np.testing.assert_array_equal(dense.numpy(), rt().to_tensor().numpy())
  assert tail.to_list() == ROWS[1:] and cat.to_list() == [row + row for row in ROWS]
  assert lens.numpy().tolist() == [2, 0, 3] and colmax.numpy().tolist() == [3.0, 4.0, 5.0]


def test_reduce_retracing_generalises_nrows():
  @tf.function(reduce_retracing=True)
  def f(x):
    return x + 1
  f(rt([[1.0]]))
  f(rt([[1.0], [2.0]]))
  f(rt([[1.0], [2.0], [3.0]]))
  assert f.experimental_get_tracing_count() == 2


def test_nest_expand_composites():
  r = rt()
  flat = tf.nest.flatten({"a": r, "b": tf.constant(1)}, expand_composites=True)
  assert len(flat) == 3
  np.testing.assert_array_equal(flat[1].numpy(), [0, 2, 2, 5])
  back = tf.nest.pack_sequence_as({"a": r, "b": 0}, flat, expand_composites=True)
  assert back["a"].to_list() == ROWS
  assert tf.nest.flatten(r) == [r]
  doubled = tf.nest.map_structure(lambda t: t * 2 if t.dtype == tf.float32 else t, r,
                                  expand_composites=True)
  assert doubled.to_list() == [[2 * v for v in row] for row in ROWS]


# -------------------------------------------------------------- gradients
SPLITS = [0, 2, 2, 5]
W = np.array([1.0, -2.0, 3.0])


def _r(v):
  return tf.RaggedTensor.from_row_splits(v, SPLITS)


@pytest.mark.parametrize("f", [
    lambda v: tf.reduce_sum(_r(v), axis=1),
    lambda v: tf.reduce_max(tf.RaggedTensor.from_row_splits(v, [0, 2, 3, 5]), axis=1) *
    tf.constant(W),
    lambda v: tf.reduce_mean(_r(v), axis=0),
    lambda v: _r(v).to_tensor(default_value=0.5),
    lambda v: tf.concat([_r(v), _r(v * 2.0)], axis=1).flat_values,
    lambda v: tf.gather(_r(v), [2, 0]).flat_values,
    lambda v: (_r(v)[:, 1:] * _r(v)[:, 1:]).flat_values,
    lambda v: tf.math.sin(_r(v)).to_tensor(),
], ids=["sum_rows", "max_rows", "mean_cols", "to_tensor", "concat1", "gather", "slice_mul",
        "sin"])
def test_gradients_by_finite_differences(f):
  rng = np.random.RandomState(0)
  check_grads(f, [rng.uniform(-1, 1, 5)])


def test_gradient_through_tf_function_with_ragged_argument():
  v = tf.Variable([1.0, 2.0, 3.0])

  @tf.function
  def loss(x):
    return tf.reduce_sum(tf.reduce_sum(x * v[0], axis=1))
  with tf.GradientTape() as t:
    y = loss(tf.RaggedTensor.from_row_splits(v, [0, 2, 3]))
  np.testing.assert_allclose(t.gradient(y, v).numpy(), [1.0 + 6.0, 1.0, 1.0])


def test_type_spec_from_value():
  assert tf.type_spec_from_value(rt()) == tf.RaggedTensorSpec([3, None], tf.float32)
  assert tf.type_spec_from_value(tf.SparseTensor([[0]], [1], [4])) == \
      tf.SparseTensorSpec([4], tf.int32)
  assert tf.type_spec_from_value([1.0, 2.0]) == tf.TensorSpec([2], tf.float32)
  with pytest.raises(TypeError):
    tf.type_spec_from_value(object())


def test_edge_cases_as_tensorflow():
  with pytest.raises(TypeError):
    len(rt())
  assert tf.concat([tf.ragged.constant([[1]]), tf.constant([[2, 3]])], axis=0).to_list() == \
      [[1], [2, 3]]
  assert tf.ragged.constant([[1, 2], [3]])[5:].to_list() == []
  assert tf.ragged.constant([[1, 2], [3]])[:, 5:].to_list() == [[], []]
  assert tf.RaggedTensor.from_row_lengths([1, 2, 3], tf.constant([1, 2])).row_splits.dtype \
      == tf.int32
  np.testing.assert_array_equal(tf.ragged.constant([[]]).to_tensor().numpy(),
                                np.zeros([1, 0], np.float32))
  with pytest.raises(tf.errors.InvalidArgumentError):
    tf.ragged.constant([[1, 2], [3]]) + tf.ragged.constant([[1, 2], [3]], dtype=tf.int64)


def test_strings_and_tensor_indices_inside_tf_function():
  @tf.function
  def f(s, i):
    words = tf.strings.split(s)
    return words, words[i], words.row_lengths()
  words, row, lens = f(tf.constant(["a b c", "d"]), tf.constant(1))
  assert words.to_list() == [[b"a", b"b", b"c"], [b"d"]]
  assert row.numpy().tolist() == [b"d"] and lens.numpy().tolist() == [3, 1]


@pytest.mark.parametrize("f", [
    lambda x: tf.RaggedTensor.from_tensor(x, lengths=[2, 0, 3]).flat_values,
    lambda x: tf.RaggedTensor.from_tensor(x, lengths=[1, 3, 2]).to_tensor(shape=[2, 2]),
    lambda x: tf.ragged.boolean_mask(tf.RaggedTensor.from_tensor(x), x > 0).flat_values,
], ids=["from_tensor", "to_tensor_shape", "boolean_mask"])
def test_dense_to_ragged_gradients(f):
  check_grads(f, [np.random.RandomState(2).uniform(-1, 1, [3, 3])])
