"""tf.io file and codec functions: read_file, write_file, matching_files,
decode_raw, decode_csv, base64, serialize_tensor/parse_tensor (bytes as
TensorFlow writes them), eager and in tf.function, with TF's errors."""
import base64
import os

import numpy as np
import pytest

import tensorlet as tf
from tensorlet.io import tfrecord

FIX = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")


def test_read_and_write_file(tmp_path):
  path = str(tmp_path / "sub" / "dir" / "f.bin")
  tf.io.write_file(path, b"\x00abc\xff")
  assert open(path, "rb").read() == b"\x00abc\xff"
  t = tf.io.read_file(path)
  assert t.dtype == tf.string and t.shape == [] and t.numpy() == b"\x00abc\xff"
  assert not [p for p in os.listdir(tmp_path / "sub" / "dir") if ".tmp" in p]

  @tf.function
  def copy(src, dst):
    tf.io.write_file(dst, tf.io.read_file(src))
  copy(tf.constant(path), tf.constant(path + "2"))
  assert open(path + "2", "rb").read() == b"\x00abc\xff"


def test_read_file_errors(tmp_path):
  with pytest.raises(tf.errors.NotFoundError, match="No such file"):
    tf.io.read_file(str(tmp_path / "nope"))
  with pytest.raises(tf.errors.FailedPreconditionError):
    tf.io.read_file(str(tmp_path))
  with pytest.raises(TypeError):
    tf.io.read_file(tf.constant(1))


def test_matching_files(tmp_path):
  for n in ("b.txt", "a.txt", "c.dat"):
    (tmp_path / n).write_bytes(b"")
  out = tf.io.matching_files(str(tmp_path / "*.txt"))
  assert out.dtype == tf.string
  assert [os.path.basename(p) for p in out.numpy()] == [b"a.txt", b"b.txt"]
  out = tf.io.matching_files([str(tmp_path / "c*"), str(tmp_path / "a*")])
  assert [os.path.basename(p) for p in out.numpy()] == [b"c.dat", b"a.txt"]
  assert tf.io.matching_files(str(tmp_path / "zz*")).shape == [0]


def test_decode_raw():
  out = tf.io.decode_raw(tf.constant([b"\x01\x00\x02\x00", b"\x03\x00\x04\x00"]), tf.int16)
  assert out.dtype == tf.int16
  np.testing.assert_array_equal(out.numpy(), [[1, 2], [3, 4]])
  be = tf.io.decode_raw(b"\x01\x00\x02\x00", tf.int16, little_endian=False)
  np.testing.assert_array_equal(be.numpy(), [256, 512])
  fl = tf.io.decode_raw([b"\x01\x00", b"\x03\x00\x04\x00"], tf.int16, fixed_length=4)
  np.testing.assert_array_equal(fl.numpy(), [[1, 0], [3, 4]])
  f = np.array([1.5, -2.0], np.float32)
  np.testing.assert_array_equal(tf.io.decode_raw(f.tobytes(), tf.float32).numpy(), f)
  with pytest.raises(tf.errors.InvalidArgumentError, match="same size"):
    tf.io.decode_raw(tf.constant([b"\x01\x00\x02\x00", b"\x03\x00"]), tf.int16)
  with pytest.raises(tf.errors.InvalidArgumentError, match="not a multiple of 2"):
    tf.io.decode_raw(b"\x01\x00\x02", tf.int16)
  with pytest.raises(tf.errors.InvalidArgumentError):
    tf.io.decode_raw(b"ab", tf.string)

  @tf.function
  def g(x):
    return tf.io.decode_raw(x, tf.uint8)
  assert g.get_concrete_function(tf.TensorSpec([None], tf.string)).structured_outputs \
      .shape.as_list() == [None, None]
  np.testing.assert_array_equal(g(tf.constant([b"ab"])).numpy(), [[97, 98]])


def test_decode_csv():
  a, b, c = tf.io.decode_csv(["1,2.5,a", "3,,b"], [[0], [1.0], ["x"]])
  assert (a.dtype, b.dtype, c.dtype) == (tf.int32, tf.float32, tf.string)
  np.testing.assert_array_equal(a.numpy(), [1, 3])
  np.testing.assert_array_equal(b.numpy(), [2.5, 1.0])
  assert list(c.numpy()) == [b"a", b"b"]
  s, n = tf.io.decode_csv(['"a,b",1'], [[""], [0]])
  assert s.numpy()[0] == b"a,b" and int(n[0]) == 1
  s, n = tf.io.decode_csv(["a;1"], [[""], [0]], field_delim=";")
  assert s.numpy()[0] == b"a"
  x, z = tf.io.decode_csv(["1,2,3"], [[0], [0]], select_cols=[0, 2])
  assert int(x[0]) == 1 and int(z[0]) == 3
  na, two = tf.io.decode_csv(["NA,2"], [[0], [0]], na_value="NA")
  assert int(na[0]) == 0 and int(two[0]) == 2
  i, j = tf.io.decode_csv("1,2", [[0], [tf.constant(0, tf.int64)]])
  assert i.shape == [] and j.dtype == tf.int64
  f, d = tf.io.decode_csv("1.5,2", [[0.0], [tf.constant(0, tf.float64)]])
  assert float(f) == 1.5 and d.dtype == tf.float64


