"""Fused optimizer updates: one stateful op per variable and update rule.

Each kernel receives the Variables behind its resource inputs (the variable,
its slots, and the optimizer's `iterations` where the rule needs the step)
and updates their arrays with Keras' formulas. As in state_ops, an array that
no tensor shares (reference count) is written in place; a shared one is
copied first, so tensors read earlier keep their values. Hyperparameters that
never change are attributes; the learning rate is an input (a variable's
handle or a float tensor, e.g. a schedule's value).
"""
import math
import sys

import numpy as np

from tensorlet import dtypes as _dt
from tensorlet.errors import InvalidArgumentError
from tensorlet.ops import _parallel
from tensorlet.ops.registry import REGISTRY, op

__all__ = ["ResourceApplyGradientDescent", "ResourceApplyKerasMomentum", "ResourceApplyKerasAdam",
           "ResourceApplyKerasAdamAmsgrad", "ResourceApplyKerasRMSProp",
           "ResourceApplyKerasAdagrad", "ResourceApplyKerasAdamax", "ResourceApplyKerasNadam",
           "ResourceApplyKerasAdadelta", "ResourceApplyKerasFtrl", "ResourceApplyKerasLion",
           "ResourceSparseApplyRows"]

_getrefcount = sys.getrefcount
_R = frozenset({_dt.resource})


def _no_outputs(inputs, attrs):
  return []


def _update_op(name):
  return op(name, type_inputs=(0,), dtypes=_R, stateful=True, num_outputs=0,
            shape=_no_outputs, differentiable=False)


def _writable(var):
  """The variable's array, safe to write into (copied first when shared)."""
  var._cached = None
  a = var._value
  # NOTE: 3 references = the variable's attribute, `a`, getrefcount's argument.
  if _getrefcount(a) == 3 and type(a) is np.ndarray and a.flags.writeable and a.ndim:
    return a
  a = np.array(a, copy=True)
  var._value = a
  return a


def _done(*pairs):
  """Scalar variables keep NumPy scalars as values (as Variable stores them)."""
  for var, a in pairs:
    if not a.ndim:
      var._value = a[()]


def _grad(name, w, grad):
  g = np.asarray(grad)
  if g.shape != w.shape:
    raise InvalidArgumentError(
        None, None, f"var and grad do not have the same shape {list(w.shape)} "
        f"{list(g.shape)} [Op:{name}]")
  return g


@_update_op("ResourceApplyGradientDescent")
def ResourceApplyGradientDescent(var, alpha, delta):
  """var -= alpha * delta."""
  w = _writable(var)
  g = _grad("ResourceApplyGradientDescent", w, delta)
  w -= np.multiply(g, float(alpha), dtype=w.dtype)
  _done((var, w))
  return ()


@_update_op("ResourceApplyKerasMomentum")
def ResourceApplyKerasMomentum(var, accum, lr, grad, *, momentum, use_nesterov=False):
  """accum = momentum * accum - lr * grad; var += accum (Nesterov: var +=
  momentum * accum - lr * grad)."""
  w, m = _writable(var), _writable(accum)
  g = _grad("ResourceApplyKerasMomentum", w, grad)
  step = np.multiply(g, -float(lr), dtype=w.dtype)
  m *= momentum
  m += step
  if use_nesterov:
    step += m * w.dtype.type(momentum)
    w += step
  else:
    w += m
  _done((var, w), (accum, m))
  return ()


@_update_op("ResourceApplyKerasAdam")
def ResourceApplyKerasAdam(var, m, v, lr, iterations, grad, *, beta_1, beta_2, epsilon):
  """Adam at step t = iterations + 1:
  m += (g - m) * (1 - beta_1); v += (g^2 - v) * (1 - beta_2);
  var -= m * lr * sqrt(1 - beta_2^t) / (1 - beta_1^t) / (sqrt(v) + epsilon)."""
  w, mm, vv = _writable(var), _writable(m), _writable(v)
  g = _grad("ResourceApplyKerasAdam", w, grad)
  t = float(iterations) + 1.0
  alpha = w.dtype.type(float(lr) * math.sqrt(1.0 - beta_2 ** t) / (1.0 - beta_1 ** t))
  b1, b2 = 1.0 - beta_1, 1.0 - beta_2
  if g.size <= _SMALL:  # the same operations in the same order, without the buffers
    mm += (g - mm) * b1
    vv += (np.square(g) - vv) * b2
    w -= mm * alpha / (np.sqrt(vv) + epsilon)
    _done((var, w), (m, mm), (v, vv))
    return ()

  def update(runs):
    d_buf = np.empty(runs[0][0].size, np.result_type(g, mm))
    den_buf = np.empty(runs[0][0].size, w.dtype)
    for gc, mc, vc, wc in runs:
      d, den = d_buf[:gc.size].reshape(gc.shape), den_buf[:gc.size].reshape(gc.shape)
      np.subtract(gc, mc, out=d)
      d *= b1
      mc += d
      np.square(gc, out=d)
      d -= vc
      d *= b2
      vc += d
      np.sqrt(vc, out=den)
      den += epsilon
      np.multiply(mc, alpha, out=d)
      d /= den
      wc -= d
  _parallel_runs(update, _chunks(g, mm, vv, w))
  _done((var, w), (m, mm), (v, vv))
  return ()


