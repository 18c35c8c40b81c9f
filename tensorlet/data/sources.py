"""Source datasets: from_tensor_slices, from_tensors, range, from_generator."""
import numpy as np

from tensorlet import _nest as nest
from tensorlet import dtypes as _dt
from tensorlet.data import structure
from tensorlet.data.dataset import UNKNOWN_CARDINALITY, DatasetV2, _int64
from tensorlet.errors import InvalidArgumentError, UnknownError
from tensorlet.tensor_shape import TensorShape
from tensorlet.tensor import convert_to_tensor
from tensorlet.tensor_spec import TensorSpec

__all__ = ["_TensorSliceDataset", "_TensorDataset", "_RangeDataset", "_GeneratorDataset"]


def _slicer(dtype):
  """Row i of a component as an element value (string scalars as 0-d object arrays)."""
  if dtype is _dt.string:
    def get(arr, i):
      return np.asarray(arr[i], dtype=object)
    return get
  return lambda arr, i: arr[i]


class _TensorSliceDataset(DatasetV2):
  _op_name = "TensorSliceDataset"

  def __init__(self, element):
    element = structure.normalize(element, "from_tensor_slices")
    flat = structure.flatten(element)
    if not flat:
      raise ValueError("Invalid `element`. `element` should not be empty.")
    in_specs = [structure.spec_of(t) for t in flat]
    specs = [structure.unbatch_spec(s) for s in in_specs]
    first = None
    for s in in_specs:
      d = s.shape[0] if s.shape.rank else None
      if first is not None and d is not None and d != first:
        raise ValueError(f"Dimensions {first} and {d} are not compatible")
      first = d if first is None else first
    # NOTE: composite slots travel as their component tensors; None keeps dense slicing as is
    self._in_specs = in_specs if structure.has_components(in_specs) else None
    params = flat if self._in_specs is None else structure.to_components(in_specs, flat)
    self._setup([], params, structure.pack(element, specs))

  def _validate(self):
    if self._in_specs is not None:
      from tensorlet.data.transformations import _unstackers
      slots = structure.group_slots(self._in_specs, self._values)
      try:
        rows = [f(v) for f, v in zip(_unstackers(self._in_specs, "TensorSliceDataset"),
                                      slots)]
      except InvalidArgumentError:
        rows = [None]
      if any(r is None for r in rows):
        raise InvalidArgumentError(None, None, "Unbatching a tensor is only supported for "
                                   "rank >= 1 [Op:TensorSliceDataset]")
      sizes = [len(r) for r in rows]
      if any(n != sizes[0] for n in sizes):
        raise InvalidArgumentError(None, None, f"All components must have the same size in "
                                   f"the 0th dimension, got {sizes} [Op:TensorSliceDataset]")
      self._rows, self._n = rows, sizes[0]
      return
    sizes = [np.shape(v)[0] if np.ndim(v) else None for v in self._values]
    if any(s is None for s in sizes):
      raise InvalidArgumentError(None, None, "Unbatching a tensor is only supported for "
                                 "rank >= 1 [Op:TensorSliceDataset]")
    if any(s != sizes[0] for s in sizes):
      raise InvalidArgumentError(None, None, f"All components must have the same size in the "
                                 f"0th dimension, got {sizes} [Op:TensorSliceDataset]")
    self._n = sizes[0]

  def _flat_iter(self):
    if self._in_specs is not None:
      yield from (list(r) for r in zip(*self._rows))
      return
    vals = self._values
    getters = [_slicer(s.dtype) for s in structure.flatten(self._element_spec)]
    pairs = list(zip(getters, vals))
    for i in range(self._n):
      yield [g(v, i) for g, v in pairs]

  def _index_iter(self):
    if self._in_specs is not None:
      return None
    return self._values, iter(range(self._n))

  def _cardinality(self):
    return self._n


