"""tf.keras.datasets.mnist: the 28x28 handwritten digits (60000 train, 10000 test)."""
import zipfile

import numpy as np

from tensorlet.keras.datasets._download import dataset_file

__all__ = ["load_data"]

ORIGIN = "https://storage.googleapis.com/tensorflow/tf-keras-datasets/mnist.npz"
SHA256 = "731c5ac602752760c8e48fbffcf8c3b850d9dc2a2aedcf2cc48468fc17b673d1"
_KEYS = ("x_train", "y_train", "x_test", "y_test")


def load_data(path="mnist.npz", cache_dir=None):
  """((x_train, y_train), (x_test, y_test)) as uint8 NumPy arrays, read from
  `~/.keras/datasets/<path>` (downloaded there first if missing or not the
  published file).

  Raises:
    ValueError: the file is not an .npz holding x_train, y_train, x_test and y_test.
  """
  fpath = dataset_file(path, ORIGIN, file_hash=SHA256, cache_dir=cache_dir)
  if not zipfile.is_zipfile(fpath):
    raise ValueError(f"{fpath} is not an .npz file (a zip archive of .npy arrays).")
  try:
    # NOTE: allow_pickle=False: loading a data file never runs code from it.
    with np.load(fpath, allow_pickle=False) as f:
      missing = [k for k in _KEYS if k not in f.files]
      if missing:
        raise ValueError(f"{fpath} is not an MNIST file: it lacks {', '.join(missing)}.")
      x_train, y_train, x_test, y_test = (f[k] for k in _KEYS)
  except (zipfile.BadZipFile, OSError, EOFError) as e:
    raise ValueError(f"{fpath} is not a readable .npz file: {e}") from None
  return (x_train, y_train), (x_test, y_test)
