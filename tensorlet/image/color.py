"""tf.image colour: dtype conversion, brightness/contrast/saturation/hue/gamma,
colour spaces, standardisation, and their random and stateless random forms.

All compositions of tensorlet ops (differentiable where the dtypes allow),
computed in float32 as TF does (float64 images go through float32 too, as in
TF's adjust_* functions).
"""
import numpy as np

from tensorlet import dtypes as _dt
from tensorlet.ops import array_ops as _a
from tensorlet.ops import math_ops as _m
from tensorlet.ops import random_ops as _r
from tensorlet.tensor import convert_to_tensor


def convert_image_dtype(image, dtype, saturate=False, name=None):
  """Converts between dtypes, rescaling: floats are in [0, 1], integers in [0, MAX]."""
  x = convert_to_tensor(image)
  dtype = _dt.as_dtype(dtype)
  if not (dtype.is_floating or dtype.is_integer):
    raise AttributeError("dtype must be either floating point or integer")
  if not (x.dtype.is_floating or x.dtype.is_integer):
    raise AttributeError("image dtype must be either floating point or integer")
  if dtype is x.dtype:
    return _a.identity(x)
  cast = _m.saturate_cast if saturate else _m.cast
  if x.dtype.is_integer and dtype.is_integer:
    scale_in, scale_out = x.dtype.max, dtype.max
    if scale_in > scale_out:  # scale down first: no overflow
      return cast(_m.floordiv(x, _a.fill([], np.array((scale_in + 1) // (scale_out + 1),
                                                       x.dtype._np))), dtype)
    return _m.multiply(cast(x, dtype), _a.fill([], np.array((scale_out + 1) // (scale_in + 1),
                                                            dtype._np)))
  if x.dtype.is_floating and dtype.is_floating:
    return _m.cast(x, dtype)
  if x.dtype.is_integer:
    return _m.multiply(_m.cast(x, dtype), 1.0 / x.dtype.max)
  # float -> int: scale, then cast (+0.5 so that 1.0 * max survives the truncation)
  return cast(_m.multiply(x, dtype.max + 0.5), dtype)


def _float_image(image):
  x = convert_to_tensor(image)
  if x.dtype in (_dt.float16, _dt.float32):
    return x, x.dtype
  return convert_image_dtype(x, _dt.float32), x.dtype


def _at_least_3d(x, what="image"):
  if x.shape.rank is not None and x.shape.rank < 3:
    raise ValueError(f"'{what}' must be at least three-dimensional.")


def adjust_brightness(image, delta):
  """Adds `delta` to every value (in [0, 1] units for integer images)."""
  x, orig = _float_image(image)
  return convert_image_dtype(x + _m.cast(delta, x.dtype), orig, saturate=True)


def adjust_contrast(images, contrast_factor):
  """(x - mean) * contrast_factor + mean, the mean per image and channel."""
  x, orig = _float_image(images)
  _at_least_3d(x, "images")
  mean = _m.reduce_mean(x, axis=[-3, -2], keepdims=True)
  out = (x - mean) * _m.cast(contrast_factor, x.dtype) + mean
  return convert_image_dtype(out, orig, saturate=True)


def adjust_gamma(image, gamma=1, gain=1):
  """gain * image ** gamma (gamma must be non-negative)."""
  x, orig = _float_image(image)
  if isinstance(gamma, (int, float)) and gamma < 0:
    raise ValueError("Gamma should be a non-negative real number.")
  out = _m.cast(gain, x.dtype) * _m.pow(x, _m.cast(gamma, x.dtype))
  return convert_image_dtype(out, orig, saturate=True)


# ----------------------------------------------------------- colour spaces

def _check_channels(x, n=3, what="image"):
  if x.shape.rank is not None and x.shape.rank == 0:
    raise ValueError(f"'{what}' must be at least one-dimensional.")
  last = x.shape[-1] if x.shape.rank else None
  if last is not None and last != n:
    from tensorlet.errors import FailedPreconditionError
    raise FailedPreconditionError(None, None, f"input must have {n} channels but input only "
                                  f"has {last} channels.")


