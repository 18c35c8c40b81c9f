"""Array ops: creation, shape manipulation, joining/splitting, gathering,
slicing, selection. Shape-like arguments that may be computed at run time
(reshape's shape, fill's dims, tile's multiples) are tensor inputs; the rest
are attributes."""
import builtins

import numpy as np

from tensorlet import dtypes as _dt
from tensorlet.errors import InvalidArgumentError, out_of_memory
from tensorlet.ops import composite_dispatch as dispatch
from tensorlet.ops._common import (ALL, BOOL, NUMERIC, as_int, as_sequence, as_str, norm_axis,
                                   same_shape, single_axis)
from tensorlet.ops.registry import (constant_value, convert_inputs, execute, fill_value, op,
                                    pass_through, shape_value)
from tensorlet.tensor_shape import TensorShape
from tensorlet.tensor import EagerTensor, Tensor, constant, convert_to_tensor

_int32 = _dt.int32


def _math():
  from tensorlet.ops import math_ops
  return math_ops


def _shape_arg(shape, op_name):
  """A shape argument (list, TensorShape, tensor) as an int32/int64 tensor."""
  if isinstance(shape, TensorShape):
    shape = shape.as_list()
  if isinstance(shape, Tensor):
    if not shape.dtype.is_integer:
      raise InvalidArgumentError(None, None, f"{op_name}: shape must be an integer tensor, got "
                                 f"{shape.dtype.name} [Op:{op_name}]")
    return shape
  if isinstance(shape, (list, tuple)) and any(isinstance(d, Tensor) for d in shape):
    return stack([cast_int(d) for d in shape])
  try:
    arr = np.asarray(shape if not isinstance(shape, (list, tuple)) else
                     [-1 if d is None else d for d in shape])
  except (TypeError, ValueError):
    raise TypeError(f"{op_name}: expected a shape, got {shape!r}") from None
  if arr.size and arr.dtype.kind not in "iu":
    if arr.dtype == object and all(isinstance(d, int) for d in arr.reshape(-1).tolist()):
      raise ValueError(f"{op_name}: Can't convert Python sequence with out-of-range integer "
                       f"to Tensor: {shape!r}")
    raise TypeError(f"{op_name}: shape must contain integers, got {shape!r}")
  if not arr.size:
    return convert_to_tensor(np.zeros([0], np.int32))
  dims = arr.reshape(-1).tolist()
  if np.prod([max(d, 0) for d in dims], dtype=object) > _INT64_MAX:
    raise InvalidArgumentError(None, None, f"Shape {dims} would have more than 2**63 - 1 "
                               f"elements [Op:{op_name}]")
  # NOTE: as TF converts a Python list: int32 unless a value needs int64
  # (an int32 cast would wrap 2**40 round to 0).
  wide = max(dims) > _INT32_MAX or min(dims) < -_INT32_MAX - 1
  return convert_to_tensor(arr.astype(np.int64 if wide else np.int32))


_INT32_MAX = 2 ** 31 - 1
_INT64_MAX = 2 ** 63 - 1


def _dims_arg(shape, op_name):
  """`_shape_arg` for zeros/ones/fill, which also take a scalar n as the shape [n] (TF)."""
  s = _shape_arg(shape, op_name)
  return reshape(s, [1]) if s.shape.rank == 0 else s


def cast_int(d):
  return d if isinstance(d, Tensor) else convert_to_tensor(int(d))


def _const_shape(t):
  """TensorShape from a shape tensor's constant value (partially unknown if not constant)."""
  v = constant_value(t)
  if v is None:
    n = t.shape[0] if t.shape.rank == 1 else None
    return TensorShape(None if n is None else [None] * n)
  return TensorShape([None if d < 0 else int(d) for d in np.reshape(v, [-1])])


# ------------------------------------------------------------ identity

@op("Identity", shape=same_shape, expr="{0}", simplify=pass_through)
def Identity(x):
  return x


@Identity.def_grad
def _(op, dy):
  return [dy]


def identity(input, name=None):  # noqa: A002
  """Returns a tensor with the same value (reads a variable)."""
  return execute(Identity, [convert_to_tensor(input)], {})


@op("StopGradient", dtypes=ALL, shape=same_shape, differentiable=False,
    simplify=pass_through)
def StopGradient(x):
  return x


def stop_gradient(input, name=None):  # noqa: A002
  """Identity whose gradient is None: nothing flows back through it."""
  return execute(StopGradient, [convert_to_tensor(input)], {})


@op("PreventGradient", dtypes=ALL, shape=same_shape)
def PreventGradient(x, *, message=""):
  return x


@PreventGradient.def_grad
def _(op, dy):
  raise LookupError(f"Gradient explicitly disabled. Reason: {op.attrs['message']}")


# --------------------------------------------------------------- shape

def _shape_out(inputs, attrs):
  x = inputs[0]
  return [(TensorShape([x.shape.rank]), attrs["out_type"])]


@op("Shape", dtypes=ALL, shape=_shape_out, differentiable=False, static_value=shape_value)
def Shape(x, *, out_type):
  return np.array(np.shape(x), dtype=out_type._np)


@op("Size", dtypes=ALL, shape=lambda i, a: [(TensorShape([]), a["out_type"])],
    differentiable=False, static_value=shape_value)
def Size(x, *, out_type):
  return out_type._np.type(np.size(x))


@op("Rank", dtypes=ALL, shape=lambda i, a: [(TensorShape([]), _int32)], differentiable=False,
    static_value=shape_value)
def Rank(x):
  return np.int32(np.ndim(x))


def shape(input, out_type=_int32, name=None):  # noqa: A002
  """The shape of `input` as a 1-D int32 tensor."""
  return execute(Shape, [convert_to_tensor(input)], {"out_type": _dt.as_dtype(out_type)})


def shape_n(input, out_type=_int32, name=None):  # noqa: A002
  return [shape(x, out_type) for x in as_sequence(input, "ShapeN", "input")]


def size(input, out_type=_int32, name=None):  # noqa: A002
  """Number of elements of `input`."""
  return execute(Size, [convert_to_tensor(input)], {"out_type": _dt.as_dtype(out_type)})


def rank(input, name=None):  # noqa: A002
  """Number of dimensions of `input`."""
  return execute(Rank, [convert_to_tensor(input)], {})


# ------------------------------------------------------------- reshape

def _reshape_shape(inputs, attrs):
  x, s = inputs
  target = _const_shape(s)
  if target.rank is not None and x.shape.is_fully_defined():
    dims = target.as_list()
    n = x.shape.num_elements()
    unknown = [i for i, d in enumerate(dims) if d is None]
    known = int(np.prod([d for d in dims if d is not None]))
    if len(unknown) > 1:
      if constant_value(s) is not None:
        raise ValueError("Only one input size may be -1, not both "
                         f"{unknown[0]} and {unknown[1]}")
    elif len(unknown) == 1:
      if known == 0 or n % known:
        raise ValueError(f"Input to reshape is a tensor with {n} values, but the requested "
                         f"shape requires a multiple of {known}")
      dims[unknown[0]] = n // known
    elif known != n:
      raise ValueError(f"Input to reshape is a tensor with {n} values, but the requested "
                       f"shape has {known}")
    target = TensorShape(dims)
  return [(target, x.dtype)]


@op("Reshape", type_inputs=(0,), dtypes=ALL, shape=_reshape_shape, grad_shape="exact")
def Reshape(x, shape):
  return np.reshape(x, shape)


@Reshape.def_grad
def _(op, dy):
  return [reshape(dy, _shape_of(op.inputs[0])), None]


def _shape_of(x):
  """Static shape as a list when fully known (cheap eagerly), else a Shape op."""
  s = x.shape
  return s.as_list() if s.is_fully_defined() else shape(x)


def reshape(tensor, shape, name=None):
  """Gives `tensor` a new shape with the same number of elements (-1 infers one dim)."""
  return execute(Reshape, [convert_to_tensor(tensor), _shape_arg(shape, "Reshape")], {})


# ------------------------------------------------------------ creation

def _fill_shape(inputs, attrs):
  dims, v = inputs
  return [(_const_shape(dims), v.dtype)]


@op("Fill", type_inputs=(1,), dtypes=ALL, shape=_fill_shape)
def Fill(dims, value):
  if np.any(np.asarray(dims) < 0):
    raise ValueError(f"dims must be non-negative, got {list(dims)}")
  return np.full(tuple(dims), value, dtype=np.asarray(value).dtype)


@Fill.def_grad
def _(op, dy):
  return [None, _math().reduce_sum(dy)]


def fill(dims, value, name=None):
  """A tensor of shape `dims` filled with the scalar `value`."""
  v = convert_to_tensor(value)
  if v.shape.rank not in (0, None):
    raise InvalidArgumentError(None, None, f"value must be a scalar, got shape {v.shape} "
                               f"[Op:Fill]")
  return execute(Fill, [_dims_arg(dims, "Fill"), v], {})


def _creation(value):
  def f(shape, dtype=_dt.float32, name=None, layout=None):
    dtype = _dt.as_dtype(dtype)
    s = _dims_arg(shape, "Fill")
    cv = constant_value(s)
    if cv is not None:
      if np.any(cv < 0):
        raise InvalidArgumentError(None, None, "Dimension -1 must be >= 0 [Op:Fill]")
      dims = tuple(int(d) for d in cv)
      try:
        v = np.full(dims, value, dtype=dtype._np) if dtype is not _dt.string \
            else np.full(dims, b"", dtype=object)
      except MemoryError:
        raise out_of_memory("Fill", f"tensor with shape{list(dims)} and type "
                            f"{dtype.name}") from None
      return constant(v, dtype=dtype, name=kind)
    return execute(Fill, [s, constant(value if dtype is not _dt.string else b"", dtype)], {},
                   kind)
  kind = "zeros" if value == 0 else "ones"
  return f


zeros = _creation(0)
zeros.__name__ = "zeros"
zeros.__doc__ = "A tensor of the given shape filled with zeros."
ones = _creation(1)
ones.__name__ = "ones"
ones.__doc__ = "A tensor of the given shape filled with ones."


@op("ZerosLike", dtypes=ALL, shape=same_shape, differentiable=False,
    static_value=fill_value(0), role="zeros")
def ZerosLike(x):
  return np.zeros_like(x) if x.dtype.kind != "O" else np.full(np.shape(x), b"", dtype=object)


@op("OnesLike", dtypes=NUMERIC | BOOL, shape=same_shape, differentiable=False,
    static_value=fill_value(1))
def OnesLike(x):
  return np.ones_like(x)


@dispatch.add_dispatch_support
def zeros_like(input, dtype=None, name=None, layout=None):  # noqa: A002
  """Zeros with the shape (and dtype, unless given) of `input`."""
  x = convert_to_tensor(input)
  r = execute(ZerosLike, [x], {})
  return r if dtype is None or _dt.as_dtype(dtype) is x.dtype else _math().cast(r, dtype)


