"""tf.keras.datasets.boston_housing: 506 houses, 13 features each, and their median
value (in k$), from `~/.keras/datasets/boston_housing.npz`."""

import numpy as np

from tensorlet.keras.datasets import _safe_pickle, _sequences
from tensorlet.keras.datasets._download import dataset_file

__all__ = ["load_data"]

ORIGIN = "https://storage.googleapis.com/tensorflow/tf-keras-datasets/boston_housing.npz"
SHA256 = "f553886a1f8d56431e820c5b82552d9d95cfcb96d1e678153f8839538947dff5"


def load_data(path="boston_housing.npz", test_split=0.2, seed=113, cache_dir=None):
  """((x_train, y_train), (x_test, y_test)) as float64 arrays; the last `test_split`
  of the shuffled rows are the test set."""
  if not 0 <= test_split < 1:
    raise ValueError(f"`test_split` must be in [0, 1). Received: test_split={test_split}")
  path = dataset_file(path, ORIGIN, file_hash=SHA256, cache_dir=cache_dir)
  f = _safe_pickle.load_npz(path, ("x", "y"))
  x, y = f["x"], f["y"]
  x, y = _sequences.shuffled(np.random.RandomState(seed), x, y)
  n = int(len(x) * (1 - test_split))
  return (np.array(x[:n]), np.array(y[:n])), (np.array(x[n:]), np.array(y[n:]))
