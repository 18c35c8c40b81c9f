"""Image resampling ops (the primitives behind `tf.image.resize`).

Every resize method of TF2's `tf.image.resize` is separable: along each axis
an output pixel is a weighted sum of input pixels. The kernel builds the
[out, in] weight matrix of each axis with TF's own sampling rules
(half-pixel centres; ResizeBilinear's clamped lerp, ResizeBicubic's Keys
cubic with out-of-image taps dropped and renormalised, ResizeArea's box
overlaps, ScaleAndTranslate's kernels for lanczos/gaussian/mitchell and
antialiasing) and applies them as two matrix products. The gradient applies
the transposed matrices (ResizeImageGrad), and that op's gradient is the
resize again, so gradients nest.
"""
import numpy as np

from tensorlet import dtypes as _dt
from tensorlet.ops._common import height_width
from tensorlet.ops.registry import constant_value, execute, op
from tensorlet.tensor_shape import TensorShape

METHODS = ("bilinear", "nearest", "bicubic", "area", "lanczos3", "lanczos5", "gaussian",
           "mitchellcubic")


# ------------------------------------------------------ sampling kernels

def _lanczos(radius):
  def k(x):
    x = np.abs(x)
    safe = np.where(x <= 1e-3, 1.0, x)
    v = radius * np.sin(np.pi * safe) * np.sin(np.pi * safe / radius) / (np.pi ** 2 * safe ** 2)
    return np.where(x > radius, 0.0, np.where(x <= 1e-3, 1.0, v))
  return k, float(radius)


def _gaussian(x):
  x = np.abs(x)
  return np.where(x >= 1.5, 0.0, np.exp(-x * x / (2 * 0.5 * 0.5)))


def _keys_cubic(x):
  x = np.abs(x)
  return np.where(x >= 2, 0.0, np.where(x >= 1, ((-0.5 * x + 2.5) * x - 4.0) * x + 2.0,
                                        ((1.5 * x - 2.5) * x) * x + 1.0))


def _mitchell(x):
  x = np.abs(x)
  return np.where(x >= 2, 0.0, np.where(
      x >= 1, (((-7.0 / 18.0) * x + 2.0) * x - 10.0 / 3.0) * x + 16.0 / 9.0,
      (((7.0 / 6.0) * x - 2.0) * x) * x + 8.0 / 9.0))


def _triangle(x):
  return np.maximum(0.0, 1.0 - np.abs(x))


_KERNELS = {"lanczos3": _lanczos(3), "lanczos5": _lanczos(5), "gaussian": (_gaussian, 1.5),
            "keyscubic": (_keys_cubic, 2.0), "mitchellcubic": (_mitchell, 2.0),
            "triangle": (_triangle, 1.0)}


# ------------------------------------------------------- weight matrices

def _scale_translate_weights(kind, n_in, n_out, antialias):
  """ScaleAndTranslate's spans (scale = out / in, no translation) as a matrix."""
  kernel, radius = _KERNELS[kind]
  # NOTE: float32 arithmetic as TF's kernel (the scale is float32(out) / float32(in)),
  # so taps at the kernel's edge fall on the same side as TF's.
  f32 = np.float32
  inv_scale = f32(1.0) / (f32(n_out) / f32(n_in))
  kscale = max(inv_scale, f32(1.0)) if antialias else f32(1.0)
  reach = f32(radius) * kscale
  sample = (np.arange(n_out, dtype=f32) + f32(0.5)) * inv_scale
  start = np.clip(np.ceil(sample - reach - f32(0.5)), 0, n_in - 1).astype(np.int64)
  end = np.clip(np.floor(sample + reach - f32(0.5)), 0, n_in - 1).astype(np.int64) + 1
  src = np.arange(n_in, dtype=f32)
  inside = (src[None, :] >= start[:, None]) & (src[None, :] < end[:, None])
  pos = (src[None, :] + f32(0.5) - sample[:, None]) * (f32(1.0) / kscale)
  w = np.where(inside, kernel(pos.astype(np.float64)), 0.0)
  total = w.sum(1, keepdims=True)
  return np.where(np.abs(total) >= 1000 * np.finfo(np.float32).tiny, w / np.where(
      total == 0, 1, total), w)


