"""TFRecord files: CRC32C, record framing byte-for-byte against files written
by real TensorFlow (tests/io/fixtures), compression, and DataLossError on
truncated or corrupted records."""
import os
import struct

import numpy as np
import pytest

import tensorlet as tf
from tensorlet.io import crc32c as crc
from tensorlet.io import tfrecord

FIX = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")


def _fix(name):
  return os.path.join(FIX, name)


def _records(path):
  """The records of an uncompressed TFRecord file, framing parsed by hand."""
  data = open(path, "rb").read()
  out, pos = [], 0
  while pos < len(data):
    n, = struct.unpack_from("<Q", data, pos)
    out.append(data[pos + 12:pos + 12 + n])
    pos += n + 16
  return out


# ---------------------------------------------------------------- CRC32C

def test_crc32c_known_values():
  # RFC 3720 check value and the iSCSI test vectors.
  for impl in (crc.crc32c, crc.crc32c_python):
    assert impl(b"123456789") == 0xE3069283
    assert impl(bytes(32)) == 0x8A9136AA
    assert impl(bytes([0xFF] * 32)) == 0x62A8AB43
    assert impl(bytes(range(32))) == 0x46DD794E
    assert impl(b"") == 0


def test_crc32c_library_and_fallback_agree():
  rng = np.random.RandomState(1)
  for n in (1, 7, 64, 1000):
    data = rng.randint(0, 256, n).astype(np.uint8).tobytes()
    assert crc.crc32c(data) == crc.crc32c_python(data)


def test_masked_crc_round_trip():
  for v in (0, 1, 0xE3069283, 0xFFFFFFFF):
    assert crc.unmask(crc.mask(v)) == v
  # The length field of a 5-byte record, as TF writes it.
  assert crc.masked_crc32c(struct.pack("<Q", 5)) == 0x3E04B2EA


# ------------------------------------------------------------- writing

@pytest.mark.parametrize("name, compression", [("examples.tfrecord", None),
                                               ("examples.tfrecord.gz", "GZIP"),
                                               ("examples.tfrecord.zlib", "ZLIB")])
def test_written_file_is_byte_identical_to_tensorflows(tmp_path, name, compression):
  records = _records(_fix("examples.tfrecord"))
  assert len(records) == 5
  path = str(tmp_path / "out")
  opts = tf.io.TFRecordOptions(compression) if compression else None
  with tf.io.TFRecordWriter(path, opts) as w:
    for r in records:
      w.write(r)
  assert open(path, "rb").read() == open(_fix(name), "rb").read()


def test_writer_accepts_str_and_string_tensor_and_checks_type(tmp_path):
  path = str(tmp_path / "w")
  with tf.io.TFRecordWriter(path) as w:
    w.write("héllo")
    w.write(tf.constant(b"tensor"))
    w.write(b"")
    with pytest.raises(TypeError):
      w.write(1)
  assert list(tfrecord.read_records(path)) == ["héllo".encode(), b"tensor", b""]
  assert open(path, "rb").read()[:12] == struct.pack("<Q", 6) + struct.pack(
      "<I", crc.masked_crc32c(struct.pack("<Q", 6)))


def test_writer_after_close_and_bad_options(tmp_path):
  w = tf.io.TFRecordWriter(str(tmp_path / "c"))
  w.close()
  w.close()
  with pytest.raises(tf.errors.FailedPreconditionError):
    w.write(b"x")
  with pytest.raises(ValueError, match="compression_type"):
    tf.io.TFRecordWriter(str(tmp_path / "d"), "BAD")
  with pytest.raises(ValueError, match="compression_type"):
    tf.io.TFRecordOptions("LZ4")
  with pytest.raises(tf.errors.NotFoundError):
    tf.io.TFRecordWriter(str(tmp_path / "no" / "dir" / "f"))


def test_compression_type_string():
  get = tf.io.TFRecordOptions.get_compression_type_string
  assert get(None) == "" and get("GZIP") == "GZIP"
  assert get(tf.io.TFRecordOptions("ZLIB")) == "ZLIB"
  assert get(tf.io.TFRecordCompressionType.GZIP) == "GZIP"


def test_flush_bytes_are_tensorflows(tmp_path):
  path = str(tmp_path / "f.z")
  w = tf.io.TFRecordWriter(path, "ZLIB")
  w.write(b"one")
  w.flush()
  w.write(b"two")
  w.close()
  # As TF 2.21 writes it (its flush is zlib's Z_PARTIAL_FLUSH).
  assert open(path, "rb").read().hex() == \
      "789c626680800d333df9f2f352191d423900028c1949a8a43cbf73c2494e007b03086c"


def test_flush_keeps_a_readable_stream(tmp_path):
  path = str(tmp_path / "f.gz")
  w = tf.io.TFRecordWriter(path, "GZIP")
  w.write(b"one")
  w.flush()
  assert list(tfrecord.read_records(path, "GZIP")) == [b"one"]
  w.write(b"two")
  w.close()
  assert list(tfrecord.read_records(path, "GZIP")) == [b"one", b"two"]


# ------------------------------------------------------------- reading

@pytest.mark.parametrize("name, compression", [("examples.tfrecord", ""),
                                               ("examples.tfrecord.gz", "GZIP"),
                                               ("examples.tfrecord.zlib", "ZLIB")])
def test_reads_tensorflow_files(name, compression):
  assert list(tfrecord.read_records(_fix(name), compression)) == \
      _records(_fix("examples.tfrecord"))


def _write(path, data):
  with open(path, "wb") as f:
    f.write(data)
  return path


def test_truncated_and_corrupted_records_raise_data_loss(tmp_path):
  good = tfrecord.encode_record(b"hello") + tfrecord.encode_record(b"world")
  cases = {
      "truncated": (good[:-3], "truncated record at 21"),
      "short header": (good[:25], "truncated record at 21"),
      "data crc": (good[:13] + bytes([good[13] ^ 1]) + good[14:], "corrupted record at 12"),
      "length crc": (good[:9] + bytes([good[9] ^ 1]) + good[10:],
                     r"corrupted record at 0 \(Is this even a TFRecord file\?\)"),
  }
  for label, (data, msg) in cases.items():
    path = _write(str(tmp_path / label.replace(" ", "_")), data)
    with pytest.raises(tf.errors.DataLossError, match=msg):
      list(tfrecord.read_records(path))


def test_wrong_compression_raises_data_loss():
  with pytest.raises(tf.errors.DataLossError, match="inflate"):
    list(tfrecord.read_records(_fix("examples.tfrecord"), "GZIP"))


def test_not_a_tfrecord_file(tmp_path):
  path = _write(str(tmp_path / "text"), b"just some text that is long enough\n")
  with pytest.raises(tf.errors.DataLossError):
    list(tfrecord.read_records(path))


def test_missing_file_raises_not_found(tmp_path):
  with pytest.raises(tf.errors.NotFoundError, match="No such file"):
    list(tfrecord.read_records(str(tmp_path / "missing")))


def test_compression_level_bytes_are_tensorflows(tmp_path):
  path = str(tmp_path / "l9.gz")
  with tf.io.TFRecordWriter(path, tf.io.TFRecordOptions("GZIP", compression_level=9)) as w:
    w.write(b"hello" * 20)
    w.write(b"world")
  assert open(path, "rb").read().hex() == (
      "1f8b08000000000002034b618000e77899fb19a93939f9342662e768b7b042ed7cb589c5ae3cbf2827"
      "45d74f7e2900fd8f311f89000000")
