"""Op-table rows for tf.image against NumPy references written per pixel.

The references follow TF's sampling rules (half-pixel centres) one output
pixel at a time, independently of the kernels' weight matrices. Gradient rows
use the resize op itself (float64 stays float64 there; tf.image.resize casts
its result to float32 as TF does).
"""
import numpy as np

import tensorlet as tf
from op_table import F32_64, args, case, fixed
from tensorlet.image.boxes import crop_and_resize_op
from tensorlet.ops.image_ops import resize_images

img = tf.image
u8, i32, f32, f64 = np.uint8, np.int32, np.float32, np.float64


# ------------------------------------------------------ resize references

def _ref_bilinear_1d(n_in, n_out):
  rows = []
  for o in range(n_out):
    src = (o + 0.5) * n_in / n_out - 0.5
    lo = int(np.floor(src))
    frac = src - lo
    w = np.zeros(n_in)
    w[min(max(lo, 0), n_in - 1)] += 1 - frac
    w[min(max(lo + 1, 0), n_in - 1) if src > lo else min(max(lo, 0), n_in - 1)] += frac
    rows.append(w)
  return np.array(rows)


def _cubic(t):
  t = abs(t)
  if t >= 2:
    return 0.0
  if t >= 1:
    return ((-0.5 * t + 2.5) * t - 4) * t + 2
  return (1.5 * t - 2.5) * t * t + 1


def _ref_bicubic_1d(n_in, n_out):
  rows = []
  for o in range(n_out):
    src = (o + 0.5) * n_in / n_out - 0.5
    base = int(np.floor(src))
    frac = round((src - base) * 1024) / 1024  # TF's 1024-entry coefficient table
    w = np.zeros(n_in)
    taps = [(base + k, _cubic(frac - k)) for k in (-1, 0, 1, 2)]
    total = sum(c for i, c in taps if 0 <= i < n_in)
    for i, c in taps:
      if 0 <= i < n_in:
        w[i] += c / total
    rows.append(w)
  return np.array(rows)


def _ref_area_1d(n_in, n_out):
  s = n_in / n_out
  rows = []
  for o in range(n_out):
    w = np.zeros(n_in)
    for i in range(n_in):
      w[i] = max(0.0, min(i + 1, (o + 1) * s) - max(i, o * s)) / s
    rows.append(w)
  return np.array(rows)


def _ref_nearest_1d(n_in, n_out):
  w = np.zeros((n_out, n_in))
  for o in range(n_out):
    w[o, min(int(np.floor((o + 0.5) * n_in / n_out)), n_in - 1)] = 1
  return w


def _lanczos3(t):
  t = abs(t)
  if t > 3:
    return 0.0
  if t < 1e-3:
    return 1.0
  return 3 * np.sin(np.pi * t) * np.sin(np.pi * t / 3) / (np.pi * t) ** 2


def _ref_kernel_1d(kernel, radius, antialias):
  def make(n_in, n_out):
    inv = n_in / n_out
    ks = max(inv, 1.0) if antialias else 1.0
    rows = []
    for o in range(n_out):
      c = (o + 0.5) * inv
      lo = min(max(int(np.ceil(c - radius * ks - 0.5)), 0), n_in - 1)
      hi = min(max(int(np.floor(c + radius * ks - 0.5)), 0), n_in - 1)
      w = np.zeros(n_in)
      for i in range(lo, hi + 1):
        w[i] = kernel((i + 0.5 - c) / ks)
      rows.append(w / w.sum())
    return np.array(rows)
  return make


def _ref_resize(weights_1d, oh, ow, out_dtype=None):
  def ref(x):
    b, h, w, c = x.shape
    wh, ww = weights_1d(h, oh), weights_1d(w, ow)
    y = np.einsum("oh,bhwc,pw->bopc", wh, x.astype(f64), ww)
    return y.astype(out_dtype or (f64 if x.dtype == f64 else f32))
  return ref


