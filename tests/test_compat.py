"""tf.compat helpers and tf.version."""
import pathlib

import pytest

import tensorlet as tf


def test_bytes_and_text():
  assert tf.compat.as_bytes("é") == "é".encode()
  assert tf.compat.as_bytes(bytearray(b"ab")) == b"ab"
  assert tf.compat.as_bytes("a", "latin-1") == b"a"
  assert tf.compat.as_text(b"\xc3\xa9") == "é"
  assert tf.compat.as_str(b"x") == "x" and tf.compat.as_str("x") == "x"
  assert tf.compat.as_str_any(3) == "3"
  with pytest.raises(TypeError, match="Expected binary or unicode string, got 3"):
    tf.compat.as_bytes(3)
  with pytest.raises(TypeError):
    tf.compat.as_text(None)
  with pytest.raises(UnicodeDecodeError):
    tf.compat.as_text(b"\xff")
  with pytest.raises(LookupError):
    tf.compat.as_bytes("a", "no-such-codec")


def test_paths_and_dimensions():
  assert tf.compat.path_to_str(pathlib.Path("/a/b")) == "/a/b"
  assert tf.compat.path_to_str(3) == 3
  assert tf.compat.dimension_value(tf.TensorShape([3, None])[0]) == 3
  assert tf.compat.dimension_value(tf.TensorShape([3, None])[1]) is None
  assert tf.compat.dimension_value(None) is None
  assert tf.compat.dimension_at_index(tf.TensorShape([3, 4]), 1) == 4
  assert tf.compat.dimension_at_index(tf.TensorShape(None), 1) is None
  assert isinstance(3, tf.compat.integral_types)
  assert isinstance(b"", tf.compat.bytes_or_text_types)


def test_forward_compatible():
  assert tf.compat.forward_compatible(2020, 1, 1)
  assert not tf.compat.forward_compatible(2100, 1, 1)
  with tf.compat.forward_compatibility_horizon(2101, 1, 1):
    assert tf.compat.forward_compatible(2100, 1, 1)
  assert not tf.compat.forward_compatible(2100, 1, 1)


def test_v1_says_it_is_not_implemented_and_v2_is_tensorlet():
  with pytest.raises(NotImplementedError, match="tf.compat.v1.Session is not implemented"):
    tf.compat.v1.Session()
  with pytest.raises(NotImplementedError, match="out of scope"):
    tf.compat.v1.placeholder(tf.float32)
  assert tf.compat.v2 is tf
  assert tf.compat.v2.constant(1.0).dtype == tf.float32


def test_version_says_what_it_is():
  assert tf.__version__ == tf.version.VERSION
  assert "tensorlet" in tf.version.VERSION
  assert tf.version.VERSION.startswith("2.")  # the TF 2 API it reproduces
  assert tf.version.GIT_VERSION.startswith("tensorlet-v")
  assert "Python" in tf.version.COMPILER_VERSION
  major, minor = (int(p) for p in tf.__version__.split(".")[:2])
  assert (major, minor) >= (2, 0)
