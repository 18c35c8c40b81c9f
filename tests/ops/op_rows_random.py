"""Op-table rows of tensorlet/ops/random_ops.py. Samples differ between runs (and
between eager and traced calls of stateful ops), so each row returns properties of a
sample of x's shape that NumPy's reference states exactly: dtype, support and moments
within 5 standard errors (seeded, so deterministic). The row's input only gives the
sample's shape (dynamic when traced with unknown dims)."""
import numpy as np
from op_table import F32_64, args, case

import tensorlet as tf

_N = (40, 50)  # 2000 draws: 5 standard errors of a mean of unit variance is 0.11
_GEN = tf.random.Generator.from_seed(7)


def _moments(sample, lo, hi, mean, std):
  """[all in [lo, hi], |mean - want| < 5 se, |std - want| < 10% of it]: all True."""
  s = tf.cast(sample, tf.float64)
  n = tf.cast(tf.size(s), tf.float64)
  m = tf.reduce_mean(s)
  sd = tf.math.reduce_std(s)
  return tf.stack([tf.reduce_all((s >= lo) & (s <= hi)),
                   tf.abs(m - mean) < 5 * std / tf.sqrt(n),
                   tf.abs(sd - std) < 0.1 * std])


def _ok(*_):
  return np.array([True, True, True])


def row(name, sample, lo, hi, mean, std, dtypes=F32_64):
  case(name, lambda x: _moments(sample(x), lo, hi, mean, std), _ok, args(_N), dtypes,
       grad=False)


def _shape(x):
  return tf.shape(x)


_SEED = [3, 4]
row("random.uniform", lambda x: tf.random.uniform(_shape(x), 2.0, 4.0, dtype=x.dtype, seed=1),
    2.0, 4.0, 3.0, 2 / np.sqrt(12))
row("random.uniform/int", lambda x: tf.random.uniform(_shape(x), 0, 10, dtype=tf.int64,
                                                      seed=2), 0, 9, 4.5, np.sqrt(99 / 12))
row("random.normal", lambda x: tf.random.normal(_shape(x), 1.0, 2.0, dtype=x.dtype, seed=3),
    -np.inf, np.inf, 1.0, 2.0)
# truncated at 2 std: variance 1 - 2 * 2 * phi(2) / (2 * Phi(2) - 1) = 0.7737
row("random.truncated_normal", lambda x: tf.random.truncated_normal(_shape(x), dtype=x.dtype,
                                                                    seed=4),
    -2.0, 2.0, 0.0, np.sqrt(0.7737413))
row("random.gamma", lambda x: tf.random.gamma(_shape(x), 3.0, 2.0, dtype=x.dtype, seed=5),
    0.0, np.inf, 1.5, np.sqrt(3.0) / 2)
row("random.poisson", lambda x: tf.random.poisson(_shape(x), 4.0, dtype=x.dtype, seed=6),
    0.0, np.inf, 4.0, 2.0)
row("random.shuffle", lambda x: tf.random.shuffle(tf.range(tf.size(x)), seed=7), 0,
    np.prod(_N) - 1, (np.prod(_N) - 1) / 2, np.sqrt((np.prod(_N) ** 2 - 1) / 12))
row("random.categorical", lambda x: tf.random.categorical(
    tf.math.log([[0.25, 0.75]]), tf.size(x), seed=8), 0, 1, 0.75, np.sqrt(0.75 * 0.25))
row("random.stateless_categorical", lambda x: tf.random.stateless_categorical(
    tf.math.log([[0.25, 0.75]]), tf.size(x), _SEED), 0, 1, 0.75, np.sqrt(0.75 * 0.25))
row("random.stateless_uniform", lambda x: tf.random.stateless_uniform(
    _shape(x), _SEED, -1.0, 1.0, dtype=x.dtype), -1.0, 1.0, 0.0, 2 / np.sqrt(12))
row("random.stateless_uniform/int", lambda x: tf.random.stateless_uniform(
    _shape(x), _SEED, 0, 10, dtype=tf.int32), 0, 9, 4.5, np.sqrt(99 / 12))
row("random.stateless_uniform/full_int", lambda x: tf.cast(tf.random.stateless_uniform(
    _shape(x), _SEED, None, None, dtype=tf.int32), tf.float64) / 2.0 ** 31,
    -1.0, 1.0, 0.0, 1 / np.sqrt(3))
row("random.stateless_normal", lambda x: tf.random.stateless_normal(
    _shape(x), _SEED, dtype=x.dtype), -np.inf, np.inf, 0.0, 1.0)
row("random.stateless_truncated_normal", lambda x: tf.random.stateless_truncated_normal(
    _shape(x), _SEED, dtype=x.dtype), -2.0, 2.0, 0.0, np.sqrt(0.7737413))
row("random.Generator.uniform", lambda x: _GEN.uniform(_shape(x), dtype=x.dtype),
    0.0, 1.0, 0.5, 1 / np.sqrt(12))
row("random.Generator.uniform/int", lambda x: _GEN.uniform(_shape(x), 0, 10, dtype=tf.int32),
    0, 9, 4.5, np.sqrt(99 / 12))
row("random.Generator.uniform_full_int", lambda x: tf.cast(_GEN.uniform_full_int(
    _shape(x), dtype=tf.int32), tf.float64) / 2.0 ** 31, -1.0, 1.0, 0.0, 1 / np.sqrt(3))
row("random.Generator.normal", lambda x: _GEN.normal(_shape(x), dtype=x.dtype),
    -np.inf, np.inf, 0.0, 1.0)
row("random.Generator.truncated_normal", lambda x: _GEN.truncated_normal(
    _shape(x), dtype=x.dtype), -2.0, 2.0, 0.0, np.sqrt(0.7737413))


_SKIP = tf.random.Generator.from_seed(11)


def _skip_draws(x):
  """skip(n) moves the state deterministically: equal draws after equal skips, and a
  draw after a skip differs from the draw without it."""
  draws = []
  for n in (5, 5, 0):
    _SKIP.reset_from_seed(11)
    if n:
      _SKIP.skip(n)
    draws.append(_SKIP.normal(tf.shape(x), dtype=x.dtype))
  return tf.stack([tf.reduce_all(tf.equal(draws[0], draws[1])),
                   tf.reduce_any(tf.not_equal(draws[0], draws[2]))])


case("random.Generator.skip", _skip_draws, lambda x: np.array([True, True]), args([4]),
     F32_64, grad=False)
