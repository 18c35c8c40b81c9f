"""fashion_mnist, cifar10, cifar100, imdb, reuters and boston_housing on files written
here in Keras' cache layout (no download), and the restricted unpickler."""
import gzip
import hashlib
import io
import json
import os
import pickle
import tarfile

import numpy as np
import pytest

import tensorlet as tf
from tensorlet.keras.datasets import _download, _safe_pickle

datasets = tf.keras.datasets


@pytest.fixture
def cache(tmp_path, monkeypatch):
  monkeypatch.setenv("KERAS_HOME", str(tmp_path / "kh"))

  def refuse(*a, **k):
    raise AssertionError("no download expected")
  monkeypatch.setattr(_download.urllib.request, "urlopen", refuse)
  d = tmp_path / "kh" / "datasets"
  d.mkdir(parents=True)
  return d


def _trust(monkeypatch, module, path, attr="SHA256", algo=hashlib.sha256):
  with open(path, "rb") as f:
    monkeypatch.setattr(module, attr, algo(f.read()).hexdigest())


# ------------------------------------------------------------ fashion_mnist
def _idx(path, array, magic):
  header = magic.to_bytes(4, "big") + b"".join(
      int(n).to_bytes(4, "big") for n in array.shape)
  with gzip.open(path, "wb") as f:
    f.write(header + array.astype(np.uint8).tobytes())


def test_fashion_mnist(cache):
  rng = np.random.default_rng(0)
  d = cache / "fashion-mnist"
  d.mkdir()
  x_train = rng.integers(0, 256, (4, 28, 28), dtype=np.uint8)
  y_train = np.array([9, 0, 3, 1], np.uint8)
  x_test = rng.integers(0, 256, (2, 28, 28), dtype=np.uint8)
  y_test = np.array([5, 7], np.uint8)
  _idx(d / "train-labels-idx1-ubyte.gz", y_train, 2049)
  _idx(d / "train-images-idx3-ubyte.gz", x_train, 2051)
  _idx(d / "t10k-labels-idx1-ubyte.gz", y_test, 2049)
  _idx(d / "t10k-images-idx3-ubyte.gz", x_test, 2051)
  (a, b), (c, e) = datasets.fashion_mnist.load_data()
  for got, want in ((a, x_train), (b, y_train), (c, x_test), (e, y_test)):
    assert got.dtype == np.uint8
    np.testing.assert_array_equal(got, want)
  (d / "t10k-images-idx3-ubyte.gz").write_bytes(b"not gzip")
  with pytest.raises(ValueError, match="gzipped IDX"):
    datasets.fashion_mnist.load_data()


# ------------------------------------------------------------ CIFAR
def _batch(n, rng, labels):
  d = {b"batch_label": b"training batch 1 of 5",
       b"data": rng.integers(0, 256, (n, 3072), dtype=np.uint8),
       b"filenames": [f"img_{i}.png".encode() for i in range(n)]}
  d.update({k.encode(): [int(v) for v in rng.integers(0, top, n)] for k, top in labels})
  return d


def _tar(path, folder, files):
  with tarfile.open(path, "w:gz") as t:
    for name, obj in files.items():
      data = pickle.dumps(obj, protocol=4)  # (the real files: Python 2's protocol 2)
      info = tarfile.TarInfo(f"{folder}/{name}")
      info.size = len(data)
      t.addfile(info, io.BytesIO(data))


def test_cifar10(cache, monkeypatch):
  rng = np.random.default_rng(1)
  files = {f"data_batch_{i}": _batch(2, rng, [("labels", 10)]) for i in range(1, 6)}
  files["test_batch"] = _batch(3, rng, [("labels", 10)])
  _tar(cache / "cifar-10-batches-py.tar.gz", "cifar-10-batches-py", files)
  _trust(monkeypatch, datasets.cifar10, cache / "cifar-10-batches-py.tar.gz")
  (x_train, y_train), (x_test, y_test) = datasets.cifar10.load_data()
  assert x_train.shape == (10, 32, 32, 3) and x_train.dtype == np.uint8
  assert y_train.shape == (10, 1) and y_train.dtype == np.uint8
  assert x_test.shape == (3, 32, 32, 3) and y_test.shape == (3, 1)
  assert y_test.dtype == np.uint8
  first = files["data_batch_1"][b"data"][0].reshape(3, 32, 32).transpose(1, 2, 0)
  np.testing.assert_array_equal(x_train[0], first)
  np.testing.assert_array_equal(y_train[2:4, 0], files["data_batch_2"][b"labels"])
  assert (cache / "cifar-10-batches-py" / "test_batch").exists()  # extracted in place


