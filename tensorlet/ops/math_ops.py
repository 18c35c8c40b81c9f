"""Math ops: elementwise unary/binary, comparisons, logical, reductions,
matmul, cast, cumulative ops. Each op's kernel, shape rule and gradient sit
together; public wrappers follow their op."""
import numpy as np

from tensorlet import dtypes as _dt
from tensorlet.errors import InvalidArgumentError
from tensorlet.ops import array_ops
from tensorlet.ops import _blas_threads as _bt
from tensorlet.ops import dispatch
from tensorlet.ops._common import name_scoped
from tensorlet.ops._common import (BOOL, FLOAT, FLOAT_C, INT, NUM_STR, NUMERIC, REAL,
                                   as_sequence, broadcast_bool, broadcast_shape,
                                   reduced_shape, same_shape, single_axis)
from tensorlet.ops.registry import (add_identity, convert_inputs, div_identity, execute,
                                    mul_identity, op, sub_identity)
from tensorlet.tensor_shape import TensorShape
from tensorlet.indexed_slices import IndexedSlices
from tensorlet.tensor import EagerTensor, convert_to_tensor



def _unary_public(od, name, doc):
  def f(x, name=None):
    try:
      return execute(od, convert_inputs(od, (x,)), {}, name)
    except (TypeError, ValueError):
      r = dispatch.composite_fallback(f, (x,), {})
      if r is None:
        raise
      return r
  f.__name__ = f.__qualname__ = name
  f.__doc__ = doc
  return dispatch.elementwise(f, od)


def _binary_public(od, name, doc):
  def f(x, y, name=None):
    try:
      return execute(od, convert_inputs(od, (x, y)), {}, name)
    except (TypeError, ValueError):
      r = dispatch.composite_fallback(f, (x, y), {})
      if r is None:
        raise
      return r
  f.__name__ = f.__qualname__ = name
  f.__doc__ = doc
  return dispatch.elementwise(f, od)


# ---------------------------------------------------------------- binary

@op("AddV2", dtypes=NUM_STR, shape=broadcast_shape, expr="{0} + {1}",
    inplace="add", simplify=add_identity)
def AddV2(x, y):
  return x + y


@AddV2.def_grad
def _(op, dy):
  return [dy, dy]


@op("Sub", dtypes=NUMERIC, shape=broadcast_shape, expr="{0} - {1}",
    inplace="subtract", simplify=sub_identity)
def Sub(x, y):
  return x - y


@Sub.def_grad
def _(op, dy):
  return [dy, negative(dy)]


@op("Mul", dtypes=NUMERIC, shape=broadcast_shape, expr="{0} * {1}",
    inplace="multiply", simplify=mul_identity)
def Mul(x, y):
  return x * y


@Mul.def_grad
def _(op, dy):
  x, y = op.inputs
  return [dy * conj(y), conj(x) * dy]


@op("RealDiv", dtypes=FLOAT_C, shape=broadcast_shape, expr="{0} / {1}",
    inplace="divide", simplify=div_identity)
def RealDiv(x, y):
  return x / y


@RealDiv.def_grad
def _(op, dy):
  x, y = conj(op.inputs[0]), conj(op.inputs[1])
  return [dy / y, negative(dy) * x / (y * y)]


@op("DivNoNan", dtypes=FLOAT_C, shape=broadcast_shape)
def DivNoNan(x, y):
  if y.ndim == 0 and y.dtype == x.dtype:  # a mean's count: no where, no copy
    return np.zeros(x.shape, x.dtype) if y == 0 else np.asarray(x / y)
  return np.where(y == 0, np.zeros((), x.dtype), x / y).astype(x.dtype)


@DivNoNan.def_grad
def _(op, dy):
  x, y = conj(op.inputs[0]), conj(op.inputs[1])
  return [div_no_nan(dy, y), dy * div_no_nan(negative(x) / y, y)]


def _int_div_check(y, op_name):
  if np.any(y == 0):
    raise InvalidArgumentError(None, None, f"Integer division by zero [Op:{op_name}]")


@op("FloorDiv", dtypes=REAL, shape=broadcast_shape, differentiable=False)
def FloorDiv(x, y):
  if x.dtype.kind in "iu":
    _int_div_check(y, "FloorDiv")
  return np.floor_divide(x, y)


@op("FloorMod", dtypes=REAL, shape=broadcast_shape)
def FloorMod(x, y):
  if x.dtype.kind in "iu":
    _int_div_check(y, "FloorMod")
  r = np.mod(x, y)
  if r.dtype.kind == "f":
    zero = r == 0
    if zero.any():  # NOTE: TF's zero takes x's sign (fmod); NumPy's takes y's
      r = np.where(zero, np.copysign(r, x), r)
  return r


@FloorMod.def_grad
def _(op, dy):
  x, y = op.inputs
  return [dy, negative(dy) * floor(x / y)] if x.dtype.is_floating else [None, None]


@op("TruncateDiv", dtypes=INT, shape=broadcast_shape, differentiable=False)
def TruncateDiv(x, y):
  _int_div_check(y, "TruncateDiv")
  q = np.abs(x) // np.abs(y)  # NOTE: integer arithmetic: exact for large int64
  return np.where((x < 0) != (y < 0), -q, q).astype(x.dtype)


@op("Pow", dtypes=NUMERIC, shape=broadcast_shape)
def Pow(x, y):
  if x.dtype.kind in "iu" and np.any(y < 0):
    raise InvalidArgumentError(None, None, "Integers to negative integer powers are not allowed "
                               "[Op:Pow]")
  return np.power(x, y)


