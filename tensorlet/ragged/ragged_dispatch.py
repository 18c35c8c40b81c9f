"""The public functions that apply to a RaggedTensor's flat values (tf.strings.lower,
tf.clip_by_value, tf.one_hot, ...), or along its rows (tf.nn.softmax,
tf.strings.reduce_join, tf.math.reduce_variance, ...), as TF's ragged dispatch.

Every public function is wrapped by ops/dispatch.py; when one fails on a ragged
argument, the handler registered here looks its API name up in the tables
below, so no function needs a registration of its own.
"""
from tensorlet import dtypes as _dt
from tensorlet.errors import InvalidArgumentError
from tensorlet.ops import array_ops as A
from tensorlet.ops import dispatch
from tensorlet.ops import math_ops as M
from tensorlet.ragged.ragged_math import _same_splits, reduce as ragged_reduce
from tensorlet.ragged.ragged_tensor import RaggedTensor

__all__ = []

# Functions of one ragged input whose result is the function of its flat values (the
# other arguments are not ragged).
_FLAT = frozenset([
    "strings.length", "strings.lower", "strings.upper", "strings.substr", "strings.strip",
    "strings.regex_full_match", "strings.regex_replace", "strings.to_number",
    "strings.as_string", "as_string", "dtypes.as_string", "strings.to_hash_bucket",
    "strings.to_hash_bucket_fast", "strings.to_hash_bucket_strong", "strings.unicode_script",
    "clip_by_value", "identity", "one_hot", "nn.relu", "nn.relu6", "nn.elu", "nn.selu",
    "nn.gelu", "nn.leaky_relu", "nn.silu", "nn.swish", "math.sigmoid", "nn.sigmoid",
    "math.tanh", "math.softplus", "nn.softplus", "math.softsign", "nn.softsign",
    "math.is_finite", "math.is_inf", "math.is_nan", "math.reciprocal_no_nan",
    "math.scalar_mul", "math.divide_no_nan", "math.xdivy", "math.xlogy",
    "math.squared_difference", "bitcast", "math.saturate_cast", "dtypes.saturate_cast",
])


def _flat(api, args, kwargs):
  first = args[0] if args else next(iter(kwargs.values()))
  rts = [a for a in list(args) + list(kwargs.values()) if isinstance(a, RaggedTensor)]
  for r in rts[1:]:
    _same_splits(first, r)

  def f(a):
    return a.flat_values if isinstance(a, RaggedTensor) else a
  raw = getattr(api, "_tl_dispatch", api)
  return first.with_flat_values(raw(*[f(a) for a in args],
                                    **{k: f(v) for k, v in kwargs.items()}))


def _add_n(inputs, name=None):
  inputs = list(inputs)
  out = inputs[0]
  for x in inputs[1:]:
    out = M.add(out, x)
  return out


def _innermost(rt):
  """The ragged level whose values are the flat values."""
  while isinstance(rt.values, RaggedTensor):
    rt = rt.values
  return rt


def _softmax():
  # NOTE: TF dispatches tf.nn.softmax on ragged values, not log_softmax
  def impl(logits, axis=None, name=None):
    rt = logits
    rank = rt.shape.rank
    axis = -1 if axis is None else int(axis)
    if axis not in (-1, rank - 1):
      raise InvalidArgumentError(None, None, f"softmax of a RaggedTensor is over its last "
                                 f"axis (-1) only, got axis={axis}")
    flat = rt.flat_values
    if flat.shape.rank != 1:  # the last axis is uniform
      from tensorlet.ops import nn_ops
      return rt.with_flat_values(nn_ops.softmax(flat))
    inner = _innermost(rt)
    ids, n = inner.value_rowids(), inner.nrows()
    shifted = M.subtract(flat, A.gather(M.unsorted_segment_max(flat, ids, n), ids))
    total = A.gather(M.unsorted_segment_sum(M.exp(shifted), ids, n), ids)
    return rt.with_flat_values(M.truediv(M.exp(shifted), total))
  return impl


