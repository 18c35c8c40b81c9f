"""Transformations that keep state across elements: scan, unique,
ignore_errors, rejection_resample."""
import numpy as np

from tensorlet import _nest as nest
from tensorlet import dtypes as _dt
from tensorlet.data import structure
from tensorlet.data.dataset import INFINITE_CARDINALITY, UNKNOWN_CARDINALITY, DatasetV2
from tensorlet.data.function import StructuredFunction
from tensorlet.errors import OpError
from tensorlet.tensor_spec import TensorSpec

__all__ = ["_ScanDataset", "_UniqueDataset", "_IgnoreErrorsDataset", "_RejectionResampleDataset",
           "tolerant_iter"]


class _ScanDataset(DatasetV2):
  """Outputs of `scan_func(state, element) -> (new_state, output)`, the state
  carried from element to element. State shapes the function changes are
  relaxed (traced again), as TensorFlow does."""

  _op_name = "ScanDataset"

  def __init__(self, input_ds, initial_state, scan_func):
    init = structure.normalize(initial_state, "initial state")
    state_spec = nest.map_structure(structure.spec_of, init)
    elem_spec = input_ds.element_spec
    for _ in range(8):
      fn = StructuredFunction(scan_func, (state_spec, elem_spec), "Dataset.scan")
      out = fn.structure
      if not isinstance(out, tuple) or len(out) != 2:
        raise TypeError(f"Invalid `scan_func`. `scan_func` should return a pair consisting of "
                        f"new state and the output value but its return type is "
                        f"{fn.output_spec}.")
      new_spec = fn.output_spec[0]
      try:
        nest.assert_same_structure(state_spec, new_spec, check_types=False)
      except (TypeError, ValueError):
        raise TypeError(f"Invalid `scan_func`. The element classes for the new state must "
                        f"match the initial state. Expected {state_spec}, got "
                        f"{new_spec}.") from None
      flat_old, flat_new = nest.flatten(state_spec), nest.flatten(new_spec)
      for a, b in zip(flat_old, flat_new):
        if a.dtype is not b.dtype:
          raise TypeError(f"Invalid `scan_func`. The element types for the new state must "
                          f"match the initial state. Expected {a.dtype!r}, got {b.dtype!r}.")
      relaxed = [TensorSpec(a.shape.most_specific_compatible_shape(b.shape), a.dtype)
                 for a, b in zip(flat_old, flat_new)]
      if all(r.shape == a.shape for r, a in zip(relaxed, flat_old)):
        break
      state_spec = nest.pack_sequence_as(state_spec, relaxed)
    self._fn = fn
    self._n_state = len(flat_old)
    self._setup([input_ds], structure.flatten(init) + fn.captures, fn.output_spec[1])

  def _flat_iter(self):
    n = self._n_state
    state, caps = list(self._values[:n]), self._values[n:]
    call = self._fn.callable
    for e in self._inputs[0]._flat_iter():
      out = call(*state, *e, *caps)
      state = list(out[:n])
      yield list(out[n:])

  def _cardinality(self):
    return self._inputs[0]._cardinality()


_UNIQUE_TYPES = (_dt.int32, _dt.int64, _dt.string)


class _UniqueDataset(DatasetV2):
  _op_name = "UniqueDataset"

  def __init__(self, input_ds):
    spec = input_ds.element_spec
    if not isinstance(spec, TensorSpec):
      raise TypeError("`tf.data.Dataset.unique` does not support datasets with elements of "
                      "more than one component.")
    if spec.dtype not in _UNIQUE_TYPES:
      raise TypeError(f"`tf.data.Dataset.unique` does not support type {spec.dtype!r} -- "
                      f"only `tf.int32`, `tf.int64`, and `tf.string` are supported.")
    self._setup([input_ds], [], spec)

  def _flat_iter(self):
    seen = set()
    for e in self._inputs[0]._flat_iter():
      v = np.asarray(e[0])
      key = (v.shape, tuple(v.reshape(-1).tolist()))
      if key not in seen:
        seen.add(key)
        yield e

  def _cardinality(self):
    return UNKNOWN_CARDINALITY


class ElementError:
  """An error in place of an element, passed along by tolerant iteration."""

  __slots__ = ("error",)

  def __init__(self, error):
    self.error = error


