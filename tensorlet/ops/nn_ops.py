"""Neural-network ops (the implementation behind `tf.nn`).

Primitives exist only for speed (Relu, BiasAdd, convolution, pooling) or for
numerical stability (Softplus, Softmax, LogSoftmax, the softmax
cross-entropies); every other function here is a composition and inherits its
gradient, shape rule and graph support from the ops it calls.

Convolution and pooling live in conv_ops.py and are re-exported here.
"""
import numbers

import numpy as np

from tensorlet import dtypes as _dt
from tensorlet.context import ctx
from tensorlet.errors import InvalidArgumentError
from tensorlet.ops import array_ops, math_ops
from tensorlet.ops._common import FLOAT, NUMERIC, REAL, _dims, as_int, as_str, same_shape, single_axis
from tensorlet.ops._common import name_scoped
from tensorlet.ops.conv_ops import (  # noqa: F401 - re-exported (tf.nn)
    avg_pool, avg_pool1d, avg_pool2d, conv1d, conv2d, conv2d_transpose, convolution,
    depthwise_conv2d, max_pool, max_pool1d, max_pool2d, separable_conv2d)
from tensorlet.ops.math_ops import _unary_public, sigmoid
from tensorlet.ops.registry import convert_inputs, execute, op
from tensorlet.tensor_shape import TensorShape, broadcast_static
from tensorlet.tensor import EagerTensor, Tensor, convert_to_tensor

_m, _a = math_ops, array_ops


def _require_float(x, op_name, arg="features"):
  """The error TF gives when a float-only op gets another dtype."""
  if x.dtype.is_floating:
    return x
  allowed = "float16, float32, float64"
  if ctx.graph is not None:
    raise TypeError(f"Value passed to parameter '{arg}' has DataType {x.dtype.name} not in list "
                    f"of allowed values: {allowed} (op {op_name})")
  raise InvalidArgumentError(None, None, f"Value for attr 'T' of {x.dtype.name} is not in the "
                             f"list of allowed values: {allowed} [Op:{op_name}]")


# ------------------------------------------------------------ activations

# NOTE: a 0-d zero of the input's dtype: NumPy converts a Python 0 on every
# call, which makes np.maximum ~30% slower on small arrays. Graph code gets
# the same through the emitter's {zero}.
_ZEROS = {}


def _zero(dt):
  z = _ZEROS.get(dt)
  if z is None:
    z = _ZEROS[dt] = np.zeros((), dt)
  return z


@op("Relu", dtypes=REAL, shape=same_shape, expr="np.maximum({0}, {zero})",
    inplace="np.maximum({0}, {zero}, out={out})")
def Relu(features):
  return np.maximum(features, _zero(features.dtype))


@Relu.def_grad
def _(op, dy):
  return [execute(ReluGrad, [dy, op.outputs[0]], {})]


# NOTE: a primitive for speed: one multiply instead of compare + select. The
# gradient at 0 is 0, as TF's.
@op("ReluGrad", dtypes=REAL, shape=same_shape, expr="{0} * ({1} > {zero})", grad_shape="exact",
    inplace="np.multiply({0}, {1} > {zero}, out={out})")
def ReluGrad(gradients, features):
  return gradients * (features > _zero(features.dtype))


@ReluGrad.def_grad
def _(op, ddx):
  return [execute(ReluGrad, [ddx, op.inputs[1]], {}), None]


@op("Relu6", dtypes=REAL, shape=same_shape)
def Relu6(features):
  return np.clip(features, 0, 6)


@Relu6.def_grad
def _(op, dy):
  x = op.inputs[0]
  inside = _m.logical_and(_m.greater(x, 0), _m.less(x, 6))
  return [_a.where(inside, dy, _a.zeros_like(dy))]


# NOTE: a primitive for stability: log(1 + exp(x)) overflows for large x, and
# the composite max(x, 0) + log1p(exp(-|x|)) has the wrong gradient at 0.
@op("Softplus", dtypes=FLOAT, shape=same_shape, fresh=True)
def Softplus(features):
  return np.logaddexp(features, 0)


@Softplus.def_grad
def _(op, dy):
  return [dy * sigmoid(op.inputs[0])]


relu = _unary_public(Relu, "relu", "max(features, 0) elementwise: `tf.nn.relu([-1., 2.])` is "
                     "[0., 2.].")
