"""Image codec ops: PNG/JPEG/GIF/BMP decoding and PNG/JPEG encoding via Pillow.

Pillow is the optional extra `tensorlet[image]`; without it these ops raise
an ImportError saying so. Decoding never executes anything from the bytes;
malformed data raises InvalidArgumentError naming the op.
"""
import io

import numpy as np

from tensorlet import dtypes as _dt
from tensorlet.errors import InvalidArgumentError
from tensorlet.ops.registry import op
from tensorlet.tensor_shape import TensorShape

_STR = frozenset({_dt.string})


def pil(op_name):
  """The PIL.Image module, or an ImportError naming the extra to install."""
  try:
    from PIL import Image
  except ImportError:
    raise ImportError(f"{op_name} needs Pillow, the optional extra of tensorlet's image "
                      f"codecs: pip install 'tensorlet[image]'") from None
  return Image


def _bytes(contents, op_name):
  v = contents.item() if isinstance(contents, np.ndarray) else contents
  if isinstance(v, str):
    v = v.encode()
  if not isinstance(v, (bytes, bytearray)):
    raise InvalidArgumentError(None, None, f"contents must be a scalar string [Op:{op_name}]")
  return bytes(v)


def sniff(data):
  """The format of encoded image bytes, from their magic numbers."""
  if data[:3] == b"\xff\xd8\xff":
    return "jpeg"
  if data[:8] == b"\x89PNG\r\n\x1a\n":
    return "png"
  if data[:6] in (b"GIF87a", b"GIF89a"):
    return "gif"
  if data[:2] == b"BM":
    return "bmp"
  return None


_MODES = {1: "L", 3: "RGB", 4: "RGBA"}


def _to_array(img, channels, dtype, op_name):
  """A Pillow frame as [h, w, c] of `dtype` (uint8 or uint16) with `channels` (0: as stored)."""
  sixteen = img.mode in ("I;16", "I;16B", "I;16L", "I")
  if sixteen:
    a = np.asarray(img, dtype=np.uint32 if img.mode == "I" else None).astype(np.uint16)
    a = a[:, :, None]
    if channels in (3, 4):
      a = np.concatenate([a] * 3 + ([np.full_like(a, 65535)] if channels == 4 else []), -1)
    return a if dtype == np.uint16 else (a >> 8).astype(np.uint8)
  if channels == 0:
    mode = {"1": "L", "L": "L", "P": "RGBA" if "transparency" in img.info else "RGB",
            "LA": "LA", "RGB": "RGB", "RGBA": "RGBA", "CMYK": "RGB", "YCbCr": "RGB"}.get(
                img.mode, "RGB")
  elif channels == 2:
    mode = "LA"
  else:
    mode = _MODES[channels]
  a = np.asarray(img.convert(mode) if img.mode != mode else img)
  if a.ndim == 2:
    a = a[:, :, None]
  a = a.astype(np.uint8)
  return a.astype(np.uint16) * 257 if dtype == np.uint16 else a


def _decode_shape(inputs, attrs):
  ch = attrs["channels"] or None
  rank = 4 if attrs.get("animated") else 3
  return [(TensorShape([None] * (rank - 1) + [ch]), _dt.as_dtype(attrs["dtype"]))]


def _check_channels(channels, op_name, allowed=(0, 1, 3, 4)):
  if channels not in allowed:
    raise InvalidArgumentError(None, None, f"channels must be one of {list(allowed)}, got "
                               f"{channels} [Op:{op_name}]")


@op("DecodeImage", dtypes=_STR, shape=_decode_shape, differentiable=False)
def DecodeImage(contents, *, channels, dtype, formats, animated):
  """Decodes one image; `formats` limits the accepted formats, `animated` returns frames."""
  data = _bytes(contents, "DecodeImage")
  fmt = sniff(data)
  if fmt is None or fmt not in formats:
    want = ", ".join(f.upper() for f in formats)
    raise InvalidArgumentError(None, None, f"Unknown image file format. One of {want} "
                               f"required. [Op:DecodeImage]")
  image = pil("tf.image.decode_" + fmt)
  np_dtype = _dt.as_dtype(dtype)._np
  try:
    img = image.open(io.BytesIO(data))
    img.load()
    frames = []
    n = getattr(img, "n_frames", 1) if animated else 1
    for i in range(n):
      img.seek(i)
      frames.append(_to_array(img.convert("RGB") if fmt == "gif" else img, 3 if fmt == "gif"
                              and channels == 0 else channels, np_dtype, "DecodeImage"))
  except InvalidArgumentError:
    raise
  except Exception as e:  # noqa: BLE001 - any decoder failure is bad input
    raise InvalidArgumentError(None, None, f"Invalid {fmt.upper()} data or size: {e} "
                               f"[Op:DecodeImage]") from None
  return np.stack(frames) if animated else frames[0]


def _encode_shape(inputs, attrs):
  return [(TensorShape([]), _dt.string)]


def _encode_input(image, op_name, channels=(1, 2, 3, 4)):
  if image.ndim != 3:
    raise InvalidArgumentError(None, None, f"image must be 3-dimensional [height, width, "
                               f"channels], got shape {list(image.shape)} [Op:{op_name}]")
  if image.shape[2] not in channels:
    raise InvalidArgumentError(None, None, f"image must have 1, 2, 3, or 4 channels, got "
                               f"{image.shape[2]} [Op:{op_name}]")
  return image


@op("EncodePng", dtypes=frozenset({_dt.uint8, _dt.uint16}), shape=_encode_shape,
    differentiable=False)
def EncodePng(image, *, compression):
  a = _encode_input(image, "EncodePng")
  image_mod = pil("tf.image.encode_png")
  c = a.shape[2]
  if a.dtype == np.uint16:
    if c != 1:
      raise InvalidArgumentError(None, None, "16-bit PNG encoding supports 1 channel here "
                                 "[Op:EncodePng]")
  img = image_mod.fromarray(np.ascontiguousarray(a[:, :, 0] if c == 1 else a))
  buf = io.BytesIO()
  level = 6 if compression < 0 else int(compression)
  img.save(buf, format="PNG", compress_level=max(0, min(level, 9)))
  return np.array(buf.getvalue(), dtype=object)


@op("EncodeJpeg", dtypes=frozenset({_dt.uint8}), shape=_encode_shape, differentiable=False)
def EncodeJpeg(image, *, quality, format, progressive, optimize_size, chroma_downsampling):  # noqa: A002
  a = _encode_input(image, "EncodeJpeg", (1, 3))
  if format not in ("", "grayscale", "rgb"):
    raise InvalidArgumentError(None, None, f"format must be '', 'grayscale' or 'rgb', got "
                               f"{format!r} [Op:EncodeJpeg]")
  if not 0 <= quality <= 100:
    raise InvalidArgumentError(None, None, f"quality must be in [0,100], got {quality} "
                               f"[Op:EncodeJpeg]")
  image_mod = pil("tf.image.encode_jpeg")
  c = a.shape[2]
  if format == "grayscale" and c != 1 or format == "rgb" and c != 3:
    raise InvalidArgumentError(None, None, f"format {format!r} does not match {c} channels "
                               f"[Op:EncodeJpeg]")
  img = image_mod.fromarray(np.ascontiguousarray(a[:, :, 0] if c == 1 else a))
  buf = io.BytesIO()
  img.save(buf, format="JPEG", quality=int(quality), progressive=bool(progressive),
           optimize=bool(optimize_size), subsampling=2 if chroma_downsampling else 0)
  return np.array(buf.getvalue(), dtype=object)
