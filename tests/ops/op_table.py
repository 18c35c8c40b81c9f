"""The op table: one row per public op of math_ops/array_ops (and per variant
worth its own row: axis, keepdims, broadcasting, transpose flags ...).

It drives test_numerics (forward vs NumPy, values + dtype + shape for every
dtype listed) and test_gradients (central differences for every `grad=True`
row, in float64). A row:

  OpCase(name, fn, ref, inputs, dtypes, grad, order, rtol, atol, edge_values)

  fn(*tensors)      the tensorlet call; non-tensor arguments are closed over.
  ref(*arrays)      the NumPy reference, returning arrays of TF's output dtype.
  inputs(rng, dt)   the input arrays for dtype `dt` (see `args`).
  dtypes            NumPy dtypes to run forward; the gradient row uses float64.
  edge_values       extra input lists (nan, inf, 0 ...) checked forward only,
                    in the first listed dtype.
"""
import collections

import numpy as np

import tensorlet as tf

OpCase = collections.namedtuple(
    "OpCase", ["name", "fn", "ref", "inputs", "dtypes", "grad", "order", "rtol", "atol",
               "edge_values"])

f16, f32, f64 = np.float16, np.float32, np.float64
c64, c128 = np.complex64, np.complex128
i8, i16, i32, i64, u8 = np.int8, np.int16, np.int32, np.int64, np.uint8
b_, s_ = np.bool_, np.object_

FLOAT = (f16, f32, f64)
F32_64 = (f32, f64)
COMPLEX = (c64, c128)
INT = (i8, i32, i64, u8)
SINT = (i8, i16, i32, i64)
REAL = FLOAT + INT
NUM = REAL + COMPLEX
FLOAT_C = FLOAT + COMPLEX


# ------------------------------------------------------------- inputs

def rand(shape, dtype, rng, lo=-2.0, hi=2.0):
  """Random array of `dtype`; ints drawn from [lo, hi] (unsigned from [0, hi + 2])."""
  dt = np.dtype(dtype)
  if dt.kind == "b":
    return rng.rand(*shape) > 0.5
  if dt.kind == "O":
    words = [b"a", b"bc", b"", b"de", b"a"]
    return np.array([words[i] for i in rng.randint(0, len(words), size=shape).ravel()],
                    dtype=object).reshape(shape)
  if dt.kind == "u":
    return rng.randint(max(int(lo), 0), int(hi) + 3, size=shape).astype(dt)
  if dt.kind == "i":
    return rng.randint(int(np.floor(lo)), int(np.ceil(hi)) + 1, size=shape).astype(dt)
  if dt.kind == "c":
    return (rng.uniform(lo, hi, shape) + 1j * rng.uniform(lo, hi, shape)).astype(dt)
  return rng.uniform(lo, hi, size=shape).astype(dt)


def args(*shapes, lo=-2.0, hi=2.0, away=None):
  """inputs() for arrays of `shapes` with values in [lo, hi].

  `away`: keep floats at least this far from 0 (for division, kinks).
  A shape may be `(shape, dtype)` to pin that input's dtype.
  """
  def make(rng, dtype):
    out = []
    for s in shapes:
      dt = dtype
      if isinstance(s, tuple) and len(s) == 2 and not isinstance(s[1], int):
        s, dt = s
      a = rand(s, dt, rng, lo, hi)
      if away is not None and np.dtype(dt).kind in "fc":
        a = np.where(np.abs(a) < away, np.sign(a.real + 0.5) * away + a, a).astype(dt)
      if away is not None and np.dtype(dt).kind == "i":
        a = np.where(a == 0, 1, a).astype(dt)
      if away is not None and np.dtype(dt).kind == "u":
        a = np.where(a == 0, 1, a).astype(dt)
      out.append(a)
    return out
  return make


def fixed(*arrays):
  """inputs() returning the given values (cast to the row's dtype)."""
  return lambda rng, dtype: [np.asarray(a).astype(dtype) for a in arrays]


def same(fn):
  """NumPy reference whose result keeps the first input's dtype (TF's rule)."""
  return lambda *xs, **kw: np.asarray(fn(*xs, **kw)).astype(xs[0].dtype)


def as_(dtype, fn):
  return lambda *xs: np.asarray(fn(*xs)).astype(dtype)


CASES = []


def case(name, fn, ref, inputs, dtypes, grad=True, order=1, rtol=None, atol=None,
         edge_values=()):
  CASES.append(OpCase(name, fn, ref, inputs, tuple(dtypes), grad, order, rtol, atol,
                      tuple(edge_values)))


# ----------------------------------------------------------------- unary

def _sigmoid(x):
  return 1 / (1 + np.exp(-x))


def _erf(x):
  from math import erf
  return np.vectorize(erf, otypes=[np.float64])(x)


# name, fn, numpy ref, dtypes, domain (lo, hi), gradient, second order, edge values
_UNARY = [
    ("negative", tf.negative, np.negative, NUM, (-2, 2), True, True, [[np.inf, -0.0]]),
    ("abs", tf.abs, np.abs, REAL, (-2, 2), True, True, [[-np.inf, np.nan, -0.0]]),
    ("sign", tf.sign, np.sign, REAL, (-2, 2), True, False, [[0.0, -0.0, np.nan]]),
    ("square", tf.square, np.square, NUM, (-2, 2), True, True, [[np.inf]]),
    ("sqrt", tf.sqrt, np.sqrt, FLOAT_C, (0.2, 3), True, True, [[0.0, -1.0, np.inf]]),
    ("rsqrt", tf.math.rsqrt, lambda x: 1 / np.sqrt(x), FLOAT, (0.2, 3), True, True,
     [[0.0, np.inf]]),
    ("exp", tf.exp, np.exp, FLOAT_C, (-2, 2), True, True, [[-np.inf, np.inf, 100.0]]),
    ("expm1", tf.math.expm1, np.expm1, FLOAT, (-2, 2), True, True, [[1e-10, -np.inf]]),
    ("log", tf.math.log, np.log, FLOAT_C, (0.2, 3), True, True, [[0.0, -1.0, np.inf]]),
    ("log1p", tf.math.log1p, np.log1p, FLOAT, (-0.5, 2), True, True, [[-1.0, 1e-10]]),
    ("tanh", tf.tanh, np.tanh, FLOAT_C, (-2, 2), True, True, [[np.inf, -np.inf, 50.0]]),
    ("sigmoid", tf.sigmoid, _sigmoid, FLOAT, (-3, 3), True, True, [[-np.inf, np.inf, -100.0]]),
    ("reciprocal", tf.math.reciprocal, np.reciprocal, FLOAT_C, (0.5, 2), True, True,
     [[0.0, np.inf]]),
    ("sin", tf.sin, np.sin, FLOAT_C, (-3, 3), True, True, []),
    ("cos", tf.cos, np.cos, FLOAT_C, (-3, 3), True, True, []),
    ("tan", tf.tan, np.tan, FLOAT, (-1.2, 1.2), True, True, []),
    ("asin", tf.asin, np.arcsin, FLOAT, (-0.9, 0.9), True, True, [[1.0, 2.0]]),
    ("acos", tf.acos, np.arccos, FLOAT, (-0.9, 0.9), True, True, [[1.0, 2.0]]),
    ("atan", tf.atan, np.arctan, FLOAT, (-3, 3), True, True, [[np.inf]]),
    ("sinh", tf.sinh, np.sinh, FLOAT, (-2, 2), True, True, []),
    ("cosh", tf.cosh, np.cosh, FLOAT, (-2, 2), True, True, []),
    ("asinh", tf.math.asinh, np.arcsinh, FLOAT, (-3, 3), True, True, []),
    ("acosh", tf.math.acosh, np.arccosh, FLOAT, (1.2, 3), True, True, [[1.0, 0.5]]),
    ("atanh", tf.math.atanh, np.arctanh, FLOAT, (-0.8, 0.8), True, True, [[1.0, -1.0]]),
    ("erf", tf.math.erf, _erf, F32_64, (-2, 2), True, True, [[np.inf, 0.0]]),
    ("erfc", tf.math.erfc, lambda x: 1 - _erf(x), F32_64, (-2, 2), True, True, [[-np.inf]]),
    ("floor", tf.floor, np.floor, FLOAT, (-3, 3), False, False, [[-0.5, 2.0, np.inf]]),
    ("ceil", tf.math.ceil, np.ceil, FLOAT, (-3, 3), False, False, [[-0.5, 2.0]]),
    ("round", tf.round, np.rint, REAL, (-3, 3), False, False, [[0.5, 1.5, 2.5, -0.5, -1.5]]),
    ("is_nan", tf.math.is_nan, np.isnan, FLOAT, (-2, 2), False, False,
     [[np.nan, np.inf, 0.0]]),
    ("is_inf", tf.math.is_inf, np.isinf, FLOAT, (-2, 2), False, False,
     [[np.nan, -np.inf, 0.0]]),
    ("is_finite", tf.math.is_finite, np.isfinite, FLOAT, (-2, 2), False, False,
     [[np.nan, np.inf, 0.0]]),
]

for _n, _fn, _ref, _dts, (_lo, _hi), _g, _g2, _edge in _UNARY:
  _r = (lambda r: lambda x: np.asarray(r(x)).astype(bool if r in (np.isnan, np.isinf,
                                                                  np.isfinite) else x.dtype))(_ref)
  case(_n, _fn, _r, args([2, 3], lo=_lo, hi=_hi), _dts, grad=_g, order=2 if _g2 else 1,
       edge_values=[[np.asarray(e)] for e in _edge])
  case(_n + "/scalar", _fn, _r, args([], lo=_lo, hi=_hi), _dts[:1] + _dts[-1:], grad=_g)

case("abs/complex", tf.abs, lambda x: np.abs(x).astype(x.real.dtype), args([4]), COMPLEX,
     grad=False)