relu6 = _unary_public(Relu6, "relu6", "min(max(features, 0), 6) elementwise.")
softplus = _unary_public(Softplus, "softplus", "log(exp(features) + 1), computed stably.")


@name_scoped
def elu(features, name=None):
  """Exponential linear unit: x if x > 0 else exp(x) - 1."""
  x = _require_float(convert_to_tensor(features), "Elu")
  # NOTE: expm1 of min(x, 0): the untaken branch must not overflow (inf * 0 = nan).
  return _a.where(_m.greater(x, 0), x, _m.expm1(_m.minimum(x, 0)))


@name_scoped
def selu(features, name=None):
  """Scaled ELU: scale * (x if x > 0 else alpha * (exp(x) - 1))."""
  x = _require_float(convert_to_tensor(features), "Selu")
  alpha, scale = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946
  return _a.where(_m.greater(x, 0), x * scale,
                  _m.expm1(_m.minimum(x, 0)) * (alpha * scale))


@name_scoped
def gelu(features, approximate=False, name=None):
  """Gaussian error linear unit, exact (erf) or with TF's tanh approximation."""
  x = _require_float(convert_to_tensor(features), "Gelu")
  if approximate:
    inner = (x + x * x * x * 0.044715) * 0.7978845608028654
    return x * 0.5 * (_m.tanh(inner) + 1)
  return x * 0.5 * (_m.erf(x * 0.7071067811865476) + 1)


@name_scoped
def leaky_relu(features, alpha=0.2, name=None):
  """x if x > 0 else alpha * x (integer inputs are first cast to float32, as TF does)."""
  x = convert_to_tensor(features)
  if x.dtype.is_integer:
    x = _m.cast(x, _dt.float32)
  if isinstance(alpha, np.ndarray):
    alpha = alpha.item()
  return _a.where(_m.greater(x, 0), x, x * alpha)


@name_scoped
def softsign(features, name=None):
  """x / (1 + |x|)."""
  x = _require_float(convert_to_tensor(features), "Softsign")
  return x / (_m.abs(x) + 1)


@name_scoped
def silu(features, beta=1.0, name=None):
  """x * sigmoid(beta * x) (a.k.a. swish)."""
  x = _require_float(convert_to_tensor(features), "Sigmoid")
  return x * sigmoid(x * beta if beta != 1.0 else x)


swish = silu


@name_scoped
def crelu(features, axis=-1, name=None):
  """Concatenates relu(x) and relu(-x) along `axis`."""
  x = convert_to_tensor(features)
  return _a.concat([relu(x), relu(_m.negative(x))], axis)


# -------------------------------------------------------- softmax family

def _logits_shape(inputs, attrs):
  x = inputs[0]
  if x.shape.rank == 0:
    raise ValueError(f"logits must have >= 1 dimension, got {_dims(x.shape)}")
  return [(x.shape, x.dtype)]


# NOTE: Softmax and LogSoftmax are primitives for stability (max-shifted) and
# speed; like TF's they work on the last axis (other axes are transposed).
@op("Softmax", dtypes=FLOAT, shape=_logits_shape, fresh=True)
def Softmax(logits):
  if logits.ndim == 0:
    raise ValueError("scalar logits")  # the shape rule words the error
  e = np.exp(logits - logits.max(-1, keepdims=True))
  e /= e.sum(-1, keepdims=True)
  return e


@Softmax.def_grad
def _(op, dy):
  y = op.outputs[0]
  return [(dy - _m.reduce_sum(dy * y, axis=-1, keepdims=True)) * y]


@op("LogSoftmax", dtypes=FLOAT, shape=_logits_shape, fresh=True)
def LogSoftmax(logits):
  if logits.ndim == 0:
    raise ValueError("scalar logits")
  s = logits - logits.max(-1, keepdims=True)
  return s - np.log(np.exp(s).sum(-1, keepdims=True))


@LogSoftmax.def_grad
def _(op, dy):
  return [dy - _m.exp(op.outputs[0]) * _m.reduce_sum(dy, axis=-1, keepdims=True)]


def _on_axis(od, logits, axis, name=None):
  x = convert_inputs(od, (logits,))[0]
  r = x.shape.rank
  axis = -1 if axis is None else as_int(axis, od.name, "axis")
  if axis == -1 or r is None or axis == r - 1:
    return execute(od, [x], {}, name)  # one op: named `name`, as TF's
  if not -r <= axis < r:
    raise InvalidArgumentError(None, None, f"`axis` must be in the range [{-r}, {r}) where {r} "
                               f"is the number of dimensions in the input. Received: "
                               f"axis={axis}")
  perm = list(range(r))
  perm[axis % r], perm[-1] = perm[-1], perm[axis % r]
  return _a.transpose(execute(od, [_a.transpose(x, perm)], {}), perm, name=name)