_RESIZE = [
    ("bilinear", _ref_bilinear_1d, False), ("bicubic", _ref_bicubic_1d, False),
    ("area", _ref_area_1d, False), ("lanczos3", _ref_kernel_1d(_lanczos3, 3, False), False),
    ("bilinear", _ref_kernel_1d(lambda t: max(0.0, 1 - abs(t)), 1, True), True),
    ("bicubic", _ref_kernel_1d(_cubic, 2, True), True),
]
for _m, _w1, _aa in _RESIZE:
  for _oh, _ow in [(3, 5), (7, 8)]:
    _name = f"image/resize/{_m}{'/antialias' if _aa else ''}/{_oh}x{_ow}"
    _fn = (lambda m, oh, ow, aa: lambda x: resize_images(x, [oh, ow], m, aa))(_m, _oh, _ow, _aa)
    case(_name, _fn, _ref_resize(_w1, _oh, _ow), args([2, 5, 6, 2], lo=0, hi=1), F32_64,
         grad=_m != "area", rtol=1e-5, atol=1e-5)
case("image/resize/public_float32", lambda x: img.resize(x, [3, 4]),
     _ref_resize(_ref_bilinear_1d, 3, 4, f32), args([1, 5, 6, 1], lo=0, hi=1), (f64, u8),
     grad=False, rtol=1e-5, atol=1e-4)
case("image/resize/nearest", lambda x: img.resize(x, [7, 4], method="nearest"),
     lambda x: _ref_resize(_ref_nearest_1d, 7, 4, f64)(x).astype(x.dtype),
     args([1, 5, 6, 2], lo=0, hi=50), F32_64 + (u8, i32), grad=False)
case("image/resize/nearest/grad", lambda x: resize_images(x, [7, 4], "nearest"),
     _ref_resize(_ref_nearest_1d, 7, 4), args([1, 5, 6, 2]), F32_64, grad=True, order=2)


# ------------------------------------------------------ geometry rows

case("image/flip_left_right", img.flip_left_right, lambda x: x[:, ::-1], args([3, 4, 2]),
     F32_64 + (u8,), grad=True)
case("image/flip_up_down/batch", img.flip_up_down, lambda x: x[:, ::-1], args([2, 3, 4, 1]),
     F32_64 + (u8,), grad=True)
case("image/rot90", img.rot90, lambda x: np.rot90(x, 1, (0, 1)), args([3, 4, 2]),
     F32_64 + (u8,), grad=True)
case("image/rot90/k3_batch", lambda x: img.rot90(x, 3), lambda x: np.rot90(x, 3, (1, 2)),
     args([2, 3, 4, 1]), F32_64, grad=True)
case("image/transpose", img.transpose, lambda x: np.swapaxes(x, 0, 1), args([3, 4, 2]),
     F32_64, grad=True)
case("image/crop_to_bounding_box", lambda x: img.crop_to_bounding_box(x, 1, 2, 2, 3),
     lambda x: x[1:3, 2:5], args([4, 6, 2]), F32_64 + (u8,), grad=True)
case("image/pad_to_bounding_box", lambda x: img.pad_to_bounding_box(x, 1, 2, 5, 6),
     lambda x: np.pad(x, [(0, 0), (1, 1), (2, 1), (0, 0)]), args([2, 3, 3, 1]),
     F32_64 + (u8,), grad=True)
case("image/resize_with_crop_or_pad", lambda x: img.resize_with_crop_or_pad(x, 3, 8),
     lambda x: np.pad(x[1:4], [(0, 0), (1, 2), (0, 0)]), args([5, 5, 2]), F32_64, grad=True)
case("image/central_crop", lambda x: img.central_crop(x, 0.5), lambda x: x[2:6, 1:4],
     args([8, 5, 1]), F32_64, grad=True)