case("logical_not", tf.logical_not, np.logical_not, args([2, 3]), [b_], grad=False)
case("conj/complex", tf.math.conj, np.conj, args([3]), COMPLEX, grad=False)
case("conj/real", tf.math.conj, lambda x: x, args([3]), REAL, grad=True)
case("real", tf.math.real, np.real, args([3]), COMPLEX + FLOAT, grad=False)
case("imag", tf.math.imag, np.imag, args([3]), COMPLEX, grad=False)
case("imag/real", tf.math.imag, np.zeros_like, args([3]), F32_64, grad=False)
case("complex", tf.complex, lambda a, b: a + 1j * b, args([2, 2], [2, 2]), F32_64, grad=False)
case("sigmoid/saturated", tf.sigmoid, _sigmoid, fixed([-30.0, 30.0, 0.0]), F32_64, grad=True)
case("identity", tf.identity, lambda x: x, args([2, 3]), NUM + (b_, s_), grad=True, order=2)
case("stop_gradient", tf.stop_gradient, lambda x: x, args([2, 3]), NUM + (b_, s_), grad=False)
def _needs_nn(fn):
  """tf.math.softplus/log_sigmoid run nn_ops' Softplus: skip until it exists."""
  def f(x):
    try:
      from tensorlet.ops import nn_ops  # noqa: F401
    except ImportError:
      import pytest
      pytest.skip("tensorlet.ops.nn_ops is not available")
    return fn(x)
  return f


case("log_sigmoid", _needs_nn(tf.math.log_sigmoid), lambda x: -np.logaddexp(0, -x).astype(x.dtype),
     args([5], lo=-5, hi=5), F32_64, grad=True, order=2, edge_values=[[np.array([-100.0])]])
case("softplus", _needs_nn(tf.math.softplus), lambda x: np.logaddexp(0, x).astype(x.dtype),
     args([5], lo=-5, hi=5), F32_64, grad=True, order=2,
     edge_values=[[np.array([100.0, -100.0])]])

# ---------------------------------------------------------------- binary

_BCAST = [("", [2, 3], [2, 3]), ("/bcast_row", [2, 3], [3]), ("/bcast_outer", [2, 1], [1, 3]),
          ("/scalar", [2, 3], [])]


def _floordiv_ref(x, y):
  return np.floor_divide(x, y).astype(x.dtype)


def _truncdiv_ref(x, y):
  return np.trunc(x / y).astype(x.dtype) if x.dtype.kind in "iu" else np.trunc(x / y)


# name, fn, ref, dtypes, input options, gradient, order
_BINARY = [
    ("add", tf.add, np.add, NUM, {}, True, 2),
    ("subtract", tf.subtract, np.subtract, NUM, {}, True, 2),
    ("multiply", tf.multiply, np.multiply, NUM, {}, True, 2),
    ("realdiv", tf.realdiv, np.true_divide, FLOAT_C, {"away": 0.5}, True, 2),
    ("maximum", tf.maximum, np.maximum, REAL, {}, True, 1),
    ("minimum", tf.minimum, np.minimum, REAL, {}, True, 1),
    ("squared_difference", tf.math.squared_difference, lambda x, y: (x - y) ** 2,
     F32_64 + (i32, i64), {}, True, 2),
    ("floordiv", tf.math.floordiv, _floordiv_ref, REAL, {"away": 0.5}, False, 1),
    ("floormod", tf.math.floormod, np.mod, REAL, {"away": 0.5}, True, 1),
    ("truncatediv", tf.math.truncatediv, _truncdiv_ref, SINT + (u8,), {"away": 0.5}, False, 1),
    ("atan2", tf.math.atan2, np.arctan2, FLOAT, {"away": 0.3}, True, 2),
    ("div_no_nan", tf.math.divide_no_nan, np.true_divide, F32_64, {"away": 0.5}, True, 2),
    ("xlogy", tf.math.xlogy, lambda x, y: x * np.log(y), F32_64, {"lo": 0.3, "hi": 3}, True, 2),
    ("pow", tf.pow, np.power, F32_64, {"lo": 0.3, "hi": 2}, True, 2),
]

for _n, _fn, _ref, _dts, _opt, _g, _o in _BINARY:
  for _sfx, _sa, _sb in _BCAST:
    case(_n + _sfx, _fn, same(_ref), args(_sa, _sb, **_opt), _dts if not _sfx else _dts[:3],
         grad=_g, order=_o if not _sfx else 1)

case("pow/int", tf.pow, np.power, lambda rng, dt: [rand([5], dt, rng), rand([5], dt, rng, 0, 3)],
     (i8, i32, i64), grad=False)
case("pow/complex", tf.pow, np.power, args([3], [3], lo=0.5, hi=1.5), COMPLEX, grad=False)
case("pow/neg_base_int_exp", tf.pow, np.power, fixed([-2.0, -1.5, 0.0], [2.0, 3.0, 2.0]),
     F32_64, grad=False)
case("divide/float", tf.divide, np.true_divide, args([2, 3], [2, 3], away=0.5), FLOAT_C,
     grad=True, order=2)
case("truediv/int32", tf.math.truediv, lambda x, y: (x / y).astype(f64),
     args([2, 3], [3], away=0.5), (i32, i64), grad=False)
case("truediv/int8", tf.math.truediv, lambda x, y: (x / y).astype(f32),
     args([2, 3], [3], away=0.5), (i8, i16, u8), grad=False)
case("floordiv/negative", tf.math.floordiv, _floordiv_ref,
     fixed([-7, 7, -7, 7, 0], [2, -2, -2, 2, 3]), SINT + F32_64, grad=False)
case("floormod/negative", tf.math.floormod, same(np.mod),
     fixed([-7, 7, -7, 7, 0], [3, -3, -3, 3, 2]), SINT + F32_64, grad=False)
case("truncatediv/negative", tf.math.truncatediv, _truncdiv_ref,
     fixed([-7, 7, -7, 7], [2, -2, -2, 2]), SINT, grad=False)
case("div_no_nan/zero", tf.math.divide_no_nan, lambda x, y: np.where(y == 0, 0, x / (
    np.where(y == 0, 1, y))).astype(x.dtype), fixed([1.0, 0.0, -2.0], [0.0, 0.0, 4.0]), F32_64,
     grad=False)
case("xlogy/zero", tf.math.xlogy, lambda x, y: np.where(x == 0, 0, x * np.log(y)).astype(x.dtype),
     fixed([0.0, 0.0, 2.0], [0.0, 1.0, 3.0]), F32_64, grad=False)
case("add/string", tf.add, lambda a, b: np.array([x + y for x, y in zip(a, b)], dtype=object),
     args([3], [3]), [s_], grad=False)
case("add_n", lambda a, b, c: tf.add_n([a, b, c]), lambda a, b, c: a + b + c,
     args([2, 3], [2, 3], [2, 3]), NUM, grad=True, order=2)
case("add_n/one", lambda a: tf.add_n([a]), lambda a: a, args([3]), F32_64, grad=True)
case("scalar_mul", lambda x: tf.math.scalar_mul(2.5, x), lambda x: (2.5 * x).astype(x.dtype),
     args([2, 3]), FLOAT, grad=True, order=2)
case("polyval", lambda x: tf.math.polyval([1.0, -2.0, 3.0], x),
     lambda x: np.polyval([1.0, -2.0, 3.0], x).astype(x.dtype), args([4]), F32_64, grad=True,
     order=2)

# Python scalars pair with the tensor's dtype.
case("add/python_scalar", lambda x: x + 2, lambda x: (x + 2).astype(x.dtype), args([3]),
     NUM, grad=True)
case("radd/python_scalar", lambda x: 2 + x, lambda x: (2 + x).astype(x.dtype), args([3]),
     NUM, grad=True)
case("rsub/python_scalar", lambda x: 1 - x, lambda x: (1 - x).astype(x.dtype), args([3]),
     SINT + FLOAT, grad=True)
case("mul/python_float", lambda x: x * 0.5, lambda x: (x * 0.5).astype(x.dtype), args([3]),
     FLOAT_C, grad=True)
case("rtruediv/python_scalar", lambda x: 1 / x, lambda x: (1 / x).astype(x.dtype),
     args([3], away=0.5), FLOAT, grad=True, order=2)
case("pow/python_scalar", lambda x: x ** 2, lambda x: (x ** 2).astype(x.dtype), args([3]),
     NUM, grad=True, order=2)
case("rpow/python_scalar", lambda x: 2.0 ** x, lambda x: (2.0 ** x).astype(x.dtype), args([3]),
     FLOAT, grad=True, order=2)
case("neg/operator", lambda x: -x, np.negative, args([3]), NUM, grad=True)
case("matmul/operator", lambda a, b: a @ b, np.matmul, args([2, 3], [3, 4]), F32_64 + (i32,),
     grad=True)
case("floordiv/operator", lambda a, b: a // b, _floordiv_ref, args([5], [5], away=0.5),
     REAL, grad=False)
case("mod/operator", lambda a, b: a % b, same(np.mod), args([5], [5], away=0.5), REAL,
     grad=False)
case("getitem/operator", lambda x: x[1], lambda x: x[1], args([3, 2]), NUM + (b_, s_),
     grad=True)

# --------------------------------------------------------- comparisons

_CMP = [("equal", tf.equal, np.equal, NUM + (b_, s_)), ("not_equal", tf.not_equal,
                                                        np.not_equal, NUM + (b_, s_)),
        ("less", tf.less, np.less, REAL), ("less_equal", tf.less_equal, np.less_equal, REAL),
        ("greater", tf.greater, np.greater, REAL),
        ("greater_equal", tf.greater_equal, np.greater_equal, REAL)]
for _n, _fn, _ref, _dts in _CMP:
  case(_n, _fn, _ref, args([3, 4], [3, 4], lo=-1, hi=1), _dts, grad=False)
  case(_n + "/bcast", _fn, _ref, args([3, 1], [4], lo=-1, hi=1), _dts[:3], grad=False)
case("equal/nan", tf.equal, np.equal, fixed([np.nan, 1.0], [np.nan, 1.0]), F32_64, grad=False)
case("not_equal/nan", tf.not_equal, np.not_equal, fixed([np.nan, 1.0], [np.nan, 1.0]), F32_64,
     grad=False)
case("lt/operator", lambda a, b: a < b, np.less, args([4], [4]), REAL, grad=False)
case("ge/operator", lambda a, b: a >= b, np.greater_equal, args([4], [4]), REAL, grad=False)
case("eq/operator", lambda a, b: a == b, np.equal, args([4], [4], lo=-1, hi=1), NUM + (b_,),
     grad=False)
case("ne/operator", lambda a, b: a != b, np.not_equal, args([4], [4], lo=-1, hi=1), NUM,
     grad=False)

for _n, _fn, _ref in [("logical_and", tf.logical_and, np.logical_and),
                      ("logical_or", tf.logical_or, np.logical_or),
                      ("logical_xor", tf.math.logical_xor, np.logical_xor)]:
  case(_n, _fn, _ref, args([2, 3], [2, 3]), [b_], grad=False)
  case(_n + "/bcast", _fn, _ref, args([2, 3], [3]), [b_], grad=False)
