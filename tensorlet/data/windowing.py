"""Datasets of datasets and grouping: window, group_by_window,
bucket_by_sequence_length.

A window is a dataset per component (a tuple element gives a tuple of
datasets), held in a flat element as a `Variant`; its element_spec is a
DatasetSpec, and functions over it (flat_map, group_by_window's reduce_func)
see it as a dataset they can batch, map or zip.
"""
import numpy as np

from tensorlet import _nest as nest
from tensorlet import dtypes as _dt
from tensorlet.data import ops, structure
from tensorlet.data.dataset import (INFINITE_CARDINALITY, UNKNOWN_CARDINALITY, DatasetSpec,
                                    DatasetV2, _int64)
from tensorlet.data.function import StructuredFunction
from tensorlet.data.transformations import (_bool, _invalid, _known, pad_rows,
                                           padding_config)
from tensorlet.tensor_shape import TensorShape
from tensorlet.tensor_spec import TensorSpec

__all__ = ["_WindowDataset", "_GroupByWindowDataset", "_BucketBySequenceLengthDataset",
           "ValuesDataset"]


class ValuesDataset(DatasetV2):
  """A dataset over a list of flat elements already computed (one window)."""

  _repr_name = "_VariantDataset"

  def __init__(self, items, element_spec):
    self._inputs, self._params, self._values = [], [], []
    self._variant = None
    self._element_spec = element_spec
    self._items = items

  def _flat_iter(self):
    return iter(self._items)

  def _cardinality(self):
    return len(self._items)


def _window_sets(items, specs):
  """One Variant(dataset) per component of a window of flat elements."""
  return [ops.Variant(ValuesDataset([[e[k]] for e in items], s))
          for k, s in enumerate(specs)]


class _WindowDataset(DatasetV2):
  _op_name = "WindowDataset"

  def __init__(self, input_ds, size, shift, stride, drop_remainder):
    params = [_int64(size, "size"), _int64(size if shift is None else shift, "shift"),
              _int64(stride, "stride"), _bool(drop_remainder, "drop_remainder")]
    self._specs = structure.flatten(input_ds.element_spec)
    spec = nest.map_structure(DatasetSpec, input_ds.element_spec)
    self._setup([input_ds], params, spec)

  def _validate(self):
    size, shift, stride = (int(v) for v in self._values[:3])
    for name, v in (("size", size), ("shift", shift), ("stride", stride)):
      if v <= 0:
        raise _invalid(f"Window {name} must be greater than zero.", "WindowDataset")

  def _flat_iter(self):
    size, shift, stride = (int(v) for v in self._values[:3])
    drop = bool(self._values[3])
    span = (size - 1) * stride + 1
    it = self._inputs[0]._flat_iter()
    buf = []
    end = False
    while True:
      while not end and len(buf) < span:
        e = next(it, None)
        if e is None:
          end = True
        else:
          buf.append(e)
      if not buf:
        return
      window = buf[0:span:stride]
      if len(window) < size and (drop or end and not window):
        return
      yield _window_sets(window, self._specs)
      if shift >= len(buf):
        # Skip the input elements between windows.
        skip = shift - len(buf)
        buf = []
        if not end:
          for _ in range(skip):
            if next(it, None) is None:
              end = True
              break
        if end:
          return
      else:
        buf = buf[shift:]

  def _cardinality(self):
    n = self._inputs[0]._cardinality()
    if not _known(n):
      return n
    size, shift, stride = (int(v) for v in self._values[:3])
    if bool(self._values[3]):
      rest = n - ((size - 1) * stride + 1)
      return 0 if rest < 0 else rest // shift + 1
    return n // shift + (1 if n % shift else 0)


def _scalar_int64_output(fn, what):
  outs = fn.graph.outputs
  if len(outs) != 1 or outs[0].dtype is not _dt.int64 or outs[0].shape.rank not in (0, None):
    raise ValueError(f"`{what}` must return a single tf.int64 scalar tensor, but its return "
                     f"type is {fn.output_spec}.")


class _GroupByWindowDataset(DatasetV2):
  _op_name = "GroupByWindowDataset"

  def __init__(self, input_ds, key_func, reduce_func, window_size, window_size_func):
    if (window_size is None) == (window_size_func is None):
      if window_size is None:
        raise ValueError("Either the `window_size` argument or the `window_size_func` "
                         "argument must be specified.")
      raise ValueError("Either the `window_size` argument or the `window_size_func` "
                       "argument must be specified, not both.")
    in_spec = input_ds.element_spec
    self._key = StructuredFunction(key_func, in_spec, "Dataset.group_by_window.key_func")
    _scalar_int64_output(self._key, "key_func")
    window_spec = DatasetSpec(in_spec)
    self._reduce = StructuredFunction(reduce_func, (TensorSpec([], _dt.int64), window_spec),
                                      "Dataset.group_by_window.reduce_func")
    out = self._reduce.structure
    if not isinstance(out, DatasetV2):
      raise TypeError(f"`reduce_func` must return a `Dataset` object. Got {type(out)}.")
    if window_size_func is None:
      const = window_size

      def window_size_func(_):
        from tensorlet.tensor import convert_to_tensor
        return convert_to_tensor(np.int64(const)) if not hasattr(const, "dtype") else const
    self._size = StructuredFunction(window_size_func, TensorSpec([], _dt.int64),
                                    "Dataset.group_by_window.window_size_func")
    _scalar_int64_output(self._size, "window_size_func")
    caps = [self._key.captures, self._reduce.captures, self._size.captures]
    self._ncaps = [len(c) for c in caps]
    self._setup([input_ds], [c for cs in caps for c in cs], out.element_spec)

  def _caps(self):
    a, b, _ = self._ncaps
    v = self._values
    return v[:a], v[a:a + b], v[a + b:]

  def _flat_iter(self):
    kc, rc, sc = self._caps()
    key_call, size_call, reduce_call = self._key.callable, self._size.callable, \
        self._reduce.callable
    groups, sizes = {}, {}

    def reduce(key):
      items = groups.pop(key)
      windows = ops.Variant(ValuesDataset(items, self._inputs[0].element_spec))
      return reduce_call(np.int64(key), windows, *rc)[0].value._flat_iter()
    for e in self._inputs[0]._flat_iter():
      key = int(key_call(*e, *kc)[0])
      if key not in sizes:
        size = int(size_call(np.int64(key), *sc)[0])
        if size <= 0:
          raise _invalid(f"Window size must be greater than zero, but got {size}.",
                         "IteratorGetNext")
        sizes[key] = size
      groups.setdefault(key, []).append(e)
      if len(groups[key]) == sizes[key]:
        yield from reduce(key)
    for key in sorted(groups):
      yield from reduce(key)

  def _cardinality(self):
    n = self._inputs[0]._cardinality()
    return INFINITE_CARDINALITY if n == INFINITE_CARDINALITY else UNKNOWN_CARDINALITY


