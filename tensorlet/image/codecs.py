"""tf.image codecs: decode_png/jpeg/gif/bmp/image, encode_png/jpeg, JPEG quality (Pillow
extra), and the tf.image names tensorlet does not implement (they raise, saying so)."""
import numpy as np

from tensorlet import dtypes as _dt
from tensorlet.errors import InvalidArgumentError
from tensorlet.image.color import convert_image_dtype
from tensorlet.ops._common import as_int
from tensorlet.ops.image_codec_ops import DecodeImage, EncodeJpeg, EncodePng, pil, sniff
from tensorlet.ops.registry import constant_value, execute
from tensorlet.tensor import convert_to_tensor

_ALL = ("jpeg", "png", "gif", "bmp")


def _decode(contents, channels, dtype, formats, animated=False):
  pil("tf.image.decode_" + formats[0])  # the extra's error before any graph is built
  c = convert_to_tensor(contents)
  if c.dtype is not _dt.string:
    raise TypeError(f"contents must be a string tensor, got {c.dtype.name}")
  channels = 0 if channels is None else int(channels)
  if channels not in (0, 1, 3, 4):
    raise InvalidArgumentError(None, None, f"channels must be 0, 1, 3 or 4, got {channels}")
  return execute(DecodeImage, [c], {"channels": channels, "dtype": dtype.name,
                                    "formats": tuple(formats), "animated": animated})


def decode_png(contents, channels=0, dtype=_dt.uint8, name=None):
  """PNG bytes -> [height, width, channels] uint8 or uint16."""
  dtype = _dt.as_dtype(dtype)
  if dtype not in (_dt.uint8, _dt.uint16):
    raise TypeError(f"decode_png dtype must be uint8 or uint16, got {dtype.name}")
  return _decode(contents, channels, dtype, ("png", "jpeg", "gif", "bmp"))


def decode_jpeg(contents, channels=0, ratio=1, fancy_upscaling=True,
                try_recover_truncated=False, acceptable_fraction=1, dct_method="", name=None):
  """JPEG bytes -> [height, width, channels] uint8."""
  if ratio != 1:
    raise NotImplementedError("decode_jpeg's ratio other than 1 is not implemented in "
                              "tensorlet")
  return _decode(contents, channels, _dt.uint8, ("jpeg", "png", "gif", "bmp"))


def decode_gif(contents, name=None):
  """GIF bytes -> [frames, height, width, 3] uint8."""
  return _decode(contents, 0, _dt.uint8, ("gif",), animated=True)


def decode_bmp(contents, channels=0, name=None):
  return _decode(contents, channels, _dt.uint8, ("bmp",))


def decode_image(contents, channels=None, dtype=_dt.uint8, name=None, expand_animations=True):
  """Any of JPEG/PNG/GIF/BMP; GIFs give [frames, h, w, 3] unless expand_animations=False.

  A float `dtype` rescales to [0, 1] as convert_image_dtype does.
  """
  dtype = _dt.as_dtype(dtype)
  c = convert_to_tensor(contents)
  v = constant_value(c)
  fmt = sniff(bytes(v.item())) if v is not None and isinstance(v.item(), bytes) else None
  raw = _dt.uint16 if dtype is _dt.uint16 else _dt.uint8
  animated = fmt == "gif" and expand_animations
  out = _decode(c, channels, raw, _ALL, animated=animated)
  return out if dtype is raw else convert_image_dtype(out, dtype)


def encode_png(image, compression=-1, name=None):
  """[height, width, channels] uint8/uint16 -> PNG bytes (a scalar string)."""
  pil("tf.image.encode_png")
  x = convert_to_tensor(image)
  return execute(EncodePng, [x], {"compression": -1 if compression is None else as_int(
      compression, "EncodePng", "compression")})


def encode_jpeg(image, format="", quality=95, progressive=False, optimize_size=False,  # noqa: A002
                chroma_downsampling=True, density_unit="in", x_density=300, y_density=300,
                xmp_metadata="", name=None):
  """[height, width, 1 or 3] uint8 -> JPEG bytes (a scalar string)."""
  pil("tf.image.encode_jpeg")
  x = convert_to_tensor(image)
  return execute(EncodeJpeg, [x], {"quality": as_int(quality, "EncodeJpeg", "quality"), "format": format,
                                   "progressive": bool(progressive),
                                   "optimize_size": bool(optimize_size),
                                   "chroma_downsampling": bool(chroma_downsampling)})


