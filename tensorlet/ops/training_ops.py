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
from tensorlet.ops.registry import op

__all__ = ["ResourceApplyGradientDescent", "ResourceApplyKerasMomentum", "ResourceApplyKerasAdam",
           "ResourceApplyKerasAdamAmsgrad", "ResourceApplyKerasRMSProp",
           "ResourceApplyKerasAdagrad"]

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
  alpha = float(lr) * math.sqrt(1.0 - beta_2 ** t) / (1.0 - beta_1 ** t)
  d = g - mm
  d *= 1.0 - beta_1
  mm += d
  d = np.square(g)
  d -= vv
  d *= 1.0 - beta_2
  vv += d
  den = np.sqrt(vv)
  den += epsilon
  d = mm * w.dtype.type(alpha)
  d /= den
  w -= d
  _done((var, w), (m, mm), (v, vv))
  return ()


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
def ResourceApplyKerasRMSProp(var, ms, lr, grad, *slots, rho, momentum, epsilon, centered):
  """ms = rho * ms + (1 - rho) * g^2; with `centered` (slot mg) the denominator
  subtracts mg^2 where mg = rho * mg + (1 - rho) * g; increment = lr * g /
  sqrt(denominator + epsilon); with momentum (slot mom): mom = momentum * mom +
  increment, var -= mom; else var -= increment. `slots`: [mom] then [mg]."""
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
  den += f(epsilon)
  inc = np.multiply(g, f(float(lr)))
  inc /= np.sqrt(den)
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
def ResourceApplyKerasAdagrad(var, accum, lr, grad, *, epsilon):
  """accum += g^2; var -= lr * g / sqrt(accum + epsilon)."""
  w, a = _writable(var), _writable(accum)
  g = _grad("ResourceApplyKerasAdagrad", w, grad)
  a += np.square(g)
  den = a + w.dtype.type(epsilon)
  np.sqrt(den, out=den)
  d = np.multiply(g, w.dtype.type(float(lr)))
  d /= den
  w -= d
  _done((var, w), (accum, a))
  return ()