def _variance(std):
  def impl(input_tensor, axis=None, keepdims=False, name=None):
    rt = input_tensor
    if rt.dtype.is_integer:  # float64 moments, as TF's ragged mean
      rt = M.cast(rt, _dt.float64)
    # NOTE: E[x^2] - E[x]^2 in the values' dtype, as TF's ragged variance computes it
    # (so the digits lost to cancellation are the same); rounding below zero is clipped
    mean = ragged_reduce("reduce_mean", rt, axis, keepdims)
    sq = ragged_reduce("reduce_mean", M.square(rt), axis, keepdims)
    var = M.maximum(M.subtract(sq, M.square(mean)), M.cast(0, rt.dtype))
    return M.sqrt(var) if std else var
  return impl


def _logsumexp(input_tensor, axis=None, keepdims=False, name=None):
  rt = input_tensor
  flat = rt.flat_values
  rank = rt.shape.rank
  ax = None if axis is None else (int(axis) + rank if int(axis) < 0 else int(axis))
  if ax == rt.ragged_rank and flat.shape.rank == 1:
    # over each innermost row: shifted by the row's own maximum, as TF's
    inner = _innermost(rt)
    ids, n = inner.value_rowids(), inner.nrows()
    peak = M.unsorted_segment_max(flat, ids, n)
    peak = A.where(M.is_finite(peak), peak, A.zeros_like(peak))
    total = M.unsorted_segment_sum(M.exp(M.subtract(flat, A.gather(peak, ids))), ids, n)
    out = M.add(M.log(total), peak)
    out = A.expand_dims(out, -1) if keepdims else out
    return _replace_innermost(rt, out)
  # other axes: one shift for all values (exp stays finite)
  peak = M.reduce_max(flat)
  peak = A.where(M.is_finite(peak), peak, M.cast(0, peak.dtype))
  total = ragged_reduce("reduce_sum", M.exp(M.subtract(rt, peak)), axis, keepdims)
  return M.add(M.log(total), peak)


def _reduce_join(inputs, axis=None, keepdims=False, separator="", name=None):
  from tensorlet.ops import string_ops as S
  rt = inputs
  if axis is None:
    return S.reduce_join(rt.flat_values, separator=separator)
  rank = rt.shape.rank
  axis = int(axis) + rank if int(axis) < 0 else int(axis)
  if axis != rt.ragged_rank or rt.flat_values.shape.rank != 1:
    raise NotImplementedError("tf.strings.reduce_join of a RaggedTensor is implemented "
                              "over all axes and over its innermost ragged axis only")
  inner = _innermost(rt)
  flat = rt.flat_values
  # each value but a row's first carries the separator before it; the padding joins as ""
  first = M.equal(A.range(A.shape(flat, out_type=inner.row_splits_dtype)[0],
                          dtype=inner.row_splits_dtype),
                  A.gather(inner.row_splits, inner.value_rowids()))
  marked = A.where(first, flat, S.join([separator, flat]))
  joined = S.reduce_join(inner.with_values(marked).to_tensor(), axis=1, keepdims=keepdims)
  return _replace_innermost(rt, joined)


def _replace_innermost(rt, new):
  """`rt` with its innermost ragged level replaced by `new` (one value per row)."""
  if not isinstance(rt.values, RaggedTensor):
    return new
  return rt.with_values(_replace_innermost(rt.values, new))


_ROWS = {"math.add_n": _add_n, "nn.softmax": _softmax(), "math.softmax": _softmax(),
         "math.reduce_variance": _variance(False), "math.reduce_std": _variance(True),
         "math.reduce_logsumexp": _logsumexp, "strings.reduce_join": _reduce_join}


def _dispatch(api, args, kwargs):
  name = dispatch.api_name(api)
  if name in _ROWS:
    return _ROWS[name](*args, **kwargs)
  if name in _FLAT and args and isinstance(args[0], RaggedTensor):
    return _flat(api, args, kwargs)
  return NotImplemented


dispatch.register_type(RaggedTensor, _dispatch)