case("and/operator", lambda a, b: a & b, np.logical_and, args([4], [4]), [b_], grad=False)
case("or/operator", lambda a, b: a | b, np.logical_or, args([4], [4]), [b_], grad=False)
case("xor/operator", lambda a, b: a ^ b, np.logical_xor, args([4], [4]), [b_], grad=False)
case("invert/operator", lambda a: ~a, np.logical_not, args([4]), [b_], grad=False)
case("bitwise_and/operator", lambda a, b: a & b, np.bitwise_and, args([4], [4], lo=0, hi=9),
     INT, grad=False)
case("bitwise_or/operator", lambda a, b: a | b, np.bitwise_or, args([4], [4], lo=0, hi=9),
     INT, grad=False)
case("bitwise_xor/operator", lambda a, b: a ^ b, np.bitwise_xor, args([4], [4], lo=0, hi=9),
     INT, grad=False)
case("bitwise_invert/operator", lambda a: ~a, np.invert, args([4], lo=0, hi=9), INT, grad=False)
case("is_nan/edge", tf.math.is_nan, np.isnan, fixed([np.nan, np.inf, -np.inf, 0.0]), FLOAT,
     grad=False)

# ------------------------------------------------------------ reductions

_RED_AXES = [("", None, False), ("/axis0", 0, False), ("/axis1", 1, False), ("/axis-1", -1, False),
             ("/axes01", [0, 1], False), ("/axis_tuple", (0, 2), False),
             ("/keepdims", None, True), ("/axis1_keepdims", 1, True),
             ("/axes_keepdims", [0, 2], True)]


def _red_ref(np_fn):
  def ref(axis, keepdims):
    ax = tuple(axis) if isinstance(axis, list) else axis
    return same(lambda x: np_fn(x, axis=ax, keepdims=keepdims))
  return ref


def _int_mean(x, axis=None, keepdims=False):
  if x.dtype.kind not in "iu":
    return np.mean(x, axis=axis, keepdims=keepdims)
  s = np.sum(x.astype(np.int64), axis=axis, keepdims=keepdims)
  n = x.size // max(np.size(s), 1)
  return np.trunc(s / n)


_REDUCE = [
    ("reduce_sum", tf.reduce_sum, np.sum, NUM, (-2, 2), 2),
    ("reduce_mean", tf.reduce_mean, _int_mean, NUM, (-2, 2), 2),
    ("reduce_max", tf.reduce_max, np.max, REAL, (-2, 2), 1),
    ("reduce_min", tf.reduce_min, np.min, REAL, (-2, 2), 1),
    ("reduce_prod", tf.reduce_prod, np.prod, F32_64 + (i32, i64, c64), (0.5, 1.5), 2),
    ("reduce_logsumexp", tf.reduce_logsumexp,
     lambda x, axis, keepdims: np.log(np.sum(np.exp(x), axis=axis, keepdims=keepdims)),
     F32_64, (-2, 2), 2),
    ("reduce_variance", tf.math.reduce_variance, np.var, F32_64, (-2, 2), 2),
    ("reduce_std", tf.math.reduce_std, np.std, F32_64, (-2, 2), 1),
    ("reduce_euclidean_norm", tf.math.reduce_euclidean_norm,
     lambda x, axis, keepdims: np.sqrt(np.sum(x * x, axis=axis, keepdims=keepdims)),
     F32_64, (0.5, 2), 2),
]

for _n, _fn, _ref, _dts, (_lo, _hi), _o in _REDUCE:
  for _sfx, _ax, _kd in _RED_AXES:
    case(_n + _sfx, (lambda f, a, k: lambda x: f(x, axis=a, keepdims=k))(_fn, _ax, _kd),
         _red_ref(_ref)(_ax, _kd), args([2, 3, 4], lo=_lo, hi=_hi),
         _dts if _sfx in ("", "/axis1") else _dts[:2], grad=np.dtype(_dts[0]).kind == "f",
         order=_o if _sfx in ("", "/axis1_keepdims") else 1)
  case(_n + "/vector", _fn, _red_ref(_ref)(None, False), args([5], lo=_lo, hi=_hi), _dts[:1],
       grad=np.dtype(_dts[0]).kind == "f")
  # NOTE: the std of one value is 0, where sqrt's gradient is inf (nan in TF too).
  case(_n + "/scalar", _fn, _red_ref(_ref)(None, False), args([], lo=_lo, hi=_hi), _dts[:1],
       grad=np.dtype(_dts[0]).kind == "f" and _n != "reduce_std")

for _n, _fn, _ref in [("reduce_any", tf.reduce_any, np.any), ("reduce_all", tf.reduce_all, np.all)]:
  for _sfx, _ax, _kd in _RED_AXES:
    case(_n + _sfx, (lambda f, a, k: lambda x: f(x, axis=a, keepdims=k))(_fn, _ax, _kd),
         _red_ref(_ref)(_ax, _kd), args([2, 3, 4]), [b_], grad=False)

case("reduce_mean/int_truncates", tf.reduce_mean, lambda x: np.array(-1, x.dtype),
     fixed([-1, -2]), SINT, grad=False)
case("reduce_max/ties", tf.reduce_max, same(np.max), fixed([1.0, 3.0, 3.0]), F32_64, grad=False)
case("reduce_max/inf", tf.reduce_max, same(np.max), fixed([-np.inf, -np.inf]), F32_64,
     grad=False)
case("reduce_logsumexp/large", lambda x: tf.reduce_logsumexp(x, axis=1),
     lambda x: (np.max(x, axis=1) + np.log(np.sum(np.exp(x - np.max(x, 1, keepdims=True)),
                                                  axis=1))).astype(x.dtype),
     fixed([[1000.0, 1000.0], [-1000.0, -1000.0]]), F32_64, grad=True)
case("reduce_logsumexp/-inf", tf.reduce_logsumexp, lambda x: np.array(-np.inf, x.dtype),
     fixed([-np.inf, -np.inf]), F32_64, grad=False)
case("reduce_prod/zeros", lambda x: tf.reduce_prod(x, axis=1),
     same(lambda x: np.prod(x, axis=1)), fixed([[2.0, 0.0, 3.0], [0.0, 0.0, 1.0]]), F32_64,
     grad=False)
case("count_nonzero", tf.math.count_nonzero, lambda x: np.array(np.count_nonzero(x), i64),
     args([3, 4], lo=-1, hi=1), REAL + (b_,), grad=False)
case("count_nonzero/axis", lambda x: tf.math.count_nonzero(x, axis=1, keepdims=True),
     lambda x: np.count_nonzero(x, axis=1, keepdims=True).astype(i64),
     args([3, 4], lo=-1, hi=1), REAL[:2], grad=False)
case("count_nonzero/dtype", lambda x: tf.math.count_nonzero(x, dtype=tf.int32),
     lambda x: np.array(np.count_nonzero(x), i32), args([3, 4], lo=-1, hi=1), [f32], grad=False)
case("count_nonzero/string", tf.math.count_nonzero,
     lambda x: np.array(sum(1 for v in x.ravel() if v), i64), args([6]), [s_], grad=False)
case("l2_normalize", lambda x: tf.math.l2_normalize(x, axis=1),
     lambda x: (x / np.sqrt(np.maximum(np.sum(x * x, 1, keepdims=True), 1e-12))).astype(x.dtype),
     args([2, 3], away=0.3), F32_64, grad=True, order=2)
case("l2_normalize/all", tf.math.l2_normalize,
     lambda x: (x / np.sqrt(np.sum(x * x))).astype(x.dtype), args([2, 3], away=0.3), F32_64,
     grad=True)


# ------------------------------------------------------------- matmul

def _mm(ta=False, tb=False, conj=False):
  def ref(a, b):
    if ta:
      a = np.swapaxes(a, -1, -2)
    if tb:
      b = np.swapaxes(b, -1, -2)
    if conj:
      a, b = np.conj(a), np.conj(b)
    return np.matmul(a, b)
  return ref


_MM_DT = F32_64 + (f16, i32, i64, c64, c128)
case("matmul", tf.matmul, _mm(), args([2, 3], [3, 4]), _MM_DT, grad=True, order=2)
case("matmul/transpose_a", lambda a, b: tf.matmul(a, b, transpose_a=True), _mm(True),
     args([3, 2], [3, 4]), F32_64, grad=True, order=2)
case("matmul/transpose_b", lambda a, b: tf.matmul(a, b, transpose_b=True), _mm(False, True),
     args([2, 3], [4, 3]), F32_64, grad=True, order=2)
case("matmul/transpose_ab", lambda a, b: tf.matmul(a, b, transpose_a=True, transpose_b=True),
     _mm(True, True), args([3, 2], [4, 3]), F32_64, grad=True, order=2)
case("matmul/adjoint_ab", lambda a, b: tf.matmul(a, b, adjoint_a=True, adjoint_b=True),
     _mm(True, True, True), args([3, 2], [4, 3]), F32_64 + COMPLEX, grad=True)
case("matmul/batch", tf.matmul, _mm(), args([2, 2, 3], [2, 3, 4]), F32_64 + (i32,), grad=True,
     order=2)
case("matmul/batch_transpose_b", lambda a, b: tf.matmul(a, b, transpose_b=True),
     _mm(False, True), args([2, 2, 3], [2, 4, 3]), F32_64, grad=True)
case("matmul/batch_broadcast", tf.matmul, _mm(), args([2, 1, 2, 3], [3, 3, 4]), F32_64,
     grad=True)
case("matmul/batch_by_matrix", tf.matmul, _mm(), args([2, 2, 3], [3, 4]), F32_64, grad=True)
case("matmul/vector_shaped", tf.matmul, _mm(), args([1, 3], [3, 1]), F32_64, grad=True)


# ---------------------------------------------------------------- cast

def _cast_case(name, dst, src_dtypes, lo=-3, hi=3, grad=False, values=None):
  inp = fixed(values) if values is not None else args([2, 3], lo=lo, hi=hi)
  case("cast/" + name, lambda x: tf.cast(x, dst),
       lambda x: (x.real if x.dtype.kind == "c" and np.dtype(dst.as_numpy_dtype).kind != "c"
                  else x).astype(dst.as_numpy_dtype), inp, src_dtypes, grad=grad)


