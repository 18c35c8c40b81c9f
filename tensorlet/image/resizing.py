"""tf.image geometry: resize, crops, pads, flips, rotations.

Images are [height, width, channels] or batches [batch, height, width,
channels]. Crops and pads are slices and pads (so they differentiate); sizes
and offsets must be known when the graph is built, as TF needs them for its
static checks.
"""
import numpy as np

from tensorlet import dtypes as _dt
from tensorlet.errors import InvalidArgumentError
from tensorlet.ops import array_ops as _a
from tensorlet.ops import math_ops as _m
from tensorlet.ops import random_ops as _r
from tensorlet.ops.image_ops import METHODS, resize_images
from tensorlet.ops.registry import constant_value, execute
from tensorlet.tensor import Tensor, convert_to_tensor


class ResizeMethod:
  """The `method` values of `tf.image.resize`."""
  BILINEAR = "bilinear"
  NEAREST_NEIGHBOR = "nearest"
  BICUBIC = "bicubic"
  AREA = "area"
  LANCZOS3 = "lanczos3"
  LANCZOS5 = "lanczos5"
  GAUSSIAN = "gaussian"
  MITCHELLCUBIC = "mitchellcubic"


def as_image(image, name="image", min_rank=3):
  """The tensor, its rank (3 or 4) and whether it is a batch."""
  x = convert_to_tensor(image)
  rank = x.shape.rank
  if rank is None:
    raise ValueError(f"'{name}' contains no shape.")
  if rank < min_rank or rank > 4:
    raise ValueError(f"'{name}' must have either 3 or 4 dimensions.")
  return x, rank


def static_int(v, what):
  """A Python int from an int or a constant tensor (TF's checks need them static here)."""
  if isinstance(v, Tensor):
    c = constant_value(v)
    if c is None:
      raise ValueError(f"{what} must be known when the graph is built")
    v = c
  a = np.asarray(v)
  if a.ndim != 0 or a.dtype.kind not in "iu":
    raise TypeError(f"{what} must be an integer scalar, got {v!r}")
  return int(a)


def _hw(x, rank):
  """Static (height, width), or the dynamic ones for unknown dims."""
  d = x.shape.as_list()[-3:-1]
  if None in d:
    s = _a.shape(x)
    return [s[-3] if d[0] is None else d[0], s[-2] if d[1] is None else d[1]]
  return d


# ----------------------------------------------------------------- resize

def resize(images, size, method=ResizeMethod.BILINEAR, preserve_aspect_ratio=False,
           antialias=False, name=None):
  """Resizes images to `size` = [new_height, new_width] (TF2's half-pixel sampling).

  Bilinear, bicubic, area and the scale-and-translate kernels (lanczos3/5,
  gaussian, mitchellcubic) return float32; nearest keeps the input dtype.
  `antialias` widens the kernel when downsampling; `preserve_aspect_ratio`
  fits the image inside `size` instead.
  """
  x, rank = as_image(images, "images")
  if method not in METHODS:
    raise ValueError(f"Resize method is not implemented: {method}")
  try:
    size = convert_to_tensor(size, _dt.int32) if not isinstance(size, Tensor) else size
  except (TypeError, ValueError):
    raise ValueError("'size' must be a 1-D int32 Tensor") from None
  if not size.dtype.is_integer:
    raise ValueError("'size' must be a 1-D int32 Tensor")
  if not size.shape.is_compatible_with([2]):
    raise ValueError("'size' must be a 1-D Tensor of 2 elements: new_height, new_width")
  if size.dtype is not _dt.int32:
    size = _m.cast(size, _dt.int32)
  if rank == 3:
    x = _a.expand_dims(x, 0)
  if preserve_aspect_ratio:
    size = _aspect_size(x, size)
  out = resize_images(x, size, method, antialias)
  if out.dtype is _dt.float64 and method != "nearest":
    out = _m.cast(out, _dt.float32)
  return out[0] if rank == 3 else out


def _aspect_size(x, size):
  h, w = x.shape.as_list()[1:3]
  sv = constant_value(size)
  if h is not None and w is not None and sv is not None:
    f32 = np.float32
    scale = min(f32(sv[0]) / f32(h), f32(sv[1]) / f32(w))
    return convert_to_tensor(np.array([np.rint(scale * f32(h)), np.rint(scale * f32(w))],
                                      np.int32))
  hw = _m.cast(_a.shape(x)[1:3], _dt.float32)
  scale = _m.reduce_min(_m.cast(size, _dt.float32) / hw)
  return _m.cast(_m.round(scale * hw), _dt.int32)


