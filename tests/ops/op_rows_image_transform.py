"""Op-table rows for ImageProjectiveTransformV3 (and its adjoint) against a NumPy
reference written one output pixel at a time with scalar Python arithmetic, apart
from the kernel's vectorised taps. The transform is linear in the image, so the
finite-difference gradient rows check the exact adjoint."""
import math

import numpy as np

import tensorlet as tf
from op_table import F32_64, args, case
from tensorlet.ops.image_transform_ops import (ImageProjectiveTransformV3Grad,
                                               image_projective_transform_v3)
from tensorlet.ops.registry import execute

u8, i32, f32, f64 = np.uint8, np.int32, np.float32, np.float64


def _map(c, n, mode):
  if mode == "CONSTANT":
    return c
  if mode == "NEAREST" or n <= 1:
    return min(max(c, 0.0), n - 1.0) if n > 1 else 0.0
  if mode == "REFLECT":  # ... c b a | a b c d | d c b a ...
    period = 2 * n
    if c < 0:
      c = period * int(-c / period) + c
      c = c + period if c < -n else -c - 1
    elif c > n - 1:
      c -= period * int(c / period)
      if c >= n:
        c = period - c - 1
  else:  # WRAP: ... a b c d | a b c d | ...
    if c < 0:
      c += n * (int(-c / (n - 1)) + 1)
    elif c > n - 1:
      c -= n * int(c / (n - 1))
  return min(max(c, 0.0), n - 1.0)


def _ref(transforms, out_hw, fill_value, interpolation, fill_mode):
  def ref(x):
    b, h, w, c = x.shape
    oh, ow = out_hw
    t = np.asarray(transforms, np.float32).reshape(-1, 8)
    out = np.zeros((b, oh, ow, c), np.float64)

    def read(i, y, xx):
      if 0 <= y < h and 0 <= xx < w:
        return x[i, int(y), int(xx)].astype(np.float64)
      return np.full(c, fill_value, np.float64)

    for i in range(b):
      a = list(t[i if t.shape[0] > 1 else 0])  # float32 scalars: TF's arithmetic
      for iy in range(oh):
        for ix in range(ow):
          oy, ox = np.float32(iy), np.float32(ix)
          k = a[6] * ox + a[7] * oy + np.float32(1)
          if k == 0:
            out[i, iy, ix] = fill_value
            continue
          sx = _map((a[0] * ox + a[1] * oy + a[2]) / k, w, fill_mode)
          sy = _map((a[3] * ox + a[4] * oy + a[5]) / k, h, fill_mode)
          sx, sy = float(sx), float(sy)
          if interpolation == "NEAREST":
            ry = math.floor(sy + 0.5) if sy >= 0 else -math.floor(-sy + 0.5)
            rx = math.floor(sx + 0.5) if sx >= 0 else -math.floor(-sx + 0.5)
            out[i, iy, ix] = read(i, ry, rx)
          else:
            y0, x0 = math.floor(sy), math.floor(sx)
            top = (x0 + 1 - sx) * read(i, y0, x0) + (sx - x0) * read(i, y0, x0 + 1)
            bot = (x0 + 1 - sx) * read(i, y0 + 1, x0) + (sx - x0) * read(i, y0 + 1, x0 + 1)
            out[i, iy, ix] = (y0 + 1 - sy) * top + (sy - y0) * bot
    if x.dtype.kind in "iu":
      out = np.trunc(out)
    return out.astype(x.dtype)
  return ref


_ROT = [0.8, -0.5, 1.7, 0.5, 0.8, -2.2, 0.0, 0.0]  # rotation + shift, one for the batch
_PER_IMAGE = [[1.3, 0.2, -4.6, -0.1, 0.7, 3.9, 0.0, 0.0],
              [0.9, -0.3, 6.2, 0.25, 1.1, -5.3, 0.02, -0.03]]  # one projective per image
_SETUPS = [("rotate", [_ROT], (5, 6)), ("per_image", _PER_IMAGE, (4, 7))]

for _mode in ("REFLECT", "WRAP", "CONSTANT", "NEAREST"):
  for _interp in ("BILINEAR", "NEAREST"):
    for _tag, _t, _hw in _SETUPS:
      _fn = (lambda t, hw, i, m: lambda x: image_projective_transform_v3(
          x, t, hw, 1.5, i, m))(_t, _hw, _interp, _mode)
      case(f"image/projective_transform/{_mode.lower()}_{_interp.lower()}/{_tag}", _fn,
           _ref(_t, _hw, 1.5, _interp, _mode), args([2, 5, 6, 2], lo=0, hi=4), F32_64,
           grad=True, order=2, rtol=1e-5, atol=1e-5)

case("image/projective_transform/uint8", lambda x: image_projective_transform_v3(
    x, [_ROT], (5, 6), 0.0, "BILINEAR", "REFLECT"),
     _ref([_ROT], (5, 6), 0.0, "BILINEAR", "REFLECT"), args([1, 5, 6, 3], lo=0, hi=250),
     (u8, i32), grad=False)
case("image/projective_transform/identity", lambda x: image_projective_transform_v3(
    x, [[1, 0, 0, 0, 1, 0, 0, 0]], (4, 3), 0.0, "NEAREST", "CONSTANT"), lambda x: x,
     args([3, 4, 3, 1]), F32_64 + (u8,), grad=True)


def _adjoint(t, hw, interp, mode):
  """The adjoint op on `dy`, against the image it maps back to (shape [2, 5, 6, 2])."""
  image = np.zeros((2, 5, 6, 2))
  def adjoint(dy):
    dy = tf.convert_to_tensor(dy)  # the raw op takes tensors (a Variable row reads it first)
    return execute(ImageProjectiveTransformV3Grad,
                   [dy, tf.constant(image, dy.dtype), tf.constant(t, tf.float32)],
                   {"interpolation": interp, "fill_mode": mode})
  return adjoint


def _adjoint_ref(t, hw, interp, mode):
  """The transpose of the forward map, column by column (forward of unit images)."""
  fwd = _ref(t, hw, 0.0, interp, mode)

  def ref(dy):
    n = 2 * 5 * 6 * 2
    out = np.zeros(n)
    for j in range(n):
      e = np.zeros(n)
      e[j] = 1.0
      out[j] = np.sum(fwd(e.reshape(2, 5, 6, 2)) * dy)
    return out.reshape(2, 5, 6, 2).astype(dy.dtype)
  return ref


for _mode, _interp in (("REFLECT", "BILINEAR"), ("CONSTANT", "NEAREST"), ("WRAP", "BILINEAR")):
  _t, _hw = _PER_IMAGE, (4, 7)
  case(f"image/projective_transform_grad/{_mode.lower()}_{_interp.lower()}",
       _adjoint(_t, _hw, _interp, _mode), _adjoint_ref(_t, _hw, _interp, _mode),
       args([2, 4, 7, 2]), F32_64, grad=True, rtol=1e-5, atol=1e-5)