_cast_case("to_float32", tf.float32, REAL + (b_,), grad=True)
_cast_case("to_float64", tf.float64, REAL + (b_,), grad=True)
_cast_case("to_float16", tf.float16, F32_64 + (i32,))
_cast_case("to_int32", tf.int32, FLOAT + INT + (b_,), values=[-2.7, -0.5, 0.0, 0.5, 1.9, 3.0])
_cast_case("to_int64", tf.int64, FLOAT + INT + (b_,), values=[-2.7, -0.5, 0.0, 0.5, 1.9, 3.0])
_cast_case("to_uint8", tf.uint8, F32_64 + (i32,), lo=0, hi=200)
_cast_case("to_bool", tf.bool, NUM, lo=-1, hi=1)
_cast_case("to_complex64", tf.complex64, F32_64 + (i32, c128))
_cast_case("complex_to_float", tf.float32, COMPLEX)
case("cast/same_dtype", lambda x: tf.cast(x, x.dtype), lambda x: x, args([3]), NUM + (b_,),
     grad=True)
case("saturate_cast/to_uint8", lambda x: tf.saturate_cast(x, tf.uint8),
     lambda x: np.clip(x, 0, 255).astype(u8),
     fixed([-5.0, 0.0, 100.0, 300.0]), F32_64 + (i32,), grad=False)
case("saturate_cast/to_int8", lambda x: tf.saturate_cast(x, tf.int8),
     lambda x: np.clip(x, -128, 127).astype(i8), fixed([-500, -3, 0, 100, 300]), (i32, i64, f32),
     grad=False)


# ----------------------------------------------------- cumulative / arg

for _n, _fn, _np in [("cumsum", tf.math.cumsum, np.cumsum), ("cumprod", tf.math.cumprod,
                                                            np.cumprod)]:
  _one = 0 if _n == "cumsum" else 1

  def _cum_ref(axis, exclusive, reverse, np_fn=_np, ident=_one):
    def ref(x):
      y = np.flip(x, axis) if reverse else x
      r = np_fn(y, axis=axis).astype(x.dtype)
      if exclusive:
        r = np.concatenate([np.full_like(np.take(r, [0], axis=axis), ident),
                            np.take(r, range(r.shape[axis] - 1), axis=axis)], axis=axis)
      return np.flip(r, axis) if reverse else r
    return ref
  for _sfx, _kw in [("", {}), ("/axis1", {"axis": 1}), ("/axis-1", {"axis": -1}),
                    ("/exclusive", {"exclusive": True}), ("/reverse", {"reverse": True}),
                    ("/exclusive_reverse", {"axis": 1, "exclusive": True, "reverse": True})]:
    case(_n + _sfx, (lambda f, kw: lambda x: f(x, **kw))(_fn, _kw),
         _cum_ref(_kw.get("axis", 0), _kw.get("exclusive", False), _kw.get("reverse", False)),
         args([3, 4], lo=0.5, hi=1.5), (f32, f64, i32, i64) if not _sfx else F32_64,
         grad=True, order=2 if not _sfx else 1)
case("cumsum/top_level", tf.cumsum if hasattr(tf, "cumsum") else tf.math.cumsum,
     lambda x: np.cumsum(x).astype(x.dtype), args([5]), [f32], grad=False)

for _n, _fn, _np in [("argmax", tf.argmax, np.argmax), ("argmin", tf.argmin, np.argmin)]:
  case(_n, _fn, (lambda f: lambda x: f(x, axis=0).astype(i64))(_np), args([3, 4]), REAL,
       grad=False)
  case(_n + "/axis1", lambda x, f=_fn: f(x, axis=1),
       (lambda f: lambda x: f(x, axis=1).astype(i64))(_np), args([3, 4]), REAL[:3], grad=False)
  case(_n + "/axis-1_int32", lambda x, f=_fn: f(x, axis=-1, output_type=tf.int32),
       (lambda f: lambda x: f(x, axis=-1).astype(i32))(_np), args([3, 4]), [f32], grad=False)
  case(_n + "/ties_first", _fn, (lambda f: lambda x: f(x, axis=0).astype(i64))(_np),
       fixed([1, 3, 3, 1]), (f32, i32), grad=False)
  case(_n + "/vector", _fn, (lambda f: lambda x: np.array(f(x), i64))(_np), args([6]), [f64],
       grad=False)


# ------------------------------------------------------- shapes/creation

case("reshape", lambda x: tf.reshape(x, [3, 2]), lambda x: x.reshape(3, 2), args([2, 3]),
     NUM + (b_, s_), grad=True, order=2)
case("reshape/infer", lambda x: tf.reshape(x, [-1, 4]), lambda x: x.reshape(-1, 4),
     args([2, 3, 4]), F32_64, grad=True)
case("reshape/flatten", lambda x: tf.reshape(x, [-1]), lambda x: x.reshape(-1), args([2, 3]),
     F32_64, grad=True)
case("reshape/to_scalar", lambda x: tf.reshape(x, []), lambda x: x.reshape(()), args([1, 1]),
     F32_64, grad=True)
case("reshape/tensor_shape", lambda x: tf.reshape(x, tf.constant([6, 1])),
     lambda x: x.reshape(6, 1), args([2, 3]), [f32], grad=True)
case("reshape/TensorShape", lambda x: tf.reshape(x, tf.TensorShape([3, 2])),
     lambda x: x.reshape(3, 2), args([2, 3]), [f32], grad=False)
case("transpose", tf.transpose, lambda x: x.T, args([2, 3]), NUM + (b_, s_), grad=True, order=2)
case("transpose/perm", lambda x: tf.transpose(x, [1, 2, 0]),
     lambda x: np.transpose(x, [1, 2, 0]), args([2, 3, 4]), F32_64, grad=True, order=2)
case("transpose/3d_default", tf.transpose, lambda x: np.transpose(x), args([2, 3, 4]), [f32],
     grad=True)
case("transpose/conjugate", lambda x: tf.transpose(x, conjugate=True), lambda x: np.conj(x.T),
     args([2, 3]), COMPLEX + F32_64, grad=False)
case("expand_dims/0", lambda x: tf.expand_dims(x, 0), lambda x: x[None], args([2, 3]),
     NUM + (b_, s_), grad=True, order=2)
case("expand_dims/-1", lambda x: tf.expand_dims(x, -1), lambda x: x[..., None], args([2, 3]),
     F32_64, grad=True)
case("expand_dims/1", lambda x: tf.expand_dims(x, 1), lambda x: x[:, None], args([2, 3]),
     F32_64, grad=True)
case("expand_dims/scalar", lambda x: tf.expand_dims(x, 0), lambda x: x[None], args([]),
     [f32], grad=True)
case("squeeze", tf.squeeze, np.squeeze, args([1, 3, 1, 2]), NUM + (b_, s_), grad=True, order=2)
case("squeeze/axis", lambda x: tf.squeeze(x, axis=2), lambda x: np.squeeze(x, 2),
     args([1, 3, 1, 2]), F32_64, grad=True)
case("squeeze/axes_neg", lambda x: tf.squeeze(x, axis=[0, -2]), lambda x: np.squeeze(x, (0, 2)),
     args([1, 3, 1, 2]), F32_64, grad=True)
case("broadcast_to", lambda x: tf.broadcast_to(x, [2, 3, 3]),
     lambda x: np.broadcast_to(x, [2, 3, 3]), args([3, 1]), NUM + (b_, s_), grad=True, order=2)
case("broadcast_to/same", lambda x: tf.broadcast_to(x, [2, 3]), lambda x: x, args([2, 3]),
     [f32], grad=True)
case("broadcast_to/scalar", lambda x: tf.broadcast_to(x, [2, 2]),
     lambda x: np.broadcast_to(x, [2, 2]), args([]), F32_64, grad=True)
case("zeros_like", tf.zeros_like, np.zeros_like, args([2, 3]), NUM + (b_,), grad=False)
case("zeros_like/string", tf.zeros_like,
     lambda x: np.full(x.shape, b"", dtype=object), args([2]), [s_], grad=False)
case("zeros_like/dtype", lambda x: tf.zeros_like(x, dtype=tf.int32),
     lambda x: np.zeros(x.shape, i32), args([2, 3]), F32_64, grad=False)
case("ones_like", tf.ones_like, np.ones_like, args([2, 3]), NUM + (b_,), grad=False)
case("ones_like/dtype", lambda x: tf.ones_like(x, dtype=tf.float64),
     lambda x: np.ones(x.shape, f64), args([2, 3]), (i32, f32), grad=False)
case("zeros", lambda: tf.zeros([2, 3]), lambda: np.zeros([2, 3], f32), args(), [f32],
     grad=False)
case("zeros/int", lambda: tf.zeros((2,), dtype=tf.int64), lambda: np.zeros([2], i64), args(),
     [f32], grad=False)
case("zeros/scalar_shape", lambda: tf.zeros([]), lambda: np.zeros([], f32), args(), [f32],
     grad=False)
case("zeros/TensorShape", lambda: tf.zeros(tf.TensorShape([1, 2]), tf.bool),
     lambda: np.zeros([1, 2], bool), args(), [f32], grad=False)
case("zeros/string", lambda: tf.zeros([2], tf.string),
     lambda: np.array([b"", b""], object), args(), [f32], grad=False)
case("ones", lambda: tf.ones([3, 1], tf.float64), lambda: np.ones([3, 1], f64), args(), [f32],
     grad=False)
case("ones/tensor_shape", lambda: tf.ones(tf.constant([2, 2])), lambda: np.ones([2, 2], f32),
     args(), [f32], grad=False)
case("ones/empty", lambda: tf.ones([0, 3], tf.int32), lambda: np.ones([0, 3], i32), args(),
     [f32], grad=False)
case("fill", lambda x: tf.fill([2, 3], x), lambda x: np.full([2, 3], x), args([]),
     NUM + (b_, s_), grad=True, order=2)
case("fill/python", lambda: tf.fill([2], 7), lambda: np.full([2], 7, i32), args(), [f32],
     grad=False)
case("eye", lambda: tf.eye(3), lambda: np.eye(3, dtype=f32), args(), [f32], grad=False)
case("eye/rect", lambda: tf.eye(2, 4, dtype=tf.int32), lambda: np.eye(2, 4, dtype=i32), args(),
     [f32], grad=False)
case("eye/batch", lambda: tf.eye(2, batch_shape=[3], dtype=tf.float64),
     lambda: np.broadcast_to(np.eye(2), [3, 2, 2]), args(), [f32], grad=False)
case("range", lambda: tf.range(5), lambda: np.arange(5, dtype=i32), args(), [f32], grad=False)
case("range/start_limit_delta", lambda: tf.range(1, 10, 3), lambda: np.arange(1, 10, 3, i32),
     args(), [f32], grad=False)
