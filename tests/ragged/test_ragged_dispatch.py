"""Public functions on RaggedTensors through the ragged dispatcher: tf.strings.* and
other flat-value functions, softmax along rows, variance / std / logsumexp,
strings.reduce_join, tf.add_n, tf.gather_nd; values against NumPy (expectations
checked against TensorFlow 2.21)."""
import numpy as np
import pytest

import tensorlet as tf
from gradcheck import check_grads

ROWS = [[1.0, 2.0, 3.0], [], [4.0, 5.0]]


def rf():
  return tf.ragged.constant(ROWS)


def test_string_functions_apply_to_flat_values():
  s = tf.ragged.constant([["Ab", "c"], [], ["DE"]])
  assert tf.strings.lower(s).to_list() == [[b"ab", b"c"], [], [b"de"]]
  assert tf.strings.upper(s).to_list() == [[b"AB", b"C"], [], [b"DE"]]
  assert tf.strings.length(s).to_list() == [[2, 1], [], [2]]
  assert tf.strings.substr(s, 0, 1).to_list() == [[b"A", b"c"], [], [b"D"]]
  assert tf.strings.regex_replace(s, "[A-Z]", "_").to_list() == [[b"_b", b"c"], [], [b"__"]]
  assert tf.strings.regex_full_match(s, "[a-z]").to_list() == [[False, True], [], [False]]
  assert tf.strings.strip(tf.ragged.constant([[" a "], ["b"]])).to_list() == [[b"a"], [b"b"]]
  n = tf.strings.to_number(tf.ragged.constant([["1.5"], ["2", "3"]]))
  assert n.dtype == tf.float32 and n.to_list() == [[1.5], [2.0, 3.0]]
  assert tf.strings.as_string(tf.ragged.constant([[1], [2, 3]])).to_list() == \
      [[b"1"], [b"2", b"3"]]


def test_other_flat_value_functions():
  assert tf.clip_by_value(rf(), 2.0, 4.0).to_list() == [[2.0, 2.0, 3.0], [], [4.0, 4.0]]
  assert tf.identity(rf()).to_list() == ROWS
  oh = tf.one_hot(tf.ragged.constant([[0, 1], [2]]), 3)
  assert oh.shape.as_list() == [2, None, 3]
  assert oh.to_list() == [[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], [[0.0, 0.0, 1.0]]]
  assert tf.nn.relu(rf() - 2.0).to_list() == [[0.0, 0.0, 1.0], [], [2.0, 3.0]]
  assert tf.add_n([rf(), rf(), rf()]).to_list() == [[3 * v for v in r] for r in ROWS]
  with pytest.raises(tf.errors.InvalidArgumentError):
    tf.clip_by_value(rf(), tf.ragged.constant([[0.0], [1.0], [2.0]]), 9.0)


def _softmax(row):
  e = np.exp(np.asarray(row) - max(row))
  return list(e / e.sum())


def test_softmax_along_rows():
  got = tf.nn.softmax(rf())
  assert got.row_lengths().numpy().tolist() == [3, 0, 2]
  np.testing.assert_allclose(got.flat_values.numpy(), _softmax(ROWS[0]) + _softmax(ROWS[2]),
                             rtol=1e-6)
  with pytest.raises(ValueError):
    tf.nn.log_softmax(rf())  # TF dispatches softmax only
  u = tf.RaggedTensor.from_row_lengths(tf.constant([[1.0, 2.0], [0.0, 0.0], [3.0, 3.0]]),
                                       [2, 1])
  np.testing.assert_allclose(tf.nn.softmax(u).flat_values.numpy(),
                             [_softmax([1.0, 2.0]), [0.5, 0.5], [0.5, 0.5]], rtol=1e-6)
  r2 = tf.ragged.constant([[[1.0, 2.0], [3.0]], [[0.0, 0.0, 0.0]]])
  np.testing.assert_allclose(tf.nn.softmax(r2).flat_values.numpy(),
                             _softmax([1.0, 2.0]) + [1.0] + [1 / 3] * 3, rtol=1e-6)
  with pytest.raises(tf.errors.InvalidArgumentError):
    tf.nn.softmax(rf(), axis=0)


def test_softmax_gradient():
  base = tf.ragged.constant([[1.0, 2.0, 3.0], [4.0, 5.0]], dtype=tf.float64)
  w = tf.constant([1.0, -2.0, 3.0, 0.5, 2.0], tf.float64)
  check_grads(lambda v: tf.nn.softmax(base.with_flat_values(v)).flat_values * w,
              [tf.constant([1.0, 2.0, 0.5, 4.0, 5.0], tf.float64)])


