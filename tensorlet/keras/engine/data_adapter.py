"""Batches for fit/evaluate/predict from NumPy arrays, tensors, a tf.data Dataset, a
Python generator or a keras.utils.Sequence.

As Keras 2's DataHandler: arrays are one stream of batches over `epochs`
passes (a new shuffle each pass), so a `steps_per_epoch` smaller than a pass
continues where the last epoch stopped; a Dataset is iterated afresh each epoch
unless `steps` asks for a different number of batches than it holds; a
generator is one stream; a Sequence is indexed afresh each epoch (in a new
order with `shuffle`) and told `on_epoch_end`. Data that ends before the
steps asked for ends training with Keras' warning.
"""
import math
import warnings

import numpy as np

from tensorlet import _nest as nest
from tensorlet.keras import backend
from tensorlet.composite_tensor import CompositeTensor
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
  # (a tf.distribute dataset: batches already split across the replicas)
  return isinstance(x, DatasetV2) or hasattr(x, "_tl_distributed_dataset")


def _describe(v):
  if isinstance(v, (list, tuple)):
    return f"({type(v)} containing values of types {sorted({str(type(e)) for e in v})})"
  return str(type(v))


def _as_array(v):
  """NumPy value of a leaf; float64 arrays become floatx, as Keras' adapter does.
  Sparse and ragged tensors stay as they are (batches are taken with their own ops)."""
  if isinstance(v, CompositeTensor):
    return v
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


def _take(a, idx):
  """Rows `idx` (a slice or an index array) of an array or a composite tensor."""
  if not isinstance(a, CompositeTensor):
    return convert_to_tensor(a[idx])
  n = a.shape[0]
  rows = np.arange(n)[idx]
  if hasattr(a, "dense_shape"):  # a SparseTensor: its entries in the rows taken, renumbered
    from tensorlet.sparse import SparseTensor
    ind, val = a.indices.numpy(), a.values.numpy()
    pos = np.full(n, -1, np.int64)
    pos[rows] = np.arange(len(rows))
    new_row = pos[ind[:, 0]]
    keep = np.flatnonzero(new_row >= 0)
    keep = keep[np.argsort(new_row[keep], kind="stable")]
    new_ind = np.concatenate([new_row[keep][:, None], ind[keep, 1:]], 1)
    shape = a.dense_shape.numpy().copy()
    shape[0] = len(rows)
    return SparseTensor(new_ind, val[keep], shape)
  from tensorlet.ops import array_ops
  return array_ops.gather(a, convert_to_tensor(rows.astype(np.int64)))


def _ndim(a):
  return a.shape.rank if isinstance(a, CompositeTensor) else a.ndim


def _arrays(data):
  arrays = nest.map_structure(lambda v: None if v is None else _as_array(v), data)
  sizes = {a.shape[0] for a in nest.flatten(arrays) if a is not None and _ndim(a)}
  if len(sizes) > 1:
    raise ValueError(f"Data cardinality is ambiguous: the inputs hold {sorted(sizes)} "
                     f"samples. Make sure all arrays contain the same number of samples.")
  for a in nest.flatten(arrays):
    if a is not None and not _ndim(a):
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
  """A Dataset, generator, Sequence or an (x, y) / (x, y, sample_weight) tuple, checked
  before training starts (an error after the first epoch would leave the weights
  already changed)."""
  if validation_data is None or _is_dataset(validation_data) or \
      _is_generator(validation_data) or _is_sequence(validation_data):
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
  if any(_is_dataset(a) or _is_generator(a) or _is_sequence(a) for a in arrays) or any(
      isinstance(a, CompositeTensor) for a in nest.flatten(arrays)):  # as Keras 2
    raise ValueError(f"`validation_split` is only supported for Tensors or NumPy arrays, "
                     f"found following types in the input: {[type(a) for a in arrays]}")
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


def _is_generator(x):
  from tensorlet.keras.utils.data_utils import Sequence
  return hasattr(x, "__next__") and hasattr(x, "__iter__") and not isinstance(x, Sequence)


