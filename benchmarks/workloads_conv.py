"""Convolution training kernels (issue 18), each beside a hand-written NumPy floor.

Conv2D, Conv2DBackpropInput and Conv2DBackpropFilter, one op per `tf.function`
call (the graph executor's per-call cost included), on the shapes of small
convnets: 1 and 3 input channels (first layers), 16 to 64 channels, stride 1 and 2,
SAME and VALID, odd sizes. The NumPy floor is the textbook kernel: im2col (a
sliding-window view, one reshape-copy) and one sgemm for the forward and filter
gradient; one sgemm and a col2im loop of nine strided adds for the input gradient.
TF's figures beside them were measured on this machine with the same shapes
(`tf.raw_ops` in a `tf.function`, default threads) and are quoted in the target
column; run `python benchmarks/run.py -k conv` for ours.
"""
import numpy as np

import tensorlet as tf
from harness import time_pair
from tensorlet.ops import conv_ops
from tensorlet.ops.registry import execute

# name, x shape NHWC, filter HWIO, stride, padding, TF's fwd / input-grad / filter-grad ms
SHAPES = [
    ("1ch 28x28 ->32 VALID", (32, 28, 28, 1), (3, 3, 1, 32), 1, "VALID", (1.9, 1.5, 1.6)),
    ("3ch 32x32 ->32 SAME", (32, 32, 32, 3), (3, 3, 3, 32), 1, "SAME", (3.5, 2.6, 2.6)),
    ("16ch 28x28 ->32 s2 SAME", (32, 28, 28, 16), (3, 3, 16, 32), 2, "SAME", (1.3, 1.4, 1.7)),
    ("32ch 14x14 ->64 SAME", (32, 14, 14, 32), (3, 3, 32, 64), 1, "SAME", (3.2, 3.6, 5.4)),
    ("32ch 13x13 ->64 s2 VALID", (32, 13, 13, 32), (3, 3, 32, 64), 2, "VALID", (1.0, 1.2, 1.3)),
    ("64ch 8x8 ->64 SAME", (32, 8, 8, 64), (3, 3, 64, 64), 1, "SAME", (2.3, 1.5, 2.0)),
]


def _pads(n, k, s, padding):
  if padding == "VALID":
    return 0, 0, (n - k) // s + 1
  out = -(-n // s)
  total = max((out - 1) * s + k - n, 0)
  return total // 2, total - total // 2, out


class _NumpyConv:
  """The textbook kernels, written once for one shape."""

  def __init__(self, xs, fs, s, padding):
    self.n, h, w, self.c = xs
    self.kh, self.kw, _, self.o = fs
    self.s = s
    t, b, self.oh = _pads(h, self.kh, s, padding)
    lft, rgt, self.ow = _pads(w, self.kw, s, padding)
    self.pads = ((0, 0), (t, b), (lft, rgt), (0, 0))
    self.hw = h, w

  def cols(self, x):
    xp = np.pad(x, self.pads)
    v = np.lib.stride_tricks.sliding_window_view(xp, (self.kh, self.kw), axis=(1, 2))
    v = v[:, ::self.s, ::self.s][:, :self.oh, :self.ow]  # [N, OH, OW, C, KH, KW]
    return v.transpose(0, 1, 2, 4, 5, 3).reshape(-1, self.kh * self.kw * self.c)

  def forward(self, x, f):
    return (self.cols(x) @ f.reshape(-1, self.o)).reshape(self.n, self.oh, self.ow, self.o)

  def filter_grad(self, x, dy):
    return (self.cols(x).T @ dy.reshape(-1, self.o)).reshape(self.kh, self.kw, self.c, self.o)

  def input_grad(self, f, dy):
    col = (dy.reshape(-1, self.o) @ f.reshape(-1, self.o).T).reshape(
        self.n, self.oh, self.ow, self.kh, self.kw, self.c)
    (t, b), (lft, rgt) = self.pads[1], self.pads[2]
    h, w = self.hw
    dxp = np.zeros((self.n, h + t + b, w + lft + rgt, self.c), dy.dtype)
    eh, ew = (self.oh - 1) * self.s + 1, (self.ow - 1) * self.s + 1
    for i in range(self.kh):
      for j in range(self.kw):
        dxp[:, i:i + eh:self.s, j:j + ew:self.s] += col[:, :, :, i, j]
    return dxp[:, t:t + h, lft:lft + w]


def conv_kernels(repeat):
  """Forward, input gradient and filter gradient per shape: tensorlet graph op vs NumPy."""
  rng = np.random.default_rng(2)
  for name, xs, fs, s, padding, tf_ms in SHAPES:
    ref = _NumpyConv(xs, fs, s, padding)
    x = rng.standard_normal(xs, dtype=np.float32)
    f = rng.standard_normal(fs, dtype=np.float32)
    dy = rng.standard_normal((xs[0], ref.oh, ref.ow, fs[3]), dtype=np.float32)
    attrs = {"strides": (1, s, s, 1), "padding": padding}
    xt, ft, dyt = tf.constant(x), tf.constant(f), tf.constant(dy)
    xsz, fsz = tf.constant(np.array(xs, np.int32)), tf.constant(np.array(fs, np.int32))
    ops = [
        ("fwd", tf.function(lambda x, f: execute(conv_ops.Conv2D, [x, f], attrs)), (xt, ft),
         lambda: ref.forward(x, f)),
        ("input grad", tf.function(lambda f, dy: execute(conv_ops.Conv2DBackpropInput,
                                                         [xsz, f, dy], attrs)), (ft, dyt),
         lambda: ref.input_grad(f, dy)),
        ("filter grad", tf.function(lambda x, dy: execute(conv_ops.Conv2DBackpropFilter,
                                                          [x, fsz, dy], attrs)), (xt, dyt),
         lambda: ref.filter_grad(x, dy)),
    ]
    for (what, fn, args, floor), tf_t in zip(ops, tf_ms):
      np.testing.assert_allclose(np.asarray(fn(*args)), floor(), rtol=2e-3, atol=2e-3)
      tl, npy = time_pair(lambda: fn(*args), floor, repeat, min_time=0.05)
      yield (f"conv {name} {what}", tl, npy, "ms", f"<= TF {tf_t} ms")


ALL = [("conv_kernels", conv_kernels)]
