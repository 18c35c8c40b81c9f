"""tf.IndexedSlices and tf.IndexedSlicesSpec (values, conversion, specs, tf.function)
and the gradients that are IndexedSlices; each behaviour as TF 2.21 shows it."""
import numpy as np
import pytest

import tensorlet as tf


def _slices(dense_shape=(4, 2)):
  return tf.IndexedSlices(tf.constant([[1., 2.], [3., 4.]]), tf.constant([0, 2]),
                          None if dense_shape is None else tf.constant(list(dense_shape)))


# ----------------------------------------------------------------- the value

def test_fields_and_dense_value():
  s = _slices()
  assert s.dtype == tf.float32 and s.shape == (4, 2)
  assert s.indices.dtype == tf.int32 and s.dense_shape.dtype == tf.int32
  assert s.device.endswith("CPU:0")
  np.testing.assert_array_equal(s.values.numpy(), [[1, 2], [3, 4]])
  np.testing.assert_array_equal(tf.convert_to_tensor(s).numpy(), [[1, 2], [0, 0], [3, 4], [0, 0]])
  assert str(s).startswith("IndexedSlices(indices=tf.Tensor([0 2], shape=(2,), dtype=int32)")
  assert tf.is_tensor(s) and not isinstance(s, tf.Tensor)
  assert s.consumers() == []


def test_constant_refuses_it():
  with pytest.raises(ValueError, match="unsupported type"):
    tf.constant(_slices())
  np.testing.assert_array_equal(tf.Variable(_slices()).numpy()[2], [3, 4])


def test_repeated_rows_add_up():
  s = tf.IndexedSlices(tf.constant([[1.], [2.], [4.]]), tf.constant([1, 1, 0], tf.int64), [3, 1])
  np.testing.assert_array_equal(tf.convert_to_tensor(s).numpy(), [[4], [3], [0]])


def test_no_dense_shape():
  s = _slices(None)
  assert s.dense_shape is None and s.shape.rank is None
  with pytest.raises(ValueError, match="without dense_shape"):
    tf.convert_to_tensor(s)


def test_eager_has_no_graph_fields():
  s = _slices()
  for name in ("op", "graph", "name", "numpy"):
    with pytest.raises(AttributeError):
      getattr(s, name)() if name == "numpy" else getattr(s, name)
  with pytest.raises(TypeError):
    len(s)
  with pytest.raises(TypeError):
    s[0]  # noqa: B018


def test_dense_ops_densify():
  s = _slices()
  np.testing.assert_array_equal(tf.add(s, 1.).numpy(), [[2, 3], [1, 1], [4, 5], [1, 1]])
  assert float(tf.reduce_sum(s)) == 10.0
  np.testing.assert_array_equal(tf.math.square(s).numpy()[2], [9, 16])
  np.testing.assert_array_equal(tf.shape(s).numpy(), [4, 2])
  with pytest.raises(TypeError):
    s * 2  # noqa: B018  (TF has no operators on IndexedSlices but negation)
  with pytest.raises(TypeError):
    s + 1  # noqa: B018


def test_ops_that_keep_indexed_slices():
  s = _slices()
  for r in (-s, tf.identity(s), tf.cast(s, tf.float64), tf.clip_by_value(s, 0., 2.)):
    assert isinstance(r, tf.IndexedSlices)
    assert r.indices is s.indices and r.dense_shape is s.dense_shape
  np.testing.assert_array_equal((-s).values.numpy(), [[-1, -2], [-3, -4]])
  assert tf.cast(s, tf.float64).dtype == tf.float64
  np.testing.assert_array_equal(tf.clip_by_value(s, 0., 2.).values.numpy(), [[1, 2], [2, 2]])


def test_nest_expands_to_components():
  s = _slices()
  assert tf.nest.flatten(s) == [s]
  parts = tf.nest.flatten(s, expand_composites=True)
  assert [p.dtype for p in parts] == [tf.float32, tf.int32, tf.int32]
  back = tf.nest.pack_sequence_as(s, parts, expand_composites=True)
  assert isinstance(back, tf.IndexedSlices) and back.values is parts[0]