class _TensorDataset(DatasetV2):
  _op_name = "TensorDataset"

  def __init__(self, element):
    element = structure.normalize(element, "from_tensors")
    flat = structure.flatten(element)
    specs = [structure.spec_of(t) for t in flat]
    self._slot_specs = specs if structure.has_components(specs) else None
    params = flat if self._slot_specs is None else structure.to_components(specs, flat)
    self._setup([], params, structure.pack(element, specs))

  def _flat_iter(self):
    if self._slot_specs is not None:
      yield structure.group_slots(self._slot_specs, self._values)
      return
    yield list(self._values)

  def _cardinality(self):
    return 1


class _RangeDataset(DatasetV2):
  _op_name = "RangeDataset"

  def __init__(self, args, output_type):
    if len(args) == 1:
      start, stop, step = 0, args[0], 1
    elif len(args) == 2:
      (start, stop), step = args, 1
    elif len(args) == 3:
      start, stop, step = args
    else:
      raise ValueError(f"Invalid `args`. The length of `args` should be between 1 and 3 but "
                       f"was {len(args)}.")
    self._dtype = _dt.as_dtype(output_type)
    params = [_int64(start, "start"), _int64(stop, "stop"), _int64(step, "step")]
    self._setup([], params, TensorSpec([], self._dtype))

  def _validate(self):
    if int(self._values[2]) == 0:
      raise InvalidArgumentError(None, None, "step must be a non-zero integer. "
                                 "[Op:RangeDataset]")

  def _flat_iter(self):
    start, stop, step = (int(v) for v in self._values)
    cast = self._dtype._np.type
    for i in range(start, stop, step):
      yield [cast(i)]

  def _cardinality(self):
    start, stop, step = (int(v) for v in self._values)
    return len(range(start, stop, step))


# ------------------------------------------------------------------ generator

def _generator_error(msg):
  return InvalidArgumentError(None, None, f"TypeError: {msg}\n [Op:IteratorGetNext]")


def _as_structure(x):
  """Output types/shapes: lists count as tuples."""
  if isinstance(x, list):
    return tuple(_as_structure(v) for v in x)
  if isinstance(x, tuple) and not hasattr(x, "_fields"):
    return tuple(_as_structure(v) for v in x)
  if isinstance(x, dict):
    return {k: _as_structure(v) for k, v in x.items()}
  return x


def _shape_of(s):
  if s is None:
    return TensorShape(None)
  return TensorShape(s)


def _shapes_up_to(types, shapes):
  """Shapes flattened like `types` (a shape is itself a tuple/list of dims)."""
  if isinstance(types, tuple):
    if not isinstance(shapes, (tuple, list)) or len(shapes) != len(types):
      raise TypeError(f"`output_shapes` {shapes!r} does not match the structure of "
                      f"`output_types` {types!r}")
    return [s for t, sh in zip(types, shapes) for s in _shapes_up_to(t, sh)]
  if isinstance(types, dict):
    if not isinstance(shapes, dict) or set(shapes) != set(types):
      raise TypeError(f"`output_shapes` {shapes!r} does not match the structure of "
                      f"`output_types` {types!r}")
    return [s for k in sorted(types) for s in _shapes_up_to(types[k], shapes[k])]
  return [_shape_of(shapes)]


def _flatten_up_to(spec, value):
  if isinstance(spec, tuple):
    if not isinstance(value, (tuple, list)) or len(value) != len(spec):
      raise ValueError("structure")
    return [x for s, v in zip(spec, value) for x in _flatten_up_to(s, v)]
  if isinstance(spec, dict):
    if not isinstance(value, dict) or set(value) != set(spec):
      raise ValueError("structure")
    return [x for k in sorted(spec) for x in _flatten_up_to(spec[k], value[k])]
  return [value]