def _is_sequence(x):
  from tensorlet.keras.utils.data_utils import Sequence
  return isinstance(x, Sequence)


def _tensors(batch):
  """A batch from Python code as a tuple of tensors (float64 arrays become floatx)."""
  if isinstance(batch, list):
    batch = tuple(batch)
  if not isinstance(batch, tuple):
    batch = (batch,)
  return nest.map_structure(
      lambda v: None if v is None else (v if isinstance(v, Tensor) else
                                        convert_to_tensor(_as_array(v))), batch)


class _Arrays:
  """One stream of batches over `passes` passes of the arrays."""

  recreate = False

  def __init__(self, x, y, sample_weight, batch_size, shuffle, passes):
    check_batch_size(batch_size)
    self._arrays, self._n = _arrays(pack_x_y_sample_weight(x, y, sample_weight))
    if self._n == 0:
      raise ValueError("Expected input data to be non-empty: `x` holds 0 samples.")
    self._batch_size = batch_size or 32
    self._shuffle, self._passes, self._pass = shuffle, passes, 0
    if shuffle:
      # NOTE: Keras shuffles through tf.data, so tf.random.set_seed makes fit
      # reproducible: one op seed per handler, a new order every pass.
      from tensorlet.ops.random_ops import get_seed
      self._seeds = get_seed(None)
    self.size = math.ceil(self._n / self._batch_size)

  def _order(self):
    self._pass += 1
    seeds = self._seeds
    rng = np.random.default_rng([*seeds, self._pass]) if seeds != (0, 0) else \
        np.random.default_rng()
    return rng.permutation(self._n)

  def iterator(self):
    for _ in range(self._passes):
      order = self._order() if self._shuffle else None
      for step in range(self.size):
        lo = step * self._batch_size
        idx = slice(lo, lo + self._batch_size) if order is None else \
            order[lo:lo + self._batch_size]
        yield nest.map_structure(lambda a: None if a is None else _take(a, idx),
                                 self._arrays)


class _Dataset:
  def __init__(self, dataset, steps):
    n = int(dataset.cardinality())
    if n == 0:
      raise ValueError("Expected input data to be non-empty: the dataset has no elements.")
    if n == -1 and steps is None:  # tf.data.INFINITE_CARDINALITY
      raise ValueError("When providing an infinite dataset, you must specify the number of "
                       "steps to run (if you did not intend to create an infinite dataset, "
                       "make sure to not call `repeat()` on the dataset).")
    self._dataset = dataset
    self.size = n if n >= 0 else None
    self.recreate = steps is None or n == steps

  def iterator(self):
    for batch in self._dataset:
      yield batch if isinstance(batch, tuple) else (batch,)


class _Generator:
  recreate = False
  size = None

  def __init__(self, generator):
    self._generator = generator

  def iterator(self):
    for batch in self._generator:
      yield _tensors(batch)


class _Sequence:
  recreate = True

  def __init__(self, sequence, shuffle):
    self._sequence, self._shuffle = sequence, shuffle
    self.size = len(sequence)

  def iterator(self):
    order = np.random.permutation(self.size) if self._shuffle else range(self.size)
    for i in order:
      yield _tensors(self._sequence[int(i)])

  def on_epoch_end(self):
    self._sequence.on_epoch_end()