def softmax(logits, axis=None, name=None):
  """exp(logits) / sum(exp(logits), axis), computed stably; `axis` defaults to -1.

  >>> tf.nn.softmax([0., 0.]).numpy()
  array([0.5, 0.5], dtype=float32)
  """
  return _on_axis(Softmax, logits, axis, name)


def log_softmax(logits, axis=None, name=None):
  """logits - log(sum(exp(logits), axis)), computed stably."""
  return _on_axis(LogSoftmax, logits, axis, name)


def _is_zero(t):
  """True when `t` is known to be all zeros (a gradient nobody fed)."""
  if t is None:
    return True
  v = getattr(t, "_value", None)
  if v is not None:
    return not v.any()
  o = getattr(t, "op", None)
  return o is not None and o.type == "ZerosLike"


def _xent_logits_grad(op, dloss, dback):
  """d/dlogits of both outputs (loss, backprop) of a softmax cross-entropy op."""
  g = _a.expand_dims(dloss, -1)
  grad = g * op.outputs[1]
  if not _is_zero(dback):  # only when differentiating a gradient: backprop's own derivative
    sm = softmax(op.inputs[0])
    grad = grad + (dback - _m.reduce_sum(dback * sm, axis=-1, keepdims=True)) * sm
  return g, grad


def _xent_shape(inputs, attrs):
  f, l = inputs
  try:
    s = broadcast_static(f.shape, l.shape)
  except ValueError:
    raise ValueError(f"logits and labels must be broadcastable: logits_size={_dims(f.shape)} "
                     f"labels_size={_dims(l.shape)}") from None
  if s.rank == 0:
    raise ValueError("logits and labels must have at least 1 dimension")
  return [(TensorShape(s[:-1]) if s.rank is not None else s, f.dtype), (s, f.dtype)]


# NOTE: a primitive for stability (log-sum-exp) and speed: it also returns the
# backprop softmax - labels, so the gradient is one multiply.
@op("SoftmaxCrossEntropyWithLogits", dtypes=FLOAT, shape=_xent_shape, num_outputs=2)
def SoftmaxCrossEntropyWithLogits(features, labels):
  if features.shape != labels.shape:
    features, labels = np.broadcast_arrays(features, labels)
  s = features - features.max(-1, keepdims=True)
  e = np.exp(s)
  se = e.sum(-1, keepdims=True)
  loss = (labels * (np.log(se) - s)).sum(-1)
  return loss, e / se - labels


@SoftmaxCrossEntropyWithLogits.def_grad
def _(op, dloss, dback):
  g, grad = _xent_logits_grad(op, dloss, dback)
  glabels = g * _m.negative(log_softmax(op.inputs[0]))
  if not _is_zero(dback):
    glabels = glabels - dback
  return [grad, glabels]


def _sparse_xent_shape(inputs, attrs):
  f = inputs[0]
  if f.shape.rank == 0:
    raise ValueError("Logits cannot be scalars - received shape [].")
  return [(TensorShape(f.shape[:-1]) if f.shape.rank is not None else f.shape, f.dtype),
          (f.shape, f.dtype)]


@op("SparseSoftmaxCrossEntropyWithLogits", dtypes=FLOAT, type_inputs=(0,),
    shape=_sparse_xent_shape, num_outputs=2, grad_shape="exact")
def SparseSoftmaxCrossEntropyWithLogits(features, labels):
  n = features.shape[-1]
  f, lab = features.reshape(-1, n), labels.reshape(-1)
  k = lab.size
  # NOTE: one reduction checks both bounds: negative labels wrap to huge unsigned ones
  unsigned = _UNSIGNED.get(lab.dtype)
  if k and (lab.view(unsigned) if unsigned is not None else lab).max() >= n:
    bad = lab[(lab < 0) | (lab >= n)][0]
    raise InvalidArgumentError(
        None, None, f"Received a label value of {bad} which is outside the valid range of "
        f"[0, {n}).  Label values: {' '.join(str(v) for v in lab)} "
        f"[Op:SparseSoftmaxCrossEntropyWithLogits]")
  # flat positions of the labels' logits: 1-D gathers and scatters are the cheap ones
  base = _ROW_STARTS.get((k, n))
  if base is None:
    if len(_ROW_STARTS) > 64:
      _ROW_STARTS.clear()
    base = _ROW_STARTS[(k, n)] = np.arange(0, k * n, n)
  idx = base + lab
  s = f - f.max(1, keepdims=True)
  e = np.exp(s)
  se = e.sum(1)
  loss = np.log(se)
  loss -= s.take(idx)
  e /= se[:, None]
  e.reshape(-1)[idx] -= 1
  return loss.reshape(labels.shape), e.reshape(features.shape)