def _convert(value, dtype):
  """The NumPy array of a generated value (TF's FuncRegistry._convert)."""
  if dtype is _dt.string:
    arr = np.asarray(value, dtype=object)
    flat = arr.reshape(-1)
    for i, x in enumerate(flat):
      if isinstance(x, str):
        flat[i] = x.encode("utf-8")
      elif not isinstance(x, bytes):
        raise TypeError(f"{x!r} is not a string")
    return arr
  if hasattr(value, "_as_tensor") or hasattr(value, "numpy"):
    value = np.asarray(value)
  arr = np.asarray(value, dtype=dtype._np)
  if arr.dtype.kind == "O":
    raise TypeError("object array")
  return arr


class _GeneratorDataset(DatasetV2):
  _op_name = "GeneratorDataset"
  _repr_name = "_FlatMapDataset"  # NOTE: TF builds from_generator with flat_map

  def __init__(self, generator, output_types, output_shapes, args, output_signature):
    if not callable(generator):
      raise TypeError("`generator` must be a Python callable.")
    if output_signature is not None:
      if output_types is not None:
        raise TypeError("The `output_types` argument can not be used together with the "
                        "`output_signature` argument.")
      if output_shapes is not None:
        raise TypeError("The `output_shapes` argument can not be used together with the "
                        "`output_signature` argument.")
      spec = _as_structure(output_signature)
      for s in nest.flatten(spec):
        if not isinstance(s, TensorSpec):
          raise TypeError(f"`output_signature` must contain objects that are subclass of "
                          f"`tf.TypeSpec` but found {type(s)} which is not.")
    else:
      if output_types is None:
        raise TypeError("To specify the output signature you need to provide either the "
                        "`output_signature` argument or the `output_types` argument.")
      types = nest.map_structure(_dt.as_dtype, _as_structure(output_types))
      if output_shapes is None:
        shapes = [TensorShape(None)] * len(nest.flatten(types))
      else:
        shapes = _shapes_up_to(types, output_shapes)
      spec = nest.pack_sequence_as(types, [TensorSpec(s, d) for s, d in
                                           zip(shapes, nest.flatten(types))])
    self._generator = generator
    params = [] if args is None else [convert_to_tensor(a) for a in nest.flatten(tuple(args))]
    self._setup([], params, spec)

  def _flat_iter(self):
    args = [v[()] if isinstance(v, np.ndarray) and v.ndim == 0 and v.dtype.kind == "O" else v
            for v in self._values]
    specs = structure.flatten(self._element_spec)
    for value in _guarded(self._generator, args):
      try:
        parts = _flatten_up_to(self._element_spec, value)
      except ValueError:
        raise _generator_error(
            f"`generator` yielded an element that did not match the expected structure. The "
            f"expected structure was {_types_of(self._element_spec)}, but the yielded element "
            f"was {value}.") from None
      out = []
      for v, s in zip(parts, specs):
        try:
          arr = _convert(v, s.dtype)
        except (TypeError, ValueError):
          raise _generator_error(
              f"`generator` yielded an element that could not be converted to the expected "
              f"type. The expected type was {s.dtype.name}, but the yielded element was "
              f"{v}.") from None
        if not s.shape.is_compatible_with(arr.shape):
          raise _generator_error(
              f"`generator` yielded an element of shape {arr.shape} where an element of shape "
              f"{s.shape} was expected.")
        out.append(arr if arr.ndim or s.dtype is _dt.string else arr[()])
      yield out

  def _cardinality(self):
    return UNKNOWN_CARDINALITY


def _guarded(generator, args):
  """The generator's values; its own exceptions become UnknownError, as TF's
  py_func reports them."""
  try:
    it = iter(generator(*args))
    while True:
      try:
        value = next(it)
      except StopIteration:
        return
      yield value
  except Exception as e:  # NOTE: any user error; TF wraps them all the same way
    raise UnknownError(None, None, f"{type(e).__name__}: {e}\n [Op:IteratorGetNext]") from e


def _types_of(spec):
  return nest.map_structure(lambda s: s.dtype, spec)
