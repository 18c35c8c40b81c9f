"""tf.math: the public math namespace (re-exports only)."""
from tensorlet.ops.array_ops import top_k  # noqa: F401
from tensorlet.ops.sparse_ops import bincount  # noqa: F401
from tensorlet.ops.math_ops import (  # noqa: F401
    abs, acos, acosh, add, add_n, argmax, argmin, asin, asinh, atan, atan2, atanh,
    cast, ceil, conj, cos, cosh, count_nonzero, cumprod, cumsum, div_no_nan, divide, equal,
    erf, erfc, exp, expm1, floor, floordiv, floormod, greater, greater_equal, imag, is_finite,
    is_inf, is_nan, l2_normalize, less, less_equal, log, log1p, log_sigmoid, logical_and,
    logical_not, logical_or, logical_xor, maximum, minimum, mod, multiply, negative, not_equal,
    polyval, pow, real, realdiv, reciprocal, reduce_all, reduce_any, reduce_euclidean_norm,
    reduce_logsumexp, reduce_max, reduce_mean, reduce_min, reduce_prod, reduce_std,
    reduce_sum, reduce_variance, round, rsqrt, saturate_cast, scalar_mul, sigmoid, sign, sin,
    sinh, softplus, sqrt, square, squared_difference, subtract, tan, tanh, truediv,
    truncatediv, xlogy)
from tensorlet.ops.math_ops import complex  # noqa: F401,A004
from tensorlet.ops.math_ops import (  # noqa: F401
    angle, confusion_matrix, is_non_decreasing, is_strictly_increasing, multiply_no_nan,
    reciprocal_no_nan, rint, segment_max, segment_mean, segment_min, segment_prod, segment_sum,
    truncatemod, unsorted_segment_max, unsorted_segment_mean, unsorted_segment_min,
    unsorted_segment_prod, unsorted_segment_sum, zero_fraction)

divide_no_nan = div_no_nan


def softmax(logits, axis=None, name=None):
  from tensorlet.ops import nn_ops
  return nn_ops.softmax(logits, axis=-1 if axis is None else axis, name=name)


def log_softmax(logits, axis=None, name=None):
  from tensorlet.ops import nn_ops
  return nn_ops.log_softmax(logits, axis=-1 if axis is None else axis, name=name)


def in_top_k(targets, predictions, k, name=None):
  from tensorlet.ops import array_ops, math_ops
  preds = predictions
  t = array_ops.gather(preds, targets, batch_dims=1)
  greater_count = math_ops.reduce_sum(
      math_ops.cast(math_ops.greater(preds, array_ops.expand_dims(t, -1)), "int32"), axis=-1)
  return math_ops.less(greater_count, k)


def unsorted_segment_sqrt_n(data, segment_ids, num_segments, name=None):
  """Sum of each segment's rows divided by sqrt(its row count); 0 for empty segments."""
  from tensorlet.ops import array_ops, math_ops
  from tensorlet.tensor import convert_to_tensor
  x, ids = convert_to_tensor(data), convert_to_tensor(segment_ids)
  s = math_ops.unsorted_segment_sum(x, ids, num_segments)
  c = math_ops.unsorted_segment_sum(array_ops.ones_like(ids, x.dtype), ids, num_segments)
  c = array_ops.reshape(math_ops.maximum(c, array_ops.ones_like(c)), array_ops.concat(
      [array_ops.shape(c), array_ops.ones([array_ops.rank(s) - 1], "int32")], 0))
  return s / math_ops.sqrt(c)


from tensorlet.ops import dispatch as _dispatch  # noqa: E402
_dispatch.install(globals(), "math")


from tensorlet._unsupported import getattr_for as _getattr_for  # noqa: E402
__getattr__ = _getattr_for("tf.math", __name__)
