"""Random ops: op-seeded (tf.random.uniform ...), stateless (seed as input) and
Generator-backed (state in an int64 Variable), all drawing from NumPy's Philox.

Seeds follow TensorFlow: `get_seed(op_seed)` turns the global seed (set by
`tf.random.set_seed`) and an op's seed into the pair of attrs (seed, seed2);
(0, 0) means "nondeterministic". Ops with the same pair share one random
stream, so a repeated call gives new values, and `set_seed` (which drops all
streams) replays the same sequence. The streams live in `_STATE`, which the
kernels consult when they run, never when the op is built, so a staged op in a
graph draws afresh on every run. Each graph node gets its own stream (the
`stream` attr), as each TF graph kernel holds its own state.
"""
import itertools
import random as _pyrandom
import weakref

import numpy as np

from tensorlet import dtypes as _dt
from tensorlet.context import ctx
from tensorlet.errors import invalid_argument
from tensorlet.ops import array_ops, math_ops
from tensorlet.ops._common import FLOAT, REAL, as_int
from tensorlet.ops._common import name_scoped
from tensorlet.ops.registry import execute, op
from tensorlet.tensor_shape import TensorShape
from tensorlet.tensor import Tensor, convert_to_tensor

DEFAULT_GRAPH_SEED = 87654321
_MAXINT32 = 2**31 - 1
_U64 = 2**64
_INT_OUT = frozenset({_dt.int32, _dt.int64})
_SEED_DTYPES = frozenset({_dt.int32, _dt.int64})


class _RandomState:
  """Global seed, the eager op-seed source and the live random streams."""

  def __init__(self):
    self.global_seed = None
    self.op_seeds = _pyrandom.Random()
    self.streams = {}                  # (op, seed, seed2, stream, dtype) -> np Generator
    self.graph_counts = weakref.WeakKeyDictionary()  # graph -> next op seed
    self.nondeterministic = np.random.Generator(np.random.Philox())


_STATE = _RandomState()
_graph_streams = itertools.count(1)


def set_seed(seed):
  """Sets the global random seed; restarts every op-seeded random sequence.

  Example:
    >>> tf.random.set_seed(5); a = tf.random.uniform([2])
    >>> tf.random.set_seed(5); bool(tf.reduce_all(a == tf.random.uniform([2])))
    True
  """
  s = None if seed is None else as_int(seed, "set_seed", "seed")
  _STATE.global_seed = s
  _STATE.op_seeds = _pyrandom.Random(s)
  _STATE.streams.clear()


def get_seed(op_seed):
  """(seed, seed2) for an op from the global seed and `op_seed` (TF's rules)."""
  g = _STATE.global_seed
  if op_seed is not None:
    op_seed = as_int(op_seed, "random", "seed")
  if g is not None:
    if op_seed is None:
      graph = ctx.graph
      if graph is None:
        op_seed = _STATE.op_seeds.randint(0, _MAXINT32)
      else:
        op_seed = _STATE.graph_counts.get(graph, 0)
        _STATE.graph_counts[graph] = op_seed + 1
    seeds = g % _MAXINT32, op_seed % _MAXINT32
  elif op_seed is not None:
    seeds = DEFAULT_GRAPH_SEED, op_seed % _MAXINT32
  else:
    seeds = 0, 0
  if seeds == (0, 0) and (g is not None or op_seed is not None):
    return 0, _MAXINT32
  return seeds


def _seed_attrs(seed):
  s1, s2 = get_seed(seed)
  return {"seed": s1, "seed2": s2, "stream": 0 if ctx.graph is None else next(_graph_streams)}


def _stream(name, seed, seed2, stream, dtype):
  if seed == 0 and seed2 == 0:
    return _STATE.nondeterministic
  key = (name, seed, seed2, stream, dtype)
  g = _STATE.streams.get(key)
  if g is None:
    g = _STATE.streams[key] = np.random.Generator(np.random.Philox(key=[seed % _U64,
                                                                         seed2 % _U64]))
  return g


# ------------------------------------------------------------- draws
# Shared by the op-seeded, stateless and Generator kernels.

