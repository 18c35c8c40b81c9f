"""tf.nn.embedding_lookup_sparse / safe_embedding_lookup_sparse against a NumPy
reference (and values TF 2.21 printed), eager and traced; the table's gradient is an
IndexedSlices, as in TF."""
import numpy as np
import pytest

import tensorlet as tf

TABLE = np.arange(15, dtype=np.float32).reshape(5, 3)
IDX = [[0, 0], [0, 1], [2, 0], [2, 2]]
IDS = [1, 3, 3, 4]
WEIGHTS = [0.5, 2., 1., -1.]


def _reference(combiner, weights):
  """Rows 0..2 (the last row with ids is 2) of the combined embeddings."""
  out = np.zeros((3, 3), np.float64)
  for row in range(3):
    picks = [(IDS[k], 1.0 if weights is None else weights[k]) for k, (r, _) in enumerate(IDX)
             if r == row]
    if not picks:
      continue
    total = sum(w * TABLE[i] for i, w in picks)
    scale = {"sum": 1.0, "mean": sum(w for _, w in picks),
             "sqrtn": np.sqrt(sum(w * w for _, w in picks))}[combiner]
    out[row] = total / scale if scale else 0.0  # as div_no_nan
  return out


@pytest.mark.parametrize("combiner", ["sum", "mean", "sqrtn"])
@pytest.mark.parametrize("weighted", [False, True])
def test_combiners(combiner, weighted):
  v = tf.Variable(TABLE)
  sp = tf.SparseTensor(IDX, tf.constant(IDS, tf.int64), [4, 3])
  w = tf.SparseTensor(IDX, WEIGHTS, [4, 3]) if weighted else None
  with tf.GradientTape() as t:
    r = tf.nn.embedding_lookup_sparse(v, sp, w, combiner=combiner)
    y = tf.reduce_sum(r * tf.reshape(tf.range(9, dtype=tf.float32), [3, 3]))
  np.testing.assert_allclose(r.numpy(), _reference(combiner, WEIGHTS if weighted else None),
                             rtol=1e-5)
  g = t.gradient(y, v)
  assert isinstance(g, tf.IndexedSlices)
  traced = tf.function(lambda: tf.nn.embedding_lookup_sparse(v, sp, w, combiner=combiner))()
  np.testing.assert_allclose(traced.numpy(), r.numpy(), rtol=1e-6)


def test_values_and_gradient_as_tf():
  v = tf.Variable(TABLE)
  sp = tf.SparseTensor(IDX, tf.constant(IDS, tf.int64), [4, 3])
  with tf.GradientTape() as t:
    r = tf.nn.embedding_lookup_sparse(v, sp, None, combiner="mean", max_norm=5.0)
    y = tf.reduce_sum(r * tf.reshape(tf.range(9, dtype=tf.float32), [3, 3]))
  np.testing.assert_allclose(r.numpy()[0], [2.3554, 2.8528, 3.3502], atol=1e-4)
  np.testing.assert_allclose(tf.convert_to_tensor(t.gradient(y, v)).numpy()[3],
                             [-0.1829, -0.0114, 0.1601], atol=1e-4)


@pytest.mark.parametrize("default_id", [None, 2])
def test_safe_lookup(default_id):
  v = tf.Variable(TABLE)
  # rank-3 ids; -1 is left out; the weight-0 entry is left out of a mean
  idx3 = [[0, 0, 0], [0, 1, 1], [1, 1, 0], [1, 1, 2]]
  sp = tf.SparseTensor(idx3, tf.constant([1, -1, 3, 4], tf.int64), [2, 2, 3])
  w = tf.SparseTensor(idx3, [0.5, 2., 0., 2.], [2, 2, 3])
  with tf.GradientTape() as t:
    r = tf.nn.safe_embedding_lookup_sparse(v, sp, w, combiner="mean", default_id=default_id)
    y = tf.reduce_sum(r)
  empty = TABLE[2] if default_id == 2 else np.zeros(3)
  np.testing.assert_allclose(r.numpy(), [[TABLE[1], empty], [empty, TABLE[4]]], rtol=1e-6)
  assert isinstance(t.gradient(y, v), tf.IndexedSlices)
  r = tf.nn.safe_embedding_lookup_sparse(v, sp, w, combiner="sum", default_id=default_id)
  np.testing.assert_allclose(r.numpy()[1, 1], 2 * TABLE[4], rtol=1e-6)


def test_bad_arguments():
  v = tf.Variable(TABLE)
  sp = tf.SparseTensor(IDX, tf.constant(IDS, tf.int64), [4, 3])
  with pytest.raises(ValueError, match="combiner must be one of"):
    tf.nn.embedding_lookup_sparse(v, sp, None, combiner="max")
  with pytest.raises(TypeError, match="sp_ids must be SparseTensor"):
    tf.nn.embedding_lookup_sparse(v, tf.constant([1]), None)
  with pytest.raises(TypeError, match="sp_weights must be either None or SparseTensor"):
    tf.nn.embedding_lookup_sparse(v, sp, tf.constant([1.]))
  with pytest.raises(ValueError, match="Missing embedding_weights"):
    tf.nn.safe_embedding_lookup_sparse(None, sp)


def test_sparse_segment_gradients():
  data = tf.constant(np.arange(6.).reshape(3, 2))
  for kwargs, kind in (({}, tf.Tensor), ({"sparse_gradient": True}, tf.IndexedSlices)):
    with tf.GradientTape() as t:
      t.watch(data)
      y = tf.reduce_sum(tf.sparse.segment_sum(data, [0, 2], [0, 0], **kwargs))
    g = t.gradient(y, data)
    assert isinstance(g, kind)
    np.testing.assert_array_equal(tf.convert_to_tensor(g).numpy(), [[1, 1], [0, 0], [1, 1]])
  vals = tf.constant([1., 2., 3.])
  with tf.GradientTape() as t:
    t.watch(vals)
    y = tf.reduce_sum(tf.sparse.to_dense(tf.sparse.reorder(
        tf.SparseTensor([[1, 0], [0, 1], [0, 0]], vals, [2, 2]))))
  assert isinstance(t.gradient(y, vals), tf.Tensor)  # TF's gradient of reorder is dense
