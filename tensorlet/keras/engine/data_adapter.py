"""Batches for fit/evaluate/predict from NumPy arrays, tensors or a tf.data Dataset."""
import math

import numpy as np

from tensorlet import _nest as nest
from tensorlet.keras import backend
from tensorlet.tensor import Tensor, convert_to_tensor

__all__ = ["unpack_x_y_sample_weight", "pack_x_y_sample_weight", "DataHandler",
           "train_validation_split"]


def unpack_x_y_sample_weight(data):
  """(x, y, sample_weight) from a batch: x, (x,), (x, y) or (x, y, sample_weight)."""
  if isinstance(data, list):
    data = tuple(data)
  if not isinstance(data, tuple):
    return data, None, None
  if len(data) == 1:
    return data[0], None, None
  if len(data) == 2:
    return data[0], data[1], None
  if len(data) == 3:
    return data
  raise ValueError(f"Data is expected to be in format `x`, `(x,)`, `(x, y)`, or "
                   f"`(x, y, sample_weight)`, found: {data}")


def pack_x_y_sample_weight(x, y=None, sample_weight=None):
  if y is None:
    return (x,)
  return (x, y) if sample_weight is None else (x, y, sample_weight)


def _is_dataset(x):
  from tensorlet.data.dataset import DatasetV2
  return isinstance(x, DatasetV2)


def _as_array(v):
  """NumPy value of a leaf; float64 arrays become floatx, as Keras' adapter does."""
  if isinstance(v, Tensor):
    v = v.numpy()
  a = np.asarray(v)
  if a.dtype.kind == "f" and a.dtype != np.dtype(backend.floatx()):
    a = a.astype(backend.floatx())
  return a


def _arrays(data):
  arrays = nest.map_structure(lambda v: None if v is None else _as_array(v), data)
  sizes = {a.shape[0] for a in nest.flatten(arrays) if a is not None and a.ndim}
  if len(sizes) > 1:
    raise ValueError(f"Data cardinality is ambiguous: the inputs hold {sorted(sizes)} "
                     f"samples. Make sure all arrays contain the same number of samples.")
  for a in nest.flatten(arrays):
    if a is not None and not a.ndim:
      raise ValueError("Expected arrays with a batch dimension, got a scalar.")
  return arrays, (sizes.pop() if sizes else 0)


def train_validation_split(arrays, validation_split):
  """(train, validation) splits of (x, y, sample_weight): the last fraction validates."""
  if any(_is_dataset(a) for a in arrays):
    raise ValueError("`validation_split` is only supported for Tensors or NumPy arrays, "
                     "found a tf.data.Dataset.")
  arrays, n = _arrays(arrays)
  split_at = int(math.floor(n * (1.0 - validation_split)))
  if split_at == 0 or split_at == n:
    raise ValueError(f"Training data contains {n} samples, which is not sufficient to split "
                     f"it into a validation and training set as specified by "
                     f"`validation_split={validation_split}`. Either provide more data, or a "
                     f"different value for the `validation_split` argument.")
  cut = lambda lo, hi: nest.map_structure(  # noqa: E731
      lambda a: None if a is None else a[lo:hi], arrays)
  return cut(0, split_at), cut(split_at, n)


class DataHandler:
  """Iterates the batches of one epoch; `steps` is the count per epoch (None: unknown)."""

  def __init__(self, x, y=None, sample_weight=None, batch_size=None, steps=None,
               shuffle=False):
    self._dataset = x if _is_dataset(x) else None
    if self._dataset is not None:
      if y is not None:
        raise ValueError("`y` argument is not supported when using dataset as input.")
      if batch_size is not None:
        raise ValueError("The `batch_size` argument must not be specified when using a "
                         "tf.data.Dataset as input.")
      n = int(self._dataset.cardinality())
      self.steps = steps if steps is not None else (n if n >= 0 else None)
      return
    if x is None:
      raise ValueError("Expected input data `x`, got None.")
    self._arrays, self._n = _arrays(pack_x_y_sample_weight(x, y, sample_weight))
    self._batch_size = batch_size or 32
    self._shuffle = shuffle
    if shuffle:
      # NOTE: Keras shuffles through tf.data, so tf.random.set_seed makes fit
      # reproducible: one op seed per handler, a new order every epoch.
      from tensorlet.ops.random_ops import get_seed
      self._seeds, self._epoch = get_seed(None), 0
    batches = math.ceil(self._n / self._batch_size)
    self.steps = batches if steps is None else min(steps, batches)

  def _order(self):
    self._epoch += 1
    seeds = self._seeds
    rng = np.random.default_rng([*seeds, self._epoch]) if seeds != (0, 0) else \
        np.random.default_rng()
    return rng.permutation(self._n)

  def __iter__(self):
    """(step, batch) pairs of one epoch; batches are tuples of tensors."""
    if self._dataset is not None:
      for step, batch in enumerate(self._dataset):
        if self.steps is not None and step >= self.steps:
          return
        yield step, batch if isinstance(batch, tuple) else (batch,)
      return
    order = self._order() if self._shuffle else None
    for step in range(self.steps):
      lo = step * self._batch_size
      idx = slice(lo, lo + self._batch_size) if order is None else \
          order[lo:lo + self._batch_size]
      yield step, nest.map_structure(
          lambda a: None if a is None else convert_to_tensor(a[idx]), self._arrays)
