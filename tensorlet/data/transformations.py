"""Dataset transformations: each a DatasetV2 subclass with a `_flat_iter`
generator over its input's flat elements and TensorFlow's cardinality rule."""
import itertools
import os

import numpy as np

from tensorlet import _nest as nest
from tensorlet import dtypes as _dt
from tensorlet.data import ops, structure
from tensorlet.data.dataset import (INFINITE_CARDINALITY, UNKNOWN_CARDINALITY, DatasetV2,
                                    _int64, check_dataset)
from tensorlet.data.function import StructuredFunction
from tensorlet.errors import DataLossError, InvalidArgumentError, OpError
from tensorlet.tensor_shape import TensorShape
from tensorlet.tensor import Tensor, convert_to_tensor
from tensorlet.tensor_spec import TensorSpec

_INF, _UNK = INFINITE_CARDINALITY, UNKNOWN_CARDINALITY


def _invalid(msg, op_name):
  return InvalidArgumentError(None, None, f"{msg} [Op:{op_name}]")


def _known(n):
  return n not in (_INF, _UNK)


def _static_value(t):
  """The value of a tensor known while building (eager, or a graph constant), else None."""
  from tensorlet.ops.registry import constant_value
  v = constant_value(t)
  return None if v is None else v[()] if np.ndim(v) == 0 else v


# ------------------------------------------------------------------ zip / concat

class _ZipDataset(DatasetV2):
  _op_name = "ZipDataset"

  def __init__(self, datasets):
    if isinstance(datasets, list):
      raise TypeError("Invalid `datasets`. `datasets` is expected to be a (nested) structure "
                      "of `tf.data.Dataset` objects. Python `list` is not supported and you "
                      "should use `tuple` instead.")
    flat = nest.flatten(datasets)
    for d in flat:
      if not isinstance(d, DatasetV2):
        raise TypeError(f"Invalid `datasets`. `datasets` is expected to be a (nested) "
                        f"structure of `tf.data.Dataset` objects but encountered object with "
                        f"type: {type(d)}.")
    spec = nest.map_structure(lambda d: d.element_spec, datasets)
    self._setup(flat, [], spec)

  def _flat_iter(self):
    its = [d._flat_iter() for d in self._inputs]
    for parts in zip(*its):
      yield [x for p in parts for x in p]

  def _cardinality(self):
    result = _INF
    for d in self._inputs:
      n = d._cardinality()
      if n == _UNK:
        return _UNK
      if n != _INF and (result == _INF or n < result):
        result = n
    return result


class _ConcatenateDataset(DatasetV2):
  _op_name = "ConcatenateDataset"

  def __init__(self, a, b):
    check_dataset(b, "`dataset`")
    sa, sb = a.element_spec, b.element_spec
    structure.check_same_structure(sa, sb, "Incompatible dataset elements")
    flat = [structure.compatible_spec(x, y) for x, y in
            zip(structure.flatten(sa), structure.flatten(sb))]
    if any(f is None for f in flat):
      raise TypeError(f"Incompatible dataset elements: {sa} vs. {sb}")
    self._setup([a, b], [], structure.pack(sa, flat))

  def _flat_iter(self):
    yield from self._inputs[0]._flat_iter()
    yield from self._inputs[1]._flat_iter()

  def _cardinality(self):
    n1, n2 = (d._cardinality() for d in self._inputs)
    if _INF in (n1, n2):
      return _INF
    if _UNK in (n1, n2):
      return _UNK
    return n1 + n2


# --------------------------------------------------------------- functions

def _tolerant_calls(dataset):
  """(element, function outputs) for each input element of a map or filter; an
  ElementError in place of the outputs when the input or the call failed."""
  from tensorlet.data.element_ops import ElementError, tolerant_iter
  call, caps = dataset._fn.callable, dataset._values
  for e in tolerant_iter(dataset._inputs[0]):
    if isinstance(e, ElementError):
      yield e, e
      continue
    try:
      out = call(*e, *caps)
    except OpError as err:
      yield e, ElementError(err)
      continue
    yield e, out