def _dims(shape, name):
  s = np.asarray(shape)
  if s.ndim != 1:
    raise invalid_argument(name, f"shape must be a vector of {{int32,int64}}, got shape "
                           f"{list(s.shape)}")
  for d in s:
    if d < 0:
      raise invalid_argument(name, f"Dimension {int(d)} must be >= 0")
  return tuple(int(d) for d in s)


def _float_np(dtype):
  # NOTE: NumPy draws float32/float64 only; float16 is drawn as float32 and cast.
  return np.float64 if dtype is _dt.float64 else np.float32


def _uniform(g, dims, dtype):
  r = g.random(dims, dtype=_float_np(dtype))
  if dtype is _dt.float16:
    r = np.minimum(r.astype(np.float16), np.float16(1) - np.finfo(np.float16).epsneg)
  return r


def _normal(g, dims, dtype):
  return g.standard_normal(dims, dtype=_float_np(dtype)).astype(dtype._np, copy=False)


def _truncated(g, dims, dtype):
  r = g.standard_normal(dims, dtype=_float_np(dtype))
  bad = np.abs(r) > 2
  while bad.any():  # NOTE: resample values beyond two standard deviations, as TF does
    r[bad] = g.standard_normal(int(bad.sum()), dtype=r.dtype)
    bad = np.abs(r) > 2
  return r.astype(dtype._np, copy=False)


def _full_int(g, dims, dtype):
  info = np.iinfo(dtype._np)
  return g.integers(info.min, info.max, dims, dtype=dtype._np, endpoint=True)


def _int_range(g, dims, lo, hi, name):
  if np.ndim(lo) or np.ndim(hi):
    which, v = ("minval", lo) if np.ndim(lo) else ("maxval", hi)
    raise invalid_argument(name, f"{which} must be 0-D, got shape {list(np.shape(v))}")
  if not lo < hi:
    raise invalid_argument(name, f"Need minval < maxval: {lo} >= {hi}")
  return g.integers(lo, hi, dims, dtype=np.asarray(lo).dtype)


def _multinomial(g, logits, num_samples, out, name):
  if logits.ndim != 2:
    raise invalid_argument(name, f"logits should be a matrix, got shape {list(logits.shape)}")
  n = as_int(num_samples, "Multinomial", "num_samples")
  if n < 0:
    raise invalid_argument(name, f"num_samples should be nonnegative, got {n}")
  b, c = logits.shape
  if c == 0 and n > 0:
    raise invalid_argument(name, "num_classes should be positive, got 0")
  lg = logits.astype(np.float64)
  m = np.max(lg, axis=1, keepdims=True) if c else np.zeros((b, 1))
  cdf = np.cumsum(np.exp(lg - np.where(np.isfinite(m), m, 0)), axis=1)
  u = g.random((b, n))
  res = np.empty((b, n), dtype=out._np)
  for i in range(b):
    res[i] = np.searchsorted(cdf[i], u[i] * cdf[i, -1], side="right") if c else 0
  return np.minimum(res, max(c - 1, 0))


# ---------------------------------------------------- op-seeded ops

def _out_shape(index):
  def shape_fn(inputs, attrs):
    return [(array_ops._const_shape(inputs[index]), attrs["dtype"])]
  return shape_fn


def _seeded(name, draw):
  def kernel(shape, *, dtype, seed, seed2, stream):
    return draw(_stream(name, seed, seed2, stream, dtype), _dims(shape, name), dtype)
  return op(name, type_inputs=(), stateful=True, differentiable=False,
            shape=_out_shape(0))(kernel)


RandomUniform = _seeded("RandomUniform", _uniform)
RandomStandardNormal = _seeded("RandomStandardNormal", _normal)
TruncatedNormal = _seeded("TruncatedNormal", _truncated)


def _int_shape(shape_index):
  def shape_fn(inputs, attrs):
    return [(array_ops._const_shape(inputs[shape_index]), inputs[-1].dtype)]
  return shape_fn


@op("RandomUniformInt", type_inputs=(1, 2), dtypes=_INT_OUT, stateful=True,
    differentiable=False, shape=_int_shape(0))