@dispatch.add_dispatch_support
def ones_like(input, dtype=None, name=None, layout=None):  # noqa: A002
  """Ones with the shape (and dtype, unless given) of `input`."""
  x = convert_to_tensor(input)
  r = execute(OnesLike, [x], {})
  return r if dtype is None or _dt.as_dtype(dtype) is x.dtype else _math().cast(r, dtype)


def _range_shape(inputs, attrs):
  vals = [constant_value(t) for t in inputs]
  if all(v is not None for v in vals):
    return [(TensorShape([len(np.arange(*[v.item() for v in vals]))]), inputs[0].dtype)]
  return [(TensorShape([None]), inputs[0].dtype)]


@op("Range", dtypes=NUMERIC - _dt.COMPLEX, shape=_range_shape, differentiable=False)
def Range(start, limit, delta):
  if delta == 0:
    raise ValueError("Requires delta != 0")
  if (delta > 0 and start > limit) or (delta < 0 and start < limit):
    raise ValueError(f"Requires start <= limit when delta > 0: {start}/{limit}" if delta > 0 else
                     f"Requires start >= limit when delta < 0: {start}/{limit}")
  return np.arange(start, limit, delta, dtype=np.asarray(start).dtype)


def range(start, limit=None, delta=1, dtype=None, name="range"):  # noqa: A001
  """Numbers from `start` up to (not including) `limit` in steps of `delta`."""
  if limit is None:
    start, limit = 0, start
  args = [start, limit, delta]
  if dtype is not None:
    dtype = _dt.as_dtype(dtype)
    # NOTE: as TF's: tensors are cast, Python values converted (2.0 to int32 is a TypeError)
    ts = [_math().cast(a, dtype) if isinstance(a, Tensor) else convert_to_tensor(a, dtype)
          for a in args]
  else:
    ts = [convert_to_tensor(a) for a in args]
    order = [_dt.int32, _dt.int64, _dt.float32, _dt.float64]
    best = builtins.max((t.dtype for t in ts), key=lambda d: order.index(d) if d in order else 0)
    ts = [t if t.dtype is best else _math().cast(t, best) for t in ts]
  for i, t in enumerate(ts):
    if t.shape.rank not in (0, None):
      raise InvalidArgumentError(None, None, f"{['start', 'limit', 'delta'][i]} must be a "
                                 f"scalar, not shape {t.shape} [Op:Range]")
  return execute(Range, ts, {})


def linspace(start, stop, num, name=None, axis=0):
  """`num` evenly spaced values from `start` to `stop` inclusive (both ends exact).

  As TF's: `stop` takes `start`'s dtype, and integer bounds give float64
  (the step is a true division).
  """
  m = _math()
  start = convert_to_tensor(start)
  stop = convert_to_tensor(stop, start.dtype) if not isinstance(stop, Tensor) else stop
  if stop.dtype is not start.dtype:
    raise TypeError(f"stop has dtype {stop.dtype.name}, expected start's {start.dtype.name}")
  nv = constant_value(convert_to_tensor(num))
  if nv is None or np.ndim(nv) != 0 or np.asarray(nv).dtype.kind not in "iu":
    raise TypeError(f"num must be a known integer scalar, got {num!r}")
  n = int(nv)
  if n < 0:
    raise InvalidArgumentError(None, None, "Requires start <= limit when delta > 0: 1/-1"
                               " [Op:Range]")
  shape = broadcast_static_shape(start.shape, stop.shape)
  if not (start.shape == stop.shape and start.shape.is_fully_defined()):
    dyn = broadcast_dynamic_shape(_shape_of(start), _shape_of(stop))
    start, stop = broadcast_to(start, dyn), broadcast_to(stop, dyn)
  delta = (stop - start) / m.cast(builtins.max(n - 1, 1), start.dtype)
  start, stop = m.cast(start, delta.dtype), m.cast(stop, delta.dtype)
  s0, s1 = expand_dims(start, 0), expand_dims(stop, 0)
  steps = m.cast(range(1, builtins.max(n - 1, 1)), delta.dtype)
  mid = s0 + reshape(steps, [-1] + [1] * shape.rank) * expand_dims(delta, 0)
  r = concat([s0, mid, s1], 0)[:n]
  axis = single_axis(axis, shape.rank + 1, "LinSpace")
  if axis != 0:
    perm = list(builtins.range(1, shape.rank + 1))
    perm.insert(axis, 0)
    r = transpose(r, perm)
  return r


def eye(num_rows, num_columns=None, batch_shape=None, dtype=_dt.float32, name=None):
  """Identity matrix (or a batch of them)."""
  dtype = _dt.as_dtype(dtype)
  rows = as_int(num_rows, "Eye", "num_rows")
  cols = rows if num_columns is None else as_int(num_columns, "Eye", "num_columns")
  if rows < 0 or cols < 0:
    raise InvalidArgumentError(None, None, f"Eye: num_rows and num_columns must be >= 0, got "
                               f"{rows} and {cols} [Op:Eye]")
  if batch_shape is not None:
    batch_shape = [as_int(d, "Eye", "batch_shape") for d in
                   as_sequence(batch_shape, "Eye", "batch_shape")]
  try:
    m = np.eye(rows, cols, dtype=dtype._np)
    if batch_shape is not None:
      m = np.broadcast_to(m, tuple(batch_shape) + m.shape).copy()
  except MemoryError:
    raise out_of_memory("Eye", f"tensor with shape{list(batch_shape or []) + [rows, cols]} "
                        f"and type {dtype.name}") from None
  return constant(m, dtype=dtype)


# ---------------------------------------------------------- broadcasting

def _bt_shape(inputs, attrs):
  return [(_const_shape(inputs[1]), inputs[0].dtype)]


@op("BroadcastTo", type_inputs=(0,), dtypes=ALL, shape=_bt_shape)
def BroadcastTo(x, shape):
  try:
    return np.broadcast_to(x, tuple(shape))
  except ValueError:
    raise InvalidArgumentError(None, None, f"Incompatible shapes: {_l(np.shape(x))} vs. "
                               f"{_l(shape)} [Op:BroadcastTo]") from None


@BroadcastTo.def_grad
def _(op, dy):
  return [_math().sum_to_shape(dy, shape(op.inputs[0])), None]


def broadcast_to(input, shape, name=None):  # noqa: A002
  """Broadcasts `input` to `shape`."""
  x = convert_to_tensor(input)
  s = _shape_arg(shape, "BroadcastTo")
  cv = constant_value(s)
  if cv is not None and x.shape.is_fully_defined() and x.shape.as_list() == list(cv):
    return x
  return execute(BroadcastTo, [x, s], {})


def broadcast_static_shape(shape_x, shape_y):
  from tensorlet.tensor_shape import broadcast_static
  return broadcast_static(shape_x, shape_y)


@op("BroadcastArgs", dtypes=_dt.INTS, shape=lambda i, a: [(TensorShape([None]), i[0].dtype)],
    differentiable=False)
def BroadcastArgs(s0, s1):
  try:
    return np.array(np.broadcast_shapes(tuple(s0), tuple(s1)), dtype=s0.dtype)
  except ValueError:
    raise InvalidArgumentError(None, None, f"Incompatible shapes: {_l(s0)} vs. {_l(s1)} "
                               f"[Op:BroadcastArgs]") from None


def broadcast_dynamic_shape(shape_x, shape_y):
  """The broadcast of two shapes given as 1-D integer tensors."""
  return execute(BroadcastArgs, convert_inputs(BroadcastArgs, (shape_x, shape_y)), {})


# ----------------------------------------------------------- transpose

def _transpose_shape(inputs, attrs):
  x = inputs[0]
  if x.shape.rank is None:
    return [(TensorShape(None), x.dtype)]
  perm = attrs["perm"]
  if sorted(perm) != list(builtins.range(x.shape.rank)):
    raise ValueError(f"transpose expects a vector of size {x.shape.rank}. But input(1) is a "
                     f"vector of size {len(perm)}" if len(perm) != x.shape.rank else
                     f"{list(perm)} is not a valid permutation of {x.shape.rank} dimensions")
  d = x.shape.as_list()
  return [(TensorShape([d[p] for p in perm]), x.dtype)]


@op("Transpose", dtypes=ALL, shape=_transpose_shape)
def Transpose(x, *, perm):
  return np.transpose(x, perm)


@Transpose.def_grad
def _(op, dy):
  return [transpose(dy, list(np.argsort(op.attrs["perm"])))]


def transpose(a, perm=None, conjugate=False, name="transpose"):
  """Permutes the dimensions of `a` (reverses them when `perm` is None)."""
  x = convert_to_tensor(a)
  r = x.shape.rank
  if perm is None:
    perm = tuple(builtins.range(r - 1, -1, -1))
  else:
    cv = constant_value(convert_to_tensor(perm))
    perm = tuple(int(p) % r if r else int(p) for p in np.reshape(cv, [-1]))
  out = execute(Transpose, [x], {"perm": perm})
  if conjugate and x.dtype.is_complex:
    out = _math().conj(out)
  return out


def matrix_transpose(a, name="matrix_transpose", conjugate=False):
  x = convert_to_tensor(a)
  r = x.shape.rank
  perm = list(builtins.range(r - 2)) + [r - 1, r - 2]
  return transpose(x, perm, conjugate=conjugate)


# ---------------------------------------------------------------- concat

def _concat_shape(inputs, attrs):
  ax = attrs["axis"]
  first = inputs[0]
  if any(t.shape.rank is None for t in inputs):
    return [(TensorShape(None), first.dtype)]
  r = first.shape.rank
  dims = first.shape.as_list()
  total = 0
  for t in inputs:
    d = t.shape.as_list()
    if len(d) != r:
      raise ValueError(f"Ranks of all input tensors should match: shape[0] = {_l(dims)} vs. "
                       f"shape[{inputs.index(t)}] = {_l(d)}")
    for i in builtins.range(r):
      if i != ax and d[i] is not None and dims[i] is not None and d[i] != dims[i]:
        raise ValueError(f"Dimension {i} in both shapes must be equal: shape[0] = {_l(dims)} vs. "
                         f"shape[{inputs.index(t)}] = {_l(d)}")
    total = None if total is None or d[ax] is None else total + d[ax]
  dims[ax] = total
  return [(TensorShape(dims), first.dtype)]


def _l(d):
  return "[" + ",".join("?" if x is None else str(x) for x in d) + "]"


@op("ConcatV2", dtypes=ALL, shape=_concat_shape)
def ConcatV2(*values, axis):
  return np.concatenate(values, axis=axis)


@ConcatV2.def_grad
def _(op, dy):
  ax = op.attrs["axis"]
  if all(t.shape[ax] is not None for t in op.inputs):
    sizes = [t.shape[ax] for t in op.inputs]
  else:
    sizes = [shape(t)[ax] for t in op.inputs]
  return list(split(dy, sizes, axis=ax))


