"""Images as arrays: load_img / save_img / img_to_array / array_to_img (through
Pillow, the optional extra `tensorlet[image]`), and TensorFlow's bilinear and
nearest-neighbour resizing (half-pixel centres) in NumPy."""
import os

import numpy as np

__all__ = ["load_img", "save_img", "img_to_array", "array_to_img", "resize", "smart_resize",
           "require_pillow"]

_PIL_METHODS = ("nearest", "bilinear", "bicubic", "hamming", "box", "lanczos")


def require_pillow():
  """PIL.Image, or an ImportError naming the extra that installs Pillow."""
  try:
    from PIL import Image
  except ImportError:
    raise ImportError("Image loading requires Pillow, an optional dependency of tensorlet: "
                      "`pip install tensorlet[image]` (or `pip install pillow`).") from None
  return Image


def _data_format(data_format):
  from tensorlet.keras import backend
  data_format = data_format or backend.image_data_format()
  if data_format not in ("channels_first", "channels_last"):
    raise ValueError(f"Unknown data_format: {data_format}")
  return data_format


def img_to_array(img, data_format=None, dtype=None):
  """A PIL image as a float (floatx) array: (h, w, channels), or channels first."""
  from tensorlet.keras import backend
  data_format = _data_format(data_format)
  x = np.asarray(img, dtype=dtype or backend.floatx())
  if x.ndim == 2:
    x = x[:, :, None]
  elif x.ndim != 3:
    raise ValueError(f"Unsupported image shape: {x.shape}")
  return x.transpose(2, 0, 1) if data_format == "channels_first" else x


def array_to_img(x, data_format=None, scale=True, dtype=None):
  """A (h, w, c) array as a PIL image (c = 1, 3 or 4); `scale` maps the values
  onto 0..255 first."""
  from tensorlet.keras import backend
  image = require_pillow()
  data_format = _data_format(data_format)
  x = np.asarray(x, dtype=dtype or backend.floatx())
  if x.ndim != 3:
    raise ValueError(f"Expected image array to have rank 3 (single image). Got array with "
                     f"shape: {x.shape}")
  if data_format == "channels_first":
    x = x.transpose(1, 2, 0)
  if scale:
    x = x - np.min(x)
    peak = np.max(x)
    if peak != 0:
      x = x / peak
    x = x * 255
  channels = x.shape[2]
  if channels == 4:
    return image.fromarray(x.astype("uint8"), "RGBA")
  if channels == 3:
    return image.fromarray(x.astype("uint8"), "RGB")
  if channels == 1:
    if np.max(x) > 255:
      return image.fromarray(x[:, :, 0].astype("int32"), "I")
    return image.fromarray(x[:, :, 0].astype("uint8"), "L")
  raise ValueError(f"Unsupported channel number: {channels}")


def save_img(path, x, data_format=None, file_format=None, scale=True, **kwargs):
  """Writes an image array to `path` (format from the suffix or `file_format`)."""
  img = array_to_img(x, data_format=data_format, scale=scale)
  if img.mode == "RGBA" and (file_format == "jpg" or file_format == "jpeg" or
                             str(path).lower().endswith((".jpg", ".jpeg"))):
    img = img.convert("RGB")
  img.save(path, format=file_format, **kwargs)


def _convert(img, color_mode):
  if color_mode == "grayscale":
    if img.mode not in ("L", "I;16", "I"):
      img = img.convert("L")
  elif color_mode == "rgba":
    if img.mode != "RGBA":
      img = img.convert("RGBA")
  elif color_mode == "rgb":
    if img.mode != "RGB":
      img = img.convert("RGB")
  else:
    raise ValueError('color_mode must be "grayscale", "rgb", or "rgba"')
  return img


def load_img(path, grayscale=False, color_mode="rgb", target_size=None,
             interpolation="nearest", keep_aspect_ratio=False):
  """The image file at `path` as a PIL image in `color_mode`, resized to
  `target_size` (height, width) if given (center-cropped to its aspect ratio first
  with keep_aspect_ratio)."""
  image = require_pillow()
  if grayscale:
    color_mode = "grayscale"
  if isinstance(path, (str, bytes, os.PathLike)):
    with open(path, "rb") as f:
      img = image.open(f)
      img.load()
  elif hasattr(path, "read"):
    img = image.open(path)
    img.load()
  else:
    raise TypeError(f"path should be path-like or io.BytesIO, not {type(path)}")
  img = _convert(img, color_mode)
  if target_size is not None:
    width_height = (target_size[1], target_size[0])
    if img.size != width_height:
      if interpolation not in _PIL_METHODS:
        raise ValueError(f"Invalid interpolation method {interpolation} specified. Supported "
                         f"methods are {', '.join(_PIL_METHODS)}")
      resample = getattr(image.Resampling, interpolation.upper())
      if keep_aspect_ratio:
        width, height = img.size
        target_w, target_h = width_height
        crop_h = (width * target_h) // target_w
        crop_w = (height * target_w) // target_h
        crop_h, crop_w = min(height, crop_h), min(width, crop_w)
        top, left = (height - crop_h) // 2, (width - crop_w) // 2
        img = img.crop((left, top, left + crop_w, top + crop_h))
      img = img.resize(width_height, resample)
  return img


def _axis_weights(n_in, n_out):
  """Source indices and weights of TF's half-pixel-centre linear interpolation."""
  scale = n_in / n_out
  pos = (np.arange(n_out, dtype=np.float64) + 0.5) * scale - 0.5
  low = np.floor(pos)
  frac = (pos - low).astype(np.float32)
  lo = np.clip(low, 0, n_in - 1).astype(np.int64)
  hi = np.clip(low + 1, 0, n_in - 1).astype(np.int64)
  return lo, hi, frac


def resize(image, size, interpolation="bilinear"):
  """An (h, w, c) image resized to `size` (height, width) as float32, as
  tf.image.resize does with 'bilinear' (half-pixel centres, no antialiasing) or
  'nearest'."""
  x = np.asarray(image, dtype=np.float32)
  height, width = int(size[0]), int(size[1])
  h, w = x.shape[0], x.shape[1]
  if (h, w) == (height, width):
    return x
  if interpolation == "nearest":
    rows = np.minimum(np.floor((np.arange(height) + 0.5) * (h / height)), h - 1).astype(int)
    cols = np.minimum(np.floor((np.arange(width) + 0.5) * (w / width)), w - 1).astype(int)
    return x[rows][:, cols]
  if interpolation != "bilinear":
    raise NotImplementedError(f"interpolation={interpolation!r} is not implemented by "
                              f"tensorlet's image loading; use 'bilinear' or 'nearest'.")
  r0, r1, fr = _axis_weights(h, height)
  c0, c1, fc = _axis_weights(w, width)
  top = x[r0] * (1 - fr)[:, None, None] + x[r1] * fr[:, None, None]
  return top[:, c0] * (1 - fc)[None, :, None] + top[:, c1] * fc[None, :, None]


def smart_resize(x, size, interpolation="bilinear"):
  """Center-crops `x` to the aspect ratio of `size`, then resizes it."""
  x = np.asarray(x)
  h, w = x.shape[0], x.shape[1]
  target_h, target_w = size
  crop_h = min(h, int(w * target_h / target_w))
  crop_w = min(w, int(h * target_w / target_h))
  top, left = (h - crop_h) // 2, (w - crop_w) // 2
  return resize(x[top:top + crop_h, left:left + crop_w], size, interpolation)