def _patches_ref(x, kh, kw, sh, sw, rh, rw, same):
  b, h, w, c = x.shape
  eh, ew = kh + (kh - 1) * (rh - 1), kw + (kw - 1) * (rw - 1)
  if same:
    oh, ow = -(-h // sh), -(-w // sw)
    ph, pw = max((oh - 1) * sh + eh - h, 0) // 2, max((ow - 1) * sw + ew - w, 0) // 2
  else:
    oh, ow, ph, pw = (h - eh) // sh + 1, (w - ew) // sw + 1, 0, 0
  out = np.zeros((b, oh, ow, kh, kw, c), x.dtype)
  for i in range(oh):
    for j in range(ow):
      for a in range(kh):
        for d in range(kw):
          r, q = i * sh + a * rh - ph, j * sw + d * rw - pw
          if 0 <= r < h and 0 <= q < w:
            out[:, i, j, a, d] = x[:, r, q]
  return out.reshape(b, oh, ow, kh * kw * c)


case("image/extract_patches/valid", lambda x: img.extract_patches(
    x, [1, 2, 3, 1], [1, 2, 1, 1], [1, 1, 1, 1], "VALID"),
     lambda x: _patches_ref(x, 2, 3, 2, 1, 1, 1, False), args([2, 5, 6, 2]), F32_64 + (i32,),
     grad=True, order=2)
case("image/extract_patches/same_rates", lambda x: img.extract_patches(
    x, [1, 3, 2, 1], [1, 2, 3, 1], [1, 1, 2, 1], "SAME"),
     lambda x: _patches_ref(x, 3, 2, 2, 3, 1, 2, True), args([1, 6, 7, 2]), F32_64, grad=True)


# --------------------------------------------------------- colour rows

def _hsv_ref(x):
  r, g, b = x[..., 0], x[..., 1], x[..., 2]
  v = np.max(x, -1)
  rng = v - np.min(x, -1)
  s = np.where(v > 0, rng / np.where(v > 0, v, 1), 0)
  out_h = np.zeros_like(v)
  for idx in np.ndindex(v.shape):
    if rng[idx] > 0:
      if r[idx] == v[idx]:
        hh = (g[idx] - b[idx]) / rng[idx] / 6
      elif g[idx] == v[idx]:
        hh = (b[idx] - r[idx]) / rng[idx] / 6 + 1 / 3
      else:
        hh = (r[idx] - g[idx]) / rng[idx] / 6 + 2 / 3
      out_h[idx] = hh + 1 if hh < 0 else hh
  return np.stack([out_h, s, v], -1).astype(x.dtype)


def _rgb_ref(x):
  import colorsys
  flat = x.reshape(-1, 3)
  return np.array([colorsys.hsv_to_rgb(*p) for p in flat]).reshape(x.shape).astype(x.dtype)


case("image/rgb_to_hsv", img.rgb_to_hsv, _hsv_ref, args([2, 4, 3], lo=0.05, hi=1), F32_64,
     grad=True, rtol=1e-5, atol=1e-6)
case("image/hsv_to_rgb", img.hsv_to_rgb, _rgb_ref, args([2, 4, 3], lo=0.05, hi=0.95),
     F32_64, grad=True, rtol=1e-5, atol=1e-6)
_YUV = np.array([[0.299, -0.14714119, 0.61497538], [0.587, -0.28886916, -0.51496512],
                 [0.114, 0.43601035, -0.10001026]])
case("image/rgb_to_yuv", img.rgb_to_yuv, lambda x: (x @ _YUV).astype(x.dtype),
     args([2, 2, 3], lo=0, hi=1), F32_64, grad=True, rtol=1e-6)
case("image/yuv_to_rgb/inverts", lambda x: img.yuv_to_rgb(img.rgb_to_yuv(x)), lambda x: x,
     args([2, 2, 3], lo=0, hi=1), F32_64, grad=True, rtol=1e-5, atol=1e-6)
case("image/rgb_to_grayscale", img.rgb_to_grayscale, lambda x: (
    x.astype(f32) @ np.array([0.2989, 0.587, 0.114], f32))[..., None].astype(x.dtype),
     args([2, 2, 3], lo=0, hi=1), F32_64, grad=True, rtol=1e-6)
case("image/rgb_to_grayscale/uint8", img.rgb_to_grayscale, lambda x: (
    (x / 255.0).astype(f32) @ np.array([0.2989, 0.587, 0.114], f32) * f32(255.5)).astype(
        u8)[..., None], args([3, 2, 3], lo=0, hi=250), [u8], grad=False)
case("image/grayscale_to_rgb", img.grayscale_to_rgb, lambda x: np.repeat(x, 3, -1),
     args([2, 2, 1]), F32_64 + (u8,), grad=True)
case("image/convert_image_dtype/u8_to_float", lambda x: img.convert_image_dtype(x, tf.float32),
     lambda x: (x.astype(f32) * f32(1 / 255)), args([5], lo=0, hi=250), [u8], grad=False)
case("image/convert_image_dtype/float_to_u8", lambda x: img.convert_image_dtype(x, tf.uint8),
     lambda x: (x * 255.5).astype(u8), args([6], lo=0, hi=1), [f32], grad=False)
case("image/convert_image_dtype/saturate", lambda x: img.convert_image_dtype(
    x, tf.uint8, saturate=True), lambda x: np.clip(x * 255.5, 0, 255).astype(u8),
     fixed([-0.5, 0.2, 1.5]), [f32], grad=False)
case("image/adjust_brightness", lambda x: img.adjust_brightness(x, 0.25),
     lambda x: (x + 0.25).astype(x.dtype), args([2, 3, 3]), [f32], grad=True)
case("image/adjust_contrast", lambda x: img.adjust_contrast(x, 1.7), lambda x: (
    (x - x.mean((0, 1))) * 1.7 + x.mean((0, 1))).astype(x.dtype), args([3, 4, 2]), [f32],
     grad=True, rtol=1e-5, atol=1e-6)
case("image/adjust_gamma", lambda x: img.adjust_gamma(x, 2.0, 1.5),
     lambda x: (1.5 * x ** 2).astype(x.dtype), args([2, 3, 3], lo=0.1, hi=1), [f32],
     grad=True, rtol=1e-5)
case("image/per_image_standardization", img.per_image_standardization, lambda x: (
    (x - x.mean()) / max(x.std(), 1 / np.sqrt(x.size))).astype(x.dtype), args([3, 4, 2]),
     F32_64, grad=True, rtol=1e-5, atol=1e-6)
case("image/total_variation", img.total_variation, lambda x: np.array(
    np.abs(np.diff(x, axis=0)).sum() + np.abs(np.diff(x, axis=1)).sum(), x.dtype),
     args([4, 5, 2]), F32_64, grad=True, rtol=1e-5)


def _sobel_ref(x):
  p = np.pad(x, [(0, 0), (1, 1), (1, 1), (0, 0)], mode="reflect")
  ky = np.array([[-1, -2, -1], [0, 0, 0], [1, 2, 1]])
  outs = []
  for k in (ky, ky.T):
    acc = np.zeros_like(x)
    for i in range(3):
      for j in range(3):
        acc = acc + k[i, j] * p[:, i:i + x.shape[1], j:j + x.shape[2]]
    outs.append(acc)
  return np.stack(outs, -1).astype(x.dtype)


case("image/sobel_edges", img.sobel_edges, _sobel_ref, args([1, 4, 5, 2]), F32_64, grad=True,
     rtol=1e-5, atol=1e-5)
case("image/image_gradients", img.image_gradients, lambda x: (
    np.concatenate([np.diff(x, axis=1), np.zeros_like(x[:, :1])], 1),
    np.concatenate([np.diff(x, axis=2), np.zeros_like(x[:, :, :1])], 2)), args([2, 3, 4, 1]),
     F32_64, grad=True)
case("image/psnr", lambda a, b: img.psnr(a, b, 1.0), lambda a, b: (10 * np.log10(
    1 / np.mean((a.astype(f64) - b) ** 2, axis=(-3, -2, -1)))).astype(f32),
     args([2, 3, 3, 1], [2, 3, 3, 1], lo=0, hi=1), F32_64, grad=True, rtol=1e-5)


def _nms_ref(boxes, scores, k, thr):
  def area(b):
    return (b[2] - b[0]) * (b[3] - b[1])

  def iou(a, b):
    ih = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iw = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    return ih * iw / (area(a) + area(b) - ih * iw)
  keep = []
  for i in sorted(range(len(scores)), key=lambda i: -scores[i]):
    if len(keep) < k and all(iou(boxes[i], boxes[j]) <= thr for j in keep):
      keep.append(i)
  return np.array(keep, i32)


def _boxes(rng, dt):
  lo = rng.uniform(0, 0.6, (12, 2))
  return [np.concatenate([lo, lo + rng.uniform(0.1, 0.4, (12, 2))], 1).astype(dt),
          rng.permutation(12).astype(dt) / 12]


case("image/non_max_suppression", lambda b, s: img.non_max_suppression(b, s, 5, 0.3),
     lambda b, s: _nms_ref(b, s, 5, 0.3), _boxes, [f32], grad=False)


def _draw_ref(x, boxes, color):
  out = x.copy()
  h, w = x.shape[1:3]
  for bi, bb in enumerate(boxes):
    for y1, x1, y2, x2 in bb:
      r1, c1, r2, c2 = int(y1 * (h - 1)), int(x1 * (w - 1)), int(y2 * (h - 1)), int(x2 * (w - 1))
      out[bi, r1, c1:c2 + 1] = color
      out[bi, r2, c1:c2 + 1] = color
      out[bi, r1:r2 + 1, c1] = color
      out[bi, r1:r2 + 1, c2] = color
  return out


_BB = np.array([[[0.1, 0.2, 0.6, 0.9]], [[0.0, 0.0, 1.0, 0.5]]], f32)
case("image/draw_bounding_boxes", lambda x: img.draw_bounding_boxes(
    x, _BB, [[1.0, 0.5, 0.0, 1.0]]), lambda x: _draw_ref(x, _BB, np.array([1.0, 0.5, 0.0])),
     args([2, 6, 7, 3], lo=0, hi=0.4), [f32], grad=False)


# ------------------------------------------------------- crop_and_resize

def _car_ref(img, boxes, box_ind, ch, cw, method="bilinear", extrap=0.0):
  h, w = img.shape[1:3]
  out = np.zeros((len(boxes), ch, cw, img.shape[3]))
  for n, ((y1, x1, y2, x2), b) in enumerate(zip(boxes.astype(f64), box_ind)):
    for i in range(ch):
      y = y1 * (h - 1) + i * (y2 - y1) * (h - 1) / (ch - 1) if ch > 1 else \
          0.5 * (y1 + y2) * (h - 1)
      for j in range(cw):
        x = x1 * (w - 1) + j * (x2 - x1) * (w - 1) / (cw - 1) if cw > 1 else \
            0.5 * (x1 + x2) * (w - 1)
        if not (0 <= y <= h - 1 and 0 <= x <= w - 1):
          out[n, i, j] = extrap
        elif method == "nearest":
          out[n, i, j] = img[b, int(np.floor(y + 0.5)), int(np.floor(x + 0.5))]
        else:
          t, le = int(np.floor(y)), int(np.floor(x))
          bo, r = min(t + 1, h - 1), min(le + 1, w - 1)
          dy, dx = y - t, x - le
          out[n, i, j] = ((1 - dy) * ((1 - dx) * img[b, t, le] + dx * img[b, t, r]) +
                          dy * ((1 - dx) * img[b, bo, le] + dx * img[b, bo, r]))
  return out


def _car_inputs(rng, dt):
  lo = rng.uniform(-0.1, 0.5, (3, 2))
  boxes = np.concatenate([lo, lo + rng.uniform(0.2, 0.6, (3, 2))], 1)
  return [rng.rand(2, 5, 6, 2).astype(dt), boxes.astype(dt)]


_BI = np.array([1, 0, 1], np.int32)
case("image/crop_and_resize", lambda im, b: img.crop_and_resize(im, b, _BI, [3, 4],
                                                                 extrapolation_value=-1.0),
     lambda im, b: _car_ref(im, b, _BI, 3, 4, extrap=-1.0).astype(f32), _car_inputs, F32_64,
     grad=False, rtol=1e-5, atol=1e-5)
case("image/crop_and_resize/nearest", lambda im, b: img.crop_and_resize(
    im, b, _BI, [4, 1], method="nearest"), lambda im, b: _car_ref(
        im, b, _BI, 4, 1, "nearest").astype(f32), _car_inputs, [f32], grad=False)
case("image/crop_and_resize/grad", lambda im, b: crop_and_resize_op(im, b, _BI, [3, 4]),
     lambda im, b: _car_ref(im, b, _BI, 3, 4).astype(im.dtype), _car_inputs, F32_64,
     grad=True, rtol=1e-5, atol=1e-5)
