"""Attention layers: dot-product `Attention` (Luong), `AdditiveAttention` (Bahdanau) and
`MultiHeadAttention` with Keras 2's weight layout (query/key/value/attention_output
kernels shaped like its EinsumDense sublayers: (dim, heads, key_dim) ... (heads,
value_dim, out)). Projections run as plain matmuls over reshaped kernels."""
import math

from tensorlet.keras.engine.base_layer import Layer
from tensorlet.keras.layers._util import smart_cond
from tensorlet.keras.layers.core import _config, set_kernel_bias_options
from tensorlet.ops import array_ops as _a
from tensorlet.ops import math_ops as _m
from tensorlet.ops import nn_ops as _nn
from tensorlet.tensor import Tensor, convert_to_tensor
from tensorlet.tensor_shape import TensorShape

__all__ = ["Attention", "AdditiveAttention", "MultiHeadAttention"]

_BIG = 1e9  # Keras 2 pushes masked scores down by this much (65504 for float16)


def _big(dtype):
  return 65504.0 if dtype.name == "float16" else _BIG


def _dropout(x, rate, training):
  if not rate or training is None or training is False:
    return x
  return smart_cond(training, lambda: _nn.dropout(x, rate), lambda: x)


def _bool(mask):
  mask = convert_to_tensor(mask)
  return mask if mask.dtype.name == "bool" else _m.cast(mask, "bool")


def _causal(rows, cols):
  """(rows, cols) lower-triangular booleans: query i sees keys j <= i."""
  r = _a.expand_dims(_a.range(rows), 1)
  c = _a.expand_dims(_a.range(cols), 0)
  return _m.greater_equal(r, c)


class _BaseDenseAttention(Layer):
  """Score, mask, softmax, dropout and the weighted sum of values shared by the two
  single-head attentions; subclasses define `_calculate_scores`."""

  def __init__(self, dropout=0.0, **kwargs):
    kwargs.pop("causal", None)
    super().__init__(**kwargs)
    self.dropout = dropout
    self.supports_masking = True

  def _validate(self, inputs, mask):
    name = type(self).__name__
    if not isinstance(inputs, (list, tuple)):
      raise ValueError(f"{name} layer must be called on a list of inputs, namely [query, "
                       f"value] or [query, value, key]. Received: {inputs!r}"[:1000])
    if len(inputs) not in (2, 3):
      raise ValueError(f"{name} layer accepts inputs list of length 2 or 3, namely [query, "
                       f"value] or [query, value, key]. Received length: {len(inputs)}.")
    if mask is not None:
      if not isinstance(mask, (list, tuple)):
        raise ValueError(f"{name} layer mask must be a list, namely [query_mask, "
                         f"value_mask]. Received: {mask!r}"[:1000])
      if len(mask) not in (2, 3):
        raise ValueError(f"{name} layer mask must be a list of length 2, namely "
                         f"[query_mask, value_mask]. Received length: {len(mask)}.")

  def __call__(self, inputs, *args, **kwargs):
    self._validate(inputs, kwargs.get("mask"))
    return super().__call__(inputs, *args, **kwargs)

  def build(self, input_shape):
    self.built = True

  def call(self, inputs, mask=None, training=None, return_attention_scores=False,
           use_causal_mask=False):
    q, v = inputs[0], inputs[1]
    k = inputs[2] if len(inputs) > 2 else v
    q_mask = mask[0] if mask is not None else None
    v_mask = mask[1] if mask is not None else None
    scores = self._calculate_scores(q, k)
    scores_mask = None
    if v_mask is not None:
      scores_mask = _a.expand_dims(_bool(v_mask), -2)
    if use_causal_mask:
      shape = _a.shape(scores)
      causal = _causal(shape[-2], shape[-1])
      scores_mask = causal if scores_mask is None else _m.logical_and(scores_mask, causal)
    if scores_mask is not None:
      scores = scores - _big(scores.dtype) * _m.cast(_m.logical_not(scores_mask),
                                                    scores.dtype)
    weights = _nn.softmax(scores)
    result = _m.matmul(_dropout(weights, self.dropout, training), v)
    if q_mask is not None:
      result = result * _m.cast(_a.expand_dims(_bool(q_mask), -1), result.dtype)
    if return_attention_scores:
      return result, weights
    return result

  def compute_mask(self, inputs, mask=None):
    if mask is None or mask[0] is None:
      return None
    return _bool(mask[0])

  def compute_output_shape(self, input_shape):
    q, v = TensorShape(input_shape[0]), TensorShape(input_shape[1])
    return q[:-1].concatenate(v[-1:])

  def get_config(self):
    config = super().get_config()
    config["dropout"] = self.dropout
    return config