def test_decode_csv_errors():
  with pytest.raises(tf.errors.InvalidArgumentError, match="Expect 3 fields but have 2"):
    tf.io.decode_csv(["1,2.5", "3,,b"], [[0], [1.0], ["x"]])
  with pytest.raises(tf.errors.InvalidArgumentError, match="not a valid int32: x"):
    tf.io.decode_csv(["x,2.5,a"], [[0], [1.0], ["x"]])
  with pytest.raises(tf.errors.InvalidArgumentError, match="required but missing"):
    tf.io.decode_csv(["1,"], [[0], np.zeros([0], np.int32)])
  with pytest.raises(ValueError, match="select_cols"):
    tf.io.decode_csv(["1,2,3"], [[0], [0], [0]], select_cols=[0, 2])
  with pytest.raises(tf.errors.InvalidArgumentError):
    tf.io.decode_csv("1.5,2", [[0.0], [True]])


def test_base64_is_web_safe():
  enc = tf.io.encode_base64([b"hello?>", b""])
  assert list(enc.numpy()) == [b"aGVsbG8_Pg", b""]
  assert tf.io.encode_base64(b"hello?>", pad=True).numpy() == b"aGVsbG8_Pg=="
  assert tf.io.decode_base64(b"aGVsbG8_Pg").numpy() == b"hello?>"
  assert tf.io.decode_base64(b"aGVsbG8_Pg==").numpy() == b"hello?>"
  data = bytes(range(256))
  assert tf.io.decode_base64(tf.io.encode_base64(data)).numpy() == data
  assert tf.io.encode_base64(data).numpy() == base64.urlsafe_b64encode(data).rstrip(b"=")
  with pytest.raises(tf.errors.InvalidArgumentError, match="1 modulo 4"):
    tf.io.decode_base64(b"a")
  with pytest.raises(tf.errors.InvalidArgumentError, match="Invalid character"):
    tf.io.decode_base64(b"a+b/")


# Bytes of tf.io.serialize_tensor, from real TensorFlow 2.21.
_SERIALIZED = [
    (tf.constant([[1.5, 2.0]]), "08011208120208011202080222080000c03f00000040"),
    (tf.constant([b"ab", b"c"]), "080712041202080242026162420163"),
    (tf.constant(3), "08031200220403000000"),
    (tf.constant([True, False]), "080a12041202080222020100"),
]


def test_serialize_tensor_bytes_are_tensorflows():
  for t, hexed in _SERIALIZED:
    s = tf.io.serialize_tensor(t)
    assert s.dtype == tf.string and s.shape == []
    assert s.numpy().hex() == hexed
    back = tf.io.parse_tensor(s, t.dtype)
    assert back.dtype == t.dtype
    np.testing.assert_array_equal(back.numpy(), t.numpy())


def test_parse_tensor_of_tensorflow_fixture():
  recs = list(tfrecord.read_records(os.path.join(FIX, "tensors.bin")))
  want = [(tf.float32, [[1.5, -2.0], [0.0, 3.25]]), (tf.string, [b"ab", b""]),
          (tf.int64, 7), (tf.bool, [True, False]),
          (tf.uint8, np.arange(6).reshape(2, 3))]
  for r, (dtype, value) in zip(recs, want):
    t = tf.io.parse_tensor(r, dtype)
    assert t.dtype == dtype
    np.testing.assert_array_equal(t.numpy(), np.asarray(value, dtype=t.numpy().dtype))


def test_parse_tensor_errors_and_graph():
  s = tf.io.serialize_tensor(tf.constant([1.0]))
  with pytest.raises(tf.errors.InvalidArgumentError, match="Type mismatch"):
    tf.io.parse_tensor(s, tf.int32)
  with pytest.raises(tf.errors.InvalidArgumentError, match="Could not parse"):
    tf.io.parse_tensor(b"\xff\xff", tf.int32)

  @tf.function
  def rt(x):
    return tf.io.parse_tensor(tf.io.serialize_tensor(x), tf.float64)
  np.testing.assert_array_equal(rt(tf.constant([[1.0, 2.0]], tf.float64)).numpy(),
                                [[1.0, 2.0]])