# ------------------------------------------------------------------ the spec

def test_spec_defaults_and_repr():
  S = tf.IndexedSlicesSpec
  assert repr(S()) == ("IndexedSlicesSpec(TensorShape(None), tf.float32, tf.int64, None, "
                       "TensorShape([None]))")
  assert repr(S([None, 2], tf.float64, tf.int32, tf.int64, [3])) == (
      "IndexedSlicesSpec(TensorShape([None, 2]), tf.float64, tf.int32, tf.int64, "
      "TensorShape([3]))")
  assert S().value_type is tf.IndexedSlices
  assert S([4, 2]) == S([4, 2], indices_shape=[None]) and hash(S([4, 2])) == hash(S([4, 2]))


def test_spec_typing():
  S = tf.IndexedSlicesSpec
  assert S([4, 2]).is_subtype_of(S([None, 2])) and not S([None, 2]).is_subtype_of(S([4, 2]))
  assert S([4, 2]).is_compatible_with(S([None, 2]))
  assert S([4, 2]).most_specific_common_supertype([S([3, 2])]) == S([None, 2])
  assert S([4, 2], indices_shape=[3]).most_specific_common_supertype(
      [S([4, 2], indices_shape=[5])]) == S([4, 2])
  assert S([4, 2], dense_shape_dtype=tf.int32).most_specific_common_supertype([S([4, 2])]) \
      is None


def test_spec_components():
  S = tf.IndexedSlicesSpec
  specs = S([4, 2])._component_specs
  assert [(s.shape.as_list(), s.dtype) for s in specs] == [([None, 2], tf.float32),
                                                          ([None], tf.int64)]
  specs = S([4, 2], dense_shape_dtype=tf.int64)._component_specs
  assert (specs[2].shape.as_list(), specs[2].dtype) == ([2], tf.int64)
  assert S([4, 2])._from_components([tf.zeros([1, 2]), tf.constant([1], tf.int64)]) \
      .dense_shape is None


def test_spec_from_value():
  spec = tf.type_spec_from_value(_slices())
  assert spec == tf.IndexedSlicesSpec([4, 2], tf.float32, tf.int32, tf.int32, [2])
  spec = tf.type_spec_from_value(tf.IndexedSlices(tf.zeros([3, 2]),
                                                  tf.constant([0, 1, 2], tf.int64)))
  assert spec == tf.IndexedSlicesSpec([None, 2], tf.float32, tf.int64, None, [3])


# ------------------------------------------------------------- tf.function

def test_function_inputs_outputs_and_retracing():
  traces = []

  @tf.function
  def f(s):
    traces.append(s.shape)
    return tf.IndexedSlices(s.values * 2, s.indices, s.dense_shape)
  a = tf.IndexedSlices(tf.ones([2, 3]), tf.constant([0, 1]), tf.constant([4, 3]))
  r = f(a)
  assert isinstance(r, tf.IndexedSlices)
  np.testing.assert_array_equal(r.values.numpy(), np.full([2, 3], 2.0))
  np.testing.assert_array_equal(r.dense_shape.numpy(), [4, 3])
  f(tf.IndexedSlices(tf.ones([2, 3]), tf.constant([2, 3]), tf.constant([4, 3])))
  assert len(traces) == 1
  # as TF: a new number of rows, a new dense shape, no dense shape: new traces
  f(tf.IndexedSlices(tf.ones([3, 3]), tf.constant([0, 1, 2]), tf.constant([4, 3])))
  f(tf.IndexedSlices(tf.ones([3, 3]), tf.constant([0, 1, 2]), tf.constant([5, 3])))
  f(tf.IndexedSlices(tf.ones([3, 3]), tf.constant([0, 1, 2])))
  assert len(traces) == 4
  assert traces[0].rank == 2 and traces[-1].rank is None