def _bilinear_weights(n_in, n_out):
  scale = n_in / n_out
  src = (np.arange(n_out) + 0.5) * scale - 0.5
  fl = np.floor(src)
  lower = np.maximum(fl, 0).astype(np.int64)
  upper = np.minimum(np.ceil(src), n_in - 1).astype(np.int64)
  lerp = src - fl
  w = np.zeros((n_out, n_in))
  rows = np.arange(n_out)
  np.add.at(w, (rows, lower), 1.0 - lerp)
  np.add.at(w, (rows, upper), lerp)
  return w


_TABLE = 1024  # ResizeBicubic reads its cubic coefficients from a 1024-entry table


def _bicubic_weights(n_in, n_out):
  scale = n_in / n_out
  src = (np.arange(n_out) + 0.5) * scale - 0.5
  loc = np.floor(src)
  delta = np.rint((src - loc) * _TABLE) / _TABLE
  taps = loc[:, None].astype(np.int64) + np.arange(-1, 3)[None, :]
  w = _keys_cubic(np.stack([delta + 1, delta, 1 - delta, 2 - delta], 1))
  w = np.where((taps >= 0) & (taps < n_in), w, 0.0)  # taps outside the image are dropped
  w = w / w.sum(1, keepdims=True)
  out = np.zeros((n_out, n_in))
  rows = np.repeat(np.arange(n_out), 4)
  np.add.at(out, (rows, np.clip(taps, 0, n_in - 1).ravel()), w.ravel())
  return out


def _area_weights(n_in, n_out):
  scale = n_in / n_out
  out = np.zeros((n_out, n_in))
  for o in range(n_out):
    lo, hi = o * scale, (o + 1) * scale
    for i in range(int(np.floor(lo)), int(np.ceil(hi))):
      overlap = min(i + 1, hi) - max(i, lo)
      out[o, min(i, n_in - 1)] += overlap / scale
  return out


def _nearest_index(n_in, n_out):
  scale = n_in / n_out
  return np.clip(np.floor((np.arange(n_out) + 0.5) * scale), 0, n_in - 1).astype(np.int64)


_CACHE = {}


def axis_weights(method, n_in, n_out, antialias):
  """The [n_out, n_in] float64 matrix resampling one axis with `method`."""
  key = (method, n_in, n_out, antialias)
  w = _CACHE.get(key)
  if w is not None:
    return w
  if method == "nearest":
    w = np.zeros((n_out, n_in))
    w[np.arange(n_out), _nearest_index(n_in, n_out)] = 1.0
  elif method == "area":
    w = _area_weights(n_in, n_out)
  elif method in ("bilinear", "bicubic") and antialias:
    w = _scale_translate_weights("triangle" if method == "bilinear" else "keyscubic", n_in,
                                 n_out, True)
  elif method == "bilinear":
    w = _bilinear_weights(n_in, n_out)
  elif method == "bicubic":
    w = _bicubic_weights(n_in, n_out)
  else:
    w = _scale_translate_weights(method, n_in, n_out, antialias)
  if len(_CACHE) > 256:
    _CACHE.clear()
  _CACHE[key] = w
  return w


# ------------------------------------------------------------------ ops

def _out_dtype(method, dtype):
  if method == "nearest":
    return dtype
  return _dt.float64 if dtype is _dt.float64 else _dt.float32


def _size_value(size):
  return height_width(size, "size", "output dimensions")


def _resize_shape(inputs, attrs):
  x, size = inputs
  out = _out_dtype(attrs["method"], x.dtype)
  if x.shape.rank is not None and x.shape.rank != 4:
    raise ValueError(f"input must be 4-dimensional, got rank {x.shape.rank}")
  sv = constant_value(size)
  hw = list(_size_value(sv)) if sv is not None else [None, None]
  if x.shape.rank is None:
    return [(TensorShape([None] + hw + [None]), out)]
  d = x.shape.as_list()
  return [(TensorShape([d[0]] + hw + [d[3]]), out)]


def _taps(w):
  """A banded [out, in] matrix as (index [out, k], weight [out, k]) of its nonzeros."""
  nz = w != 0
  k = max(int(nz.sum(1).max()), 1) if w.size else 1
  order = np.argsort(~nz, axis=1, kind="stable")[:, :k]  # nonzero columns first
  return order, np.take_along_axis(w, order, 1)