class _BucketBySequenceLengthDataset(DatasetV2):
  """Elements batched by length bucket, padded (as TF's bucket_by_sequence_length,
  which it builds from group_by_window with the bucket id as key)."""

  _op_name = "GroupByWindowDataset"
  _repr_name = "_GroupByWindowDataset"

  def __init__(self, input_ds, element_length_func, bucket_boundaries, bucket_batch_sizes,
               padded_shapes, padding_values, pad_to_bucket_boundary, no_padding,
               drop_remainder):
    bounds = [int(b) for b in bucket_boundaries]
    sizes = [int(b) for b in bucket_batch_sizes]
    if len(sizes) != len(bounds) + 1:
      raise ValueError(f"`len(bucket_batch_sizes)` must equal `len(bucket_boundaries) + 1` "
                       f"but `len(bucket_batch_sizes)={len(sizes)}` and "
                       f"`len(bucket_boundaries)={len(bounds)}`.")
    if any(b >= c for b, c in zip(bounds, bounds[1:])):
      raise ValueError("`bucket_boundaries` must be sorted in increasing order.")
    self._len = StructuredFunction(element_length_func, input_ds.element_spec,
                                   "bucket_by_sequence_length.element_length_func")
    outs = self._len.graph.outputs
    if len(outs) != 1 or not outs[0].dtype.is_integer:
      raise ValueError("`element_length_func` must return a scalar integer tensor.")
    self._bounds, self._sizes = bounds, sizes
    self._pad_to_boundary, self._no_padding = bool(pad_to_bucket_boundary), bool(no_padding)
    self._drop = bool(drop_remainder)
    spec = input_ds.element_spec
    flat = structure.flatten(spec)
    if structure.has_components(flat):
      raise NotImplementedError("bucket_by_sequence_length of SparseTensor/RaggedTensor "
                                "elements is not implemented in tensorlet's tf.data.")
    if no_padding:
      out = [structure.batch_spec(s, None) for s in flat]
      self._shapes = [s.shape for s in flat]
      self._pads = [None] * len(flat)
    else:
      shapes, pads = padding_config(spec, padded_shapes, padding_values)
      self._shapes, self._pads = shapes, pads
      out = [TensorSpec(TensorShape([None]).concatenate(
          TensorShape([None] * p.rank) if self._pad_to_boundary and p.rank is not None else p),
          s.dtype) for p, s in zip(shapes, flat)]
    self._setup([input_ds], self._len.captures, structure.pack(spec, out))

  def _bucket(self, n):
    for i, b in enumerate(self._bounds):
      if n < b:
        return i
    return len(self._bounds)

  def _batch(self, rows_of, bucket):
    if self._no_padding:
      from tensorlet.data.transformations import _stack
      return [_stack([r[k] for r in rows_of], k, "BatchDatasetV2")
              for k in range(len(rows_of[0]))]
    out = []
    for k, (shape, pad) in enumerate(zip(self._shapes, self._pads)):
      if self._pad_to_boundary and shape.rank is not None:
        if bucket == len(self._bounds):
          raise _invalid(f"When pad_to_bucket_boundary=True, elements must have length < "
                         f"max(bucket_boundaries) = {max(self._bounds)}.", "IteratorGetNext")
        shape = TensorShape([self._bounds[bucket] - 1 if d is None else d
                             for d in shape.as_list()])
      out.append(pad_rows([r[k] for r in rows_of], k, shape, pad))
    return out

  def _flat_iter(self):
    call, caps = self._len.callable, self._values
    groups = {}
    for e in self._inputs[0]._flat_iter():
      b = self._bucket(int(call(*e, *caps)[0]))
      groups.setdefault(b, []).append(e)
      if len(groups[b]) == self._sizes[b]:
        yield self._batch(groups.pop(b), b)
    if self._drop:
      return
    for b in sorted(groups):
      yield self._batch(groups[b], b)

  def _cardinality(self):
    n = self._inputs[0]._cardinality()
    return INFINITE_CARDINALITY if n == INFINITE_CARDINALITY else UNKNOWN_CARDINALITY