def resize_with_pad(image, target_height, target_width, method=ResizeMethod.BILINEAR,
                    antialias=False):
  """Resizes keeping the aspect ratio, then zero-pads to the target size."""
  x, rank = as_image(image)
  th, tw = static_int(target_height, "target_height"), static_int(target_width, "target_width")
  if th <= 0:
    raise ValueError("target_height must be > 0.")
  if tw <= 0:
    raise ValueError("target_width must be > 0.")
  h, w = x.shape.as_list()[-3:-1]
  if h is None or w is None:
    raise ValueError("resize_with_pad needs the image height and width to be known")
  f32 = np.float32
  ratio = max(f32(w) / f32(tw), f32(h) / f32(th))
  rh, rw = f32(h) / ratio, f32(w) / ratio
  ph = max(0, int(np.floor((f32(th) - rh) / f32(2))))
  pw = max(0, int(np.floor((f32(tw) - rw) / f32(2))))
  resized = resize(x, [int(np.floor(rh)), int(np.floor(rw))], method, antialias=antialias)
  return pad_to_bounding_box(resized, ph, pw, th, tw)


# ---------------------------------------------------------- crops and pads

def _check(cond, msg):
  if not cond:
    raise ValueError(msg)


def _int_arg(v, what):
  """A Python int, or an int32 scalar tensor when only known at run time."""
  if isinstance(v, Tensor):
    c = constant_value(v)
    if c is None:
      return _m.cast(v, _dt.int32)
    v = c
  a = np.asarray(v)
  if a.ndim != 0 or a.dtype.kind not in "iu":
    raise TypeError(f"{what} must be an integer scalar, got {v!r}")
  return int(a)


def _known(*vs):
  return all(isinstance(v, int) for v in vs)


def _hw_dims(x):
  """(height, width): ints where static, int32 scalar tensors where not."""
  h, w = x.shape.as_list()[-3:-1]
  if h is None or w is None:
    s = _a.shape(x)
    h = s[-3] if h is None else h
    w = s[-2] if w is None else w
  return h, w


def _vec(*vs):
  if _known(*vs):
    return list(vs)
  return _a.stack([v if isinstance(v, Tensor) else convert_to_tensor(v, _dt.int32) for v in vs])


def _pad_axis(x, axis, before, after):
  """Zero-pads one axis by amounts that may be tensors (concat with zero blocks)."""
  parts = []
  s = _a.shape(x)
  for n in (before, None, after):
    if n is None:
      parts.append(x)
      continue
    shape = _a.concat([s[:axis], _a.reshape(_m.cast(n, _dt.int32), [1]), s[axis + 1:]], 0)
    parts.append(_a.zeros(shape, x.dtype))
  return _a.concat(parts, axis)


def crop_to_bounding_box(image, offset_height, offset_width, target_height, target_width):
  """The [target_height, target_width] window at (offset_height, offset_width)."""
  x, rank = as_image(image)
  oh, ow = _int_arg(offset_height, "offset_height"), _int_arg(offset_width, "offset_width")
  th, tw = _int_arg(target_height, "target_height"), _int_arg(target_width, "target_width")
  if _known(ow):
    _check(ow >= 0, "offset_width must be >= 0.")
  if _known(oh):
    _check(oh >= 0, "offset_height must be >= 0.")
  if _known(tw):
    _check(tw > 0, "target_width must be > 0.")
  if _known(th):
    _check(th > 0, "target_height must be > 0.")
  h, w = x.shape.as_list()[-3:-1]
  if w is not None and _known(tw, ow):
    _check(w >= tw + ow, "width must be >= target + offset.")
  if h is not None and _known(th, oh):
    _check(h >= th + oh, "height must be >= target + offset.")
  begin = _vec(*([0] * (rank - 3) + [oh, ow, 0]))
  size = _vec(*([-1] * (rank - 3) + [th, tw, -1]))
  return _a.slice(x, begin, size)