@Pow.def_grad
def _(op, dy):
  x, y = op.inputs
  z = op.outputs[0]
  gx = dy * conj(y * pow(x, y - array_ops.ones_like(y)))
  # NOTE: TF's rule: log(x) only where x > 0 (x != 0 for complex), else 0.
  ok = not_equal(x, array_ops.zeros_like(x)) if x.dtype.is_complex else greater(
      x, array_ops.zeros_like(x))
  safe_log = array_ops.where(ok, log(array_ops.where(ok, x, array_ops.ones_like(x))),
                             array_ops.zeros_like(x))
  return [gx, dy * conj(z * safe_log)]


@op("Maximum", dtypes=REAL, shape=broadcast_shape, expr="np.maximum({0}, {1})",
    inplace="maximum")
def Maximum(x, y):
  return np.maximum(x, y)


@Maximum.def_grad
def _(op, dy):
  x, y = op.inputs
  mask = greater_equal(x, y)
  z = array_ops.zeros_like(dy)
  return [array_ops.where(mask, dy, z), array_ops.where(mask, z, dy)]


@op("Minimum", dtypes=REAL, shape=broadcast_shape, expr="np.minimum({0}, {1})",
    inplace="minimum")
def Minimum(x, y):
  return np.minimum(x, y)


@Minimum.def_grad
def _(op, dy):
  x, y = op.inputs
  mask = less_equal(x, y)
  z = array_ops.zeros_like(dy)
  return [array_ops.where(mask, dy, z), array_ops.where(mask, z, dy)]


@op("SquaredDifference", dtypes=NUMERIC, shape=broadcast_shape)
def SquaredDifference(x, y):
  d = x - y
  return d * np.conj(d) if d.dtype.kind == "c" else d * d


@SquaredDifference.def_grad
def _(op, dy):
  x, y = op.inputs
  g = dy * (x - y) * 2
  return [g, negative(g)]


@op("Atan2", dtypes=FLOAT, shape=broadcast_shape)
def Atan2(y, x):
  return np.arctan2(y, x)


@Atan2.def_grad
def _(op, dy):
  y, x = op.inputs
  d = dy / (x * x + y * y)
  return [d * x, negative(d) * y]


add = _binary_public(AddV2, "add", "x + y elementwise, with broadcasting; strings concatenate.")
subtract = _binary_public(Sub, "subtract", "x - y elementwise, with broadcasting.")
multiply = _binary_public(Mul, "multiply", "x * y elementwise, with broadcasting.")
squared_difference = _binary_public(SquaredDifference, "squared_difference", "(x - y)^2.")
maximum = _binary_public(Maximum, "maximum", "The larger of x and y, elementwise.")
minimum = _binary_public(Minimum, "minimum", "The smaller of x and y, elementwise.")
floordiv = _binary_public(FloorDiv, "floordiv", "floor(x / y) elementwise.")
floor_div = floordiv
floormod = _binary_public(FloorMod, "floormod", "x mod y with the sign of y (Python's %).")
mod = floormod
truncatediv = _binary_public(TruncateDiv, "truncatediv", "Integer x / y rounded towards zero.")
div_no_nan = _binary_public(DivNoNan, "div_no_nan", "x / y, or 0 where y is 0.")
atan2 = _binary_public(Atan2, "atan2", "arctan(y / x) with the quadrant of (x, y).")


@dispatch.add_dispatch_support
def pow(x, y, name=None):  # noqa: A001 - mirrors tf.pow
  """x ** y elementwise."""
  return execute(Pow, convert_inputs(Pow, (x, y)), {}, name)


def _int_to_float(dt):
  return _dt.float64 if dt in (_dt.int32, _dt.int64, _dt.uint32, _dt.uint64) else _dt.float32


@dispatch.add_dispatch_support
def truediv(x, y, name=None):
  """x / y; integer inputs are first cast to float (int32 -> float64, as TF does)."""
  x, y = convert_inputs(RealDiv, (x, y))
  if x.dtype is not y.dtype:
    raise TypeError(f"x and y must have the same dtype, got {x.dtype!r} != {y.dtype!r}")
  if x.dtype.is_integer:
    ft = _int_to_float(x.dtype)
    x, y = cast(x, ft), cast(y, ft)
  return execute(RealDiv, [x, y], {}, name)


@dispatch.add_dispatch_support
@name_scoped
def divide(x, y, name=None):
  """x / y (Python 3 division semantics)."""
  return truediv(x, y)


realdiv = _binary_public(RealDiv, "realdiv", "x / y for floating-point tensors.")


@op("MulNoNan", dtypes=FLOAT_C, shape=broadcast_shape)
def MulNoNan(x, y):
  return np.where(y == 0, np.zeros((), x.dtype), x * y).astype(x.dtype)


@MulNoNan.def_grad
def _(op, dy):
  x, y = op.inputs
  return [multiply_no_nan(dy, conj(y)), multiply_no_nan(conj(x), dy)]


multiply_no_nan = _binary_public(MulNoNan, "multiply_no_nan", "x * y, or 0 where y is 0.")


@op("TruncateMod", dtypes=REAL, shape=broadcast_shape, differentiable=False)
def TruncateMod(x, y):
  if x.dtype.kind in "iu":
    _int_div_check(y, "TruncateMod")
  return np.fmod(x, y)