def _resample(x, w, axis):
  """Applies the [out, in] weights along `axis` as a sum over its few taps (gathers)."""
  idx, wts = _taps(w)
  shape = [1] * x.ndim
  shape[axis] = wts.shape[0]
  out = None
  for j in range(idx.shape[1]):
    term = np.take(x, idx[:, j], axis=axis) * wts[:, j].reshape(shape)
    out = term if out is None else out + term
  return out


def _apply(x, wh, ww):
  """[B, H, W, C] -> [B, OH, OW, C] with row weights wh [OH, H] and column weights ww."""
  # NOTE: the weights are banded (2 taps for bilinear, a few for the others), so
  # gathers beat dense matrix products by the band's sparsity.
  return _resample(_resample(x, wh, 1), ww, 2)


_NUMERIC = _dt.NUMERIC - _dt.COMPLEX


@op("ResizeImage", dtypes=_NUMERIC | {_dt.bool}, type_inputs=(0,), shape=_resize_shape,
    fresh=True)
def ResizeImage(images, size, *, method, antialias):
  if images.ndim != 4:
    raise ValueError(f"input must be 4-dimensional, got rank {images.ndim}")
  oh, ow = _size_value(size)
  _, h, w, _ = images.shape
  if h == 0 or w == 0:
    raise ValueError(f"input image must be of non-zero size, got [{h}, {w}]")
  if method == "nearest":
    return images[:, _nearest_index(h, oh)][:, :, _nearest_index(w, ow)]
  ft = np.float64 if images.dtype == np.float64 else np.float32
  wh = axis_weights(method, h, oh, antialias).astype(ft, copy=False)
  ww = axis_weights(method, w, ow, antialias).astype(ft, copy=False)
  return _apply(images.astype(ft, copy=False), wh, ww)


def _grad_shape(inputs, attrs):
  return [(inputs[1].shape, inputs[1].dtype)]


@op("ResizeImageGrad", dtypes=_dt.FLOATS, type_inputs=(0,), shape=_grad_shape, fresh=True)
def ResizeImageGrad(grads, original_image, *, method, antialias):
  _, h, w, _ = original_image.shape
  _, oh, ow, _ = grads.shape
  ft = np.float64 if grads.dtype == np.float64 else np.float32
  wh = axis_weights(method, h, oh, antialias).astype(ft, copy=False)
  ww = axis_weights(method, w, ow, antialias).astype(ft, copy=False)
  return _apply(grads.astype(ft, copy=False), wh.T, ww.T).astype(original_image.dtype,
                                                                  copy=False)


@ResizeImage.def_grad
def _(op, dy):
  if op.attrs["method"] == "area":
    return [None, None]  # as TF's ResizeArea: no gradient
  x = op.inputs[0]
  if not x.dtype.is_floating:
    return [None, None]
  return [execute(ResizeImageGrad, [dy, x], op.attrs), None]


def resize_images(images, size, method, antialias=False):
  """The resize op on a 4-D batch; float64 stays float64 (tf.image.resize casts to float32)."""
  from tensorlet.tensor import convert_to_tensor
  x = convert_to_tensor(images)
  size = convert_to_tensor(size, _dt.int32) if not hasattr(size, "dtype") else size
  return execute(ResizeImage, [x, size], {"method": method, "antialias": bool(antialias)})


@ResizeImageGrad.def_grad
def _(op, ddx):
  from tensorlet.ops import array_ops, math_ops
  dy = op.inputs[0]
  size = array_ops.shape(dy)[1:3]
  r = execute(ResizeImage, [ddx, size], op.attrs)
  return [r if r.dtype is dy.dtype else math_ops.cast(r, dy.dtype), None]


# ------------------------------------------------------------ boxes

def _iou(box, boxes):
  """IoU of one [y1, x1, y2, x2] box (corners in any order) with many."""
  def norm(b):
    return (np.minimum(b[..., 0], b[..., 2]), np.minimum(b[..., 1], b[..., 3]),
            np.maximum(b[..., 0], b[..., 2]), np.maximum(b[..., 1], b[..., 3]))
  ay1, ax1, ay2, ax2 = norm(box)
  by1, bx1, by2, bx2 = norm(boxes)
  area_a = (ay2 - ay1) * (ax2 - ax1)
  area_b = (by2 - by1) * (bx2 - bx1)
  ih = np.maximum(np.minimum(ay2, by2) - np.maximum(ay1, by1), 0)
  iw = np.maximum(np.minimum(ax2, bx2) - np.maximum(ax1, bx1), 0)
  inter = ih * iw
  union = area_a + area_b - inter
  ok = (area_a > 0) & (area_b > 0)
  return np.where(ok, inter / np.where(union > 0, union, 1), 0.0)