def test_cifar100_label_modes(cache, monkeypatch):
  rng = np.random.default_rng(2)
  labels = [("fine_labels", 100), ("coarse_labels", 20)]
  files = {"train": _batch(4, rng, labels), "test": _batch(2, rng, labels)}
  _tar(cache / "cifar-100-python.tar.gz", "cifar-100-python", files)
  _trust(monkeypatch, datasets.cifar100, cache / "cifar-100-python.tar.gz")
  (x, y), (xt, yt) = datasets.cifar100.load_data()
  np.testing.assert_array_equal(y[:, 0], files["train"][b"fine_labels"])
  (_, y), (_, yt) = datasets.cifar100.load_data(label_mode="coarse")
  np.testing.assert_array_equal(yt[:, 0], files["test"][b"coarse_labels"])
  assert x.shape == (4, 32, 32, 3) and y.shape == (4, 1)
  with pytest.raises(ValueError, match="label_mode"):
    datasets.cifar100.load_data(label_mode="medium")


class _Evil:
  def __reduce__(self):
    return (os.system, ("echo pwned",))


def test_crafted_pickles_are_refused(tmp_path):
  with pytest.raises(pickle.UnpicklingError, match="refusing to load"):
    _safe_pickle.loads(pickle.dumps({b"data": _Evil()}), "evil")
  objects = {b"data": np.array([{"a": 1}], dtype=object), b"labels": [0]}
  with pytest.raises(pickle.UnpicklingError, match="object arrays"):
    _safe_pickle.loads(pickle.dumps(objects, protocol=4), "objects")
  good = {b"data": np.zeros((1, 3072), np.uint8), b"labels": [3]}
  back = _safe_pickle.loads(pickle.dumps(good, protocol=4), "good")
  assert back[b"labels"] == [3] and back[b"data"].shape == (1, 3072)
  from tensorlet.keras.datasets.cifar import load_batch
  path = tmp_path / "data_batch_1"
  path.write_bytes(pickle.dumps({b"data": np.zeros((2, 5), np.uint8), b"labels": [1, 2]}))
  with pytest.raises(ValueError, match=r"shape \(n, 3072\)"):
    load_batch(str(path))
  path.write_bytes(pickle.dumps([_Evil()]))
  with pytest.raises(pickle.UnpicklingError):
    load_batch(str(path))


# ------------------------------------------------------------ imdb, reuters
def _objects(seqs):
  out = np.empty(len(seqs), dtype=object)
  out[:] = seqs
  return out


def _perm(n, rng):
  idx = np.arange(n)
  rng.shuffle(idx)
  return idx


