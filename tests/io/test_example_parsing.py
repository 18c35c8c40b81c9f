"""tf.train.Example protos and tf.io.parse_* against files written by real
TensorFlow (tests/io/fixtures) and hand-built Examples: values, dtypes,
shapes, sparse results, eager and inside tf.function, and TF's errors."""
import os

import numpy as np
import pytest

import tensorlet as tf
from tensorlet.io import tfrecord

FIX = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")

FEATURES = {
    "id": tf.io.FixedLenFeature([], tf.int64),
    "pair": tf.io.FixedLenFeature([2], tf.int64),
    "score": tf.io.FixedLenFeature([2], tf.float32),
    "name": tf.io.FixedLenFeature([], tf.string),
    "tags": tf.io.VarLenFeature(tf.string),
    "missing": tf.io.FixedLenFeature([1], tf.float32, default_value=[9.0]),
}


def _records(name="examples.tfrecord", compression=""):
  return list(tfrecord.read_records(os.path.join(FIX, name), compression))


def _ex(**kw):
  f = {}
  for k, v in kw.items():
    if isinstance(v[0], float):
      f[k] = tf.train.Feature(float_list=tf.train.FloatList(value=v))
    elif isinstance(v[0], int):
      f[k] = tf.train.Feature(int64_list=tf.train.Int64List(value=v))
    else:
      f[k] = tf.train.Feature(bytes_list=tf.train.BytesList(value=v))
  return tf.train.Example(features=tf.train.Features(feature=f)).SerializeToString()


def _check_sparse(sp, indices, values, shape):
  np.testing.assert_array_equal(sp.indices.numpy(), np.asarray(indices, np.int64).reshape(
      -1, len(shape)))
  assert list(sp.values.numpy()) == list(values)
  np.testing.assert_array_equal(sp.dense_shape.numpy(), shape)
  assert sp.indices.dtype == tf.int64 and sp.dense_shape.dtype == tf.int64


# ------------------------------------------------------------ the messages

def test_example_messages_are_protobuf_with_tensorflows_names():
  ex = tf.train.Example()
  ex.features.feature["x"].int64_list.value.extend([1, 2])
  assert type(ex).DESCRIPTOR.full_name == "tensorflow.Example"
  data = ex.SerializeToString()
  assert tf.train.Example.FromString(data) == ex
  # Field 1 (features) > map entry > key "x", value Feature.int64_list packed [1, 2].
  assert data == bytes.fromhex("0a0d0a0b0a017812061a040a020102")  # as TF writes it
  for name in ("SequenceExample", "Features", "Feature", "BytesList", "FloatList",
               "Int64List", "FeatureList", "FeatureLists"):
    assert getattr(tf.train, name).DESCRIPTOR.full_name == "tensorflow." + name


def test_fixture_examples_decode_to_the_written_values():
  recs = _records()
  for i, r in enumerate(recs):
    ex = tf.train.Example.FromString(r)
    f = ex.features.feature
    assert list(f["id"].int64_list.value) == [i]
    assert list(f["pair"].int64_list.value) == [i, -i * 1000000000000]
    assert list(f["score"].float_list.value) == [i * 0.5, -1.25]
    assert list(f["name"].bytes_list.value) == [f"item{i}".encode()]
    assert f["score"].WhichOneof("kind") == "float_list"
  # Re-serialized deterministically, the bytes are TF's.
  assert tf.train.Example.FromString(recs[3]).SerializeToString(deterministic=True) == recs[3]


def test_bad_bytes_raise_decode_error_not_code():
  from google.protobuf.message import DecodeError
  with pytest.raises(DecodeError):
    tf.train.Example.FromString(b"\x0a\xff\xff\xff")


# ------------------------------------------------------------ parse_example

def test_parse_example_of_tensorflow_fixture():
  for name, comp in (("examples.tfrecord", ""), ("examples.tfrecord.gz", "GZIP")):
    out = tf.io.parse_example(_records(name, comp), FEATURES)
    assert list(out) == list(FEATURES)
    np.testing.assert_array_equal(out["id"].numpy(), np.arange(5))
    assert out["id"].dtype == tf.int64 and out["id"].shape == [5]
    np.testing.assert_array_equal(out["pair"].numpy(),
                                  [[i, -i * 1000000000000] for i in range(5)])
    np.testing.assert_array_equal(out["score"].numpy(), [[i * 0.5, -1.25] for i in range(5)])
    assert out["score"].dtype == tf.float32
    assert list(out["name"].numpy()) == [b"item%d" % i for i in range(5)]
    np.testing.assert_array_equal(out["missing"].numpy(), np.full([5, 1], 9.0, np.float32))
    # tags: example i has i % 3 values t0..
    _check_sparse(out["tags"], [[1, 0], [2, 0], [2, 1], [4, 0]], [b"t0", b"t0", b"t1", b"t0"],
                  [5, 2])