class _MapDataset(DatasetV2):
  _op_name = "MapDataset"

  def __init__(self, input_ds, map_func):
    self._fn = StructuredFunction(map_func, input_ds.element_spec, "Dataset.map")
    for x in structure.flatten(self._fn.structure):
      if isinstance(x, DatasetV2):
        raise TypeError("tensorlet datasets cannot hold datasets as elements; use flat_map "
                        "or interleave to combine them.")
    self._setup([input_ds], self._fn.captures, self._fn.output_spec)

  def _flat_iter(self):
    call, caps = self._fn.callable, self._values
    for e in self._inputs[0]._flat_iter():
      yield list(call(*e, *caps))

  def _cardinality(self):
    return self._inputs[0]._cardinality()


  def _tolerant_iter(self):
    from tensorlet.data.element_ops import ElementError
    for _, out in _tolerant_calls(self):
      yield out if isinstance(out, ElementError) else list(out)


class _ParallelMapDataset(_MapDataset):
  """map with num_parallel_calls: the function runs in a thread pool (threads.py)."""

  _op_name = "ParallelMapDatasetV2"

  def __init__(self, input_ds, map_func, num_parallel_calls, deterministic):
    if not isinstance(num_parallel_calls, Tensor) and num_parallel_calls != -1 and \
        num_parallel_calls <= 0:
      raise _invalid(f"num_parallel_calls must be greater than zero or AUTOTUNE, got "
                     f"{num_parallel_calls}.", "ParallelMapDatasetV2")
    if isinstance(num_parallel_calls, Tensor):
      v = _static_value(num_parallel_calls)
      num_parallel_calls = -1 if v is None else int(v)
    self._parallel = int(num_parallel_calls)
    self._deterministic = deterministic is not False
    super().__init__(input_ds, map_func)

  def _flat_iter(self):
    from tensorlet.data import threads
    call, caps = self._fn.callable, self._values
    n = threads.resolve_parallelism(int(self._parallel))
    return threads.parallel_map(lambda e: list(call(*e, *caps)), self._inputs[0]._flat_iter(),
                                n, self._deterministic)


class _FilterDataset(DatasetV2):
  _op_name = "FilterDataset"

  def __init__(self, input_ds, predicate):
    self._fn = StructuredFunction(predicate, input_ds.element_spec, "Dataset.filter")
    outs = self._fn.graph.outputs
    if len(outs) != 1:
      raise ValueError(f"Invalid `predicate`. `predicate` must return a `tf.bool` scalar "
                       f"tensor, but its return type is {self._fn.output_spec}.")
    ops.check_scalar_bool(outs[0], "Dataset.filter")
    self._setup([input_ds], self._fn.captures, input_ds.element_spec)

  def _flat_iter(self):
    call, caps = self._fn.callable, self._values
    for e in self._inputs[0]._flat_iter():
      if call(*e, *caps)[0]:
        yield e


  def _tolerant_iter(self):
    from tensorlet.data.element_ops import ElementError
    for e, out in _tolerant_calls(self):
      if isinstance(out, ElementError):
        yield out
      elif out[0]:
        yield e


class _TakeWhileDataset(_FilterDataset):
  _op_name = "TakeWhileDataset"

  def _flat_iter(self):
    call, caps = self._fn.callable, self._values
    for e in self._inputs[0]._flat_iter():
      if not call(*e, *caps)[0]:
        return
      yield e


class _FlatMapDataset(DatasetV2):
  _op_name = "FlatMapDataset"

  def __init__(self, input_ds, map_func):
    self._fn = StructuredFunction(map_func, input_ds.element_spec, "Dataset.flat_map")
    out = self._fn.structure
    if not isinstance(out, DatasetV2):
      raise TypeError(f"The `map_func` argument must return a `Dataset` object. Got "
                      f"{type(out)}.")
    self._setup([input_ds], self._fn.captures, out.element_spec)

  def _flat_iter(self):
    call, caps = self._fn.callable, self._values
    for e in self._inputs[0]._flat_iter():
      yield from call(*e, *caps)[0].value._flat_iter()


# ---------------------------------------------------------------- batching

def _stack(rows, k, op_name):
  first = np.shape(rows[0])
  for j, r in enumerate(rows):
    if np.shape(r) != first:
      raise _invalid(f"Cannot batch tensors with different shapes in component {k}. First "
                     f"element had shape {list(first)} and element {j} had shape "
                     f"{list(np.shape(r))}.", op_name)
  return np.stack(rows)


def _chunks(it, size, drop):
  """Lists of `size` consecutive items of `it`; a shorter last one unless `drop`."""
  while True:
    rows = list(itertools.islice(it, size))
    if not rows or (drop and len(rows) < size):
      return
    yield rows
    if len(rows) < size:
      return


