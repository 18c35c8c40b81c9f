"""Op-table rows of the fused optimizer update ops (tensorlet/ops/training_ops.py):
one update from a fixed variable and slot state (reset on every call, so eager and
traced calls start alike) against Keras 2's update rules written in NumPy. The row
returns the updated variable and slots."""
import numpy as np
from op_table import F32_64, args, case

import tensorlet as tf
from tensorlet.ops import training_ops as T
from tensorlet.ops.registry import execute

_LR, _T0, _P = 0.1, 2, 0.45  # learning rate, iterations before the step, Nadam's u_product
_STATE = {}


def _initial(dt, n):
  w = np.linspace(-1.0, 1.5, 6).reshape(2, 3).astype(dt)
  slots = [np.linspace(0.1 + 0.2 * i, 0.6 + 0.2 * i, 6).reshape(2, 3).astype(dt)
           for i in range(n)]
  return w, slots


def _apply(name, n_slots, attrs, iters=False, uprod=False, trailing=0):
  od = getattr(T, name)

  def fn(g):
    key = (name, n_slots, g.dtype)
    if key not in _STATE:  # made on the first (eager) call; traces reuse them
      w0, s0 = _initial(g.dtype.as_numpy_dtype, n_slots)
      _STATE[key] = ([tf.Variable(w0)] + [tf.Variable(s) for s in s0],
                     tf.Variable(_T0, dtype=tf.int64))
    vs, it = _STATE[key]
    w0, s0 = _initial(g.dtype.as_numpy_dtype, n_slots)
    for v, x in zip(vs, [w0] + s0):
      v.assign(x)
    it.assign(_T0)
    handles = [v.handle for v in vs]
    lead, tail = handles[:len(handles) - trailing], handles[len(handles) - trailing:]
    inputs = lead + [tf.constant(_LR, g.dtype)]
    inputs += [it.handle] if iters else []
    inputs += [tf.constant(_P, g.dtype)] if uprod else []
    execute(od, inputs + [g] + tail, attrs)
    return [v.read_value() for v in vs]
  return fn


def row(name, n_slots, attrs, ref, iters=False, uprod=False, suffix="", trailing=0):
  def reference(g):
    w, slots = _initial(g.dtype, n_slots)
    w, slots = w.astype(np.float64), [s.astype(np.float64) for s in slots]
    return [np.asarray(a).astype(g.dtype) for a in ref(w, *slots, g.astype(np.float64))]
  case(f"training.{name}{suffix}", _apply(name, n_slots, attrs, iters, uprod, trailing), reference,
       args([2, 3]), F32_64, grad=False, rtol=1e-5, atol=1e-6)


_t = _T0 + 1
b1, b2, eps = 0.9, 0.999, 1e-7
row("ResourceApplyGradientDescent", 0, {}, lambda w, g: [w - _LR * g])
row("ResourceApplyKerasMomentum", 1, {"momentum": 0.9, "use_nesterov": False},
    lambda w, m, g: [w + (0.9 * m - _LR * g), 0.9 * m - _LR * g])
row("ResourceApplyKerasMomentum", 1, {"momentum": 0.9, "use_nesterov": True},
    lambda w, m, g: [w + 0.9 * (0.9 * m - _LR * g) - _LR * g, 0.9 * m - _LR * g],
    suffix="/nesterov")


def _adam(w, m, v, g, vhat=None):
  m = m + (g - m) * (1 - b1)
  v = v + (g * g - v) * (1 - b2)
  alpha = _LR * np.sqrt(1 - b2 ** _t) / (1 - b1 ** _t)
  if vhat is None:
    return [w - alpha * m / (np.sqrt(v) + eps), m, v]
  vhat = np.maximum(vhat, v)
  return [w - alpha * m / (np.sqrt(vhat) + eps), m, v, vhat]


_ADAM = {"beta_1": b1, "beta_2": b2, "epsilon": eps}
row("ResourceApplyKerasAdam", 2, _ADAM, _adam, iters=True)
row("ResourceApplyKerasAdamAmsgrad", 3, _ADAM, lambda w, m, v, vh, g: _adam(w, m, v, g, vh),
    iters=True)


def _rmsprop(w, ms, g):
  ms = 0.9 * ms + 0.1 * g * g
  return [w - _LR * g / np.sqrt(ms + eps), ms]


def _rmsprop_centered_momentum(w, ms, mom, mg, g):
  ms = 0.9 * ms + 0.1 * g * g
  mg = 0.9 * mg + 0.1 * g
  mom = 0.5 * mom + _LR * g / np.sqrt(ms - mg * mg + eps)
  return [w - mom, ms, mom, mg]


row("ResourceApplyKerasRMSProp", 1, {"rho": 0.9, "momentum": 0.0, "epsilon": eps,
                                     "centered": False}, _rmsprop)
row("ResourceApplyKerasRMSProp", 3, {"rho": 0.9, "momentum": 0.5, "epsilon": eps,
                                     "centered": True}, _rmsprop_centered_momentum,
    suffix="/centered_momentum", trailing=2)  # RMSProp's optional slots follow the gradient
row("ResourceApplyKerasAdagrad", 1, {"epsilon": eps},
    lambda w, a, g: [w - _LR * g / np.sqrt(a + g * g + eps), a + g * g])


def _adamax(w, m, u, g):
  m = m + (g - m) * (1 - b1)
  u = np.maximum(b2 * u, np.abs(g))
  return [w - _LR * m / ((1 - b1 ** _t) * (u + eps)), m, u]


row("ResourceApplyKerasAdamax", 2, _ADAM, _adamax, iters=True)


def _nadam(w, m, v, g):
  u_t = b1 * (1 - 0.5 * 0.96 ** _t)
  u_t1 = b1 * (1 - 0.5 * 0.96 ** (_t + 1))
  m = m + (g - m) * (1 - b1)
  v = v + (g * g - v) * (1 - b2)
  m_hat = u_t1 * m / (1 - _P * u_t1) + (1 - u_t) * g / (1 - _P)
  v_hat = v / (1 - b2 ** _t)
  return [w - _LR * m_hat / (np.sqrt(v_hat) + eps), m, v]


row("ResourceApplyKerasNadam", 2, _ADAM, _nadam, iters=True, uprod=True)


def _adadelta(w, ag, ad, g):
  ag = 0.95 * ag + 0.05 * g * g
  delta = np.sqrt(ad + eps) / np.sqrt(ag + eps) * g
  ad = 0.95 * ad + 0.05 * delta * delta
  return [w - _LR * delta, ag, ad]


row("ResourceApplyKerasAdadelta", 2, {"rho": 0.95, "epsilon": eps}, _adadelta)


def _ftrl(w, n, z, g, l1=0.05, l2=0.02):
  n_new = n + g * g
  z = z + g - (np.sqrt(n_new) - np.sqrt(n)) / _LR * w
  quadratic = np.sqrt(n_new) / _LR + 2 * l2
  return [(np.clip(z, -l1, l1) - z) / quadratic, n_new, z]


row("ResourceApplyKerasFtrl", 2, {"lr_power": -0.5, "l1": 0.05, "l2": 0.02,
                                  "l2_shrinkage": 0.0, "beta": 0.0}, _ftrl)


def _lion(w, m, g):
  return [w - _LR * np.sign(0.9 * m + 0.1 * g), 0.99 * m + 0.01 * g]


row("ResourceApplyKerasLion", 1, {"beta_1": 0.9, "beta_2": 0.99}, _lion)
