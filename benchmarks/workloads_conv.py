"""Convolution training kernels (issue 18), each beside a hand-written NumPy floor.

Conv2D, Conv2DBackpropInput and Conv2DBackpropFilter, one op per `tf.function`
call (the graph executor's per-call cost included), on the shapes of small
convnets: 1 and 3 input channels (first layers), 16 to 64 channels, stride 1 and 2,
SAME and VALID, odd sizes. The NumPy floor is the textbook kernel: im2col (a
sliding-window view, one reshape-copy) and one sgemm for the forward and filter
gradient; one sgemm and a col2im loop of nine strided adds for the input gradient.
TF's figures beside them (target column) are CPU ms at one intra-op thread, measured on
this machine by `tf_reference.py -k conv --threads 1` (`tf.raw_ops` in a `tf.function`,
shapes from conv_shapes.py); compare with `run.py -k conv --threads 1 --cpu`, alternating.
W5's layer (a 200x200x100 image): `-k w5_kernels`.
"""
import warnings

import numpy as np

import tensorlet as tf
from conv_shapes import SHAPES, W5_SHAPES, conv_data, out_size
from harness import time_pair
from tensorlet.ops import conv_ops
from tensorlet.ops.registry import execute

class _NumpyConv:
  """The textbook kernels, written once for one shape."""

  def __init__(self, xs, fs, s, padding):
    self.n, h, w, self.c = xs
    self.kh, self.kw, _, self.o = fs
    self.s = s
    t, b, self.oh = out_size(h, self.kh, s, padding)
    lft, rgt, self.ow = out_size(w, self.kw, s, padding)
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


def conv_kernels(repeat, shapes=SHAPES):
  """Forward, input gradient and filter gradient per shape: tensorlet graph op vs NumPy."""
  warnings.filterwarnings("ignore", ".*triggered tf.function retracing")  # one fn per op
  for name, xs, fs, s, padding, tf_ms in shapes:
    ref = _NumpyConv(xs, fs, s, padding)
    x, f, dy = conv_data(xs, fs, s, padding)
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
      yield (f"conv {name} {what}", tl, npy, "ms", f"<= TF {tf_t} ms (CPU, 1 thread)")


def w5_kernels(repeat):
  return conv_kernels(max(3, repeat // 3), W5_SHAPES)


ALL = [("conv_kernels", conv_kernels), ("w5_kernels", w5_kernels)]
