"""The CIFAR batch files: Python 2 pickles of {b'data': uint8 (n, 3072),
b'labels' (or b'fine_labels'/b'coarse_labels'): [ints], b'batch_label': bytes,
b'filenames': [bytes]}, read with the restricted unpickler."""
import numpy as np

from tensorlet.keras.datasets import _safe_pickle

__all__ = ["load_batch"]


def load_batch(fpath, label_key="labels"):
  """(data uint8 (n, 3, 32, 32), labels list) of one batch file."""
  with open(fpath, "rb") as f:
    d = _safe_pickle.loads(f.read(), fpath)
  if not isinstance(d, dict):
    raise ValueError(f"{fpath} is not a CIFAR batch (a pickled dict).")
  d = {k.decode("utf8") if isinstance(k, bytes) else k: v for k, v in d.items()}
  data, labels = d.get("data"), d.get(label_key)
  if not isinstance(data, np.ndarray) or data.dtype != np.uint8 or data.ndim != 2 or \
      data.shape[1] != 3072:
    raise ValueError(f"{fpath} is not a CIFAR batch: 'data' must be a uint8 array of "
                     f"shape (n, 3072).")
  if not isinstance(labels, (list, np.ndarray)) or len(labels) != data.shape[0]:
    raise ValueError(f"{fpath} is not a CIFAR batch: '{label_key}' must list one label per "
                     f"image.")
  return data.reshape(data.shape[0], 3, 32, 32), labels
