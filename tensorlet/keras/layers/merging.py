"""Merge layers: Add, Subtract, Multiply, Average, Maximum, Minimum, Concatenate, Dot,
and their functional forms (`tf.keras.layers.add(inputs)` ...).

Elementwise merges broadcast the non-batch axes as Keras 2 does: inputs of
lower rank get size-1 axes after the batch axis, and each axis must match or
be 1. The output mask is the AND of the input masks.
"""
import functools
import operator

from tensorlet import dtypes as _dt
from tensorlet.keras.engine.base_layer import Layer
from tensorlet.ops import array_ops as _a
from tensorlet.ops import linalg_ops as _la
from tensorlet.ops import math_ops as _m
from tensorlet.tensor_shape import TensorShape

__all__ = ["Add", "Subtract", "Multiply", "Average", "Maximum", "Minimum", "Concatenate",
           "Dot", "add", "subtract", "multiply", "average", "maximum", "minimum",
           "concatenate", "dot"]


def _dims(shape):
  s = TensorShape(shape)
  return s.as_list() if s.rank is not None else None


def _broadcast_dims(a, b):
  """Keras' `_compute_elemwise_op_output_shape` on the non-batch dims `a`, `b`."""
  if a is None or b is None:
    return None
  if len(a) < len(b):
    a, b = b, a
  out = list(a[:len(a) - len(b)])
  for i, j in zip(a[len(a) - len(b):], b):
    if i is None or j is None:
      out.append(None)
    elif i == 1:
      out.append(j)
    elif j == 1 or i == j:
      out.append(i)
    else:
      raise ValueError(f"Inputs have incompatible shapes. Received shapes {tuple(a)} and "
                       f"{tuple(b)}")
  return out


class _Merge(Layer):
  """Base of the elementwise merges: `_merge(list of tensors)` on equal-rank inputs."""

  _tl_min_inputs = 1
  _tl_fold = None  # the binary op folded over the inputs

  def __init__(self, **kwargs):
    super().__init__(**kwargs)
    self.supports_masking = True

  def _check_shapes(self, input_shape):
    if not isinstance(input_shape, (list, tuple)) or not input_shape or \
        not all(isinstance(s, (list, tuple, TensorShape)) or s is None for s in input_shape):
      raise ValueError(f"A merge layer should be called on a list of inputs. Received: "
                       f"input_shape={_shape_str(input_shape)} (not a list of shapes)")
    if len(input_shape) < self._tl_min_inputs:
      raise ValueError(f"A merge layer should be called on a list of at least "
                       f"{self._tl_min_inputs} inputs. Got {len(input_shape)} inputs. "
                       f"Full input_shape received: {input_shape}")
    dims = [_dims(s) for s in input_shape]
    batches = {d[0] for d in dims if d and d[0] is not None}
    if len(batches) > 1:
      raise ValueError(f"Cannot merge tensors with different batch sizes. Got tensors with "
                       f"shapes {[tuple(d) for d in dims]}")
    out = dims[0][1:] if dims[0] is not None else None
    for d in dims[1:]:
      out = _broadcast_dims(out, d[1:] if d is not None else None)
    batch = next(iter(batches)) if batches else None
    return None if out is None else [batch] + out

  def build(self, input_shape):
    self._check_shapes(input_shape)
    self.built = True

  def call(self, inputs):
    if not isinstance(inputs, (list, tuple)):
      raise ValueError(f"A merge layer should be called on a list of inputs. "
                       f"Received: inputs={inputs} (not a list of tensors)")
    shapes = [x.shape for x in inputs]
    if any(sh != shapes[0] for sh in shapes[1:]):
      self._check_shapes(shapes)  # (equal shapes always merge; the common case skips this)
    ranks = [sh.rank for sh in shapes]
    if None not in ranks and len(set(ranks)) > 1:
      # Lower-rank inputs get size-1 axes after the batch axis, as in Keras 2.
      top = max(ranks)
      inputs = [x if r == top else _a.reshape(x, _a.concat(
          [_a.shape(x)[:1], _a.ones([top - r], _dt.int32), _a.shape(x)[1:]], 0))
          for x, r in zip(inputs, ranks)]
    return self._merge(list(inputs))

  def _merge(self, inputs):
    return functools.reduce(type(self)._tl_fold, inputs)

  def compute_output_shape(self, input_shape):
    out = self._check_shapes(input_shape)
    return TensorShape(out)

  def compute_mask(self, inputs, mask=None):
    if mask is None:
      return None
    if not isinstance(mask, (list, tuple)):
      raise ValueError(f"`mask` should be a list. Received: mask={mask}")
    if not isinstance(inputs, (list, tuple)):
      raise ValueError(f"`inputs` should be a list. Received: inputs={inputs}")
    if len(mask) != len(inputs):
      raise ValueError(f"The lists `inputs` and `mask` should have the same length. Received: "
                       f"inputs={inputs} of length {len(inputs)}, and mask={mask} of length "
                       f"{len(mask)}")
    masks = [_a.expand_dims(m, 0) for m in mask if m is not None]
    if not masks:
      return None
    return _m.reduce_all(_a.concat(masks, 0), axis=0)