def test_function_input_signature():
  spec = tf.IndexedSlicesSpec([None, 3], tf.float32, tf.int32, tf.int32, [None])

  @tf.function(input_signature=[spec])
  def h(s):
    return tf.reduce_sum(s.values) + tf.cast(tf.reduce_sum(s.dense_shape), tf.float32)
  a = tf.IndexedSlices(tf.ones([2, 3]), tf.constant([0, 1]), tf.constant([4, 3]))
  b = tf.IndexedSlices(tf.ones([3, 3]), tf.constant([0, 1, 2]), tf.constant([4, 3]))
  assert float(h(a)) == 13.0 and float(h(b)) == 16.0
  with pytest.raises(TypeError):
    h(tf.IndexedSlices(tf.ones([3, 3]), tf.constant([0, 1, 2])))


def test_function_densifies_on_request():
  g = tf.function(lambda s: tf.convert_to_tensor(s))
  np.testing.assert_array_equal(g(_slices()).numpy(), [[1, 2], [0, 0], [3, 4], [0, 0]])


# --------------------------------------------------------------- gradients

V0 = np.arange(12, dtype=np.float32).reshape(4, 3)


def _check(g, values, indices, dense_shape=(4, 3), indices_dtype=tf.int32):
  assert isinstance(g, tf.IndexedSlices), type(g)
  np.testing.assert_allclose(g.values.numpy(), values)
  np.testing.assert_array_equal(g.indices.numpy(), indices)
  assert g.indices.dtype == indices_dtype and g.dense_shape.dtype == tf.int32
  np.testing.assert_array_equal(g.dense_shape.numpy(), dense_shape)


def test_gather_gradients_are_indexed_slices():
  v, x = tf.Variable(V0), tf.constant(V0)
  idx = tf.constant([0, 2, 2])
  with tf.GradientTape(persistent=True) as t:
    t.watch(x)
    ys = {"var": tf.reduce_sum(tf.gather(v, idx) * 2.),
          "tensor": tf.reduce_sum(tf.gather(x, idx)),
          "embedding": tf.reduce_sum(tf.nn.embedding_lookup(v, idx)),
          "sparse_read": tf.reduce_sum(v.sparse_read(idx)),
          "identity": tf.reduce_sum(tf.gather(tf.identity(v), idx)),
          "matrix": tf.reduce_sum(tf.gather(v, tf.constant([[0, 1], [1, 3]]))),
          "int64": tf.reduce_sum(tf.gather(v, tf.constant([0, 1], tf.int64))),
          "gather_nd": tf.reduce_sum(tf.gather_nd(v, [[1], [0]]))}
  _check(t.gradient(ys["var"], v), np.full([3, 3], 2.), [0, 2, 2])
  _check(t.gradient(ys["tensor"], x), np.ones([3, 3]), [0, 2, 2])
  for k in ("embedding", "sparse_read", "identity"):
    _check(t.gradient(ys[k], v), np.ones([3, 3]), [0, 2, 2])
  _check(t.gradient(ys["matrix"], v), np.ones([4, 3]), [0, 1, 1, 3])
  _check(t.gradient(ys["int64"], v), np.ones([2, 3]), [0, 1], indices_dtype=tf.int64)
  _check(t.gradient(ys["gather_nd"], v), np.ones([2, 3]), [1, 0])


def test_other_gradients_stay_dense():
  x = tf.constant(V0)
  x1 = tf.constant([3., 1., 2., 5.])
  fns = [(lambda x: tf.gather(x, [0, 2], axis=1), x),
         (lambda x: tf.gather(x, [[0], [1], [0], [1]], batch_dims=1), x),
         (lambda x: tf.repeat(x, 2, axis=0), x),
         (lambda x: tf.boolean_mask(x, [True, False, True, False]), x),
         (lambda x: tf.boolean_mask(x, [True, False, True, False]), x1),
         (tf.sort, x1), (lambda x: x * 1.0, x), (lambda x: tf.gather_nd(x, [[0, 1]]), x)]
  for f, a in fns:
    with tf.GradientTape() as t:
      t.watch(a)
      y = tf.reduce_sum(f(a))
    g = t.gradient(y, a)
    assert g is None or isinstance(g, tf.Tensor), (f, type(g))


