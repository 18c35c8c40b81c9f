"""Projective image transforms (TF's ImageProjectiveTransformV3), the op behind the
Keras 2 RandomRotation/RandomZoom/RandomTranslation layers.

Each output pixel (x, y) reads the input at ((a0 x + a1 y + a2) / k,
(b0 x + b1 y + b2) / k) with k = c0 x + c1 y + 1, the 8 numbers of one
transform row [a0, a1, a2, b0, b1, b2, c0, c1] (one row for the whole batch
or one per image). Points outside the image are mapped back in by
`fill_mode` (reflect, wrap, nearest) or read as `fill_value` (constant), then
sampled by nearest or bilinear interpolation. Coordinates are float32 as in
TF's kernel.

The kernel turns the geometry into at most 4 taps per output pixel (input
index, weight) plus a weight on `fill_value`; the forward pass gathers, the
gradient scatters the same taps back (the exact adjoint, so it passes a
finite-difference check; TF instead warps the gradient by the inverse
transform, an approximation), and the adjoint's gradient is the forward
transform again with fill 0, so gradients nest.
"""
import numpy as np

from tensorlet import dtypes as _dt
from tensorlet.ops._common import height_width
from tensorlet.ops.registry import constant_value, execute, op
from tensorlet.tensor_shape import TensorShape

FILL_MODES = ("REFLECT", "WRAP", "CONSTANT", "NEAREST")
INTERPOLATIONS = ("NEAREST", "BILINEAR")
_DTYPES = frozenset({_dt.uint8, _dt.int32, _dt.int64, _dt.float16, _dt.float32,
                     _dt.float64})


def _trunc(v):
  return np.trunc(v).astype(np.int64)


def _map_coordinate(c, n, mode):
  """Maps float32 input coordinates `c` along an axis of length n into [0, n - 1]
  (the `fill_mode` rule); CONSTANT leaves them for the fill check."""
  f = np.float32
  if mode == "CONSTANT":
    return c
  if mode == "NEAREST":
    return np.clip(c, f(0), f(n - 1))
  if n <= 1:
    return np.zeros_like(c)
  c = c.copy()
  lo, hi = c < 0, c > n - 1  # one branch per point, decided before either moves it
  if mode == "REFLECT":
    s2 = 2 * n
    v = c[lo]
    v = np.where(v < s2, f(s2) * _trunc(-v / f(s2)).astype(f) + v, v)
    c[lo] = np.where(v < -n, v + f(s2), -v - f(1))
    v = c[hi]
    v = v - f(s2) * _trunc(v / f(s2)).astype(f)
    c[hi] = np.where(v >= n, f(s2) - v - f(1), v)
  else:  # WRAP
    sz = n - 1
    c[lo] = c[lo] + f(n) * (_trunc(-c[lo] / f(sz)) + 1).astype(f)
    c[hi] = c[hi] - f(n) * _trunc(c[hi] / f(sz)).astype(f)
  return np.clip(c, f(0), f(n - 1))


def _round_half_away(v):
  return np.where(v < 0, -np.floor(-v + 0.5), np.floor(v + 0.5))


