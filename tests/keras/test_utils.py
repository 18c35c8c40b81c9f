"""tf.keras.utils (and keras.preprocessing): sequences, images, datasets from
directories and arrays, normalize, to_categorical, Sequence, set_random_seed."""
import os
import sys

import numpy as np
import pytest

import tensorlet as tf

U = tf.keras.utils


def test_pad_sequences():
  seqs = [[1, 2, 3], [4], []]
  np.testing.assert_array_equal(U.pad_sequences(seqs), [[1, 2, 3], [0, 0, 4], [0, 0, 0]])
  np.testing.assert_array_equal(
      U.pad_sequences(seqs, maxlen=2, padding="post", truncating="post", value=-1),
      [[1, 2], [4, -1], [-1, -1]])
  np.testing.assert_array_equal(U.pad_sequences(seqs, maxlen=2), [[2, 3], [0, 4], [0, 0]])
  out = U.pad_sequences([[[1, 2], [3, 4]], [[5, 6]]], dtype="float32")
  assert out.shape == (2, 2, 2) and out.dtype == np.float32
  np.testing.assert_array_equal(out[1], [[0, 0], [5, 6]])
  texts = U.pad_sequences([["a", "b"], ["c"]], dtype=object, value="<pad>")
  assert texts.tolist() == [["a", "b"], ["<pad>", "c"]]
  assert tf.keras.preprocessing.sequence.pad_sequences is U.pad_sequences
  with pytest.raises(ValueError, match="not compatible with `value`"):
    U.pad_sequences([[1]], value="x")
  with pytest.raises(ValueError, match="non-iterable"):
    U.pad_sequences([1, 2])
  with pytest.raises(ValueError, match="Padding type"):
    U.pad_sequences([[1]], padding="middle")
  with pytest.raises(ValueError, match="different from expected shape"):
    U.pad_sequences([[[1, 2]], [[1, 2, 3]]])


def test_normalize_and_to_categorical():
  np.testing.assert_allclose(U.normalize(np.array([[3.0, 4.0], [0.0, 0.0]])),
                             [[0.6, 0.8], [0.0, 0.0]])
  np.testing.assert_allclose(U.normalize(np.array([[1.0, 1.0], [3.0, 1.0]]), axis=0, order=1),
                             [[0.25, 0.5], [0.75, 0.5]])
  np.testing.assert_array_equal(U.to_categorical([[1], [0]], 3), [[0, 1, 0], [1, 0, 0]])


def test_set_random_seed_replays_all_generators():
  import random
  U.set_random_seed(7)
  first = (random.random(), np.random.rand(), tf.random.uniform([2]).numpy())
  U.set_random_seed(7)
  second = (random.random(), np.random.rand(), tf.random.uniform([2]).numpy())
  assert first[:2] == second[:2]
  np.testing.assert_array_equal(first[2], second[2])
  with pytest.raises(ValueError, match="integer"):
    U.set_random_seed(1.5)


def test_sequence():
  class Batches(U.Sequence):
    def __init__(self):
      self.epochs = 0

    def __len__(self):
      return 3

    def __getitem__(self, i):
      return np.full((2, 1), i), np.full((2,), i)

    def on_epoch_end(self):
      self.epochs += 1
  s = Batches()
  assert [int(x[0, 0]) for x, _ in s] == [0, 1, 2]
  s.on_epoch_end()
  assert s.epochs == 1
  with pytest.raises(NotImplementedError):
    len(U.Sequence())
  with pytest.raises(NotImplementedError):
    U.Sequence()[0]


# ------------------------------------------------------------------ images
PIL = pytest.importorskip("PIL.Image")


def test_image_array_round_trips(tmp_path):
  x = np.arange(2 * 3 * 3, dtype="float32").reshape(2, 3, 3) * 10
  img = U.array_to_img(x, scale=False)
  assert img.mode == "RGB" and img.size == (3, 2)
  np.testing.assert_array_equal(U.img_to_array(img), x)
  assert U.img_to_array(img).dtype == np.float32
  scaled = U.img_to_array(U.array_to_img(x))
  assert scaled.min() == 0 and scaled.max() == 255
  gray = U.array_to_img(np.ones((4, 5, 1)) * 3, scale=False)
  assert gray.mode == "L" and U.img_to_array(gray).shape == (4, 5, 1)
  assert U.img_to_array(img, data_format="channels_first").shape == (3, 2, 3)
  path = str(tmp_path / "x.png")
  U.save_img(path, x, scale=False)
  loaded = U.load_img(path)
  np.testing.assert_array_equal(U.img_to_array(loaded), x)
  assert U.load_img(path, color_mode="grayscale").mode == "L"
  assert U.load_img(path, color_mode="rgba").mode == "RGBA"
  assert U.load_img(path, target_size=(4, 6)).size == (6, 4)
  assert tf.keras.preprocessing.image.load_img is U.load_img
  with pytest.raises(ValueError, match="rank 3"):
    U.array_to_img(np.zeros((2, 2)))
  with pytest.raises(ValueError, match="channel number"):
    U.array_to_img(np.zeros((2, 2, 2)))
  with pytest.raises(ValueError, match="color_mode"):
    U.load_img(path, color_mode="cmyk")


