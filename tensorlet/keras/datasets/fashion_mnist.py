"""tf.keras.datasets.fashion_mnist: 28x28 grayscale images of 10 kinds of clothing
(60000 train, 10000 test), kept as Keras keeps them: four gzipped IDX files in
`~/.keras/datasets/fashion-mnist/`."""
import gzip
import os

import numpy as np

from tensorlet.keras.datasets._download import dataset_file

__all__ = ["load_data"]

ORIGIN = "https://storage.googleapis.com/tensorflow/tf-keras-datasets/"
FILES = ("train-labels-idx1-ubyte.gz", "train-images-idx3-ubyte.gz",
         "t10k-labels-idx1-ubyte.gz", "t10k-images-idx3-ubyte.gz")


def _read(path, offset):
  try:
    with gzip.open(path, "rb") as f:
      return np.frombuffer(f.read(), np.uint8, offset=offset)
  except (OSError, EOFError, ValueError) as e:
    raise ValueError(f"{path} is not a gzipped IDX file: {e}") from None


def _images(path, n):
  flat = _read(path, 16)
  if flat.size != n * 28 * 28:
    raise ValueError(f"{path} holds {flat.size} bytes of images; {n} labels need "
                     f"{n * 28 * 28}.")
  return flat.reshape(n, 28, 28)


def load_data(cache_dir=None):
  """((x_train, y_train), (x_test, y_test)): uint8 images (n, 28, 28) and uint8 labels
  (n,), read from Keras' cache (downloaded there first if missing)."""
  subdir = os.path.join("datasets", "fashion-mnist")
  paths = [dataset_file(name, ORIGIN + name, cache_dir=cache_dir, cache_subdir=subdir)
           for name in FILES]
  y_train = _read(paths[0], 8)
  x_train = _images(paths[1], len(y_train))
  y_test = _read(paths[2], 8)
  x_test = _images(paths[3], len(y_test))
  return (x_train, y_train), (x_test, y_test)