@dispatch.add_dispatch_support
def concat(values, axis, name="concat"):
  """Joins tensors along an existing `axis`."""
  if isinstance(values, Tensor):
    values = [values]    # as TF: one tensor is a list of one
  ts = convert_inputs(ConcatV2, as_sequence(values, "ConcatV2", "values"))
  if not ts:
    raise ValueError("concat expects at least one tensor")
  r = ts[0].shape.rank
  if r == 0:
    raise InvalidArgumentError(None, None, "Can't concatenate scalars (use tf.stack instead) "
                               "[Op:ConcatV2]")
  ax = single_axis(axis, r, "ConcatV2")
  if len(ts) == 1:
    return identity(ts[0])
  return execute(ConcatV2, ts, {"axis": ax})


def _pack_shape(inputs, attrs):
  first = inputs[0]
  for t in inputs[1:]:
    if not t.shape.is_compatible_with(first.shape):
      raise ValueError(f"Shapes of all inputs must match: values[0].shape = {_l(first.shape)} "
                       f"!= values[{inputs.index(t)}].shape = {_l(t.shape)}")
  if first.shape.rank is None:
    return [(TensorShape(None), first.dtype)]
  d = first.shape.as_list()
  d.insert(attrs["axis"], len(inputs))
  return [(TensorShape(d), first.dtype)]


@op("Pack", dtypes=ALL, shape=_pack_shape)
def Pack(*values, axis):
  return np.stack(values, axis=axis)


@Pack.def_grad
def _(op, dy):
  return list(unstack(dy, num=len(op.inputs), axis=op.attrs["axis"]))


@dispatch.add_dispatch_support
def stack(values, axis=0, name="stack"):
  """Stacks same-shaped tensors along a new `axis`."""
  ts = convert_inputs(Pack, values if isinstance(values, Tensor) and values.shape.rank else
                      as_sequence(values, "Pack", "values"))
  if not ts:
    raise ValueError("stack expects at least one tensor")
  r = next((t.shape.rank for t in ts if t.shape.rank is not None), None)
  if r is not None and not -r - 1 <= as_int(axis, "Pack", "axis") <= r:
    raise ValueError(f"Argument `axis` = {axis} not in range [{-r - 1}, {r + 1})")
  if r is None and as_int(axis, "Pack", "axis") < 0:
    raise ValueError(f"stack: a negative axis ({axis}) needs inputs of known rank")
  ax = as_int(axis, "Pack", "axis") if r is None else single_axis(axis, r + 1, "Pack")
  return execute(Pack, ts, {"axis": ax})


def _unpack_shape(inputs, attrs):
  x = inputs[0]
  ax = attrs["axis"]
  if x.shape.rank is None:
    return [(TensorShape(None), x.dtype)] * attrs["num"]
  d = x.shape.as_list()
  if d[ax] is not None and d[ax] != attrs["num"]:
    raise ValueError(f"Input shape axis {ax} must equal {attrs['num']}, got shape {_l(d)}")
  del d[ax]
  return [(TensorShape(d), x.dtype)] * attrs["num"]


@op("Unpack", dtypes=ALL, shape=_unpack_shape, num_outputs=None)
def Unpack(x, *, num, axis):
  return tuple(np.moveaxis(x, axis, 0)[i] for i in builtins.range(num))


@Unpack.def_grad
def _(op, *dys):
  dys = [d if d is not None else zeros_like(o) for d, o in zip(dys, op.outputs)]
  return [stack(dys, axis=op.attrs["axis"])]


def unstack(value, num=None, axis=0, name="unstack"):
  """Splits `value` along `axis` into a list of tensors of one rank less."""
  x = convert_to_tensor(value)
  r = x.shape.rank
  if r == 0:
    raise ValueError("Input shape must have rank at least 1, got shape ()")
  if r is not None and not -r <= as_int(axis, "Unpack", "axis") < r:
    raise ValueError(f"Argument `axis` = {axis} not in range [{-r}, {r})")
  ax = single_axis(axis, r, "Unpack")
  if num is None:
    num = x.shape[ax]
    if num is None:
      raise ValueError(f"Cannot infer argument `num` from shape {x.shape}")
  return list(execute(Unpack, [x], {"num": as_int(num, "Unpack", "num"), "axis": ax}))


def _split_shape(inputs, attrs):
  x, k, ax = inputs[0], attrs["num_split"], attrs["axis"]
  if x.shape.rank is None:
    return [(TensorShape(None), x.dtype)] * k
  d = x.shape.as_list()
  sv = constant_value(inputs[1])
  dims = [None] * k if sv is None else [int(v) for v in np.reshape(sv, [-1])]
  if -1 in dims:
    dims[dims.index(-1)] = None if d[ax] is None else d[ax] - (sum(dims) + 1)
  elif None not in dims and d[ax] is not None and sum(dims) != d[ax]:
    raise ValueError(f"Determined shape must either match input shape along split_dim exactly "
                     f"if fully specified, or be less than the size of the input along "
                     f"split_dim if not fully specified.  Got: {sum(dims)}")
  return [(TensorShape(d[:ax] + [v] + d[ax + 1:]), x.dtype) for v in dims]


@op("SplitV", type_inputs=(0,), dtypes=ALL, shape=_split_shape, num_outputs=None)
def SplitV(x, size_splits, *, num_split, axis):
  sizes = [int(v) for v in np.reshape(size_splits, [-1])]
  n = x.shape[axis]
  if -1 in sizes:
    sizes[sizes.index(-1)] = n - (sum(sizes) + 1)
  if sum(sizes) != n or min(sizes) < 0:
    raise InvalidArgumentError(None, None, f"Determined shape must either match input shape "
                               f"along split_dim exactly if fully specified, or be less than the "
                               f"size of the input along split_dim if not fully specified.  "
                               f"Got: {sum(sizes)} [Op:SplitV]")
  return tuple(np.split(x, np.cumsum(sizes)[:-1], axis=axis))


@SplitV.def_grad
def _(op, *dys):
  dys = [d if d is not None else zeros_like(o) for d, o in zip(dys, op.outputs)]
  return [concat(dys, axis=op.attrs["axis"]), None]


def _split_equal_shape(inputs, attrs):
  x, k, ax = inputs[0], attrs["num_split"], attrs["axis"]
  if x.shape.rank is None:
    return [(TensorShape(None), x.dtype)] * k
  d = x.shape.as_list()
  if d[ax] is not None:
    if d[ax] % k:
      raise ValueError(f"Number of ways to split should evenly divide the split dimension, but "
                       f"got split_dim {ax} (size = {d[ax]}) and num_split {k}")
    d[ax] //= k
  return [(TensorShape(d), x.dtype)] * k


@op("Split", dtypes=ALL, shape=_split_equal_shape, num_outputs=None)
def Split(x, *, num_split, axis):
  # NOTE: basic slicing (views, as np.split gives) without np.split's Python overhead,
  # which showed in recurrent loops that split gates every step.
  n = x.shape[axis] // num_split
  cut = builtins.slice
  lead = (cut(None),) * (axis % x.ndim)
  return tuple(x[lead + (cut(i * n, (i + 1) * n),)] for i in builtins.range(num_split))


@Split.def_grad
def _(op, *dys):
  dys = [d if d is not None else zeros_like(o) for d, o in zip(dys, op.outputs)]
  return [concat(dys, axis=op.attrs["axis"])]


def split(value, num_or_size_splits, axis=0, num=None, name="split"):
  """Splits `value` along `axis` into equal parts or parts of the given sizes."""
  x = convert_to_tensor(value)
  ax = single_axis(axis, x.shape.rank, "SplitV")
  n = x.shape[ax]
  if isinstance(num_or_size_splits, (int, np.integer)) or (
      isinstance(num_or_size_splits, Tensor) and num_or_size_splits.shape.rank == 0):
    k = as_int(num_or_size_splits, "Split", "num_or_size_splits")
    if k <= 0 or (n is not None and n % k):
      raise InvalidArgumentError(None, None, f"Number of ways to split should evenly divide the "
                                 f"split dimension, but got split_dim {ax} (size = {n}) and "
                                 f"num_split {k} [Op:Split]")
    return list(execute(Split, [x], {"num_split": k, "axis": ax}))
  sz = convert_to_tensor(num_or_size_splits)
  if not sz.dtype.is_integer or sz.shape.rank != 1:
    raise InvalidArgumentError(None, None, f"size_splits must be a 1-D integer tensor, got "
                               f"{sz!r} [Op:SplitV]")
  sizes = constant_value(sz)
  if sizes is not None:
    sizes = [int(s) for s in sizes]
    if -1 in sizes and n is not None:
      sizes[sizes.index(-1)] = n - (sum(sizes) + 1)
    if n is not None and (sum(sizes) != n or min(sizes, default=0) < 0):
      raise InvalidArgumentError(None, None, f"Determined shape must either match input shape "
                                 f"along split_dim exactly if fully specified, or be less than "
                                 f"the size of the input along split_dim if not fully "
                                 f"specified.  Got: {sum(sizes)} [Op:SplitV]")
    sz = constant(np.array(sizes, np.int32))
  k = sz.shape[0] if num is None else as_int(num, "SplitV", "num")
  if k is None:
    raise ValueError(f"Cannot infer argument `num` from shape {sz.shape}")
  return list(execute(SplitV, [x, sz], {"num_split": k, "axis": ax}))


# ----------------------------------------------------------- expand/squeeze

def _expand_shape(inputs, attrs):
  x = inputs[0]
  if x.shape.rank is None:
    return [(TensorShape(None), x.dtype)]
  d = x.shape.as_list()
  d.insert(attrs["axis"], 1)
  return [(TensorShape(d), x.dtype)]


@op("ExpandDims", dtypes=ALL, shape=_expand_shape)
def ExpandDims(x, *, axis):
  return np.expand_dims(x, axis)


@ExpandDims.def_grad
def _(op, dy):
  return [reshape(dy, _shape_of(op.inputs[0]))]


def expand_dims(input, axis, name=None):  # noqa: A002
  """Inserts a dimension of size 1 at `axis`."""
  x = convert_to_tensor(input)
  r = x.shape.rank
  a = as_int(constant_value(convert_to_tensor(axis)), "ExpandDims", "axis")
  if r is not None and not -r - 1 <= a <= r:
    raise InvalidArgumentError(None, None, f"Tried to expand dim index {a} for tensor with "
                               f"{r} dimensions. [Op:ExpandDims]")
  if r is not None and a < 0:
    a += r + 1
  return execute(ExpandDims, [x], {"axis": a})


def _squeeze_shape(inputs, attrs):
  x = inputs[0]
  if x.shape.rank is None:
    return [(TensorShape(None), x.dtype)]
  d = x.shape.as_list()
  ax = attrs["axis"]
  if ax:
    for a in ax:
      if d[a] not in (1, None):
        raise ValueError(f"Can not squeeze dim[{a}], expected a dimension of 1, got {d[a]}")
    return [(TensorShape([v for i, v in enumerate(d) if i not in ax]), x.dtype)]
  return [(TensorShape([v for v in d if v != 1]), x.dtype)]