def _nms_shape(inputs, attrs):
  b, s = inputs[0].shape, inputs[1].shape
  if b.rank is not None and (b.rank != 2 or b[1] not in (None, 4)):
    raise ValueError(f"boxes must be 2-D [num_boxes, 4], got shape {b}")
  if s.rank is not None and s.rank != 1:
    raise ValueError(f"scores must be 1-D [num_boxes], got shape {s}")
  return [(TensorShape([None]), _dt.int32)]


def _nms_select(boxes, scores, max_output_size, iou_threshold, score_threshold):
  n = int(max_output_size)
  if n < 0:
    raise ValueError("max_output_size must be non-negative")
  order = [i for i in np.argsort(-scores, kind="stable") if scores[i] > score_threshold]
  selected = []
  for i in order:
    if len(selected) >= n:
      break
    if selected and np.any(_iou(boxes[i], boxes[selected]) > iou_threshold):
      continue
    selected.append(i)
  return np.asarray(selected, np.int64)


@op("NonMaxSuppressionV3", dtypes=frozenset({_dt.float16, _dt.float32}), type_inputs=(0, 1),
    shape=_nms_shape, differentiable=False)
def NonMaxSuppressionV3(boxes, scores, max_output_size, iou_threshold, score_threshold):
  if boxes.ndim != 2 or boxes.shape[1] != 4:
    raise ValueError(f"boxes must be 2-D [num_boxes, 4], got shape {list(boxes.shape)}")
  if scores.ndim != 1 or scores.shape[0] != boxes.shape[0]:
    raise ValueError(f"scores must be 1-D [num_boxes], got shape {list(scores.shape)}")
  iou = float(iou_threshold)
  if not 0 <= iou <= 1:
    raise ValueError("iou_threshold must be in [0, 1]")
  return _nms_select(boxes.astype(np.float64), scores.astype(np.float64), max_output_size,
                     iou, float(score_threshold)).astype(np.int32)


def _draw_shape(inputs, attrs):
  return [(inputs[0].shape, inputs[0].dtype)]


_DEFAULT_COLORS = np.array([[1, 1, 0, 1], [0, 0, 1, 1], [1, 0, 0, 1], [0, 1, 0, 1],
                            [0.5, 0, 0.5, 1], [0.5, 0.5, 0, 1], [0.5, 0, 0, 1], [0, 0, 0.5, 1],
                            [0, 1, 1, 1], [1, 0, 1, 1]], np.float32)


@op("DrawBoundingBoxesV2", dtypes=frozenset({_dt.float16, _dt.float32}), type_inputs=(0,),
    shape=_draw_shape, differentiable=False, fresh=True)
def DrawBoundingBoxesV2(images, boxes, colors):
  if images.ndim != 4:
    raise ValueError(f"The rank of the images should be 4, got {images.ndim}")
  b, h, w, d = images.shape
  if d not in (1, 2, 3, 4):
    raise ValueError(f"Channel depth should be either 1 (GRY), 3 (RGB), or 4 (RGBA), got {d}")
  if boxes.ndim != 3 or boxes.shape[0] != b or boxes.shape[2] != 4:
    raise ValueError(f"boxes must be [batch, num_boxes, 4], got {list(boxes.shape)}")
  table = np.asarray(colors, np.float32).reshape(-1, colors.shape[-1] if colors.ndim else 4) \
      if np.size(colors) else _DEFAULT_COLORS
  if table.shape[1] < d:
    raise ValueError(f"colors must have at least {d} channels, got {table.shape[1]}")
  canvas = images.copy()
  for bi in range(b):
    for k in range(boxes.shape[1]):
      color = table[k % len(table), :d].astype(images.dtype)
      y1, x1, y2, x2 = (int(np.float32(boxes[bi, k, j]) * np.float32(s - 1))
                        for j, s in ((0, h), (1, w), (2, h), (3, w)))
      if y1 > y2 or x1 > x2 or y1 >= h or y2 < 0 or x1 >= w or x2 < 0:
        continue  # inverted or entirely outside: not drawn (as TF's kernel)
      cy1, cy2, cx1, cx2 = max(y1, 0), min(y2, h - 1), max(x1, 0), min(x2, w - 1)
      if y1 >= 0:
        canvas[bi, y1, cx1:cx2 + 1] = color
      if y2 < h:
        canvas[bi, y2, cx1:cx2 + 1] = color
      if x1 >= 0:
        canvas[bi, cy1:cy2 + 1, x1] = color
      if x2 < w:
        canvas[bi, cy1:cy2 + 1, x2] = color
  return canvas


