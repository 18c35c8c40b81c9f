"""tf.keras.utils: the progress bar, `to_categorical` and layer helpers."""
import numpy as np

__all__ = ["Progbar", "to_categorical", "set_random_seed", "plot_model", "model_to_dot"]


def __getattr__(name):
  if name == "Progbar":
    from tensorlet.keras.utils.progbar import Progbar
    return Progbar
  if name in ("plot_model", "model_to_dot"):
    from tensorlet.keras.utils import vis_utils
    return getattr(vis_utils, name)
  if name == "Sequence":
    from tensorlet.keras.utils.data_utils import Sequence
    return Sequence
  raise AttributeError(f"module 'tensorlet.keras.utils' has no attribute '{name}'")


def to_categorical(y, num_classes=None, dtype="float32"):
  """One-hot rows for integer class ids (a trailing axis of size 1 is dropped)."""
  y = np.asarray(y, dtype="int64")
  shape = y.shape
  if shape and shape[-1] == 1 and len(shape) > 1:
    shape = shape[:-1]
  y = y.reshape(-1)
  num_classes = num_classes or int(y.max()) + 1
  out = np.zeros((y.shape[0], num_classes), dtype=dtype)
  out[np.arange(y.shape[0]), y] = 1
  return out.reshape(shape + (num_classes,))


def set_random_seed(seed):
  """Seeds Python's, NumPy's and tensorlet's global generators."""
  import random
  from tensorlet import random as tl_random
  random.seed(seed)
  np.random.seed(seed)
  tl_random.set_seed(seed)
