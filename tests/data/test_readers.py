"""File sources: TFRecordDataset, TextLineDataset, FixedLengthRecordDataset:
values, order (num_parallel_reads interleaving as TF orders it), element_spec,
cardinality, eager and inside tf.function, TF's error types."""
import gzip
import os

import numpy as np
import pytest

import tensorlet as tf

FIX = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "io",
                   "fixtures")
STRING = tf.TensorSpec([], tf.string)


def _files(tmp_path, sizes, compression=None):
  paths = []
  for i, n in enumerate(sizes):
    p = str(tmp_path / f"f{i}.rec")
    with tf.io.TFRecordWriter(p, compression) as w:
      for j in range(n):
        w.write(f"{i}-{j}")
    paths.append(p)
  return paths


def _strs(ds):
  return [x.decode() for x in ds.as_numpy_iterator()]


def test_tfrecord_dataset_reads_tensorflow_fixture_and_parses():
  for name, comp in (("examples.tfrecord", None), ("examples.tfrecord.gz", "GZIP"),
                     ("examples.tfrecord.zlib", "ZLIB")):
    ds = tf.data.TFRecordDataset(os.path.join(FIX, name), compression_type=comp)
    assert repr(ds) == ("<TFRecordDatasetV2 element_spec=TensorSpec(shape=(), "
                        "dtype=tf.string, name=None)>")
    assert ds.element_spec == STRING
    assert int(ds.cardinality()) == tf.data.UNKNOWN_CARDINALITY
    feats = {"id": tf.io.FixedLenFeature([], tf.int64),
             "score": tf.io.FixedLenFeature([2], tf.float32)}
    parsed = ds.batch(2).map(lambda s: tf.io.parse_example(s, feats)).prefetch(1)
    assert parsed.element_spec["score"] == tf.TensorSpec([None, 2], tf.float32)
    batches = list(parsed)
    assert [b["id"].numpy().tolist() for b in batches] == [[0, 1], [2, 3], [4]]
    np.testing.assert_array_equal(batches[1]["score"].numpy(), [[1.0, -1.25], [1.5, -1.25]])


def test_multiple_files_in_order_and_parallel_reads_interleave(tmp_path):
  paths = _files(tmp_path, [3, 1, 2, 4])
  assert _strs(tf.data.TFRecordDataset(paths)) == \
      ["0-0", "0-1", "0-2", "1-0", "2-0", "2-1", "3-0", "3-1", "3-2", "3-3"]
  # Orders from real TensorFlow 2.21.
  assert _strs(tf.data.TFRecordDataset(paths, num_parallel_reads=2)) == \
      ["0-0", "1-0", "0-1", "0-2", "2-0", "2-1", "3-0", "3-1", "3-2", "3-3"]
  assert _strs(tf.data.TFRecordDataset(paths, num_parallel_reads=3)) == \
      ["0-0", "1-0", "2-0", "0-1", "2-1", "0-2", "3-0", "3-1", "3-2", "3-3"]
  assert sorted(_strs(tf.data.TFRecordDataset(paths, num_parallel_reads=tf.data.AUTOTUNE))) \
      == sorted(_strs(tf.data.TFRecordDataset(paths)))
  files = tf.data.Dataset.from_tensor_slices(paths[2:])
  assert _strs(tf.data.TFRecordDataset(files)) == ["2-0", "2-1", "3-0", "3-1", "3-2", "3-3"]
  assert _strs(tf.data.TFRecordDataset([])) == []


def test_tfrecord_dataset_gzip_and_reiteration(tmp_path):
  paths = _files(tmp_path, [2, 2], "GZIP")
  ds = tf.data.TFRecordDataset(paths, "GZIP", buffer_size=16)
  assert _strs(ds) == ["0-0", "0-1", "1-0", "1-1"]
  assert _strs(ds) == ["0-0", "0-1", "1-0", "1-1"]
  assert _strs(ds.repeat(2).take(5)) == ["0-0", "0-1", "1-0", "1-1", "0-0"]