def _image_taps(h, w, xs, ys, t, fill_mode, interpolation):
  """The taps of one image: [(flat input index [P], weight [P]), ...] and the weight
  on `fill_value` [P] (None when nothing is filled), for float32 output coordinates
  xs, ys [P] and one transform row t."""
  f = np.float32
  t = [f(v) for v in t]
  zero = None
  if t[6] == 0 and t[7] == 0:
    in_x = t[0] * xs + t[1] * ys + t[2]
    in_y = t[3] * xs + t[4] * ys + t[5]
  else:
    proj = t[6] * xs + t[7] * ys + f(1)
    zero = proj == 0
    if not zero.any():
      zero = None
    else:
      proj = np.where(zero, f(1), proj)
    in_x = (t[0] * xs + t[1] * ys + t[2]) / proj
    in_y = (t[3] * xs + t[4] * ys + t[5]) / proj
  x = _map_coordinate(in_x, w, fill_mode)
  y = _map_coordinate(in_y, h, fill_mode)
  if interpolation == "NEAREST":
    cand = [(_round_half_away(y), _round_half_away(x), None)]
  else:
    y0, x0 = np.floor(y), np.floor(x)
    y1, x1 = y0 + f(1), x0 + f(1)
    wy1, wx1 = y - y0, x - x0
    wy0, wx0 = y1 - y, x1 - x
    cand = [(y0, x0, wy0 * wx0), (y0, x1, wy0 * wx1), (y1, x0, wy1 * wx0), (y1, x1, wy1 * wx1)]
  taps = []
  fill = None
  # NOTE: mapped coordinates (all modes but CONSTANT) lie in [0, n - 1]: a neighbour
  # past the edge has weight 0, so clamping its index is enough.
  clamp_only = fill_mode != "CONSTANT" and zero is None
  for cy, cx, wt in cand:
    if wt is None:
      wt = np.ones_like(x)
    if clamp_only:
      iy = np.minimum(cy, f(h - 1)).astype(np.intp)
      ix = np.minimum(cx, f(w - 1)).astype(np.intp)
      taps.append((iy * w + ix, wt))
      continue
    inside = (cy >= 0) & (cy <= h - 1) & (cx >= 0) & (cx <= w - 1)
    if zero is not None:
      inside &= ~zero
      wt = np.where(zero, f(0), wt)
    out = np.where(inside, f(0), wt)
    fill = out if fill is None else fill + out
    flat = np.where(inside, cy * w + cx, f(0)).astype(np.intp)
    taps.append((flat, np.where(inside, wt, f(0))))
  if zero is not None:
    fill = np.where(zero, f(1), fill)
  return taps, fill


def _grid(oh, ow):
  f = np.float32
  ys, xs = np.meshgrid(np.arange(oh, dtype=f), np.arange(ow, dtype=f), indexing="ij")
  return xs.reshape(-1), ys.reshape(-1)


def _rows(transforms, batch):
  t = np.asarray(transforms, np.float32).reshape(-1, 8)
  return np.broadcast_to(t, (batch, 8)) if t.shape[0] == 1 else t


def transform_taps(batch, h, w, oh, ow, transforms, fill_mode, interpolation):
  """Per image (lazily, so each image's arrays stay in cache while used), the taps of
  each output pixel (see `_image_taps`); P = oh*ow."""
  xs, ys = _grid(oh, ow)
  return (_image_taps(h, w, xs, ys, row, fill_mode, interpolation)
          for row in _rows(transforms, batch))


def _out_hw(output_shape):
  return height_width(output_shape, "output_shape", "output_shape")


def _check_transforms(t, batch):
  if t.ndim != 2 or t.shape[1] != 8 or t.shape[0] not in (1, batch):
    raise ValueError(f"transforms must be [1, 8] or [{batch}, 8] (one row per image), got "
                     f"shape {list(t.shape)}")


def _check_attrs(interpolation, fill_mode):
  if fill_mode not in FILL_MODES:
    raise ValueError(f"fill_mode must be one of {list(FILL_MODES)}, got {fill_mode!r}")
  if interpolation not in INTERPOLATIONS:
    raise ValueError(f"interpolation must be one of {list(INTERPOLATIONS)}, got "
                     f"{interpolation!r}")


def _transform_shape(inputs, attrs):
  images, transforms, output_shape = inputs[:3]
  r = images.shape.rank
  if r is not None and r != 4:
    raise ValueError(f"images must be 4-D [batch, height, width, channels], got rank {r}")
  tr = transforms.shape
  if tr.rank is not None and (tr.rank != 2 or tr[1] not in (None, 8)):
    raise ValueError(f"transforms must be 2-D [batch or 1, 8], got shape {tr}")
  _check_attrs(attrs["interpolation"], attrs["fill_mode"])
  sv = constant_value(output_shape)
  hw = list(_out_hw(sv)) if sv is not None else [None, None]
  d = images.shape.as_list() if r is not None else [None] * 4
  return [(TensorShape([d[0]] + hw + [d[3]]), images.dtype)]


@op("ImageProjectiveTransformV3", dtypes=_DTYPES, type_inputs=(0,), shape=_transform_shape,
    fresh=True)