_UNSIGNED = {np.dtype(np.int32): np.uint32, np.dtype(np.int64): np.uint64}
_ROW_STARTS = {}


@SparseSoftmaxCrossEntropyWithLogits.def_grad
def _(op, dloss, dback):
  return [_xent_logits_grad(op, dloss, dback)[1], None]


def _both_given(labels, logits, name):
  if labels is None or logits is None:
    raise ValueError(f"Both `labels` and `logits` must be provided for {name}. Received: "
                     f"labels={labels} and logits={logits}")


def _precise(logits):
  """float16 logits are computed in float32 (as TF does); returns (logits, cast_back)."""
  x = convert_to_tensor(logits)
  if x.dtype is _dt.float16:
    return _m.cast(x, _dt.float32), True
  return x, False


def softmax_cross_entropy_with_logits(labels, logits, axis=-1, name=None):
  """Cross-entropy between `labels` (a distribution) and softmax(`logits`) along `axis`.

  Gradients flow to both logits and labels.

  >>> tf.nn.softmax_cross_entropy_with_logits([[0., 1.]], [[0., 0.]]).numpy()
  array([0.6931472], dtype=float32)
  """
  _both_given(labels, logits, "softmax_cross_entropy_with_logits")
  x, back = _precise(logits)
  y = _m.cast(convert_to_tensor(labels), x.dtype)
  r = x.shape.rank
  if axis not in (-1, None) and r is not None:
    axis = single_axis(axis, r, "SoftmaxCrossEntropyWithLogits")
  if axis not in (-1, None) and r is not None and axis % r != r - 1:
    perm = [i for i in range(r) if i != axis % r] + [axis % r]
    x, y = _a.transpose(x, perm), _a.transpose(y, perm)
  loss = execute(SoftmaxCrossEntropyWithLogits, [x, y], {}, name)[0]
  return _m.cast(loss, _dt.float16) if back else loss


def sparse_softmax_cross_entropy_with_logits(labels, logits, name=None):
  """Cross-entropy between integer class `labels` and softmax(`logits`) (last axis).

  Raises:
    ValueError: when labels' shape is not logits' shape without its last dimension.
    InvalidArgumentError: for a label outside [0, num_classes).
  """
  _both_given(labels, logits, "sparse_softmax_cross_entropy_with_logits")
  x, back = _precise(logits)
  y = convert_to_tensor(labels)
  ls, xs = y.shape, x.shape
  lr, xr = ls.rank, xs.rank
  if xr == 0:
    raise ValueError(f"`logits` cannot be a scalar. Received logits={x}`")
  if xr is not None and lr is not None:
    if lr != xr - 1:
      raise ValueError(f"`labels.shape.rank` must equal `logits.shape.rank - 1`. Received: "
                       f"labels.shape={ls} of rank {lr} and logits.shape={xs} of rank {xr}")
    ld, xd = ls.as_list(), xs.as_list()[:-1]
    if ld != xd and None not in ld and None not in xd:
      raise ValueError(f"`labels.shape` must equal `logits.shape` except for the last "
                       f"dimension. Received: labels.shape={ls} and logits.shape={xs}")
  if y.dtype not in (_dt.int32, _dt.int64):
    raise InvalidArgumentError(None, None, f"Value for attr 'Tlabels' of {y.dtype.name} is not "
                               f"in the list of allowed values: int32, int64 "
                               f"[Op:SparseSoftmaxCrossEntropyWithLogits]")
  loss = execute(SparseSoftmaxCrossEntropyWithLogits, [x, y], {}, name)[0]
  return _m.cast(loss, _dt.float16) if back else loss