@op("Squeeze", dtypes=ALL, shape=_squeeze_shape)
def Squeeze(x, *, axis):
  return np.squeeze(x, axis=axis if axis else None)


@Squeeze.def_grad
def _(op, dy):
  return [reshape(dy, _shape_of(op.inputs[0]))]


def squeeze(input, axis=None, name=None, squeeze_dims=None):  # noqa: A002
  """Removes dimensions of size 1 (only those in `axis` when given)."""
  x = convert_to_tensor(input)
  axis = squeeze_dims if axis is None else axis
  ax = norm_axis(axis, x.shape.rank, "Squeeze") if axis is not None else ()
  return execute(Squeeze, [x], {"axis": ax})


# ------------------------------------------------------------------ gather

def _gather_shape(inputs, attrs):
  p, i = inputs
  ax, bd = attrs["axis"], attrs["batch_dims"]
  if p.shape.rank is None or i.shape.rank is None:
    return [(TensorShape(None), p.dtype)]
  pd, idd = p.shape.as_list(), i.shape.as_list()
  return [(TensorShape(pd[:ax] + idd[bd:] + pd[ax + 1:]), p.dtype)]


def _check_indices(idx, n, op_name):
  if idx.size and (idx.min() < 0 or idx.max() >= n):
    bad = (idx < 0) | (idx >= n)
    pos = np.unravel_index(int(np.argmax(bad)), idx.shape)
    raise InvalidArgumentError(None, None, f"indices[{','.join(str(int(p)) for p in pos)}] = "
                               f"{idx[pos]} is not in [0, {n}) [Op:{op_name}]")


def _check_index_dtype(i, op_name, attr="Tindices", allowed="int16, int32, int64"):
  if not i.dtype.is_integer:
    from tensorlet.ops.registry import _rt  # TF's runtime dtype names ("float")
    raise InvalidArgumentError(None, None, f"Value for attr '{attr}' of {_rt(i.dtype)} is not "
                               f"in the list of allowed values: {allowed} [Op:{op_name}]")


def _check_nd_indices(indices, shape, op_name):
  """Each index tuple (last axis of `indices`) must lie inside `shape`."""
  k = indices.shape[-1] if indices.ndim else 0
  if k > len(shape):
    raise InvalidArgumentError(None, None, f"Index innermost dimension length must be <= "
                               f"output rank; saw: {k} vs. {len(shape)} [Op:{op_name}]")
  flat = indices.reshape(-1, k)
  bad = np.any((flat < 0) | (flat >= np.asarray(shape[:k], dtype=np.int64)), axis=1)
  if bad.any():
    j = int(np.argmax(bad))
    raise InvalidArgumentError(None, None, f"indices[{j}] = [{', '.join(map(str, flat[j]))}] "
                               f"does not index into shape {_l(shape)} [Op:{op_name}]")


@op("GatherV2", type_inputs=(0,), dtypes=ALL, shape=_gather_shape)
def GatherV2(params, indices, *, axis, batch_dims):
  _check_indices(np.asarray(indices), params.shape[axis], "GatherV2")
  if batch_dims == 0:
    return np.take(params, indices, axis=axis)
  out = [np.take(p, i, axis=axis - batch_dims) for p, i in zip(
      params.reshape((-1,) + params.shape[batch_dims:]),
      indices.reshape((-1,) + indices.shape[batch_dims:]))]
  res = np.stack(out)
  return res.reshape(params.shape[:batch_dims] + res.shape[1:])


@GatherV2.def_grad
def _(op, dy):
  p, i = op.inputs
  return [execute(GatherGrad, [dy, i, shape(p)], {"axis": op.attrs["axis"],
                                                    "batch_dims": op.attrs["batch_dims"]}), None]


@op("GatherGrad", type_inputs=(0,), dtypes=NUMERIC,
    shape=lambda i, a: [(_const_shape(i[2]), i[0].dtype)])
def GatherGrad(dy, indices, params_shape, *, axis, batch_dims):
  """Dense gradient of GatherV2: scatter-adds `dy` into zeros of params' shape."""
  out = np.zeros(tuple(params_shape), dtype=dy.dtype)
  if batch_dims == 0:
    moved = np.moveaxis(out, axis, 0)
    g = np.moveaxis(dy, list(builtins.range(axis, axis + indices.ndim)),
                    list(builtins.range(indices.ndim)))
    np.add.at(moved, indices, g)
    return out
  for b in np.ndindex(*params_shape[:batch_dims]):
    sub = out[b]
    np.add.at(np.moveaxis(sub, axis - batch_dims, 0), indices[b],
              np.moveaxis(dy[b], list(builtins.range(axis - batch_dims,
                                                      axis - batch_dims + indices[b].ndim)),
                          list(builtins.range(indices[b].ndim))))
  return out


@GatherGrad.def_grad
def _(op, ddx):
  return [gather(ddx, op.inputs[1], axis=op.attrs["axis"], batch_dims=op.attrs["batch_dims"]),
          None, None]


@dispatch.add_dispatch_support
def gather(params, indices, validate_indices=None, axis=None, batch_dims=0, name=None):
  """Gathers slices of `params` along `axis` at `indices`."""
  p = convert_to_tensor(params)
  i = convert_to_tensor(indices)
  _check_index_dtype(i, "GatherV2")
  r = p.shape.rank
  ir = i.shape.rank
  if ir is not None and not -ir <= batch_dims <= ir:
    raise InvalidArgumentError(None, None, f"Expected batch_dims in the range [{-ir}, {ir}], but "
                               f"got {batch_dims} [Op:GatherV2]")
  bd = batch_dims + ir if batch_dims < 0 else batch_dims
  ax = single_axis(bd if axis is None else axis, r, "GatherV2")
  if ax < bd:
    raise InvalidArgumentError(None, None, f"batch_dims ({bd}) must be less than or equal to "
                               f"axis ({ax}). [Op:GatherV2]")
  return execute(GatherV2, [p, i], {"axis": ax, "batch_dims": bd})


def _gnd_shape(inputs, attrs):
  p, i = inputs
  if p.shape.rank is None or i.shape.rank is None or i.shape[-1] is None:
    return [(TensorShape(None), p.dtype)]
  k = i.shape[-1]
  return [(TensorShape(i.shape.as_list()[:-1] + p.shape.as_list()[k:]), p.dtype)]


@op("GatherNd", type_inputs=(0,), dtypes=ALL, shape=_gnd_shape)
def GatherNd(params, indices):
  k = indices.shape[-1]
  if k > params.ndim:
    raise InvalidArgumentError(None, None, f"index innermost dimension length must be <= params "
                               f"rank; saw: {k} vs. {params.ndim} [Op:GatherNd]")
  flat = indices.reshape(-1, k)
  bad = np.any((flat < 0) | (flat >= np.asarray(params.shape[:k], dtype=np.int64)), axis=1)
  if bad.any():
    j = int(np.argmax(bad))
    pos = ",".join(str(int(v)) for v in np.unravel_index(j, indices.shape[:-1]))
    raise InvalidArgumentError(None, None, f"indices[{pos}] = [{', '.join(map(str, flat[j]))}] "
                               f"does not index into param shape {_l(params.shape)} "
                               f"[Op:GatherNd]")
  return params[tuple(np.moveaxis(indices, -1, 0))]


@GatherNd.def_grad
def _(op, dy):
  p, i = op.inputs
  return [scatter_nd(i, dy, shape(p)), None]


def gather_nd(params, indices, batch_dims=0, name=None):
  """Gathers slices of `params` at the index tuples in the last axis of `indices`."""
  p, i = convert_to_tensor(params), convert_to_tensor(indices)
  _check_index_dtype(i, "GatherNd")
  if i.shape.rank == 0:
    raise InvalidArgumentError(None, None, "indices must be at least a vector [Op:GatherNd]")
  bd = as_int(batch_dims, "GatherNd", "batch_dims")
  if bd:
    # The batch coordinates are prepended to each index tuple: a plain GatherNd.
    batch = i.shape.as_list()[:bd]
    if None in batch or bd >= i.shape.rank:
      raise ValueError(f"gather_nd: batch_dims={bd} needs the first {bd} dimensions of indices "
                       f"known and rank(indices) > batch_dims, got shape {i.shape}")
    mid = i.shape.as_list()[bd:-1]
    grid = np.stack(np.meshgrid(*[np.arange(n) for n in batch], indexing="ij"), -1)
    grid = np.broadcast_to(grid.reshape(batch + [1] * len(mid) + [bd]), batch + mid + [bd])
    i = concat([constant(grid.astype(i.dtype.as_numpy_dtype)), i], -1)
  return execute(GatherNd, [p, i], {})


@op("ScatterNd", type_inputs=(1,), dtypes=NUMERIC,
    shape=lambda i, a: [(_const_shape(i[2]), i[1].dtype)])
def ScatterNd(indices, updates, shape):
  _check_nd_indices(indices, tuple(shape), "ScatterNd")
  _check_updates(indices, updates, tuple(shape), "ScatterNd")
  out = np.zeros(tuple(shape), dtype=updates.dtype)
  np.add.at(out, tuple(np.moveaxis(indices, -1, 0)), updates)
  return out


@ScatterNd.def_grad
def _(op, dy):
  return [None, gather_nd(dy, op.inputs[0]), None]


def _check_updates(indices, updates, shape, op_name):
  want = tuple(indices.shape[:-1]) + tuple(shape[indices.shape[-1]:])
  if np.shape(updates) != want:
    raise InvalidArgumentError(None, None, f"Dimensions [0,{indices.ndim - 1}) of indices"
                               f"[shape={_l(indices.shape)}] = {_l(indices.shape[:-1])} must "
                               f"match dimensions [0,{indices.ndim - 1}) of updates"
                               f"[shape={_l(np.shape(updates))}] and the updates must have "
                               f"shape {_l(want)} [Op:{op_name}]")


def scatter_nd(indices, updates, shape, name=None):
  """Zeros of `shape` with `updates` added at the index tuples `indices`."""
  _check_index_dtype(convert_to_tensor(indices), "ScatterNd")
  return execute(ScatterNd, [convert_to_tensor(indices), convert_to_tensor(updates),
                             _shape_arg(shape, "ScatterNd")], {})


def _tsu_kernel(mode):
  name = {"update": "TensorScatterUpdate", "add": "TensorScatterAdd",
          "sub": "TensorScatterSub"}[mode]

  def k(tensor, indices, updates):
    _check_nd_indices(indices, np.shape(tensor), name)
    _check_updates(indices, updates, np.shape(tensor), name)
    out = np.array(tensor, copy=True)
    idx = tuple(np.moveaxis(indices, -1, 0))
    if mode == "update":
      out[idx] = updates
    elif mode == "add":
      np.add.at(out, idx, updates)
    else:
      np.subtract.at(out, idx, updates)
    return out
  return k