def pad_to_bounding_box(image, offset_height, offset_width, target_height, target_width):
  """Zero-pads to [target_height, target_width] with the image at the offsets."""
  x, rank = as_image(image)
  oh, ow = _int_arg(offset_height, "offset_height"), _int_arg(offset_width, "offset_width")
  th, tw = _int_arg(target_height, "target_height"), _int_arg(target_width, "target_width")
  h, w = _hw_dims(x)
  if _known(oh):
    _check(oh >= 0, "offset_height must be >= 0")
  if _known(ow):
    _check(ow >= 0, "offset_width must be >= 0")
  if _known(tw, ow, w):
    _check(tw - ow - w >= 0, "width must be <= target - offset")
  if _known(th, oh, h):
    _check(th - oh - h >= 0, "height must be <= target - offset")
  if _known(oh, ow, th, tw, h, w):
    pads = [[0, 0]] * (rank - 3) + [[oh, th - oh - h], [ow, tw - ow - w], [0, 0]]
    return _a.pad(x, pads)
  x = _pad_axis(x, rank - 3, oh, th - oh - h)
  return _pad_axis(x, rank - 2, ow, tw - ow - w)


def _max0(v):
  return max(v, 0) if isinstance(v, int) else _m.maximum(v, 0)


def _min(a, b):
  return min(a, b) if _known(a, b) else _m.minimum(a, b)