def _float_channels(images, op_name):
  """The three channels of a float image; TF's dtype error for other dtypes."""
  from tensorlet.ops.nn_ops import _require_float
  x = _require_float(convert_to_tensor(images), op_name, "images")
  _check_channels(x)
  return _a.unstack(x, 3, axis=-1)


def rgb_to_hsv(images, name=None):
  """RGB in [0, 1] -> HSV with hue in [0, 1)."""
  r, g, b = _float_channels(images, "RGBToHSV")
  v = _m.maximum(_m.maximum(r, g), b)
  rng = v - _m.minimum(_m.minimum(r, g), b)
  s = _a.where(v > 0, rng / _a.where(v > 0, v, _a.ones_like(v)), _a.zeros_like(v))
  safe = _a.where(rng > 0, rng, _a.ones_like(rng))
  norm = 1.0 / (safe * 6.0)
  h = _a.where(_m.equal(r, v), norm * (g - b),
               _a.where(_m.equal(g, v), norm * (b - r) + 2.0 / 6.0, norm * (r - g) + 4.0 / 6.0))
  h = _a.where(rng > 0, h, _a.zeros_like(h))
  h = _a.where(h < 0, h + 1.0, h)
  return _a.stack([h, s, v], -1)


def hsv_to_rgb(images, name=None):
  """HSV (hue in [0, 1]) -> RGB."""
  h, s, v = _float_channels(images, "HSVToRGB")
  dh = h * 6.0
  clip = lambda t: _m.minimum(_m.maximum(t, 0.0), 1.0)  # noqa: E731
  dr = clip(_m.abs(dh - 3.0) - 1.0)
  dg = clip(2.0 - _m.abs(dh - 2.0))
  db = clip(2.0 - _m.abs(dh - 4.0))
  one_minus_s = 1.0 - s
  return _a.stack([(one_minus_s + s * dr) * v, (one_minus_s + s * dg) * v,
                   (one_minus_s + s * db) * v], -1)


def _matrix_transform(images, kernel):
  from tensorlet.ops import linalg_ops
  x = convert_to_tensor(images)
  if not x.dtype.is_floating:
    raise TypeError(f"colour conversions need float images, got {x.dtype.name}")
  _check_channels(x)
  return linalg_ops.tensordot(x, convert_to_tensor(np.asarray(kernel, x.dtype._np)),
                              [[-1], [0]])


_RGB_TO_YUV = [[0.299, -0.14714119, 0.61497538], [0.587, -0.28886916, -0.51496512],
               [0.114, 0.43601035, -0.10001026]]
_YUV_TO_RGB = [[1, 1, 1], [0, -0.394642334, 2.03206185], [1.13988303, -0.58062185, 0]]
_RGB_TO_YIQ = [[0.299, 0.59590059, 0.2115], [0.587, -0.27455667, -0.52273617],
               [0.114, -0.32134392, 0.31119955]]
_YIQ_TO_RGB = [[1, 1, 1], [0.95598634, -0.27201283, -1.10674021],
               [0.6208248, -0.64720424, 1.70423049]]


def rgb_to_yuv(images):
  """RGB -> YUV (Y in [0, 1], U and V in [-0.5, 0.5] for RGB in [0, 1])."""
  return _matrix_transform(images, _RGB_TO_YUV)


def yuv_to_rgb(images):
  return _matrix_transform(images, _YUV_TO_RGB)


def rgb_to_yiq(images):
  return _matrix_transform(images, _RGB_TO_YIQ)


def yiq_to_rgb(images):
  return _matrix_transform(images, _YIQ_TO_RGB)


def rgb_to_grayscale(images, name=None):
  """Luma 0.2989 R + 0.5870 G + 0.1140 B, keeping a channel axis of 1."""
  from tensorlet.ops import linalg_ops
  x = convert_to_tensor(images)
  _check_channels(x, what="images")
  orig = x.dtype
  f = convert_image_dtype(x, _dt.float32)
  gray = linalg_ops.tensordot(f, convert_to_tensor(np.array([0.2989, 0.5870, 0.1140],
                                                            np.float32)), [[-1], [-1]])
  return convert_image_dtype(_a.expand_dims(gray, -1), orig)


