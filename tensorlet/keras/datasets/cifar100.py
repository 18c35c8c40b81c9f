"""tf.keras.datasets.cifar100: 32x32 colour images of 100 classes in 20 superclasses
(50000 train, 10000 test): `~/.keras/datasets/cifar-100-python.tar.gz` and its
extracted folder."""
import os

import numpy as np

from tensorlet.keras import backend
from tensorlet.keras.datasets._download import dataset_file
from tensorlet.keras.datasets.cifar import load_batch

__all__ = ["load_data"]

ORIGIN = "https://www.cs.toronto.edu/~kriz/cifar-100-python.tar.gz"
SHA256 = "85cd44d02ba6437773c5bbd22e183051d648de2e7d6b014e1ef29b855ba677a7"


def load_data(label_mode="fine", cache_dir=None):
  """((x_train, y_train), (x_test, y_test)): uint8 images (n, 32, 32, 3) and labels
  (n, 1): the 100 fine classes, or the 20 coarse ones with label_mode="coarse"."""
  if label_mode not in ("fine", "coarse"):
    raise ValueError(f'`label_mode` must be one of `"fine"`, `"coarse"`. Received: '
                     f'label_mode={label_mode}.')
  path = dataset_file("cifar-100-python", ORIGIN, untar=True, file_hash=SHA256,
                      cache_dir=cache_dir)
  key = label_mode + "_labels"
  x_train, y_train = load_batch(os.path.join(path, "train"), label_key=key)
  x_test, y_test = load_batch(os.path.join(path, "test"), label_key=key)
  y_train = np.reshape(np.asarray(y_train), (len(y_train), 1))
  y_test = np.reshape(np.asarray(y_test), (len(y_test), 1))
  if backend.image_data_format() == "channels_last":
    x_train = x_train.transpose(0, 2, 3, 1)
    x_test = x_test.transpose(0, 2, 3, 1)
  return (x_train, y_train), (x_test, y_test)
