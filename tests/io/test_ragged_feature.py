"""tf.io.RaggedFeature in parse_example / parse_single_example, and VarLenFeature
giving tensorlet.sparse.SparseTensor (values as TensorFlow 2.21 gives them)."""
import numpy as np
import pytest

import tensorlet as tf
from tensorlet.sparse import SparseTensor


def _ex(**kw):
  e = tf.train.Example()
  for k, v in kw.items():
    if isinstance(v[0], float):
      e.features.feature[k].float_list.value.extend(v)
    elif isinstance(v[0], bytes):
      e.features.feature[k].bytes_list.value.extend(v)
    else:
      e.features.feature[k].int64_list.value.extend(v)
  return e.SerializeToString()


def _records():
  return [_ex(v=[1, 2, 3], l=[2, 1], s=[0, 2, 3], m=[2, 3]),
          _ex(v=[4], l=[0, 1], s=[0, 0, 1], m=[0, 1]),
          _ex(q=[7])]


def _by_lengths(values, lengths):
  out, pos = [], 0
  for n in lengths:
    out.append(list(values[pos:pos + n]))
    pos += n
  return out


def test_varlen_feature_is_a_sparse_tensor():
  out = tf.io.parse_example(_records(), {"l": tf.io.VarLenFeature(tf.int64)})["l"]
  assert isinstance(out, SparseTensor) and isinstance(out, tf.SparseTensor)
  np.testing.assert_array_equal(out.indices.numpy(), [[0, 0], [0, 1], [1, 0], [1, 1]])
  np.testing.assert_array_equal(out.values.numpy(), [2, 1, 0, 1])
  np.testing.assert_array_equal(out.dense_shape.numpy(), [3, 2])
  one = tf.io.parse_single_example(_records()[0], {"l": tf.io.VarLenFeature(tf.int64)})["l"]
  assert isinstance(one, SparseTensor)
  np.testing.assert_array_equal(tf.sparse.to_dense(one).numpy(), [2, 1])


def test_ragged_feature_without_partitions():
  recs = _records()
  f = {"r": tf.io.RaggedFeature(tf.int64, value_key="v")}
  r = tf.io.parse_example(recs, f)["r"]
  assert isinstance(r, tf.RaggedTensor)
  assert r.to_list() == [[1, 2, 3], [4], []]
  assert r.row_splits.dtype == tf.int32
  one = tf.io.parse_single_example(recs[0], f)["r"]
  assert not isinstance(one, tf.RaggedTensor)  # a rank-1 value is a dense tensor, as in TF
  np.testing.assert_array_equal(one.numpy(), [1, 2, 3])
  r64 = tf.io.parse_example(recs, {"v": tf.io.RaggedFeature(tf.int64,
                                                             row_splits_dtype=tf.int64)})["v"]
  assert r64.row_splits.dtype == tf.int64 and r64.to_list() == [[1, 2, 3], [4], []]


def test_ragged_feature_strings_and_floats():
  recs = [_ex(w=[b"a", b"bc"]), _ex(w=[b"d"], x=[1.5, 2.5])]
  out = tf.io.parse_example(recs, {"w": tf.io.RaggedFeature(tf.string),
                                   "x": tf.io.RaggedFeature(tf.float32)})
  assert out["w"].to_list() == [[b"a", b"bc"], [b"d"]]
  assert out["x"].to_list() == [[], [1.5, 2.5]]
  assert out["x"].dtype == tf.float32


@pytest.mark.parametrize("kind,key", [("RowLengths", "l"), ("RowSplits", "s"),
                                      ("RowLimits", "m")])
def test_ragged_feature_partitions(kind, key):
  recs = _records()
  part = getattr(tf.io.RaggedFeature, kind)(key)
  f = {"r": tf.io.RaggedFeature(tf.int64, value_key="v", partitions=[part])}
  r = tf.io.parse_example(recs, f)["r"]
  want = [_by_lengths([1, 2, 3], [2, 1]), _by_lengths([4], [0, 1]), []]
  assert r.to_list() == want
  assert r.ragged_rank == 2
  one = tf.io.parse_single_example(recs[0], f)["r"]
  assert one.to_list() == want[0]


def test_ragged_feature_inside_tf_function_and_dataset():
  recs = _records()
  f = {"r": tf.io.RaggedFeature(tf.int64, value_key="v",
                                partitions=[tf.io.RaggedFeature.RowLengths("l")])}

  @tf.function
  def parse(s):
    return tf.io.parse_example(s, f)["r"]

  assert parse(tf.constant(recs)).to_list() == [[[1, 2], [3]], [[], [4]], []]
  ds = tf.data.Dataset.from_tensor_slices(recs).batch(2).map(lambda s: parse(s))
  assert [r.to_list() for r in ds] == [[[[1, 2], [3]], [[], [4]]], [[]]]
  flat = tf.data.Dataset.from_tensor_slices(recs).map(
      lambda s: tf.io.parse_single_example(s, {"v": tf.io.RaggedFeature(tf.int64)})["v"])
  assert [x.numpy().tolist() for x in flat.ragged_batch(3).unbatch()] == [[1, 2, 3], [4], []]


def test_ragged_feature_errors():
  with pytest.raises(tf.errors.InvalidArgumentError):
    tf.io.parse_example([_ex(v=[1.0])], {"v": tf.io.RaggedFeature(tf.int64)})
  with pytest.raises(ValueError, match="must not intersect"):
    tf.io.parse_example(_records(), {"r": tf.io.RaggedFeature(tf.int64, value_key="v"),
                                     "v": tf.io.VarLenFeature(tf.int64)})
  with pytest.raises(tf.errors.InvalidArgumentError):
    tf.io.parse_example([_ex(v=[1, 2, 3], l=[5])], {"v": tf.io.RaggedFeature(
        tf.int64, partitions=[tf.io.RaggedFeature.RowLengths("l")])})
  with pytest.raises(ValueError, match="row_splits_dtype"):
    tf.io.RaggedFeature(tf.int64, row_splits_dtype=tf.float32)
  with pytest.raises(NotImplementedError, match="ValueRowIds"):
    tf.io.RaggedFeature(tf.int64, partitions=[tf.io.RaggedFeature.ValueRowIds("i")])
  with pytest.raises(TypeError, match="partition"):
    tf.io.RaggedFeature(tf.int64, partitions=["l"])
  assert repr(tf.io.RaggedFeature(tf.int64)) == (
      "RaggedFeature(dtype=tf.int64, value_key=None, partitions=(), "
      "row_splits_dtype=tf.int32, validate=False)")


def test_ragged_feature_nested_partitions_outermost_first():
  recs = [_ex(v=[1, 2, 3], l=[2, 1], o=[1, 1]), _ex(v=[4, 5], l=[0, 1, 1], o=[2, 0, 1])]
  f = {"r": tf.io.RaggedFeature(tf.int64, value_key="v", partitions=[
      tf.io.RaggedFeature.RowLengths("o"), tf.io.RaggedFeature.RowLengths("l")])}
  r = tf.io.parse_example(recs, f)["r"]
  assert r.ragged_rank == 3
  assert r.to_list() == [[[[1, 2]], [[3]]], [[[], [4]], [], [[5]]]]