def _same_shape_xent(labels, logits, what="`logits` and `labels`"):
  x = convert_to_tensor(logits)
  y = convert_to_tensor(labels, x.dtype) if not isinstance(labels, Tensor) else labels
  if not y.shape.is_compatible_with(x.shape):
    raise ValueError(f"{what} must have the same shape, received ({x.shape} vs {y.shape}).")
  return y, x


@name_scoped
def sigmoid_cross_entropy_with_logits(labels=None, logits=None, name=None):
  """Elementwise logistic loss: max(x, 0) - x * z + log(1 + exp(-|x|)) (TF's stable form)."""
  _both_given(labels, logits, "sigmoid_cross_entropy_with_logits")
  z, x = _same_shape_xent(labels, logits)
  zeros = _a.zeros_like(x)
  cond = _m.greater_equal(x, zeros)
  relu_logits = _a.where(cond, x, zeros)
  neg_abs_logits = _a.where(cond, _m.negative(x), x)
  return relu_logits - x * z + _m.log1p(_m.exp(neg_abs_logits))


@name_scoped
def weighted_cross_entropy_with_logits(labels, logits, pos_weight, name=None):
  """Sigmoid cross-entropy with the positive term weighted by `pos_weight`."""
  z, x = _same_shape_xent(labels, logits)
  log_weight = (convert_to_tensor(pos_weight, dtype_hint=x.dtype) - 1) * z + 1
  return (1 - z) * x + log_weight * (_m.log1p(_m.exp(_m.negative(_m.abs(x)))) +
                                     relu(_m.negative(x)))


@name_scoped
def log_poisson_loss(targets, log_input, compute_full_loss=False, name=None):
  """exp(log_input) - log_input * targets, plus Stirling's term when `compute_full_loss`."""
  t, c = _same_shape_xent(targets, log_input, "`log_input` and `targets`")
  result = _m.exp(c) - c * t
  if compute_full_loss:
    stirling = t * _m.log(t) - t + _m.log(t * (2 * np.pi)) * 0.5
    small = _m.logical_and(_m.greater_equal(t, 0), _m.less_equal(t, 1))
    result = result + _a.where(small, _a.zeros_like(t), stirling)
  return result


# --------------------------------------------------------------- bias_add

def _bias_shape(inputs, attrs):
  v, b = inputs
  if b.shape.rank is not None and b.shape.rank != 1:
    raise ValueError(f"Biases must be 1D: {_dims(b.shape)}")
  if v.shape.rank is not None:
    if v.shape.rank < 2:
      raise ValueError(f"Input tensor must be at least 2D: {_dims(v.shape)}")
    c = v.shape[1 if attrs.get("data_format") == "NCHW" else -1]
    if c is not None and b.shape.rank == 1 and b.shape[0] is not None and c != b.shape[0]:
      raise ValueError(f"Must provide as many biases as the last dimension of the input "
                       f"tensor: {_dims(b.shape)} vs. {_dims(v.shape)}")
  return [(v.shape, v.dtype)]


# NOTE: a primitive so a graph adds the bias in place into a dying matmul result.
@op("BiasAdd", dtypes=NUMERIC, shape=_bias_shape, expr="{0} + {1}", inplace="add",
    grad_shape="exact")
def BiasAdd(value, bias, *, data_format="NHWC"):
  nchw = data_format == "NCHW"
  if bias.ndim != 1 or value.ndim < 2 or value.shape[1 if nchw else -1] != bias.shape[0]:
    raise ValueError("bad shapes")  # the shape rule words the error
  if nchw:
    return value + bias.reshape((-1,) + (1,) * (value.ndim - 2))
  return value + bias


@BiasAdd.def_grad
def _(op, dy):
  r, b = op.inputs[0].shape.rank, op.inputs[1]
  if op.attrs.get("data_format") == "NCHW":
    gb = _m.reduce_sum(dy, axis=[i for i in range(r) if i != 1])
  elif r is None:
    gb = _m.reduce_sum(_a.reshape(dy, [-1, _a.shape(b)[0]]), axis=0)
  else:
    gb = _m.reduce_sum(dy, axis=list(range(r - 1)))
  if not gb.shape.is_fully_defined() and b.shape.is_fully_defined():
    gb = _a.reshape(gb, b.shape.as_list())  # keeps the static shape in graphs
  return [dy, gb]