class Attention(_BaseDenseAttention):
  """Dot-product attention: softmax(query @ key^T [* scale]) @ value.

  Example:
    >>> q, v = tf.ones([2, 3, 4]), tf.ones([2, 5, 4])
    >>> tf.keras.layers.Attention()([q, v]).shape
    TensorShape([2, 3, 4])
  """

  def __init__(self, use_scale=False, score_mode="dot", **kwargs):
    super().__init__(**kwargs)
    if score_mode not in ("dot", "concat"):
      raise ValueError(f"Received: score_mode={score_mode}. Acceptable values are: "
                       f"[\"dot\", \"concat\"]")
    self.use_scale = use_scale
    self.score_mode = score_mode

  def build(self, input_shape):
    self.scale = self.add_weight("scale", shape=(), initializer="ones") \
        if self.use_scale else None
    self.concat_score_weight = self.add_weight("concat_score_weight", shape=(),
                                               initializer="ones") \
        if self.score_mode == "concat" else None
    self.built = True

  def _calculate_scores(self, query, key):
    if self.score_mode == "dot":
      scores = _m.matmul(query, key, transpose_b=True)
      if self.scale is not None:
        scores = scores * self.scale
      return scores
    summed = _a.expand_dims(query, -2) + _a.expand_dims(key, -3)
    if self.scale is not None:
      summed = self.scale * summed
    return self.concat_score_weight * _m.reduce_sum(_m.tanh(summed), -1)

  def get_config(self):
    config = super().get_config()
    config.update({"use_scale": self.use_scale, "score_mode": self.score_mode})
    return config


class AdditiveAttention(_BaseDenseAttention):
  """Additive attention: softmax(sum(scale * tanh(query_i + key_j))) @ value."""

  def __init__(self, use_scale=True, **kwargs):
    super().__init__(**kwargs)
    self.use_scale = use_scale

  def build(self, input_shape):
    dim = TensorShape(input_shape[2] if len(input_shape) > 2 else input_shape[1])[-1]
    self.scale = self.add_weight("scale", shape=[dim], initializer="glorot_uniform") \
        if self.use_scale else None
    self.built = True

  def _calculate_scores(self, query, key):
    summed = _m.tanh(_a.expand_dims(query, -2) + _a.expand_dims(key, -3))
    if self.scale is not None:
      summed = self.scale * summed
    return _m.reduce_sum(summed, -1)

  def get_config(self):
    config = super().get_config()
    config["use_scale"] = self.use_scale
    return config