def grayscale_to_rgb(images, name=None):
  """Repeats the single channel three times."""
  x = convert_to_tensor(images)
  if x.shape.rank is not None and x.shape.rank < 2:
    raise ValueError("'images' must be at least two-dimensional.")
  if x.shape.rank is not None and x.shape[-1] is not None and x.shape[-1] != 1:
    raise ValueError("Last dimension of a grayscale image should be size 1.")
  return _a.tile(x, [1] * (x.shape.rank - 1) + [3])


def adjust_saturation(image, saturation_factor, name=None):
  """Scales the HSV saturation by `saturation_factor` (clipped to [0, 1])."""
  x, orig = _float_image(image)
  _check_channels(x)
  h, s, v = _a.unstack(rgb_to_hsv(x), 3, axis=-1)
  s = _m.minimum(_m.maximum(s * _m.cast(saturation_factor, x.dtype), 0.0), 1.0)
  return convert_image_dtype(hsv_to_rgb(_a.stack([h, s, v], -1)), orig, saturate=True)


def adjust_hue(image, delta, name=None):
  """Rotates the HSV hue by `delta` (in [-1, 1], a fraction of the colour wheel)."""
  x, orig = _float_image(image)
  _check_channels(x)
  if isinstance(delta, (int, float)) and not -1 <= delta <= 1:
    raise ValueError("delta must be in the interval [-1, 1]")
  h, s, v = _a.unstack(rgb_to_hsv(x), 3, axis=-1)
  h = _m.floormod(h + _m.cast(delta, x.dtype), 1.0)
  return convert_image_dtype(hsv_to_rgb(_a.stack([h, s, v], -1)), orig, saturate=True)


def per_image_standardization(image):
  """(x - mean) / max(stddev, 1 / sqrt(num_values)) per image."""
  x = convert_to_tensor(image)
  _at_least_3d(x)
  if not x.dtype.is_floating:
    x = _m.cast(x, _dt.float32)
  n = _m.cast(_m.reduce_prod(_a.shape(x)[-3:]), x.dtype)
  mean = _m.reduce_mean(x, axis=[-1, -2, -3], keepdims=True)
  std = _m.reduce_std(x, axis=[-1, -2, -3], keepdims=True)
  return (x - mean) / _m.maximum(std, _m.rsqrt(n))


# --------------------------------------------------------- random forms

def _check_range(lower, upper):
  if upper <= lower:
    raise ValueError("upper must be > lower.")
  if lower < 0:
    raise ValueError("lower must be non-negative.")


def _check_delta(max_delta, limit=None):
  if max_delta < 0:
    raise ValueError("max_delta must be non-negative.")
  if limit is not None and max_delta > limit:
    raise ValueError(f"max_delta must be <= {limit}.")


def random_brightness(image, max_delta, seed=None):
  _check_delta(max_delta)
  return adjust_brightness(image, _r.uniform([], -max_delta, max_delta, seed=seed))


def random_contrast(image, lower, upper, seed=None):
  _check_range(lower, upper)
  return adjust_contrast(image, _r.uniform([], lower, upper, seed=seed))


def random_saturation(image, lower, upper, seed=None):
  _check_range(lower, upper)
  return adjust_saturation(image, _r.uniform([], lower, upper, seed=seed))


def random_hue(image, max_delta, seed=None):
  _check_delta(max_delta, 0.5)
  return adjust_hue(image, _r.uniform([], -max_delta, max_delta, seed=seed))


def stateless_random_brightness(image, max_delta, seed):
  _check_delta(max_delta)
  return adjust_brightness(image, _r.stateless_uniform([], seed, -max_delta, max_delta))


def stateless_random_contrast(image, lower, upper, seed):
  _check_range(lower, upper)
  return adjust_contrast(image, _r.stateless_uniform([], seed, lower, upper))


def stateless_random_saturation(image, lower, upper, seed=None):
  _check_range(lower, upper)
  return adjust_saturation(image, _r.stateless_uniform([], seed, lower, upper))


def stateless_random_hue(image, max_delta, seed):
  _check_delta(max_delta, 0.5)
  return adjust_hue(image, _r.stateless_uniform([], seed, -max_delta, max_delta))
