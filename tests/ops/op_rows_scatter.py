"""Op-table rows of the sparse variable updates: the ResourceScatter* ops behind
Variable.scatter_* (rows named twice take both updates, in order) and
ResourceSparseApplyRows (a fused optimizer update on some rows). Each row starts from
a fixed variable state (reset on every call, so eager and traced calls start alike)
and returns the updated variable; the references are NumPy loops."""
import numpy as np
from op_table import F32_64, args, case

import tensorlet as tf
from tensorlet.ops import state_ops as S
from tensorlet.ops import training_ops as T
from tensorlet.ops.registry import execute

_IDX = np.array([2, 0, 2])
_STATE = {}


def _start(dt):
  return (np.arange(12).reshape(4, 3) / 4.0 + 1.0).astype(dt)


def _variables(key, dt, n):
  if key not in _STATE:  # made on the first (eager) call; traces reuse them
    _STATE[key] = [tf.Variable(_start(dt) + i) for i in range(n)]
  vs = _STATE[key]
  for i, v in enumerate(vs):
    v.assign(_start(dt) + i)
  return vs


def _scatter_row(name, combine):
  od = getattr(S, name)

  def fn(u):
    (v,) = _variables((name, u.dtype), u.dtype.as_numpy_dtype, 1)
    execute(od, [v.handle, tf.constant(_IDX), u], {})
    return v.read_value()

  def ref(u):
    w = _start(u.dtype)
    for k, i in enumerate(_IDX):
      w[i] = combine(w[i], u[k])
    return w
  case(f"state.{name}", fn, ref, args([3, 3], lo=0.5, hi=2.0), F32_64, grad=False)


_scatter_row("ResourceScatterUpdate", lambda a, b: b)
_scatter_row("ResourceScatterAdd", np.add)
_scatter_row("ResourceScatterSub", np.subtract)
_scatter_row("ResourceScatterMul", np.multiply)
_scatter_row("ResourceScatterDiv", np.divide)
_scatter_row("ResourceScatterMax", np.maximum)
_scatter_row("ResourceScatterMin", np.minimum)

_ROWS = np.array([3, 1])
_LR, _MOM = 0.1, 0.9


def _momentum(var_rows_only):
  """Keras momentum (m = 0.9 m - 0.1 g; var += m) on rows 3 and 1 of the variable and of
  m, the gradient holding those rows; with `var_rows_only` (legacy Nadam's way) m takes
  the dense step and the gradient is dense."""
  def fn(g):
    v, m = _variables(("rows", var_rows_only, g.dtype), g.dtype.as_numpy_dtype, 2)
    execute(T.ResourceSparseApplyRows,
            [v.handle, m.handle, tf.constant(_LR, g.dtype), g, tf.constant(_ROWS)],
            {"dense": "ResourceApplyKerasMomentum",
             "dense_attrs": {"momentum": _MOM, "use_nesterov": False}, "sliced": (0, 1),
             "var_rows_only": var_rows_only})
    return [v.read_value(), m.read_value()]

  def ref(g):
    w, m = _start(g.dtype), _start(g.dtype) + 1
    if var_rows_only:
      m = _MOM * m - _LR * g
    else:
      m[_ROWS] = _MOM * m[_ROWS] - _LR * g
    w[_ROWS] += m[_ROWS]
    return [w, m]
  return fn, ref


case("training.ResourceSparseApplyRows", *_momentum(False), args([2, 3]), F32_64, grad=False,
     rtol=1e-5, atol=1e-6)
case("training.ResourceSparseApplyRows/var_rows", *_momentum(True), args([4, 3]), F32_64,
     grad=False, rtol=1e-5, atol=1e-6)