truncatemod = _binary_public(TruncateMod, "truncatemod", "x mod y with the sign of x (C's %).")


# ----------------------------------------------------------------- unary

def _unary(name, kernel, dtypes, grad):
  ufunc = getattr(np, getattr(kernel, "__name__", ""), None) is kernel
  od = op(name, dtypes=dtypes, shape=same_shape,
          expr=f"np.{kernel.__name__}({{0}})" if ufunc else None,
          inplace=kernel.__name__ if ufunc and dtypes is not BOOL and
          name not in ("IsNan", "IsInf", "IsFinite") else None)(kernel)
  if grad is not None:
    od.def_grad(grad)
  else:
    od.differentiable = False
  return od


def _d(deriv):
  """Gradient rule dy * conj(f'(x)) from f' as a function of (x, y = f(x)).

  NOTE: conj is TF's convention for complex inputs (the gradient of a real loss
  is dL/dre + i dL/dim); for real dtypes it is the identity and costs nothing.
  """
  return lambda op, dy: [dy * conj(deriv(op.inputs[0], op.outputs[0]))]


Neg = _unary("Neg", np.negative, NUMERIC, lambda op, dy: [negative(dy)])
Abs = _unary("Abs", np.abs, REAL, lambda op, dy: [dy * sign(op.inputs[0])])
Sign = _unary("Sign", np.sign, REAL, lambda op, dy: [array_ops.zeros_like(dy)])
Square = _unary("Square", np.square, NUMERIC, _d(lambda x, y: x * 2))
Sqrt = _unary("Sqrt", np.sqrt, FLOAT_C, _d(lambda x, y: 0.5 / y))
Rsqrt = _unary("Rsqrt", (lambda x: 1 / np.sqrt(x)), FLOAT_C, _d(lambda x, y: -0.5 * y * y * y))
Exp = _unary("Exp", np.exp, FLOAT_C, _d(lambda x, y: y))
Expm1 = _unary("Expm1", np.expm1, FLOAT_C, _d(lambda x, y: y + 1))
Log = _unary("Log", np.log, FLOAT_C, _d(lambda x, y: reciprocal(x)))
Log1p = _unary("Log1p", np.log1p, FLOAT_C, _d(lambda x, y: reciprocal(x + 1)))
Tanh = _unary("Tanh", np.tanh, FLOAT_C, _d(lambda x, y: 1 - y * y))
def _sigmoid(x):
  # NOTE: 1 / (1 + exp(-x)) with its steps written into one fresh array (same values,
  # ~25% faster on a recurrent step's (32, 64) gates than four temporaries).
  t = np.negative(x)
  if type(t) is not np.ndarray:
    return (1 / (1 + np.exp(-x))).astype(x.dtype, copy=False)
  np.exp(t, out=t)
  t += 1
  return np.divide(1, t, out=t)


Sigmoid = _unary("Sigmoid", _sigmoid, FLOAT_C, _d(lambda x, y: y * (1 - y)))
Reciprocal = _unary("Reciprocal", np.reciprocal, FLOAT_C, _d(lambda x, y: negative(y * y)))
Sin = _unary("Sin", np.sin, FLOAT_C, _d(lambda x, y: cos(x)))
Cos = _unary("Cos", np.cos, FLOAT_C, _d(lambda x, y: negative(sin(x))))
Tan = _unary("Tan", np.tan, FLOAT_C, _d(lambda x, y: 1 + y * y))
Asin = _unary("Asin", np.arcsin, FLOAT,
              lambda op, dy: [dy * rsqrt(1 - square(op.inputs[0]))])
Acos = _unary("Acos", np.arccos, FLOAT,
              lambda op, dy: [negative(dy) * rsqrt(1 - square(op.inputs[0]))])
Atan = _unary("Atan", np.arctan, FLOAT, lambda op, dy: [dy / (1 + square(op.inputs[0]))])
Sinh = _unary("Sinh", np.sinh, FLOAT_C, _d(lambda x, y: cosh(x)))
Cosh = _unary("Cosh", np.cosh, FLOAT_C, _d(lambda x, y: sinh(x)))
Asinh = _unary("Asinh", np.arcsinh, FLOAT,
               lambda op, dy: [dy * rsqrt(square(op.inputs[0]) + 1)])
Acosh = _unary("Acosh", np.arccosh, FLOAT,
               lambda op, dy: [dy * rsqrt(square(op.inputs[0]) - 1)])
Atanh = _unary("Atanh", np.arctanh, FLOAT,
               lambda op, dy: [dy / (1 - square(op.inputs[0]))])
Floor = _unary("Floor", np.floor, FLOAT, lambda op, dy: [None])
Ceil = _unary("Ceil", np.ceil, FLOAT, lambda op, dy: [None])
Round = _unary("Round", lambda x: np.rint(x) if x.dtype.kind == "f" else x.copy(), REAL,
               lambda op, dy: [None])
IsNan = _unary("IsNan", np.isnan, FLOAT, None)
IsInf = _unary("IsInf", np.isinf, FLOAT, None)
IsFinite = _unary("IsFinite", np.isfinite, FLOAT, None)
LogicalNot = _unary("LogicalNot", np.logical_not, BOOL, None)


def _erf_kernel(x):
  from math import erf as _e
  return np.vectorize(_e, otypes=[x.dtype])(x) if x.size else x.copy()