def _batch_dim(batch_size, drop_remainder):
  bs, drop = _static_value(batch_size), _static_value(drop_remainder)
  return int(bs) if bs is not None and drop is not None and bool(drop) else None


def _bool(value, name):
  if isinstance(value, Tensor):
    if value.dtype is not _dt.bool:
      raise TypeError(f"`{name}` must be a bool, got a {value.dtype.name} tensor")
    return value
  return convert_to_tensor(bool(value))


def _batched_cardinality(n, bs, drop):
  if not _known(n):
    return n
  return n // bs if drop else -(-n // bs)


class _BatchDataset(DatasetV2):
  _op_name = "BatchDatasetV2"

  def __init__(self, input_ds, batch_size, drop_remainder, num_parallel_calls=None):
    if num_parallel_calls is not None:
      self._repr_name = "_ParallelBatchDataset"
    bs = _int64(batch_size, "batch_size")
    drop = _bool(drop_remainder, "drop_remainder")
    dim = _batch_dim(bs, drop)
    in_spec = input_ds.element_spec
    flat = structure.flatten(in_spec)
    spec = structure.pack(in_spec, [self._slot_spec(s, dim) for s in flat])
    # NOTE: None keeps the all-dense path free of per-slot dispatch.
    self._stackers = [self._slot_stacker(s, k) for k, s in enumerate(flat)] \
        if structure.has_components(flat) or self._always_per_slot else None
    self._setup([input_ds], [bs, drop], spec)

  _always_per_slot = False

  def _slot_spec(self, s, dim):
    return structure.batch_spec(s, dim)

  def _slot_stacker(self, s, k):
    if structure.is_composite_spec(s):
      from tensorlet.data import composite_batching
      return composite_batching.stacker(s, k, self._op_name)
    return lambda rows: _stack(rows, k, self._op_name)

  def _validate(self):
    if int(self._values[0]) <= 0:
      raise _invalid("batch_size must be greater than zero.", "BatchDatasetV2")

  def _flat_iter(self):
    bs, drop = int(self._values[0]), bool(self._values[1])
    if self._stackers is not None:
      stackers = self._stackers
      for rows in _chunks(self._inputs[0]._flat_iter(), bs, drop):
        yield [f([r[k] for r in rows]) for k, f in enumerate(stackers)]
      return
    rows_of = self._inputs[0]._index_iter()
    if rows_of is not None:
      arrays, it = rows_of
      for rows in _chunks(it, bs, drop):
        sel = np.fromiter(rows, np.intp, len(rows))
        yield [a[sel] for a in arrays]
      return
    for rows in _chunks(self._inputs[0]._flat_iter(), bs, drop):
      yield [_stack([r[k] for r in rows], k, "BatchDatasetV2") for k in range(len(rows[0]))]

  def _cardinality(self):
    return _batched_cardinality(self._inputs[0]._cardinality(), int(self._values[0]),
                                bool(self._values[1]))


class _RaggedBatchDataset(_BatchDataset):
  """Dataset.ragged_batch: dense elements with unknown dimensions batch into RaggedTensors."""
  _repr_name = "_RaggedBatchDataset"
  _always_per_slot = True

  def __init__(self, input_ds, batch_size, drop_remainder, row_splits_dtype):
    from tensorlet.ragged.ragged_tensor import _splits_dtype
    self._splits_dtype = _splits_dtype(row_splits_dtype)
    super().__init__(input_ds, batch_size, drop_remainder)

  def _slot_spec(self, s, dim):
    from tensorlet.data import composite_batching
    return composite_batching.ragged_batch_spec(s, dim, self._splits_dtype)

  def _slot_stacker(self, s, k):
    from tensorlet.data import composite_batching
    return composite_batching.ragged_stacker(s, k, self._op_name, self._splits_dtype, _stack)


def _padded_compatible(padded, shape):
  if padded.rank is None or shape.rank is None:
    return True
  if padded.rank != shape.rank:
    return False
  return all(p is None or s is None or p >= s for p, s in zip(padded.as_list(), shape.as_list()))


def _default_padding(dtype):
  if dtype is _dt.string:
    return np.asarray(b"", dtype=object)
  return np.zeros((), dtype=dtype._np)


