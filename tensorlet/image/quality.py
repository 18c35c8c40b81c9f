"""tf.image measures and filters: psnr, ssim, total_variation, sobel_edges,
image_gradients (compositions, differentiable)."""
import numpy as np

from tensorlet import dtypes as _dt
from tensorlet.errors import InvalidArgumentError
from tensorlet.image.color import convert_image_dtype
from tensorlet.ops import array_ops as _a
from tensorlet.ops import math_ops as _m
from tensorlet.tensor import convert_to_tensor


def _compatible(a, b):
  sa, sb = a.shape, b.shape
  if sa.rank is not None and sa.rank < 3 or sb.rank is not None and sb.rank < 3:
    raise ValueError(f"Shape must be at least rank 3: {sa} and {sb}")
  if sa.rank is not None and sb.rank is not None:
    ta, tb = sa.as_list()[-3:], sb.as_list()[-3:]
    if any(x is not None and y is not None and x != y for x, y in zip(ta, tb)):
      raise ValueError(f"Shapes {sa} and {sb} are incompatible")
    # NOTE: eager values must also broadcast in the batch dimensions.
    try:
      np.broadcast_shapes(tuple(d or 1 for d in sa.as_list()), tuple(d or 1 for d in
                                                                      sb.as_list()))
    except ValueError:
      raise InvalidArgumentError(None, None, f"Shapes {sa} and {sb} do not broadcast") \
          from None


def psnr(a, b, max_val, name=None):
  """Peak signal-to-noise ratio per image: 10 log10(max_val^2 / mse), float32."""
  a, b = convert_to_tensor(a), convert_to_tensor(b)
  if a.dtype is not b.dtype:
    raise TypeError(f"a and b must have the same dtype, got {a.dtype.name} and {b.dtype.name}")
  _compatible(a, b)
  mv = convert_image_dtype(_m.cast(max_val, a.dtype), _dt.float32)
  a, b = convert_image_dtype(a, _dt.float32), convert_image_dtype(b, _dt.float32)
  mse = _m.reduce_mean(_m.squared_difference(a, b), [-3, -2, -1])
  return 20 * _m.log(mv) / np.float32(np.log(10.0)) - np.float32(10 / np.log(10)) * _m.log(mse)


def _gauss_kernel(size, sigma):
  coords = np.arange(size, dtype=np.float32) - np.float32(size - 1) / 2
  g = np.square(coords) * np.float32(-0.5 / np.float32(sigma) ** 2)
  g = (g[None, :] + g[:, None]).reshape(-1)
  g = np.exp(g - g.max())
  return (g / g.sum()).reshape(size, size).astype(np.float32)


def _ssim_per_channel(x, y, max_val, filter_size, filter_sigma, k1, k2, index_map):
  from tensorlet.ops import conv_ops
  h, w = x.shape.as_list()[-3:-1]
  if h is not None and w is not None and (h < filter_size or w < filter_size):
    raise InvalidArgumentError(None, None, f"ssim: the image height and width ({h}, {w}) must "
                               f"be at least the filter size {filter_size}")
  c = x.shape[-1]
  if c is None:
    raise ValueError("ssim needs the number of channels to be known")
  kernel = np.tile(_gauss_kernel(filter_size, filter_sigma)[:, :, None, None], [1, 1, c, 1])
  kernel = convert_to_tensor(kernel.astype(x.dtype._np))

  def reducer(t):
    s = _a.shape(t)
    t4 = _a.reshape(t, _a.concat([[-1], s[-3:]], 0))
    r = conv_ops.depthwise_conv2d(t4, kernel, strides=[1, 1, 1, 1], padding="VALID")
    return _a.reshape(r, _a.concat([s[:-3], _a.shape(r)[1:]], 0))

  c1 = (k1 * max_val) ** 2
  c2 = (k2 * max_val) ** 2
  mean0, mean1 = reducer(x), reducer(y)
  num0 = mean0 * mean1 * 2.0
  den0 = _m.square(mean0) + _m.square(mean1)
  luminance = (num0 + c1) / (den0 + c1)
  num1 = reducer(x * y) * 2.0
  den1 = reducer(_m.square(x) + _m.square(y))
  cs = (num1 - num0 + c2) / (den1 - den0 + c2)
  if index_map:
    return luminance * cs, cs
  return _m.reduce_mean(luminance * cs, [-3, -2]), _m.reduce_mean(cs, [-3, -2])


def _float_pair(img1, img2, max_val):
  """Both images and max_val as float32 in [0, 1] units, after TF's checks."""
  x, y = convert_to_tensor(img1), convert_to_tensor(img2)
  if x.dtype is not y.dtype:
    raise TypeError(f"img1 and img2 must have the same dtype, got {x.dtype.name} and "
                    f"{y.dtype.name}")
  _compatible(x, y)
  mv = convert_image_dtype(_m.cast(max_val, x.dtype), _dt.float32)
  return convert_image_dtype(x, _dt.float32), convert_image_dtype(y, _dt.float32), mv


