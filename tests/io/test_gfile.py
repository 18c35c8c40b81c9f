"""tf.io.gfile on the local file system, with TensorFlow's error types."""
import os

import pytest

import tensorlet as tf

gfile = tf.io.gfile


def test_gfile_write_read_text_and_binary(tmp_path):
  p = str(tmp_path / "a.txt")
  with gfile.GFile(p, "w") as f:
    f.write("line1\nline2\n")
    f.write(b"bytes\n")
  with gfile.GFile(p) as f:
    assert f.read() == "line1\nline2\nbytes\n"
  with gfile.GFile(p, "rb") as f:
    assert f.readline() == b"line1\n"
    assert f.tell() == 6
    f.seek(0)
    assert f.read(5) == b"line1"
  assert list(gfile.GFile(p)) == ["line1\n", "line2\n", "bytes\n"]
  with gfile.GFile(p, "a") as f:
    f.write("more")
  assert gfile.GFile(p).readlines()[-1] == "more"
  assert gfile.GFile(p).size() == len("line1\nline2\nbytes\nmore")
  with gfile.GFile(p) as f, pytest.raises(tf.errors.PermissionDeniedError):
    f.write("x")
  with pytest.raises(tf.errors.NotFoundError):
    gfile.GFile(str(tmp_path / "missing")).read()


def test_directories_and_listing(tmp_path):
  d = str(tmp_path / "x" / "y")
  gfile.makedirs(d)
  gfile.makedirs(d)
  assert gfile.isdir(d) and gfile.exists(d)
  with pytest.raises(tf.errors.AlreadyExistsError):
    gfile.mkdir(d)
  for n in ("b", "a"):
    with gfile.GFile(os.path.join(d, n), "w") as f:
      f.write(n)
  gfile.mkdir(os.path.join(d, "sub"))
  assert gfile.listdir(d) == ["a", "b", "sub"]
  assert gfile.glob(os.path.join(d, "[ab]")) == [os.path.join(d, "a"), os.path.join(d, "b")]
  walked = list(gfile.walk(str(tmp_path)))
  assert walked[0] == (str(tmp_path), ["x"], [])
  assert walked[2] == (d, ["sub"], ["a", "b"])
  assert list(gfile.walk(str(tmp_path / "nope"))) == []
  st = gfile.stat(os.path.join(d, "a"))
  assert st.length == 1 and not st.is_directory and st.mtime_nsec > 0
  with pytest.raises(tf.errors.NotFoundError):
    gfile.listdir(str(tmp_path / "nope"))
  with pytest.raises(tf.errors.NotFoundError):
    gfile.stat(str(tmp_path / "nope"))


def test_remove_rename_copy_rmtree(tmp_path):
  a, b, c = (str(tmp_path / n) for n in "abc")
  with gfile.GFile(a, "wb") as f:
    f.write(b"A")
  with gfile.GFile(b, "wb") as f:
    f.write(b"B")
  with pytest.raises(tf.errors.AlreadyExistsError):
    gfile.rename(a, b)
  with pytest.raises(tf.errors.AlreadyExistsError):
    gfile.copy(a, b)
  gfile.copy(a, c)
  assert open(c, "rb").read() == b"A"
  gfile.copy(b, c, overwrite=True)
  assert open(c, "rb").read() == b"B"
  gfile.rename(a, b, overwrite=True)
  assert not gfile.exists(a) and open(b, "rb").read() == b"A"
  gfile.remove(b)
  assert not gfile.exists(b)
  with pytest.raises(tf.errors.NotFoundError):
    gfile.remove(b)
  with pytest.raises(tf.errors.NotFoundError):
    gfile.rename(a, c)
  d = str(tmp_path / "tree" / "deep")
  gfile.makedirs(d)
  gfile.rmtree(str(tmp_path / "tree"))
  assert not gfile.exists(str(tmp_path / "tree"))
  with pytest.raises(tf.errors.NotFoundError):
    gfile.rmtree(str(tmp_path / "tree"))


def test_file_scheme_and_unknown_scheme(tmp_path):
  p = str(tmp_path / "f")
  with gfile.GFile("file://" + p, "w") as f:
    f.write("x")
  assert gfile.exists(p)
  with pytest.raises(tf.errors.UnimplementedError):
    gfile.exists("gs://bucket/x")