class _Projection(Layer):
  """Keras 2's EinsumDense sublayer of MultiHeadAttention: a kernel of shape
  `in_dims + out_dims` contracted over the trailing `len(in_dims)` input axes."""

  def __init__(self, in_dims, out_dims, use_bias, owner, bias_dims=None, **kwargs):
    super().__init__(dtype=owner.dtype, **kwargs)
    self.in_dims, self.out_dims = list(in_dims), list(out_dims)
    self.kernel = self.add_weight(
        "kernel", shape=self.in_dims + self.out_dims, initializer=owner._tl_clone_init("k"),
        regularizer=owner.kernel_regularizer, constraint=owner.kernel_constraint)
    self.bias = self.add_weight(
        "bias", shape=bias_dims or self.out_dims, initializer=owner._tl_clone_init("b"),
        regularizer=owner.bias_regularizer, constraint=owner.bias_constraint) \
        if use_bias else None
    self.built = True

  def call(self, x):
    n_in = math.prod(self.in_dims)
    n_out = math.prod(self.out_dims)
    dims = x.shape.as_list()
    lead = dims[:len(dims) - len(self.in_dims)]
    flat = _a.reshape(x, [-1, n_in])
    y = _m.matmul(flat, _a.reshape(self.kernel, [n_in, n_out]))
    if self.bias is not None:
      y = y + _a.reshape(self.bias, [n_out])
    if None in lead:
      shape = _a.concat([_a.shape(x)[:len(lead)], self.out_dims], 0)
      out = _a.reshape(y, shape)
      out.set_shape(lead + self.out_dims)
      return out
    return _a.reshape(y, lead + self.out_dims)


