"""tf.keras.datasets.cifar10: 32x32 colour images of 10 classes (50000 train, 10000
test): `~/.keras/datasets/cifar-10-batches-py.tar.gz` and its extracted folder."""
import os

import numpy as np

from tensorlet.keras import backend
from tensorlet.keras.datasets._download import dataset_file
from tensorlet.keras.datasets.cifar import load_batch

__all__ = ["load_data"]

ORIGIN = "https://www.cs.toronto.edu/~kriz/cifar-10-python.tar.gz"
SHA256 = "6d958be074577803d12ecdefd02955f39262c83c16fe9348329d7fe0b5c001ce"


def load_data(cache_dir=None):
  """((x_train, y_train), (x_test, y_test)): uint8 images (n, 32, 32, 3) (channels
  first under that image data format) and uint8 labels (n, 1)."""
  path = dataset_file("cifar-10-batches-py", ORIGIN, untar=True, file_hash=SHA256,
                      cache_dir=cache_dir)
  xs, ys = [], []
  for i in range(1, 6):
    data, labels = load_batch(os.path.join(path, f"data_batch_{i}"))
    xs.append(data)
    ys.append(np.asarray(labels, dtype="uint8"))
  x_train, y_train = np.concatenate(xs), np.concatenate(ys)
  x_test, y_test = load_batch(os.path.join(path, "test_batch"))
  y_train = np.reshape(y_train, (len(y_train), 1))
  y_test = np.reshape(np.asarray(y_test, dtype="uint8"), (len(y_test), 1))
  if backend.image_data_format() == "channels_last":
    x_train = x_train.transpose(0, 2, 3, 1)
    x_test = x_test.transpose(0, 2, 3, 1)
  return (x_train, y_train), (x_test.astype(x_train.dtype), y_test)