def test_parse_single_example_shapes_and_sparse():
  r = _records()[2]
  out = tf.io.parse_single_example(r, FEATURES)
  assert out["id"].shape == [] and int(out["id"]) == 2
  assert out["pair"].shape == [2] and out["score"].shape == [2]
  assert out["name"].numpy() == b"item2"
  _check_sparse(out["tags"], [[0], [1]], [b"t0", b"t1"], [2])


def test_fixed_len_sequence_feature_pads_in_a_batch():
  s1, s2 = _ex(a=[1, 2, 3, 4]), _ex(a=[5, 6])
  out = tf.io.parse_example([s1, s2], {
      "a": tf.io.FixedLenSequenceFeature([2], tf.int64, allow_missing=True),
      "b": tf.io.FixedLenSequenceFeature([], tf.float32, allow_missing=True,
                                         default_value=-1.0)})
  np.testing.assert_array_equal(out["a"].numpy(), [[[1, 2], [3, 4]], [[5, 6], [0, 0]]])
  assert out["b"].shape == [2, 0] and out["b"].dtype == tf.float32
  with pytest.raises(ValueError, match="allow_missing"):
    tf.io.parse_example([s1], {"a": tf.io.FixedLenSequenceFeature([], tf.int64)})
  out = tf.io.parse_example([s1, _ex(c=[1.0])], {
      "a": tf.io.FixedLenSequenceFeature([], tf.int64, allow_missing=True, default_value=7)})
  np.testing.assert_array_equal(out["a"].numpy(), [[1, 2, 3, 4], [7, 7, 7, 7]])


def test_var_len_numeric_and_empty_batch():
  out = tf.io.parse_example([_ex(v=[1.5, 2.5]), _ex(w=[1]), _ex(v=[3.0])],
                            {"v": tf.io.VarLenFeature(tf.float32)})
  _check_sparse(out["v"], [[0, 0], [0, 1], [2, 0]], [1.5, 2.5, 3.0], [3, 2])
  assert out["v"].values.dtype == tf.float32
  out = tf.io.parse_example(tf.constant([], tf.string), {
      "v": tf.io.VarLenFeature(tf.int64), "d": tf.io.FixedLenFeature([3], tf.int64)})
  assert out["d"].shape == [0, 3]
  _check_sparse(out["v"], np.zeros([0, 2]), [], [0, 0])


def test_parse_inside_tf_function_and_dataset_map():
  recs = _records()
  dense = {k: v for k, v in FEATURES.items() if k != "tags"}

  @tf.function
  def parse(x):
    return tf.io.parse_example(x, FEATURES)
  cf = parse.get_concrete_function(tf.TensorSpec([None], tf.string))
  assert cf.structured_outputs["pair"].shape.as_list() == [None, 2]
  out = parse(tf.constant(recs))
  np.testing.assert_array_equal(out["pair"].numpy()[:, 0], np.arange(5))
  _check_sparse(out["tags"], [[1, 0], [2, 0], [2, 1], [4, 0]], [b"t0", b"t0", b"t1", b"t0"],
                [5, 2])
  ds = tf.data.Dataset.from_tensor_slices(recs).map(
      lambda s: tf.io.parse_single_example(s, dense))
  assert ds.element_spec["score"] == tf.TensorSpec([2], tf.float32)
  assert ds.element_spec["id"] == tf.TensorSpec([], tf.int64)
  assert [int(e["id"]) for e in ds] == [0, 1, 2, 3, 4]
  batched = tf.data.Dataset.from_tensor_slices(recs).batch(2).map(
      lambda s: tf.io.parse_example(s, dense))
  assert batched.element_spec["pair"] == tf.TensorSpec([None, 2], tf.int64)
  assert [e["id"].numpy().tolist() for e in batched] == [[0, 1], [2, 3], [4]]