def resize_with_crop_or_pad(image, target_height, target_width):
  """Centrally crops and/or zero-pads to the target size."""
  x, rank = as_image(image)
  th, tw = _int_arg(target_height, "target_height"), _int_arg(target_width, "target_width")
  if _known(tw):
    _check(tw > 0, "target_width must be > 0.")
  if _known(th):
    _check(th > 0, "target_height must be > 0.")
  h, w = _hw_dims(x)
  dw, dh = tw - w, th - h
  cropped = crop_to_bounding_box(x, _max0(-dh // 2), _max0(-dw // 2), _min(th, h), _min(tw, w))
  return pad_to_bounding_box(cropped, _max0(dh // 2), _max0(dw // 2), th, tw)


def central_crop(image, central_fraction):
  """The central `central_fraction` (0, 1] of the height and width."""
  x, rank = as_image(image)
  central_fraction = float(central_fraction)
  if central_fraction <= 0.0 or central_fraction > 1.0:
    raise ValueError("central_fraction must be within (0, 1]")
  if central_fraction == 1.0:
    return x
  h, w = _hw_dims(x)

  def start(n):
    if isinstance(n, int):
      return int((n - n * central_fraction) / 2)
    nf = _m.cast(n, _dt.float64)
    return _m.cast((nf - nf * central_fraction) / 2, _dt.int32)
  sh, sw = start(h), start(w)
  return crop_to_bounding_box(x, sh, sw, h - 2 * sh, w - 2 * sw)


def _crop_at(x, size, offset_fn):
  x = convert_to_tensor(x)
  sz = convert_to_tensor(size, _dt.int32) if not isinstance(size, Tensor) else size
  if sz.shape.rank is not None and sz.shape.rank != 1:
    raise ValueError(f"random_crop: `size` must be a 1-D list of sizes, got shape {sz.shape}")
  if x.shape.rank is not None and sz.shape.rank == 1 and sz.shape[0] is not None \
      and sz.shape[0] != x.shape.rank:
    raise ValueError(f"size must have {x.shape.rank} elements, got {sz.shape[0]}")
  shape = _a.shape(x, out_type=sz.dtype)
  limit = shape - sz + 1
  if constant_value(limit) is not None and np.any(np.asarray(constant_value(limit)) <= 0):
    raise InvalidArgumentError(None, None, f"Need value.shape >= size, got {x.shape} and "
                               f"{np.asarray(constant_value(sz)).tolist()}")
  offset = offset_fn(_a.shape(limit), sz.dtype) % limit
  return _a.slice(x, offset, sz)


def random_crop(value, size, seed=None, name=None):
  """A random window of `size` (one entry per dimension of `value`)."""
  return _crop_at(value, size, lambda s, dt: _r.uniform(s, 0, dt.max, dtype=dt, seed=seed))


def stateless_random_crop(value, size, seed, name=None):
  """random_crop determined by `seed` (shape [2])."""
  return _crop_at(value, size, lambda s, dt: _r.stateless_uniform(s, seed, 0, dt.max,
                                                                    dtype=dt))


# ------------------------------------------------------- flips, rotations

def _flip(image, axis):
  x, rank = as_image(image)
  return _a.reverse(x, [axis + (rank - 3)])


def flip_left_right(image):
  """Mirrors the width axis."""
  return _flip(image, 1)


def flip_up_down(image):
  """Mirrors the height axis."""
  return _flip(image, 0)


def _random_flip(image, axis, draw):
  x, rank = as_image(image)
  ax = axis + (rank - 3)
  if rank == 3:
    return _a.where(_m.less(draw([]), 0.5), _a.reverse(x, [ax]), x)
  n = x.shape[0] if x.shape[0] is not None else _a.shape(x)[0]
  flips = _m.less(draw(_a.stack([n]) if isinstance(n, Tensor) else [n]), 0.5)
  return _a.where(_a.reshape(flips, [-1, 1, 1, 1]), _a.reverse(x, [ax]), x)


def random_flip_left_right(image, seed=None):
  """Mirrors the width axis with probability 1/2 (per image of a batch)."""
  return _random_flip(image, 1, lambda s: _r.uniform(s, 0, 1.0, seed=seed))


def random_flip_up_down(image, seed=None):
  """Mirrors the height axis with probability 1/2 (per image of a batch)."""
  return _random_flip(image, 0, lambda s: _r.uniform(s, 0, 1.0, seed=seed))


def stateless_random_flip_left_right(image, seed):
  return _random_flip(image, 1, lambda s: _r.stateless_uniform(s, seed, 0, 1.0))


def stateless_random_flip_up_down(image, seed):
  return _random_flip(image, 0, lambda s: _r.stateless_uniform(s, seed, 0, 1.0))


def _rot(x, k, b):
  hw = [b, b + 1]
  perm = list(range(b)) + [b + 1, b, b + 2]
  if k == 1:
    return _a.transpose(_a.reverse(x, [b + 1]), perm)
  if k == 2:
    return _a.reverse(x, hw)
  if k == 3:
    return _a.reverse(_a.transpose(x, perm), [b + 1])
  return x


def rot90(image, k=1, name=None):
  """Rotates by 90 degrees counter-clockwise `k` times."""
  from tensorlet.ops import control_flow_ops
  x, rank = as_image(image)
  b = rank - 3
  kt = convert_to_tensor(k) if not isinstance(k, Tensor) else k
  if not kt.dtype.is_integer:
    raise TypeError(f"k must be an integer, got {kt.dtype.name}")
  kv = constant_value(kt)
  if kv is not None:
    return _rot(x, int(kv) % 4, b)
  return control_flow_ops.switch_case(_m.floormod(kt, 4), [
      (lambda j: lambda: _rot(x, j, b))(j) for j in range(4)])


def transpose(image, name=None):
  """Swaps height and width."""
  x, rank = as_image(image)
  return _a.transpose(x, [1, 0, 2] if rank == 3 else [0, 2, 1, 3])


def extract_patches(images, sizes, strides, rates, padding, name=None):
  """[batch, out_rows, out_cols, size_rows * size_cols * depth] patches of `images`."""
  from tensorlet.ops.image_ops import ExtractImagePatches
  x = convert_to_tensor(images)
  if x.shape.rank is not None and x.shape.rank != 4:
    raise ValueError(f"Shape must be rank 4 but is rank {x.shape.rank} for "
                     f"'ExtractImagePatches'")
  attrs = {}
  for key, v in (("ksizes", sizes), ("strides", strides), ("rates", rates)):
    v = [int(i) for i in v]
    if len(v) != 4 or v[0] != 1 or v[3] != 1 or min(v) < 1:
      raise InvalidArgumentError(None, None, f"{key} must be [1, rows, cols, 1] with positive "
                                 f"entries, got {v} [Op:ExtractImagePatches]")
    attrs[key] = tuple(v)
  padding = padding.upper() if isinstance(padding, str) else padding
  if padding not in ("SAME", "VALID"):
    raise InvalidArgumentError(None, None, f"Value for attr 'padding' of {padding!r} is not in "
                               f"the list of allowed values: \"SAME\", \"VALID\" "
                               f"[Op:ExtractImagePatches]")
  attrs["padding"] = padding
  return execute(ExtractImagePatches, [x], attrs)