case("range/negative_delta", lambda: tf.range(5, 0, -2), lambda: np.arange(5, 0, -2, i32),
     args(), [f32], grad=False)
case("range/float", lambda: tf.range(0.0, 1.0, 0.25), lambda: np.arange(0, 1, 0.25, f32),
     args(), [f32], grad=False)
case("range/mixed_infers_float", lambda: tf.range(0, 2.5), lambda: np.arange(0, 2.5, dtype=f32),
     args(), [f32], grad=False)
case("range/dtype", lambda: tf.range(3, dtype=tf.float64), lambda: np.arange(3, dtype=f64),
     args(), [f32], grad=False)
case("range/int64", lambda: tf.range(3, dtype=tf.int64), lambda: np.arange(3, dtype=i64),
     args(), [f32], grad=False)
case("range/empty", lambda: tf.range(0), lambda: np.arange(0, dtype=i32), args(), [f32],
     grad=False)
case("range/tensor_args", lambda a: tf.range(a, a + 4), lambda a: np.arange(a, a + 4, dtype=i32),
     fixed(2), [i32], grad=False)
case("linspace", lambda: tf.linspace(0.0, 1.0, 5), lambda: np.linspace(0, 1, 5, dtype=f32),
     args(), [f32], grad=False)
case("linspace/tensors", lambda a, b: tf.linspace(a, b, 4),
     lambda a, b: np.linspace(a, b, 4).astype(a.dtype), args([], []), F32_64, grad=True)
case("linspace/vector", lambda a, b: tf.linspace(a, b, 3),
     lambda a, b: np.linspace(a, b, 3).astype(a.dtype), args([2], [2]), F32_64, grad=True)
case("linspace/axis", lambda a, b: tf.linspace(a, b, 3, axis=-1),
     lambda a, b: np.linspace(a, b, 3, axis=-1).astype(a.dtype), args([2], [2]), F32_64,
     grad=False)
case("linspace/num1", lambda: tf.linspace(2.0, 5.0, 1), lambda: np.array([2.0], f32), args(),
     [f32], grad=False)
case("shape", tf.shape, lambda x: np.array(x.shape, i32), args([2, 3]), NUM + (b_, s_),
     grad=False)
case("shape/int64", lambda x: tf.shape(x, out_type=tf.int64), lambda x: np.array(x.shape, i64),
     args([2, 3]), [f32], grad=False)
case("shape/scalar", tf.shape, lambda x: np.zeros([0], i32), args([]), [f32], grad=False)
case("shape_n", lambda a, b: tf.shape_n([a, b]),
     lambda a, b: [np.array(a.shape, i32), np.array(b.shape, i32)], args([2, 3], [4]), [f32],
     grad=False)
case("size", tf.size, lambda x: np.array(x.size, i32), args([2, 3]), NUM + (b_, s_), grad=False)
case("size/int64", lambda x: tf.size(x, out_type=tf.int64), lambda x: np.array(x.size, i64),
     args([2, 3]), [f32], grad=False)
case("math.size", tf.math.size if hasattr(tf.math, "size") else tf.size,
     lambda x: np.array(x.size, i32), args([4]), [f32], grad=False)
case("rank", tf.rank, lambda x: np.array(x.ndim, i32), args([2, 3, 1]), NUM + (b_, s_),
     grad=False)
case("rank/scalar", tf.rank, lambda x: np.array(0, i32), args([]), [f32], grad=False)
case("broadcast_dynamic_shape", lambda a, b: tf.broadcast_dynamic_shape(a, b),
     lambda a, b: np.array(np.broadcast_shapes(tuple(a), tuple(b)), a.dtype),
     fixed([2, 1, 3], [4, 1]), (i32, i64), grad=False)
case("ensure_shape", lambda x: tf.ensure_shape(x, [None, 3]), lambda x: x, args([2, 3]),
     F32_64, grad=True)


# ------------------------------------------------------- join / split

case("concat", lambda a, b: tf.concat([a, b], 0), lambda a, b: np.concatenate([a, b], 0),
     args([2, 3], [1, 3]), NUM + (b_, s_), grad=True, order=2)
case("concat/axis1", lambda a, b: tf.concat([a, b], 1), lambda a, b: np.concatenate([a, b], 1),
     args([2, 3], [2, 2]), F32_64, grad=True)
case("concat/axis-1", lambda a, b, c: tf.concat([a, b, c], -1),
     lambda a, b, c: np.concatenate([a, b, c], -1), args([2, 1], [2, 2], [2, 3]), F32_64,
     grad=True)
case("concat/one", lambda a: tf.concat([a], 0), lambda a: a, args([2]), [f32], grad=True)
case("concat/empty_part", lambda a, b: tf.concat([a, b], 0),
     lambda a, b: np.concatenate([a, b], 0), args([0, 2], [2, 2]), [f32], grad=True)
case("concat/python_values", lambda a: tf.concat([a, [[5.0, 6.0]]], 0),
     lambda a: np.concatenate([a, [[5.0, 6.0]]], 0).astype(a.dtype), args([1, 2]), F32_64,
     grad=True)
case("stack", lambda a, b: tf.stack([a, b]), lambda a, b: np.stack([a, b]), args([2, 3], [2, 3]),
     NUM + (b_, s_), grad=True, order=2)
case("stack/axis1", lambda a, b: tf.stack([a, b], axis=1), lambda a, b: np.stack([a, b], 1),
     args([2, 3], [2, 3]), F32_64, grad=True)
case("stack/axis-1", lambda a, b, c: tf.stack([a, b, c], axis=-1),
     lambda a, b, c: np.stack([a, b, c], -1), args([2], [2], [2]), F32_64, grad=True)
case("stack/scalars", lambda a, b: tf.stack([a, b]), lambda a, b: np.stack([a, b]),
     args([], []), F32_64, grad=True)
case("unstack", tf.unstack, lambda x: list(x), args([3, 2]), NUM + (b_, s_), grad=True, order=2)
case("unstack/axis1", lambda x: tf.unstack(x, axis=1), lambda x: list(np.moveaxis(x, 1, 0)),
     args([3, 2, 2]), F32_64, grad=True)
case("unstack/axis-1_num", lambda x: tf.unstack(x, num=2, axis=-1),
     lambda x: list(np.moveaxis(x, -1, 0)), args([3, 2]), F32_64, grad=True)
case("split", lambda x: tf.split(x, 2), lambda x: np.split(x, 2), args([4, 3]), NUM + (b_, s_),
     grad=True, order=2)
case("split/axis1", lambda x: tf.split(x, 3, axis=1), lambda x: np.split(x, 3, axis=1),
     args([2, 3]), F32_64, grad=True)
case("split/sizes", lambda x: tf.split(x, [1, 3, 2], axis=-1),
     lambda x: np.split(x, [1, 4], axis=-1), args([2, 6]), F32_64, grad=True)
case("split/sizes_infer", lambda x: tf.split(x, [2, -1], axis=0),
     lambda x: np.split(x, [2], axis=0), args([5, 2]), F32_64, grad=True)
case("split/tensor_sizes", lambda x: tf.split(x, tf.constant([1, 2])),
     lambda x: np.split(x, [1]), args([3]), [f32], grad=True)
case("split/unused_output", lambda x: tf.split(x, 2)[0], lambda x: np.split(x, 2)[0],
     args([4, 2]), F32_64, grad=True)
case("unstack/unused_output", lambda x: tf.unstack(x)[1], lambda x: x[1], args([3, 2]),
     F32_64, grad=True)
case("tile", lambda x: tf.tile(x, [2, 3]), lambda x: np.tile(x, [2, 3]), args([2, 3]),
     NUM + (b_, s_), grad=True, order=2)
case("tile/ones", lambda x: tf.tile(x, [1, 1, 2]), lambda x: np.tile(x, [1, 1, 2]),
     args([2, 1, 3]), F32_64, grad=True)
case("tile/tensor_multiples", lambda x: tf.tile(x, tf.constant([3])), lambda x: np.tile(x, 3),
     args([2]), F32_64, grad=True)
case("tile/zero", lambda x: tf.tile(x, [0, 1]), lambda x: np.tile(x, [0, 1]), args([2, 3]),
     [f32], grad=True)
case("repeat", lambda x: tf.repeat(x, 2), lambda x: np.repeat(x, 2), args([2, 3]),
     F32_64 + (i32, b_), grad=True)
case("repeat/axis", lambda x: tf.repeat(x, [1, 0, 2], axis=1),
     lambda x: np.repeat(x, [1, 0, 2], axis=1), args([2, 3]), F32_64 + (i32,), grad=True)
case("repeat/axis0", lambda x: tf.repeat(x, 3, axis=0), lambda x: np.repeat(x, 3, axis=0),
     args([2, 2]), [f32], grad=True)
case("roll", lambda x: tf.roll(x, 2, 0), lambda x: np.roll(x, 2, 0), args([5]),
     F32_64 + (i32, s_), grad=True)
case("roll/negative", lambda x: tf.roll(x, -1, axis=1), lambda x: np.roll(x, -1, 1),
     args([2, 3]), F32_64, grad=True)
case("roll/multi", lambda x: tf.roll(x, [1, -2], axis=[0, 1]),
     lambda x: np.roll(x, [1, -2], axis=[0, 1]), args([3, 4]), F32_64, grad=True)
case("roll/large_shift", lambda x: tf.roll(x, 7, 0), lambda x: np.roll(x, 7, 0), args([3]),
     [f32], grad=True)
case("roll/same_axis_twice", lambda x: tf.roll(x, [1, 1], axis=[0, 0]),
     lambda x: np.roll(x, 2, 0), args([4]), [f32], grad=False)


# --------------------------------------------------------------- pad

for _mode in ("CONSTANT", "REFLECT", "SYMMETRIC"):
  _np_mode = {"CONSTANT": "constant", "REFLECT": "reflect", "SYMMETRIC": "symmetric"}[_mode]
  case("pad/" + _mode.lower(), (lambda m: lambda x: tf.pad(x, [[1, 2], [2, 1]], mode=m))(_mode),
       (lambda m: lambda x: np.pad(x, [[1, 2], [2, 1]], mode=m))(_np_mode),
       args([3, 4]), F32_64 + (i32, i8) + ((b_,) if _mode == "CONSTANT" else ()),
       grad=True, order=2)
  case("pad/" + _mode.lower() + "_3d",
       (lambda m: lambda x: tf.pad(x, [[0, 0], [1, 1], [0, 2]], mode=m))(_mode),
       (lambda m: lambda x: np.pad(x, [[0, 0], [1, 1], [0, 2]], mode=m))(_np_mode),
       args([2, 3, 3]), F32_64, grad=True)
  case("pad/" + _mode.lower() + "_mode_lowercase",
       (lambda m: lambda x: tf.pad(x, [[1, 1]], mode=m.lower()))(_mode),
       (lambda m: lambda x: np.pad(x, [[1, 1]], mode=m))(_np_mode), args([3]), [f32],
       grad=False)
