"""Array ops: creation, shape manipulation, joining/splitting, gathering,
slicing, selection. Shape-like arguments that may be computed at run time
(reshape's shape, fill's dims, tile's multiples) are tensor inputs; the rest
are attributes."""
import builtins

import numpy as np

from tensorlet import dtypes as _dt
from tensorlet.errors import InvalidArgumentError, out_of_memory
from tensorlet.ops import dispatch
from tensorlet.ops._common import name_scoped
from tensorlet.ops._common import (ALL, NUMERIC, as_int, as_sequence, as_str, norm_axis,
                                   same_shape, single_axis)
from tensorlet.ops.registry import (constant_value, convert_inputs, execute, op,
                                    pass_through, shape_value)
from tensorlet.tensor_shape import TensorShape
from tensorlet.indexed_slices import IndexedSlices
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
    # NOTE: as TF packs such a list: int64 if any dimension tensor is int64.
    for d in shape:
      if isinstance(d, Tensor) and not d.dtype.is_integer:
        raise TypeError(f"{op_name}: shape dimensions must be integers, got a "
                        f"{d.dtype.name} tensor")
    wide = any(isinstance(d, Tensor) and d.dtype is _dt.int64 for d in shape)
    dt = _dt.int64 if wide else _dt.int32
    return stack([_math().cast(d, dt) if isinstance(d, Tensor) and d.dtype is not dt else
                  d if isinstance(d, Tensor) else
                  convert_to_tensor(as_int(d, op_name, "shape"), dt) for d in shape])
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
  if arr.ndim > 1:
    raise InvalidArgumentError(None, None, f"{op_name}: shape must be a 1-D list of sizes, got "
                               f"{shape!r:.80} [Op:{op_name}]")
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


def _const_shape(t):
  """TensorShape from a shape tensor's constant value (partially unknown if not constant)."""
  v = constant_value(t)
  if v is None:
    n = t.shape[0] if t.shape.rank == 1 else None
    return TensorShape(None if n is None else [None] * n)
  return TensorShape([None if d < 0 else int(d) for d in np.reshape(v, [-1])])


# ------------------------------------------------------------ identity

@op("Identity", shape=same_shape, expr="{0}", simplify=pass_through, sparse_grad=True)
def Identity(x):
  return x


@Identity.def_grad
def _(op, dy):
  return [dy]


def identity(input, name=None):  # noqa: A002
  """Returns a tensor with the same value (reads a variable); of an IndexedSlices, the
  IndexedSlices of the values' identity."""
  if isinstance(input, IndexedSlices):
    return IndexedSlices(execute(Identity, [input.values], {}, name), input.indices,
                         input.dense_shape)
  return execute(Identity, [convert_to_tensor(input)], {}, name)


@name_scoped
def guarantee_const(input, name=None):  # noqa: A002
  """Identity (TF's hint that the value is constant)."""
  return identity(input)


@op("StopGradient", dtypes=ALL, shape=same_shape, differentiable=False,
    simplify=pass_through)
def StopGradient(x):
  return x


def stop_gradient(input, name=None):  # noqa: A002
  """Identity whose gradient is None: nothing flows back through it (of an IndexedSlices,
  an IndexedSlices of the values')."""
  if isinstance(input, IndexedSlices):
    return IndexedSlices(execute(StopGradient, [input.values], {}, name), input.indices,
                         input.dense_shape)
  return execute(StopGradient, [convert_to_tensor(input)], {}, name)


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


@dispatch.add_dispatch_support
def shape(input, out_type=_int32, name=None):  # noqa: A002
  """The shape of `input` as a 1-D int32 tensor."""
  return execute(Shape, [convert_to_tensor(input)], {"out_type": _dt.as_dtype(out_type)}, name)


@name_scoped
def shape_n(input, out_type=_int32, name=None):  # noqa: A002
  return [shape(x, out_type) for x in as_sequence(input, "ShapeN", "input")]


@dispatch.add_dispatch_support
def size(input, out_type=_int32, name=None):  # noqa: A002
  """Number of elements of `input`."""
  return execute(Size, [convert_to_tensor(input)], {"out_type": _dt.as_dtype(out_type)}, name)


@dispatch.add_dispatch_support
def rank(input, name=None):  # noqa: A002
  """Number of dimensions of `input`."""
  return execute(Rank, [convert_to_tensor(input)], {}, name)


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
  elif target.is_fully_defined() and x.shape.rank is not None:
    # NOTE: as TF's shape function, the known input dims must divide the target.
    part = int(np.prod([d for d in x.shape.as_list() if d is not None]))
    known = target.num_elements()
    if part and known % part:
      raise ValueError(f"Dimension size must be evenly divisible by {part} but is {known}")
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


@dispatch.add_dispatch_support
def reshape(tensor, shape, name=None):
  """Gives `tensor` a new shape with the same number of elements (-1 infers one dim)."""
  return execute(Reshape, [convert_to_tensor(tensor), _shape_arg(shape, "Reshape")], {}, name)


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


@dispatch.add_dispatch_support
def broadcast_to(input, shape, name=None):  # noqa: A002
  """Broadcasts `input` to `shape`."""
  x = convert_to_tensor(input)
  s = _shape_arg(shape, "BroadcastTo")
  cv = constant_value(s)
  if cv is not None and x.shape.is_fully_defined() and x.shape.as_list() == list(cv):
    return x
  return execute(BroadcastTo, [x, s], {}, name)


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
  out = execute(Transpose, [x], {"perm": perm}, name)
  if conjugate and x.dtype.is_complex:
    out = _math().conj(out)
  return out


