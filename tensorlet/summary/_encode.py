"""NumPy values to the tensors TensorBoard's plugins expect (histogram
buckets, PNG-encoded images), and the plugins' summary metadata."""
import functools
import struct
import zlib

import numpy as np

__all__ = ["histogram_buckets", "image_tensor", "metadata", "DEFAULT_BUCKETS"]

DEFAULT_BUCKETS = 30  # TensorBoard's histogram default


def histogram_buckets(data, bucket_count):
  """A float64 [k, 3] array of (left edge, right edge, count), as TensorBoard's v2
  histogram summary computes it."""
  k = max(0, int(bucket_count))
  x = np.asarray(data, dtype=np.float64).reshape(-1)
  if x.size == 0 or k == 0:
    return np.zeros((k, 3), np.float64)
  lo, hi = x.min(), x.max()
  if hi == lo:
    # NOTE: one distinct value: TensorBoard puts every count in the last bucket
    # and gives all buckets that value as both edges.
    counts = np.zeros(k, np.float64)
    counts[-1] = x.size
    return np.stack([np.full(k, hi), np.full(k, hi), counts], axis=1)
  width = (hi - lo) / k
  idx = np.minimum(np.floor((x - lo) / width).astype(np.int64), k - 1)
  counts = np.bincount(idx, minlength=k).astype(np.float64)
  edges = np.linspace(lo, hi, k + 1)
  edges[-1] = hi
  return np.stack([edges[:-1], edges[1:], counts], axis=1)


def _to_uint8(images):
  a = np.asarray(images)
  if a.dtype == np.uint8:
    return a
  if a.dtype.kind == "f":
    # NOTE: tf.image.convert_image_dtype(..., uint8, saturate=True): scale by 255.5,
    # clip, truncate.
    return np.clip(a.astype(np.float64) * 255.5, 0, 255).astype(np.uint8)
  if a.dtype.kind in "iu":
    info = np.iinfo(a.dtype)
    shift = max(0, int(np.log2(info.max + 1)) - 8)
    return np.clip(a.astype(np.int64) >> shift, 0, 255).astype(np.uint8)
  if a.dtype == np.bool_:
    return a.astype(np.uint8) * 255
  raise TypeError(f"tf.summary.image: cannot convert images of dtype {a.dtype} to uint8")


def _png_chunk(kind, payload):
  body = kind + payload
  return struct.pack(">I", len(payload)) + body + struct.pack(">I", zlib.crc32(body))


_COLOR_TYPE = {1: 0, 2: 4, 3: 2, 4: 6}  # channels -> PNG colour type


def encode_png(image):
  """PNG bytes of one uint8 [height, width, channels] image."""
  h, w, c = image.shape
  rows = np.concatenate([np.zeros((h, 1), np.uint8), image.reshape(h, w * c)], axis=1)
  header = struct.pack(">IIBBBBB", w, h, 8, _COLOR_TYPE[c], 0, 0, 0)
  return (b"\x89PNG\r\n\x1a\n" + _png_chunk(b"IHDR", header) +
          _png_chunk(b"IDAT", zlib.compress(rows.tobytes(), 6)) + _png_chunk(b"IEND", b""))


def image_tensor(images, max_outputs):
  """[width, height, png...] as an object array of bytes (TensorBoard's image format)."""
  u8 = _to_uint8(images)
  _, h, w, _ = u8.shape
  out = [str(w).encode(), str(h).encode()]
  out.extend(encode_png(im) for im in u8[:max(0, int(max_outputs))])
  arr = np.empty(len(out), dtype=object)
  arr[:] = out
  return arr


@functools.lru_cache(maxsize=256)
def metadata(plugin, description=None, display_name=None):
  """Serialized SummaryMetadata for a TensorBoard plugin ("scalars", "histograms",
  "images", "text") or a generic tensor summary (plugin None)."""
  from tensorlet.summary._events import protos
  summary_pb2 = protos().summary_pb2
  if plugin is None:
    return summary_pb2.SummaryMetadata(display_name=display_name or "",
                                       summary_description=description or ""
                                       ).SerializeToString()
  if plugin == "scalars":
    from tensorboard.plugins.scalar import metadata as m
  elif plugin == "histograms":
    from tensorboard.plugins.histogram import metadata as m
  elif plugin == "text":
    from tensorboard.plugins.text import metadata as m
  else:
    from tensorboard.plugins.image import metadata as m
    return m.create_summary_metadata(display_name=display_name, description=description,
                                     converted_to_tensor=True).SerializeToString()
  return m.create_summary_metadata(display_name=display_name,
                                   description=description).SerializeToString()