case("pad/constant_values", lambda x: tf.pad(x, [[1, 1], [0, 1]], constant_values=7),
     lambda x: np.pad(x, [[1, 1], [0, 1]], constant_values=7), args([2, 2]), F32_64 + (i32,),
     grad=True)
case("pad/symmetric_full", lambda x: tf.pad(x, [[3, 3]], mode="SYMMETRIC"),
     lambda x: np.pad(x, [[3, 3]], mode="symmetric"), args([3]), F32_64, grad=True)
case("pad/reflect_max", lambda x: tf.pad(x, [[2, 2]], mode="REFLECT"),
     lambda x: np.pad(x, [[2, 2]], mode="reflect"), args([3]), F32_64, grad=True)
case("pad/string", lambda x: tf.pad(x, [[1, 0]], constant_values="z"),
     lambda x: np.array([b"z"] + list(x), object), args([2]), [s_], grad=False)


# --------------------------------------------------------- gather/scatter

_IDX = np.array([2, 0, 2, 1])
case("gather", lambda x: tf.gather(x, _IDX), lambda x: x[_IDX], args([3, 2]), NUM + (b_, s_),
     grad=True, order=2)
case("gather/axis1", lambda x: tf.gather(x, [1, 1, 0], axis=1), lambda x: x[:, [1, 1, 0]],
     args([2, 3, 2]), F32_64, grad=True, order=2)
case("gather/axis-1", lambda x: tf.gather(x, [[0, 2], [1, 1]], axis=-1),
     lambda x: np.take(x, [[0, 2], [1, 1]], axis=-1), args([2, 3]), F32_64, grad=True)
case("gather/scalar_index", lambda x: tf.gather(x, 1), lambda x: x[1], args([3, 2]), F32_64,
     grad=True)
case("gather/int64_indices", lambda x: tf.gather(x, tf.constant([1, 0], tf.int64)),
     lambda x: x[[1, 0]], args([2, 2]), [f32], grad=True)
case("gather/matrix_indices", lambda x: tf.gather(x, [[0, 1], [1, 1]]),
     lambda x: x[[[0, 1], [1, 1]]], args([2, 3]), F32_64, grad=True)
case("gather/batch_dims1", lambda x: tf.gather(x, [[0, 2], [1, 1]], batch_dims=1),
     lambda x: np.stack([x[0, [0, 2]], x[1, [1, 1]]]), args([2, 3]), F32_64 + (i32,), grad=True,
     order=2)
case("gather/batch_dims1_axis2", lambda x: tf.gather(x, [[0], [1]], axis=2, batch_dims=1),
     lambda x: np.stack([x[0][:, [0]], x[1][:, [1]]]), args([2, 3, 2]), F32_64, grad=True)
case("gather/batch_dims-1", lambda x: tf.gather(x, [[1, 0], [0, 0]], batch_dims=-1),
     lambda x: np.stack([x[0, [1, 0]], x[1, [0, 0]]]), args([2, 3]), F32_64, grad=True)
case("gather/empty_indices", lambda x: tf.gather(x, tf.zeros([0], tf.int32)),
     lambda x: x[:0], args([3, 2]), [f32], grad=True)
_GND = np.array([[0, 1], [2, 0], [0, 1]])
case("gather_nd", lambda x: tf.gather_nd(x, _GND), lambda x: x[_GND[:, 0], _GND[:, 1]],
     args([3, 2]), NUM + (b_, s_), grad=True, order=2)
case("gather_nd/slices", lambda x: tf.gather_nd(x, [[1], [0]]), lambda x: x[[1, 0]],
     args([2, 3]), F32_64, grad=True)
case("gather_nd/nested_indices", lambda x: tf.gather_nd(x, [[[0, 0]], [[1, 2]]]),
     lambda x: np.array([[x[0, 0]], [x[1, 2]]]), args([2, 3]), F32_64, grad=True)
case("gather_nd/3d_partial", lambda x: tf.gather_nd(x, [[1, 0], [0, 2]]),
     lambda x: np.stack([x[1, 0], x[0, 2]]), args([2, 3, 4]), F32_64, grad=True)
case("gather_nd/batch_dims1", lambda x: tf.gather_nd(x, [[1], [0]], batch_dims=1),
     lambda x: np.array([x[0, 1], x[1, 0]]), args([2, 3]), F32_64, grad=True)
_SND = np.array([[0], [2], [0]])
case("scatter_nd", lambda u: tf.scatter_nd(_SND, u, [4]), lambda u: np.array(
    [u[0] + u[2], 0, u[1], 0]).astype(u.dtype), args([3]), NUM, grad=True, order=2)
case("scatter_nd/slices", lambda u: tf.scatter_nd([[1], [0]], u, [3, 2]),
     lambda u: np.array([u[1], u[0], np.zeros(2)]).astype(u.dtype), args([2, 2]), F32_64,
     grad=True)
case("scatter_nd/2d_index", lambda u: tf.scatter_nd([[0, 1], [1, 0]], u, tf.constant([2, 2])),
     lambda u: np.array([[0, u[0]], [u[1], 0]]).astype(u.dtype), args([2]), F32_64 + (i32,),
     grad=True)


def _tsn_ref(mode, idx):
  def ref(t, u):
    out = t.copy()
    for i, row in zip(idx, u):
      k = tuple(i)
      out[k] = row if mode == "update" else (out[k] + row if mode == "add" else out[k] - row)
    return out
  return ref


for _mode, _fn in [("update", tf.tensor_scatter_nd_update), ("add", tf.tensor_scatter_nd_add),
                   ("sub", tf.tensor_scatter_nd_sub)]:
  _ix = [[1], [3]] if _mode == "update" else [[1], [3], [1]]
  case("tensor_scatter_nd_" + _mode, (lambda f, ix: lambda t, u: f(t, ix, u))(_fn, _ix),
       _tsn_ref(_mode, _ix), args([5], [len(_ix)]), F32_64 + (i32, i64) +
       ((b_, s_) if _mode == "update" else ()), grad=True, order=2)
  case("tensor_scatter_nd_" + _mode + "/rows",
       (lambda f: lambda t, u: f(t, [[2], [0]], u))(_fn), _tsn_ref(_mode, [[2], [0]]),
       args([3, 2], [2, 2]), F32_64, grad=True)
  case("tensor_scatter_nd_" + _mode + "/elements",
       (lambda f: lambda t, u: f(t, [[0, 1], [2, 0]], u))(_fn),
       _tsn_ref(_mode, [[0, 1], [2, 0]]), args([3, 2], [2]), F32_64, grad=True)


# --------------------------------------------------------------- one_hot

case("one_hot", lambda i: tf.one_hot(i, 4), lambda i: np.eye(4, dtype=f32)[i],
     fixed([0, 3, 1]), (i32, i64, u8), grad=False)
case("one_hot/out_of_range", lambda i: tf.one_hot(i, 3),
     lambda i: np.array([[0, 0, 0], [0, 1, 0], [0, 0, 0]], f32), fixed([-1, 1, 3]), (i32, i64),
     grad=False)
case("one_hot/on_off_dtype", lambda i: tf.one_hot(i, 3, on_value=5, off_value=-1,
                                                  dtype=tf.int32),
     lambda i: np.where(np.eye(3, dtype=bool)[i], 5, -1).astype(i32), fixed([2, 0]), [i32],
     grad=False)
case("one_hot/on_value_tensor", lambda i: tf.one_hot(i, 2, on_value=tf.constant(2.0, tf.float64),
                                                    off_value=tf.constant(0.5, tf.float64)),
     lambda i: np.where(np.eye(2, dtype=bool)[i], 2.0, 0.5), fixed([1, 0]), [i32], grad=False)
case("one_hot/axis0", lambda i: tf.one_hot(i, 3, axis=0), lambda i: np.eye(3, dtype=f32)[i].T,
     fixed([0, 2]), [i32], grad=False)
case("one_hot/2d_axis1", lambda i: tf.one_hot(i, 3, axis=1),
     lambda i: np.moveaxis(np.eye(3, dtype=f32)[i], -1, 1), fixed([[0, 2], [1, 1]]), [i32],
     grad=False)
case("one_hot/bool", lambda i: tf.one_hot(i, 2, on_value=True, off_value=False),
     lambda i: np.eye(2, dtype=bool)[i], fixed([1, 0]), [i32], grad=False)
case("sequence_mask", lambda n: tf.sequence_mask(n, 4),
     lambda n: np.arange(4) < n[:, None], fixed([1, 3, 0]), (i32, i64), grad=False)
case("sequence_mask/default_maxlen", tf.sequence_mask, lambda n: np.arange(n.max()) < n[:, None],
     fixed([1, 3, 2]), [i32], grad=False)
case("sequence_mask/dtype", lambda n: tf.sequence_mask(n, 3, dtype=tf.float32),
     lambda n: (np.arange(3) < n[:, None]).astype(f32), fixed([2, 0]), [i32], grad=False)
case("sequence_mask/2d", lambda n: tf.sequence_mask(n, 2),
     lambda n: np.arange(2) < n[..., None], fixed([[1, 2], [0, 1]]), [i32], grad=False)


# ------------------------------------------------------------ where/mask

_COND = np.array([[True, False, True], [False, False, True]])
case("where/select", lambda x, y: tf.where(_COND, x, y), lambda x, y: np.where(_COND, x, y),
     args([2, 3], [2, 3]), NUM + (b_, s_), grad=True, order=2)
case("where/bcast_cond", lambda x, y: tf.where([True, False, True], x, y),
     lambda x, y: np.where([True, False, True], x, y), args([2, 3], [2, 3]), F32_64, grad=True)
case("where/bcast_xy", lambda x, y: tf.where(_COND, x, y), lambda x, y: np.where(_COND, x, y),
     args([3], [2, 1]), F32_64, grad=True)
case("where/scalar_branch", lambda x: tf.where(_COND, x, 0.0),
     lambda x: np.where(_COND, x, 0.0).astype(x.dtype), args([2, 3]), F32_64, grad=True)