def RandomUniformInt(shape, minval, maxval, *, seed, seed2, stream):
  name = "RandomUniformInt"
  g = _stream(name, seed, seed2, stream, minval.dtype)
  return _int_range(g, _dims(shape, name), minval, maxval, name)


def _multinomial_shape(logits_shape, n, out):
  b = logits_shape[0] if logits_shape.rank else None
  return [(TensorShape([b, n if isinstance(n, int) else None]), out)]


def _seeded_multinomial_shape(inputs, attrs):
  from tensorlet.ops.registry import constant_value
  n = constant_value(inputs[1])
  return _multinomial_shape(inputs[0].shape, None if n is None else int(n),
                            attrs["output_dtype"])


@op("Multinomial", type_inputs=(0,), dtypes=REAL, stateful=True, differentiable=False,
    shape=_seeded_multinomial_shape)
def Multinomial(logits, num_samples, *, seed, seed2, stream, output_dtype):
  g = _stream("Multinomial", seed, seed2, stream, output_dtype)
  return _multinomial(g, logits, num_samples, output_dtype, "Multinomial")


@op("RandomShuffle", type_inputs=(), stateful=True, differentiable=False,
    shape=lambda i, a: [(i[0].shape, i[0].dtype)])
def RandomShuffle(value, *, seed, seed2, stream):
  if np.ndim(value) == 0 or len(value) < 2:
    return value
  return _stream("RandomShuffle", seed, seed2, stream, None).permutation(value, axis=0)


def _param_shape(inputs, attrs):
  base = array_ops._const_shape(inputs[0])
  return [(base.concatenate(inputs[1].shape), attrs.get("dtype") or inputs[1].dtype)]


@op("RandomGamma", type_inputs=(1,), dtypes=FLOAT, stateful=True, differentiable=False,
    shape=_param_shape)
def RandomGamma(shape, alpha, *, seed, seed2, stream):
  g = _stream("RandomGamma", seed, seed2, stream, alpha.dtype)
  dims = _dims(shape, "RandomGamma") + np.shape(alpha)
  return g.standard_gamma(alpha, dims).astype(alpha.dtype, copy=False)


@op("RandomPoissonV2", type_inputs=(1,), dtypes=REAL, stateful=True, differentiable=False,
    shape=_param_shape)
def RandomPoissonV2(shape, rate, *, dtype, seed, seed2, stream):
  g = _stream("RandomPoissonV2", seed, seed2, stream, dtype)
  dims = _dims(shape, "RandomPoissonV2") + np.shape(rate)
  return g.poisson(rate, dims).astype(dtype._np)


# ------------------------------------------------------ public, seeded

_UNIFORM_DTYPES = (_dt.float16, _dt.float32, _dt.float64, _dt.int32, _dt.int64)


def _check_float(dtype, fn):
  dtype = _dt.as_dtype(dtype)
  if dtype not in FLOAT:
    raise TypeError(f"{fn}: Value passed to parameter 'dtype' has DataType {dtype.name} not "
                    f"in list of allowed values: float16, float32, float64")
  return dtype


def _shape(shape, op_name):
  return array_ops._shape_arg(shape, op_name)


def _as(v, dtype):
  return v if isinstance(v, Tensor) else convert_to_tensor(v, dtype)


def _affine(rnd, scale, shift, dtype):
  """rnd * scale + shift, leaving out the ops for the defaults 1 and 0 (as TF does)."""
  if not (isinstance(scale, (int, float)) and scale == 1):
    rnd = rnd * _as(scale, dtype)
  if not (isinstance(shift, (int, float)) and shift == 0):
    rnd = rnd + _as(shift, dtype)
  return rnd


def _to_range(rnd, minval, maxval, dtype):
  """Maps uniform [0, 1) values to [minval, maxval)."""
  maxval = 1 if maxval is None else maxval
  if isinstance(minval, (int, float)) and minval == 0:
    return _affine(rnd, maxval, 0, dtype)
  lo, hi = _as(minval, dtype), _as(maxval, dtype)
  return rnd * (hi - lo) + lo