def ssim(img1, img2, max_val, filter_size=11, filter_sigma=1.5, k1=0.01, k2=0.03,
         return_index_map=False):
  """Structural similarity per image (Gaussian window), averaged over channels."""
  x, y, mv = _float_pair(img1, img2, max_val)
  val, _ = _ssim_per_channel(x, y, mv, int(filter_size), float(filter_sigma), k1, k2,
                             return_index_map)
  return _m.reduce_mean(val, [-1])


def total_variation(images, name=None):
  """Sum of absolute differences of neighbouring pixels (per image for a batch)."""
  x = convert_to_tensor(images)
  rank = x.shape.rank
  if rank == 3:
    axes = None
  elif rank == 4:
    axes = [1, 2, 3]
  else:
    raise ValueError("'images' must be either 3 or 4-dimensional.")
  dh = x[..., 1:, :, :] - x[..., :-1, :, :]
  dw = x[..., :, 1:, :] - x[..., :, :-1, :]
  return _m.reduce_sum(_m.abs(dh), axes) + _m.reduce_sum(_m.abs(dw), axes)


def _require_4d(x, fn, error=ValueError):
  if x.shape.rank != 4:
    msg = f"{fn} expects a 4D tensor [batch_size, h, w, d], not {x.shape}."
    raise error(msg) if error is ValueError else error(None, None, msg)


def image_gradients(image):
  """(dy, dx): forward differences down and right, zero in the last row / column."""
  x = convert_to_tensor(image)
  _require_4d(x, "image_gradients")
  dy = x[:, 1:] - x[:, :-1]
  dx = x[:, :, 1:] - x[:, :, :-1]
  dy = _a.concat([dy, _a.zeros_like(x[:, :1])], 1)
  dx = _a.concat([dx, _a.zeros_like(x[:, :, :1])], 2)
  return dy, dx


_SOBEL = (np.array([[-1, -2, -1], [0, 0, 0], [1, 2, 1]], np.float64),
          np.array([[-1, 0, 1], [-2, 0, 2], [-1, 0, 1]], np.float64))


def sobel_edges(image):
  """[batch, h, w, d, 2]: the vertical and horizontal Sobel responses (reflect-padded)."""
  x = convert_to_tensor(image)
  _require_4d(x, "sobel_edges", InvalidArgumentError)
  if not x.dtype.is_floating:
    x = _m.cast(x, _dt.float32)
  h, w = x.shape.as_list()[1:3]
  p = _a.pad(x, [[0, 0], [1, 1], [1, 1], [0, 0]], mode="REFLECT")
  hs = _a.shape(x)[1] if h is None else h
  ws = _a.shape(x)[2] if w is None else w
  outs = []
  for k in _SOBEL:
    acc = None
    for i in range(3):
      for j in range(3):
        if k[i, j]:
          term = p[:, i:i + hs, j:j + ws] * float(k[i, j])
          acc = term if acc is None else acc + term
    outs.append(acc)
  return _a.stack(outs, -1)


_MSSSIM_WEIGHTS = (0.0448, 0.2856, 0.3001, 0.2363, 0.1333)


def ssim_multiscale(img1, img2, max_val, power_factors=_MSSSIM_WEIGHTS, filter_size=11,
                    filter_sigma=1.5, k1=0.01, k2=0.03):
  """Multi-scale SSIM: contrast-structure at each 2x-downsampled scale, SSIM at the last,
  combined with `power_factors` (TF's MS-SSIM, float32)."""
  from tensorlet.ops import conv_ops
  x, y, mv = _float_pair(img1, img2, max_val)
  lead = x.shape.as_list()[:-3]
  if None in lead or x.shape.rank is None:
    raise ValueError("ssim_multiscale needs known batch dimensions")
  mcs = []
  for k in range(len(power_factors)):
    if k > 0:  # 2x2 average pooling; odd sizes first mirror their last row / column
      pooled = []
      for t in (x, y):
        t4 = _a.reshape(t, [-1] + t.shape.as_list()[-3:]) if t.shape.rank != 4 else t
        h, w = t4.shape.as_list()[1:3]
        if h is None or w is None:
          raise ValueError("ssim_multiscale needs known image sizes")
        if h % 2 or w % 2:
          t4 = _a.pad(t4, [[0, 0], [0, h % 2], [0, w % 2], [0, 0]], mode="SYMMETRIC")
        p = conv_ops.avg_pool2d(t4, 2, 2, "VALID")
        pooled.append(_a.reshape(p, lead + p.shape.as_list()[1:]) if len(lead) != 1 else p)
      x, y = pooled
    ssim_val, cs = _ssim_per_channel(x, y, mv, filter_size, filter_sigma, k1, k2, False)
    mcs.append(_m.maximum(cs, 0.0) if k < len(power_factors) - 1 else
               _m.maximum(ssim_val, 0.0))
  stack = _a.stack(mcs, -1)  # [..., channels, scales]
  weights = convert_to_tensor(np.asarray(power_factors, np.float32))
  ms = _m.reduce_prod(_m.pow(stack, weights), [-1])
  return _m.reduce_mean(ms, [-1])