def test_pillow_missing_names_the_extra(monkeypatch):
  monkeypatch.setitem(sys.modules, "PIL", None)
  with pytest.raises(ImportError, match=r"tensorlet\[image\]"):
    U.load_img("whatever.png")


def test_bilinear_resize_matches_tf_formula():
  from tensorlet.keras.utils.image_utils import resize
  x = np.array([[0.0, 10.0], [20.0, 30.0]], "float32")[:, :, None]
  # (2, 2) -> (4, 4): sources (i + 0.5) / 2 - 0.5 = -0.25, 0.25, 0.75, 1.25, clamped.
  row = [0.0, 2.5, 7.5, 10.0]
  want = np.array([row, [5 + v for v in row], [15 + v for v in row], [20 + v for v in row]])
  np.testing.assert_allclose(resize(x, (4, 4))[:, :, 0], want)
  np.testing.assert_array_equal(resize(x, (4, 4), "nearest")[:, :, 0],
                                [[0, 0, 10, 10], [0, 0, 10, 10], [20, 20, 30, 30],
                                 [20, 20, 30, 30]])
  with pytest.raises(NotImplementedError, match="bicubic"):
    resize(x, (3, 3), "bicubic")


@pytest.fixture
def image_dir(tmp_path, capsys):
  rng = np.random.default_rng(0)
  root = tmp_path / "images"
  for c in ("cat", "dog"):
    (root / c / "nested").mkdir(parents=True)
    for i in range(3):
      PIL.fromarray(rng.integers(0, 256, (6, 8, 3), dtype=np.uint8)).save(root / c / f"{i}.png")
    PIL.fromarray(rng.integers(0, 256, (6, 8, 3), dtype=np.uint8)).save(
        root / c / "nested" / "n.jpg")
    (root / c / "notes.txt").write_text("not an image")
  (root / ".hidden").mkdir()
  return root


def _listing(root):
  files = []
  for c in ("cat", "dog"):
    files += [os.path.join(str(root), c, f) for f in ("0.png", "1.png", "2.png")]
    files.append(os.path.join(str(root), c, "nested", "n.jpg"))
  return files


def test_image_dataset_from_directory(image_dir, capsys):
  ds = U.image_dataset_from_directory(str(image_dir), image_size=(6, 8), batch_size=3, seed=5,
                                      shuffle=False)
  assert "Found 8 files belonging to 2 classes." in capsys.readouterr().out
  assert ds.class_names == ["cat", "dog"]
  assert ds.file_paths == _listing(image_dir)
  batches = list(ds)
  assert [tuple(x.shape) for x, _ in batches] == [(3, 6, 8, 3), (3, 6, 8, 3), (2, 6, 8, 3)]
  x0, y0 = batches[0]
  assert x0.dtype == tf.float32 and y0.dtype == tf.int32
  want = np.asarray(PIL.open(ds.file_paths[0]).convert("RGB"), "float32")
  np.testing.assert_array_equal(x0.numpy()[0], want)
  labels = np.concatenate([y.numpy() for _, y in batches])
  np.testing.assert_array_equal(labels, [0, 0, 0, 0, 1, 1, 1, 1])


def test_image_dataset_shuffle_split_and_label_modes(image_dir):
  ds = U.image_dataset_from_directory(str(image_dir), image_size=(3, 4), seed=11,
                                      label_mode="categorical", color_mode="grayscale")
  order = _listing(image_dir)
  np.random.RandomState(11).shuffle(order)
  assert ds.file_paths == order  # Keras' seeded shuffle of the file list
  for x, y in ds:
    assert tuple(x.shape[1:]) == (3, 4, 1) and y.dtype == tf.float32
    assert set(np.sum(y.numpy(), axis=1)) == {1.0}
  train, val = U.image_dataset_from_directory(str(image_dir), image_size=(3, 4), seed=11,
                                              validation_split=0.25, subset="both",
                                              label_mode="binary")
  assert train.file_paths == order[:6] and val.file_paths == order[6:]
  _, y = next(iter(val))
  assert y.shape == (2, 1) and y.dtype == tf.float32
  nearest = U.image_dataset_from_directory(str(image_dir), image_size=(3, 4), seed=1,
                                           interpolation="nearest", labels=None)
  x = next(iter(nearest))
  assert x.dtype == tf.uint8 and x.shape == (8, 3, 4, 3)
  given = U.image_dataset_from_directory(str(image_dir), image_size=(3, 4), shuffle=False,
                                         labels=[5, 6, 7, 8, 9, 10, 11, 12])
  np.testing.assert_array_equal(np.concatenate([y.numpy() for _, y in given]), range(5, 13))