def test_tfrecord_dataset_inside_tf_function(tmp_path):
  paths = _files(tmp_path, [2, 3])

  @tf.function
  def total_length(files):
    n = tf.constant(0)
    for r in tf.data.TFRecordDataset(files):
      n += tf.strings.length(r)
    return n
  assert int(total_length(tf.constant(paths))) == 15

  ds = tf.data.TFRecordDataset(paths)

  @tf.function
  def count(d):
    return d.reduce(np.int64(0), lambda s, _: s + 1)
  assert int(count(ds)) == 5


def test_tfrecord_dataset_errors(tmp_path):
  with pytest.raises(TypeError, match="tf.string"):
    tf.data.TFRecordDataset(1)
  with pytest.raises(ValueError, match="compression_type"):
    tf.data.TFRecordDataset("x", compression_type="BAD")
  with pytest.raises(tf.errors.InvalidArgumentError, match="cycle_length"):
    tf.data.TFRecordDataset("x", num_parallel_reads=0)
  ds = tf.data.TFRecordDataset(str(tmp_path / "missing"))
  with pytest.raises(tf.errors.NotFoundError):
    next(iter(ds))
  bad = tmp_path / "bad.rec"
  data = open(_files(tmp_path, [2])[0], "rb").read()
  bad.write_bytes(data[:-2])
  it = iter(tf.data.TFRecordDataset(str(bad)))
  assert next(it).numpy() == b"0-0"
  with pytest.raises(tf.errors.DataLossError, match="truncated record"):
    next(it)
  with pytest.raises(tf.errors.DataLossError):
    list(tf.data.TFRecordDataset(str(bad), "GZIP"))


def test_text_line_dataset(tmp_path):
  a = tmp_path / "a.txt"
  a.write_bytes(b"a\r\nb\n\nc")
  b = tmp_path / "b.txt.gz"
  b.write_bytes(gzip.compress(b"x\ny\n"))
  ds = tf.data.TextLineDataset(str(a))
  assert repr(ds) == ("<TextLineDatasetV2 element_spec=TensorSpec(shape=(), dtype=tf.string, "
                      "name=None)>")
  assert list(ds.as_numpy_iterator()) == [b"a", b"b", b"", b"c"]
  assert list(tf.data.TextLineDataset(str(b), compression_type="GZIP").as_numpy_iterator()) \
      == [b"x", b"y"]
  # As TF 2.21 orders two files read in parallel.
  assert list(tf.data.TextLineDataset([str(a)] * 2, num_parallel_reads=2)
              .as_numpy_iterator()) == [b"a", b"a", b"b", b"b", b"", b"", b"c", b"c"]
  assert int(ds.cardinality()) == -2
  lines = tf.data.TextLineDataset(str(a)).skip(1).map(tf.strings.length)
  assert [int(x) for x in lines] == [1, 0, 1]
  with pytest.raises(tf.errors.NotFoundError):
    list(tf.data.TextLineDataset(str(tmp_path / "none")))


def test_fixed_length_record_dataset(tmp_path):
  p = tmp_path / "f.bin"
  p.write_bytes(b"HH" + b"abcdefgh" + b"F")
  ds = tf.data.FixedLengthRecordDataset(str(p), 4, header_bytes=2, footer_bytes=1)
  assert ds.element_spec == STRING
  assert list(ds.as_numpy_iterator()) == [b"abcd", b"efgh"]
  q = tmp_path / "g.bin.gz"
  q.write_bytes(gzip.compress(np.arange(6, dtype=np.int16).tobytes()))
  raw = tf.data.FixedLengthRecordDataset(str(q), 4, compression_type="GZIP").map(
      lambda r: tf.io.decode_raw(r, tf.int16))
  assert [x.numpy().tolist() for x in raw] == [[0, 1], [2, 3], [4, 5]]
  with pytest.raises(tf.errors.DataLossError, match="not an exact multiple"):
    list(tf.data.FixedLengthRecordDataset(str(p), 3))
  with pytest.raises(tf.errors.InvalidArgumentError):
    tf.data.FixedLengthRecordDataset(str(p), 0)
