"""Keras 2's image preprocessing layers: Resizing, CenterCrop, Rescaling, and the
augmentations (RandomCrop/Flip/Translation/Rotation/Zoom/Contrast/Brightness/
Height/Width) that act only when training.

Images are [height, width, channels] or batches [batch, height, width,
channels] (channels_last). Each random layer owns a `tf.random.Generator`
(seeded by `seed`, else from entropy), made on first use, so it draws new
values per call in eager code, in `tf.function` and in `Dataset.map`.
Rotations, zooms and translations are projective transforms
(ops/image_transform_ops.py) with TF's fill modes and interpolations.
"""
import random

import numpy as np

from tensorlet import dtypes as _dt
from tensorlet.errors import InvalidArgumentError
from tensorlet.image.resizing import resize
from tensorlet.keras.engine.base_layer import Layer
from tensorlet.keras.layers._util import smart_cond
from tensorlet.ops import array_ops as _a
from tensorlet.ops.clip_ops import clip_by_value as _clip
from tensorlet.ops import math_ops as _m
from tensorlet.ops.image_transform_ops import image_projective_transform_v3
from tensorlet.ops.random_ops import Generator
from tensorlet.tensor import Tensor, convert_to_tensor
from tensorlet.tensor_shape import TensorShape

__all__ = ["Resizing", "CenterCrop", "RandomCrop", "Rescaling", "RandomFlip",
           "RandomTranslation", "RandomRotation", "RandomZoom", "RandomContrast",
           "RandomBrightness", "RandomHeight", "RandomWidth", "smart_resize", "transform"]

H_AXIS, W_AXIS = -3, -2
_RESIZE_METHODS = ("bilinear", "nearest", "bicubic", "area", "lanczos3", "lanczos5", "gaussian",
                   "mitchellcubic")


def _interpolation_method(interpolation):
  method = interpolation.lower() if isinstance(interpolation, str) else interpolation
  if method not in _RESIZE_METHODS:
    raise NotImplementedError(f"Value not recognized for `interpolation`: {interpolation}. "
                              f"Supported values are: {list(_RESIZE_METHODS)}")
  return method


def _check_fill_mode_and_interpolation(fill_mode, interpolation):
  if fill_mode not in ("reflect", "wrap", "constant", "nearest"):
    raise NotImplementedError(f"Unknown `fill_mode` {fill_mode}. Only `reflect`, `wrap`, "
                              f"`constant` and `nearest` are supported.")
  if interpolation not in ("nearest", "bilinear"):
    raise NotImplementedError(f"Unknown `interpolation` {interpolation}. Only `nearest` and "
                              f"`bilinear` are supported.")


def convert_inputs(inputs, dtype=None):
  """The image batch as a tensor of `dtype` (dicts are KerasCV's business, as in Keras 2)."""
  if isinstance(inputs, dict):
    raise ValueError(f"This layer can only process a tensor representing an image or a batch "
                     f"of images. Received: type(inputs)={type(inputs)}.If you need to pass a "
                     f"dict containing images, labels, and bounding boxes, you should instead "
                     f"use the preprocessing and augmentation layers from `keras_cv.layers`.")
  x = inputs if isinstance(inputs, Tensor) else convert_to_tensor(inputs)
  if dtype is not None and x.dtype != dtype:
    x = _m.cast(x, dtype)
  return x


def _hw(x):
  """(height, width) as Python ints where static, else int32 scalar tensors."""
  if x.shape.rank is not None and x.shape.rank < 3:
    raise ValueError(f"An image layer takes inputs of rank 3 (height, width, channels) or 4 "
                     f"(a batch), got shape {x.shape}")
  d = x.shape.as_list()
  h, w = d[H_AXIS], d[W_AXIS]
  if h is None or w is None:
    s = _a.shape(x)
    h = s[H_AXIS] if h is None else h
    w = s[W_AXIS] if w is None else w
  return h, w


def _static(*vs):
  return all(isinstance(v, (int, np.integer)) for v in vs)


