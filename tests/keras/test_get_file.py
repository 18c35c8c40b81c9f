"""tf.keras.utils.get_file against an HTTP server on 127.0.0.1 that the test starts."""
import functools
import hashlib
import http.server
import io
import os
import tarfile
import threading
import zipfile

import pytest

import tensorlet as tf

get_file = tf.keras.utils.get_file


class _Quiet(http.server.SimpleHTTPRequestHandler):
  def log_message(self, *args):
    pass


@pytest.fixture
def server(tmp_path):
  root = tmp_path / "served"
  root.mkdir()
  handler = functools.partial(_Quiet, directory=str(root))
  httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
  thread = threading.Thread(target=httpd.serve_forever, daemon=True)
  thread.start()
  try:
    yield root, f"http://127.0.0.1:{httpd.server_address[1]}/"
  finally:
    httpd.shutdown()
    httpd.server_close()
    thread.join()


def test_download_cache_and_checksums(server, tmp_path, capsys):
  root, url = server
  payload = b"hello tensorlet" * 100
  (root / "data.bin").write_bytes(payload)
  cache = tmp_path / "cache"
  path = get_file("data.bin", origin=url + "data.bin", cache_dir=str(cache),
                  cache_subdir="sub", file_hash=hashlib.sha256(payload).hexdigest())
  assert path == str(cache / "sub" / "data.bin")
  assert open(path, "rb").read() == payload
  out = capsys.readouterr().out
  assert out.startswith(f"Downloading data from {url}data.bin\n")
  assert f"{len(payload)}/{len(payload)}" in out  # the progress bar counts bytes
  (root / "data.bin").write_bytes(b"changed")  # cached and valid: not fetched again
  assert open(get_file("data.bin", url + "data.bin", cache_dir=str(cache),
                       cache_subdir="sub"), "rb").read() == payload
  # A cached file that does not match the hash is fetched again.
  path = get_file("data.bin", url + "data.bin", cache_dir=str(cache), cache_subdir="sub",
                  md5_hash=hashlib.md5(b"changed").hexdigest())
  assert "md5 file hash does not match" in capsys.readouterr().out
  assert open(path, "rb").read() == b"changed"
  # A download that does not match is discarded and nothing is left behind.
  with pytest.raises(ValueError, match="sha256 file hash does not match"):
    get_file("bad.bin", url + "data.bin", cache_dir=str(cache), file_hash="0" * 64)
  assert sorted(os.listdir(cache / "datasets")) == []
  # The file name defaults to the last part of the URL.
  assert get_file(origin=url + "data.bin", cache_dir=str(cache)).endswith(
      os.path.join("datasets", "data.bin"))


def test_keras_home_and_default_cache(server, tmp_path, monkeypatch):
  root, url = server
  (root / "f.txt").write_text("x")
  monkeypatch.setenv("KERAS_HOME", str(tmp_path / "kh"))
  assert get_file("f.txt", url + "f.txt", progress=False) == str(
      tmp_path / "kh" / "datasets" / "f.txt")
  monkeypatch.delenv("KERAS_HOME")
  monkeypatch.setenv("HOME", str(tmp_path / "home"))
  assert get_file("f.txt", url + "f.txt", progress=False) == str(
      tmp_path / "home" / ".keras" / "datasets" / "f.txt")


def test_fetch_errors(server, tmp_path):
  _, url = server
  with pytest.raises(Exception, match=r"URL fetch failure on .*missing.bin: 404"):
    get_file("missing.bin", url + "missing.bin", cache_dir=str(tmp_path))
  assert os.listdir(tmp_path / "datasets") == []
  with pytest.raises(ValueError, match='specify the "origin"'):
    get_file("x")
  with pytest.raises(ValueError, match="Can't parse the file name"):
    get_file(origin=url, cache_dir=str(tmp_path))
  with pytest.raises(ValueError, match="inside the cache directory"):
    get_file("../../escape", url + "x", cache_dir=str(tmp_path))


def _tar_bytes(members):
  buf = io.BytesIO()
  with tarfile.open(fileobj=buf, mode="w:gz") as t:
    for name, data, link in members:
      info = tarfile.TarInfo(name)
      if link is not None:
        info.type, info.linkname = tarfile.SYMTYPE, link
        t.addfile(info)
      else:
        info.size = len(data)
        t.addfile(info, io.BytesIO(data))
  return buf.getvalue()


def test_extract_tar_gz_skips_paths_leaving_the_cache(server, tmp_path):
  root, url = server
  (root / "pack.tar.gz").write_bytes(_tar_bytes([
      ("pack/a.txt", b"a", None), ("pack/sub/b.txt", b"b", None),
      ("../evil.txt", b"evil", None), ("/abs_evil.txt", b"evil", None),
      ("pack/link", None, "/etc/passwd"), ("pack/ok_link", None, "a.txt")]))
  cache = tmp_path / "cache"
  with pytest.warns(UserWarning, match="Skipping invalid path") as caught:
    path = get_file("pack.tar.gz", url + "pack.tar.gz", cache_dir=str(cache), extract=True)
  skipped = " ".join(str(w.message) for w in caught)
  assert "../evil.txt" in skipped and "pack/link" in skipped
  assert path == str(cache / "datasets" / "pack.tar.gz")
  d = cache / "datasets" / "pack"
  assert (d / "a.txt").read_text() == "a" and (d / "sub" / "b.txt").read_text() == "b"
  assert os.path.islink(d / "ok_link") and not os.path.lexists(d / "link")
  assert not (cache / "evil.txt").exists() and not (tmp_path / "evil.txt").exists()
  assert not os.path.exists("/abs_evil.txt")


def test_untar(server, tmp_path):
  root, url = server
  (root / "folder.tar.gz").write_bytes(_tar_bytes([("folder/x.txt", b"x", None)]))
  path = get_file("folder", url + "folder.tar.gz", untar=True, cache_dir=str(tmp_path))
  assert path == str(tmp_path / "datasets" / "folder")
  assert (tmp_path / "datasets" / "folder" / "x.txt").read_text() == "x"
  assert (tmp_path / "datasets" / "folder.tar.gz").exists()


def test_extract_zip_skips_paths_leaving_the_cache(server, tmp_path):
  root, url = server
  buf = io.BytesIO()
  with zipfile.ZipFile(buf, "w") as z:
    z.writestr("z/in.txt", "in")
    z.writestr("../zip_evil.txt", "evil")
  (root / "z.zip").write_bytes(buf.getvalue())
  with pytest.warns(UserWarning, match="zip_evil"):
    get_file("z.zip", url + "z.zip", cache_dir=str(tmp_path / "c"), extract=True,
             archive_format="zip")
  assert (tmp_path / "c" / "datasets" / "z" / "in.txt").read_text() == "in"
  assert not (tmp_path / "c" / "zip_evil.txt").exists()
