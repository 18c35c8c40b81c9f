"""tf.image codecs: decode_png/jpeg/gif/bmp/image, encode_png/jpeg (Pillow extra)."""
from tensorlet import dtypes as _dt
from tensorlet.errors import InvalidArgumentError
from tensorlet.image.color import convert_image_dtype
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
  return execute(EncodePng, [x], {"compression": int(compression)})


def encode_jpeg(image, format="", quality=95, progressive=False, optimize_size=False,  # noqa: A002
                chroma_downsampling=True, density_unit="in", x_density=300, y_density=300,
                xmp_metadata="", name=None):
  """[height, width, 1 or 3] uint8 -> JPEG bytes (a scalar string)."""
  pil("tf.image.encode_jpeg")
  x = convert_to_tensor(image)
  return execute(EncodeJpeg, [x], {"quality": int(quality), "format": format,
                                   "progressive": bool(progressive),
                                   "optimize_size": bool(optimize_size),
                                   "chroma_downsampling": bool(chroma_downsampling)})


def is_jpeg(contents, name=None):
  """True when the bytes start with JPEG's magic number."""
  from tensorlet.ops import string_ops
  return string_ops.substr(convert_to_tensor(contents), 0, 3) == b"\xff\xd8\xff"