def is_jpeg(contents, name=None):
  """True when the bytes start with JPEG's magic number."""
  from tensorlet.ops import string_ops
  return string_ops.substr(convert_to_tensor(contents), 0, 3) == b"\xff\xd8\xff"


def adjust_jpeg_quality(image, jpeg_quality, dct_method="", name=None):
  """The image after a JPEG encode/decode at `jpeg_quality` (0-100), in its own dtype."""
  x = convert_to_tensor(image)
  orig = x.dtype
  q = as_int(constant_value(convert_to_tensor(jpeg_quality)), "AdjustJpegQuality", "jpeg_quality")
  u8 = convert_image_dtype(x, _dt.uint8, saturate=True)
  out = decode_jpeg(encode_jpeg(u8, quality=q), channels=u8.shape[-1] or 0)
  return convert_image_dtype(out, orig, saturate=True)


def _check_quality(lo, hi):
  if lo < 0 or hi < 0:
    raise ValueError("jpeg encode quality cannot be negative")
  if lo >= hi:
    raise ValueError("`min_jpeg_quality` must be less than `max_jpeg_quality`.")


def random_jpeg_quality(image, min_jpeg_quality, max_jpeg_quality, seed=None):
  """adjust_jpeg_quality at a quality drawn uniformly from [min, max)."""
  from tensorlet.ops import random_ops
  _check_quality(min_jpeg_quality, max_jpeg_quality)
  q = random_ops.uniform([], min_jpeg_quality, max_jpeg_quality, _dt.int32, seed=seed)
  return adjust_jpeg_quality(image, q)


def stateless_random_jpeg_quality(image, min_jpeg_quality, max_jpeg_quality, seed):
  from tensorlet.ops import random_ops
  _check_quality(min_jpeg_quality, max_jpeg_quality)
  q = random_ops.stateless_uniform([], seed, min_jpeg_quality, max_jpeg_quality, _dt.int32)
  return adjust_jpeg_quality(image, q)


def extract_jpeg_shape(contents, output_type=_dt.int32, name=None):
  """[height, width, channels] of a JPEG image, read from its header."""
  c = convert_to_tensor(contents)
  if c.dtype is not _dt.string or c.shape.rank != 0:
    raise InvalidArgumentError(None, None, f"extract_jpeg_shape: `contents` must be a scalar "
                               f"string, got {c.dtype.name} of shape {c.shape}")
  data = constant_value(c)
  if data is None:
    raise ValueError("extract_jpeg_shape needs the JPEG bytes when called (eager)")
  raw = bytes(np.asarray(data).item())
  if sniff(raw) != "jpeg":
    raise InvalidArgumentError(None, None, "Invalid JPEG data or size [Op:ExtractJpegShape]")
  img = pil("tf.image.extract_jpeg_shape").open(__import__("io").BytesIO(raw))
  channels = {"L": 1, "RGB": 3, "CMYK": 4}.get(img.mode, len(img.getbands()))
  return convert_to_tensor(np.array([img.height, img.width, channels]), output_type)


def decode_and_crop_jpeg(contents, crop_window, channels=0, ratio=1, fancy_upscaling=True,
                         try_recover_truncated=False, acceptable_fraction=1, dct_method="",
                         name=None):
  """decode_jpeg then the crop [y, x, height, width] of `crop_window`."""
  from tensorlet.ops import array_ops
  img = decode_jpeg(contents, channels, ratio)
  w = array_ops.reshape(convert_to_tensor(crop_window, _dt.int32), [4])
  return array_ops.slice(img, array_ops.concat([w[:2], [0]], 0),
                         array_ops.concat([w[2:], [-1]], 0))


def _not_implemented(name):
  def f(*args, **kwargs):
    raise NotImplementedError(f"tf.image.{name} is not implemented in tensorlet")
  f.__name__ = name
  return f


sample_distorted_bounding_box = _not_implemented("sample_distorted_bounding_box")
stateless_sample_distorted_bounding_box = _not_implemented(
    "stateless_sample_distorted_bounding_box")
extract_glimpse = _not_implemented("extract_glimpse")
combined_non_max_suppression = _not_implemented("combined_non_max_suppression")
generate_bounding_box_proposals = _not_implemented("generate_bounding_box_proposals")
