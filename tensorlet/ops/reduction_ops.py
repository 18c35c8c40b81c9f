"""Reductions (reduce_sum/mean/max/...), their gradients, count_nonzero, add_n
and the broadcasting-gradient helper SumToShape."""
import numpy as np

from tensorlet import dtypes as _dt
from tensorlet.errors import InvalidArgumentError
from tensorlet.ops import array_ops, dispatch
from tensorlet.ops._common import BOOL, NUMERIC, REAL, as_sequence, norm_axis, reduced_shape
from tensorlet.ops._common import name_scoped
from tensorlet.ops.math_ops import (_sh, cast, conj, equal, exp, is_finite, log, logical_not,
                                    not_equal, real, size, sqrt, square)
from tensorlet.ops.registry import convert_inputs, execute, op
from tensorlet.tensor import Tensor, convert_to_tensor
from tensorlet.tensor_shape import TensorShape


# ------------------------------------------------------------ reductions

def _reduce_shape(inputs, attrs):
  x = inputs[0]
  return [(reduced_shape(x.shape, attrs["axis"], attrs["keepdims"]), x.dtype)]


def _keep_shape(x, axis):
  """Shape of `x` reduced over `axis` with keepdims, as a list or a tensor."""
  if x.shape.is_fully_defined():
    dims = x.shape.as_list()
    return [1 if axis is None or i in axis else d for i, d in enumerate(dims)]
  shp = array_ops.shape(x)
  if axis is None:
    return array_ops.ones_like(shp)
  r = x.shape.rank
  if r is not None:
    mask = np.array([i in axis for i in range(r)])
  else:
    idx = array_ops.expand_dims(array_ops.range(array_ops.size(shp)), 1)
    mask = reduce_any(equal(idx, np.array(axis, np.int32)[None, :]), axis=1)
  return array_ops.where(mask, array_ops.ones_like(shp), shp)


def _broadcast_back(dy, x, axis):
  return array_ops.broadcast_to(array_ops.reshape(dy, _keep_shape(x, axis)), array_ops.shape(x))


def _np_reduce(fn):
  def k(x, *, axis=None, keepdims=False):
    r = fn(x, axis=axis, keepdims=keepdims)
    return r.astype(x.dtype, copy=False) if r.dtype != x.dtype else r
  return k


def _sum_expr(attrs, node=None):
  """Graphs inline the ufunc's reduce for floats (np.sum's wrapper costs ~2 us a call;
  integer sums go through the kernel, which casts NumPy's wider result back)."""
  axis = attrs.get("axis")
  if node is None or not node.inputs[0].dtype.is_floating or not (
      axis is None or isinstance(axis, (tuple, list)) and
      all(type(a) is int for a in axis)):
    return None
  axis = None if axis is None else tuple(axis)
  return f"np.add.reduce({{0}}, axis={axis!r}, keepdims={bool(attrs.get('keepdims'))})"


# NOTE: the ufuncs' reduce is what np.sum / np.prod call, without their ~1.5 us wrapper
Sum = op("Sum", dtypes=NUMERIC, shape=_reduce_shape, grad_shape="exact",
         expr=_sum_expr)(_np_reduce(np.add.reduce))
Prod = op("Prod", dtypes=NUMERIC, shape=_reduce_shape)(_np_reduce(np.multiply.reduce))
def _np_extreme(fn, identity):
  plain = _np_reduce(fn)

  def k(x, *, axis=None, keepdims=False):
    if x.size:
      return plain(x, axis=axis, keepdims=keepdims)
    # NOTE: as TF, an empty reduction gives the identity (-inf / the dtype's lowest for max).
    return fn(x, axis=axis, keepdims=keepdims, initial=identity(x.dtype))
  return k


def _max_identity(dt):
  return -np.inf if dt.kind == "f" else np.iinfo(dt).min


def _min_identity(dt):
  return np.inf if dt.kind == "f" else np.iinfo(dt).max


Max = op("Max", dtypes=REAL, shape=_reduce_shape)(_np_extreme(np.max, _max_identity))
Min = op("Min", dtypes=REAL, shape=_reduce_shape)(_np_extreme(np.min, _min_identity))
Any = op("Any", dtypes=BOOL, shape=_reduce_shape, differentiable=False)(_np_reduce(np.any))
All = op("All", dtypes=BOOL, shape=_reduce_shape, differentiable=False)(_np_reduce(np.all))