def test_sharded_embedding_lookup():
  # TF's "div" split of 5 ids over shards of 3 and 2 rows; each shard gets its own rows
  a = tf.Variable(np.arange(6, dtype=np.float32).reshape(3, 2))
  b = tf.Variable(10 + np.arange(4, dtype=np.float32).reshape(2, 2))
  weights = tf.constant([[1., 2.], [3., 4.], [5., 6.], [7., 8.]])

  def run(ids):
    with tf.GradientTape() as t:
      r = tf.nn.embedding_lookup([a, b], ids)
      y = tf.reduce_sum(r * weights)
    return [r] + t.gradient(y, [a, b])
  for r, ga, gb in (run(tf.constant([0, 4, 2, 3])),
                    tf.function(run)(tf.constant([0, 4, 2, 3]))):
    np.testing.assert_array_equal(r.numpy(), [[0, 1], [12, 13], [4, 5], [10, 11]])
    _check(ga, [[1, 2], [5, 6]], [0, 2], dense_shape=[3, 2])
    _check(gb, [[3, 4], [7, 8]], [1, 0], dense_shape=[2, 2])


def test_aggregation():
  v = tf.Variable(V0)
  idx = tf.constant([0, 2, 2])
  with tf.GradientTape(persistent=True) as t:
    two = tf.reduce_sum(tf.gather(v, idx)) + tf.reduce_sum(tf.gather(v, [1]))
    mixed = tf.reduce_sum(tf.gather(v, idx)) + tf.reduce_sum(v * 1.)
    kinds = tf.reduce_sum(tf.gather(v, idx)) + tf.reduce_sum(
        tf.gather(v, tf.constant([3], tf.int64)))
  # several IndexedSlices concatenate (first use first, as TF lists them)
  _check(t.gradient(two, v), np.ones([4, 3]), [0, 2, 2, 1])
  # with a dense one they add up densely
  g = t.gradient(mixed, v)
  assert isinstance(g, tf.Tensor)
  np.testing.assert_array_equal(g.numpy(), [[2] * 3, [1] * 3, [3] * 3, [1] * 3])
  # indices of two dtypes become int64
  _check(t.gradient(kinds, v), np.ones([4, 3]), [0, 2, 2, 3], indices_dtype=tf.int64)


def test_gradients_in_and_through_functions():
  v = tf.Variable(V0)
  idx = tf.constant([0, 2, 2])

  @tf.function
  def inside():
    with tf.GradientTape() as t:
      y = tf.reduce_sum(tf.gather(v, idx)) + tf.reduce_sum(tf.gather(v, [1]))
    return t.gradient(y, v)
  _check(inside(), np.ones([4, 3]), [0, 2, 2, 1])

  @tf.function
  def loss(i):
    return tf.reduce_sum(tf.gather(v, i) ** 2)
  with tf.GradientTape() as t:
    y = loss(idx)
  _check(t.gradient(y, v), 2 * V0[[0, 2, 2]], [0, 2, 2])


def test_gradient_of_cond_in_a_graph():
  v = tf.Variable(V0)
  gather = lambda: tf.reduce_sum(tf.gather(v, [0, 2, 2]))  # noqa: E731
  branches = {"dense": lambda: tf.reduce_sum(v), "none": lambda: tf.constant(0.),
              "gather": lambda: tf.reduce_sum(tf.gather(v, [1]))}

  def grad(other, p):
    @tf.function
    def f(p):
      with tf.GradientTape() as t:
        y = tf.cond(p, gather, branches[other])
      return t.gradient(y, v)
    return f(tf.constant(p))
  # as TF: an IndexedSlices from both branches when one gives one; a dense gradient (or
  # none) becomes all rows
  for other in branches:
    _check(grad(other, True), np.ones([3, 3]), [0, 2, 2])
  _check(grad("dense", False), np.ones([4, 3]), [0, 1, 2, 3])
  _check(grad("none", False), np.zeros([4, 3]), [0, 1, 2, 3])
  _check(grad("gather", False), np.ones([1, 3]), [1])

  @tf.function
  def both_dense(p):
    with tf.GradientTape() as t:
      y = tf.cond(p, lambda: tf.reduce_sum(v * 2.), lambda: tf.reduce_sum(v))
    return t.gradient(y, v)
  assert isinstance(both_dense(tf.constant(True)), tf.Tensor)