def padding_config(spec, padded_shapes, padding_values):
  """padded_batch's (padded shapes, padding values), flat, checked against `spec`."""
  flat_specs = structure.flatten(spec)
  if padded_shapes is None:
    shapes = []
    for k, s in enumerate(flat_specs):
      if s.shape.rank is None:
        raise ValueError(f"You must provide `padded_shapes` argument because component {k} "
                         f"has unknown rank.")
      shapes.append(s.shape)
  else:
    shapes = _up_to(spec, padded_shapes, "padded_shapes", _as_padded_shape)
  for p, s in zip(shapes, flat_specs):
    if not _padded_compatible(p, s.shape):
      raise ValueError(f"The padded shape {p} is not compatible with the shape {s.shape} of "
                       f"the corresponding input component.")
  if padding_values is None:
    pads = [_default_padding(s.dtype) for s in flat_specs]
  else:
    if not isinstance(padding_values, (tuple, dict)) and isinstance(spec, (tuple, dict)):
      padding_values = nest.map_structure(lambda _: padding_values, spec)
    raw = _up_to(spec, padding_values, "padding_values", lambda v: v)
    pads = [_padding_value(v, s.dtype) for v, s in zip(raw, flat_specs)]
  return shapes, pads


class _PaddedBatchDataset(DatasetV2):
  _op_name = "PaddedBatchDatasetV2"

  def __init__(self, input_ds, batch_size, padded_shapes, padding_values, drop_remainder):
    spec = input_ds.element_spec
    flat_specs = structure.flatten(spec)
    structure.check_dense(flat_specs, "padded_batch")
    shapes, pads = padding_config(spec, padded_shapes, padding_values)
    self._shapes = shapes
    self._pads = pads
    bs = _int64(batch_size, "batch_size")
    drop = _bool(drop_remainder, "drop_remainder")
    dim = _batch_dim(bs, drop)
    out = [TensorSpec(TensorShape([dim]).concatenate(p), s.dtype)
           for p, s in zip(shapes, flat_specs)]
    self._setup([input_ds], [bs, drop], structure.pack(spec, out))

  def _validate(self):
    if int(self._values[0]) <= 0:
      raise _invalid("batch_size must be greater than zero.", "PaddedBatchDatasetV2")

  def _flat_iter(self):
    bs, drop = int(self._values[0]), bool(self._values[1])
    for rows in _chunks(self._inputs[0]._flat_iter(), bs, drop):
      yield [pad_rows([r[k] for r in rows], k, self._shapes[k], self._pads[k])
             for k in range(len(rows[0]))]

  def _cardinality(self):
    return _batched_cardinality(self._inputs[0]._cardinality(), int(self._values[0]),
                                bool(self._values[1]))


def pad_rows(rows, k, target, pad, op_name="PaddedBatchDatasetV2"):
  """Component `k` of a batch: `rows` stacked, padded with `pad` to `target`
  (a TensorShape; None dims: the longest row)."""
  shapes = [np.shape(r) for r in rows]
  rank = len(shapes[0]) if target.rank is None else target.rank
  if any(len(s) != rank for s in shapes):
    raise _invalid(f"All elements in a batch must have the same rank as the padded shape "
                   f"for component{k}: expected rank {rank} but got element with rank "
                   f"{next(len(s) for s in shapes if len(s) != rank)}", op_name)
  dims = target.as_list() if target.rank is not None else [None] * rank
  full = [d if d is not None else max((s[i] for s in shapes), default=0)
          for i, d in enumerate(dims)]
  for s in shapes:
    if any(a > b for a, b in zip(s, full)):
      # NOTE: TF reports this as DataLossError.
      raise DataLossError(None, None, f"Attempted to pad to a smaller size than the input "
                          f"element. [Op:{op_name}]")
  out = np.empty([len(rows)] + full, dtype=pad.dtype)
  out[...] = pad
  for i, r in enumerate(rows):
    out[(i,) + tuple(slice(0, n) for n in np.shape(r))] = r
  return out


def _as_padded_shape(s):
  if isinstance(s, Tensor):
    v = _static_value(s)
    if v is None:
      raise ValueError("`padded_shapes` must be known while the dataset is built")
    s = [int(d) for d in np.reshape(v, -1)]
  shape = TensorShape(s)
  return shape