@op("Mean", dtypes=NUMERIC, shape=_reduce_shape, grad_shape="exact")
def Mean(x, *, axis=None, keepdims=False):
  if x.dtype.kind in "iu":
    n = x.size if axis is None else int(np.prod([x.shape[a] for a in axis]))
    s = np.sum(x, axis=axis, keepdims=keepdims, dtype=np.int64)
    return (np.trunc(s / max(n, 1))).astype(x.dtype)
  if x.size:
    r = np.mean(x, axis=axis, keepdims=keepdims)
  else:  # NOTE: the mean of nothing is NaN (0/0), as TF, without NumPy's warning.
    with np.errstate(invalid="ignore", divide="ignore"):
      r = np.sum(x, axis=axis, keepdims=keepdims) / x.dtype.type(0)
  return r.astype(x.dtype, copy=False) if r.dtype != x.dtype else r


@Sum.def_grad
def _(op, dy):
  return [_broadcast_back(dy, op.inputs[0], op.attrs["axis"])]


@Mean.def_grad
def _(op, dy):
  x = op.inputs[0]
  axis = op.attrs["axis"]
  g = _broadcast_back(dy, x, axis)
  if x.shape.is_fully_defined():
    dims = x.shape.as_list()
    n = int(np.prod([d for i, d in enumerate(dims) if axis is None or i in axis]))
    return [g / float(max(n, 1))]
  n = cast(size(x), dy.dtype) / cast(size(dy), dy.dtype)
  return [g / n]


def _minmax_grad(op, dy):
  x = op.inputs[0]
  axis = op.attrs["axis"]
  y = array_ops.reshape(op.outputs[0], _keep_shape(x, axis))
  ind = cast(equal(x, y), dy.dtype)
  num = array_ops.reshape(reduce_sum(ind, axis=list(axis) if axis else None, keepdims=False),
                          _keep_shape(x, axis))
  return [ind / num * _broadcast_back(dy, x, axis)]


Max.def_grad(_minmax_grad)
Min.def_grad(_minmax_grad)


@Prod.def_grad
def _(op, dy):
  x = op.inputs[0]
  axis = op.attrs["axis"]
  y = array_ops.reshape(op.outputs[0], _keep_shape(x, axis))
  # NOTE: prod/x is exact when x has no zeros; where it does, the product of the
  # others is recomputed with the zero replaced by one.
  nz = not_equal(x, array_ops.zeros_like(x))
  safe = array_ops.where(nz, x, array_ops.ones_like(x))
  others = array_ops.reshape(reduce_prod(safe, axis=list(axis) if axis else None),
                             _keep_shape(x, axis))
  zeros = cast(logical_not(nz), x.dtype)
  nzeros = array_ops.reshape(reduce_sum(zeros, axis=list(axis) if axis else None),
                             _keep_shape(x, axis))
  g = array_ops.where(nz, y / safe, array_ops.where(equal(nzeros, array_ops.ones_like(nzeros)),
                                                    others, array_ops.zeros_like(others)))
  return [g * _broadcast_back(dy, x, axis)]


def _reduce_public(od, name):
  def f(input_tensor, axis=None, keepdims=False, name=None):
    x = convert_to_tensor(input_tensor)
    if od in (Any, All) and x.dtype is not _dt.bool:
      raise InvalidArgumentError(None, None, f"{od.name} requires a bool input, got "
                                 f"{x.dtype.name} [Op:{od.name}]")
    ax = norm_axis(axis, x.shape.rank, od.name)
    return execute(od, [x], {"axis": ax, "keepdims": bool(keepdims)}, name)
  f.__name__ = f.__qualname__ = name
  f.__doc__ = f"tf.{name}: reduces `input_tensor` over `axis` (all axes when None)."
  return dispatch.add_dispatch_support(f)


reduce_sum = _reduce_public(Sum, "reduce_sum")
reduce_mean = _reduce_public(Mean, "reduce_mean")
reduce_max = _reduce_public(Max, "reduce_max")
reduce_min = _reduce_public(Min, "reduce_min")
reduce_prod = _reduce_public(Prod, "reduce_prod")
reduce_any = _reduce_public(Any, "reduce_any")
reduce_all = _reduce_public(All, "reduce_all")


@name_scoped
def reduce_logsumexp(input_tensor, axis=None, keepdims=False, name=None):
  """log(sum(exp(x))) computed stably."""
  x = convert_to_tensor(input_tensor)
  m = stop_gradient_(reduce_max(x, axis=axis, keepdims=True))
  m = array_ops.where(is_finite(m), m, array_ops.zeros_like(m))
  r = log(reduce_sum(exp(x - m), axis=axis, keepdims=True)) + m
  if not keepdims:
    ax = norm_axis(axis, x.shape.rank, "Sum")
    r = array_ops.reshape(r, reduced_shape(x.shape, ax, False).as_list()) \
        if x.shape.is_fully_defined() else array_ops.squeeze(r, axis=ax)
  return r