def _crop(x, top, left, height, width):
  """The window of the images at (top, left) of (height, width): ints or int tensors."""
  for what, v in (("target_height", height), ("target_width", width)):
    if _static(v) and v <= 0:
      raise ValueError(f"{what} must be > 0.")
  rank = x.shape.rank
  begin = [top, left, 0] if rank == 3 else [0, top, left, 0]
  size = [height, width, -1] if rank == 3 else [-1, height, width, -1]
  as_vec = lambda v: _a.stack([_m.cast(b, _dt.int32) if isinstance(b, Tensor) else b  # noqa
                               for b in v])
  if not _static(top, left):
    begin = as_vec(begin)
  if not _static(height, width):
    size = as_vec(size)
  out = _a.slice(x, begin, size)
  # NOTE: a slice at run-time offsets knows no static dims; the window's are known.
  shape = x.shape.as_list()
  shape[H_AXIS] = height if _static(height) else None
  shape[W_AXIS] = width if _static(width) else None
  out.set_shape(shape)
  return out


def smart_resize(x, size, interpolation="bilinear"):
  """Resizes images to `size` without distorting them: the largest centred window
  with the aspect ratio of `size` is cut out first (tensors of rank 3 or 4)."""
  x = convert_to_tensor(x)
  if x.shape.rank not in (3, 4):
    raise ValueError(f"Expected an image array with shape `(height, width, channels)`, or "
                     f"`(batch_size, height, width, channels)`, but got input with incorrect "
                     f"rank, of shape {x.shape}.")
  th, tw = int(size[0]), int(size[1])
  h, w = _hw(x)
  f32 = np.float32
  if _static(h, w):
    ch = min(h, int(f32(w * th) / f32(tw)))
    cw = min(w, int(f32(h * tw) / f32(th)))
    top, left = int(f32(h - ch) / f32(2)), int(f32(w - cw) / f32(2))
  else:
    h, w = _m.cast(h, _dt.int32), _m.cast(w, _dt.int32)
    ch = _m.minimum(h, _m.cast(_m.cast(w * th, _dt.float32) / tw, _dt.int32))
    cw = _m.minimum(w, _m.cast(_m.cast(h * tw, _dt.float32) / th, _dt.int32))
    top = _m.cast(_m.cast(h - ch, _dt.float32) / 2, _dt.int32)
    left = _m.cast(_m.cast(w - cw, _dt.float32) / 2, _dt.int32)
  return _set_hw(resize(_crop(x, top, left, ch, cw), [th, tw], method=interpolation), th, tw)


def _set_hw(x, h, w):
  shape = x.shape.as_list()
  if shape and x.shape.rank is not None:
    shape[H_AXIS], shape[W_AXIS] = h, w
    x.set_shape(shape)
  return x


def _with_hw(input_shape, h, w):
  shape = TensorShape(input_shape).as_list()
  shape[H_AXIS], shape[W_AXIS] = h, w
  return TensorShape(shape)


# ---------------------------------------------------------- deterministic layers

class Resizing(Layer):
  """Resizes images to (height, width) with any `tf.image.resize` interpolation;
  `crop_to_aspect_ratio=True` crops to the target aspect ratio first."""

  def __init__(self, height, width, interpolation="bilinear", crop_to_aspect_ratio=False,
               **kwargs):
    self.height, self.width = height, width
    self.interpolation = interpolation
    self.crop_to_aspect_ratio = crop_to_aspect_ratio
    self._interpolation_method = _interpolation_method(interpolation)
    super().__init__(**kwargs)

  def call(self, inputs):
    dtype = self.compute_dtype if self.interpolation == "nearest" else _dt.float32
    size = [self.height, self.width]
    from tensorlet.ragged.ragged_tensor import RaggedTensor
    if isinstance(inputs, RaggedTensor):
      return _m.cast(self._resize_ragged(inputs, dtype, size), self.compute_dtype)
    x = convert_inputs(inputs, dtype)
    if self.crop_to_aspect_ratio:
      out = smart_resize(x, size, self._interpolation_method)
    else:
      out = resize(x, size, method=self._interpolation_method)
    return _m.cast(out, self.compute_dtype)

  def _resize_ragged(self, images, dtype, size):
    """A ragged batch of images of different sizes -> one dense batch of `size`."""
    from tensorlet.graph.functional import map_fn
    from tensorlet.tensor_spec import TensorSpec
    if images.dtype != dtype:
      images = images.with_flat_values(_m.cast(images.flat_values, dtype))

    def one(image):
      x = image.to_tensor()
      if self.crop_to_aspect_ratio:
        return smart_resize(x, size, self._interpolation_method)
      return resize(x, size, method=self._interpolation_method)
    out_dtype = dtype if self._interpolation_method == "nearest" else _dt.float32
    spec = TensorSpec(size + images.shape.as_list()[-1:], out_dtype)
    return map_fn(one, images, fn_output_signature=spec)

  def compute_output_shape(self, input_shape):
    return _with_hw(input_shape, self.height, self.width)

  def get_config(self):
    config = super().get_config()
    config.update({"height": self.height, "width": self.width,
                   "interpolation": self.interpolation,
                   "crop_to_aspect_ratio": self.crop_to_aspect_ratio})
    return config