@name_scoped
def uniform(shape, minval=0, maxval=None, dtype=_dt.float32, seed=None, name=None):
  """Uniform random values in [minval, maxval).

  Args:
    shape: 1-D integer shape.
    minval, maxval: range (maxval defaults to 1 for floats; required for ints).
    dtype: float16/32/64 or int32/int64.
    seed: op seed (see `tf.random.set_seed`).
  Raises:
    ValueError: integer `dtype` without `maxval`, or an unsupported dtype.
    InvalidArgumentError: integer range with minval >= maxval.

  Example:
    >>> tf.random.uniform([2, 3], seed=1).shape
    TensorShape([2, 3])
  """
  dtype = _dt.as_dtype(dtype)
  if dtype not in _UNIFORM_DTYPES:
    raise ValueError(f"Argument `dtype` got invalid value {dtype!r}. Accepted dtypes are "
                     f"{', '.join(repr(d) for d in _UNIFORM_DTYPES)}.")
  s = _shape(shape, "RandomUniform")
  attrs = _seed_attrs(seed)
  if dtype.is_integer:
    if maxval is None:
      raise ValueError(f"Must specify maxval for integer dtype {dtype!r}")
    lo, hi = convert_to_tensor(minval, dtype), convert_to_tensor(maxval, dtype)
    return execute(RandomUniformInt, [s, lo, hi], attrs)
  attrs["dtype"] = dtype
  return _to_range(execute(RandomUniform, [s], attrs), minval, maxval, dtype)


@name_scoped
def normal(shape, mean=0.0, stddev=1.0, dtype=_dt.float32, seed=None, name=None):
  """Normally distributed random values (`mean`, `stddev` may be tensors).

  Example:
    >>> tf.random.normal([3], seed=1).dtype
    tf.float32
  """
  dtype = _check_float(dtype, "normal")
  attrs = _seed_attrs(seed)
  attrs["dtype"] = dtype
  rnd = execute(RandomStandardNormal, [_shape(shape, "RandomStandardNormal")], attrs)
  return _affine(rnd, stddev, mean, dtype)


@name_scoped
def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=_dt.float32, seed=None, name=None):
  """Normal values redrawn until within two standard deviations of the mean.

  Example:
    >>> bool(tf.reduce_max(tf.abs(tf.random.truncated_normal([100]))) <= 2)
    True
  """
  dtype = _check_float(dtype, "truncated_normal")
  attrs = _seed_attrs(seed)
  attrs["dtype"] = dtype
  rnd = execute(TruncatedNormal, [_shape(shape, "TruncatedNormal")], attrs)
  return _affine(rnd, stddev, mean, dtype)


def _out_int(dtype):
  dtype = _dt.as_dtype(dtype)
  if dtype not in _INT_OUT:
    raise TypeError(f"Value passed to parameter 'output_dtype' has DataType {dtype.name} not "
                    f"in list of allowed values: int32, int64")
  return dtype


@name_scoped
def categorical(logits, num_samples, dtype=None, seed=None, name=None):
  """Samples class indices from the unnormalized log-probabilities `logits` [batch, classes].

  Returns:
    An int64 (or `dtype`) tensor of shape [batch, num_samples].

  Example:
    >>> tf.random.categorical(tf.math.log([[0.5, 0.5]]), 4, seed=1).shape
    TensorShape([1, 4])
  """
  x = convert_to_tensor(logits)
  attrs = _seed_attrs(seed)
  attrs["output_dtype"] = _out_int(_dt.int64 if dtype is None else dtype)
  return execute(Multinomial, [x, convert_to_tensor(num_samples, _dt.int32)], attrs)


@name_scoped
def multinomial(logits, num_samples, seed=None, name=None, output_dtype=None):
  return categorical(logits, num_samples, output_dtype, seed)


@name_scoped
def shuffle(value, seed=None, name=None):
  """Randomly permutes `value` along its first dimension.

  Example:
    >>> sorted(tf.random.shuffle([1, 2, 3], seed=1).numpy().tolist())
    [1, 2, 3]
  """
  return execute(RandomShuffle, [convert_to_tensor(value)], _seed_attrs(seed))