# NOTE: a small variable's (a bias's) update costs its ufunc calls: no buffers (12 vs 18
# NumPy calls, 13.1 -> 9.5 us for 128 floats)
_SMALL = 4096

# NOTE: a big variable's update runs in chunks of this many elements so its temporaries
# stay in cache: 6.0 vs 12.8 ms for Adam on 2.8M floats (the MNIST convnet's Dense
# kernel), where whole-array temporaries are fresh pages on every step.
_CHUNK = 1 << 16


# runs per piece handed to a thread (a piece of 4 runs of Adam: ~0.5 ms)
_RUNS_PER_PIECE = 4


def _parallel_runs(update, runs):
  """update(runs) over all runs: serially, or for a big variable in pieces of
  _RUNS_PER_PIECE runs on _parallel's threads (runs are disjoint views)."""
  if len(runs) < 2 * _RUNS_PER_PIECE:
    update(runs)
    return
  pieces = [runs[i:i + _RUNS_PER_PIECE] for i in range(0, len(runs), _RUNS_PER_PIECE)]
  _parallel.run(lambda i: update(pieces[i]), len(pieces))


def _chunks(grad, *arrays):
  """Tuples of matching cache-sized runs of the flattened grad and arrays (written in
  place, so they must be views: whole arrays when any is not C-contiguous)."""
  size = grad.size
  if size <= _CHUNK or not all(a.flags.c_contiguous for a in arrays):
    return [(grad, *arrays)]
  flat = [grad.reshape(-1)] + [a.reshape(-1) for a in arrays]
  return [tuple(a[i:i + _CHUNK] for a in flat) for i in range(0, size, _CHUNK)]


@_update_op("ResourceApplyKerasAdamAmsgrad")
def ResourceApplyKerasAdamAmsgrad(var, m, v, vhat, lr, iterations, grad, *, beta_1, beta_2,
                                  epsilon):
  """Adam with AMSGrad: the denominator uses vhat = max(vhat, v)."""
  w, mm, vv, vh = _writable(var), _writable(m), _writable(v), _writable(vhat)
  g = _grad("ResourceApplyKerasAdamAmsgrad", w, grad)
  t = float(iterations) + 1.0
  alpha = float(lr) * math.sqrt(1.0 - beta_2 ** t) / (1.0 - beta_1 ** t)
  mm += (g - mm) * w.dtype.type(1.0 - beta_1)
  vv += (np.square(g) - vv) * w.dtype.type(1.0 - beta_2)
  np.maximum(vh, vv, out=vh)
  w -= mm * w.dtype.type(alpha) / (np.sqrt(vh) + w.dtype.type(epsilon))
  _done((var, w), (m, mm), (v, vv), (vhat, vh))
  return ()


@_update_op("ResourceApplyKerasRMSProp")
def ResourceApplyKerasRMSProp(var, ms, lr, grad, *slots, rho, momentum, epsilon, centered,
                              epsilon_outside=False):
  """ms = rho * ms + (1 - rho) * g^2; with `centered` (slot mg) the denominator
  subtracts mg^2 where mg = rho * mg + (1 - rho) * g; increment = lr * g /
  sqrt(denominator + epsilon) (lr * g / (sqrt(denominator) + epsilon) with
  `epsilon_outside`, the legacy rule without momentum); with momentum (slot mom):
  mom = momentum * mom + increment, var -= mom; else var -= increment. `slots`:
  [mom] then [mg]."""
  w, s = _writable(var), _writable(ms)
  g = _grad("ResourceApplyKerasRMSProp", w, grad)
  f = w.dtype.type
  s *= f(rho)
  s += f(1.0 - rho) * np.square(g)
  pairs = [(var, w), (ms, s)]
  if centered:
    mg = slots[-1]
    a = _writable(mg)
    a *= f(rho)
    a += f(1.0 - rho) * g
    den = s - np.square(a)
    pairs.append((mg, a))
  else:
    den = s.copy()
  if epsilon_outside:
    den = np.sqrt(den)
    den += f(epsilon)
  else:
    den += f(epsilon)
    np.sqrt(den, out=den)
  inc = np.multiply(g, f(float(lr)))
  inc /= den
  if momentum > 0:
    mom = slots[0]
    b = _writable(mom)
    b *= f(momentum)
    b += inc
    w -= b
    pairs.append((mom, b))
  else:
    w -= inc
  _done(*pairs)
  return ()