def _up_to(spec, values, name, fn):
  """`values` flattened up to the structure of `spec` (a shape is a leaf)."""
  if isinstance(spec, tuple):
    if not isinstance(values, (tuple, list)) or len(values) != len(spec):
      raise ValueError(f"The two structures don't have the same sequence length: `{name}` "
                       f"{values!r} vs. element_spec {spec}")
    return [x for s, v in zip(spec, values) for x in _up_to(s, v, name, fn)]
  if isinstance(spec, dict):
    if not isinstance(values, dict) or set(values) != set(spec):
      raise ValueError(f"The two structures don't have the same keys: `{name}` {values!r} "
                       f"vs. element_spec {spec}")
    return [x for k in sorted(spec) for x in _up_to(spec[k], values[k], name, fn)]
  return [fn(values)]


def _padding_value(v, dtype):
  try:
    t = convert_to_tensor(v, dtype) if not isinstance(v, Tensor) else v
  except (TypeError, ValueError) as e:
    raise TypeError(f"Invalid `padding_values`: {v!r} does not fit the component dtype "
                    f"{dtype.name}: {e}") from None
  if t.dtype is not dtype:
    raise TypeError(f"Invalid `padding_values`: a {t.dtype.name} value for a {dtype.name} "
                    f"component")
  if t.shape.rank != 0:
    raise ValueError(f"Invalid `padding_values`: padding values must be scalars, got shape "
                     f"{t.shape}")
  v = _static_value(t)
  if v is None:
    raise ValueError("`padding_values` must be known while the dataset is built")
  return np.asarray(v, dtype=dtype._np)


class _UnbatchDataset(DatasetV2):
  _op_name = "UnbatchDataset"

  def __init__(self, input_ds):
    spec = input_ds.element_spec
    flat = structure.flatten(spec)
    for s in flat:
      if s.shape.rank == 0:
        raise ValueError("Unbatching a dataset is only supported for rank >= 1")
    self._unstackers = _unstackers(flat, "UnbatchDataset")
    dims = {s.shape[0] for s in flat if s.shape.rank}
    self._static_batch = dims.pop() if len(dims) == 1 and None not in dims and \
        all(s.shape.rank for s in flat) else None
    self._setup([input_ds], [], structure.pack(spec, [structure.unbatch_spec(s)
                                                      for s in flat]))

  def _flat_iter(self):
    if self._unstackers is not None:
      yield from _unstack_slots(self._inputs[0]._flat_iter(), self._unstackers,
                                "UnbatchDataset")
      return
    getters = [_slice_getter(s.dtype) for s in structure.flatten(self._element_spec)]
    for e in self._inputs[0]._flat_iter():
      sizes = [np.shape(v)[0] if np.ndim(v) else None for v in e]
      for k, n in enumerate(sizes):
        if n is None:
          raise _invalid("Input element must have a non-scalar value in each component.",
                         "UnbatchDataset")
        if n != sizes[0]:
          raise _invalid(f"Input element must have the same batch size in each component. "
                         f"Component 0 had size {sizes[0]} but component {k} had size {n}.",
                         "UnbatchDataset")
      for i in range(sizes[0]):
        yield [g(v, i) for g, v in zip(getters, e)]

  def _cardinality(self):
    n = self._inputs[0]._cardinality()
    if not _known(n):
      return n
    return n * self._static_batch if self._static_batch is not None else _UNK


def _unstackers(flat_specs, op_name):
  """Per-slot functions from a batched slot to its rows, or None if all are dense."""
  if not structure.has_components(flat_specs):
    return None
  from tensorlet.data import composite_batching

  def dense(s):
    get = _slice_getter(s.dtype)
    return lambda v: [get(v, i) for i in range(np.shape(v)[0])] if np.ndim(v) else None
  return [composite_batching.unstacker(s, op_name) if structure.is_composite_spec(s)
          else dense(s) for s in flat_specs]


def _unstack_slots(elements, unstackers, op_name):
  """The rows of each batched element, slot by slot, as flat elements."""
  for e in elements:
    cols = [f(v) for f, v in zip(unstackers, e)]
    for k, c in enumerate(cols):
      if c is None:
        raise _invalid("Input element must have a non-scalar value in each component.", op_name)
      if len(c) != len(cols[0]):
        raise _invalid(f"Input element must have the same batch size in each component. "
                       f"Component 0 had size {len(cols[0])} but component {k} had size "
                       f"{len(c)}.", op_name)
    yield from (list(r) for r in zip(*cols))