def tolerant_iter(dataset):
  """The flat elements of `dataset`, with an ElementError for each element that
  failed. Per-element functions (map, filter) go on after a failure; any other
  dataset's iteration ends at its first error, as a Python generator does."""
  hook = getattr(dataset, "_tolerant_iter", None)
  if hook is not None:
    return hook()
  return _until_error(dataset._flat_iter())


def _until_error(it):
  while True:
    try:
      e = next(it)
    except StopIteration:
      return
    except OpError as err:
      yield ElementError(err)
      return
    yield e


class _IgnoreErrorsDataset(DatasetV2):
  """The input's elements, leaving out those whose computation raised a tf error."""

  _op_name = "IgnoreErrorsDataset"

  def __init__(self, input_ds, log_warning=False):
    self._log = bool(log_warning)
    self._setup([input_ds], [], input_ds.element_spec)

  def _flat_iter(self):
    for e in tolerant_iter(self._inputs[0]):
      if isinstance(e, ElementError):
        if self._log:
          import logging
          logging.getLogger("tensorlet").warning("Dataset.ignore_errors: %s", e.error)
        continue
      yield e

  def _cardinality(self):
    n = self._inputs[0]._cardinality()
    return n if n == INFINITE_CARDINALITY else UNKNOWN_CARDINALITY


class _RejectionResampleDataset(DatasetV2):
  """(class, element) pairs kept with probability target/initial (scaled so the
  most under-represented class is always kept), so the classes come out in
  `target_dist`. Without `initial_dist` the class frequencies seen so far
  estimate it."""

  _op_name = "RejectionResampleDataset"
  _repr_name = "_DirectedInterleaveDataset"

  def __init__(self, input_ds, class_func, target_dist, initial_dist, seed):
    from tensorlet.ops.random_ops import get_seed
    self._fn = StructuredFunction(class_func, input_ds.element_spec,
                                  "Dataset.rejection_resample")
    outs = self._fn.graph.outputs
    if len(outs) != 1 or not outs[0].dtype.is_integer:
      raise ValueError("`class_func` must return a scalar integer tensor.")
    self._class_dtype = outs[0].dtype
    self._target = _distribution(target_dist, "target_dist")
    self._initial = None if initial_dist is None else _distribution(initial_dist,
                                                                    "initial_dist")
    if self._initial is not None and len(self._initial) != len(self._target):
      raise ValueError("`initial_dist` and `target_dist` must have the same length.")
    self._seeds = get_seed(seed)
    self._fresh = int(np.random.SeedSequence().entropy % (1 << 63))
    spec = (TensorSpec([], self._class_dtype), input_ds.element_spec)
    self._setup([input_ds], self._fn.captures, spec)

  def _init_state(self):
    self._epoch = 0

  def _flat_iter(self):
    seed, seed2 = self._seeds
    base = [seed, seed2] if (seed, seed2) != (0, 0) else [self._fresh]
    rng = np.random.default_rng(base + [self._epoch])
    self._epoch += 1
    target = self._target
    counts = np.zeros(len(target))
    call, caps = self._fn.callable, self._values
    cast = self._class_dtype._np.type
    for e in self._inputs[0]._flat_iter():
      c = int(call(*e, *caps)[0])
      if not 0 <= c < len(target):
        from tensorlet.errors import InvalidArgumentError
        raise InvalidArgumentError(None, None, f"class_func returned {c}, outside "
                                   f"[0, {len(target)}) [Op:RejectionResample]")
      counts[c] += 1
      initial = self._initial if self._initial is not None else counts / counts.sum()
      with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(initial > 0, target / initial, 0.0)
      top = ratio.max()
      if top > 0 and rng.random() < ratio[c] / top:
        yield [cast(c)] + list(e)

  def _cardinality(self):
    n = self._inputs[0]._cardinality()
    return n if n == INFINITE_CARDINALITY else UNKNOWN_CARDINALITY


def _distribution(dist, name):
  from tensorlet.ops.registry import constant_value
  from tensorlet.tensor import Tensor
  v = constant_value(dist) if isinstance(dist, Tensor) else np.asarray(dist, np.float64)
  if v is None:
    raise ValueError(f"`{name}` must be known when the dataset is built")
  v = np.asarray(v, np.float64).reshape(-1)
  if v.size == 0 or (v < 0).any() or v.sum() <= 0:
    raise ValueError(f"`{name}` must be a non-empty vector of non-negative probabilities")
  return v / v.sum()