@_update_op("ResourceApplyKerasAdagrad")
def ResourceApplyKerasAdagrad(var, accum, lr, grad, *, epsilon, epsilon_outside=False):
  """accum += g^2; var -= lr * g / sqrt(accum + epsilon) (lr * g / (sqrt(accum) +
  epsilon) with `epsilon_outside`, the legacy rule)."""
  w, a = _writable(var), _writable(accum)
  g = _grad("ResourceApplyKerasAdagrad", w, grad)
  a += np.square(g)
  if epsilon_outside:
    den = np.sqrt(a)
    den += w.dtype.type(epsilon)
  else:
    den = a + w.dtype.type(epsilon)
    np.sqrt(den, out=den)
  d = np.multiply(g, w.dtype.type(float(lr)))
  d /= den
  w -= d
  _done((var, w), (accum, a))
  return ()


@_update_op("ResourceApplyKerasAdamax")
def ResourceApplyKerasAdamax(var, m, u, lr, iterations, grad, *, beta_1, beta_2, epsilon):
  """Adamax at step t = iterations + 1: m += (g - m)(1 - beta_1); u = max(beta_2 u, |g|);
  var -= lr m / ((1 - beta_1^t)(u + epsilon))."""
  w, mm, uu = _writable(var), _writable(m), _writable(u)
  g = _grad("ResourceApplyKerasAdamax", w, grad)
  f = w.dtype.type
  t = float(iterations) + 1.0
  mm += (g - mm) * f(1.0 - beta_1)
  uu *= f(beta_2)
  np.maximum(uu, np.abs(g), out=uu)
  w -= mm * f(float(lr)) / (f(1.0 - beta_1 ** t) * (uu + f(epsilon)))
  _done((var, w), (m, mm), (u, uu))
  return ()


@_update_op("ResourceApplyKerasNadam")
def ResourceApplyKerasNadam(var, m, v, lr, iterations, u_product, grad, *, beta_1, beta_2,
                            epsilon, schedule_scale=1.0):
  """Nadam at step t = iterations + 1 with momentum schedule u_s = beta_1 (1 - 0.96^s / 2)
  (0.96^(schedule_scale s) for the legacy optimizer) and `u_product` = u_1 ... u_t: m, v
  as Adam; var -= lr m_hat / (sqrt(v_hat) + epsilon)
  with m_hat = u_{t+1} m / (1 - u_product u_{t+1}) + (1 - u_t) g / (1 - u_product) and
  v_hat = v / (1 - beta_2^t)."""
  w, mm, vv = _writable(var), _writable(m), _writable(v)
  g = _grad("ResourceApplyKerasNadam", w, grad)
  f = w.dtype.type
  t = float(iterations) + 1.0
  u_t = beta_1 * (1.0 - 0.5 * 0.96 ** (schedule_scale * t))
  u_t1 = beta_1 * (1.0 - 0.5 * 0.96 ** (schedule_scale * (t + 1.0)))
  prod = float(u_product)
  mm += (g - mm) * f(1.0 - beta_1)
  vv += (np.square(g) - vv) * f(1.0 - beta_2)
  m_hat = mm * f(u_t1 / (1.0 - prod * u_t1)) + g * f((1.0 - u_t) / (1.0 - prod))
  den = np.sqrt(vv / f(1.0 - beta_2 ** t))
  den += f(epsilon)
  m_hat *= f(float(lr))
  m_hat /= den
  w -= m_hat
  _done((var, w), (m, mm), (v, vv))
  return ()


@_update_op("ResourceApplyKerasAdadelta")
def ResourceApplyKerasAdadelta(var, accum_grad, accum_delta, lr, grad, *, rho, epsilon):
  """accum_grad = rho accum_grad + (1 - rho) g^2; delta = -sqrt(accum_delta + eps) g /
  sqrt(accum_grad + eps); accum_delta = rho accum_delta + (1 - rho) delta^2; var += lr
  delta."""
  w, ag, ad = _writable(var), _writable(accum_grad), _writable(accum_delta)
  g = _grad("ResourceApplyKerasAdadelta", w, grad)
  f = w.dtype.type
  t = np.square(g)
  t *= f(1.0 - rho)
  ag *= f(rho)
  ag += t
  delta = ad + f(epsilon)
  np.sqrt(delta, out=delta)
  np.add(ag, f(epsilon), out=t)
  np.sqrt(t, out=t)
  delta /= t
  delta *= g  # -delta of the docstring
  np.square(delta, out=t)
  t *= f(1.0 - rho)
  ad *= f(rho)
  ad += t
  delta *= f(float(lr))
  w -= delta
  _done((var, w), (accum_grad, ag), (accum_delta, ad))
  return ()