def test_parse_errors_have_tensorflows_types():
  s = _ex(a=[1, 2], b=[1.5])
  with pytest.raises(tf.errors.InvalidArgumentError, match="Data types don't match"):
    tf.io.parse_single_example(s, {"a": tf.io.FixedLenFeature([2], tf.float32)})
  with pytest.raises(tf.errors.InvalidArgumentError, match="is required but could not be"):
    tf.io.parse_single_example(s, {"z": tf.io.FixedLenFeature([2], tf.float32)})
  with pytest.raises(tf.errors.InvalidArgumentError, match="Name: <unknown>, Feature: z"):
    tf.io.parse_example([s], {"z": tf.io.FixedLenFeature([2], tf.float32)})
  with pytest.raises(tf.errors.InvalidArgumentError, match="Values size: 2"):
    tf.io.parse_single_example(s, {"a": tf.io.FixedLenFeature([3], tf.int64)})
  with pytest.raises(tf.errors.InvalidArgumentError, match="Could not parse example"):
    tf.io.parse_single_example(b"\x0a\xff\xff", {"a": tf.io.FixedLenFeature([2], tf.int64)})
  with pytest.raises(tf.errors.InvalidArgumentError):
    tf.io.parse_single_example(s, {"a": tf.io.FixedLenFeature([2], tf.int32)})
  with pytest.raises(ValueError, match="Missing shape"):
    tf.io.parse_single_example(s, {"a": tf.io.FixedLenFeature(None, tf.int64)})
  with pytest.raises(ValueError, match="must be >= 0"):
    tf.io.parse_single_example(s, {"a": tf.io.FixedLenFeature([-1], tf.int64)})
  with pytest.raises(ValueError, match="features cannot be empty"):
    tf.io.parse_single_example(s, {})
  with pytest.raises(ValueError, match="must be a scalar"):
    tf.io.parse_single_example([s], {"a": tf.io.FixedLenFeature([2], tf.int64)})


def test_default_values_fill_missing_features():
  out = tf.io.parse_single_example(_ex(a=[1]), {
      "z": tf.io.FixedLenFeature([2], tf.float32, default_value=[1, 2]),
      "s": tf.io.FixedLenFeature([], tf.string, default_value="none"),
      "k": tf.io.FixedLenFeature([2, 2], tf.int64, default_value=0)})
  np.testing.assert_array_equal(out["z"].numpy(), [1.0, 2.0])
  assert out["s"].numpy() == b"none"
  np.testing.assert_array_equal(out["k"].numpy(), np.zeros([2, 2]))


def test_feature_config_reprs():
  assert repr(tf.io.FixedLenFeature([2], tf.int64)) == \
      "FixedLenFeature(shape=[2], dtype=tf.int64, default_value=None)"
  assert repr(tf.io.VarLenFeature(tf.int64)) == "VarLenFeature(dtype=tf.int64)"
  assert repr(tf.io.FixedLenSequenceFeature([], tf.int64)) == (
      "FixedLenSequenceFeature(shape=[], dtype=tf.int64, allow_missing=False, "
      "default_value=None)")


# ------------------------------------------------------------ sequences

def test_parse_single_sequence_example_of_tensorflow_fixture():
  recs = _records("sequence.tfrecord")
  for i, r in enumerate(recs):
    ctx, lists = tf.io.parse_single_sequence_example(
        r, context_features={"len": tf.io.FixedLenFeature([], tf.int64)},
        sequence_features={"steps": tf.io.FixedLenSequenceFeature([2], tf.int64),
                           "words": tf.io.VarLenFeature(tf.string)})
    assert int(ctx["len"]) == i + 1
    np.testing.assert_array_equal(lists["steps"].numpy(),
                                  [[i + t, 10 * t] for t in range(i + 1)])
    assert lists["steps"].shape == [i + 1, 2]
    n = i + 2
    idx = [[t, j] for t in range(n) for j in range(t + 1)]
    _check_sparse(lists["words"], idx, [b"w"] * len(idx), [n, n])


def test_sequence_example_errors_and_missing_lists():
  r = _records("sequence.tfrecord")[1]
  with pytest.raises(tf.errors.InvalidArgumentError):
    tf.io.parse_single_sequence_example(
        r, sequence_features={"steps": tf.io.FixedLenSequenceFeature([3], tf.int64)})
  with pytest.raises(tf.errors.InvalidArgumentError, match="is required"):
    tf.io.parse_single_sequence_example(
        r, sequence_features={"zz": tf.io.FixedLenSequenceFeature([3], tf.int64)})
  ctx, lists = tf.io.parse_single_sequence_example(
      r, sequence_features={"zz": tf.io.FixedLenSequenceFeature([3], tf.int64,
                                                                allow_missing=True)})
  assert ctx == {} and lists["zz"].shape == [0, 3] and lists["zz"].dtype == tf.int64
  with pytest.raises(NotImplementedError):
    tf.io.parse_sequence_example([r], sequence_features={
        "zz": tf.io.FixedLenSequenceFeature([3], tf.int64, allow_missing=True)})