case("where/tensor_cond", lambda x: tf.where(x > 0, x, -x), lambda x: np.abs(x),
     args([2, 3], away=0.1), F32_64, grad=True)
case("where/indices", tf.where, lambda c: np.argwhere(c).astype(i64), args([3, 4]), [b_],
     grad=False)
case("where/indices_numeric", tf.where, lambda c: np.argwhere(c).astype(i64),
     args([2, 3], lo=-1, hi=1), (f32, i32), grad=False)
case("where/indices_1d_none", tf.where, lambda c: np.zeros([0, 1], i64),
     fixed([False, False]), [b_], grad=False)
case("boolean_mask", lambda x: tf.boolean_mask(x, [True, False, True]),
     lambda x: x[[True, False, True]], args([3, 2]), NUM + (b_, s_), grad=True, order=2)
case("boolean_mask/2d_mask", lambda x: tf.boolean_mask(x, _COND), lambda x: x[_COND],
     args([2, 3]), F32_64, grad=True)
case("boolean_mask/2d_mask_3d", lambda x: tf.boolean_mask(x, _COND), lambda x: x[_COND],
     args([2, 3, 2]), F32_64, grad=True)
case("boolean_mask/axis1", lambda x: tf.boolean_mask(x, [False, True, True], axis=1),
     lambda x: x[:, [False, True, True]], args([2, 3, 2]), F32_64, grad=True)
case("boolean_mask/tensor_mask", lambda x: tf.boolean_mask(x, x > 0), lambda x: x[x > 0],
     args([3, 3], away=0.1), F32_64, grad=True)


# ---------------------------------------------------- reverse/slice/index

case("reverse", lambda x: tf.reverse(x, [0]), lambda x: x[::-1], args([3, 2]), NUM + (b_, s_),
     grad=True, order=2)
case("reverse/axes", lambda x: tf.reverse(x, [0, -1]), lambda x: x[::-1, :, ::-1],
     args([2, 3, 2]), F32_64, grad=True)
case("reverse/none", lambda x: tf.reverse(x, []), lambda x: x, args([3]), [f32], grad=True)
case("slice", lambda x: tf.slice(x, [1, 0], [2, 2]), lambda x: x[1:3, 0:2], args([3, 4]),
     NUM + (b_, s_), grad=True, order=2)
case("slice/minus_one", lambda x: tf.slice(x, [0, 1, 0], [-1, 2, -1]),
     lambda x: x[:, 1:3, :], args([2, 3, 2]), F32_64, grad=True)
case("slice/tensor_args", lambda x: tf.slice(x, tf.constant([1]), tf.constant([2])),
     lambda x: x[1:3], args([4]), [f32], grad=True)
case("slice/empty", lambda x: tf.slice(x, [1], [0]), lambda x: x[1:1], args([4]), [f32],
     grad=True)
case("strided_slice", lambda x: tf.strided_slice(x, [0, 1], [2, 3], [1, 1]),
     lambda x: x[0:2, 1:3], args([3, 4]), NUM + (b_, s_), grad=True, order=2)
case("strided_slice/strides", lambda x: tf.strided_slice(x, [0], [5], [2]), lambda x: x[0:5:2],
     args([6]), F32_64, grad=True)
case("strided_slice/negative_stride", lambda x: tf.strided_slice(x, [-1], [-5], [-1]),
     lambda x: x[-1:-5:-1], args([6]), F32_64, grad=True)
case("strided_slice/masks", lambda x: tf.strided_slice(x, [0, 1], [0, 3], begin_mask=1,
                                                      end_mask=1),
     lambda x: x[:, 1:3], args([3, 4]), F32_64, grad=True)
case("strided_slice/shrink", lambda x: tf.strided_slice(x, [1, 0], [2, 4], shrink_axis_mask=1),
     lambda x: x[1, 0:4], args([3, 4]), F32_64, grad=True)
case("strided_slice/new_axis", lambda x: tf.strided_slice(x, [0, 0], [1, 2], new_axis_mask=1),
     lambda x: x[None, 0:2], args([3, 4]), F32_64, grad=True)
case("strided_slice/ellipsis", lambda x: tf.strided_slice(x, [0, 1], [1, 2], ellipsis_mask=1),
     lambda x: x[..., 1:2], args([2, 3, 4]), F32_64, grad=True)
case("strided_slice/end_past", lambda x: tf.strided_slice(x, [1], [100]), lambda x: x[1:100],
     args([4]), [f32], grad=True)

_INDEX = [
    ("int", lambda x: x[1], (3, 4)), ("negative_int", lambda x: x[-1], (3, 4)),
    ("slice", lambda x: x[1:], (3, 4)), ("slice_step", lambda x: x[::2], (5, 2)),
    ("negative_stride", lambda x: x[::-1], (4, 2)),
    ("negative_stride_bounds", lambda x: x[3:0:-2], (5,)),
    ("negative_stride_inner", lambda x: x[:, ::-2], (2, 5)),
    ("2d", lambda x: x[1, 2], (3, 4)), ("2d_slices", lambda x: x[1:3, :2], (3, 4)),
    ("newaxis", lambda x: x[tf.newaxis], (3,)),
    ("newaxis_mid", lambda x: x[:, tf.newaxis, 1], (2, 3)),
    ("none", lambda x: x[None, :, None], (2,)),
    ("ellipsis", lambda x: x[..., 0], (2, 3, 4)),
    ("ellipsis_mid", lambda x: x[1, ..., 1:], (2, 3, 4)),
    ("ellipsis_newaxis", lambda x: x[..., tf.newaxis], (2, 3)),
    ("ellipsis_only", lambda x: x[...], (2, 3)),
    ("out_of_range_slice", lambda x: x[2:10], (4,)),
    ("empty_slice", lambda x: x[3:1], (4,)),
    ("scalar_tensor_index", lambda x: x[tf.constant(1)], (3, 2)),
    ("tensor_slice_bounds", lambda x: x[tf.constant(1):tf.constant(3)], (4,)),
    ("numpy_int", lambda x: x[np.int64(2)], (3,)),
    ("shrink_all", lambda x: x[1, 0, 2], (2, 3, 4)),
    ("scalar_ellipsis", lambda x: x[...], ()),
]
for _n, _f, _s in _INDEX:
  case("getitem/" + _n, _f, _f, args(list(_s)), F32_64 + ((i32, b_, s_) if _n == "int" else ()),
       grad=True, order=2 if _n in ("negative_stride", "ellipsis_mid") else 1)


# ---------------------------------------------------------------- sorting

case("top_k", lambda x: tf.math.top_k(x, 2), lambda x: (
    np.sort(x, -1)[..., ::-1][..., :2], np.argsort(-x, -1, kind="stable")[..., :2].astype(i32)),
     args([3, 5]), F32_64 + (i32,), grad=True, order=2)
case("top_k/ties_lowest_index_first", lambda x: tf.math.top_k(x, 3),
     lambda x: (np.array([3, 3, 2], x.dtype), np.array([1, 3, 0], i32)), fixed([2, 3, 1, 3]),
     (f32, i32), grad=False)
case("top_k/values_only", lambda x: tf.math.top_k(x, k=1).values,
     lambda x: np.max(x, -1, keepdims=True), args([4, 3]), F32_64, grad=True)
case("top_k/1d_default_k", lambda x: tf.math.top_k(x),
     lambda x: (np.max(x, keepdims=True), np.argmax(x, keepdims=True).astype(i32)), args([4]),
     [f32], grad=False)
case("sort", tf.sort, lambda x: np.sort(x, -1), args([3, 4]), F32_64 + (i32, i64, u8),
     grad=True, order=2)
case("sort/descending", lambda x: tf.sort(x, direction="DESCENDING"),
     lambda x: np.sort(x, -1)[..., ::-1], args([3, 4]), F32_64 + (i32,), grad=True)
case("sort/axis0", lambda x: tf.sort(x, axis=0), lambda x: np.sort(x, 0), args([3, 4]), F32_64,
     grad=True)
case("sort/1d", tf.sort, np.sort, args([6]), (f32, i32), grad=True)
case("argsort", tf.argsort, lambda x: np.argsort(x, -1, kind="stable").astype(i32),
     args([3, 4]), F32_64 + (i32,), grad=False)
case("argsort/descending", lambda x: tf.argsort(x, direction="DESCENDING"),
     lambda x: np.argsort(-x, -1, kind="stable").astype(i32), args([3, 4]), F32_64, grad=False)
case("argsort/axis0_stable_ties", lambda x: tf.argsort(x, axis=0, stable=True),
     lambda x: np.argsort(x, 0, kind="stable").astype(i32), fixed([[1, 2], [1, 1], [0, 1]]),
     (f32, i32), grad=False)
case("argsort/descending_uint8", lambda x: tf.argsort(x, direction="DESCENDING", stable=True),
     lambda x: np.argsort(-x.astype(i64), kind="stable").astype(i32), fixed([0, 255, 3, 255]),
     [u8], grad=False)
case("unique", tf.unique, lambda x: (np.array([3, 1, 2], x.dtype), np.array([0, 1, 0, 2, 1],
                                                                            i32)),
     fixed([3, 1, 3, 2, 1]), (i32, i64, f32), grad=False)
case("unique/string", tf.unique, lambda x: (np.array([b"b", b"a"], object),
                                            np.array([0, 1, 0], i32)),
     lambda rng, dt: [np.array([b"b", b"a", b"b"], object)], [s_], grad=False)
case("unique/out_idx", lambda x: tf.unique(x, out_idx=tf.int64).idx,
     lambda x: np.array([0, 0, 1], i64), fixed([5, 5, 4]), [i32], grad=False)


# ------------------------------------------------------------- meshgrid

case("meshgrid/xy", lambda a, b: tf.meshgrid(a, b), lambda a, b: np.meshgrid(a, b),
     args([3], [2]), F32_64 + (i32,), grad=True)
case("meshgrid/ij", lambda a, b: tf.meshgrid(a, b, indexing="ij"),
     lambda a, b: np.meshgrid(a, b, indexing="ij"), args([3], [2]), F32_64, grad=True)
case("meshgrid/3", lambda a, b, c: tf.meshgrid(a, b, c),
     lambda a, b, c: np.meshgrid(a, b, c), args([3], [2], [4]), [f32], grad=True)
case("meshgrid/one", lambda a: tf.meshgrid(a), lambda a: np.meshgrid(a), args([3]), [f32],
     grad=False)


# --------------------------------------------------------------- segments