def _shape_str(s):
  if isinstance(s, TensorShape):
    return tuple(s.as_list()) if s.rank is not None else None
  return s


class Add(_Merge):
  """The elementwise sum of a list of inputs."""
  _tl_fold = staticmethod(operator.add)


class Subtract(_Merge):
  """`inputs[0] - inputs[1]` (exactly two inputs)."""

  def _check_shapes(self, input_shape):
    out = super()._check_shapes(input_shape)
    if len(input_shape) != 2:
      raise ValueError(f"A `Subtract` layer should be called on exactly 2 inputs. Received: "
                       f"input_shape={[_shape_str(s) for s in input_shape]}")
    return out

  def _merge(self, inputs):
    return inputs[0] - inputs[1]


class Multiply(_Merge):
  """The elementwise product of a list of inputs."""
  _tl_fold = staticmethod(operator.mul)


class Average(_Merge):
  """The elementwise mean of a list of inputs."""
  _tl_fold = staticmethod(operator.add)

  def _merge(self, inputs):
    return super()._merge(inputs) / len(inputs)


class Maximum(_Merge):
  """The elementwise maximum of a list of inputs."""
  _tl_fold = staticmethod(_m.maximum)


class Minimum(_Merge):
  """The elementwise minimum of a list of inputs."""
  _tl_fold = staticmethod(_m.minimum)


class Concatenate(_Merge):
  """Joins a list of inputs along `axis` (their other axes must match)."""

  def __init__(self, axis=-1, **kwargs):
    super().__init__(**kwargs)
    self.axis = axis

  def _check_shapes(self, input_shape):
    if not isinstance(input_shape, (list, tuple)) or not input_shape or \
        not all(isinstance(s, (list, tuple, TensorShape)) for s in input_shape):
      raise ValueError(f"A `Concatenate` layer should be called on a list of at least 1 "
                       f"input. Received: input_shape={_shape_str(input_shape)}")
    dims = [_dims(s) for s in input_shape]
    if any(d is None for d in dims):
      return None
    ranks = {len(d) for d in dims}
    bad = len(ranks) > 1
    out = list(dims[0])
    if not bad:
      rank = len(out)
      axis = self.axis % rank if -rank <= self.axis < rank else None
      if axis is None:
        bad = True
      else:
        for d in dims[1:]:
          for i, (p, q) in enumerate(zip(out, d)):
            if i == axis:
              out[i] = None if p is None or q is None else p + q
            elif p is not None and q is not None and p != q:
              bad = True
            elif p is None:
              out[i] = q
    if bad:
      raise ValueError(f"A `Concatenate` layer requires inputs with matching shapes except "
                       f"for the concatenation axis. Received: input_shape="
                       f"{[tuple(d) for d in dims]}")
    return out

  def call(self, inputs):
    if not isinstance(inputs, (list, tuple)):
      raise ValueError(f"A `Concatenate` layer should be called on a list of inputs. "
                       f"Received: inputs={inputs} (not a list of tensors)")
    self._check_shapes([x.shape for x in inputs])
    return _a.concat(list(inputs), axis=self.axis)

  def compute_mask(self, inputs, mask=None):
    if mask is None:
      return None
    if not isinstance(mask, (list, tuple)) or len(mask) != len(inputs):
      raise ValueError(f"The `mask` should be a list of the same length as `inputs`. "
                       f"Received: mask={mask}")
    if all(m is None for m in mask):
      return None
    masks = []
    for x, m in zip(inputs, mask):
      if m is None:
        masks.append(_a.ones_like(x, dtype=_dt.bool))
      elif m.shape.rank is not None and m.shape.rank < x.shape.rank:
        masks.append(_a.expand_dims(m, -1))
      else:
        masks.append(m)
    return _m.reduce_all(_a.concat(masks, axis=self.axis), axis=-1, keepdims=False)

  def get_config(self):
    config = super().get_config()
    config["axis"] = self.axis
    return config