TensorScatterUpdate = op("TensorScatterUpdate", type_inputs=(0, 2), dtypes=ALL,
                         shape=same_shape)(_tsu_kernel("update"))
TensorScatterAdd = op("TensorScatterAdd", type_inputs=(0, 2), dtypes=NUMERIC,
                      shape=same_shape)(_tsu_kernel("add"))
TensorScatterSub = op("TensorScatterSub", type_inputs=(0, 2), dtypes=NUMERIC,
                      shape=same_shape)(_tsu_kernel("sub"))


@TensorScatterUpdate.def_grad
def _(op, dy):
  i = op.inputs[1]
  return [tensor_scatter_nd_update(dy, i, zeros_like(op.inputs[2])), None, gather_nd(dy, i)]


@TensorScatterAdd.def_grad
def _(op, dy):
  return [dy, None, gather_nd(dy, op.inputs[1])]


@TensorScatterSub.def_grad
def _(op, dy):
  return [dy, None, _math().negative(gather_nd(dy, op.inputs[1]))]


def tensor_scatter_nd_update(tensor, indices, updates, name=None):
  return TensorScatterUpdate(tensor, indices, updates)


def tensor_scatter_nd_add(tensor, indices, updates, name=None):
  return TensorScatterAdd(tensor, indices, updates)


def tensor_scatter_nd_sub(tensor, indices, updates, name=None):
  return TensorScatterSub(tensor, indices, updates)


# -------------------------------------------------------------- tile/pad

def _tile_shape(inputs, attrs):
  x, m = inputs
  mv = constant_value(m)
  if x.shape.rank is None or mv is None:
    return [(TensorShape(None) if x.shape.rank is None else TensorShape([None] * x.shape.rank),
             x.dtype)]
  if len(mv) != x.shape.rank:
    raise ValueError(f"Expected multiples argument to be a vector of length {x.shape.rank} but "
                     f"got length {len(mv)}")
  return [(TensorShape([None if d is None else d * int(k) for d, k in
                        zip(x.shape.as_list(), mv)]), x.dtype)]


@op("Tile", type_inputs=(0,), dtypes=ALL, shape=_tile_shape)
def Tile(x, multiples):
  if len(multiples) != np.ndim(x):
    raise ValueError(f"Expected multiples argument to be a vector of length {np.ndim(x)} but "
                     f"got length {len(multiples)}")
  return np.tile(x, tuple(multiples))


@Tile.def_grad
def _(op, dy):
  x, m = op.inputs
  if x.shape.is_fully_defined() and constant_value(m) is not None:
    d = x.shape.as_list()
    mv = [int(k) for k in constant_value(m)]
    split_shape = [v for pair in zip(mv, d) for v in pair]
    g = reshape(dy, split_shape)
    return [_math().reduce_sum(g, axis=list(builtins.range(0, 2 * len(d), 2))), None]
  return [execute(TileGrad, [dy, shape(x)], {}), None]


@op("TileGrad", type_inputs=(0,), dtypes=NUMERIC,
    shape=lambda i, a: [(_const_shape(i[1]), i[0].dtype)])