@name_scoped
def gamma(shape, alpha, beta=None, dtype=_dt.float32, seed=None, name=None):
  """Gamma(alpha, beta) samples of shape `shape + broadcast(alpha, beta).shape`."""
  dtype = _check_float(dtype, "gamma")
  a = convert_to_tensor(alpha, dtype)
  if beta is not None:
    b = convert_to_tensor(beta, dtype)
    a = array_ops.broadcast_to(a, array_ops.broadcast_dynamic_shape(
        array_ops.shape(a), array_ops.shape(b)))
  r = execute(RandomGamma, [_shape(shape, "RandomGamma"), a], _seed_attrs(seed))
  if beta is not None:
    r = r / b
  # NOTE: TF clamps to the smallest positive normal so that log(sample) is finite.
  return math_ops.maximum(r, np.finfo(dtype._np).tiny)


@name_scoped
def poisson(shape, lam, dtype=_dt.float32, seed=None, name=None):
  """Poisson(lam) samples of shape `shape + lam.shape`."""
  dtype = _dt.as_dtype(dtype)
  lam = convert_to_tensor(lam) if isinstance(lam, Tensor) else convert_to_tensor(lam, _dt.float32)
  attrs = _seed_attrs(seed)
  attrs["dtype"] = dtype
  return execute(RandomPoissonV2, [_shape(shape, "RandomPoissonV2"), lam], attrs)


# ------------------------------------------------------------ stateless

def _keyed(seed, name):
  """A fresh Philox stream keyed by a stateless op's [2] seed."""
  s = np.asarray(seed)
  if s.shape != (2,):
    raise invalid_argument(name, f"seed must have shape [2], not {list(s.shape)}")
  return np.random.Generator(np.random.Philox(key=[int(s[0]) % _U64, int(s[1]) % _U64]))


def _stateless(name, draw):
  def kernel(shape, seed, *, dtype):
    return draw(_keyed(seed, name), _dims(shape, name), dtype)
  return op(name, type_inputs=(1,), dtypes=_SEED_DTYPES, differentiable=False,
            shape=_out_shape(0))(kernel)


StatelessRandomUniform = _stateless("StatelessRandomUniform", _uniform)
StatelessRandomNormal = _stateless("StatelessRandomNormal", _normal)
StatelessTruncatedNormal = _stateless("StatelessTruncatedNormal", _truncated)
StatelessRandomUniformFullInt = _stateless("StatelessRandomUniformFullInt", _full_int)


@op("StatelessRandomUniformInt", type_inputs=(2, 3), dtypes=_INT_OUT, differentiable=False,
    shape=_int_shape(0))
def StatelessRandomUniformInt(shape, seed, minval, maxval):
  name = "StatelessRandomUniformInt"
  return _int_range(_keyed(seed, name), _dims(shape, name), minval, maxval, name)


@op("StatelessMultinomial", type_inputs=(0,), dtypes=REAL, differentiable=False,
    shape=lambda i, a: _multinomial_shape(i[0].shape, None, a["output_dtype"]))
def StatelessMultinomial(logits, num_samples, seed, *, output_dtype):
  name = "StatelessMultinomial"
  return _multinomial(_keyed(seed, name), logits, num_samples, output_dtype, name)


def _seed_tensor(seed):
  s = convert_to_tensor(seed) if isinstance(seed, Tensor) else \
      convert_to_tensor(np.asarray(seed).astype(np.int64) if np.asarray(seed).dtype.kind in "iu"
                        else seed)
  if s.dtype not in _SEED_DTYPES:
    raise TypeError(f"seed must be an int32 or int64 tensor of shape [2], got {s.dtype.name}")
  return s


@name_scoped
def stateless_uniform(shape, seed, minval=0, maxval=None, dtype=_dt.float32, name=None,
                      alg="auto_select"):
  """Uniform values determined by `seed` (shape [2]): same seed, same values.

  Integer dtypes need both bounds, or neither for the full integer range.

  Example:
    >>> a = tf.random.stateless_uniform([2], seed=[1, 2])
    >>> bool(tf.reduce_all(a == tf.random.stateless_uniform([2], seed=[1, 2])))
    True
  """
  dtype = _dt.as_dtype(dtype)
  s, sd = _shape(shape, "StatelessRandomUniform"), _seed_tensor(seed)
  if dtype.is_integer:
    if minval is None and maxval is None:
      return execute(StatelessRandomUniformFullInt, [s, sd], {"dtype": dtype})
    if minval is None or maxval is None:
      raise ValueError("For integer dtype, minval and maxval must be both `None` or both "
                       "non-`None`.")
    lo, hi = convert_to_tensor(minval, dtype), convert_to_tensor(maxval, dtype)
    return execute(StatelessRandomUniformInt, [s, sd, lo, hi], {})
  dtype = _check_float(dtype, "stateless_uniform")
  return _to_range(execute(StatelessRandomUniform, [s, sd], {"dtype": dtype}), minval, maxval,
                   dtype)