def bias_add(value, bias, data_format=None, name=None):
  """Adds the 1-D `bias` along the channel axis of `value` (last, or 1 for "NC...")."""
  v, b = convert_inputs(BiasAdd, (value, bias))
  if data_format is not None:
    data_format = as_str(data_format, "BiasAdd", "data_format")
  if data_format is not None and data_format.startswith("NC"):
    return execute(BiasAdd, [v, b], {"data_format": "NCHW"}, name)
  if data_format is not None and not (data_format.startswith("N") and data_format.endswith("C")):
    raise ValueError("data_format must be of the form `N...C` or `NC...`")
  return execute(BiasAdd, [v, b], {}, name)


# ---------------------------------------------------------------- dropout

@name_scoped
def dropout(x, rate, noise_shape=None, seed=None, name=None):
  """Zeroes elements with probability `rate` and scales the rest by 1 / (1 - rate).

  Raises:
    ValueError: for a `rate` outside [0, 1) or a non-floating `x`.
  """
  is_number = isinstance(rate, numbers.Real) and not isinstance(rate, bool)
  if is_number and not 0 <= rate < 1:
    raise ValueError(f"`rate` must be a scalar tensor or a float in the range [0, 1). "
                     f"Received: rate={rate}")
  x = convert_to_tensor(x)
  if not x.dtype.is_floating:
    raise ValueError(f"`x.dtype` must be a floating point tensor as `x` will be scaled. "
                     f"Received: x_dtype={x.dtype!r}")
  if is_number and rate == 0:
    return x
  if is_number:
    ret = x * (1 / (1 - rate))
  else:
    rate = _m.cast(convert_to_tensor(rate), x.dtype)
    if rate.shape.rank not in (0, None):
      raise ValueError(f"`rate` must be a scalar or scalar tensor. Received: rate={rate}")
    ret = x / (1 - rate)
  from tensorlet.ops import random_ops
  noise = random_ops.uniform(_noise_shape(x, noise_shape), dtype=x.dtype, seed=seed)
  return _a.where(_m.greater_equal(noise, rate), ret, _a.zeros_like(ret))


def _noise_shape(x, noise_shape):
  if noise_shape is None:
    return x.shape.as_list() if x.shape.is_fully_defined() else _a.shape(x)
  if isinstance(noise_shape, (list, tuple)) and x.shape.rank == len(noise_shape):
    return [d if d is not None else x.shape[i] for i, d in enumerate(noise_shape)]
  return noise_shape


# ------------------------------------------------- losses, normalization

@name_scoped
def l2_loss(t, name=None):
  """sum(t ** 2) / 2."""
  x = _require_float(convert_to_tensor(t), "L2Loss", "t")
  return _m.reduce_sum(_m.square(x)) * 0.5


@name_scoped
def moments(x, axes, shift=None, keepdims=False, name=None):
  """(mean, variance) of `x` over `axes` (float16 is computed in float32, as TF does)."""
  x = convert_to_tensor(x)
  y = _m.cast(x, _dt.float32) if x.dtype is _dt.float16 else x
  mean = _m.reduce_mean(y, axis=axes, keepdims=True)
  variance = _m.reduce_mean(_m.squared_difference(y, _a.stop_gradient(mean)), axis=axes,
                            keepdims=True)
  if not keepdims:
    mean, variance = _a.squeeze(mean, axes), _a.squeeze(variance, axes)
  if x.dtype is _dt.float16:
    return _m.cast(mean, x.dtype), _m.cast(variance, x.dtype)
  return mean, variance


@name_scoped
def weighted_moments(x, axes, frequency_weights, keepdims=False, name=None):
  """(mean, variance) of `x` over `axes`, each element counted `frequency_weights`
  times (broadcast against `x`); 0 where the weights sum to 0. float16 is computed
  in float32, as TF does."""
  x = convert_to_tensor(x)
  w = convert_to_tensor(frequency_weights)
  y = _m.cast(x, _dt.float32) if x.dtype is _dt.float16 else x
  if w.dtype is not y.dtype:
    w = _m.cast(w, y.dtype)
  total = _m.reduce_sum(w + _a.zeros_like(y), axis=axes, keepdims=True)
  mean = _m.div_no_nan(_m.reduce_sum(w * y, axis=axes, keepdims=True), total)
  dist = _m.reduce_sum(w * _m.squared_difference(y, mean), axis=axes, keepdims=True)
  variance = _m.div_no_nan(dist, total)
  if not keepdims:
    mean, variance = _a.squeeze(mean, axes), _a.squeeze(variance, axes)
  if x.dtype is _dt.float16:
    return _m.cast(mean, x.dtype), _m.cast(variance, x.dtype)
  return mean, variance