def ImageProjectiveTransformV3(images, transforms, output_shape, fill_value, *, interpolation,
                               fill_mode):
  if images.ndim != 4:
    raise ValueError(f"images must be 4-D [batch, height, width, channels], got rank "
                     f"{images.ndim}")
  _check_attrs(interpolation, fill_mode)
  bsz, h, w, c = images.shape
  _check_transforms(transforms, bsz)
  oh, ow = _out_hw(output_shape)
  ft = np.float64 if images.dtype == np.float64 else np.float32
  fv = ft(fill_value)
  out = np.empty((bsz, oh * ow, c), ft)
  # NOTE: one image at a time keeps the per-pixel arrays in cache (a whole batch of
  # them at once is several times slower).
  for i, (taps, fill) in enumerate(transform_taps(bsz, h, w, oh, ow, transforms, fill_mode,
                                                  interpolation)):
    x = images[i].reshape(h * w, c).astype(ft, copy=False)
    acc = None
    for idx, wt in taps:
      term = np.take(x, idx, axis=0)
      term *= wt.astype(ft, copy=False)[:, None]
      acc = term if acc is None else acc + term
    if fill is not None and fv != 0:
      acc += (fill.astype(ft, copy=False) * fv)[:, None]
    out[i] = acc
  out = out.reshape(bsz, oh, ow, c)
  if images.dtype.kind in "iu":
    out = np.trunc(out)  # C++'s float-to-int conversion
  return out.astype(images.dtype, copy=False)


def _grad_shape(inputs, attrs):
  return [(inputs[1].shape, inputs[0].dtype)]


@op("ImageProjectiveTransformV3Grad", dtypes=_dt.FLOATS, type_inputs=(0,), shape=_grad_shape,
    fresh=True)
def ImageProjectiveTransformV3Grad(grads, images, transforms, *, interpolation, fill_mode):
  """The adjoint of the transform in `images`: each output gradient goes back to the
  input pixels it was sampled from, by the same weights."""
  bsz, h, w, c = images.shape
  _, oh, ow, _ = grads.shape
  ft = np.float64 if grads.dtype == np.float64 else np.float32
  out = np.zeros((bsz, h * w * c), ft)
  chan = np.arange(c)
  for i, (taps, _) in enumerate(transform_taps(bsz, h, w, oh, ow, transforms, fill_mode,
                                               interpolation)):
    g = grads[i].reshape(oh * ow, c).astype(ft, copy=False)
    for idx, wt in taps:
      flat = (idx[:, None] * c + chan).reshape(-1)
      out[i] += np.bincount(flat, (g * wt.astype(ft, copy=False)[:, None]).reshape(-1),
                            minlength=h * w * c)
  return out.reshape(bsz, h, w, c).astype(grads.dtype, copy=False)


@ImageProjectiveTransformV3.def_grad
def _(op, dy):
  x = op.inputs[0]
  if not x.dtype.is_floating:
    return [None, None, None, None]
  g = execute(ImageProjectiveTransformV3Grad, [dy, x, op.inputs[1]], op.attrs)
  return [g, None, None, None]


@ImageProjectiveTransformV3Grad.def_grad
def _(op, ddx):
  from tensorlet.ops import array_ops
  from tensorlet.tensor import convert_to_tensor
  dy = op.inputs[0]
  size = array_ops.shape(dy)[1:3]
  zero = convert_to_tensor(np.float32(0))
  return [execute(ImageProjectiveTransformV3, [ddx, op.inputs[2], size, zero], op.attrs),
          None, None]


def image_projective_transform_v3(images, transforms, output_shape, fill_value=0.0,
                                  interpolation="BILINEAR", fill_mode="CONSTANT"):
  """The op on a 4-D batch: transforms [1 or batch, 8] float32, output_shape [2] int32."""
  from tensorlet.tensor import convert_to_tensor
  x = convert_to_tensor(images)
  t = convert_to_tensor(transforms, _dt.float32)
  s = convert_to_tensor(output_shape, _dt.int32)
  fv = convert_to_tensor(fill_value, _dt.float32)
  return execute(ImageProjectiveTransformV3, [x, t, s, fv],
                 {"interpolation": str(interpolation).upper(),
                  "fill_mode": str(fill_mode).upper()})