def class_weight_fn(class_weight):
  """None, or a function adding Keras' per-class sample weights to an (x, y[, sw]) batch:
  the class of a row is argmax(y) for one-hot targets, else y itself."""
  if not class_weight:
    return None
  if not isinstance(class_weight, dict):
    raise ValueError(f"`class_weight` must be a dict mapping class indices to weights. "
                     f"Received: class_weight={class_weight}")
  ids = sorted(class_weight)
  if not all(isinstance(i, (int, np.integer)) and not isinstance(i, bool) for i in ids) or \
      ids != list(range(int(ids[-1]) + 1)):
    raise ValueError(f"Expected `class_weight` to be a dict with keys from 0 to one less "
                     f"than the number of classes, found {class_weight}")
  table = convert_to_tensor(np.array([class_weight[i] for i in ids], backend.floatx()))

  def weigh(batch):
    from tensorlet.ops import array_ops, math_ops
    x, y, sw = unpack_x_y_sample_weight(batch)
    if y is None:
      raise ValueError("`class_weight` needs targets: `y` is None.")
    if len(nest.flatten(y)) > 1:
      raise ValueError("`class_weight` is only supported for Models with a single output.")
    rank = y.shape.rank
    if rank is not None and rank > 2:
      raise ValueError("`class_weight` not supported for 3+ dimensional targets.")
    if rank == 2 and y.shape[1] != 1:
      ids = math_ops.argmax(y, axis=1)
    else:
      ids = math_ops.cast(array_ops.reshape(y, [-1]), "int64")
    cw = array_ops.gather(table, ids)
    if sw is not None:
      cw = math_ops.cast(cw, sw.dtype)
      sw = sw * (cw if sw.shape.rank == 1 else array_ops.reshape(cw, [-1, 1]))
    return (x, y, cw if sw is None else sw)
  return weigh


def _no_extra(kind, y, sample_weight):
  if y is not None:
    raise ValueError(f"`y` argument is not supported when using {kind} as input.")
  if sample_weight is not None:
    raise ValueError(f"`sample_weight` argument is not supported when using {kind} as input.")


class DataHandler:
  """Iterates the batches of each epoch; `steps` is the count per epoch (None: unknown
  until the data first ends); `insufficient_data` tells the loop to stop."""

  def __init__(self, x, y=None, sample_weight=None, batch_size=None, steps=None,
               shuffle=False, epochs=1):
    if steps == -1:
      steps = None
    self.insufficient_data = False
    self.start_step = 0  # the next epoch begins at this step (a resumed fit)
    self._iterator = None
    if _is_dataset(x):
      _no_extra("dataset", y, sample_weight)
      if batch_size is not None:
        raise ValueError("The `batch_size` argument must not be specified when using a "
                         "tf.data.Dataset as input.")
      self._adapter = _Dataset(x, steps)
    elif _is_sequence(x):
      _no_extra("`keras.utils.Sequence`", y, sample_weight)
      self._adapter = _Sequence(x, shuffle)
    elif _is_generator(x):
      _no_extra("python generator", y, sample_weight)
      self._adapter = _Generator(x)
    else:
      if x is None:
        raise ValueError("Expected input data `x`, got None.")
      self._adapter = _Arrays(x, y, sample_weight, batch_size, shuffle, epochs)
    self._user_steps = steps
    self.steps = steps if steps is not None else self._adapter.size

  def restart(self):
    """Starts a new iteration (validation data, evaluated after each epoch); a Python
    generator cannot restart and goes on where it stopped."""
    if not isinstance(self._adapter, _Generator):
      self._iterator = None
      self.insufficient_data = False

  def __iter__(self):
    """(step, batch) pairs of one epoch; batches are tuples of tensors."""
    if self.insufficient_data:
      return
    if self._iterator is None or self._adapter.recreate:
      self._iterator = self._adapter.iterator()
    step, self.start_step = self.start_step, 0
    for _ in range(step):
      # NOTE: a fit resumed mid-epoch skips the batches the backup had seen, so it
      # goes on exactly where it stopped (Keras 2 reuses the epoch's first batches).
      next(self._iterator, None)
    while self.steps is None or step < self.steps:
      try:
        batch = next(self._iterator)
      except StopIteration:
        if self.steps is None and step:
          self.steps = step  # known once the data has ended
        else:
          self.insufficient_data = True
          warnings.warn(f"Your input ran out of data; interrupting training. Make sure that "
                        f"your dataset or generator can generate at least `steps_per_epoch "
                        f"* epochs` batches (in this case, {self.steps} batches per epoch). "
                        f"You may need to use the repeat() function when building your "
                        f"dataset.", stacklevel=2)
        break
      yield step, batch
      step += 1
    if isinstance(self._adapter, _Sequence):
      self._adapter.on_epoch_end()