Erf = _unary("Erf", _erf_kernel, FLOAT,
             lambda op, dy: [dy * (2 / np.sqrt(np.pi)) * exp(negative(square(op.inputs[0])))])
Erfc = _unary("Erfc", lambda x: (1 - _erf_kernel(x)).astype(x.dtype), FLOAT,
              lambda op, dy: [dy * (-2 / np.sqrt(np.pi)) * exp(negative(square(op.inputs[0])))])

for _od in (IsNan, IsInf, IsFinite):
  _od.shape_fn = lambda inputs, attrs: [(inputs[0].shape, _dt.bool)]

negative = _unary_public(Neg, "negative", "-x elementwise.")
sign = _unary_public(Sign, "sign", "-1, 0 or 1 by the sign of x.")
square = _unary_public(Square, "square", "x * x elementwise.")
sqrt = _unary_public(Sqrt, "sqrt", "Square root elementwise.")
rsqrt = _unary_public(Rsqrt, "rsqrt", "1 / sqrt(x) elementwise.")
exp = _unary_public(Exp, "exp", "e ** x elementwise.")
expm1 = _unary_public(Expm1, "expm1", "exp(x) - 1, accurate near 0.")
log = _unary_public(Log, "log", "Natural logarithm elementwise.")
log1p = _unary_public(Log1p, "log1p", "log(1 + x), accurate near 0.")
tanh = _unary_public(Tanh, "tanh", "Hyperbolic tangent elementwise.")
sigmoid = _unary_public(Sigmoid, "sigmoid", "1 / (1 + exp(-x)) elementwise.")
reciprocal = _unary_public(Reciprocal, "reciprocal", "1 / x elementwise.")
sin = _unary_public(Sin, "sin", "Sine elementwise.")
cos = _unary_public(Cos, "cos", "Cosine elementwise.")
tan = _unary_public(Tan, "tan", "Tangent elementwise.")
asin = _unary_public(Asin, "asin", "Arcsine elementwise.")
acos = _unary_public(Acos, "acos", "Arccosine elementwise.")
atan = _unary_public(Atan, "atan", "Arctangent elementwise.")
sinh = _unary_public(Sinh, "sinh", "Hyperbolic sine elementwise.")
cosh = _unary_public(Cosh, "cosh", "Hyperbolic cosine elementwise.")
asinh = _unary_public(Asinh, "asinh", "Inverse hyperbolic sine elementwise.")
acosh = _unary_public(Acosh, "acosh", "Inverse hyperbolic cosine elementwise.")
atanh = _unary_public(Atanh, "atanh", "Inverse hyperbolic tangent elementwise.")
floor = _unary_public(Floor, "floor", "Largest integer not greater than x.")
ceil = _unary_public(Ceil, "ceil", "Smallest integer not less than x.")
round = _unary_public(Round, "round", "Rounds half to even, elementwise.")  # noqa: A001
is_nan = _unary_public(IsNan, "is_nan", "True where x is NaN.")
is_inf = _unary_public(IsInf, "is_inf", "True where x is +-inf.")
is_finite = _unary_public(IsFinite, "is_finite", "True where x is finite.")
logical_not = _unary_public(LogicalNot, "logical_not", "Elementwise NOT of a bool tensor.")
erf = _unary_public(Erf, "erf", "Gauss error function elementwise.")
erfc = _unary_public(Erfc, "erfc", "1 - erf(x) elementwise.")


@dispatch.add_dispatch_support
def abs(x, name=None):  # noqa: A001 - mirrors tf.abs
  """|x| elementwise (the magnitude, as float, for complex x)."""
  x = convert_to_tensor(x)
  if x.dtype.is_complex:
    return ComplexAbs(x)
  return execute(Abs, [x], {}, name)


@op("ComplexAbs", dtypes=_dt.COMPLEX, shape=lambda i, a: [(i[0].shape, i[0].dtype.real_dtype)])
def ComplexAbs(x):
  return np.abs(x)


@ComplexAbs.def_grad
def _(op, dy):
  x, y = op.inputs[0], op.outputs[0]
  return [div_no_nan(complex(dy, array_ops.zeros_like(dy)) * x,
                     complex(y, array_ops.zeros_like(y)))]


@name_scoped
def reciprocal_no_nan(x, name=None):
  """1 / x, or 0 where x is 0."""
  x = convert_to_tensor(x)
  return div_no_nan(array_ops.ones_like(x), x)


@name_scoped
def rint(x, name=None):
  """The closest integer to x; halves round to even."""
  return round(x)


# -------------------------------------------------------- comparison/logical

def _cmp(name, kernel, dtypes=REAL, expr=None):
  return op(name, dtypes=dtypes, shape=broadcast_bool, differentiable=False,
            expr=expr)(kernel)


# NOTE: the operators call the same ufuncs (a loop's test inlined: no kernel call).
Less = _cmp("Less", np.less, expr="{0} < {1}")
LessEqual = _cmp("LessEqual", np.less_equal, expr="{0} <= {1}")
Greater = _cmp("Greater", np.greater, expr="{0} > {1}")
GreaterEqual = _cmp("GreaterEqual", np.greater_equal, expr="{0} >= {1}")
LogicalAnd = _cmp("LogicalAnd", np.logical_and, BOOL)
LogicalOr = _cmp("LogicalOr", np.logical_or, BOOL)
LogicalXor = _cmp("LogicalXor", np.logical_xor, BOOL)

_EQ_TYPES = NUM_STR | BOOL