def _slice_getter(dtype):
  if dtype is _dt.string:
    return lambda arr, i: np.asarray(arr[i], dtype=object)
  return lambda arr, i: arr[i]


# ------------------------------------------------------------------ ordering

class _ShuffleDataset(DatasetV2):
  _op_name = "ShuffleDatasetV3"

  def __init__(self, input_ds, buffer_size, seed, reshuffle_each_iteration):
    from tensorlet.ops.random_ops import get_seed
    if isinstance(seed, Tensor):
      seed = int(_static_value(seed))
    self._seeds = get_seed(seed)
    self._reshuffle = bool(reshuffle_each_iteration)
    # NOTE: no seed and no reshuffling: one random order, the same every epoch.
    self._fixed = int(np.random.SeedSequence().entropy % (1 << 63))
    self._setup([input_ds], [_int64(buffer_size, "buffer_size")], input_ds.element_spec)

  def _init_state(self):
    self._epoch = 0

  def _validate(self):
    if int(self._values[0]) <= 0:
      raise _invalid("buffer_size must be greater than zero.", "ShuffleDatasetV3")

  def _rng(self):
    seed, seed2 = self._seeds
    epoch = self._epoch if self._reshuffle else 0
    self._epoch += 1
    # NOTE: unseeded shuffles draw from a random base seed fixed per dataset, so
    # an iterator checkpoint can replay an epoch exactly.
    if seed == 0 and seed2 == 0:
      return np.random.default_rng([self._fixed, epoch])
    return np.random.default_rng([seed, seed2, epoch])

  def _flat_iter(self):
    return _shuffled(self._inputs[0]._flat_iter(), int(self._values[0]), self._rng())

  def _index_iter(self):
    rows_of = self._inputs[0]._index_iter()
    if rows_of is None:
      return None
    arrays, it = rows_of
    return arrays, _shuffled(it, int(self._values[0]), self._rng())

  def _cardinality(self):
    return self._inputs[0]._cardinality()


def _shuffled(it, size, rng):
  """TF's shuffle buffer: each output is a uniformly drawn buffer slot, refilled
  from `it`. Works on elements and on row numbers alike (same draws, same order)."""
  buf = list(itertools.islice(it, size))
  nxt = next(it, _END)
  if nxt is _END:
    # NOTE: the whole input fits in the buffer; one vectorized permutation is the
    # same distribution as drawing slot by slot, and far cheaper per element.
    return map(buf.__getitem__, rng.permutation(len(buf)).tolist())
  return _stream_shuffled(buf, nxt, it, rng)


def _stream_shuffled(buf, nxt, it, rng):
  draws, j = rng.random(256), 0
  while buf:
    if j == len(draws):
      draws, j = rng.random(256), 0
    i = int(draws[j] * len(buf))
    j += 1
    out = buf[i]
    if nxt is _END:
      buf[i] = buf[-1]
      buf.pop()
    else:
      buf[i] = nxt
      nxt = next(it, _END)
    yield out


_END = object()


class _RepeatDataset(DatasetV2):
  _op_name = "RepeatDataset"

  def __init__(self, input_ds, count):
    self._setup([input_ds], [_int64(-1 if count is None else count, "count")],
                input_ds.element_spec)

  def _flat_iter(self):
    count = int(self._values[0])
    src = self._inputs[0]
    if count >= 0:
      for _ in range(count):
        yield from src._flat_iter()
      return
    while True:
      empty = True
      for e in src._flat_iter():
        empty = False
        yield e
      if empty:
        return

  def _cardinality(self):
    n, count = self._inputs[0]._cardinality(), int(self._values[0])
    if count < 0:
      return 0 if n == 0 else _INF
    if count == 0:
      return 0
    if not _known(n):
      return n
    return n * count


class _TakeDataset(DatasetV2):
  _op_name = "TakeDataset"

  def __init__(self, input_ds, count):
    self._setup([input_ds], [_int64(count, "count")], input_ds.element_spec)

  def _flat_iter(self):
    return _take(self._inputs[0]._flat_iter(), int(self._values[0]))

  def _index_iter(self):
    rows_of = self._inputs[0]._index_iter()
    return None if rows_of is None else (rows_of[0], _take(rows_of[1], int(self._values[0])))

  def _cardinality(self):
    n, count = self._inputs[0]._cardinality(), int(self._values[0])
    if n == _UNK:
      return _UNK
    if n == _INF:
      return _INF if count < 0 else count
    if count < 0:
      return n
    return min(n, count)


