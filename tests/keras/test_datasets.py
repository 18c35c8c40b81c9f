"""datasets.mnist reads Keras' cache file; the download path runs against a local URL."""
import hashlib
import io
import os

import numpy as np
import pytest

import tensorlet as tf
from tensorlet.keras.datasets import _download, mnist


def _write_mnist(path, n=5):
  rng = np.random.default_rng(0)
  arrays = {"x_train": rng.integers(0, 256, (n, 28, 28), dtype=np.uint8),
            "y_train": rng.integers(0, 10, n, dtype=np.uint8),
            "x_test": rng.integers(0, 256, (2, 28, 28), dtype=np.uint8),
            "y_test": rng.integers(0, 10, 2, dtype=np.uint8)}
  os.makedirs(os.path.dirname(path), exist_ok=True)
  np.savez(path, **arrays)
  return arrays


@pytest.fixture
def keras_home(tmp_path, monkeypatch):
  monkeypatch.setenv("KERAS_HOME", str(tmp_path / "kh"))
  return tmp_path / "kh"


def _no_network(monkeypatch):
  def refuse(*a, **k):
    raise AssertionError("no download expected")
  monkeypatch.setattr(_download.urllib.request, "urlopen", refuse)


def _trust(monkeypatch, module, path, attr="SHA256"):
  """Makes `module` accept the stand-in file at `path` as the published one."""
  with open(path, "rb") as f:
    digest = hashlib.sha256(f.read()).hexdigest()
  monkeypatch.setattr(module, attr, digest)


def test_load_data_reads_the_cached_file(keras_home, monkeypatch):
  _no_network(monkeypatch)
  arrays = _write_mnist(str(keras_home / "datasets" / "mnist.npz"))
  _trust(monkeypatch, mnist, keras_home / "datasets" / "mnist.npz")
  (x_train, y_train), (x_test, y_test) = tf.keras.datasets.mnist.load_data()
  np.testing.assert_array_equal(x_train, arrays["x_train"])
  np.testing.assert_array_equal(y_test, arrays["y_test"])
  assert x_train.dtype == np.uint8 and x_train.shape == (5, 28, 28) and y_train.shape == (5,)
  assert x_test.shape == (2, 28, 28)


def test_default_cache_is_home_keras(monkeypatch, tmp_path):
  monkeypatch.delenv("KERAS_HOME", raising=False)
  monkeypatch.setenv("HOME", str(tmp_path))
  assert _download.cache_path("mnist.npz") == str(tmp_path / ".keras" / "datasets" /
                                                  "mnist.npz")


def test_missing_file_is_downloaded_from_the_origin_and_checked(keras_home, monkeypatch,
                                                                 tmp_path, capsys):
  source = tmp_path / "served.npz"
  arrays = _write_mnist(str(source), n=3)
  payload = source.read_bytes()
  urls = []

  def fake_urlopen(url):
    urls.append(url)
    return io.BytesIO(payload)
  monkeypatch.setattr(_download.urllib.request, "urlopen", fake_urlopen)
  monkeypatch.setattr(mnist, "SHA256", hashlib.sha256(payload).hexdigest())
  (x_train, _), _ = mnist.load_data()
  assert urls == [mnist.ORIGIN]
  out = capsys.readouterr().out
  assert out.startswith(f"Downloading data from {mnist.ORIGIN}\n")
  assert f"{len(payload)}/Unknown" in out  # the progress bar counts bytes
  np.testing.assert_array_equal(x_train, arrays["x_train"])
  assert (keras_home / "datasets" / "mnist.npz").read_bytes() == payload
  mnist.load_data()  # cached now
  assert len(urls) == 1
  monkeypatch.setattr(mnist, "SHA256", "0" * 64)
  with pytest.raises(ValueError, match="sha256 file hash does not match"):
    mnist.load_data(path="other.npz")
  assert not (keras_home / "datasets" / "other.npz").exists()
  assert [p.name for p in (keras_home / "datasets").iterdir()] == ["mnist.npz"]


def test_url_errors(keras_home, monkeypatch):
  def fail(url):
    raise _download.urllib.error.URLError("unreachable")
  monkeypatch.setattr(_download.urllib.request, "urlopen", fail)
  with pytest.raises(Exception, match="URL fetch failure on https://storage.googleapis.com"):
    mnist.load_data()


def test_bad_files_raise_value_error(keras_home, monkeypatch):
  _no_network(monkeypatch)
  monkeypatch.setattr(mnist, "SHA256", None)  # no checksum: the cached files are used
  d = keras_home / "datasets"
  d.mkdir(parents=True)
  (d / "text.npz").write_text("not a zip")
  with pytest.raises(ValueError, match="is not an .npz file"):
    mnist.load_data("text.npz")
  np.savez(d / "partial.npz", x_train=np.zeros((1, 28, 28), np.uint8))
  with pytest.raises(ValueError, match="lacks y_train, x_test, y_test"):
    mnist.load_data("partial.npz")
  np.savez(d / "objects.npz", x_train=np.array([{"a": 1}], dtype=object),
           y_train=np.zeros(1), x_test=np.zeros(1), y_test=np.zeros(1))
  with pytest.raises(ValueError, match="pickle"):
    mnist.load_data("objects.npz")
