"""Convolution and pooling (behind tf.nn.conv*, tf.nn.*_pool*).

Kernels work on NHWC; NCHW callers are transposed around them. Conv2D is
im2col: a strided view of the padded input, one reshape-copy to
[N*OH*OW, KH*KW*C] and one matmul (BLAS) with the filters as [KH*KW*C, O];
3x3 stride-1 convs with enough channels use Winograd F(2x2, 3x3) instead
(16 batched gemms over 4x4 tiles, 2.25x fewer multiplies). Its backprops
are primitives whose own gradients are again convolutions, so derivatives
nest to any order; MaxPool/AvgPool likewise pair with grad (and grad-of-grad)
primitives. Window geometry follows TF exactly
(SAME: out = ceil(in / stride), pad_before = pad_total // 2), and so do the
errors: graph shape inference raises ValueError, eager kernels TF's op errors.
"""
import numbers

import numpy as np
from numpy.lib.stride_tricks import as_strided

from tensorlet import dtypes as _dt
from tensorlet.context import ctx
from tensorlet.errors import InvalidArgumentError, UnimplementedError
from tensorlet.ops import _blas_threads as _bt
from tensorlet.ops import array_ops as _a
from tensorlet.ops import math_ops as _m
from tensorlet.ops._common import FLOAT, REAL, _dims, as_int, as_sequence, name_scoped
from tensorlet.ops.array_ops import _const_shape
from tensorlet.ops.registry import convert_inputs, execute, op
from tensorlet.tensor_shape import TensorShape
from tensorlet.tensor import Tensor, convert_to_tensor


# ---------------------------------------------------- window geometry

_ONES = (1, 1, 1, 1)


def _channels_first(data_format, ok=("NHWC", "NCHW")):
  if data_format is None or data_format == ok[0]:
    return False
  if data_format == ok[1]:
    return True
  raise ValueError(f"`data_format` must be {ok[0]!r} or {ok[1]!r}. Received: "
                   f"data_format={data_format}")


def _fail(msg, op_name):
  """Graph shape rules (op_name None) raise ValueError; eager kernels TF's op error."""
  if op_name is None:
    return ValueError(msg)
  return InvalidArgumentError(None, None, f"{msg} [Op:{op_name}]")