def test_imdb(cache, monkeypatch):
  x_train = [[1, 2, 3], [4, 5], [6, 7, 8, 9], [1]]
  x_test = [[2, 2], [9, 8, 7]]
  np.savez(cache / "imdb.npz", x_train=_objects(x_train), y_train=np.array([0, 1, 1, 0]),
           x_test=_objects(x_test), y_test=np.array([1, 0]))
  _trust(monkeypatch, datasets.imdb, cache / "imdb.npz")
  (a, b), (c, d) = datasets.imdb.load_data(num_words=100)
  rng = np.random.RandomState(113)
  p_train, p_test = _perm(4, rng), _perm(2, rng)
  assert a.dtype == object and c.dtype == object
  assert [list(s) for s in a] == [[1] + [w + 3 for w in x_train[i]] for i in p_train]
  np.testing.assert_array_equal(b, np.array([0, 1, 1, 0])[p_train])
  assert [list(s) for s in c] == [[1] + [w + 3 for w in x_test[i]] for i in p_test]
  # As Keras 2: without num_words the largest id (12) is also out of range (oov).
  (a, _), (c, _) = datasets.imdb.load_data()
  assert [list(s) for s in c] == [[1] + [w + 3 if w + 3 < 12 else 2 for w in x_test[i]]
                                  for i in p_test]
  # num_words=7 keeps ids < 7, skip_top=2 turns 0..1 into oov too (none here).
  (a, _), _ = datasets.imdb.load_data(num_words=7, skip_top=2)
  assert [list(s) for s in a] == [[w if 2 <= w < 7 else 2 for w in [1] + [v + 3 for v in
                                                                       x_train[i]]]
                                  for i in p_train]
  (a, b), (c, _) = datasets.imdb.load_data(maxlen=4, start_char=None, index_from=0,
                                           oov_char=None)
  kept = [x_train[i] for i in p_train if len(x_train[i]) < 4]
  assert [list(s) for s in a] == kept and len(b) == len(kept)
  with pytest.raises(ValueError, match="no sequence was kept"):
    datasets.imdb.load_data(maxlen=1)
  with pytest.raises(TypeError, match="Unrecognized keyword arguments"):
    datasets.imdb.load_data(bogus=1)
  words = {"the": 1, "and": 2}
  (cache / "imdb_word_index.json").write_text(json.dumps(words))
  _trust(monkeypatch, datasets.imdb, cache / "imdb_word_index.json", "WORD_INDEX_MD5",
         hashlib.md5)
  assert datasets.imdb.get_word_index() == words


def test_reuters(cache, monkeypatch):
  xs = [[1, 2], [3, 4, 5], [6], [7, 8], [9, 10, 11]]
  ys = np.array([3, 4, 3, 1, 0])
  np.savez(cache / "reuters.npz", x=_objects(xs), y=ys)
  _trust(monkeypatch, datasets.reuters, cache / "reuters.npz")
  (a, b), (c, d) = datasets.reuters.load_data(test_split=0.4, num_words=20)
  p = _perm(5, np.random.RandomState(113))
  assert len(a) == 3 and len(c) == 2
  assert [list(s) for s in a] + [list(s) for s in c] == [[1] + [w + 3 for w in xs[i]]
                                                         for i in p]
  np.testing.assert_array_equal(np.concatenate([b, d]), ys[p])
  assert len(datasets.reuters.get_label_names()) == 46
  (cache / "reuters_word_index.json").write_text('{"said": 1}')
  _trust(monkeypatch, datasets.reuters, cache / "reuters_word_index.json",
         "WORD_INDEX_MD5", hashlib.md5)
  assert datasets.reuters.get_word_index() == {"said": 1}


def test_sequence_files_holding_other_objects_are_refused(cache, monkeypatch):
  np.savez(cache / "reuters.npz", x=_objects([{"not": "a list"}]), y=np.array([1]))
  _trust(monkeypatch, datasets.reuters, cache / "reuters.npz")
  with pytest.raises(ValueError, match="lists of word ids"):
    datasets.reuters.load_data()


def test_boston_housing(cache, monkeypatch):
  rng = np.random.default_rng(3)
  x, y = rng.normal(size=(10, 13)), rng.normal(size=10)
  np.savez(cache / "boston_housing.npz", x=x, y=y)
  _trust(monkeypatch, datasets.boston_housing, cache / "boston_housing.npz")
  (a, b), (c, d) = datasets.boston_housing.load_data()
  p = _perm(10, np.random.RandomState(113))
  np.testing.assert_array_equal(a, x[p][:8])
  np.testing.assert_array_equal(d, y[p][8:])
  with pytest.raises(ValueError, match="test_split"):
    datasets.boston_housing.load_data(test_split=1.0)


def test_cache_dir_argument(tmp_path, monkeypatch):
  def refuse(*a, **k):
    raise AssertionError("no download expected")
  monkeypatch.setattr(_download.urllib.request, "urlopen", refuse)
  d = tmp_path / "mine" / "datasets"
  d.mkdir(parents=True)
  np.savez(d / "boston_housing.npz", x=np.zeros((5, 13)), y=np.zeros(5))
  _trust(monkeypatch, datasets.boston_housing, d / "boston_housing.npz")
  (a, _), _ = datasets.boston_housing.load_data(cache_dir=str(tmp_path / "mine"))
  assert a.shape == (4, 13)