@name_scoped
def stateless_normal(shape, seed, mean=0.0, stddev=1.0, dtype=_dt.float32, name=None,
                     alg="auto_select"):
  """Normal values determined by `seed` (shape [2])."""
  dtype = _check_float(dtype, "stateless_normal")
  rnd = execute(StatelessRandomNormal, [_shape(shape, "StatelessRandomNormal"),
                                        _seed_tensor(seed)], {"dtype": dtype})
  return _affine(rnd, stddev, mean, dtype)


@name_scoped
def stateless_truncated_normal(shape, seed, mean=0.0, stddev=1.0, dtype=_dt.float32, name=None,
                               alg="auto_select"):
  """Truncated normal values determined by `seed` (shape [2])."""
  dtype = _check_float(dtype, "stateless_truncated_normal")
  rnd = execute(StatelessTruncatedNormal, [_shape(shape, "StatelessTruncatedNormal"),
                                           _seed_tensor(seed)], {"dtype": dtype})
  return _affine(rnd, stddev, mean, dtype)


@name_scoped
def stateless_categorical(logits, num_samples, seed, dtype=_dt.int64, name=None):
  """`categorical` determined by `seed` (shape [2])."""
  return execute(StatelessMultinomial, [convert_to_tensor(logits),
                                        convert_to_tensor(num_samples, _dt.int32),
                                        _seed_tensor(seed)], {"output_dtype": _out_int(dtype)})


def stateless_split(seed, num=2, alg="auto_select"):
  """`num` new [2] seeds derived from `seed`, as an int64 [num, 2] tensor."""
  sd = _seed_tensor(seed)
  return stateless_uniform([num, 2], sd, minval=None, maxval=None, dtype=sd.dtype)


def stateless_fold_in(seed, data, alg="auto_select"):
  """A new [2] seed from `seed` and the integer `data`."""
  sd = _seed_tensor(seed)
  first = stateless_uniform([1], sd, minval=None, maxval=None, dtype=sd.dtype)
  return array_ops.concat([first, convert_to_tensor([data], sd.dtype)], 0)


# ------------------------------------------------------------ Generator
# A Generator's state is an int64 Variable [counter_lo, counter_hi, key] (TF's
# Philox layout). Its kernels read the state, draw, and store the advanced
# counter, so they are stateful ops on the variable's handle and run the same
# eagerly and in graphs.

def _philox_draw(var, draw):
  s = np.asarray(var._array_value()).astype(np.int64).view(np.uint64)
  bits = np.random.Philox(counter=[s[0], s[1], 0, 0], key=[s[2], 0])
  out = draw(np.random.Generator(bits))
  c = bits.state["state"]["counter"]
  var._set(np.array([c[0], c[1], s[2]], np.uint64).view(np.int64))
  return out


def _stateful(name, draw):
  def kernel(resource, shape, *, dtype):
    return _philox_draw(resource, lambda g: draw(g, _dims(shape, name), dtype))
  return op(name, type_inputs=(), stateful=True, differentiable=False,
            shape=_out_shape(1))(kernel)


StatefulUniform = _stateful("StatefulUniform", _uniform)
StatefulStandardNormalV2 = _stateful("StatefulStandardNormalV2", _normal)
StatefulTruncatedNormal = _stateful("StatefulTruncatedNormal", _truncated)
StatefulUniformFullInt = _stateful("StatefulUniformFullInt", _full_int)


@op("StatefulUniformInt", type_inputs=(2, 3), dtypes=_INT_OUT, stateful=True,
    differentiable=False, shape=_int_shape(1))