# ------------------------------------------------------------ patches

def _patch_geometry(h, w, ksizes, strides, rates, padding):
  kh, kw = ksizes[1], ksizes[2]
  sh, sw = strides[1], strides[2]
  rh, rw = rates[1], rates[2]
  eh, ew = kh + (kh - 1) * (rh - 1), kw + (kw - 1) * (rw - 1)
  if padding == "VALID":
    oh, ow = max(0, -(-(h - eh + 1) // sh)), max(0, -(-(w - ew + 1) // sw))
    ph = pw = 0
  else:
    oh, ow = -(-h // sh), -(-w // sw)
    ph = max((oh - 1) * sh + eh - h, 0) // 2
    pw = max((ow - 1) * sw + ew - w, 0) // 2
  return oh, ow, ph, pw


def _patch_taps(h, w, ksizes, strides, rates, padding):
  """For every kernel tap: (output rows/cols slices, input rows/cols) of the valid part."""
  oh, ow, ph, pw = _patch_geometry(h, w, ksizes, strides, rates, padding)
  taps = []
  for i in range(ksizes[1]):
    rows = np.arange(oh) * strides[1] + i * rates[1] - ph
    for j in range(ksizes[2]):
      cols = np.arange(ow) * strides[2] + j * rates[2] - pw
      taps.append((rows, cols))
  return oh, ow, taps


def _patches_shape(inputs, attrs):
  x = inputs[0]
  if x.shape.rank is not None and x.shape.rank != 4:
    raise ValueError(f"input must be 4-dimensional, got rank {x.shape.rank}")
  if x.shape.rank is None:
    return [(TensorShape([None] * 4), x.dtype)]
  b, h, w, c = x.shape.as_list()
  k = attrs["ksizes"][1] * attrs["ksizes"][2]
  if h is None or w is None:
    return [(TensorShape([b, None, None, None if c is None else k * c]), x.dtype)]
  oh, ow, _, _ = _patch_geometry(h, w, attrs["ksizes"], attrs["strides"], attrs["rates"],
                                 attrs["padding"])
  return [(TensorShape([b, oh, ow, None if c is None else k * c]), x.dtype)]


def _valid(rows, cols, h, w):
  return ((rows >= 0) & (rows < h))[:, None] & ((cols >= 0) & (cols < w))[None, :]


@op("ExtractImagePatches", dtypes=_NUMERIC, shape=_patches_shape, fresh=True)
def ExtractImagePatches(images, *, ksizes, strides, rates, padding):
  b, h, w, c = images.shape
  oh, ow, taps = _patch_taps(h, w, ksizes, strides, rates, padding)
  out = np.zeros((b, oh, ow, len(taps), c), images.dtype)
  for t, (rows, cols) in enumerate(taps):
    ok = _valid(rows, cols, h, w)
    vals = images[:, np.clip(rows, 0, h - 1)][:, :, np.clip(cols, 0, w - 1)]
    out[:, :, :, t] = np.where(ok[None, :, :, None], vals, 0)
  return out.reshape(b, oh, ow, len(taps) * c)


@op("ExtractImagePatchesGrad", dtypes=_dt.FLOATS, type_inputs=(0, 1), shape=_grad_shape,
    fresh=True)
def ExtractImagePatchesGrad(grads, images, *, ksizes, strides, rates, padding):
  b, h, w, c = images.shape
  oh, ow, taps = _patch_taps(h, w, ksizes, strides, rates, padding)
  g = grads.reshape(b, oh, ow, len(taps), c)
  out = np.zeros((b, h, w, c), grads.dtype)
  for t, (rows, cols) in enumerate(taps):
    ok = _valid(rows, cols, h, w)
    r, q = np.nonzero(ok)
    np.add.at(out, (slice(None), rows[r], cols[q]), g[:, r, q, t])
  return out


@ExtractImagePatches.def_grad
def _(op, dy):
  return [execute(ExtractImagePatchesGrad, [dy, op.inputs[0]], op.attrs)]


@ExtractImagePatchesGrad.def_grad
def _(op, ddx):
  return [execute(ExtractImagePatches, [ddx], op.attrs), None]


# ------------------------------------------------------- crop and resize

def _crop_coords(boxes, size, crop):
  """Sample positions [num_boxes, crop] along one axis and whether they are inside.

  NOTE: float32 arithmetic in TF's order for float32 boxes, so samples that land
  on a pixel exactly (where the lerp gradient is one-sided) land there as in TF.
  """
  ft = np.float64 if boxes.dtype == np.float64 else np.float32
  lo, hi = boxes[:, 0:1].astype(ft), boxes[:, 1:2].astype(ft)
  if crop > 1:
    scale = (hi - lo) * ft(size - 1) / ft(crop - 1)
    pos = lo * ft(size - 1) + np.arange(crop, dtype=ft)[None, :] * scale
  else:
    pos = np.broadcast_to(ft(0.5) * (lo + hi) * ft(size - 1), (boxes.shape[0], 1))
  pos = pos.astype(np.float64)
  return pos, (pos >= 0) & (pos <= size - 1)


def _crop_setup(image_shape, boxes, box_index, crop_size):
  _, h, w, _ = image_shape
  ch, cw = (int(v) for v in np.asarray(crop_size).reshape(-1))
  if ch <= 0 or cw <= 0:
    raise ValueError("crop dimensions must be positive")
  ys, yok = _crop_coords(boxes[:, [0, 2]], h, ch)
  xs, xok = _crop_coords(boxes[:, [1, 3]], w, cw)
  return h, w, ys, yok, xs, xok


def _check_crop_inputs(image, boxes, box_index):
  if image.ndim != 4:
    raise ValueError(f"input image must be 4-D, got rank {image.ndim}")
  if boxes.ndim != 2 or boxes.shape[1] != 4:
    raise ValueError(f"boxes must be 2-D [num_boxes, 4], got {list(boxes.shape)}")
  if box_index.shape != (boxes.shape[0],):
    raise ValueError(f"box_index has incompatible shape {list(box_index.shape)}")
  if box_index.size and (box_index.min() < 0 or box_index.max() >= image.shape[0]):
    raise ValueError(f"box_index has values outside [0, batch_size): {box_index.tolist()}")


def _corners(pos, size):
  lo = np.floor(pos)
  return lo.astype(np.int64).clip(0, size - 1), np.ceil(pos).astype(np.int64).clip(
      0, size - 1), pos - lo


def _crop_shape(inputs, attrs):
  img, boxes, _, size = inputs
  sv = constant_value(size)
  hw = [None, None] if sv is None else [int(v) for v in np.asarray(sv).reshape(-1)]
  n = boxes.shape[0] if boxes.shape.rank else None
  c = img.shape[3] if img.shape.rank == 4 else None
  return [(TensorShape([n] + hw + [c]), _out_dtype("bilinear", img.dtype))]


@op("CropAndResize", dtypes=_NUMERIC, type_inputs=(0,), shape=_crop_shape, fresh=True)
def CropAndResize(image, boxes, box_ind, crop_size, *, method, extrapolation_value):
  _check_crop_inputs(image, boxes, box_ind)
  h, w, ys, yok, xs, xok = _crop_setup(image.shape, boxes, box_ind, crop_size)
  ft = np.float64 if image.dtype == np.float64 else np.float32
  img = image.astype(ft)[box_ind]  # [n, h, w, c]
  b = np.arange(len(box_ind))[:, None, None]
  if method == "nearest":
    out = img[b, np.rint(ys).astype(np.int64).clip(0, h - 1)[:, :, None],
              np.rint(xs).astype(np.int64).clip(0, w - 1)[:, None, :]]
  else:
    t, bo, yl = _corners(ys, h)
    le, r, xl = _corners(xs, w)
    t, bo, yl = t[:, :, None], bo[:, :, None], yl[:, :, None, None]
    le, r, xl = le[:, None, :], r[:, None, :], xl[:, None, :, None]
    top = img[b, t, le] + (img[b, t, r] - img[b, t, le]) * xl
    bottom = img[b, bo, le] + (img[b, bo, r] - img[b, bo, le]) * xl
    out = top + (bottom - top) * yl
  ok = (yok[:, :, None] & xok[:, None, :])[..., None]
  return np.where(ok, out, ft(extrapolation_value)).astype(ft)


@op("CropAndResizeGradImage", dtypes=_dt.FLOATS, type_inputs=(0,),
    shape=lambda i, a: [(i[3].shape, i[3].dtype)], fresh=True)
def CropAndResizeGradImage(grads, boxes, box_ind, image, *, method):
  h, w, ys, yok, xs, xok = _crop_setup(image.shape, boxes, box_ind, grads.shape[1:3])
  out = np.zeros(image.shape, np.float64)
  ok = (yok[:, :, None] & xok[:, None, :])[..., None]
  g = np.where(ok, grads, 0).astype(np.float64)
  b = np.broadcast_to(box_ind[:, None, None], g.shape[:3])
  if method == "nearest":
    yi = np.broadcast_to(np.rint(ys).astype(np.int64).clip(0, h - 1)[:, :, None], g.shape[:3])
    xi = np.broadcast_to(np.rint(xs).astype(np.int64).clip(0, w - 1)[:, None, :], g.shape[:3])
    np.add.at(out, (b, yi, xi), g)
  else:
    t, bo, yl = _corners(ys, h)
    le, r, xl = _corners(xs, w)
    yl, xl = yl[:, :, None, None], xl[:, None, :, None]
    for yy, wy in ((t, 1 - yl), (bo, yl)):
      for xx, wx in ((le, 1 - xl), (r, xl)):
        yi = np.broadcast_to(yy[:, :, None], g.shape[:3])
        xi = np.broadcast_to(xx[:, None, :], g.shape[:3])
        np.add.at(out, (b, yi, xi), g * wy * wx)
  return out.astype(image.dtype)


@op("CropAndResizeGradBoxes", dtypes=_dt.FLOATS, type_inputs=(0,),
    shape=lambda i, a: [(i[2].shape, i[2].dtype)], fresh=True)
def CropAndResizeGradBoxes(grads, image, boxes, box_ind):
  h, w, ys, yok, xs, xok = _crop_setup(image.shape, boxes, box_ind, grads.shape[1:3])
  ch, cw = grads.shape[1:3]
  img = image.astype(np.float64)[box_ind]
  b = np.arange(len(box_ind))[:, None, None]
  t, bo, yl = _corners(ys, h)
  le, r, xl = _corners(xs, w)
  t, bo, yl4 = t[:, :, None], bo[:, :, None], yl[:, :, None, None]
  le, r, xl4 = le[:, None, :], r[:, None, :], xl[:, None, :, None]
  tl, tr, bl, br = img[b, t, le], img[b, t, r], img[b, bo, le], img[b, bo, r]
  ok = (yok[:, :, None] & xok[:, None, :])[..., None]
  g = np.where(ok, grads, 0).astype(np.float64)
  gy = (g * ((1 - xl4) * (bl - tl) + xl4 * (br - tr))).sum(-1)  # [n, ch, cw]
  gx = (g * ((1 - yl4) * (tr - tl) + yl4 * (br - bl))).sum(-1)
  out = np.zeros(boxes.shape, np.float64)
  if ch > 1:
    ratio = np.arange(ch)[None, :, None] * ((h - 1) / (ch - 1))
    out[:, 0] = (gy * (h - 1 - ratio)).sum((1, 2))
    out[:, 2] = (gy * ratio).sum((1, 2))
  else:
    out[:, 0] = out[:, 2] = (gy * 0.5 * (h - 1)).sum((1, 2))
  if cw > 1:
    ratio = np.arange(cw)[None, None, :] * ((w - 1) / (cw - 1))
    out[:, 1] = (gx * (w - 1 - ratio)).sum((1, 2))
    out[:, 3] = (gx * ratio).sum((1, 2))
  else:
    out[:, 1] = out[:, 3] = (gx * 0.5 * (w - 1)).sum((1, 2))
  return out.astype(boxes.dtype)


@CropAndResize.def_grad
def _(op, dy):
  image, boxes, box_ind, _ = op.inputs
  gi = execute(CropAndResizeGradImage, [dy, boxes, box_ind, image],
               {"method": op.attrs["method"]}) if image.dtype.is_floating else None
  # NOTE: as TF, nearest sampling's box gradient is the bilinear one (an approximation:
  # nearest sampling is piecewise constant in the boxes).
  gb = execute(CropAndResizeGradBoxes, [dy, image, boxes, box_ind], {})
  return [gi, gb, None, None]