@name_scoped
def batch_normalization(x, mean, variance, offset, scale, variance_epsilon, name=None):
  """(x - mean) * scale / sqrt(variance + epsilon) + offset (offset/scale may be None)."""
  x = convert_to_tensor(x)
  inv = _m.rsqrt(variance + convert_to_tensor(variance_epsilon, x.dtype)
                 if not isinstance(variance_epsilon, Tensor) else variance + variance_epsilon)
  if scale is not None:
    inv = inv * scale
  shift = (offset - mean * inv) if offset is not None else _m.negative(mean * inv)
  return x * _m.cast(inv, x.dtype) + _m.cast(shift, x.dtype)


def _sharded_lookup(shards, ids):
  """TF's "div" partition: id i is row i of the shards laid end to end (the first
  `total % n` shards one row longer); a row gather per shard, so each shard's gradient
  is an IndexedSlices of its own rows."""
  n = len(shards)
  flat = _a.reshape(ids, [-1])
  dims = [s.shape[0] for s in shards]
  total = sum(dims) if None not in dims else math_ops.add_n(
      [_a.shape(s, out_type=flat.dtype)[0] for s in shards])
  total = math_ops.cast(total, flat.dtype)
  per, extras = total // n, total % n
  assign = math_ops.maximum(flat // (per + 1), (flat - extras) // per)
  first = math_ops.cast(math_ops.less(assign, extras), flat.dtype)
  local = first * (flat % (per + 1)) + (1 - first) * ((flat - extras) % per)
  rows, order = [], []
  for p, shard in enumerate(shards):
    sel = _a.reshape(_a.where(math_ops.equal(assign, p)), [-1])
    rows.append(_a.gather(shard, _a.gather(local, sel)))
    order.append(sel)
  out = _a.gather(_a.concat(rows, 0), _a.argsort(_a.concat(order, 0)))
  out = _a.reshape(out, _a.concat([_a.shape(ids), _a.shape(shards[0])[1:]], 0))
  static = ids.shape.concatenate(shards[0].shape[1:])
  if not isinstance(out, EagerTensor) and static.rank is not None:
    out.set_shape(static)
  return out


@name_scoped
def embedding_lookup(params, ids, max_norm=None, name=None):
  """Rows of `params` (a tensor, or a list of shards split by "div") at `ids`."""
  if isinstance(params, (list, tuple)) and len(params) > 1:
    out = _sharded_lookup(list(params), convert_to_tensor(ids))
  else:
    out = _a.gather(params[0] if isinstance(params, (list, tuple)) else params, ids)
  if max_norm is None:
    return out
  from tensorlet.ops.clip_ops import clip_by_norm
  ids_rank = convert_to_tensor(ids).shape.rank
  return clip_by_norm(out, max_norm, axes=list(range(ids_rank, out.shape.rank)))


@name_scoped
def zero_fraction(value, name=None):
  """The fraction of zeros in `value`, as float32."""
  x = convert_to_tensor(value)
  return _m.reduce_mean(_m.cast(_m.equal(x, _a.zeros_like(x)), _dt.float32))


def compute_average_loss(per_example_loss, sample_weight=None, global_batch_size=None):
  """sum(per_example_loss * sample_weight) / global_batch_size (default: the batch size)."""
  loss = convert_to_tensor(per_example_loss)
  if loss.shape.rank == 0:
    raise ValueError("Invalid value passed for `per_example_loss`. Expected a tensor with at "
                     "least rank 1.")
  dtype = loss.dtype
  if sample_weight is not None:
    loss = _m.cast(loss * _m.cast(sample_weight, dtype), dtype)
  if global_batch_size is None:
    global_batch_size = _a.shape(loss)[0] * num_replicas_in_sync()
  return _m.div_no_nan(_m.reduce_sum(loss), _m.cast(global_batch_size, dtype))


def scale_regularization_loss(regularization_loss):
  """The summed regularization loss divided by the number of replicas in sync."""
  loss = _m.reduce_sum(regularization_loss)
  n = num_replicas_in_sync()
  return loss if n == 1 else loss / _m.cast(n, loss.dtype)


def num_replicas_in_sync():
  """Replicas of the current tf.distribute strategy (tensorlet.distribute replaces this)."""
  return 1
