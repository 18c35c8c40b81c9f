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


def _describe(v):
  if isinstance(v, (list, tuple)):
    return f"({type(v)} containing values of types {sorted({str(type(e)) for e in v})})"
  return str(type(v))


def _as_array(v):
  """NumPy value of a leaf; float64 arrays become floatx, as Keras' adapter does."""
  if isinstance(v, Tensor):
    v = v.numpy()
  try:
    a = np.asarray(v)
  except ValueError:  # a ragged nested list
    a = None
  if a is None or a.dtype == object:
    # Keras' message for data no adapter takes: generators, ragged lists, arbitrary
    # objects (tensorlet also has no generator adapter).
    raise ValueError(f"Failed to find data adapter that can handle input: {_describe(v)}")
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
      # A scalar, or the numbers of a list of ragged lists taken as separate inputs.
      # (`data` is the (x, y, sample_weight) tuple.)
      found = ", ".join(_describe(d) for d in data if d is not None)
      raise ValueError(f"Failed to find data adapter that can handle input: {found} "
                       f"(expected arrays with a batch dimension, got a scalar)")
  return arrays, (sizes.pop() if sizes else 0)


def check_batch_size(batch_size, what="batch_size"):
  """None or a positive int; Keras' ValueError for 0 and negatives."""
  if batch_size is None:
    return
  if isinstance(batch_size, bool) or not isinstance(batch_size, (int, np.integer)):
    raise TypeError(f"`{what}` must be an integer, got {batch_size!r} of type "
                    f"{type(batch_size).__name__}.")
  if batch_size <= 0:
    raise ValueError(f"Expected {what} to be positive. Received is {batch_size}.")


def check_steps(steps, what, allow_minus_one=False):
  """None or a positive int (-1, "run until the data ends", where allowed)."""
  if steps is None:
    return
  if isinstance(steps, bool) or not isinstance(steps, (int, np.integer)):
    raise TypeError(f"`{what}` must be an integer or None, got {steps!r} of type "
                    f"{type(steps).__name__}.")
  if steps <= 0 and not (allow_minus_one and steps == -1):
    raise ValueError(f"{what} must be positive, None{' or -1' if allow_minus_one else ''}. "
                     f"Received {steps}.")


def check_validation_data(validation_data):
  """A Dataset or an (x, y) / (x, y, sample_weight) tuple, checked before training starts
  (an error after the first epoch would leave the weights already changed)."""
  if validation_data is None or _is_dataset(validation_data):
    return
  if not isinstance(validation_data, (list, tuple)) or len(validation_data) not in (2, 3):
    raise ValueError(f"When passing a `validation_data` argument, it must contain either 2 "
                     f"items (x_val, y_val), or 3 items (x_val, y_val, val_sample_weights), or "
                     f"alternatively it could be a dataset. However we received "
                     f"`validation_data={validation_data!r}`"[:1000])
  _arrays(tuple(validation_data))


def check_validation_split(validation_split):
  """A number in [0, 1) (Keras only fails on these later, with unrelated messages)."""
  if validation_split is None:
    return
  if isinstance(validation_split, bool) or not isinstance(validation_split,
                                                          (int, float, np.number)):
    raise TypeError(f"`validation_split` must be a float, got {validation_split!r}.")
  if not 0 <= validation_split < 1:
    raise ValueError(f"`validation_split` must be in [0, 1), got {validation_split}.")


def train_validation_split(arrays, validation_split):
  """(train, validation) splits of (x, y, sample_weight): the last fraction validates."""
  check_validation_split(validation_split)
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
      if n == 0:
        raise ValueError("Expected input data to be non-empty: the dataset has no elements.")
      self.steps = steps if steps not in (None, -1) else (n if n >= 0 else None)
      return
    if x is None:
      raise ValueError("Expected input data `x`, got None.")
    check_batch_size(batch_size)
    self._arrays, self._n = _arrays(pack_x_y_sample_weight(x, y, sample_weight))
    if self._n == 0:
      raise ValueError("Expected input data to be non-empty: `x` holds 0 samples.")
    self._batch_size = batch_size or 32
    self._shuffle = shuffle
    if shuffle:
      # NOTE: Keras shuffles through tf.data, so tf.random.set_seed makes fit
      # reproducible: one op seed per handler, a new order every epoch.
      from tensorlet.ops.random_ops import get_seed
      self._seeds, self._epoch = get_seed(None), 0
    batches = math.ceil(self._n / self._batch_size)
    self.steps = batches if steps in (None, -1) else min(steps, batches)

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