def _take(it, count):
  return it if count < 0 else itertools.islice(it, count)


def _skip(it, count):
  return iter(()) if count < 0 else itertools.islice(it, count, None)


class _SkipDataset(DatasetV2):
  _op_name = "SkipDataset"

  def __init__(self, input_ds, count):
    self._setup([input_ds], [_int64(count, "count")], input_ds.element_spec)

  def _flat_iter(self):
    return _skip(self._inputs[0]._flat_iter(), int(self._values[0]))

  def _index_iter(self):
    rows_of = self._inputs[0]._index_iter()
    return None if rows_of is None else (rows_of[0], _skip(rows_of[1], int(self._values[0])))

  def _cardinality(self):
    n, count = self._inputs[0]._cardinality(), int(self._values[0])
    if not _known(n):
      return n
    return 0 if count < 0 else max(0, n - count)


class _ShardDataset(DatasetV2):
  _op_name = "ShardDataset"

  def __init__(self, input_ds, num_shards, index):
    self._setup([input_ds], [_int64(num_shards, "num_shards"), _int64(index, "index")],
                input_ds.element_spec)

  def _validate(self):
    n, i = (int(v) for v in self._values)
    if n <= 0:
      raise _invalid(f"Number of shards must be greater than zero (currently num_shards = "
                     f"{n}).", "ShardDataset")
    if i < 0 or i >= n:
      raise _invalid(f"Index must be between 0 and {n - 1} (currently index = {i}).",
                     "ShardDataset")

  def _flat_iter(self):
    n, i = (int(v) for v in self._values)
    yield from itertools.islice(self._inputs[0]._flat_iter(), i, None, n)

  def _cardinality(self):
    c = self._inputs[0]._cardinality()
    n, i = (int(v) for v in self._values)
    if not _known(c):
      return c
    return c // n + (1 if i < c % n else 0)


class _PrefetchDataset(DatasetV2):
  _op_name = "PrefetchDataset"

  def __init__(self, input_ds, buffer_size):
    self._setup([input_ds], [_int64(buffer_size, "buffer_size")], input_ds.element_spec)

  def _validate(self):
    if int(self._values[0]) < -1:
      raise _invalid("buffer_size must be >= -1 (-1 is AUTOTUNE).", "PrefetchDataset")

  def _flat_iter(self):
    from tensorlet.data import threads
    size = int(self._values[0])
    if size == 0:
      return self._inputs[0]._flat_iter()
    return threads.prefetched(self._inputs[0]._flat_iter, 4 if size == -1 else size)

  def _cardinality(self):
    return self._inputs[0]._cardinality()


# -------------------------------------------------------------------- cache

class _CacheDataset(DatasetV2):
  """Elements cached after the first complete pass: in memory, or in
  `filename + '.npz'` (NumPy arrays only, loaded without pickle)."""

  _op_name = "CacheDatasetV2"
  _repr_name = "CacheDataset"

  def __init__(self, input_ds, filename):
    if not isinstance(filename, Tensor):
      filename = os.fspath(filename)
    self._setup([input_ds], [convert_to_tensor(filename, _dt.string)], input_ds.element_spec)

  def _init_state(self):
    self._memory = None

  def _path(self):
    name = self._values[0]
    name = name[()] if isinstance(name, np.ndarray) else name
    name = name.decode() if isinstance(name, bytes) else str(name)
    return name + ".npz" if name else ""

  def _flat_iter(self):
    path = self._path()
    if not path and self._memory is not None:
      yield from self._memory
      return
    if path and os.path.exists(path):
      yield from _read_cache(path, structure.flatten(self._element_spec))
      return
    items = []
    for e in self._inputs[0]._flat_iter():
      items.append(e)
      yield e
    if path:
      _write_cache(path, items, structure.flatten(self._element_spec))
    else:
      self._memory = items

  def _cardinality(self):
    return self._inputs[0]._cardinality()