_SEG = np.array([0, 2, 0, -1, 2])


def _seg_ref(fn, empty, n=3, ids=_SEG):
  def ref(x):
    out = np.full((n,) + x.shape[1:], empty(x.dtype), dtype=x.dtype)
    for i, s in enumerate(ids):
      if s >= 0:
        out[s] = fn(out[s], x[i])
    return out
  return ref


def _lowest(dt):
  return tf.as_dtype(dt).min


def _highest(dt):
  return tf.as_dtype(dt).max


case("unsorted_segment_sum", lambda x: tf.math.unsorted_segment_sum(x, _SEG, 3),
     _seg_ref(np.add, lambda dt: 0), args([5, 2]), F32_64 + (i32, c64), grad=True, order=2)
# NOTE: an empty segment's max is the dtype's lowest value: no finite differences there.
case("unsorted_segment_max", lambda x: tf.math.unsorted_segment_max(x, _SEG, 3),
     _seg_ref(np.maximum, _lowest), args([5, 2]), F32_64 + (i32,), grad=False)
case("unsorted_segment_min", lambda x: tf.math.unsorted_segment_min(x, _SEG, 4),
     _seg_ref(np.minimum, _highest, 4), args([5]), F32_64 + (i32,), grad=False)
_FULL = np.array([1, 0, 1, -1, 0])
case("unsorted_segment_max/grad", lambda x: tf.math.unsorted_segment_max(x, _FULL, 2),
     _seg_ref(np.maximum, _lowest, 2, _FULL), args([5, 2]), F32_64, grad=True)
case("unsorted_segment_min/grad", lambda x: tf.math.unsorted_segment_min(x, _FULL, 2),
     _seg_ref(np.minimum, _highest, 2, _FULL), args([5]), F32_64, grad=True)
case("unsorted_segment_max/ties", lambda x: tf.math.unsorted_segment_max(x, [0, 0, 1], 2),
     lambda x: np.array([2.0, 1.0], x.dtype), fixed([2.0, 2.0, 1.0]), F32_64, grad=False)
case("unsorted_segment_prod", lambda x: tf.math.unsorted_segment_prod(x, _SEG, 3),
     _seg_ref(np.multiply, lambda dt: 1), args([5, 2]), F32_64 + (i32,), grad=False)
case("unsorted_segment_mean", lambda x: tf.math.unsorted_segment_mean(x, _SEG, 3),
     lambda x: (_seg_ref(np.add, lambda dt: 0)(x) / np.array([2, 1, 2])[:, None]).astype(
         x.dtype), args([5, 2]), F32_64, grad=True)
case("unsorted_segment_sum/2d_ids", lambda x: tf.math.unsorted_segment_sum(
    x, [[0, 1], [1, 1]], 2), lambda x: np.stack([x[0, 0], x[0, 1] + x[1, 0] + x[1, 1]]),
     args([2, 2, 3]), F32_64, grad=True)
_SORTED = np.array([0, 0, 2, 2, 3])
case("segment_sum", lambda x: tf.math.segment_sum(x, _SORTED),
     _seg_ref(np.add, lambda dt: 0, 4, _SORTED), args([5, 2]), F32_64 + (i32,), grad=True)
case("segment_max", lambda x: tf.math.segment_max(x, _SORTED),
     lambda x: np.where(np.array([1, 0, 1, 1])[:, None] > 0, _seg_ref(
         np.maximum, _lowest, 4, _SORTED)(x), 0).astype(x.dtype), args([5, 2]),
     F32_64 + (i32,), grad=True)
case("segment_min", lambda x: tf.math.segment_min(x, _SORTED),
     lambda x: np.where(np.array([1, 0, 1, 1]) > 0, _seg_ref(
         np.minimum, _highest, 4, _SORTED)(x), 0).astype(x.dtype), args([5]), F32_64,
     grad=True)
case("segment_mean", lambda x: tf.math.segment_mean(x, _SORTED),
     lambda x: (_seg_ref(np.add, lambda dt: 0, 4, _SORTED)(x) / np.array([2, 1, 2, 1])).astype(
         x.dtype), args([5]), F32_64, grad=True)
case("segment_prod", lambda x: tf.math.segment_prod(x, _SORTED),
     _seg_ref(np.multiply, lambda dt: 1, 4, _SORTED), args([5]), F32_64, grad=False)


# ----------------------------------------------------------- small extras

case("multiply_no_nan", tf.math.multiply_no_nan, lambda x, y: (x * y).astype(x.dtype),
     args([2, 3], [2, 3]), F32_64 + COMPLEX, grad=True, order=2)
case("multiply_no_nan/zero", tf.math.multiply_no_nan,
     lambda x, y: np.array([0.0, 0.0, 6.0], x.dtype), fixed([np.nan, np.inf, 2.0], [0, 0, 3]),
     F32_64, grad=False)
case("truncatemod", tf.truncatemod, same(np.fmod), fixed([-7, 7, -7, 7], [3, -3, -3, 3]),
     SINT + F32_64, grad=False)
case("reciprocal_no_nan", tf.math.reciprocal_no_nan,
     lambda x: np.where(x == 0, 0, 1 / np.where(x == 0, 1, x)).astype(x.dtype),
     fixed([0.0, 2.0, -4.0]), F32_64, grad=False)
case("reciprocal_no_nan/grad", tf.math.reciprocal_no_nan, same(np.reciprocal),
     args([3], away=0.5), F32_64, grad=True)
case("rint", tf.math.rint, np.rint, fixed([0.5, 1.5, -2.5, 2.6]), FLOAT, grad=False)
case("angle", tf.math.angle, lambda x: np.angle(x).astype(x.real.dtype), args([4]),
     COMPLEX + F32_64, grad=False)
case("zero_fraction", tf.math.zero_fraction, lambda x: np.array(np.mean(x == 0), f32),
     args([3, 4], lo=-1, hi=1), REAL[:2] + (b_,), grad=False)
case("is_non_decreasing", tf.math.is_non_decreasing, lambda x: np.all(np.diff(x.ravel()) >= 0),
     fixed([1, 2, 2, 3]), (i32, f32), grad=False)
case("is_strictly_increasing", tf.math.is_strictly_increasing,
     lambda x: np.all(np.diff(x.ravel()) > 0), fixed([1, 2, 2, 3]), (i32, f32), grad=False)
case("confusion_matrix", lambda l, p: tf.math.confusion_matrix(l, p),
     lambda l, p: np.array([[1, 0, 0], [0, 1, 1], [0, 0, 0]], i32), fixed([0, 1, 1], [0, 1, 2]),
     (i32, i64), grad=False)
case("confusion_matrix/weights", lambda l, p: tf.math.confusion_matrix(
    l, p, num_classes=2, weights=tf.constant([0.5, 2.0]), dtype=tf.float32),
     lambda l, p: np.array([[0, 0.5], [0, 2.0]], f32), fixed([0, 1], [1, 1]), [i32], grad=False)
case("searchsorted", lambda s, v: tf.searchsorted(s, v), lambda s, v: np.array(
    [np.searchsorted(a, b) for a, b in zip(s, v)], i32), lambda rng, dt: [
        np.sort(rand([2, 5], dt, rng), -1), rand([2, 3], dt, rng)], F32_64 + (i32,), grad=False)
case("searchsorted/right_1d", lambda s, v: tf.searchsorted(s, v, side="right",
                                                           out_type=tf.int64),
     lambda s, v: np.searchsorted(s, v, side="right").astype(i64),
     fixed([1, 3, 3, 5], [3, 0, 6]), (i32, f32), grad=False)
case("unravel_index", lambda i: tf.unravel_index(i, [3, 4]),
     lambda i: np.array(np.unravel_index(i, (3, 4)), i.dtype), fixed([0, 5, 11]), (i32, i64),
     grad=False)
case("unravel_index/scalar", lambda i: tf.unravel_index(i, [3, 4]),
     lambda i: np.array(np.unravel_index(i, (3, 4)), i.dtype), fixed(7), [i32], grad=False)
for _n, _fn, _uf in [("max", tf.tensor_scatter_nd_max, np.maximum),
                     ("min", tf.tensor_scatter_nd_min, np.minimum)]:
  case("tensor_scatter_nd_" + _n, (lambda f: lambda t, u: f(t, [[1], [3], [1]], u))(_fn),
       (lambda uf: lambda t, u: uf.reduce([t] + [np.where(np.arange(5) == i, v, t)
                                                 for i, v in zip([1, 3, 1], u)]))(_uf),
       args([5], [3]), F32_64 + (i32,), grad=True)
case("reverse_sequence", lambda x: tf.reverse_sequence(x, [2, 3, 0], seq_axis=1, batch_axis=0),
     lambda x: np.stack([np.concatenate([r[:n][::-1], r[n:]]) for r, n in zip(x, [2, 3, 0])]),
     args([3, 4]), F32_64 + (i32, s_), grad=True, order=2)
case("reverse_sequence/batch_axis1", lambda x: tf.reverse_sequence(x, [1, 2], seq_axis=0,
                                                                   batch_axis=1),
     lambda x: np.stack([np.concatenate([x[:n, b][::-1], x[n:, b]]) for b, n in
                         enumerate([1, 2])], 1), args([3, 2, 2]), F32_64, grad=True)
case("unique_with_counts", tf.unique_with_counts, lambda x: (
    np.array([3, 1, 2], x.dtype), np.array([0, 1, 0, 2, 1], i32), np.array([2, 2, 1], i32)),
     fixed([3, 1, 3, 2, 1]), (i32, f32), grad=False)
case("histogram_fixed_width", lambda v: tf.histogram_fixed_width(v, [0.0, 5.0], nbins=5),
     lambda v: np.array([2, 1, 1, 0, 2], i32), fixed([-1.0, 0.0, 1.5, 2.0, 5.0, 15.0]),
     F32_64, grad=False)
case("guarantee_const", tf.guarantee_const, lambda x: x, args([2]), F32_64, grad=True)

CASE_BY_NAME = {c.name: c for c in CASES}
assert len(CASE_BY_NAME) == len(CASES), "duplicate OpCase names"


# ------------------------------------------------------- topic tables
# Op modules added by topic keep their rows beside this file, in
# op_rows_<topic>.py, each adding rows with case(); they are read here so
# test_numerics and test_gradients see one table.
def _load_topic_tables():
  import importlib
  import pathlib
  for path in sorted(pathlib.Path(__file__).parent.glob("op_rows_*.py")):
    importlib.import_module(path.stem)


_load_topic_tables()