def test_variance_std_logsumexp():
  var = tf.math.reduce_variance(rf(), axis=1).numpy()
  np.testing.assert_allclose(var[[0, 2]], [np.var(ROWS[0]), np.var(ROWS[2])], rtol=1e-6)
  assert np.isnan(var[1])
  np.testing.assert_allclose(tf.math.reduce_std(rf()).numpy(),
                             np.std(ROWS[0] + ROWS[2]), rtol=1e-6)
  np.testing.assert_allclose(tf.math.reduce_variance(rf(), axis=0).numpy(),
                             [2.25, 2.25, 0.0], atol=1e-6)
  lse = tf.math.reduce_logsumexp(rf(), axis=1).numpy()
  np.testing.assert_allclose(lse[[0, 2]], [np.log(np.exp(ROWS[0]).sum()),
                                           np.log(np.exp(ROWS[2]).sum())], rtol=1e-6)
  assert lse[1] == -np.inf
  far = tf.ragged.constant([[-1000.0, -1001.0], [], [0.0, 1.0]])  # each row its own shift
  np.testing.assert_allclose(tf.math.reduce_logsumexp(far, axis=1).numpy()[[0, 2]],
                             [-1000 + np.log1p(np.exp(-1.0)), 1 + np.log1p(np.exp(-1.0))],
                             rtol=1e-6)
  assert tf.math.reduce_logsumexp(far, axis=1, keepdims=True).shape == [3, 1]
  # TF's one-pass formula, with its float32 cancellation (TF 2.21 gives these numbers)
  big = tf.ragged.constant([[1000.1, 1001.3, 999.2], [], [4.0, 5.0]])
  v = tf.math.reduce_variance(big, axis=1).numpy().tolist()
  assert v[0] == 0.8125 and v[2] == 0.25
  same = tf.ragged.constant([[1000.1, 1000.1, 1000.1], [0.1, 0.1, 0.1]])
  assert tf.math.reduce_variance(same, axis=1).numpy().tolist() == [0.125, 0.0]
  iv = tf.math.reduce_variance(tf.ragged.constant([[1, 2]]), axis=1)
  assert iv.dtype == tf.float64 and iv.numpy().tolist() == [0.25]


def test_reduce_join():
  s = tf.ragged.constant([["a", "b"], ["c"], []])
  assert tf.strings.reduce_join(s, axis=1).numpy().tolist() == [b"ab", b"c", b""]
  assert tf.strings.reduce_join(s, axis=1, separator="-").numpy().tolist() == \
      [b"a-b", b"c", b""]
  assert tf.strings.reduce_join(s, axis=-1, separator=", ").numpy().tolist() == \
      [b"a, b", b"c", b""]
  assert tf.strings.reduce_join(s).numpy() == b"abc"
  s2 = tf.ragged.constant([[["a", "b"], ["c"]], [["d"]]])
  assert tf.strings.reduce_join(s2, axis=2, separator="+").to_list() == [[b"a+b", b"c"], [b"d"]]


def test_gather_nd():
  rt = tf.ragged.constant([[1, 2, 3], [], [4, 5]])
  assert tf.gather_nd(rt, [[0, 1], [2, 0]]).numpy().tolist() == [2, 4]
  assert tf.gather_nd(rt, [[0], [2]]).to_list() == [[1, 2, 3], [4, 5]]
  assert tf.gather_nd(rt, [[[0, 1]], [[2, 0]]]).numpy().tolist() == [[2], [4]]
  r2 = tf.ragged.constant([[[1, 2], [3]], [[4]], [[5, 6, 7], [], [8]]])
  assert tf.gather_nd(r2, [[2, 0], [0, 1]]).to_list() == [[5, 6, 7], [3]]
  assert tf.gather_nd(r2, [[2, 0, 1]]).numpy().tolist() == [6]
  u = tf.RaggedTensor.from_row_lengths(tf.reshape(tf.range(6), [3, 2]), [2, 1])
  assert tf.gather_nd(u, [[0, 1, 1], [1, 0, 0]]).numpy().tolist() == [3, 4]
  assert tf.gather_nd(u, [[1, 0]]).numpy().tolist() == [[4, 5]]
  f = tf.function(lambda r: tf.gather_nd(r, [[0, 1], [2, 0]]))
  assert f(rt).numpy().tolist() == [2, 4]


def test_row_partition_helpers_dtypes_and_row_index_errors():
  assert tf.ragged.row_splits_to_segment_ids([0, 2, 2, 5]).dtype == tf.int64
  assert tf.ragged.row_splits_to_segment_ids(tf.constant([0, 2], tf.int32)).dtype == tf.int32
  s = tf.ragged.segment_ids_to_row_splits([0, 0, 2])
  assert s.dtype == tf.int64 and s.numpy().tolist() == [0, 2, 2, 3]
  rt = tf.ragged.constant([[1, 2, 3], [], [4, 5]])
  with pytest.raises(IndexError, match="Row key 5 out of bounds"):
    rt[5]
  with pytest.raises(tf.errors.InvalidArgumentError):
    rt[-4]