def _write_cache(path, items, specs):
  arrays = {"n": np.int64(len(items)),
            "dtypes": np.array([s.dtype.name for s in specs], dtype="U")}
  for k, s in enumerate(specs):
    vals = [np.asarray(e[k], dtype=object if s.dtype is _dt.string else None) for e in items]
    arrays[f"c{k}_ranks"] = np.array([v.ndim for v in vals], dtype=np.int64)
    arrays[f"c{k}_dims"] = np.array([d for v in vals for d in v.shape], dtype=np.int64)
    if s.dtype is _dt.string:
      strs = [x for v in vals for x in v.reshape(-1)]
      arrays[f"c{k}_lens"] = np.array([len(x) for x in strs], dtype=np.int64)
      arrays[f"c{k}_data"] = np.frombuffer(b"".join(strs), dtype=np.uint8)
    else:
      arrays[f"c{k}_data"] = np.concatenate([v.reshape(-1) for v in vals]) if vals else \
          np.zeros(0, s.dtype._np)
  tmp = path + ".tmp"
  try:
    with open(tmp, "wb") as f:
      np.savez(f, **arrays)
    os.replace(tmp, path)
  except FileNotFoundError:
    from tensorlet.errors import NotFoundError
    raise NotFoundError(None, None, f"Dataset.cache: cannot write the cache file {path}: "
                        f"its directory does not exist") from None
  except OSError as e:
    from tensorlet.errors import PermissionDeniedError, UnknownError
    cls = PermissionDeniedError if isinstance(e, PermissionError) else UnknownError
    raise cls(None, None, f"Dataset.cache: cannot write the cache file {path}: "
              f"{e.strerror or e}") from None


def _read_cache(path, specs):
  with np.load(path, allow_pickle=False) as z:
    data = {k: z[k] for k in z.files}
  names = [str(x) for x in data["dtypes"]]
  if names != [s.dtype.name for s in specs]:
    raise InvalidArgumentError(None, None, f"The cache file {path} holds elements of dtypes "
                               f"{names}, but the dataset's are "
                               f"{[s.dtype.name for s in specs]}.")
  n = int(data["n"])
  comps = []
  for k, s in enumerate(specs):
    ranks, dims, flat = data[f"c{k}_ranks"], data[f"c{k}_dims"], data[f"c{k}_data"]
    out, dpos, pos = [], 0, 0
    if s.dtype is _dt.string:
      lens = data[f"c{k}_lens"]
      raw = flat.tobytes()
      offsets = np.concatenate([[0], np.cumsum(lens)])
      spos = 0
    for i in range(n):
      shape = tuple(int(d) for d in dims[dpos:dpos + ranks[i]])
      dpos += ranks[i]
      size = int(np.prod(shape)) if shape else 1
      if s.dtype is _dt.string:
        vals = [raw[offsets[j]:offsets[j + 1]] for j in range(spos, spos + size)]
        spos += size
        arr = np.empty(size, dtype=object)
        arr[:] = vals
        out.append(arr.reshape(shape))
      else:
        arr = flat[pos:pos + size].reshape(shape)
        pos += size
        out.append(arr if shape else arr[()])
    comps.append(out)
  for i in range(n):
    yield [c[i] for c in comps]


class _AssertCardinalityDataset(DatasetV2):
  _op_name = "AssertCardinalityDataset"

  def __init__(self, input_ds, expected):
    self._setup([input_ds], [_int64(expected, "expected_cardinality")], input_ds.element_spec)

  def _flat_iter(self):
    want = int(self._values[0])
    n = 0
    for e in self._inputs[0]._flat_iter():
      n += 1
      if want >= 0 and n > want:
        raise _invalid(f"Input dataset was expected to contain {_elements(want)} but "
                       f"contained at least {_elements(n)}.", "AssertCardinalityDataset")
      yield e
    if want == _INF or n < want:
      raise _invalid(f"Input dataset was expected to contain {_elements(want)} but "
                     f"contained only {_elements(n)}.", "AssertCardinalityDataset")

  def _cardinality(self):
    return int(self._values[0])


def _elements(n):
  if n == _INF:
    return "an infinite number of elements"
  return f"{n} element{'s' if n != 1 else ''}"


class _OptionsDataset(DatasetV2):
  """The input with tf.data.Options attached (Dataset.with_options)."""

  _op_name = "OptionsDataset"

  def __init__(self, input_ds, options):
    self._own_options = options
    self._setup([input_ds], [], input_ds.element_spec)

  def _flat_iter(self):
    return self._inputs[0]._flat_iter()

  def _index_iter(self):
    return self._inputs[0]._index_iter()

  def _cardinality(self):
    return self._inputs[0]._cardinality()