def test_image_dataset_errors(image_dir, tmp_path):
  d = str(image_dir)
  with pytest.raises(ValueError, match="must provide a `seed`"):
    U.image_dataset_from_directory(d, validation_split=0.2, subset="training")
  with pytest.raises(ValueError, match="If `subset` is set"):
    U.image_dataset_from_directory(d, subset="training", seed=1)
  with pytest.raises(ValueError, match="label_mode"):
    U.image_dataset_from_directory(d, label_mode="sparse")
  with pytest.raises(ValueError, match="color_mode"):
    U.image_dataset_from_directory(d, color_mode="cmyk")
  with pytest.raises(ValueError, match="did not match the names of the subdirectories"):
    U.image_dataset_from_directory(d, class_names=["cat", "cow"])
  with pytest.raises(ValueError, match="match the number of files"):
    U.image_dataset_from_directory(d, labels=[0, 1])
  with pytest.raises(TypeError, match="Unknown keywords"):
    U.image_dataset_from_directory(d, bogus=1)
  (tmp_path / "empty" / "a").mkdir(parents=True)
  with pytest.raises(ValueError, match="No image files found"):
    U.image_dataset_from_directory(str(tmp_path / "empty"))
  with pytest.raises(ValueError, match="exactly 2"):
    (tmp_path / "empty" / "b").mkdir()
    (tmp_path / "empty" / "c").mkdir()
    U.image_dataset_from_directory(str(tmp_path / "empty"), label_mode="binary")


def test_text_dataset_from_directory(tmp_path):
  for c, texts in (("neg", ["bad movie", "awful"]), ("pos", ["great", "loved it", "fine"])):
    (tmp_path / c).mkdir()
    for i, t in enumerate(texts):
      (tmp_path / c / f"{i}.txt").write_text(t)
  ds = U.text_dataset_from_directory(str(tmp_path), batch_size=2, shuffle=False,
                                     max_length=5)
  assert ds.class_names == ["neg", "pos"]
  texts, labels = zip(*[(x.numpy().tolist(), y.numpy().tolist()) for x, y in ds])
  assert sum(texts, []) == [b"bad m", b"awful", b"great", b"loved", b"fine"]
  assert sum(labels, []) == [0, 0, 1, 1, 1]
  only = U.text_dataset_from_directory(str(tmp_path), labels=None, batch_size=None,
                                       shuffle=False)
  assert [t.numpy() for t in only][0] == b"bad movie"


def test_timeseries_dataset_from_array():
  data = np.arange(20).reshape(10, 2)
  targets = np.arange(10) * 10
  ds = U.timeseries_dataset_from_array(data, targets, sequence_length=3, sequence_stride=2,
                                       sampling_rate=2, batch_size=2, start_index=1)
  got = [(x.numpy(), y.numpy()) for x, y in ds]
  # windows start at 1 + 0, 1 + 2 (num_seqs = 9 - 4 = 5 -> starts 0, 2, 4)
  starts = [1, 3, 5]
  want_x = [data[[s, s + 2, s + 4]] for s in starts]
  np.testing.assert_array_equal(np.concatenate([x for x, _ in got]), want_x)
  np.testing.assert_array_equal(np.concatenate([y for _, y in got]), targets[starts])
  assert [len(x) for x, _ in got] == [2, 1]
  only = U.timeseries_dataset_from_array(data, None, 4, batch_size=None)
  assert len([x for x in only]) == 7
  shuffled = U.timeseries_dataset_from_array(data, targets, 2, shuffle=True, seed=3,
                                             batch_size=None)
  assert sorted(int(y.numpy()) for _, y in shuffled) == list(targets[:9])
  with pytest.raises(ValueError, match="sampling_rate"):
    U.timeseries_dataset_from_array(data, None, 2, sampling_rate=0)
  with pytest.raises(ValueError, match="start_index"):
    U.timeseries_dataset_from_array(data, None, 2, start_index=20)
  with pytest.raises(ValueError, match="end_index"):
    U.timeseries_dataset_from_array(data, None, 2, start_index=3, end_index=2)