class MultiHeadAttention(Layer):
  """Multi-head attention (Vaswani 2017) with Keras 2's arguments and weight layout.

  Example:
    >>> mha = tf.keras.layers.MultiHeadAttention(num_heads=2, key_dim=4)
    >>> out, scores = mha(tf.ones([2, 5, 8]), tf.ones([2, 7, 8]),
    ...                   return_attention_scores=True)
    >>> out.shape, scores.shape
    (TensorShape([2, 5, 8]), TensorShape([2, 2, 5, 7]))
  """

  def __init__(self, num_heads, key_dim, value_dim=None, dropout=0.0, use_bias=True,
               output_shape=None, attention_axes=None, kernel_initializer="glorot_uniform",
               bias_initializer="zeros", kernel_regularizer=None, bias_regularizer=None,
               activity_regularizer=None, kernel_constraint=None, bias_constraint=None,
               **kwargs):
    for k in ("query_shape", "key_shape", "value_shape"):
      kwargs.pop(k, None)  # Keras 2 configs carry these; shapes come from the first call
    self._softmax_robust_masking = bool(kwargs.pop("softmax_robust_masking", False))
    super().__init__(activity_regularizer=activity_regularizer, **kwargs)
    for arg, v in (("num_heads", num_heads), ("key_dim", key_dim)):
      if not isinstance(v, int) or isinstance(v, bool) or v <= 0:
        raise ValueError(f"Received an invalid value for argument `{arg}`, expected a "
                         f"positive integer, got {v!r}.")
    if value_dim is not None and (not isinstance(value_dim, int) or value_dim <= 0):
      raise ValueError(f"Received an invalid value for argument `value_dim`, expected a "
                       f"positive integer, got {value_dim!r}.")
    self.supports_masking = True
    self._num_heads = num_heads
    self._key_dim = key_dim
    self._value_dim = value_dim if value_dim else key_dim
    self._dropout = dropout
    if output_shape is not None and not isinstance(output_shape, int):
      output_shape = tuple(output_shape)
    self._output_shape = output_shape
    if isinstance(attention_axes, int):
      attention_axes = (attention_axes,)
    elif attention_axes is not None:
      attention_axes = tuple(attention_axes)
    self._attention_axes = attention_axes
    set_kernel_bias_options(self, None, use_bias, kernel_initializer, bias_initializer,
                            kernel_regularizer, bias_regularizer, kernel_constraint,
                            bias_constraint)
    self._tl_shapes = None

  num_heads = property(lambda self: self._num_heads)
  key_dim = property(lambda self: self._key_dim)
  value_dim = property(lambda self: self._value_dim)
  attention_axes = property(lambda self: self._attention_axes)

  def _tl_clone_init(self, which):
    init = self.kernel_initializer if which == "k" else self.bias_initializer
    # NOTE: as Keras 2, each sublayer gets its own copy of a seeded initializer.
    cfg = getattr(init, "get_config", None)
    return type(init).from_config(cfg()) if cfg is not None and hasattr(
        type(init), "from_config") else init

  def _tl_build(self, q_shape, v_shape, k_shape):
    q, v, k = (TensorShape(s).as_list() for s in (q_shape, v_shape, k_shape))
    self._tl_shapes = (q, v, k)
    rank = len(q)
    if self._attention_axes is None:
      self._attention_axes = tuple(range(1, rank - 1))
    h = self._num_heads
    self._query_dense = _Projection([q[-1]], [h, self._key_dim], self.use_bias, self,
                                    name="query")
    self._key_dense = _Projection([k[-1]], [h, self._key_dim], self.use_bias, self,
                                  name="key")
    self._value_dense = _Projection([v[-1]], [h, self._value_dim], self.use_bias, self,
                                    name="value")
    out = self._output_shape
    out = [q[-1]] if out is None else ([out] if isinstance(out, int) else list(out))
    self._output_dense = _Projection([h, self._value_dim], out, self.use_bias, self,
                                     name="attention_output")

  def __call__(self, query, value=None, key=None, **kwargs):
    if value is None:
      raise TypeError("MultiHeadAttention.call() missing 1 required positional argument: "
                      "'value'")
    from tensorlet.keras.engine.base_layer import _to_tensor
    value = _to_tensor(value, self._tl_dtype)
    key = _to_tensor(key, self._tl_dtype) if key is not None else None
    return super().__call__(query, value, key, **kwargs)

  def call(self, query, value, key=None, attention_mask=None, return_attention_scores=False,
           training=None, use_causal_mask=False):
    if key is None:
      key = value
    for name, t in (("query", query), ("value", value), ("key", key)):
      if not isinstance(t, Tensor):
        raise TypeError(f"MultiHeadAttention: `{name}` must be a tensor, got {t!r}"[:500])
    if query.shape.rank != value.shape.rank or key.shape.rank != value.shape.rank:
      raise ValueError(f"MultiHeadAttention expects query, value and key of the same rank; "
                       f"received shapes query={query.shape}, value={value.shape}, "
                       f"key={key.shape}.")
    if self._tl_shapes is None:
      self._tl_build(query.shape, value.shape, key.shape)
    mask = self._tl_mask(query, value, key, attention_mask, use_causal_mask)
    q = self._query_dense(query)
    k = self._key_dense(key)
    v = self._value_dense(value)
    q = q * (1.0 / math.sqrt(float(self._key_dim)))
    out, scores = self._tl_attend(q, k, v, mask, training)
    out = self._output_dense(out)
    if return_attention_scores:
      return out, scores
    return out

  def _tl_mask(self, query, value, key, attention_mask, use_causal_mask):
    """Keras 2's combined mask: the inputs' own masks, `attention_mask`, the causal one."""
    q_mask = getattr(query, "_keras_mask", None)
    v_mask = getattr(value, "_keras_mask", None)
    k_mask = getattr(key, "_keras_mask", None)
    mask = None
    if q_mask is not None:
      mask = _a.expand_dims(_bool(q_mask), -1)
    if v_mask is not None:
      m = _a.expand_dims(_bool(v_mask), -2)
      mask = m if mask is None else _m.logical_and(mask, m)
    if k_mask is not None:
      m = _a.expand_dims(_bool(k_mask), -2)
      mask = m if mask is None else _m.logical_and(mask, m)
    if use_causal_mask:
      m = _a.expand_dims(_causal(_a.shape(query)[1], _a.shape(value)[1]), 0)
      mask = m if mask is None else _m.logical_and(mask, m)
    if attention_mask is not None:
      am = _bool(attention_mask)
      mask = am if mask is None else _m.logical_and(mask, am)
    return mask

  def _tl_attend(self, q, k, v, mask, training):
    """Attention over `attention_axes` of the projected (batch..., T..., heads, dim)
    tensors; scores come out as (batch..., heads, T_q..., T_k...), as Keras 2's einsum."""
    rank = q.shape.rank  # projected rank: input rank + 1
    attn = [a % (rank - 1) for a in self._attention_axes]
    batch = [i for i in range(rank - 2) if i not in attn]
    head = rank - 2
    perm = batch + [head] + attn + [rank - 1]
    qt, kt, vt = (_a.transpose(t, perm) for t in (q, k, v))

    def dims(t, axes):
      s = t.shape.as_list()
      dyn = None
      out = []
      for a in axes:
        if s[a] is None:
          dyn = _a.shape(t) if dyn is None else dyn
          out.append(dyn[a])
        else:
          out.append(s[a])
      return out

    def prod(ds):
      if all(isinstance(d, int) for d in ds):
        return math.prod(ds)
      p = ds[0]
      for d in ds[1:]:
        p = p * d
      return p

    def flat(t, src):
      # (batch..., H, attn..., D) -> (B', H, T', D)
      b = dims(src, batch)
      a = dims(src, attn)
      shape = [prod(b) if b else 1, self._num_heads, prod(a), t.shape[-1]]
      if any(isinstance(d, Tensor) for d in shape):
        shape = _a.stack([_m.cast(d, "int32") if isinstance(d, Tensor) else d for d in shape])
      return _a.reshape(t, shape), b, a
    qf, qb, qa = flat(qt, q)
    kf, _, ka = flat(kt, k)
    vf, _, _ = flat(vt, v)
    scores = _m.matmul(qf, kf, transpose_b=True)  # (B', H, Tq', Tk')
    full = qb + [self._num_heads] + qa + ka

    def shaped(t, shape):
      if any(isinstance(d, Tensor) for d in shape):
        out = _a.reshape(t, _a.stack(shape))
        out.set_shape([d if isinstance(d, int) else None for d in shape])
        return out
      return _a.reshape(t, shape)
    if mask is not None:
      # mask: (batch..., T_q..., T_k...) -> broadcast over heads
      m = _a.expand_dims(mask, len(batch))
      sc = shaped(scores, full)
      if self._softmax_robust_masking:  # masked scores replaced, not shifted
        sc = _a.where(_a.broadcast_to(m, _a.shape(sc)), sc,
                      _a.fill(_a.shape(sc), _m.cast(-_big(sc.dtype), sc.dtype)))
      else:
        sc = sc + (1.0 - _m.cast(m, sc.dtype)) * -_big(sc.dtype)
      scores = _a.reshape(sc, _a.shape(scores)) if not all(
          isinstance(d, int) for d in full) else _a.reshape(sc, scores.shape.as_list())
    probs = _nn.softmax(scores)
    probs_out = shaped(probs, full)
    out = _m.matmul(_dropout(probs, self._dropout, training), vf)  # (B', H, Tq', Dv)
    out = shaped(out, qb + [self._num_heads] + qa + [self._value_dim])
    inverse = [0] * rank
    for i, p in enumerate(perm):
      inverse[p] = i
    return _a.transpose(out, inverse), probs_out

  def compute_output_shape(self, query_shape, value_shape=None, key_shape=None):
    q = TensorShape(query_shape)
    out = self._output_shape
    if out is None:
      return q
    out = [out] if isinstance(out, int) else list(out)
    return q[:-1].concatenate(out)

  def get_config(self):
    config = super().get_config()
    shapes = self._tl_shapes
    config.update({
        "num_heads": self._num_heads, "key_dim": self._key_dim,
        "value_dim": self._value_dim, "dropout": self._dropout, "use_bias": self.use_bias,
        "output_shape": self._output_shape, "attention_axes": self._attention_axes,
        "kernel_initializer": _config(self.kernel_initializer),
        "bias_initializer": _config(self.bias_initializer),
        "kernel_regularizer": _config(self.kernel_regularizer),
        "bias_regularizer": _config(self.bias_regularizer),
        "activity_regularizer": _config(self.activity_regularizer),
        "kernel_constraint": _config(self.kernel_constraint),
        "bias_constraint": _config(self.bias_constraint),
        "query_shape": shapes[0] if shapes else None,
        "key_shape": shapes[2] if shapes else None,
        "value_shape": shapes[1] if shapes else None,
        "softmax_robust_masking": self._softmax_robust_masking})
    return config