def StatefulUniformInt(resource, shape, minval, maxval):
  name = "StatefulUniformInt"
  return _philox_draw(resource, lambda g: _int_range(g, _dims(shape, name), minval, maxval,
                                                     name))


@op("RngSkip", type_inputs=(), stateful=True, num_outputs=0, differentiable=False,
    shape=lambda i, a: [])
def RngSkip(resource, delta):
  # NOTE: one Philox counter step yields four 64-bit words; TF counts 128-bit steps.
  _philox_draw(resource, lambda g: g.bit_generator.advance(int(delta)))
  return ()


class Algorithm:
  """tf.random.Algorithm: the RNG algorithms (NumPy's Philox serves both)."""
  PHILOX = 1
  THREEFRY = 2
  AUTO_SELECT = 3


_ALG_NAMES = {"philox": 1, "threefry": 2, "auto_select": 3}


def _alg(alg):
  if alg is None:
    return Algorithm.PHILOX
  if isinstance(alg, str):
    a = _ALG_NAMES.get(alg.lower())
  else:
    a = as_int(getattr(alg, "value", alg), "random", "alg")
    a = a if a in (1, 2, 3) else None
  if a is None:
    raise ValueError(f"Argument `alg` got unsupported value {alg}. Supported values are "
                     f"'philox', 'threefry' and 'auto_select'.")
  return Algorithm.PHILOX if a == Algorithm.AUTO_SELECT else a


_MASK64 = _U64 - 1


def create_rng_state(seed, alg):
  """The [3] int64 Philox state for an integer `seed` (a NumPy array).

  NOTE: TF puts the low 64 bits of the seed in the counter and leaves the key 0,
  so small seeds give overlapping streams; here they go to the key instead.
  """
  _alg(alg)
  seed = as_int(seed, "create_rng_state", "seed", wide=True)
  words = [(seed >> 64) & _MASK64, (seed >> 128) & _MASK64, seed & _MASK64]
  return np.array(words, np.uint64).view(np.int64)