def _eq_kernel(fn):
  def k(x, y, *, incompatible_shape_error=True):
    if not incompatible_shape_error:
      try:
        np.broadcast_shapes(np.shape(x), np.shape(y))
      except ValueError:
        return np.asarray(fn is np.not_equal)
    return np.asarray(fn(x, y), dtype=bool)
  return k


Equal = _cmp("Equal", _eq_kernel(np.equal), _EQ_TYPES)
NotEqual = _cmp("NotEqual", _eq_kernel(np.not_equal), _EQ_TYPES)

less = _binary_public(Less, "less", "x < y elementwise.")
less_equal = _binary_public(LessEqual, "less_equal", "x <= y elementwise.")
greater = _binary_public(Greater, "greater", "x > y elementwise.")
greater_equal = _binary_public(GreaterEqual, "greater_equal", "x >= y elementwise.")
logical_and = _binary_public(LogicalAnd, "logical_and", "Elementwise AND of bool tensors.")
logical_or = _binary_public(LogicalOr, "logical_or", "Elementwise OR of bool tensors.")
logical_xor = _binary_public(LogicalXor, "logical_xor", "Elementwise XOR of bool tensors.")
equal = _binary_public(Equal, "equal", "x == y elementwise.")
not_equal = _binary_public(NotEqual, "not_equal", "x != y elementwise.")


# ---------------------------------------------------------------- matmul

def _matmul_shape(inputs, attrs):
  a, b = inputs
  if a.shape.rank is None or b.shape.rank is None:
    return [(TensorShape(None), a.dtype)]
  ta, tb = attrs.get("transpose_a", False), attrs.get("transpose_b", False)
  sa, sb = a.shape.as_list(), b.shape.as_list()
  if len(sa) < 2 or len(sb) < 2:
    raise ValueError(f"In[0] and In[1] must be matrices of rank >= 2, got shapes "
                     f"{_sh(sa)} and {_sh(sb)}")
  if ta:
    sa = sa[:-2] + [sa[-1], sa[-2]]
  if tb:
    sb = sb[:-2] + [sb[-1], sb[-2]]
  if sa[-1] is not None and sb[-2] is not None and sa[-1] != sb[-2]:
    raise ValueError(f"Matrix size-incompatible: In[0]: {_sh(inputs[0].shape.as_list())}, "
                     f"In[1]: {_sh(inputs[1].shape.as_list())}")
  from tensorlet.tensor_shape import broadcast_static
  batch = broadcast_static(sa[:-2], sb[:-2]).as_list()
  return [(TensorShape(batch + [sa[-2], sb[-1]]), a.dtype)]


def _sh(lst):
  return "[" + ",".join("?" if d is None else str(d) for d in lst) + "]"


def _matmul_kernel(a, b, *, transpose_a=False, transpose_b=False):
  if transpose_a:
    a = a.swapaxes(-1, -2)
  if transpose_b:
    b = b.swapaxes(-1, -2)
  if a.ndim == 2 and b.ndim == 2 and a.shape[0] * a.shape[1] * b.shape[1] >= _SPLIT_MIN:
    return _split_matmul(a, b)
  _bt.matmul(a, b)
  return a @ b


# NOTE: multiply-adds per piece of a split GEMM: pieces of 32x21632 @ 21632x128 (the
# MNIST convnet's Dense kernel) near 0.5-1 ms each on one core.
_SPLIT_WORK = 8_000_000
# NOTE: the LSTM's and Transformer's 33-52M products (3200x64 @ 64x256, ...) gained no
# wall time split on the busy host and cost 2-3 ms of CPU per step; the convnet's 88M
# ones (and W2's 1000^3) gained.
_SPLIT_MIN = 64_000_000
_MAX_PIECES = 8