def stop_gradient_(x):
  return array_ops.stop_gradient(x)


@name_scoped
def reduce_variance(input_tensor, axis=None, keepdims=False, name=None):
  """Mean squared deviation from the mean over `axis` (float or complex input)."""
  x = convert_to_tensor(input_tensor)
  if not (x.dtype.is_floating or x.dtype.is_complex):
    raise TypeError(f"Input must be either real or complex. Received integer type "
                    f"{x.dtype!r}." if x.dtype.is_integer else
                    f"Input must be either real or complex. Received {x.dtype!r}.")
  m = reduce_mean(x, axis=axis, keepdims=True)
  d = x - m
  if x.dtype.is_complex:
    return reduce_mean(real(d * conj(d)), axis=axis, keepdims=keepdims)
  return reduce_mean(square(d), axis=axis, keepdims=keepdims)


@name_scoped
def reduce_std(input_tensor, axis=None, keepdims=False, name=None):
  return sqrt(reduce_variance(input_tensor, axis=axis, keepdims=keepdims))


@name_scoped
def reduce_euclidean_norm(input_tensor, axis=None, keepdims=False, name=None):
  return sqrt(reduce_sum(square(input_tensor), axis=axis, keepdims=keepdims))


@name_scoped
def count_nonzero(input, axis=None, keepdims=False, dtype=_dt.int64, name=None):  # noqa: A002
  x = convert_to_tensor(input)
  nz = not_equal(x, array_ops.zeros_like(x)) if x.dtype is not _dt.string else \
      not_equal(x, b"")
  return cast(reduce_sum(cast(nz, _dt.int64), axis=axis, keepdims=keepdims), dtype)


@op("SumToShape", type_inputs=(0,), dtypes=NUMERIC,
    shape=lambda i, a: [(TensorShape(None), i[0].dtype)])
def SumToShape(g, shape):
  """Sums `g` down to `shape` (the reverse of broadcasting)."""
  shape = tuple(int(d) for d in shape)
  lead = g.ndim - len(shape)
  axes = tuple(range(lead)) + tuple(i + lead for i, d in enumerate(shape)
                                    if d == 1 and g.shape[i + lead] != 1)
  r = np.sum(g, axis=axes, keepdims=False) if axes else g
  return np.reshape(r, shape).astype(g.dtype, copy=False)


@SumToShape.def_grad
def _(op, dy):
  return [array_ops.broadcast_to(dy, array_ops.shape(op.inputs[0])), None]


def sum_to_shape(g, shape):
  return execute(SumToShape, [g, convert_to_tensor(shape, _dt.int32)], {})


def _addn_shape(inputs, attrs):
  s = inputs[0].shape
  for i, t in enumerate(inputs[1:], 1):
    if not t.shape.is_compatible_with(s):
      raise ValueError(f"Inputs to operation AddN of type AddN must have the same size and "
                       f"shape.  Input 0: {_sh(s.as_list())} != input {i}: "
                       f"{_sh(t.shape.as_list())}")
    s = s.merge_with(t.shape)
  return [(s, inputs[0].dtype)]


def _addn_expr(attrs, node=None):
  """Graphs inline `a + b + ...` when the static shapes are known and equal (the
  kernel's shape check cannot fail then)."""
  if node is None or len(node.inputs) < 2:
    return None
  dims = [t.shape.as_list() if t.shape.is_fully_defined() else None for t in node.inputs]
  if dims[0] is None or any(d != dims[0] for d in dims[1:]):
    return None
  return "(" + " + ".join(f"{{{k}}}" for k in range(len(dims))) + ")"


@op("AddN", dtypes=NUMERIC, shape=_addn_shape, expr=_addn_expr)
def AddN(*xs):
  if any(x.shape != xs[0].shape for x in xs[1:]):
    raise ValueError("AddN inputs differ in shape")  # reworded by the shape rule
  r = xs[0] + xs[1] if len(xs) > 1 else np.copy(xs[0])
  for x in xs[2:]:
    r = r + x
  return r


@AddN.def_grad
def _(op, dy):
  return [dy] * len(op.inputs)


def add_n(inputs, name=None):
  """Sum of a list of tensors of the same shape and dtype."""
  if isinstance(inputs, Tensor):
    inputs = [inputs]
  inputs = as_sequence(inputs, "AddN", "inputs")
  if not inputs:
    raise ValueError("inputs must be an iterable of at least one Tensor/IndexedSlices with the "
                     "same dtype and shape")
  ts = convert_inputs(AddN, list(inputs))
  if len(ts) == 1:
    return ts[0]
  return execute(AddN, ts, {}, name)