class Generator:
  """tf.random.Generator: a random number generator whose state is a Variable.

  Example:
    >>> g = tf.random.Generator.from_seed(1)
    >>> g.normal([2, 3]).shape
    TensorShape([2, 3])
  """

  def __init__(self, copy_from=None, state=None, alg=None):
    from tensorlet.variables import Variable
    if copy_from is not None:
      if state is not None or alg is not None:
        raise ValueError("When `copy_from` is given, `state` and `alg` must be None.")
      state, alg = copy_from.state.numpy(), copy_from.algorithm
    elif state is None:
      raise ValueError("Generator needs `copy_from` or `state`; use Generator.from_seed or "
                       "Generator.from_non_deterministic_state.")
    self._alg = _alg(alg)
    st = np.asarray(state.numpy() if hasattr(state, "numpy") else state)
    if st.dtype.kind == "u":
      st = st.view(np.int64)
    st = st.astype(np.int64).reshape(-1)
    if st.shape != (3,):
      raise ValueError(f"The size of `state` must be 3 for algorithm {self._alg}, got "
                       f"{st.shape[0]}")
    saved = ctx.graph
    ctx.graph = None  # NOTE: the state variable is created eagerly (TF's init_scope).
    try:
      self._state_var = Variable(st, trainable=False, dtype=_dt.int64, name="StateVar")
    finally:
      ctx.graph = saved

  # -------------------------------------------------------------- makers
  @classmethod
  def from_seed(cls, seed, alg=None):
    """A generator deterministically seeded by the integer `seed`."""
    return cls(state=create_rng_state(seed, alg), alg=alg)

  @classmethod
  def from_non_deterministic_state(cls, alg=None):
    """A generator seeded from the operating system's entropy."""
    seed = int(np.random.SeedSequence().generate_state(2, np.uint64)[0])
    return cls(state=create_rng_state(seed, alg), alg=alg)

  @classmethod
  def from_state(cls, state, alg):
    return cls(state=state, alg=alg)

  @classmethod
  def from_key_counter(cls, key, counter, alg):
    c = np.reshape(np.asarray(counter, np.int64), [-1])
    k = np.reshape(np.asarray(key, np.int64), [-1])
    if c.shape != (2,) or k.shape != (1,):
      raise ValueError(f"Philox needs a counter of size 2 and a key of size 1, got "
                       f"{c.shape[0]} and {k.shape[0]}")
    return cls(state=np.concatenate([c, k]), alg=alg)

  # ------------------------------------------------------------ properties
  @property
  def state(self):
    """The int64 Variable holding [counter_lo, counter_hi, key]."""
    return self._state_var

  @property
  def algorithm(self):
    return self._alg

  @property
  def key(self):
    return self._state_var.value()[-1]

  def reset(self, state):
    self._state_var.assign(convert_to_tensor(np.asarray(state, np.int64)))

  def reset_from_seed(self, seed):
    self.reset(create_rng_state(seed, self._alg))

  def reset_from_key_counter(self, key, counter):
    self.reset(np.concatenate([np.reshape(np.asarray(counter, np.int64), [-1]),
                               np.reshape(np.asarray(key, np.int64), [-1])]))

  def skip(self, delta):
    """Advances the counter as if `delta` draws were made."""
    execute(RngSkip, [self._state_var._handle, convert_to_tensor(delta, _dt.int64)], {})

  # ------------------------------------------------------------- sampling
  def _draw(self, od, shape, dtype):
    return execute(od, [self._state_var._handle, _shape(shape, od.name)], {"dtype": dtype})

  def normal(self, shape, mean=0.0, stddev=1.0, dtype=_dt.float32, name=None):
    dtype = _check_float(dtype, "Generator.normal")
    return _affine(self._draw(StatefulStandardNormalV2, shape, dtype), stddev, mean, dtype)

  def truncated_normal(self, shape, mean=0.0, stddev=1.0, dtype=_dt.float32, name=None):
    dtype = _check_float(dtype, "Generator.truncated_normal")
    return _affine(self._draw(StatefulTruncatedNormal, shape, dtype), stddev, mean, dtype)

  def uniform(self, shape, minval=0, maxval=None, dtype=_dt.float32, name=None):
    """Uniform values in [minval, maxval); integer dtypes need `maxval`."""
    dtype = _dt.as_dtype(dtype)
    if dtype.is_integer:
      if maxval is None:
        raise ValueError(f"Must specify maxval for integer dtype {dtype!r}")
      if dtype not in _INT_OUT:
        raise ValueError(f"Generator.uniform: integer dtype must be int32 or int64, got "
                         f"{dtype!r}")
      return execute(StatefulUniformInt, [self._state_var._handle,
                                          _shape(shape, "StatefulUniformInt"),
                                          convert_to_tensor(minval, dtype),
                                          convert_to_tensor(maxval, dtype)], {})
    dtype = _check_float(dtype, "Generator.uniform")
    return _to_range(self._draw(StatefulUniform, shape, dtype), minval, maxval, dtype)

  def uniform_full_int(self, shape, dtype=_dt.uint64, name=None):
    """Integers uniform over the whole range of `dtype`."""
    dtype = _dt.as_dtype(dtype)
    if not dtype.is_integer:
      raise ValueError(f"uniform_full_int needs an integer dtype, got {dtype!r}")
    return self._draw(StatefulUniformFullInt, shape, dtype)

  def make_seeds(self, count=1):
    """[2, count] int64 seeds for stateless ops, drawn from this generator."""
    keys = self.uniform_full_int([count], _dt.int64)
    return array_ops.stack([keys, array_ops.zeros_like(keys)])

  def split(self, count=1):
    """`count` new independent generators; advances this one."""
    keys = self.uniform_full_int([count], _dt.int64).numpy()
    return [Generator(state=np.array([0, 0, k], np.int64), alg=self._alg) for k in keys]


_global_generator = None


def get_global_generator():
  """The process-wide Generator (made from nondeterministic state on first use)."""
  global _global_generator
  if _global_generator is None:
    _global_generator = Generator.from_non_deterministic_state()
  return _global_generator


def set_global_generator(generator):
  """Replaces the global Generator (functions traced earlier keep the old one)."""
  global _global_generator
  _global_generator = generator