def TileGrad(dy, xshape):
  d = list(xshape)
  m = [a // b if b else 0 for a, b in zip(dy.shape, d)]
  return dy.reshape([v for pair in zip(m, d) for v in pair]).sum(
      axis=tuple(builtins.range(0, 2 * len(d), 2)))


@TileGrad.def_grad
def _(op, ddx):
  dy = op.inputs[0]
  return [tile(ddx, shape(dy) // shape(ddx)), None]


def tile(input, multiples, name=None):  # noqa: A002
  """Repeats `input` `multiples[i]` times along axis i."""
  return execute(Tile, [convert_to_tensor(input), _shape_arg(multiples, "Tile")], {})


def _pad_shape(inputs, attrs):
  x = inputs[0]
  p = attrs["paddings"]
  if x.shape.rank is None:
    return [(TensorShape(None), x.dtype)]
  if len(p) != x.shape.rank:
    raise ValueError(f"The first dimension of paddings must be the rank of inputs"
                     f"[{len(p)},2] {_l(x.shape)}")
  return [(TensorShape([None if d is None else d + a + b
                        for d, (a, b) in zip(x.shape.as_list(), p)]), x.dtype)]


@op("PadV2", type_inputs=(0, 1), dtypes=ALL, shape=_pad_shape)
def PadV2(x, constant_values, *, paddings, mode):
  if mode == "CONSTANT":
    return np.pad(x, paddings, mode="constant", constant_values=constant_values)
  for (a, b), n in zip(paddings, np.shape(x)):
    lim = n - (1 if mode == "REFLECT" else 0)
    if a > lim or b > lim:
      raise ValueError(f"paddings must be less than{' or equal to' if mode == 'SYMMETRIC' else ''}"
                       f" the dimension size: {a}, {b} {'>=' if mode == 'REFLECT' else '>'} {n}")
  return np.pad(x, paddings, mode="reflect" if mode == "REFLECT" else "symmetric")


@PadV2.def_grad
def _(op, dy):
  x = op.inputs[0]
  p = op.attrs["paddings"]
  if op.attrs["mode"] != "CONSTANT":
    return [execute(MirrorPadGrad, [dy], {"paddings": p, "mode": op.attrs["mode"]}), None]
  begin = [a for a, _ in p]
  return [slice(dy, begin, _shape_of(x)), None]


@op("MirrorPadGrad", dtypes=NUMERIC, shape=lambda i, a: [(TensorShape(None), i[0].dtype)])
def MirrorPadGrad(dy, *, paddings, mode):
  g = dy
  for ax, (a, b) in enumerate(paddings):
    g = np.moveaxis(g, ax, 0).copy()
    n = g.shape[0] - a - b
    core = g[a:a + n].copy()
    # Each padded element is a copy of one source element: fold it back there.
    left = g[:a][::-1]
    right = g[a + n:][::-1]
    if mode == "REFLECT":
      core[1:1 + a] += left
      if b:
        core[n - 1 - b:n - 1] += right
    else:
      core[:a] += left
      if b:
        core[n - b:] += right
    g = np.moveaxis(core, 0, ax)
  return np.ascontiguousarray(g)


@MirrorPadGrad.def_grad
def _(op, ddx):
  return [pad(ddx, op.attrs["paddings"], mode=op.attrs["mode"])]


def pad(tensor, paddings, mode="CONSTANT", constant_values=0, name=None):
  """Pads `tensor` by `paddings[i] = [before, after]` along each axis."""
  x = convert_to_tensor(tensor)
  mode = as_str(mode, "Pad", "mode").upper()
  if mode not in ("CONSTANT", "REFLECT", "SYMMETRIC"):
    raise ValueError(f"Value of argument `mode` expected to be one of \"CONSTANT\", "
                     f"\"REFLECT\", or \"SYMMETRIC\". Received: mode={mode}")
  pv = np.asarray(constant_value(convert_to_tensor(paddings)))
  if pv.ndim != 2 or pv.shape[1] != 2 or (x.shape.rank is not None and pv.shape[0] != x.shape.rank):
    raise InvalidArgumentError(None, None, f"paddings must be a matrix with 2 columns and "
                               f"{x.shape.rank} rows: {pv.tolist()} [Op:PadV2]")
  if np.any(pv < 0):
    raise InvalidArgumentError(None, None, f"Paddings must be non-negative: {pv.tolist()} "
                               f"[Op:PadV2]")
  if isinstance(constant_values, Tensor):
    cv = constant_values
  elif isinstance(constant_values, (int, float)) and not isinstance(constant_values, bool) \
      and constant_values == 0:
    cv = zeros([], x.dtype)  # NOTE: TF's Pad (no value): works for bool and string too
  else:
    cv = convert_to_tensor(constant_values, x.dtype)
  return execute(PadV2, [x, cv], {"paddings": tuple(tuple(int(v) for v in r) for r in pv),
                                  "mode": mode})


# --------------------------------------------------------------- one_hot

def _onehot_shape(inputs, attrs):
  i = inputs[0]
  if i.shape.rank is None:
    return [(TensorShape(None), inputs[1].dtype)]
  d = i.shape.as_list()
  ax = attrs["axis"]
  d.insert(len(d) if ax == -1 else ax, attrs["depth"])
  return [(TensorShape(d), inputs[1].dtype)]


@op("OneHot", type_inputs=(1, 2), dtypes=ALL, shape=_onehot_shape, differentiable=False)
def OneHot(indices, on_value, off_value, *, depth, axis):
  idx = np.asarray(indices)
  hot = idx[..., None] == np.arange(depth)
  out = np.where(hot, on_value, off_value).astype(np.asarray(on_value).dtype)
  if axis != -1 and axis != idx.ndim:
    out = np.moveaxis(out, -1, axis)
  return np.ascontiguousarray(out)


def one_hot(indices, depth, on_value=None, off_value=None, axis=None, dtype=None, name=None):
  """One-hot vectors of length `depth` along `axis` (last by default).

  The dtype is `dtype`, else that of `on_value`/`off_value`, else float32.
  """
  i = convert_to_tensor(indices)
  _check_index_dtype(i, "OneHot", "TI", "uint8, int8, int32, int64")
  dtype = None if dtype is None else _dt.as_dtype(dtype)
  on = None if on_value is None else convert_to_tensor(on_value, dtype_hint=dtype)
  off = None if off_value is None else convert_to_tensor(off_value, dtype_hint=dtype)
  for v, what in ((on, "on_value"), (off, "off_value")):
    if v is not None and dtype is not None and v.dtype is not dtype:
      raise TypeError(f"dtype {v.dtype!r} of {what} does not match dtype parameter {dtype!r}")
  if on is not None and off is not None and on.dtype is not off.dtype:
    raise TypeError(f"dtype {on.dtype!r} of on_value does not match dtype {off.dtype!r} of "
                    f"off_value")
  if dtype is None:
    dtype = on.dtype if on is not None else (off.dtype if off is not None else _dt.float32)
  on = ones([], dtype) if on is None else on
  off = zeros([], dtype) if off is None else off
  d = as_int(constant_value(convert_to_tensor(depth)), "OneHot", "depth")
  if d < 0:
    raise InvalidArgumentError(None, None, f"depth must be non-negative, got: {d} [Op:OneHot]")
  ax = -1 if axis is None else as_int(axis, "OneHot", "axis")
  if i.shape.rank is not None and not -1 <= ax <= i.shape.rank:
    raise InvalidArgumentError(None, None, f"Expected axis to be -1 or between [0, "
                               f"{i.shape.rank + 1}).  But received: {ax} [Op:OneHot]")
  return execute(OneHot, [i, on, off], {"depth": d, "axis": ax})


# ----------------------------------------------------------------- where

def _select_shape(inputs, attrs):
  from tensorlet.tensor_shape import broadcast_static
  c, x, y = inputs
  try:
    s = broadcast_static(broadcast_static(c.shape, x.shape), y.shape)
  except ValueError:
    raise ValueError(f"condition [{_l(c.shape)}], then [{_l(x.shape)}], and else "
                     f"[{_l(y.shape)}] must be broadcastable") from None
  return [(s, x.dtype)]


@op("SelectV2", type_inputs=(1, 2), dtypes=ALL, shape=_select_shape,
    grad_shape="broadcast")
def SelectV2(condition, x, y):
  return np.where(condition, x, y)


@SelectV2.def_grad
def _(op, dy):
  c = op.inputs[0]
  z = zeros_like(dy)
  return [None, execute(SelectV2, [c, dy, z], {}), execute(SelectV2, [c, z, dy], {})]


@op("Where", type_inputs=(), shape=lambda i, a: [(TensorShape([None, i[0].shape.rank]),
                                                   _dt.int64)], differentiable=False)
def Where(condition):
  return np.argwhere(condition).astype(np.int64)


@dispatch.add_dispatch_support
def where(condition, x=None, y=None, name=None):
  """Elementwise choice between `x` and `y`; with one argument, the indices of True."""
  c = convert_to_tensor(condition)
  if x is None and y is None:
    if c.dtype is not _dt.bool:
      c = _math().not_equal(c, zeros_like(c))
    return execute(Where, [c], {})
  if x is None or y is None:
    raise ValueError("x and y must both be non-None or both be None.")
  if c.dtype is not _dt.bool:
    raise InvalidArgumentError(None, None, f"condition must be a bool tensor, got "
                               f"{c.dtype.name} [Op:SelectV2]")
  x, y = convert_inputs(SelectV2, (c, x, y))[1:]
  return execute(SelectV2, [c, x, y], {})


@dispatch.add_dispatch_support
def boolean_mask(tensor, mask, axis=None, name="boolean_mask"):
  """The elements (or slices) of `tensor` where `mask` is True."""
  t = convert_to_tensor(tensor)
  m = convert_to_tensor(mask)
  ax = 0 if axis is None else as_int(axis, "BooleanMask", "axis")
  k = m.shape.rank
  if k == 0:
    raise ValueError("mask cannot be scalar.")
  ts = t.shape.as_list()
  if m.shape.is_fully_defined() and t.shape.rank is not None and \
      not TensorShape(ts[ax:ax + k]).is_compatible_with(m.shape):
    raise ValueError(f"Shapes {TensorShape(ts[ax:ax + k])} and {m.shape} are incompatible")
  if k > 1:
    if None in ts[:ax] + ts[ax + k:]:
      s = shape(t)
      flat = reshape(t, concat([s[:ax], [-1], s[ax + k:]], 0))
    else:
      flat = reshape(t, ts[:ax] + [-1] + ts[ax + k:])
  else:
    flat = t
  idx = squeeze(where(reshape(m, [-1])), axis=[1])
  return gather(flat, idx, axis=ax)


# ----------------------------------------------------------- reverse/slice

@op("ReverseV2", dtypes=ALL, shape=same_shape)
def ReverseV2(x, *, axis):
  return np.flip(x, axis).copy() if axis else x


@ReverseV2.def_grad
def _(op, dy):
  return [execute(ReverseV2, [dy], {"axis": op.attrs["axis"]})]


def reverse(tensor, axis, name=None):
  """Reverses `tensor` along each of `axis`."""
  x = convert_to_tensor(tensor)
  return execute(ReverseV2, [x], {"axis": norm_axis(axis, x.shape.rank, "ReverseV2")})


def _slice_shape(inputs, attrs):
  x, b, sz = inputs
  bv, sv = constant_value(b), constant_value(sz)
  n = x.shape.rank if x.shape.rank is not None else sz.shape[0]
  if n is None:
    return [(TensorShape(None), x.dtype)]
  dims = x.shape.as_list() if x.shape.rank is not None else [None] * n
  out = []
  for i in builtins.range(n):
    v = None if sv is None else int(np.reshape(sv, [-1])[i])
    if v == -1:
      v = None if bv is None or dims[i] is None else dims[i] - int(np.reshape(bv, [-1])[i])
    out.append(v)
  return [(TensorShape(out), x.dtype)]


@op("Slice", type_inputs=(0,), dtypes=ALL, shape=_slice_shape)
def Slice(x, begin, size):
  """tf.slice with begin/size known only at run time."""
  key = []
  for i, (b, n) in enumerate(zip(np.reshape(begin, [-1]), np.reshape(size, [-1]))):
    d = x.shape[i]
    e = d if n == -1 else b + n
    if b < 0 or n < -1 or e > d:
      raise InvalidArgumentError(None, None, f"Expected size[{i}] in [0, {d - b}], but got {n} "
                                 f"[Op:Slice]")
    key.append(builtins.slice(int(b), int(e)))
  return x[tuple(key)].copy()


@Slice.def_grad
def _(op, dy):
  x, b = op.inputs[0], op.inputs[1]
  return [execute(SliceGrad, [dy, shape(x), b], {}), None, None]


@op("SliceGrad", type_inputs=(0,), dtypes=NUMERIC,
    shape=lambda i, a: [(_const_shape(i[1]), i[0].dtype)])
def SliceGrad(dy, xshape, begin):
  """Zeros of the sliced tensor's shape with `dy` placed at `begin`."""
  out = np.zeros(tuple(xshape), dtype=dy.dtype)
  out[tuple(builtins.slice(int(b), int(b) + n) for b, n in zip(begin, np.shape(dy)))] = dy
  return out


@SliceGrad.def_grad
def _(op, ddx):
  return [execute(Slice, [ddx, op.inputs[2], shape(op.inputs[0])], {}), None, None]


def slice(input_, begin, size, name=None):  # noqa: A001
  """`size[i]` elements from `begin[i]` along each axis (-1: to the end)."""
  x = convert_to_tensor(input_)
  bt, st = convert_to_tensor(begin), convert_to_tensor(size)
  if constant_value(bt) is None or constant_value(st) is None:
    return execute(Slice, [x, bt, st if st.dtype is bt.dtype else
                           _math().cast(st, bt.dtype)], {})
  b = [int(v) for v in np.reshape(constant_value(bt), [-1])]
  s = [int(v) for v in np.reshape(constant_value(st), [-1])]
  r = x.shape.rank
  if r is not None and (len(b) != r or len(s) != r):
    raise InvalidArgumentError(None, None, f"Expected begin and size arguments to be 1-D "
                               f"tensors of size {r}, but got shapes [{len(b)}] and [{len(s)}] "
                               f"instead. [Op:Slice]")
  spec = []
  dims = x.shape.as_list() if r is not None else [None] * len(b)
  for i, (bb, ss) in enumerate(zip(b, s)):
    end = None if ss == -1 else bb + ss
    if dims[i] is not None and (bb < 0 or bb > dims[i] or (end is not None and end > dims[i])
                                or ss < -1):
      raise InvalidArgumentError(None, None, f"Expected size[{i}] in [0, {dims[i] - bb}], but "
                                 f"got {ss} [Op:Slice]")
    spec.append(("s", bb, end, None))
  return execute(StridedSlice, [x], {"spec": tuple(spec)})


def _index_value(v, inputs):
  if isinstance(v, tuple):  # ("t", k): the k-th extra input
    return int(inputs[v[1]])
  return v


def _np_index(spec, idx_inputs):
  out = []
  for item in spec:
    kind = item[0]
    if kind == "i":
      out.append(_index_value(item[1], idx_inputs))
    elif kind == "s":
      out.append(builtins.slice(*(None if v is None else _index_value(v, idx_inputs)
                                  for v in item[1:])))
    elif kind == "n":
      out.append(None)
    else:
      out.append(Ellipsis)
  return tuple(out)


def _ss_shape(inputs, attrs):
  x = inputs[0]
  spec = attrs["spec"]
  if x.shape.is_fully_defined() and all(constant_value(t) is not None for t in inputs[1:]):
    vals = [constant_value(t) for t in inputs[1:]]
    try:
      r = np.empty(x.shape.as_list(), dtype=np.bool_)[_np_index(spec, vals)]
    except IndexError as e:
      raise ValueError(_index_msg(e, x)) from None
    return [(TensorShape(r.shape), x.dtype)]
  return [(_ss_partial(x, spec), x.dtype)]


def _ss_partial(x, spec):
  if x.shape.rank is None or any(s[0] == "e" for s in spec):
    return TensorShape(None)
  dims = x.shape.as_list()
  out = []
  pos = 0
  for item in spec:
    if item[0] == "n":
      out.append(1)
    elif item[0] == "i":
      pos += 1
    else:
      d = dims[pos]
      if d is not None and not any(isinstance(v, tuple) for v in item[1:]):
        out.append(len(builtins.range(d)[builtins.slice(*item[1:])]))
      else:
        out.append(None)
      pos += 1
  return TensorShape(out + dims[pos:])


def _index_msg(e, x):
  msg = str(e)
  if "out of bounds" in msg:
    import re
    m = re.search(r"index (-?\d+) is out of bounds for axis (\d+) with size (\d+)", msg)
    if m:
      return (f"slice index {m.group(1)} of dimension {m.group(2)} out of bounds.")
  return f"Index out of range using input dim {x.shape.rank}: {msg}"


@op("StridedSlice", type_inputs=(0,), dtypes=ALL, shape=_ss_shape)
def StridedSlice(x, *idx, spec):
  try:
    r = x[_np_index(spec, idx)]
  except IndexError as e:
    raise InvalidArgumentError(None, None, f"{_index_msg(e, TensorShape(np.shape(x)))} "
                               f"[Op:StridedSlice] name: strided_slice/") from None
  return r.copy() if isinstance(r, np.ndarray) and r.base is not None and r.ndim else r


@StridedSlice.def_grad
def _(op, dy):
  x = op.inputs[0]
  return [execute(StridedSliceGrad, [dy, shape(x)] + list(op.inputs[1:]),
                  {"spec": op.attrs["spec"]})] + [None] * (len(op.inputs) - 1)


@op("StridedSliceGrad", type_inputs=(0,), dtypes=ALL,
    shape=lambda i, a: [(_const_shape(i[1]), i[0].dtype)])
def StridedSliceGrad(dy, xshape, *idx, spec):
  out = np.zeros(tuple(xshape), dtype=dy.dtype)
  out[_np_index(spec, idx)] = dy
  return out


@StridedSliceGrad.def_grad
def _(op, ddx):
  return [execute(StridedSlice, [ddx] + list(op.inputs[2:]), {"spec": op.attrs["spec"]}),
          None] + [None] * (len(op.inputs) - 2)


def _spec_value(v, extra):
  if v is None:
    return None
  if isinstance(v, Tensor):
    if isinstance(v, EagerTensor):
      if not v.dtype.is_integer:
        raise TypeError(f"Only integers, slices (`:`), ellipsis (`...`), tf.newaxis (`None`) and "
                        f"scalar tf.int32/tf.int64 tensors are valid indices, got {v!r}")
      return int(v)
    extra.append(v)
    return ("t", len(extra) - 1)
  if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)):
    if hasattr(v, "__index__") and not isinstance(v, (bool, np.bool_)):
      return int(v.__index__())
    raise TypeError(f"Only integers, slices (`:`), ellipsis (`...`), tf.newaxis (`None`) and "
                    f"scalar tf.int32/tf.int64 tensors are valid indices, got {v!r}")
  return int(v)


def strided_slice_index(tensor, key):
  """tensor[key] for ints, slices, Ellipsis, tf.newaxis and scalar int tensors."""
  x = convert_to_tensor(tensor)
  if not isinstance(key, tuple):
    key = (key,)
  spec = []
  extra = []
  for k in key:
    if k is None:
      spec.append(("n",))
    elif k is Ellipsis:
      spec.append(("e",))
    elif isinstance(k, builtins.slice):
      spec.append(("s", _spec_value(k.start, extra), _spec_value(k.stop, extra),
                   _spec_value(k.step, extra)))
      if spec[-1][3] == 0:
        raise ValueError("slice step cannot be zero")
    elif isinstance(k, (list, np.ndarray)) or (isinstance(k, Tensor) and k.shape.rank):
      if isinstance(k, list) and k and all(type(e) is bool for e in k):
        # NOTE: TF reads a list of Python bools as StridedSlice indices of type bool.
        raise InvalidArgumentError(None, None, "Value for attr 'Index' of bool is not in the "
                                   "list of allowed values: int16, int32, int64 [Op:StridedSlice]")
      raise TypeError(f"Only integers, slices (`:`), ellipsis (`...`), tf.newaxis (`None`) and "
                      f"scalar tf.int32/tf.int64 tensors are valid indices, got {k!r}")
    else:
      spec.append(("i", _spec_value(k, extra)))
  return execute(StridedSlice, [x] + extra, {"spec": tuple(spec)})


def _slice_arg(v, arg):
  cv = constant_value(convert_to_tensor(v))
  if cv is None or np.ndim(cv) > 1 or np.asarray(cv).dtype.kind not in "iu":
    raise TypeError(f"StridedSlice: `{arg}` must be a list or 1-D tensor of integers known at "
                    f"trace time, got {v!r:.80}")
  return [int(x) for x in np.reshape(cv, [-1])]


def strided_slice(input_, begin, end, strides=None, begin_mask=0, end_mask=0, ellipsis_mask=0,
                  new_axis_mask=0, shrink_axis_mask=0, name=None):
  """TF's mask-based strided slice, turned into the index spec `x[...]` uses."""
  b, e = _slice_arg(begin, "begin"), _slice_arg(end, "end")
  s = [1] * len(b) if strides is None else _slice_arg(strides, "strides")
  if not len(b) == len(e) == len(s):
    raise InvalidArgumentError(None, None, f"Expected begin, end, and strides to be 1D equal "
                               f"size tensors, but got shapes [{len(b)}], [{len(e)}], and "
                               f"[{len(s)}] instead. [Op:StridedSlice]")
  masks = {"begin_mask": begin_mask, "end_mask": end_mask, "ellipsis_mask": ellipsis_mask,
           "new_axis_mask": new_axis_mask, "shrink_axis_mask": shrink_axis_mask}
  begin_mask, end_mask, ellipsis_mask, new_axis_mask, shrink_axis_mask = (
      as_int(v, "StridedSlice", k) for k, v in masks.items())
  key = []
  for i in builtins.range(len(b)):
    bit = 1 << i
    if ellipsis_mask & bit:
      key.append(Ellipsis)
    elif new_axis_mask & bit:
      key.append(None)
    elif shrink_axis_mask & bit:
      key.append(b[i])
    else:
      key.append(builtins.slice(None if begin_mask & bit else b[i],
                                None if end_mask & bit else e[i], s[i]))
  return strided_slice_index(input_, tuple(key))


# -------------------------------------------------------------- sorting

def _topk_shape(inputs, attrs):
  x = inputs[0]
  if x.shape.rank is None:
    return [(TensorShape(None), x.dtype), (TensorShape(None), _int32)]
  d = x.shape.as_list()
  d[-1] = attrs["k"]
  return [(TensorShape(d), x.dtype), (TensorShape(d), _int32)]


@op("TopKV2", dtypes=_dt.REAL, shape=_topk_shape, num_outputs=2)
def TopKV2(x, *, k, sorted):  # noqa: A002
  if k > x.shape[-1]:
    raise ValueError(f"input must have at least k columns. Had {x.shape[-1]}, needed {k}")
  idx = np.argsort(-x if x.dtype.kind != "u" else np.iinfo(x.dtype).max - x, axis=-1,
                   kind="stable")[..., :k]
  return np.take_along_axis(x, idx, axis=-1), idx.astype(np.int32)


@TopKV2.def_grad
def _(op, dv, di):
  if dv is None:
    return [None]
  # The values are a batched gather along the last axis: its gradient scatters back.
  x, idx = op.inputs[0], op.outputs[1]
  r = x.shape.rank
  return [execute(GatherGrad, [dv, idx, shape(x)], {"axis": r - 1, "batch_dims": r - 1})]


def top_k(input, k=1, sorted=True, index_type=_int32, name=None):  # noqa: A002
  """The `k` largest entries of the last axis and their indices."""
  x = convert_to_tensor(input)
  k = as_int(constant_value(convert_to_tensor(k)), "TopKV2", "k")
  if k < 0:
    raise InvalidArgumentError(None, None, f"Need k >= 0, got {k} [Op:TopKV2]")
  if x.shape.rank == 0:
    raise InvalidArgumentError(None, None, "input must be >= 1-D, got shape [] [Op:TopKV2]")
  v, i = execute(TopKV2, [x], {"k": k, "sorted": bool(sorted)})
  return _TopK(v, i)


from collections import namedtuple as _nt  # noqa: E402

_TopK = _nt("TopKV2", ["values", "indices"])


def sort(values, axis=-1, direction="ASCENDING", name=None):
  """Sorted copy of `values` along `axis`."""
  x = convert_to_tensor(values)
  r = x.shape.rank
  if r == 0:
    raise InvalidArgumentError(None, None, "input must be at least rank 1 [Op:Sort]")
  ax = single_axis(axis, r, "Sort")
  if ax != r - 1:  # sort along the last axis, between two transposes
    perm = list(builtins.range(r))
    perm[ax], perm[-1] = perm[-1], perm[ax]
    return transpose(sort(transpose(x, perm), -1, direction), perm)
  idx = argsort(x, axis=-1, direction=direction, stable=True)
  return gather(x, idx, axis=r - 1, batch_dims=r - 1)


def argsort(values, axis=-1, direction="ASCENDING", stable=False, name=None):
  """Indices that sort `values` along `axis`."""
  if direction not in ("ASCENDING", "DESCENDING"):
    raise ValueError(f'`direction` must be one of "ASCENDING" or "DESCENDING", got {direction!r}')
  x = convert_to_tensor(values)
  ax = single_axis(axis, x.shape.rank, "ArgSort")
  return execute(ArgSort, [x], {"axis": ax, "descending": direction == "DESCENDING"})


@op("ArgSort", dtypes=_dt.REAL, shape=lambda i, a: [(i[0].shape, _int32)], differentiable=False)
def ArgSort(x, *, axis, descending):
  if descending:
    x = -x.astype(np.float64) if x.dtype.kind in "iu" else -x
  return np.argsort(x, axis=axis, kind="stable").astype(np.int32)


def _unique_shape(inputs, attrs):
  return [(TensorShape([None]), inputs[0].dtype), (inputs[0].shape, attrs["out_idx"])]


@op("Unique", dtypes=ALL, shape=_unique_shape, num_outputs=2, differentiable=False)
def Unique(x, *, out_idx):
  vals, first, inv = np.unique(x, return_index=True, return_inverse=True)
  order = np.argsort(first, kind="stable")
  rank_of = np.empty_like(order)
  rank_of[order] = np.arange(len(order))
  return vals[order], rank_of[inv.reshape(-1)].astype(out_idx._np)


_Unique = _nt("Unique", ["y", "idx"])


def unique(x, out_idx=_int32, name=None):
  """Unique values of a 1-D tensor in first-seen order, and each element's index into them."""
  t = convert_to_tensor(x)
  if t.shape.rank != 1:
    raise InvalidArgumentError(None, None, "unique expects a 1D vector. [Op:Unique]")
  y, idx = execute(Unique, [t], {"out_idx": _dt.as_dtype(out_idx)})
  return _Unique(y, idx)


# ------------------------------------------------------------ composites

def meshgrid(*args, indexing="xy", name=None):
  """N-D coordinate grids from 1-D tensors ("xy": Cartesian, "ij": matrix indexing)."""
  if indexing not in ("xy", "ij"):
    raise ValueError(f"Argument `indexing` parameter must be either 'xy' or 'ij', got "
                     f"'{indexing}'")
  ts = [reshape(convert_to_tensor(a), [-1]) for a in args]
  n = len(ts)
  shapes = [t.shape[0] for t in ts]
  if None in shapes:
    shapes = [size(t) for t in ts]
  if indexing == "xy" and n > 1:
    shapes[0], shapes[1] = shapes[1], shapes[0]
  if any(isinstance(d, Tensor) for d in shapes):
    shapes = stack(shapes)
  out = []
  for i, t in enumerate(ts):
    s = [1] * n
    pos = i
    if indexing == "xy" and n > 1 and i < 2:
      pos = 1 - i
    s[pos] = -1
    out.append(broadcast_to(reshape(t, s), shapes))
  return out


def repeat(input, repeats, axis=None, name=None):  # noqa: A002
  """Repeats each element (or slice along `axis`) `repeats` times; flattens when axis is None."""
  x = convert_to_tensor(input)
  if axis is None:
    x = reshape(x, [-1])
    axis = 0
  ax = single_axis(axis, x.shape.rank, "Repeat")
  n = x.shape[ax]
  reps = np.asarray(constant_value(convert_to_tensor(repeats)))
  if reps.dtype.kind not in "iu" or reps.ndim > 1 or (
      reps.ndim == 1 and n is not None and reps.size not in (1, n)):
    raise InvalidArgumentError(None, None, f"repeats must be an integer scalar or a vector of "
                               f"length {n} (the size of axis {ax}), got {reps.tolist()} "
                               f"[Op:Repeat]")
  if np.any(reps < 0):
    raise InvalidArgumentError(None, None, f"repeats must be non-negative, got "
                               f"{reps.tolist()} [Op:Repeat]")
  if n is None:  # the indices are only known at run time
    idx = execute(RepeatIndices, [constant(reps.reshape(-1).astype(np.int64)), shape(x)[ax]],
                  {})
  else:
    idx = convert_to_tensor(
        np.repeat(np.arange(n), np.broadcast_to(reps.reshape(-1), [n])).astype(np.int32))
  return gather(x, idx, axis=ax)


@op("RepeatIndices", type_inputs=(), shape=lambda i, a: [(TensorShape([None]), _int32)],
    differentiable=False)
def RepeatIndices(repeats, n):
  """repeat's gather indices: i repeated repeats[i] times (repeats broadcast to n)."""
  if repeats.size not in (1, int(n)):
    raise InvalidArgumentError(None, None, f"repeats must have 1 or {int(n)} elements, got "
                               f"{repeats.size} [Op:Repeat]")
  return np.repeat(np.arange(int(n)), np.broadcast_to(repeats, [int(n)])).astype(np.int32)


@op("Roll", dtypes=ALL, shape=same_shape)
def Roll(x, *, shift, axis):
  return np.roll(x, shift, axis) if axis else x.copy()


@Roll.def_grad
def _(op, dy):
  return [execute(Roll, [dy], {"shift": tuple(-s for s in op.attrs["shift"]),
                               "axis": op.attrs["axis"]})]


def roll(input, shift, axis, name=None):  # noqa: A002
  """Rolls elements along `axis` by `shift` (several axes when both are vectors)."""
  x = convert_to_tensor(input)
  shifts = np.reshape(constant_value(convert_to_tensor(shift)), [-1])
  axes = np.reshape(constant_value(convert_to_tensor(axis)), [-1])
  if x.shape.rank == 0:
    raise InvalidArgumentError(None, None, "input must be 1-D or higher [Op:Roll]")
  if shifts.shape != axes.shape:
    raise InvalidArgumentError(None, None, "shift and axis must have the same size "
                               f"[Op:Roll]")
  if shifts.dtype.kind not in "iu" or axes.dtype.kind not in "iu":
    raise InvalidArgumentError(None, None, "shift and axis must be integers [Op:Roll]")
  axes = norm_axis([as_int(a, "Roll", "axis") for a in axes], x.shape.rank, "Roll")
  return execute(Roll, [x], {"shift": tuple(as_int(v, "Roll", "shift") for v in shifts), "axis": axes})


def sequence_mask(lengths, maxlen=None, dtype=_dt.bool, name=None):
  m = _math()
  lengths = convert_to_tensor(lengths)
  if maxlen is None:
    maxlen = m.reduce_max(lengths)
  maxlen = convert_to_tensor(maxlen, lengths.dtype) if not isinstance(maxlen, Tensor) else maxlen
  r = range(0, maxlen, 1, dtype=lengths.dtype)
  mask = m.less(r, expand_dims(lengths, -1))
  return mask if _dt.as_dtype(dtype) is _dt.bool else m.cast(mask, dtype)


def ensure_shape(x, shape, name=None):
  t = convert_to_tensor(x)
  if not t.shape.is_compatible_with(shape):
    raise InvalidArgumentError(None, None, f"Shape of tensor {t.shape} is not compatible with "
                               f"expected shape {TensorShape(shape)}. [Op:EnsureShape]")
  return t



# ---------------------------------------------------------------- extras

@op("SearchSorted", type_inputs=(0, 1), dtypes=_dt.REAL,
    shape=lambda i, a: [(i[1].shape, a["out_type"])], differentiable=False)
def SearchSorted(sorted_sequence, values, *, side, out_type):
  if np.ndim(sorted_sequence) == 1:
    return np.searchsorted(sorted_sequence, values, side=side).astype(out_type._np)
  if np.shape(sorted_sequence)[:-1] != np.shape(values)[:-1]:
    raise InvalidArgumentError(None, None, "Leading dim_size of both tensors must match. "
                               "[Op:SearchSorted]")
  s = np.reshape(sorted_sequence, (-1, np.shape(sorted_sequence)[-1]))
  v = np.reshape(values, (-1, np.shape(values)[-1]))
  out = np.stack([np.searchsorted(a, b, side=side) for a, b in zip(s, v)])
  return out.reshape(np.shape(values)).astype(out_type._np)


def searchsorted(sorted_sequence, values, side="left", out_type=_int32, name=None):
  """Insertion points of `values` in the innermost dimension of `sorted_sequence`."""
  if side not in ("left", "right"):
    raise ValueError(f"Argument `side` must be either 'right' or 'left'. Received: `side` = "
                     f"{side}.")
  s, v = convert_inputs(SearchSorted, (sorted_sequence, values))
  if s.shape.rank is not None and v.shape.rank is not None and s.shape.rank != v.shape.rank \
      and s.shape.rank != 1:
    raise InvalidArgumentError(None, None, "sorted_sequence and values must have the same rank "
                               "[Op:SearchSorted]")
  return execute(SearchSorted, [s, v], {"side": side, "out_type": _dt.as_dtype(out_type)})


@op("UnravelIndex", type_inputs=(0, 1), dtypes=(_dt.int32, _dt.int64),
    shape=lambda i, a: [(TensorShape([i[1].shape[0]] + i[0].shape.as_list())
                         if i[0].shape.rank is not None else TensorShape(None), i[0].dtype)],
    differentiable=False)
def UnravelIndex(indices, dims):
  if np.size(indices) and (np.min(indices) < 0 or np.max(indices) >= np.prod(dims)):
    raise InvalidArgumentError(None, None, f"index out of bounds for array of shape "
                               f"{_l(dims)} [Op:UnravelIndex]")
  return np.array(np.unravel_index(indices, tuple(dims)), dtype=np.asarray(indices).dtype)


def unravel_index(indices, dims, name=None):
  """Coordinates (one row per dimension) of flat `indices` into an array of shape `dims`."""
  return execute(UnravelIndex, convert_inputs(UnravelIndex, (indices, dims)), {})


def _tsmm_kernel(ufunc, name):
  def k(tensor, indices, updates):
    _check_nd_indices(indices, np.shape(tensor), name)
    _check_updates(indices, updates, np.shape(tensor), name)
    out = np.array(tensor, copy=True)
    ufunc.at(out, tuple(np.moveaxis(indices, -1, 0)), updates)
    return out
  return k


TensorScatterMax = op("TensorScatterMax", type_inputs=(0, 2), dtypes=_dt.REAL,
                      shape=same_shape)(_tsmm_kernel(np.maximum, "TensorScatterMax"))
TensorScatterMin = op("TensorScatterMin", type_inputs=(0, 2), dtypes=_dt.REAL,
                      shape=same_shape)(_tsmm_kernel(np.minimum, "TensorScatterMin"))


def _tsmm_grad(op, dy):
  # TF's rule: ties between the tensor and the updates share the gradient equally.
  x, i, u = op.inputs
  out = op.outputs[0]
  m = _math()
  x_hit = m.cast(m.equal(x, out), dy.dtype)
  u_hit = m.cast(m.equal(u, gather_nd(out, i)), dy.dtype)
  n = x_hit + scatter_nd(i, u_hit, shape(x))
  return [dy * x_hit / n, None, gather_nd(dy / n, i) * u_hit]


TensorScatterMax.def_grad(_tsmm_grad)
TensorScatterMin.def_grad(_tsmm_grad)


def tensor_scatter_nd_max(tensor, indices, updates, name=None):
  """`tensor` with elementwise max(tensor[indices], updates) at `indices`."""
  return TensorScatterMax(tensor, indices, updates)


def tensor_scatter_nd_min(tensor, indices, updates, name=None):
  """`tensor` with elementwise min(tensor[indices], updates) at `indices`."""
  return TensorScatterMin(tensor, indices, updates)


@op("ReverseSequence", type_inputs=(0,), dtypes=ALL, shape=same_shape)
def ReverseSequence(x, seq_lengths, *, seq_axis, batch_axis):
  if np.shape(seq_lengths) != (x.shape[batch_axis],) or np.any(seq_lengths > x.shape[seq_axis]) \
      or np.any(seq_lengths < 0):
    raise InvalidArgumentError(None, None, f"seq_lengths must be a vector of length "
                               f"{x.shape[batch_axis]} with values in [0, {x.shape[seq_axis]}], "
                               f"got {np.asarray(seq_lengths).tolist()} [Op:ReverseSequence]")
  out = np.array(x, copy=True)
  for b, n in enumerate(np.asarray(seq_lengths)):
    src = [builtins.slice(None)] * x.ndim
    src[batch_axis] = b
    src[seq_axis] = builtins.slice(0, int(n))
    out[tuple(src)] = np.flip(x[tuple(src)], seq_axis - (seq_axis > batch_axis))
  return out


@ReverseSequence.def_grad
def _(op, dy):
  return [execute(ReverseSequence, [dy, op.inputs[1]], op.attrs), None]


def reverse_sequence(input, seq_lengths, seq_axis=None, batch_axis=None, name=None):  # noqa: A002
  """Reverses the first `seq_lengths[b]` entries along `seq_axis` of each batch entry b."""
  x = convert_to_tensor(input)
  r = x.shape.rank
  sa = single_axis(1 if seq_axis is None else seq_axis, r, "ReverseSequence")
  ba = single_axis(0 if batch_axis is None else batch_axis, r, "ReverseSequence")
  if sa == ba:
    raise InvalidArgumentError(None, None, "seq_axis and batch_axis must differ "
                               "[Op:ReverseSequence]")
  return execute(ReverseSequence, [x, convert_to_tensor(seq_lengths)],
                 {"seq_axis": sa, "batch_axis": ba})


_UniqueWithCounts = _nt("UniqueWithCounts", ["y", "idx", "count"])


def unique_with_counts(x, out_idx=_int32, name=None):
  """unique() plus how often each unique value occurs."""
  y, idx = unique(x, out_idx)
  count = _math().unsorted_segment_sum(ones_like(idx), idx, size(y, out_idx))
  return _UniqueWithCounts(y, idx, count)


def histogram_fixed_width(values, value_range, nbins=100, dtype=_int32, name=None):
  """Counts of `values` in `nbins` equal bins over `value_range` (outliers go to the ends)."""
  m = _math()
  nbins = nbins if isinstance(nbins, Tensor) else as_int(nbins, "HistogramFixedWidth", "nbins")
  v = convert_to_tensor(values)
  lo_hi = convert_to_tensor(value_range, v.dtype)
  lo, hi = lo_hi[0], lo_hi[1]
  scaled = (m.cast(v, _dt.float64) - m.cast(lo, _dt.float64)) / m.cast(hi - lo, _dt.float64)
  idx = m.cast(m.floor(scaled * nbins), _int32)
  idx = m.minimum(m.maximum(idx, 0), nbins - 1)
  return m.cast(m.unsorted_segment_sum(ones_like(reshape(idx, [-1])), reshape(idx, [-1]),
                                       nbins), dtype)


def guarantee_const(input, name=None):  # noqa: A002
  """Identity (TF's hint that the value is constant)."""
  return identity(input)