class CenterCrop(Layer):
  """Crops the central (height, width) window; images smaller than that are
  resized (cropped to the target aspect ratio first) instead."""

  def __init__(self, height, width, **kwargs):
    self.height, self.width = height, width
    super().__init__(**kwargs, autocast=False)

  def call(self, inputs):
    x = convert_inputs(inputs, self.compute_dtype)
    h, w = _hw(x)
    dh, dw = h - self.height, w - self.width

    def center_crop():
      if _static(dh, dw):
        return _crop(x, dh // 2, dw // 2, self.height, self.width)
      top = _m.cast(_m.cast(dh, _dt.float32) / 2, _dt.int32)
      left = _m.cast(_m.cast(dw, _dt.float32) / 2, _dt.int32)
      return _crop(x, top, left, self.height, self.width)

    def upsize():
      return _m.cast(smart_resize(x, [self.height, self.width]), self.compute_dtype)

    if _static(dh, dw):
      return center_crop() if dh >= 0 and dw >= 0 else upsize()
    return smart_cond(_m.logical_and(dh >= 0, dw >= 0), center_crop, upsize)

  def compute_output_shape(self, input_shape):
    return _with_hw(input_shape, self.height, self.width)

  def get_config(self):
    config = super().get_config()
    config.update({"height": self.height, "width": self.width})
    return config


class Rescaling(Layer):
  """inputs * scale + offset, in the layer's dtype (integers become floats)."""

  def __init__(self, scale, offset=0.0, **kwargs):
    self.scale, self.offset = scale, offset
    super().__init__(**kwargs)

  def call(self, inputs):
    dtype = self.compute_dtype
    x = convert_inputs(inputs, dtype)
    return x * _m.cast(self.scale, dtype) + _m.cast(self.offset, dtype)

  def compute_output_shape(self, input_shape):
    return TensorShape(input_shape)

  def get_config(self):
    config = super().get_config()
    config.update({"scale": self.scale, "offset": self.offset})
    return config


# ---------------------------------------------------------------- random layers

class _RandomLayer(Layer):
  """A layer drawing from its own `tf.random.Generator` (Keras 2's BaseRandomLayer
  with `force_generator=True`)."""

  def __init__(self, seed=None, force_generator=True, rng_type=None, **kwargs):
    super().__init__(**kwargs)
    self.seed = seed
    self._rng_type = rng_type or "stateful"
    self._tl_generator = None

  @property
  def _random_generator(self):
    if self._tl_generator is None:
      # NOTE: as Keras 2, an unseeded layer takes its seed from Python's `random`, so
      # tf.keras.utils.set_random_seed makes it repeat.
      seed = self.seed if self.seed is not None else random.randint(1, int(1e9))
      self._tl_generator = Generator.from_seed(seed)
    return self._tl_generator

  def _uniform(self, shape, minval, maxval, dtype=_dt.float32):
    return self._random_generator.uniform(shape, minval, maxval, dtype=dtype)

  def call(self, inputs, training=True):
    x = self._convert(inputs)
    if training is None or training is False:
      return x
    self._check_rank(x)
    return smart_cond(training, lambda: self._augment(x), lambda: _a.identity(x))

  # Keras 2 reports images of the wrong rank through the op that meets them first.
  _rank_error = InvalidArgumentError

  def _check_rank(self, x):
    if self._rank_error is None:
      return
    rank = x.shape.rank
    if rank is not None and rank not in (3, 4):
      msg = (f"{type(self).__name__} expects images of rank 3 (height, width, channels) or 4 "
             f"(batch, height, width, channels); got inputs of shape {x.shape}")
      raise (InvalidArgumentError(None, None, msg) if self._rank_error is InvalidArgumentError
             else self._rank_error(msg))

  def _convert(self, inputs):
    return convert_inputs(inputs, self.compute_dtype)

  def compute_output_shape(self, input_shape):
    return TensorShape(input_shape)

  def get_config(self):
    config = super().get_config()
    config["rng_type"] = self._rng_type
    return config


def _factor_range(factor):
  """(lower, upper) of a factor given as a number f (-f, f) or a pair."""
  if isinstance(factor, (tuple, list)):
    if len(factor) != 2:
      raise ValueError(f"`factor` must be a number or a pair (lower, upper), got {factor!r:.80}")
    return factor[0], factor[1]
  return -factor, factor


def _batched(x, fn):
  """fn on a 4-D batch; 3-D images get a batch of one on the way."""
  if x.shape.rank == 3:
    return _a.squeeze(fn(_a.expand_dims(x, 0)), 0)
  return fn(x)


def transform(images, transforms, fill_mode="reflect", fill_value=0.0,
              interpolation="bilinear", output_shape=None):
  """Applies projective `transforms` ([1 or batch, 8]) to a 4-D image batch."""
  if output_shape is None:
    h, w = _hw(images)
    output_shape = [h, w] if _static(h, w) else _a.stack([h, w])
  return image_projective_transform_v3(images, transforms, output_shape, fill_value,
                                       interpolation.upper(), fill_mode.upper())


def _float_hw(x):
  h, w = _hw(x)
  if _static(h, w):
    return np.float32(h), np.float32(w)
  return _m.cast(h, _dt.float32), _m.cast(w, _dt.float32)


def get_translation_matrix(translations):
  """[n, 8] transforms shifting images by translations [n, 2] = (dx, dy) pixels."""
  n = _a.shape(translations)[0]
  one, zero = _a.ones([n, 1]), _a.zeros([n, 1])
  return _a.concat([one, zero, -translations[:, 0:1], zero, one, -translations[:, 1:2],
                    _a.zeros([n, 2])], axis=1)


def get_rotation_matrix(angles, image_height, image_width):
  """[n, 8] transforms rotating images by `angles` (radians, counter-clockwise)
  about their centres."""
  c, s = _m.cos(angles), _m.sin(angles)
  hm1, wm1 = image_height - 1, image_width - 1
  x_off = (wm1 - (c * wm1 - s * hm1)) / 2.0
  y_off = (hm1 - (s * wm1 + c * hm1)) / 2.0
  n = _a.shape(angles)[0]
  col = lambda v: _a.expand_dims(v, 1)  # noqa: E731
  return _a.concat([col(c), col(-s), col(x_off), col(s), col(c), col(y_off),
                    _a.zeros([n, 2])], axis=1)


def get_zoom_matrix(zooms, image_height, image_width):
  """[n, 8] transforms scaling images about their centres by zooms [n, 2] = (zx, zy)."""
  n = _a.shape(zooms)[0]
  zx, zy = zooms[:, 0:1], zooms[:, 1:2]
  x_off = (image_width - 1.0) / 2.0 * (1.0 - zx)
  y_off = (image_height - 1.0) / 2.0 * (1.0 - zy)
  zero = _a.zeros([n, 1])
  return _a.concat([zx, zero, x_off, zero, zy, y_off, _a.zeros([n, 2])], axis=1)


class RandomCrop(_RandomLayer):
  """Crops a random (height, width) window (one place for the whole batch) when
  training; otherwise, or for smaller images, resizes as CenterCrop's smart resize."""

  def __init__(self, height, width, seed=None, **kwargs):
    super().__init__(seed=seed, autocast=False, **kwargs)
    self.height, self.width = height, width

  def call(self, inputs, training=True):
    x = self._convert(inputs)
    if training is not None and training is not False:
      self._check_rank(x)
    h, w = _hw(x)
    dh, dw = h - self.height, w - self.width

    def random_crop():
      r = self._uniform([2], 0, np.iinfo(np.int32).max, _dt.int32)
      return _crop(x, r[0] % (dh + 1), r[1] % (dw + 1), self.height, self.width)

    def resize_():
      return _m.cast(smart_resize(x, [self.height, self.width]), self.compute_dtype)

    fits = (dh >= 0 and dw >= 0) if _static(dh, dw) else _m.logical_and(dh >= 0, dw >= 0)
    if isinstance(training, Tensor) or isinstance(fits, Tensor):
      pred = _m.logical_and(convert_to_tensor(bool(training) if not isinstance(training, Tensor)
                                              else training), fits)
      return smart_cond(pred, random_crop, resize_)
    return random_crop() if training and fits else resize_()

  def compute_output_shape(self, input_shape):
    return _with_hw(input_shape, self.height, self.width)

  def get_config(self):
    config = super().get_config()
    config.update({"height": self.height, "width": self.width, "seed": self.seed})
    return config


HORIZONTAL, VERTICAL, HORIZONTAL_AND_VERTICAL = "horizontal", "vertical", \
    "horizontal_and_vertical"


class RandomFlip(_RandomLayer):
  """Flips each image left-right and/or up-down with probability 1/2 when training."""

  def __init__(self, mode=HORIZONTAL_AND_VERTICAL, seed=None, **kwargs):
    super().__init__(seed=seed, **kwargs)
    if mode not in (HORIZONTAL, VERTICAL, HORIZONTAL_AND_VERTICAL):
      raise ValueError(f"RandomFlip layer {self.name} received an unknown mode argument {mode}")
    self.mode = mode
    self.horizontal = mode in (HORIZONTAL, HORIZONTAL_AND_VERTICAL)
    self.vertical = mode in (VERTICAL, HORIZONTAL_AND_VERTICAL)

  _rank_error = ValueError

  def _augment(self, x):
    out = x
    for on, axis in ((self.horizontal, W_AXIS), (self.vertical, H_AXIS)):
      if on:
        out = self._flip(out, axis)
    return out

  def _flip(self, x, axis):
    if x.shape.rank == 3:
      flip = self._uniform([], 0.0, 1.0) < 0.5
    else:
      flip = _a.reshape(self._uniform(_a.shape(x)[:1], 0.0, 1.0) < 0.5, [-1, 1, 1, 1])
    return _a.where(flip, _a.reverse(x, [x.shape.rank + axis]), x)

  def get_config(self):
    config = super().get_config()
    config.update({"mode": self.mode, "seed": self.seed})
    return config


class _TransformLayer(_RandomLayer):
  """A random projective transform per image, with Keras 2's fill options."""

  def __init__(self, fill_mode="reflect", interpolation="bilinear", seed=None, fill_value=0.0,
               **kwargs):
    super().__init__(seed=seed, **kwargs)
    _check_fill_mode_and_interpolation(fill_mode, interpolation)
    self.fill_mode, self.fill_value, self.interpolation = fill_mode, fill_value, interpolation

  def _augment(self, x):
    def apply(images):
      h, w = _float_hw(images)
      n = _a.shape(images)[:1]
      return transform(images, self._matrix(n, h, w), fill_mode=self.fill_mode,
                       fill_value=self.fill_value, interpolation=self.interpolation)
    out = _batched(x, apply)
    out.set_shape(x.shape)
    return out

  def _fill_config(self):
    return {"fill_mode": self.fill_mode, "fill_value": self.fill_value,
            "interpolation": self.interpolation, "seed": self.seed}


class RandomTranslation(_TransformLayer):
  """Shifts each image by random fractions of its height and width when training."""

  def __init__(self, height_factor, width_factor, fill_mode="reflect",
               interpolation="bilinear", seed=None, fill_value=0.0, **kwargs):
    super().__init__(fill_mode, interpolation, seed, fill_value, **kwargs)
    self.height_factor, self.width_factor = height_factor, width_factor
    self.height_lower, self.height_upper = _factor_range(height_factor)
    if self.height_upper < self.height_lower:
      raise ValueError(f"`height_factor` cannot have upper bound less than lower bound, got "
                       f"{height_factor}")
    if abs(self.height_lower) > 1.0 or abs(self.height_upper) > 1.0:
      raise ValueError(f"`height_factor` argument must have values between [-1, 1]. "
                       f"Received: height_factor={height_factor}")
    self.width_lower, self.width_upper = _factor_range(width_factor)
    if self.width_upper < self.width_lower:
      raise ValueError(f"`width_factor` cannot have upper bound less than lower bound, got "
                       f"{width_factor}")
    if abs(self.width_lower) > 1.0 or abs(self.width_upper) > 1.0:
      raise ValueError(f"`width_factor` must have values between [-1, 1], got {width_factor}")

  def _matrix(self, n, h, w):
    shape = _a.concat([n, [1]], 0)
    dy = self._uniform(shape, self.height_lower, self.height_upper) * h
    dx = self._uniform(shape, self.width_lower, self.width_upper) * w
    return get_translation_matrix(_a.concat([dx, dy], axis=1))

  def get_config(self):
    config = super().get_config()
    config.update({"height_factor": self.height_factor, "width_factor": self.width_factor})
    config.update(self._fill_config())
    return config


class RandomRotation(_TransformLayer):
  """Rotates each image by a random angle in factor * 2 pi radians when training."""

  def __init__(self, factor, fill_mode="reflect", interpolation="bilinear", seed=None,
               fill_value=0.0, **kwargs):
    super().__init__(fill_mode, interpolation, seed, fill_value, **kwargs)
    self.factor = factor
    self.lower, self.upper = _factor_range(factor)
    if self.upper < self.lower:
      raise ValueError(f"`factor` argument cannot have a negative value. Received: "
                       f"factor={factor}")

  def _matrix(self, n, h, w):
    angles = self._uniform(n, self.lower * 2.0 * np.pi, self.upper * 2.0 * np.pi)
    return get_rotation_matrix(angles, h, w)

  def get_config(self):
    config = super().get_config()
    config["factor"] = self.factor
    config.update(self._fill_config())
    return config


class RandomZoom(_TransformLayer):
  """Zooms each image by a random factor when training: a positive factor zooms
  out, a negative one zooms in; width follows height unless `width_factor` is given."""

  def __init__(self, height_factor, width_factor=None, fill_mode="reflect",
               interpolation="bilinear", seed=None, fill_value=0.0, **kwargs):
    super().__init__(fill_mode, interpolation, seed, fill_value, **kwargs)
    self.height_factor, self.width_factor = height_factor, width_factor
    self.height_lower, self.height_upper = _factor_range(height_factor)
    if abs(self.height_lower) > 1.0 or abs(self.height_upper) > 1.0:
      raise ValueError(f"`height_factor` argument must have values between [-1, 1]. "
                       f"Received: height_factor={height_factor}")
    if width_factor is not None:
      self.width_lower, self.width_upper = _factor_range(width_factor)
      if self.width_lower < -1.0 or self.width_upper < -1.0:
        raise ValueError(f"`width_factor` argument must have values larger than -1. "
                         f"Received: width_factor={width_factor}")

  def _matrix(self, n, h, w):
    shape = _a.concat([n, [1]], 0)
    zy = self._uniform(shape, 1.0 + self.height_lower, 1.0 + self.height_upper)
    if self.width_factor is not None:
      zx = self._uniform(shape, 1.0 + self.width_lower, 1.0 + self.width_upper)
    else:
      zx = zy
    return get_zoom_matrix(_a.concat([zx, zy], axis=1), h, w)

  def get_config(self):
    config = super().get_config()
    config.update({"height_factor": self.height_factor, "width_factor": self.width_factor})
    config.update(self._fill_config())
    return config


class RandomContrast(_RandomLayer):
  """Scales each image's deviations from its per-channel mean by one random factor
  in [1 - lower, 1 + upper] for the batch when training; clipped to [0, 255]."""

  def __init__(self, factor, seed=None, **kwargs):
    super().__init__(seed=seed, **kwargs)
    self.factor = factor
    if isinstance(factor, (tuple, list)):
      self.lower, self.upper = _factor_range(factor)
    else:
      self.lower = self.upper = factor
    if self.lower < 0.0 or self.upper < 0.0 or self.lower > 1.0:
      raise ValueError(f"`factor` argument cannot have negative values or values greater "
                       f"than 1.Received: factor={factor}")

  def _augment(self, x):
    f = self._uniform([], 1.0 - self.lower, 1.0 + self.upper)
    mean = _m.reduce_mean(x, axis=[H_AXIS, W_AXIS], keepdims=True)
    out = (x - mean) * _m.cast(f, x.dtype) + mean
    return _clip(out, 0, 255)

  def get_config(self):
    config = super().get_config()
    config.update({"factor": self.factor, "seed": self.seed})
    return config


class RandomBrightness(_RandomLayer):
  """Adds a random delta (factor times the width of `value_range`) to each image
  when training, clipped to `value_range`."""

  _rank_error = None  # its own check says it as Keras 2 does
  _FACTOR_ERROR = ("The `factor` argument should be a number (or a list of two numbers) in "
                   "the range [-1.0, 1.0]. ")
  _RANGE_ERROR = "The `value_range` argument should be a list of two numbers. "

  def __init__(self, factor, value_range=(0, 255), seed=None, **kwargs):
    super().__init__(seed=seed, **kwargs)
    self._set_factor(factor)
    if not isinstance(value_range, (tuple, list)) or len(value_range) != 2:
      raise ValueError(self._RANGE_ERROR + f"Got {value_range}")
    self._value_range = sorted(value_range)
    self._seed = seed

  def _set_factor(self, factor):
    if isinstance(factor, (tuple, list)):
      if len(factor) != 2:
        raise ValueError(self._FACTOR_ERROR + f"Got {factor}")
      for f in factor:
        self._check_factor(f)
      self._factor = sorted(factor)
    elif isinstance(factor, (int, float)):
      self._check_factor(factor)
      self._factor = [-abs(factor), abs(factor)]
    else:
      raise ValueError(self._FACTOR_ERROR + f"Got {factor}")

  def _check_factor(self, f):
    if f > 1.0 or f < -1.0:
      raise ValueError(self._FACTOR_ERROR + f"Got {f}")

  def _augment(self, x):
    rank = x.shape.rank
    if rank == 3:
      shape = [1, 1, 1]
    elif rank == 4:
      shape = _a.concat([_a.shape(x)[:1], [1, 1, 1]], 0)
    else:
      raise ValueError(f"Expected the input image to be rank 3 or 4. Got inputs.shape = "
                       f"{x.shape}")
    lo, hi = self._value_range
    delta = self._uniform(shape, self._factor[0], self._factor[1]) * (hi - lo)
    return _clip(x + _m.cast(delta, x.dtype), lo, hi)

  def get_config(self):
    config = super().get_config()
    config.update({"factor": self._factor, "value_range": self._value_range,
                   "seed": self._seed})
    return config


class _RandomSize(_RandomLayer):
  """Resizes one axis by a random factor (the same for the whole batch) when training."""

  _axis = None

  def __init__(self, factor, interpolation="bilinear", seed=None, **kwargs):
    super().__init__(seed=seed, **kwargs)
    self.factor = factor
    lower, upper = _factor_range(factor)
    if upper < lower:
      raise ValueError(f"`factor` argument cannot have an upper bound {self._less} the lower "
                       f"bound. Received: factor={factor}")
    if lower < -1.0 or upper < -1.0:
      raise ValueError(f"`factor` argument must have values larger than -1. Received: "
                       f"factor={factor}")
    self._lower, self._upper = lower, upper
    self.interpolation = interpolation
    self._interpolation_method = _interpolation_method(interpolation)

  def _convert(self, inputs):
    return convert_inputs(inputs)

  def _augment(self, x):
    h, w = _hw(x)
    f = self._uniform([], 1.0 + self._lower, 1.0 + self._upper)
    n = h if self._axis == H_AXIS else w
    new = _m.cast(f * _m.cast(n, _dt.float32), _dt.int32)
    size = _a.stack([new, w] if self._axis == H_AXIS else [h, new])
    out = _m.cast(resize(x, size, method=self._interpolation_method), self.compute_dtype)
    shape = x.shape.as_list()
    shape[self._axis] = None
    out.set_shape(shape)
    return out

  def compute_output_shape(self, input_shape):
    shape = TensorShape(input_shape).as_list()
    shape[self._axis] = None
    return TensorShape(shape)

  def get_config(self):
    config = super().get_config()
    config.update({"factor": self.factor, "interpolation": self.interpolation,
                   "seed": self.seed})
    return config


class RandomHeight(_RandomSize):
  """Resizes the height by a random factor in [1 + lower, 1 + upper] when training."""
  _axis, _less = H_AXIS, "lesser than"

  @property
  def height_lower(self):
    return self._lower

  @property
  def height_upper(self):
    return self._upper


class RandomWidth(_RandomSize):
  """Resizes the width by a random factor in [1 + lower, 1 + upper] when training."""
  _axis, _less = W_AXIS, "less than"

  @property
  def width_lower(self):
    return self._lower

  @property
  def width_upper(self):
    return self._upper