def test_gradient_of_control_flow_is_dense():
  v = tf.Variable(V0)

  @tf.function
  def loop():
    with tf.GradientTape() as t:
      y = tf.while_loop(lambda i, a: i < 2,
                        lambda i, a: (i + 1, a + tf.reduce_sum(tf.gather(v, [0, 2, 2]))),
                        (0, 0.))[1]
    return t.gradient(y, v)
  np.testing.assert_array_equal(loop().numpy(), [[2] * 3, [0] * 3, [4] * 3, [0] * 3])


def test_second_order():
  x = tf.Variable([1., 2., 3.])
  with tf.GradientTape() as t2:
    with tf.GradientTape() as t1:
      y = tf.reduce_sum(tf.gather(x, [0, 2]) ** 3)
    g = t1.gradient(y, x)
    z = tf.reduce_sum(tf.convert_to_tensor(g) ** 2)
  # d/dx sum((3 x^2)^2) at the gathered rows: 36 x^3
  _check(t2.gradient(z, x), [36., 972.], [0, 2], dense_shape=[3])


def test_mixed_precision_cast_keeps_rows():
  x = tf.Variable([1., 2., 3.])
  with tf.GradientTape() as t:
    y = tf.reduce_sum(tf.cast(tf.gather(x, [1]), tf.float16))
  _check(t.gradient(y, x), [1.], [1], dense_shape=[3])


# --------------------------------------------------------------- clipping

def test_clip_by_norm_uses_the_values():
  # as TF: the norm of the values, so a row named twice counts twice
  s = tf.IndexedSlices(tf.constant([[3., 0.], [0., 4.]]), tf.constant([1, 1]), [3, 2])
  c = tf.clip_by_norm(s, 1.0)
  assert isinstance(c, tf.IndexedSlices)
  np.testing.assert_allclose(c.values.numpy(), [[0.6, 0.], [0., 0.8]], rtol=1e-6)
  np.testing.assert_allclose(tf.linalg.global_norm([s, tf.constant([12.])]).numpy(), 13.0)
  clipped, norm = tf.clip_by_global_norm([s, tf.constant([12.]), None], 6.5)
  assert isinstance(clipped[0], tf.IndexedSlices) and clipped[2] is None
  np.testing.assert_allclose(clipped[0].values.numpy(), [[1.5, 0.], [0., 2.]], rtol=1e-6)
  np.testing.assert_allclose(clipped[1].numpy(), [6.0], rtol=1e-6)
  assert float(norm) == pytest.approx(13.0)


def test_sparse_mask_and_stop_gradient():
  s = tf.IndexedSlices(tf.constant([[1., 2.], [3., 4.], [5., 6.]]), tf.constant([0, 2, 3]),
                       tf.constant([4, 2]))
  m = tf.sparse.mask(s, [2])
  np.testing.assert_array_equal(m.values.numpy(), [[1, 2], [5, 6]])
  np.testing.assert_array_equal(m.indices.numpy(), [0, 3])
  assert m.dense_shape is s.dense_shape
  np.testing.assert_array_equal(tf.sparse.mask(s, tf.constant([0, 3, 7])).indices.numpy(), [2])
  with pytest.raises(TypeError):
    tf.sparse.mask(tf.constant([1.]), [0])
  stopped = tf.stop_gradient(s)
  assert isinstance(stopped, tf.IndexedSlices) and stopped.indices is s.indices


def test_saved_function_takes_indexed_slices(tmp_path):
  class M(tf.Module):
    @tf.function(input_signature=[tf.IndexedSlicesSpec([None, 2], tf.float32, tf.int32,
                                                       tf.int32)])
    def dense(self, s):
      return tf.convert_to_tensor(s)
  tf.saved_model.save(M(), str(tmp_path))
  loaded = tf.saved_model.load(str(tmp_path))
  s = tf.IndexedSlices(tf.ones([1, 2]), tf.constant([1]), tf.constant([3, 2]))
  np.testing.assert_array_equal(loaded.dense(s).numpy(), [[0, 0], [1, 1], [0, 0]])