@name_scoped
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
  return execute(ConcatV2, ts, {"axis": ax}, name)


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
  return execute(Pack, ts, {"axis": ax}, name)


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
  return list(execute(Unpack, [x], {"num": as_int(num, "Unpack", "num"), "axis": ax}, name))


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
    return list(execute(Split, [x], {"num_split": k, "axis": ax}, name))
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
  return list(execute(SplitV, [x, sz], {"num_split": k, "axis": ax}, name))


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


@dispatch.add_dispatch_support
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
  return execute(ExpandDims, [x], {"axis": a}, name)


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


@dispatch.add_dispatch_support
def squeeze(input, axis=None, name=None, squeeze_dims=None):  # noqa: A002
  """Removes dimensions of size 1 (only those in `axis` when given)."""
  x = convert_to_tensor(input)
  axis = squeeze_dims if axis is None else axis
  ax = norm_axis(axis, x.shape.rank, "Squeeze") if axis is not None else ()
  return execute(Squeeze, [x], {"axis": ax}, name)


def _check_index_dtype(i, op_name, attr="Tindices", allowed="int16, int32, int64"):
  if not i.dtype.is_integer:
    from tensorlet.ops.registry import _rt  # TF's runtime dtype names ("float")
    raise InvalidArgumentError(None, None, f"Value for attr '{attr}' of {_rt(i.dtype)} is not "
                               f"in the list of allowed values: {allowed} [Op:{op_name}]")


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


@dispatch.add_dispatch_support
def tile(input, multiples, name=None):  # noqa: A002
  """Repeats `input` `multiples[i]` times along axis i."""
  return execute(Tile, [convert_to_tensor(input), _shape_arg(multiples, "Tile")], {}, name)


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
                                  "mode": mode}, name)


# ------------------------------------------------------------ composites

@name_scoped
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
                  {}, name)
  else:
    counts = np.broadcast_to(reps.reshape(-1), [n])
    try:
      idx = convert_to_tensor(np.repeat(np.arange(n), counts).astype(np.int32))
    except MemoryError:
      raise out_of_memory("Repeat", f"{int(counts.sum(dtype=object))} repeated indices") \
          from None
  return gather(dense_gradient(x), idx, axis=ax)


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
  shift = tuple(as_int(v, "Roll", "shift") for v in shifts)
  return execute(Roll, [x], {"shift": shift, "axis": axes}, name)


@name_scoped
def sequence_mask(lengths, maxlen=None, dtype=_dt.bool, name=None):
  m = _math()
  lengths = convert_to_tensor(lengths)
  if maxlen is None:
    maxlen = m.reduce_max(lengths)
  maxlen = convert_to_tensor(maxlen, lengths.dtype) if not isinstance(maxlen, Tensor) else maxlen
  r = range(0, maxlen, 1, dtype=lengths.dtype)
  mask = m.less(r, expand_dims(lengths, -1))
  return mask if _dt.as_dtype(dtype) is _dt.bool else m.cast(mask, dtype)


def _ensure_shape_error(have, shape):
  return InvalidArgumentError(None, None, f"Shape of tensor {have} is not compatible with "
                              f"expected shape {shape}. [Op:EnsureShape]")


def _ensure_shape_shape(inputs, attrs):
  t, shape = inputs[0], TensorShape(attrs["shape"])
  if not t.shape.is_compatible_with(shape):
    raise ValueError(str(_ensure_shape_error(t.shape, shape)))
  return [(t.shape.merge_with(shape), t.dtype)]


# NOTE: an op, not a static check only: traced with unknown dims, the shape is
# checked when the graph runs and the output carries the merged static shape.
@op("EnsureShape", shape=_ensure_shape_shape)
def EnsureShape(x, *, shape):
  if not TensorShape(x.shape).is_compatible_with(shape):
    raise _ensure_shape_error(TensorShape(x.shape), TensorShape(shape))
  return x


@EnsureShape.def_grad
def _(op, dy):
  return [dy]


def ensure_shape(x, shape, name=None):
  t = convert_to_tensor(x)
  shape = TensorShape(shape)
  if not t.shape.is_compatible_with(shape):
    raise _ensure_shape_error(t.shape, shape)
  if isinstance(t, EagerTensor) or t.shape.merge_with(shape) == t.shape:
    return t
  return execute(EnsureShape, [t], {"shape": shape.as_list() if shape.rank is not None
                                    else None}, name)




# Moved by topic; re-exported so `from tensorlet.ops.array_ops import X` keeps working.
from tensorlet.ops.creation_ops import (Fill, fill, zeros, ones, ZerosLike, OnesLike, zeros_like,
                                        ones_like, Range, range, linspace, eye, OneHot,
                                        one_hot)  # noqa: E402,F401
from tensorlet.ops.indexing_ops import dense_gradient  # noqa: E402
from tensorlet.ops.indexing_ops import (GatherV2, GatherGrad, gather, GatherNd, gather_nd,
                                        ScatterNd, scatter_nd, TensorScatterUpdate,
                                        TensorScatterAdd, TensorScatterSub,
                                        tensor_scatter_nd_update, tensor_scatter_nd_add,
                                        tensor_scatter_nd_sub, SelectV2, Where, where, boolean_mask,
                                        ReverseV2, reverse, Slice, SliceGrad, slice, StridedSlice,
                                        StridedSliceGrad, strided_slice_index, strided_slice,
                                        UnravelIndex, unravel_index, TensorScatterMax,
                                        TensorScatterMin, tensor_scatter_nd_max,
                                        tensor_scatter_nd_min, ReverseSequence,
                                        reverse_sequence)  # noqa: E402,F401
from tensorlet.ops.sort_ops import (TopKV2, top_k, sort, argsort, ArgSort, Unique, unique,
                                    SearchSorted, searchsorted, unique_with_counts,
                                    histogram_fixed_width)  # noqa: E402,F401
