"""`and`, `or`, `not` and `a if c else b` in converted code: lazy like Python,
tf.cond / tf.logical_* when the deciding value is a tensor."""
from tensorlet.tensor import Tensor

__all__ = ["and_", "or_", "not_", "if_exp"]


def and_(a_fn, b_fn):
  a = a_fn()
  if isinstance(a, Tensor):
    from tensorlet.graph.control_flow import cond
    from tensorlet.ops.math_ops import logical_and
    from tensorlet.context import ctx
    if ctx.graph is None:
      return logical_and(a, b_fn()) if bool(a) else a
    return cond(a, lambda: _as_bool(b_fn()), lambda: a)
  return a and b_fn()


def or_(a_fn, b_fn):
  a = a_fn()
  if isinstance(a, Tensor):
    from tensorlet.graph.control_flow import cond
    from tensorlet.context import ctx
    if ctx.graph is None:
      return a if bool(a) else _as_bool(b_fn())
    return cond(a, lambda: a, lambda: _as_bool(b_fn()))
  return a or b_fn()


def _as_bool(x):
  from tensorlet.tensor import convert_to_tensor
  from tensorlet import dtypes
  t = convert_to_tensor(x)
  if t.dtype is not dtypes.bool:
    from tensorlet.ops.math_ops import cast
    t = cast(t, dtypes.bool)
  return t


def not_(a):
  if isinstance(a, Tensor):
    from tensorlet.ops.math_ops import logical_not
    return logical_not(_as_bool(a))
  return not a


def if_exp(cond, a_fn, b_fn):
  if isinstance(cond, Tensor):
    from tensorlet.graph.control_flow import cond as tf_cond
    return tf_cond(_as_bool(cond), a_fn, b_fn)
  return a_fn() if cond else b_fn()