class Dot(_Merge):
  """The dot product of two inputs along `axes` (per sample, as `batch_dot`); with
  `normalize` the inputs are L2-normalized first (cosine similarity)."""

  def __init__(self, axes, normalize=False, **kwargs):
    super().__init__(**kwargs)
    if not isinstance(axes, int):
      if not isinstance(axes, (list, tuple)):
        raise TypeError(f"Invalid type for argument `axes`: it should be a list or an int. "
                        f"Received: axes={axes}")
      if len(axes) != 2:
        raise ValueError(f"Invalid format for argument `axes`: it should contain two "
                         f"elements. Received: axes={axes}")
      if not isinstance(axes[0], int) or not isinstance(axes[1], int):
        raise ValueError(f"Invalid format for argument `axes`: list elements should be "
                         f"integers. Received: axes={axes}")
    self.axes = axes
    self.normalize = normalize
    self.supports_masking = True

  def _axes(self, r1, r2):
    if isinstance(self.axes, int):
      if self.axes < 0:
        return [self.axes % r1, self.axes % r2]
      return [self.axes, self.axes]
    return [self.axes[0] % r1 if self.axes[0] < 0 else self.axes[0],
            self.axes[1] % r2 if self.axes[1] < 0 else self.axes[1]]

  def _check_shapes(self, input_shape):
    if not isinstance(input_shape, (list, tuple)) or len(input_shape) != 2 or \
        not all(isinstance(s, (list, tuple, TensorShape)) for s in input_shape):
      raise ValueError(f"A `Dot` layer should be called on a list of 2 inputs. Received: "
                       f"input_shape={_shape_str(input_shape)}")
    s1, s2 = _dims(input_shape[0]), _dims(input_shape[1])
    if s1 is None or s2 is None:
      return None
    a1, a2 = self._axes(len(s1), len(s2))
    if s1[a1] is not None and s2[a2] is not None and s1[a1] != s2[a2]:
      raise ValueError(f"Incompatible input shapes: axis values {s1[a1]} (at axis {a1}) != "
                       f"{s2[a2]} (at axis {a2}). Full input shapes: {tuple(s1)}, {tuple(s2)}")
    out = [s for i, s in enumerate(s1) if i != a1] + \
        [s for i, s in enumerate(s2) if i not in (0, a2)]
    if len(out) == 1:
      out.append(1)
    return out

  def call(self, inputs):
    if not isinstance(inputs, (list, tuple)) or len(inputs) != 2:
      raise ValueError(f"A `Dot` layer should be called on exactly 2 inputs. Received: "
                       f"inputs={inputs}")
    x1, x2 = inputs
    self._check_shapes([x1.shape, x2.shape])
    a1, a2 = self._axes(x1.shape.rank, x2.shape.rank)
    if self.normalize:
      x1 = _m.l2_normalize(x1, axis=a1)
      x2 = _m.l2_normalize(x2, axis=a2)
    return _batch_dot(x1, x2, a1, a2)

  def compute_mask(self, inputs, mask=None):
    return None

  def get_config(self):
    config = super().get_config()
    config.update({"axes": self.axes, "normalize": self.normalize})
    return config


_LETTERS = "bcdefghijklmnopqrstuvwxy"


def _batch_dot(x1, x2, a1, a2):
  """Keras' `batch_dot`: contracts axis a1 of x1 with a2 of x2 for each sample."""
  r1, r2 = x1.shape.rank, x2.shape.rank
  s1 = ["a"] + list(_LETTERS[:r1 - 1])
  s2 = ["a"] + list(_LETTERS[r1 - 1:r1 + r2 - 2])
  s2[a2] = s1[a1]
  out = [c for i, c in enumerate(s1) if i != a1] + [c for i, c in enumerate(s2)
                                                    if i not in (0, a2)]
  y = _la.einsum(f"{''.join(s1)},{''.join(s2)}->{''.join(out)}", x1, x2)
  if len(out) == 1:
    y = _a.expand_dims(y, 1)
  return y


def _functional(cls):
  def fn(inputs, **kwargs):
    return cls(**kwargs)(inputs)
  name = cls.__name__.lower()
  fn.__name__ = fn.__qualname__ = name
  fn.__doc__ = f"`{cls.__name__}(**kwargs)(inputs)`: the functional form of the layer."
  return fn


add = _functional(Add)
subtract = _functional(Subtract)
multiply = _functional(Multiply)
average = _functional(Average)
maximum = _functional(Maximum)
minimum = _functional(Minimum)


def concatenate(inputs, axis=-1, **kwargs):
  """`Concatenate(axis=axis, **kwargs)(inputs)`."""
  return Concatenate(axis=axis, **kwargs)(inputs)


def dot(inputs, axes, normalize=False, **kwargs):
  """`Dot(axes, normalize, **kwargs)(inputs)`."""
  return Dot(axes=axes, normalize=normalize, **kwargs)(inputs)