def _split_matmul(a, b):
  """A big 2-D product in pieces on _parallel's threads: row blocks of `a`, column
  blocks of `b`, or (both small) blocks of the inner dimension summed at the end."""
  from tensorlet.ops import _parallel  # only big products need the pool (import time)
  (m, k), n = a.shape, b.shape[1]
  pieces = min(_MAX_PIECES, m * n * k // _SPLIT_WORK)
  t = _parallel.threads()
  if t < 2 or pieces < 2 or not np.issubdtype(np.result_type(a, b), np.inexact):
    _bt.matmul(a, b)
    return a @ b
  big = max(m, n, k)
  bounds = [big * i // pieces for i in range(pieces + 1)]
  if big == k and (m < 64 and n < 64 or m * n < k):
    parts = [None] * pieces

    def piece(i):
      parts[i] = a[:, bounds[i]:bounds[i + 1]] @ b[bounds[i]:bounds[i + 1]]
    _parallel.run(piece, pieces, t)
    out = parts[0]
    for p in parts[1:]:
      out += p
    return out
  out = np.empty((m, n), np.result_type(a, b))
  if big == m or m >= n:
    bounds = [m * i // pieces for i in range(pieces + 1)]

    def piece(i):
      np.matmul(a[bounds[i]:bounds[i + 1]], b, out=out[bounds[i]:bounds[i + 1]])
  else:
    bounds = [n * i // pieces for i in range(pieces + 1)]

    def piece(i):
      out[:, bounds[i]:bounds[i + 1]] = a @ b[:, bounds[i]:bounds[i + 1]]
  _parallel.run(piece, pieces, t)
  return out


def _matmul_expr(attrs, node=None):
  """Graphs inline `a @ b` for products too small to want a BLAS thread decision
  (known from static shapes); the others call the kernel, which decides."""
  if node is not None:
    sa, sb = (t.shape.as_list() if t.shape.rank is not None else [None] for t in node.inputs)
    if None in sa or None in sb or len(sa) < 2 or len(sb) < 2:
      return None
    m, k = (sa[-1], sa[-2]) if attrs.get("transpose_a") else (sa[-2], sa[-1])
    n = sb[-2] if attrs.get("transpose_b") else sb[-1]
    if max(np.prod(sa, dtype=np.int64) * n, np.prod(sb, dtype=np.int64) * m) > _bt.FREE:
      return None
  a = "{0}.T" if attrs.get("transpose_a") else "{0}"
  b = "{1}.T" if attrs.get("transpose_b") else "{1}"
  return f"{a} @ {b}"


MatMul = op("MatMul", dtypes=NUMERIC - {_dt.int8, _dt.uint8, _dt.int16, _dt.uint16},
            shape=_matmul_shape, expr=_matmul_expr, fresh=True,
            grad_shape="exact")(_matmul_kernel)  # 2-D only: BatchMatMulV2 broadcasts
BatchMatMulV2 = op("BatchMatMulV2", dtypes=NUMERIC - {_dt.int8, _dt.uint8},
                   shape=_matmul_shape)(_matmul_kernel)


def _matmul_grad(op, dy):
  a, b = conj(op.inputs[0]), conj(op.inputs[1])  # TF's complex convention: adjoints
  ta, tb = op.attrs.get("transpose_a", False), op.attrs.get("transpose_b", False)
  need_a, need_b = op.needs if op.needs is not None else (True, True)
  mm = matmul
  if not ta and not tb:
    ga = (lambda: mm(dy, b, transpose_b=True)), (lambda: mm(a, dy, transpose_a=True))
  elif not ta and tb:
    ga = (lambda: mm(dy, b)), (lambda: mm(dy, a, transpose_a=True))
  elif ta and not tb:
    ga = (lambda: mm(b, dy, transpose_b=True)), (lambda: mm(a, dy))
  else:
    ga = (lambda: mm(b, dy, transpose_a=True, transpose_b=True)), \
        (lambda: mm(dy, a, transpose_a=True, transpose_b=True))
  return [ga[0]() if need_a else None, ga[1]() if need_b else None]


MatMul.def_grad(_matmul_grad)
BatchMatMulV2.def_grad(_matmul_grad)


def matmul(a, b, transpose_a=False, transpose_b=False, adjoint_a=False, adjoint_b=False,
           a_is_sparse=False, b_is_sparse=False, output_type=None, name=None):
  """Matrix product of `a` and `b` (rank >= 2; leading dims are batch dims)."""
  a, b = convert_inputs(MatMul, (a, b))
  if adjoint_a:
    a, transpose_a = (conj(a) if a.dtype.is_complex else a), True
  if adjoint_b:
    b, transpose_b = (conj(b) if b.dtype.is_complex else b), True
  # NOTE: no attrs unless transposing: the graph code generator then inlines `a @ b`.
  attrs = {"transpose_a": True, "transpose_b": bool(transpose_b)} if transpose_a else (
      {"transpose_b": True} if transpose_b else {})
  ra = a._value.ndim if type(a) is EagerTensor else a.shape.rank
  rb = b._value.ndim if type(b) is EagerTensor else b.shape.rank
  if ra is not None and rb is not None and (ra < 2 or rb < 2):
    raise InvalidArgumentError(
        None, None, f"In[0] and In[1] has different ndims: {a.shape} vs. {b.shape} "
        f"[Op:MatMul]" if ra != rb else
        f"In[0] and In[1] must be matrices, got shapes {a.shape} and {b.shape} [Op:MatMul]")
  od = MatMul if ra == 2 and rb == 2 else BatchMatMulV2
  return execute(od, [a, b], attrs, name)


# ------------------------------------------------------------------ cast

@op("Cast", type_inputs=(), shape=lambda i, a: [(i[0].shape, a["DstT"])], grad_shape="exact",
    sparse_grad=True)
def Cast(x, *, DstT):
  if x.dtype.kind == "O" or DstT is _dt.string:
    raise TypeError(f"Cast string to {DstT.name} is not supported")
  if DstT is _dt.bool:
    return x != 0
  if x.dtype.kind == "c" and DstT._np.kind != "c":
    x = x.real
  return x.astype(DstT._np)


@Cast.def_grad
def _(op, dy):
  src = op.inputs[0].dtype
  if (src.is_floating or src.is_complex) and (dy.dtype.is_floating or dy.dtype.is_complex):
    return [cast(dy, src)]
  return [None]


@dispatch.add_dispatch_support
def cast(x, dtype, name=None):
  """Casts `x` to `dtype` (floats to ints truncate toward zero); an IndexedSlices'
  values."""
  dtype = _dt.as_dtype(dtype)
  if isinstance(x, IndexedSlices):
    return IndexedSlices(cast(x.values, dtype, name), x.indices, x.dense_shape)
  x = convert_to_tensor(x)
  if x.dtype is dtype:
    return x
  if x.dtype is _dt.string or dtype is _dt.string:
    from tensorlet.errors import UnimplementedError
    raise UnimplementedError(None, None, f"Cast {x.dtype.name} to {dtype.name} is not "
                             f"supported [Op:Cast]")
  return execute(Cast, [x], {"DstT": dtype}, name)


@name_scoped
def saturate_cast(value, dtype, name=None):
  dtype = _dt.as_dtype(dtype)
  x = convert_to_tensor(value)
  if dtype.is_integer or dtype.is_floating:
    lo, hi = dtype.min, dtype.max
    if x.dtype.is_floating or x.dtype.is_integer:
      if x.dtype.min < lo:
        x = maximum(x, cast(lo, x.dtype))
      if x.dtype.max > hi:
        x = minimum(x, cast(hi, x.dtype))
  return cast(x, dtype)


# ------------------------------------------------------------ cumulative

def _cum_kernel(fn, ident):
  def k(x, *, axis=0, exclusive=False, reverse=False):
    if reverse:
      x = np.flip(x, axis)
    r = fn(x, axis=axis, dtype=x.dtype)
    if exclusive and r.shape[axis]:
      r = np.concatenate([np.full_like(np.take(r, [0], axis=axis), ident),
                          np.take(r, range(r.shape[axis] - 1), axis=axis)], axis=axis)
    if reverse:
      r = np.flip(r, axis)
    return np.ascontiguousarray(r)
  return k


Cumsum = op("Cumsum", dtypes=NUMERIC, shape=same_shape)(_cum_kernel(np.cumsum, 0))
Cumprod = op("Cumprod", dtypes=NUMERIC, shape=same_shape)(_cum_kernel(np.cumprod, 1))


@Cumsum.def_grad
def _(op, dy):
  a = op.attrs
  return [cumsum(dy, axis=a["axis"], exclusive=a["exclusive"], reverse=not a["reverse"])]


@Cumprod.def_grad
def _(op, dy):
  # NOTE: TF's rule, exact when x has no zeros.
  x, y = op.inputs[0], op.outputs[0]
  a = op.attrs
  g = cumsum(y * dy, axis=a["axis"], exclusive=a["exclusive"], reverse=not a["reverse"])
  return [g / x]


def _cum_public(od, name):
  def f(x, axis=0, exclusive=False, reverse=False, name=None):
    x = convert_to_tensor(x)
    ax = single_axis(axis, x.shape.rank, od.name)
    attrs = {"axis": ax, "exclusive": bool(exclusive), "reverse": bool(reverse)}
    return execute(od, [x], attrs, name)
  f.__name__ = f.__qualname__ = name
  f.__doc__ = f"tf.math.{name} along `axis`, optionally exclusive and/or reversed."
  return f


cumsum = _cum_public(Cumsum, "cumsum")
cumprod = _cum_public(Cumprod, "cumprod")


# -------------------------------------------------------------- arg ops

def _arg_shape(inputs, attrs):
  x = inputs[0]
  return [(reduced_shape(x.shape, (attrs["axis"],), False), attrs["output_type"])]


@op("ArgMax", dtypes=REAL, shape=_arg_shape, differentiable=False)
def ArgMax(x, *, axis, output_type):
  return np.argmax(x, axis=axis).astype(output_type._np)


@op("ArgMin", dtypes=REAL, shape=_arg_shape, differentiable=False)
def ArgMin(x, *, axis, output_type):
  return np.argmin(x, axis=axis).astype(output_type._np)


def _arg_public(od, name):
  def f(input, axis=None, output_type=_dt.int64, name=None):  # noqa: A002
    x = convert_to_tensor(input)
    ax = single_axis(0 if axis is None else axis, x.shape.rank, od.name)
    if x.shape[ax] == 0:
      raise InvalidArgumentError(None, None, f"Reduction axis {ax} is empty in shape "
                                 f"{x.shape} [Op:{od.name}]")
    return execute(od, [x], {"axis": ax, "output_type": _dt.as_dtype(output_type)}, name)
  f.__name__ = f.__qualname__ = name
  f.__doc__ = f"Index of the {'largest' if od is ArgMax else 'smallest'} value along `axis`."
  return f


argmax = _arg_public(ArgMax, "argmax")
argmin = _arg_public(ArgMin, "argmin")


# ------------------------------------------------------------- complex

@op("Conj", dtypes=NUMERIC, shape=same_shape)
def Conj(x):
  return np.conj(x)


@Conj.def_grad
def _(op, dy):
  return [conj(dy)]


def conj(x, name=None):
  x = convert_to_tensor(x)
  return execute(Conj, [x], {}, name) if x.dtype.is_complex else x


@op("Real", dtypes=_dt.COMPLEX, shape=lambda i, a: [(i[0].shape, i[0].dtype.real_dtype)])
def Real(x):
  return np.real(x).copy()


@Real.def_grad
def _(op, dy):
  return [complex(dy, array_ops.zeros_like(dy))]


@op("Imag", dtypes=_dt.COMPLEX, shape=lambda i, a: [(i[0].shape, i[0].dtype.real_dtype)])
def Imag(x):
  return np.imag(x).copy()


@Imag.def_grad
def _(op, dy):
  return [complex(array_ops.zeros_like(dy), dy)]


def real(input, name=None):  # noqa: A002
  x = convert_to_tensor(input)
  return execute(Real, [x], {}, name) if x.dtype.is_complex else x


def imag(input, name=None):  # noqa: A002
  x = convert_to_tensor(input)
  return execute(Imag, [x], {}, name) if x.dtype.is_complex else array_ops.zeros_like(x)


def _complex_shape(inputs, attrs):
  s = broadcast_shape(inputs, attrs)[0][0]
  return [(s, _dt.complex64 if inputs[0].dtype is _dt.float32 else _dt.complex128)]


@op("Complex", dtypes=(_dt.float32, _dt.float64), shape=_complex_shape)
def Complex(re, im):
  out = np.complex64 if re.dtype == np.float32 else np.complex128
  return (re + 1j * im).astype(out)


@Complex.def_grad
def _(op, dy):
  return [real(dy), imag(dy)]


@name_scoped
def complex(real, imag, name=None):  # noqa: A001
  return Complex(real, imag)


@name_scoped
def angle(input, name=None):  # noqa: A002
  """The argument of complex `input` (for real input: 0, or pi where negative)."""
  x = convert_to_tensor(input)
  if x.dtype.is_complex:
    return atan2(imag(x), real(x))
  return array_ops.where(less(x, array_ops.zeros_like(x)),
                         array_ops.fill(array_ops.shape(x), _const_like(np.pi, x.dtype)),
                         array_ops.zeros_like(x))


def _const_like(v, dtype):
  return convert_to_tensor(np.asarray(v, dtype=dtype.as_numpy_dtype))


# -------------------------------------------------------------- helpers

@name_scoped
def size(input, out_type=_dt.int32, name=None):  # noqa: A002
  return array_ops.size(input, out_type=out_type)


@name_scoped
def scalar_mul(scalar, x, name=None):
  return multiply(scalar, x)


@name_scoped
def softplus(features, name=None):
  from tensorlet.ops import nn_ops
  return nn_ops.softplus(features)


@name_scoped
def log_sigmoid(x, name=None):
  from tensorlet.ops import nn_ops
  return negative(nn_ops.softplus(negative(x)))


@name_scoped
def xlogy(x, y, name=None):
  x, y = convert_inputs(Mul, (x, y))
  return array_ops.where(equal(x, array_ops.zeros_like(x)), array_ops.zeros_like(x * y),
                         x * log(y))


@name_scoped
def polyval(coeffs, x, name=None):
  x = convert_to_tensor(x)
  r = array_ops.zeros_like(x)
  for c in as_sequence(coeffs, "polyval", "coeffs"):
    r = r * x + c
  return r


@name_scoped
def l2_normalize(x, axis=None, epsilon=1e-12, name=None, dim=None):
  x = convert_to_tensor(x)
  sq = reduce_sum(square(x), axis=axis if dim is None else dim, keepdims=True)
  return x * rsqrt(maximum(sq, epsilon))


# ------------------------------------ summaries: zero fraction, monotonicity, confusion

@name_scoped
def zero_fraction(value, name=None):
  """The fraction of zeros in `value`, as float32."""
  x = convert_to_tensor(value)
  return reduce_mean(cast(equal(x, array_ops.zeros_like(x)), _dt.float32))


@name_scoped
def is_non_decreasing(x, name=None):
  """True when each element is >= the one before it (in row-major order)."""
  v = array_ops.reshape(convert_to_tensor(x), [-1])
  return reduce_all(less_equal(v[:-1], v[1:]))


@name_scoped
def is_strictly_increasing(x, name=None):
  """True when each element is > the one before it (in row-major order)."""
  v = array_ops.reshape(convert_to_tensor(x), [-1])
  return reduce_all(less(v[:-1], v[1:]))


@name_scoped
def confusion_matrix(labels, predictions, num_classes=None, weights=None, dtype=_dt.int32,
                     name=None):
  """Counts (or sums `weights`) of each (label, prediction) pair in a [n, n] matrix."""
  lab = cast(convert_to_tensor(labels), _dt.int64)
  pred = cast(convert_to_tensor(predictions), _dt.int64)
  if num_classes is None:
    num_classes = maximum(reduce_max(lab), reduce_max(pred)) + 1
  n = cast(convert_to_tensor(num_classes), _dt.int64)
  w = array_ops.ones_like(lab, dtype=dtype) if weights is None else cast(weights, dtype)
  from tensorlet.ops.registry import constant_value
  for t, what in ((lab, "labels"), (pred, "predictions")):
    ok = constant_value(reduce_all(logical_and(greater_equal(t, 0), less(t, n))))
    if ok is not None and not ok:
      raise InvalidArgumentError(None, None, f"`{what}` out of bound [Op:ConfusionMatrix]")
  return array_ops.scatter_nd(array_ops.stack([lab, pred], axis=1), w, array_ops.stack([n, n]))


# Moved by topic; re-exported so `from tensorlet.ops.math_ops import X` keeps working.
from tensorlet.ops.reduction_ops import (Sum, Prod, Max, Min, Any, All, Mean, reduce_sum,
                                         reduce_mean, reduce_max, reduce_min, reduce_prod,
                                         reduce_any, reduce_all, reduce_logsumexp, stop_gradient_,
                                         reduce_variance, reduce_std, reduce_euclidean_norm,
                                         count_nonzero, SumToShape, sum_to_shape, AddN,
                                         add_n)  # noqa: E402,F401
from tensorlet.ops.segment_ops import (UnsortedSegmentSum, UnsortedSegmentMax, UnsortedSegmentMin,
                                       UnsortedSegmentProd, unsorted_segment_sum,
                                       unsorted_segment_max, unsorted_segment_min,
                                       unsorted_segment_prod, unsorted_segment_mean, segment_sum,
                                       segment_mean, segment_max, segment_min,
                                       segment_prod)  # noqa: E402,F401
