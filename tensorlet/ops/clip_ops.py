"""Clipping (tf.clip_by_value, tf.clip_by_norm, tf.clip_by_global_norm, tf.linalg.global_norm).

All compositions written as TF writes them, so values and gradients match
TF's at the boundaries: clip_by_value passes the gradient where
lo <= t <= hi, and clip_by_norm guards the zero norm with a two-tap `where`.
"""
import collections.abc

from tensorlet.ops._common import name_scoped
from tensorlet.ops import array_ops as _a
from tensorlet.ops import math_ops as _m
from tensorlet.indexed_slices import IndexedSlices
from tensorlet.ops.nn_ops import l2_loss
from tensorlet.tensor import convert_to_tensor


# NOTE: as TF, an IndexedSlices is clipped through its values (a row named twice counts
# twice in a norm) and stays an IndexedSlices.
def _values(t):
  return convert_to_tensor(t.values if isinstance(t, IndexedSlices) else t)


def _like(t, values):
  return IndexedSlices(values, t.indices, t.dense_shape) if isinstance(t, IndexedSlices) \
      else values


def _keep_shape(values, result):
  """TF refuses clip arguments that would broadcast `t` to a larger shape."""
  values.shape.assert_is_compatible_with(result.shape)
  return result


@name_scoped
def clip_by_value(t, clip_value_min, clip_value_max, name=None):
  """Clips `t` elementwise to [clip_value_min, clip_value_max].

  Raises:
    ValueError: when the bounds would broadcast `t` to another shape.

  >>> tf.clip_by_value([-1., 0.5, 2.], 0., 1.).numpy()
  array([0. , 0.5, 1. ], dtype=float32)
  """
  values = _values(t)
  t_min = _keep_shape(values, _m.minimum(values, clip_value_max))
  return _like(t, _keep_shape(values, _m.maximum(t_min, clip_value_min)))


@name_scoped
def clip_by_norm(t, clip_norm, axes=None, name=None):
  """Scales `t` so that its L2 norm over `axes` is at most `clip_norm`.

  t * clip_norm / max(l2norm(t), clip_norm), with a zero norm left alone.
  """
  values = _values(t)
  l2sum = _m.reduce_sum(values * values, axis=axes, keepdims=True)
  pred = _m.greater(l2sum, 0)
  # NOTE: two-tap where: sqrt's gradient at 0 would be inf and poison the sum.
  l2sum_safe = _a.where(pred, l2sum, _a.ones_like(l2sum))
  l2norm = _a.where(pred, _m.sqrt(l2sum_safe), l2sum)
  intermediate = _keep_shape(values, values * clip_norm)
  return _like(t, intermediate / _m.maximum(l2norm, clip_norm))


def _tensor_list(t_list):
  if not isinstance(t_list, collections.abc.Sequence) or isinstance(t_list, str):
    raise TypeError(f"`t_list` should be a sequence of tensors. Received {type(t_list)}.")
  return [None if t is None else _values(t) for t in t_list]


@name_scoped
def global_norm(t_list, name=None):
  """sqrt(sum of squares of every element of every tensor in `t_list`); None entries skip."""
  values = [v for v in _tensor_list(t_list) if v is not None]
  if not values:
    raise ValueError("`t_list` must contain at least one tensor")
  half_squared_norm = _m.reduce_sum(_a.stack([l2_loss(v) for v in values]))
  return _m.sqrt(half_squared_norm * 2.0)


@name_scoped
def clip_by_global_norm(t_list, clip_norm, use_norm=None, name=None):
  """Scales every tensor by clip_norm / max(global_norm, clip_norm).

  Returns:
    (list of clipped tensors (None stays None), the global norm used). An
    infinite or NaN norm makes every clipped value NaN, as in TF.
  """
  values = _tensor_list(t_list)
  if use_norm is None:
    use_norm = global_norm(values)
  use_norm = convert_to_tensor(use_norm)
  one = _a.ones_like(use_norm)
  scale_for_finite = _m.minimum(one / use_norm, one / clip_norm) * clip_norm
  # NOTE: adds 0 for a finite norm and NaN for inf/NaN (then everything is NaN, as in TF).
  scale = scale_for_finite + (use_norm - use_norm)
  clipped = [None if v is None else _like(t, v * _m.cast(scale, v.dtype))
             for t, v in zip(t_list, values)]
  return clipped, use_norm


__all__ = ["clip_by_value", "clip_by_norm", "clip_by_global_norm", "global_norm"]