@_update_op("ResourceApplyKerasFtrl")
def ResourceApplyKerasFtrl(var, accum, linear, lr, grad, *, lr_power, l1, l2, l2_shrinkage,
                           beta):
  """FTRL-proximal as Keras 2 writes it: n' = n + g^2; z += g + 2 l2_shrinkage var -
  (n'^-p - n^-p) / lr var; var = (clip(z, -l1, l1) - z) / (n'^-p / lr + 2 (l2 + beta /
  (2 lr))); n = n'."""
  w, n, z = _writable(var), _writable(accum), _writable(linear)
  g = _grad("ResourceApplyKerasFtrl", w, grad)
  f = w.dtype.type
  lr = float(lr)
  l2 = l2 + beta / (2.0 * lr)

  def power(a):  # a^-lr_power; a square root for the default -0.5
    return np.sqrt(a) if lr_power == -0.5 else a ** f(-lr_power)
  old_p = power(n)
  n += np.square(g)
  new_p = power(n)
  old_p -= new_p
  old_p *= f(1.0 / lr)
  old_p *= w  # -(n'^-p - n^-p) / lr * var
  old_p += g
  if l2_shrinkage:
    old_p += f(2.0 * l2_shrinkage) * w
  z += old_p
  new_p *= f(1.0 / lr)
  new_p += f(2.0 * l2)
  np.clip(z, -l1, l1, out=w)
  w -= z
  w /= new_p
  _done((var, w), (accum, n), (linear, z))
  return ()


@_update_op("ResourceApplyKerasLion")
def ResourceApplyKerasLion(var, m, lr, grad, *, beta_1, beta_2):
  """var -= lr sign(beta_1 m + (1 - beta_1) g); m = beta_2 m + (1 - beta_2) g."""
  w, mm = _writable(var), _writable(m)
  g = _grad("ResourceApplyKerasLion", w, grad)
  f = w.dtype.type
  w -= f(float(lr)) * np.sign(mm * f(beta_1) + g * f(1.0 - beta_1))
  mm *= f(beta_2)
  mm += g * f(1.0 - beta_2)
  _done((var, w), (m, mm))
  return ()


# --------------------------------------------- sparse updates (Keras 2 legacy rules)

class _Rows:
  """Some rows of a variable (or slot), standing in for it in a dense kernel."""

  __slots__ = ("_value", "_cached")

  def __init__(self, value):
    self._value = value
    self._cached = None


def _sparse_rows_kernel(*inputs, dense, dense_attrs, sliced, var_rows_only):
  """The update of the op named `dense` (one above) applied to the rows `indices` (the last
  input, unique) of the variable and slots at input positions `sliced`, the gradient
  input holding only those rows: TF's ResourceSparseApply* ops. With `var_rows_only`
  the slots take the whole dense step (the gradient input is dense) and only the
  variable's other rows are kept (Keras 2's legacy Nadam)."""
  *args, indices = inputs
  dense = REGISTRY[dense]
  idx = np.asarray(indices).reshape(-1)
  var = args[0]
  n = np.shape(var._value)[0] if np.ndim(var._value) else 0
  bad = (idx < 0) | (idx >= n)
  if bad.any():
    k = int(np.argmax(bad))
    raise InvalidArgumentError(None, None, f"indices[{k}] = {idx[k]} is not in [0, {n}) "
                               f"[Op:ResourceSparseApplyRows]")
  if var_rows_only:
    old = np.array(var._value, copy=True)
    dense.kernel(*args, **dense_attrs)
    keep = np.ones(n, bool)
    keep[idx] = False
    w = _writable(var)
    w[keep] = old[keep]
    return ()
  full = {}
  for p in sliced:
    full[p] = args[p]
    args[p] = _Rows(np.take(args[p]._value, idx, axis=0))
  dense.kernel(*args, **dense_attrs)
  for p, v in full.items():
    _writable(v)[idx] = args[p]._value
  return ()


ResourceSparseApplyRows = _update_op("ResourceSparseApplyRows")(_sparse_rows_kernel)
