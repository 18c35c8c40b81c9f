"""Creation ops: fill, zeros/ones(_like), range, linspace, eye, one_hot."""
import builtins

import numpy as np

from tensorlet import dtypes as _dt
from tensorlet.errors import InvalidArgumentError, out_of_memory
from tensorlet.ops import dispatch
from tensorlet.ops._common import ALL, BOOL, NUMERIC, as_int, as_sequence, same_shape, single_axis
from tensorlet.ops._common import name_scoped
from tensorlet.ops.array_ops import (_check_index_dtype, _const_shape, _dims_arg, _math, _shape_of,
                                     broadcast_dynamic_shape, broadcast_static_shape, broadcast_to,
                                     concat, expand_dims, reshape, transpose)
from tensorlet.ops.registry import constant_value, execute, fill_value, op
from tensorlet.tensor import Tensor, constant, convert_to_tensor
from tensorlet.tensor_shape import TensorShape


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


@dispatch.add_dispatch_support
def fill(dims, value, name=None):
  """A tensor of shape `dims` filled with the scalar `value`."""
  v = convert_to_tensor(value)
  if v.shape.rank not in (0, None):
    raise InvalidArgumentError(None, None, f"value must be a scalar, got shape {v.shape} "
                               f"[Op:Fill]")
  return execute(Fill, [_dims_arg(dims, "Fill"), v], {}, name)


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
zeros = dispatch.add_dispatch_support(zeros)
ones = _creation(1)
ones.__name__ = "ones"
ones.__doc__ = "A tensor of the given shape filled with ones."
ones = dispatch.add_dispatch_support(ones)


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
  r = execute(ZerosLike, [x], {}, name)
  return r if dtype is None or _dt.as_dtype(dtype) is x.dtype else _math().cast(r, dtype)


@dispatch.add_dispatch_support
def ones_like(input, dtype=None, name=None, layout=None):  # noqa: A002
  """Ones with the shape (and dtype, unless given) of `input`."""
  x = convert_to_tensor(input)
  r = execute(OnesLike, [x], {}, name)
  return r if dtype is None or _dt.as_dtype(dtype) is x.dtype else _math().cast(r, dtype)


def _range_shape(inputs, attrs):
  vals = [constant_value(t) for t in inputs]
  if all(v is not None for v in vals):
    start, limit, delta = [v.item() for v in vals]
    if delta == 0:
      return [(TensorShape([None]), inputs[0].dtype)]    # the kernel reports it
    # NOTE: counted, not built: np.arange of a huge limit would allocate it
    return [(TensorShape([max(0, int(np.ceil((limit - start) / delta)))]), inputs[0].dtype)]
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
  return execute(Range, ts, {}, name)


@name_scoped
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


@name_scoped
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
  for v, what in ((on, "on_value"), (off, "off_value")):
    if v.shape.rank is not None and v.shape.rank != 0:
      raise InvalidArgumentError(None, None, f"{what} must be a scalar, but got shape "
                                 f"{v.shape} [Op:OneHot]")
  d = as_int(constant_value(convert_to_tensor(depth)), "OneHot", "depth")
  if d < 0:
    raise InvalidArgumentError(None, None, f"depth must be non-negative, got: {d} [Op:OneHot]")
  ax = -1 if axis is None else as_int(axis, "OneHot", "axis")
  if i.shape.rank is not None and not -1 <= ax <= i.shape.rank:
    raise InvalidArgumentError(None, None, f"Expected axis to be -1 or between [0, "
                               f"{i.shape.rank + 1}).  But received: {ax} [Op:OneHot]")
  return execute(OneHot, [i, on, off], {"depth": d, "axis": ax}, name)