def _out_size(n, k, s, d, padding, pads, op_name):
  """(output size, pad before, pad after) of one spatial dim, by TF's rules.

  Like TF, graph shape inference refuses a window larger than a VALID input,
  while the eager kernel only refuses a negative size (so 2 vs 3 gives 0).
  """
  ek = (k - 1) * d + 1
  if padding == "SAME":
    if n is None:
      return None, 0, 0
    out = -(-n // s)
    total = max((out - 1) * s + ek - n, 0)
    return out, total // 2, total - total // 2
  a, b = pads
  if n is None:
    return None, a, b
  if op_name is None and n + a + b < ek:
    raise ValueError(f"Negative dimension size caused by subtracting {ek} from {n + a + b}")
  num = n + a + b - ek + s
  out = num // s if num >= 0 else -(-num // s)  # C++ division truncates toward zero
  if out < 0:
    raise _fail(f"Computed output size would be negative: {out} [input_size: {n + a + b}, "
                f"effective_filter_size: {ek}, stride: {s}]", op_name)
  return out, a, b


class _Geom:
  """Window geometry of a 2-D conv/pool on NHWC: output size, pads, strides, dilations."""

  __slots__ = ("oh", "ow", "pads", "kh", "kw", "sh", "sw", "dh", "dw")

  def __init__(self, hw, kh, kw, attrs, op_name=None):
    st, dl = attrs["strides"], attrs.get("dilations", _ONES)
    padding, ep = attrs["padding"], attrs.get("explicit_paddings") or (0,) * 8
    if st[0] != 1 or st[3] != 1:
      raise _fail("Current implementation does not yet support strides in the batch and "
                  "depth dimensions.", op_name)
    if dl[0] != 1 or dl[3] != 1:
      raise _fail("Current implementation does not yet support dilations in the batch and "
                  "depth dimensions.", op_name)
    if ep[0] or ep[1] or ep[6] or ep[7]:
      raise _fail("Nonzero explicit padding in the batch or depth dimensions is not "
                  "supported", op_name)
    self.kh, self.kw, self.sh, self.sw, self.dh, self.dw = kh, kw, st[1], st[2], dl[1], dl[2]
    self.oh, t, b = _out_size(hw[0], kh, st[1], dl[1], padding, ep[2:4], op_name)
    self.ow, lft, rgt = _out_size(hw[1], kw, st[2], dl[2], padding, ep[4:6], op_name)
    self.pads = ((0, 0), (t, b), (lft, rgt), (0, 0))

  def padded(self, x, fill=0):
    return _pad(x, self.pads[1], self.pads[2], fill)

  def zeros_padded(self, n, h, w, c, dtype):
    return np.zeros((n, h + sum(self.pads[1]), w + sum(self.pads[2]), c), dtype)

  def crop(self, xp, h, w):
    t, lft = self.pads[1][0], self.pads[2][0]
    return np.ascontiguousarray(xp[:, t:t + h, lft:lft + w]) if xp.shape[1:3] != (h, w) else xp

  def taps(self):
    """Per filter tap: the index of the strided [N, OH, OW, C] slab it sees in the padded input."""
    if not (self.oh and self.ow):
      return []
    eh, ew = (self.oh - 1) * self.sh + 1, (self.ow - 1) * self.sw + 1
    return [(slice(None), slice(i * self.dh, i * self.dh + eh, self.sh),
             slice(j * self.dw, j * self.dw + ew, self.sw))
            for i in range(self.kh) for j in range(self.kw)]


def _pad(x, hpad, wpad, fill=0):
  """x [N, H, W, C] padded in H and W by writing it into a filled array.

  NOTE: np.pad costs ~25 us of Python per call, more than the rest of a small conv.
  """
  (t, b), (lft, rgt) = hpad, wpad
  if not (t or b or lft or rgt):
    return x
  if min(t, b, lft, rgt) < 0:  # np.pad's error for negative explicit paddings
    return np.pad(x, ((0, 0), hpad, wpad, (0, 0)), constant_values=fill)
  n, h, w, c = x.shape
  shape = (n, h + t + b, w + lft + rgt, c)
  out = np.zeros(shape, x.dtype) if fill == 0 else np.full(shape, fill, x.dtype)
  out[:, t:t + h, lft:lft + w] = x
  return out


# NOTE: with few input channels, im2col rows and col2im tap slabs [N, OH, OW, C] move C
# values at a time; channel-major planes [C, N, H, W] move runs of OW instead (input
# gradient at C = 3: 3.0 vs 5.0 ms; at C = 16 2.0 vs 3.5 ms the other way).
_CHANNEL_MAJOR_MAX_C = 4


def _cols(xp, oh, ow, g):
  """im2col of the padded input xp: [N*OH*OW, KH*KW*C] (rows by output pixel, columns
  by (tap, channel)), possibly a transposed view of a contiguous copy."""
  n, c = xp.shape[0], xp.shape[3]
  if c <= _CHANNEL_MAJOR_MAX_C:
    # NOTE: windows with a short inner channel axis copy a few values at a time (~3x
    # slower for C = 1); from a channel-major copy of the input, the taps lead and each
    # row of the transposed matrix copies along OW (C = 3: 3.7 vs 4.4 ms forward, 4.8 vs
    # 6.3 ms filter gradient; C = 8 and 16 are faster the usual way).
    xc = np.ascontiguousarray(xp.transpose(3, 0, 1, 2))  # [C, N, Hp, Wp]
    s0, s1, s2, s3 = xc.strides
    v = as_strided(xc, (g.kh, g.kw, c, n, oh, ow),
                   (s2 * g.dh, s3 * g.dw, s0, s1, s2 * g.sh, s3 * g.sw))
    return v.reshape(g.kh * g.kw * c, n * oh * ow).T
  s0, s1, s2, s3 = xp.strides
  sh, sw, dh, dw = s1 * g.sh, s2 * g.sw, s1 * g.dh, s2 * g.dw
  v = as_strided(xp, (n, oh, ow, g.kh, g.kw, c), (s0, sh, sw, dh, dw, s3))
  return v.reshape(n * oh * ow, g.kh * g.kw * c)


def _shape_arg(t):
  """Static shape named by a shape tensor; reads through `tf.shape(x)` to x's own shape."""
  src = getattr(t, "op", None)
  if src is not None and src.type == "Shape":
    return src.inputs[0].shape
  return _const_shape(t)


def _rank4(shape, what, op_name=None):
  shape = TensorShape(shape)
  if shape.rank is not None and shape.rank != 4:
    raise _fail(f"{what} must be 4-dimensional{_dims(shape)}", op_name)
  return shape.as_list() if shape.rank is not None else [None] * 4


def _conv_check(xs, fs, attrs, op_name=None):
  """Validates NHWC input / HWIO filter shapes; returns (geometry, static output shape)."""
  x, f = _rank4(xs, "input", op_name), _rank4(fs, "filter", op_name)
  if x[3] is not None and f[2] is not None and (f[2] == 0 or x[3] % f[2]):
    raise _fail(f"input depth must be evenly divisible by filter depth: {x[3]} vs {f[2]}",
                op_name)
  if f[0] is None or f[1] is None:
    return None, TensorShape([x[0], None, None, f[3]])
  g = _Geom(x[1:3], f[0], f[1], attrs, op_name)
  return g, TensorShape([x[0], g.oh, g.ow, f[3]])


# ----------------------------------------------------------- convolution
# Attributes (as TF's node attrs, NHWC): strides (4 ints), padding ("SAME",
# "VALID" or "EXPLICIT"), explicit_paddings (8 ints, EXPLICIT only), dilations.

_CONV_T = FLOAT | {_dt.int32}


# ------------------------------------------------- Winograd F(2x2, 3x3)
# y = A^T [(G g G^T) * (B^T d B)] A per 4x4 input tile d giving a 2x2 output tile: 16
# multiplies per output pair instead of 36, as 16 gemms [tiles, C] x [C, O]. Its float32
# error stays within a few ulp of the sum's magnitude (all transform entries are 0, +-1
# or +-1/2), like a reordered dot product.

_WINOGRAD_G = np.array([[1, 0, 0], [.5, .5, .5], [.5, -.5, .5], [0, 0, 1]])

# NOTE: the transforms cost ~25 NumPy calls plus ~10 passes over tiles * 16 * (C + O)
# values, the gemms save tiles * 20 * C * O multiply-adds: Winograd pays when
# C * O / (C + O) and the work are large enough. Measured here (1 BLAS thread): 2x faster
# for W5 (C = O = 100, 7e9 multiply-adds), 1.1x at [32, 8, 8, 32] x 64 (ratio 21, 4e7),
# slower at [8, 28, 28, 16] x 32 (ratio 11) and even at [32, 4, 4, 32] x 64 (1e7).
# Re-measured against im2col (quiet host, 1 thread, CPU ms): [32, 14, 14, 32] x 64 (1.2e8)
# 3.7 vs 3.3, [32, 8, 8, 64] x 64 (7.5e7) 2.15 vs 2.0, [8, 28, 28, 64] x 64 (2.3e8) 6.8 vs
# 7.4, [32, 16, 16, 64] x 128 (6e8) 14.2 vs 16.3. The input gradient's own bar: against
# its width-window col2im (_col2im_rows; alternating, CPU ms) at C = O = 64, [32, 8, 8] (7.5e7)
# 2.42 vs 2.11, [8, 28, 28] (2.3e8) 6.8 vs 6.6, [32, 16, 16] (3e8) 9.5 vs 9.6, [32, 32, 32]
# (1.2e9) 39 vs 41; W5 (C = O = 100) 71 vs 155.
_WINOGRAD_MIN_MACS = 1.5e8
_WINOGRAD_GRAD_MIN_MACS = 2.5e8
# NOTE: F(4x4, 3x3) (6x6 tiles, 36 gemms, 1.78x fewer multiplies) was tried and rejected on
# accuracy. Max |error| vs float64 over max |output|, as a multiple of im2col float32's
# (uniform W5-like x in [0, 1), w in +-0.05 / standard normal x and w, C = O = 100): Lavin
# and Gray's points 0, +-1, +-2: 9.0x / 17.7x; 0, +-1, +-1/2: 7.8x / 15.3x; the best of 91
# pairs tried, 0, +-1, 2, -1/2: 2.8-3.0x / 4.4-4.9x, over the 4x bar on normal data. The error
# is float32 rounding of the transformed V and U (float64 gemms do not remove it), which the
# output transform's cancellation amplifies. F(2x2): 0.6-0.8x.
_WINOGRAD_MIN_RATIO = 20


def _use_winograd(xshape, f, oh, ow, g, min_macs=None):
  c, o = f.shape[2], f.shape[3]
  return (f.dtype in (np.float32, np.float64) and g.kh == g.kw == 3 and
          g.sh == g.sw == g.dh == g.dw == 1 and c * o >= _WINOGRAD_MIN_RATIO * (c + o) and
          xshape[0] * oh * ow * 9 * c * o >= (_WINOGRAD_MIN_MACS if min_macs is None else min_macs))


def _winograd_filter(f):
  """G f G^T: the [4, 4, C, O] transformed 3x3 filter (computed in float64)."""
  u = np.tensordot(_WINOGRAD_G, f, axes=(1, 0))           # [a, j, C, O]
  u = np.tensordot(_WINOGRAD_G, u, axes=(1, 1))           # [b, a, C, O]
  return np.ascontiguousarray(u.transpose(1, 0, 2, 3), f.dtype)


# NOTE: the tiles go through the transforms and gemms in chunks of about this many bytes
# of transformed input: chunk buffers stay in cache and are reused (whole-image
# temporaries would be fresh pages, ~4x the data, each call).
_WINOGRAD_CHUNK_BYTES = 1 << 19


def _winograd(xp, f, oh, ow):
  """VALID stride-1 3x3 conv of the padded input xp [N, >= OH + 2, >= OW + 2, C]."""
  n, c, o, dt = xp.shape[0], xp.shape[3], f.shape[3], xp.dtype
  th, tw = -(-oh // 2), -(-ow // 2)
  hp, wp = 2 * th + 2, 2 * tw + 2
  if xp.shape[1] < hp or xp.shape[2] < wp:  # odd output size: one more (ignored) zero row
    xp = _pad(xp[:, :hp, :wp], (0, max(hp - xp.shape[1], 0)), (0, max(wp - xp.shape[2], 0)))
  u = _winograd_filter(f)  # [4, 4, C, O]; split by the column stage's layout (b = 0, 3 | 1, 2)
  us = np.ascontiguousarray(u[:, 0::3]), np.ascontiguousarray(u[:, 1:3])
  y = np.empty((n, 2 * th, 2 * tw, o), dt)
  tiles = max(1, _WINOGRAD_CHUNK_BYTES // (16 * c * dt.itemsize))
  if th * tw <= tiles:  # whole images per chunk
    nb, rb = min(n, tiles // (th * tw)), th
  else:
    nb, rb = 1, max(1, min(th, tiles // tw))
  bufs = [np.empty(k * nb * rb * m, dt)
          for k, m in ((4, wp * c), (12, wp * c), (16, tw * o), (8, tw * o))]
  for n0 in range(0, n, nb):
    for i0 in range(0, th, rb):
      n1, i1 = min(n, n0 + nb), min(th, i0 + rb)
      _winograd_chunk(xp[n0:n1, 2 * i0:2 * i1 + 2, :wp], us, y[n0:n1, 2 * i0:2 * i1], bufs)
  return y if (2 * th, 2 * tw) == (oh, ow) else np.ascontiguousarray(y[:, :oh, :ow])


def _winograd_chunk(xp, us, y, bufs):
  """Writes y [N, 2 TH, 2 TW, O] (a view) from the tiles of xp [N, 2 TH + 2, 2 TW + 2, C]."""
  n, hp, wp, c = xp.shape
  th, tw, o = (hp - 2) // 2, (wp - 2) // 2, us[0].shape[3]
  k = n * th * tw
  # B^T d B, rows then columns: B^T = [[1, 0, -1, 0], [0, 1, 1, 0], [0, -1, 1, 0], [0, 1, 0, -1]].
  # Rows as 3 ufunc calls over all 4 tile offsets at once.
  s0, s1, s2, s3 = xp.strides
  d = as_strided(xp, (4, n, th, wp, c), (s1, s0, 2 * s1, s2, s3))  # d[a]: rows 2i + a
  t = bufs[0][:4 * n * th * wp * c].reshape(4, n, th, wp, c)
  np.subtract(d[0:2], d[2:4], out=t[0::3])
  np.add(d[1], d[2], out=t[1])
  np.subtract(d[2], d[1], out=t[2])
  # NOTE: columns as whole-row ops on column-shifted views (runs of 2 TW * C values, not C:
  # 6.3 -> 2.8 ms on W5): P = t[:, j] - t[:, j + 2] holds B^T row 0 at even j = 2 j' and row
  # 3 at odd j; Q = t[j + 1] + t[j + 2] and R = t[j + 2] - t[j + 1] rows 1 and 2 at even j
  # (their odd columns are wasted work). The gemms read these as [tiles, C] matrices with
  # row stride 2 C, so V is never compacted.
  z = bufs[1][:24 * k * c].reshape(3, 4, n, th, 2 * tw, c)
  np.subtract(t[..., :-2, :], t[..., 2:, :], out=z[0])
  np.add(t[..., 1:-1, :], t[..., 2:, :], out=z[1])
  np.subtract(t[..., 2:, :], t[..., 1:-1, :], out=z[2])
  z0, z1, _, _, _, it = z.strides
  m = bufs[2][:16 * k * o].reshape(4, 4, k, o)
  np.matmul(as_strided(z, (4, 2, k, c), (z1, c * it, 2 * c * it, it)), us[0], out=m[:, 0::3])
  np.matmul(as_strided(z[1], (4, 2, k, c), (z1, z0, 2 * c * it, it)), us[1], out=m[:, 1:3])
  m = m.reshape(4, 4, n, th, tw, o)
  # A^T m A with A^T = [[1, 1, 1, 0], [0, 1, -1, -1]], rows then columns.
  r = bufs[3][:8 * k * o].reshape(2, 4, n, th, tw, o)
  np.add(m[0], m[1], out=r[0])
  r[0] += m[2]
  np.subtract(m[1], m[2], out=r[1])
  r[1] -= m[3]
  yt = y.reshape(n, th, 2, tw, 2, o).transpose(4, 2, 0, 1, 3, 5)  # yt[b, a] = y[:, i, a, j, b]
  np.add(r[:, 0], r[:, 1], out=yt[0])
  yt[0] += r[:, 2]
  np.subtract(r[:, 1], r[:, 2], out=yt[1])
  yt[1] -= r[:, 3]


def _conv_padded(xp, f, oh, ow, g):
  """VALID conv of the already padded NHWC xp with HWIO f by g's strides and dilations."""
  n, oc = xp.shape[0], f.shape[3]
  if 0 in (n, oh, ow):
    return np.zeros((n, oh, ow, oc), xp.dtype)
  if _use_winograd(xp.shape, f, oh, ow, g):
    return _winograd(xp, f, oh, ow)
  f2 = f.reshape(-1, oc)
  if not _blocked(xp, oh, ow, xp.shape[3], g):
    return (_cols(xp, oh, ow, g) @ f2).reshape(n, oh, ow, oc)
  y = np.empty((n, oh, ow, oc), xp.dtype)
  y2 = y.reshape(-1, oc)
  for cols, start in _im2col_blocks(xp, oh, ow, g):
    np.matmul(cols, f2, out=y2[start:start + cols.shape[0]])
  return y


# NOTE: a big im2col is built a block of images (or of output rows) at a time in one reused
# buffer of about this many bytes, each block's gemm writing its rows of the output (the
# filter gradient: adding its [K, O] part). Forward, 1 BLAS thread, alternating, CPU ms:
# [32, 14, 14, 32] x 64 3.17 vs 3.41 one whole im2col, [8, 56, 56, 32] x 5x5x64 35 vs 46,
# small ones unchanged (1 MB blocks were slower again: more, smaller gemms).
_IM2COL_BLOCK_BYTES = 1 << 21


def _im2col_blocks(xp, oh, ow, g):
  """Yields (im2col block [M, KH*KW*C], index of its first output pixel) of the padded xp;
  each block overwrites the one before (one buffer)."""
  n, c = xp.shape[0], xp.shape[3]
  k = g.kh * g.kw * c
  row_bytes = ow * k * xp.itemsize
  s0, s1, s2, s3 = xp.strides
  win = (s1 * g.dh, s2 * g.dw, s3)
  buf = np.empty(max(1, _IM2COL_BLOCK_BYTES // row_bytes) * ow * k, xp.dtype)
  if oh * row_bytes <= _IM2COL_BLOCK_BYTES:  # whole images per block
    nb = _IM2COL_BLOCK_BYTES // (oh * row_bytes)
    blocks = [(i, min(n, i + nb), 0, oh) for i in range(0, n, nb)]
  else:
    rb = max(1, _IM2COL_BLOCK_BYTES // row_bytes)
    blocks = [(i, i + 1, r, min(oh, r + rb)) for i in range(n) for r in range(0, oh, rb)]
  for n0, n1, r0, r1 in blocks:
    shape = (n1 - n0, r1 - r0, ow, g.kh, g.kw, c)
    m = shape[0] * shape[1] * ow
    cols = buf[:m * k].reshape(shape)
    cols[...] = as_strided(xp[n0:, r0 * g.sh:], shape, (s0, s1 * g.sh, s2 * g.sw) + win)
    yield cols.reshape(m, k), (n0 * oh + r0) * ow


def _blocked(xp, oh, ow, c, g):
  """Whether the im2col of xp goes by blocks (see _IM2COL_BLOCK_BYTES)."""
  return (c > _CHANNEL_MAJOR_MAX_C and
          xp.shape[0] * oh * ow * g.kh * g.kw * c * xp.itemsize > _IM2COL_BLOCK_BYTES)


@op("Conv2D", dtypes=_CONV_T, fresh=True, grad_shape="exact",
    shape=lambda i, a: [(_conv_check(i[0].shape, i[1].shape, a)[1], i[0].dtype)])
def Conv2D(input, filter, **attrs):  # noqa: A002
  g = _conv_check(input.shape, filter.shape, attrs, "Conv2D")[0]
  if input.shape[3] != filter.shape[2]:
    raise UnimplementedError(
        None, None, f"The Conv2D op currently does not support grouped convolutions on the CPU. "
        f"A grouped convolution was attempted to be run because the input depth of "
        f"{input.shape[3]} does not match the filter input depth of {filter.shape[2]} "
        f"[Op:Conv2D]")
  if 0 in (input.shape[0], g.oh, g.ow, filter.shape[3]):  # as TF: no output channels is fine
    return np.zeros((input.shape[0], g.oh, g.ow, filter.shape[3]), input.dtype)
  _bt.work(input.shape[0] * g.oh * g.ow * filter.size)
  return _conv_padded(g.padded(input), filter, g.oh, g.ow, g)


def _backprop_geom(xshape, kh, kw, dy, attrs, op_name):
  g = _Geom(xshape[1:3], kh, kw, attrs, op_name)
  if dy.shape[1:3] != (g.oh, g.ow):
    raise InvalidArgumentError(None, None, f"{op_name}: Size of out_backprop doesn't match "
                               f"computed: actual = {list(dy.shape[1:3])}, computed = "
                               f"{[g.oh, g.ow]} [Op:{op_name}]")
  return g


@op("Conv2DBackpropInput", dtypes=_CONV_T, type_inputs=(1, 2),
    shape=lambda i, a: [(_shape_arg(i[0]), i[1].dtype)])
def Conv2DBackpropInput(input_sizes, filter, out_backprop, **attrs):  # noqa: A002
  n, h, w, c = (int(d) for d in input_sizes)
  kh, kw, _, oc = filter.shape
  g = _backprop_geom((n, h, w, c), kh, kw, out_backprop, attrs, "Conv2DBackpropInput")
  if 0 in (n, h, w, c, oc):
    return np.zeros((n, h, w, c), out_backprop.dtype)
  _bt.work(out_backprop.size // max(oc, 1) * filter.size)
  eh, ew = (kh - 1) * g.dh, (kw - 1) * g.dw
  (t, b), (lft, rgt) = g.pads[1], g.pads[2]
  dy = out_backprop
  # NOTE: at stride 1 the input gradient is the VALID conv of the gradient, zero-padded
  # by the filter's reach less the forward pads, with the flipped filter (in/out
  # swapped). It pays only through Winograd: plain im2col copies 9 * O values per pixel
  # where col2im adds 9 * C (measured: 4x slower at C = 3, O = 32). Winograd's input
  # transform then runs over dy's O channels, its output transform over C: with O > C
  # col2im is faster (14x14, C = 32, O = 64: 3.8 vs 4.8 ms), and with O <= C too below
  # _WINOGRAD_GRAD_MIN_MACS. The padded copy is made only when Winograd is used.
  if (g.sh == g.sw == 1 and 0 <= min(t, b, lft, rgt) and max(t, b) <= eh and
      max(lft, rgt) <= ew and oc <= c and
      _use_winograd((n,), filter.transpose(0, 1, 3, 2), h, w, g, _WINOGRAD_GRAD_MIN_MACS)):
    dyp = _pad(dy, (eh - t, eh - b), (ew - lft, ew - rgt))
    return _winograd(dyp, np.ascontiguousarray(filter[::-1, ::-1].transpose(0, 1, 3, 2)), h, w)
  if g.dh == g.dw == 1 and 0 <= min(t, b, lft, rgt):
    if c <= _CHANNEL_MAJOR_MAX_C:
      return _col2im_channel_major(dy, filter, (n, h, w, c), g)
    if g.sh == g.sw == 1 and max(lft, rgt) < kw:
      return _col2im_rows(dy, filter, (n, h, w, c), g)
    return _col2im_phases(dy, filter, (n, h, w, c), g)
  col = (dy.reshape(-1, oc) @ filter.reshape(-1, oc).T).reshape(n, g.oh, g.ow, kh * kw, c)
  dxp = g.zeros_padded(n, h, w, c, dy.dtype)
  for k, idx in enumerate(g.taps()):
    dxp[idx] += col[:, :, :, k]
  return g.crop(dxp, h, w)


def _col2im_channel_major(dy, f, xshape, g):
  """Input gradient for few channels: [KH*KW*C, M] = F dy^T (one gemm, BLAS reads dy
  transposed in place), added into per-channel padded planes, transposed back once."""
  n, h, w, c = xshape
  kh, kw, _, o = f.shape
  col = (f.reshape(-1, o) @ dy.reshape(-1, o).T).reshape(kh * kw, c, n, g.oh, g.ow)
  dxp = np.zeros((c, n, h + sum(g.pads[1]), w + sum(g.pads[2])), dy.dtype)
  for k, idx in enumerate(g.taps()):
    dxp[(slice(None),) + idx] += col[k]
  t, lft = g.pads[1][0], g.pads[2][0]
  return np.ascontiguousarray(dxp[:, :, t:t + h, lft:lft + w].transpose(1, 2, 3, 0))


def _phase_taps(k, s, pad, n_in, n_out):
  """Per filter tap index i: (phase, plane rows it writes, gradient rows it reads).

  Tap i of output row r lands on input row y = i + s r - pad, i.e. on row
  y // s = r + (i - pad) // s of the phase plane y % s (the input rows a, a + s, ...)."""
  out = []
  for i in range(k):
    a, d = (i - pad) % s, (i - pad) // s
    lo, hi = max(0, d), min(len(range(a, n_in, s)), n_out + d)
    out.append((a, slice(lo, hi), slice(lo - d, hi - d)) if hi > lo else None)
  return out


# NOTE: at stride 1 the filter row's KW taps read KW * O contiguous values of the
# gradient zero-padded in width, so one copy ([M, KW * O] "row windows") and one gemm
# with all filter rows ([KW * O, KH * C]) leave only KH strided adds, where the tap slabs
# of _col2im_phases need KH * KW adds (1 BLAS thread, alternating, CPU ms): [32, 14, 14,
# 32] x 64 SAME 3.5 vs 4.0, [32, 28, 28, 16] x 32 5.6 vs 6.4, [32, 16, 16, 32] x 5x5x32
# 7.4 vs 10.8, [32, 26, 26, 32] x 32 VALID 7.8 vs 10.1; tiny ones equal.
def _col2im_rows(dy, f, xshape, g):
  """Stride-1 input gradient: rows[n, r, x, i, :] = sum over j of dy[n, r, x + l - j] f[i, j]^T
  (one gemm over width windows of dy), then dx[:, y] = sum over i of rows[:, y + t - i, :, i];
  by blocks of whole images of about _IM2COL_BLOCK_BYTES of windows (3.3 vs 3.44 ms at
  14x14x32 -> 64: the gemm's output is still in cache for the adds)."""
  n, h, w, c = xshape
  kh, kw, _, o = f.shape
  oh, t = g.oh, g.pads[1][0]
  dyp = _pad(dy, (0, 0), (kw - 1 - g.pads[2][0], kw - 1 - g.pads[2][1]))  # width w + kw - 1
  s0, s1, s2, s3 = dyp.strides
  fr = np.ascontiguousarray(f[:, ::-1].transpose(1, 3, 0, 2)).reshape(kw * o, kh * c)
  nb = max(1, min(n, _IM2COL_BLOCK_BYTES // max(1, oh * w * kw * o * dy.itemsize)))
  win = np.empty((nb, oh, w, kw, o), dy.dtype)  # win[..., j'] = dy column x + j' - pad
  rows = np.empty((nb * oh * w, kh * c), dy.dtype)
  spans = [(i, max(0, i - t), min(h, oh + i - t)) for i in range(kh)]
  whole = [i for i, lo, hi in spans if (lo, hi) == (0, h)][:1]  # a filter row reaching all rows
  dx = np.empty((n, h, w, c), dy.dtype)
  for n0 in range(0, n, nb):
    m = min(n, n0 + nb) - n0
    wb, d = win[:m], dx[n0:n0 + m]
    wb[...] = as_strided(dyp[n0:], wb.shape, (s0, s1, s2, s2, s3))
    rb = np.matmul(wb.reshape(-1, kw * o), fr, out=rows[:m * oh * w]).reshape(m, oh, w, kh, c)
    if whole:
      d[...] = rb[:, t - whole[0]:t - whole[0] + h, :, whole[0]]
    else:
      d[...] = 0
    for i, lo, hi in spans:
      if hi > lo and i not in whole:
        d[:, lo:hi] += rb[:, lo + t - i:hi + t - i, :, i]
  return dx


def _col2im_phases(dy, f, xshape, g):
  """Input gradient as tap-major slabs: col[k] = dy [M, O] @ f[k]^T [O, C], each a
  contiguous [N, OH, OW, C] block, added into s * s contiguous phase planes (the input
  rows and columns of one residue mod the stride: runs of OW * C values, not C), which
  are interleaved into the input gradient once. A tap whose slab is exactly its plane
  (stride 1: the centre tap of SAME) is the gemm's output itself, not zeros plus an add."""
  n, h, w, c = xshape
  kh, kw, _, o = f.shape
  sh, sw, oh, ow = g.sh, g.sw, g.oh, g.ow
  rows = _phase_taps(kh, sh, g.pads[1][0], h, oh)
  cols = _phase_taps(kw, sw, g.pads[2][0], w, ow)
  fk, dy2 = f.reshape(kh * kw, c, o), dy.reshape(-1, o)
  planes, added = {}, []
  for i, ri in enumerate(rows):
    for j, cj in enumerate(cols):
      if ri is None or cj is None:
        continue
      key = ri[0], cj[0]
      if (key not in planes and (ri[1].start, cj[1].start) == (0, 0) and
          (ri[1].stop, cj[1].stop) == (oh, ow) == (len(range(key[0], h, sh)),
                                                   len(range(key[1], w, sw)))):
        planes[key] = np.matmul(dy2, fk[i * kw + j].T).reshape(n, oh, ow, c)
      else:
        added.append((i * kw + j, key, ri, cj))
  for a in range(sh):
    for b in range(sw):
      if (a, b) not in planes:
        planes[a, b] = np.zeros((n, len(range(a, h, sh)), len(range(b, w, sw)), c), dy.dtype)
  if added:
    ft = np.ascontiguousarray(fk[[k for k, _, _, _ in added]].transpose(0, 2, 1))
    col = np.matmul(dy2[None], ft).reshape(len(added), n, oh, ow, c)
    for m, (_, key, ri, cj) in enumerate(added):
      planes[key][:, ri[1], cj[1]] += col[m, :, ri[2], cj[2]]
  if sh == sw == 1:
    return planes[0, 0]
  dx = np.empty((n, h, w, c), dy.dtype)
  for (a, b), plane in planes.items():
    dx[:, a::sh, b::sw] = plane
  return dx


@op("Conv2DBackpropFilter", dtypes=_CONV_T, type_inputs=(0, 2),
    shape=lambda i, a: [(_shape_arg(i[1]), i[0].dtype)])
def Conv2DBackpropFilter(input, filter_sizes, out_backprop, **attrs):  # noqa: A002
  kh, kw, c, oc = (int(d) for d in filter_sizes)
  g = _backprop_geom(input.shape, kh, kw, out_backprop, attrs, "Conv2DBackpropFilter")
  if 0 in out_backprop.shape:
    return np.zeros((kh, kw, c, oc), input.dtype)
  _bt.work(out_backprop.size * kh * kw * c, kh * kw * c * oc)
  n, h, w = input.shape[:3]
  hp, wp = h + sum(g.pads[1]), w + sum(g.pads[2])
  if (g.sh == g.sw == 1 and c > _CHANNEL_MAJOR_MAX_C and min(map(min, g.pads)) >= 0 and
      hp * wp <= _FLAT_MAX_WASTE * g.oh * g.ow):
    return _filter_grad_flat(g.padded(input), out_backprop, kh, kw, g)
  dy2 = out_backprop.reshape(-1, oc)
  xp = g.padded(input)
  if not _blocked(xp, g.oh, g.ow, c, g):
    return (_cols(xp, g.oh, g.ow, g).T @ dy2).reshape(kh, kw, c, oc)
  out = None
  for cols, start in _im2col_blocks(xp, g.oh, g.ow, g):
    part = cols.T @ dy2[start:start + cols.shape[0]]
    out = part if out is None else np.add(out, part, out=out)
  return out.reshape(kh, kw, c, oc)


# NOTE: at stride 1, tap (i, j) of output pixel p reads padded input row p + i Wp + j of
# the flattened [N Hp Wp, C] input, if the gradient is laid out on the padded grid too
# (zeros outside OH x OW): each tap's filter gradient is then one gemm of two contiguous
# slices, with no im2col copy. It pays where the padded grid is hardly bigger than the
# output (W5: 110 vs 134 ms CPU; 26x26 of 28x28 even; 8x8 of 10x10 SAME 1.3x slower).
_FLAT_MAX_WASTE = 1.1


def _filter_grad_flat(xp, dy, kh, kw, g):
  n, hp, wp, c = xp.shape
  o = dy.shape[3]
  dye = np.zeros((n, hp, wp, o), dy.dtype)
  dye[:, :g.oh, :g.ow] = dy
  rows = n * hp * wp - ((kh - 1) * g.dh * wp + (kw - 1) * g.dw)
  x2, d2 = xp.reshape(-1, c), dye.reshape(-1, o)[:rows]
  out = np.empty((kh, kw, c, o), dy.dtype)
  for i in range(kh):
    for j in range(kw):
      off = i * g.dh * wp + j * g.dw
      np.matmul(x2[off:off + rows].T, d2, out=out[i, j])
  return out


def _shape_tensor(x):
  """x's shape as an int32 tensor: a constant when static (graph shape rules can read it)."""
  if x.shape.is_fully_defined():
    return convert_to_tensor(np.array(x.shape.as_list(), np.int32))
  return _a.shape(x)


@Conv2D.def_grad
def _(op, dy):
  x, f = op.inputs
  need_x, need_f = op.needs if op.needs is not None else (True, True)
  # NOTE: the input gradient of a first layer is not needed: skip the big convolution.
  return [execute(Conv2DBackpropInput, [_shape_tensor(x), f, dy], op.attrs) if need_x else None,
          execute(Conv2DBackpropFilter, [x, _shape_tensor(f), dy], op.attrs) if need_f
          else None]


@Conv2DBackpropInput.def_grad
def _(op, ddx):
  _, f, dy = op.inputs
  return [None, execute(Conv2DBackpropFilter, [ddx, _shape_tensor(f), dy], op.attrs),
          execute(Conv2D, [ddx, f], op.attrs)]


@Conv2DBackpropFilter.def_grad
def _(op, ddw):
  x, _, dy = op.inputs
  return [execute(Conv2DBackpropInput, [_shape_tensor(x), ddw, dy], op.attrs), None,
          execute(Conv2D, [x, ddw], op.attrs)]


def _get_sequence(value, n, channel_index, name):
  """strides/dilations/ksize as an (n + 2)-list, TF's rules; channel_index 1 means NC..."""
  if value is None:
    return [1] * (n + 2)
  if isinstance(value, Tensor):
    value = value.numpy().tolist()
  if isinstance(value, numbers.Integral):
    value = [value]
  elif isinstance(value, (list, tuple)):
    value = [as_int(v, name, name) for v in value]
  else:
    raise TypeError(f"`{name}` must be an integer or a list of integers, got {value!r:.80}")
  if len(value) == n + 2:
    return value
  if len(value) == 1:
    value = value * n
  elif len(value) != n:
    raise ValueError(f"{name} should be of length 1, {n} or {n + 2}. Received: {name}={value} "
                     f"of length {len(value)}")
  return [1, 1] + value if channel_index == 1 else [1] + value + [1]


def _to_nhwc(v, nchw):
  return (v[0], v[2], v[3], v[1]) if nchw else tuple(v)


def _padding_attrs(padding, nchw, what="padding"):
  if isinstance(padding, (list, tuple)):
    flat = []
    for i, p in enumerate(padding):
      if not isinstance(p, (list, tuple)) or len(p) != 2:
        raise ValueError(f"When `padding` is a list, each element of `padding` must be a "
                         f"list/tuple of size 2. Received: padding={padding} with element at "
                         f"index {i}")
      flat.append((as_int(p[0], what, what), as_int(p[1], what, what)))
    if len(flat) != 4:
      raise ValueError(f"When padding is a list, it must be of size 4. Received: "
                       f"padding={padding} of size {len(flat)}")
    flat = _to_nhwc(flat, nchw)
    return {"padding": "EXPLICIT", "explicit_paddings": tuple(v for p in flat for v in p)}
  if padding == "EXPLICIT":
    raise ValueError("'EXPLICIT' is not a valid value for `padding`. To use explicit padding, "
                     "`padding` must be a list.")
  if padding not in ("SAME", "VALID"):
    raise InvalidArgumentError(None, None, f"Value for attr '{what}' of \"{padding}\" is not in "
                               f"the list of allowed values: \"SAME\", \"VALID\", \"EXPLICIT\"")
  return {"padding": padding}


def _conv_attrs(strides, padding, dilations, nchw):
  ci = 1 if nchw else 3
  attrs = {"strides": _to_nhwc(_get_sequence(strides, 2, ci, "strides"), nchw)}
  attrs.update(_padding_attrs(padding, nchw))
  d = _to_nhwc(_get_sequence(dilations, 2, ci, "dilations"), nchw)
  if d != _ONES:
    attrs["dilations"] = d
  return attrs


def _nhwc(x, nchw):
  return _a.transpose(x, [0, 2, 3, 1]) if nchw else x


def _back(y, nchw):
  return _a.transpose(y, [0, 3, 1, 2]) if nchw else y


@name_scoped
def conv2d(input, filters, strides, padding, data_format="NHWC", dilations=None,  # noqa: A002
           name=None):
  """2-D convolution of NHWC `input` with HWIO `filters`.

  Args:
    input: [batch, height, width, in_channels] (or NCHW with data_format="NCHW").
    filters: [filter_height, filter_width, in_channels, out_channels].
    strides: int or list of 1, 2 or 4 ints.
    padding: "SAME", "VALID" or explicit [[0, 0], [top, bottom], [left, right], [0, 0]].
    dilations: int or list of 1, 2 or 4 ints.
  Returns:
    [batch, out_height, out_width, out_channels].
  Raises:
    InvalidArgumentError: for mismatched shapes or a window larger than a VALID input.

  >>> tf.nn.conv2d(tf.ones([1, 3, 3, 1]), tf.ones([2, 2, 1, 1]), 1, "VALID").shape
  TensorShape([1, 2, 2, 1])
  """
  x, f = convert_inputs(Conv2D, (input, filters))
  nchw = _channels_first(data_format)
  return _back(execute(Conv2D, [_nhwc(x, nchw), f], _conv_attrs(strides, padding, dilations,
                                                                nchw)), nchw)


@name_scoped
def conv2d_transpose(input, filters, output_shape, strides, padding="SAME",  # noqa: A002
                     data_format="NHWC", dilations=None, name=None):
  """The gradient of conv2d w.r.t. its input; `filters` is [h, w, out_channels, in_channels]."""
  y, f = convert_inputs(Conv2D, (input, filters))
  nchw = _channels_first(data_format)
  if isinstance(output_shape, Tensor):
    shape = _a.gather(output_shape, [0, 2, 3, 1]) if nchw else output_shape
  else:
    dims = [as_int(d, "Conv2DBackpropInput", "output_shape") for d in
            as_sequence(output_shape, "Conv2DBackpropInput", "output_shape")]
    shape = convert_to_tensor(np.array(_to_nhwc(dims, nchw), np.int64))
  attrs = _conv_attrs(strides, padding, dilations, nchw)
  return _back(execute(Conv2DBackpropInput, [shape, f, _nhwc(y, nchw)], attrs), nchw)


@name_scoped
def depthwise_conv2d(input, filter, strides, padding, data_format=None,  # noqa: A002
                     dilations=None, name=None):
  """Per-channel convolution: `filter` [h, w, C, M] gives C * M output channels.

  A composition (one strided slice and multiply per filter tap), so it
  inherits gradients of every order.
  """
  x, f = convert_inputs(Conv2D, (input, filter))
  nchw = _channels_first(data_format)
  x = _nhwc(x, nchw)
  attrs = _conv_attrs(strides, padding, dilations, nchw)
  xs, fs = x.shape, f.shape
  opn = "DepthwiseConv2dNative" if ctx.graph is None else None
  _rank4(fs, "filter", opn)
  if not (TensorShape(xs[1:]).is_fully_defined() and fs.is_fully_defined()):
    raise ValueError("depthwise_conv2d needs static height, width, channels and filter shape")
  kh, kw, c, mult = fs.as_list()
  g, _ = _conv_check(xs, [kh, kw, xs[3], mult], attrs, opn)
  if xs[3] != c:
    raise _fail(f"input and filter must have the same depth: {xs[3]} vs {c}", opn)
  xp = _a.pad(x, g.pads) if any(map(any, g.pads)) else x
  terms = [_a.expand_dims(xp[idx], -1) * f[k // kw, k % kw] for k, idx in enumerate(g.taps())]
  if not terms:
    return _back(_a.zeros([_a.shape(x)[0], g.oh, g.ow, c * mult], x.dtype), nchw)
  y = _m.add_n(terms) if len(terms) > 1 else terms[0]
  return _back(_a.reshape(y, [-1, g.oh, g.ow, c * mult]), nchw)


@name_scoped
def separable_conv2d(input, depthwise_filter, pointwise_filter, strides, padding,  # noqa: A002
                     data_format=None, dilations=None, name=None):
  """depthwise_conv2d followed by a 1x1 conv2d with `pointwise_filter`."""
  y = depthwise_conv2d(input, depthwise_filter, strides, padding, data_format, dilations)
  return conv2d(y, pointwise_filter, 1, "VALID", data_format or "NHWC")


@name_scoped
def conv1d(input, filters, stride, padding, data_format="NWC", dilations=None,  # noqa: A002
           name=None):
  """1-D convolution of [batch, width, in_channels] with [width, in, out] filters."""
  x = convert_to_tensor(input)
  ncw = _channels_first(data_format, ("NWC", "NCW"))
  if ncw:
    x = _a.transpose(x, [0, 2, 1])
  s = _get_sequence(stride, 1, 2, "stride")[1]
  d = _get_sequence(dilations, 1, 2, "dilations")[1]
  if isinstance(padding, (list, tuple)):
    if len(padding) != 3:
      raise ValueError(f"When padding is a list, it must be of size 3. Received: "
                       f"padding={padding}")
    padding = [[0, 0], [0, 0], list(padding[2 if ncw else 1]), [0, 0]]
  y = conv2d(_a.expand_dims(x, 1), _a.expand_dims(filters, 0), [1, 1, s, 1], padding,
             dilations=[1, 1, d, 1])
  y = _a.squeeze(y, [1])
  return _a.transpose(y, [0, 2, 1]) if ncw else y


@name_scoped
def convolution(input, filters, strides=None, padding="VALID", data_format=None,  # noqa: A002
                dilations=None, name=None):
  """conv1d or conv2d by the rank of `input`."""
  r = convert_to_tensor(input).shape.rank
  if r == 3:
    return conv1d(input, filters, strides or 1, padding, data_format or "NWC", dilations)
  if r == 4:
    return conv2d(input, filters, strides or 1, padding, data_format or "NHWC", dilations)
  raise ValueError(f"`input` must have rank 3 or 4 (3-D convolution is not supported). "
                   f"Received: input.shape={convert_to_tensor(input).shape}")


# ---------------------------------------------------------------- pooling

def _pool_check(xs, attrs, op_name=None):
  x = _rank4(xs, "input", op_name)
  k = attrs["ksize"]
  if k[0] != 1 or k[3] != 1:
    raise _fail("Pooling is not yet supported on the batch or depth dimensions.", op_name)
  g = _Geom(x[1:3], k[1], k[2], attrs, op_name)
  return g, TensorShape([x[0], g.oh, g.ow, x[3]])


def _pool_shape(inputs, attrs):
  return [(_pool_check(inputs[0].shape, attrs)[1], inputs[0].dtype)]


def _shape_of_input(i):
  return lambda inputs, attrs: [(inputs[i].shape, inputs[i].dtype)]


def _lowest(dtype):
  return -np.inf if dtype.kind == "f" else np.iinfo(dtype).min


# Pool attributes: ksize and strides (4 ints, NHWC), padding ("SAME" or "VALID").

@op("MaxPool", dtypes=REAL, shape=_pool_shape, fresh=True, grad_shape="exact")
def MaxPool(input, **attrs):  # noqa: A002
  g = _pool_check(input.shape, attrs, "MaxPool")[0]
  taps = g.taps()
  if not taps or not input.size:
    return np.zeros((input.shape[0], g.oh, g.ow, input.shape[3]), input.dtype)
  xp = g.padded(input, _lowest(input.dtype))
  out = xp[taps[0]].copy()
  for idx in taps[1:]:
    np.maximum(out, xp[idx], out=out)
  return out


def _argmax_taps(x, y, attrs, op_name):
  """(geometry, [(tap index, mask)]): each window's gradient goes to its first maximum."""
  g = _pool_check(x.shape, attrs, op_name)[0]
  xp = g.padded(x, _lowest(x.dtype))
  taken = np.zeros(y.shape, bool)
  out = []
  for idx in g.taps() if y.size else ():
    m = (xp[idx] == y) & ~taken
    taken |= m
    out.append((idx, m))
  return g, out


def _max_pool_grad_disjoint(g, x, y, grad):
  """MaxPoolGrad when windows neither overlap nor reach padding (2x2 stride 2 VALID, the
  common case): each tap's share is written, not added, and no padded copy is made."""
  n, h, w, c = x.shape
  cover = g.kh == g.sh and g.kw == g.sw and g.oh * g.kh == h and g.ow * g.kw == w
  dx = np.empty(x.shape, grad.dtype) if cover else np.zeros(x.shape, grad.dtype)
  taken = None
  for idx in g.taps():
    m = x[idx] == y
    if taken is None:
      taken = m
    else:  # first maximum only (TF's tie rule): m and not yet taken
      np.greater(m, taken, out=m)
      taken |= m
    np.multiply(grad, m, out=dx[idx])
  return dx


@op("MaxPoolGrad", dtypes=REAL, shape=_shape_of_input(0))
def MaxPoolGrad(orig_input, orig_output, grad, **attrs):
  g = _pool_check(orig_input.shape, attrs, "MaxPoolGrad")[0]
  if (g.sh >= g.kh and g.sw >= g.kw and not any(map(any, g.pads)) and grad.size and
      orig_output.shape == grad.shape):
    return _max_pool_grad_disjoint(g, orig_input, orig_output, grad)
  g, taps = _argmax_taps(orig_input, orig_output, attrs, "MaxPoolGrad")
  dxp = g.zeros_padded(*orig_input.shape, grad.dtype)
  for idx, m in taps:
    dxp[idx] += np.where(m, grad, 0)
  return g.crop(dxp, *orig_input.shape[1:3])


@op("MaxPoolGradGrad", dtypes=REAL, shape=_shape_of_input(1))
def MaxPoolGradGrad(orig_input, orig_output, grad, **attrs):
  g, taps = _argmax_taps(orig_input, orig_output, attrs, "MaxPoolGradGrad")
  gp = g.padded(grad)
  out = np.zeros(orig_output.shape, grad.dtype)
  for idx, m in taps:
    np.copyto(out, gp[idx], where=m)
  return out


@MaxPool.def_grad
def _(op, dy):
  return [execute(MaxPoolGrad, [op.inputs[0], op.outputs[0], dy], op.attrs)]


@MaxPoolGrad.def_grad
def _(op, ddx):
  return [None, None, execute(MaxPoolGradGrad, [op.inputs[0], op.inputs[1], ddx], op.attrs)]


@MaxPoolGradGrad.def_grad
def _(op, ddy):
  return [None, None, execute(MaxPoolGrad, [op.inputs[0], op.inputs[1], ddy], op.attrs)]


def _window_counts(g, h, w, dtype):
  """[OH, OW, 1]: how many real (unpadded) inputs each window covers (AvgPool's divisor)."""
  def one(n, out, k, s, before):
    start = np.arange(out) * s - before
    return np.minimum(start + k, n) - np.maximum(start, 0)
  ch = one(h, g.oh, g.kh, g.sh, g.pads[1][0])
  cw = one(w, g.ow, g.kw, g.sw, g.pads[2][0])
  return (ch[:, None] * cw[None, :])[:, :, None].astype(dtype)


@op("AvgPool", dtypes=FLOAT, shape=_pool_shape, fresh=True)
def AvgPool(value, **attrs):
  g = _pool_check(value.shape, attrs, "AvgPool")[0]
  taps = g.taps()
  if not taps or not value.size:
    return np.zeros((value.shape[0], g.oh, g.ow, value.shape[3]), value.dtype)
  xp = g.padded(value)
  out = xp[taps[0]].copy()
  for idx in taps[1:]:
    out += xp[idx]
  out /= _window_counts(g, *value.shape[1:3], value.dtype)
  return out


@op("AvgPoolGrad", dtypes=FLOAT, type_inputs=(1,),
    shape=lambda i, a: [(_shape_arg(i[0]), i[1].dtype)])
def AvgPoolGrad(orig_input_shape, grad, **attrs):
  n, h, w, c = (int(d) for d in orig_input_shape)
  g = _pool_check((n, h, w, c), attrs, "AvgPoolGrad")[0]
  dxp = g.zeros_padded(n, h, w, c, grad.dtype)
  taps = g.taps() if grad.size else []
  share = grad / _window_counts(g, h, w, grad.dtype) if taps else None
  for idx in taps:
    dxp[idx] += share
  return g.crop(dxp, h, w)


@AvgPool.def_grad
def _(op, dy):
  return [execute(AvgPoolGrad, [_shape_tensor(op.inputs[0]), dy], op.attrs)]


@AvgPoolGrad.def_grad
def _(op, ddx):
  return [None, execute(AvgPool, [ddx], op.attrs)]


def _pool2d(od, input, ksize, strides, padding, data_format):  # noqa: A002
  x = convert_to_tensor(input)
  nchw = _channels_first(data_format)
  ci = 1 if nchw else 3
  attrs = {"ksize": _to_nhwc(_get_sequence(ksize, 2, ci, "ksize"), nchw),
           "strides": _to_nhwc(_get_sequence(strides, 2, ci, "strides"), nchw)}
  if isinstance(padding, (list, tuple)) or padding not in ("SAME", "VALID"):
    raise InvalidArgumentError(None, None, f"Value for attr 'padding' of \"{padding}\" is not "
                               f"in the list of allowed values: \"SAME\", \"VALID\" "
                               f"[Op:{od.name}]")
  attrs["padding"] = padding
  return _back(execute(od, [_nhwc(x, nchw)], attrs), nchw)


@name_scoped
def max_pool2d(input, ksize, strides, padding, data_format="NHWC", name=None):  # noqa: A002
  """Max over ksize windows of NHWC `input` ("SAME" or "VALID" padding).

  >>> x = tf.reshape(tf.range(16.), [1, 4, 4, 1])
  >>> tf.nn.max_pool2d(x, 2, 2, "VALID")[0, :, :, 0].numpy()
  array([[ 5.,  7.],
         [13., 15.]], dtype=float32)
  """
  return _pool2d(MaxPool, input, ksize, strides, padding, data_format)


@name_scoped
def avg_pool2d(input, ksize, strides, padding, data_format="NHWC", name=None):  # noqa: A002
  """Mean over ksize windows; with "SAME", padded positions are not counted (as TF)."""
  return _pool2d(AvgPool, input, ksize, strides, padding, data_format)


def _pool1d(fn, input, ksize, strides, padding, data_format):  # noqa: A002
  x = convert_to_tensor(input)
  ncw = _channels_first(data_format, ("NWC", "NCW"))
  k = _get_sequence(ksize, 1, 2, "ksize")[1]
  s = _get_sequence(strides, 1, 2, "strides")[1]
  x = _a.expand_dims(_a.transpose(x, [0, 2, 1]) if ncw else x, 1)
  y = _a.squeeze(fn(x, [1, k], [1, s], padding), [1])
  return _a.transpose(y, [0, 2, 1]) if ncw else y


@name_scoped
def max_pool1d(input, ksize, strides, padding, data_format="NWC", name=None):  # noqa: A002
  """Max pooling over the width of [batch, width, channels]."""
  return _pool1d(max_pool2d, input, ksize, strides, padding, data_format)


@name_scoped
def avg_pool1d(input, ksize, strides, padding, data_format="NWC", name=None):  # noqa: A002
  """Average pooling over the width of [batch, width, channels]."""
  return _pool1d(avg_pool2d, input, ksize, strides, padding, data_format)


def _pool_nd(one, two, input, ksize, strides, padding, data_format):  # noqa: A002
  r = convert_to_tensor(input).shape.rank
  if r == 3:
    return one(input, ksize, strides, padding, data_format or "NWC")
  if r == 4:
    return two(input, ksize, strides, padding, data_format or "NHWC")
  raise ValueError(f"`input.shape.rank` must be 3 or 4 (3-D pooling is not supported). "
                   f"Received: input.shape={convert_to_tensor(input).shape} of rank {r}")


@name_scoped
def max_pool(input, ksize, strides, padding, data_format=None, name=None):  # noqa: A002
  """max_pool1d or max_pool2d by the rank of `input`."""
  return _pool_nd(max_pool1d, max_pool2d, input, ksize, strides, padding, data_format)


@name_scoped
def avg_pool(input, ksize, strides, padding, data_format=None, name=None):  # noqa: A002
  """avg_pool1d or avg_pool2d by the rank of `input`."""
  return _pool_nd(avg_pool1d, avg_pool2d, input, ksize, strides, padding, data_format)
