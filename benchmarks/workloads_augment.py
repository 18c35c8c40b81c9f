"""Keras image augmentation (issue 13), beside a hand-written NumPy floor:

Rescaling(1/255) -> RandomRotation -> RandomZoom (training, reflect fill, bilinear) on a
batch of 32 images 64x64x3, as a tf.function. The factor ranges are fixed ((f, f)) so
the NumPy floor computes the same warps and the values are checked equal; the layers
still draw their (degenerate) random factors per call, and the floor, like them, warps
each image by its own transform.
"""
import numpy as np

import tensorlet as tf
from harness import time_pair

ANGLE = 0.05  # of a full turn
ZOOM = -0.2


def _reflect(c, n):
  m = np.mod(c, 2 * n)
  return np.clip(np.where(m >= n, 2 * n - 1 - m, m), 0, n - 1)


def _warp(x, a, b):
  """Bilinear sampling of image i at (a[i] . [x, y, 1], b[i] . [x, y, 1]) with reflect
  fill; a, b are [3, n] (one transform per image, as the random layers draw them)."""
  n, h, w, c = x.shape
  ys, xs = np.mgrid[:h, :w].astype(np.float32)
  xs, ys = xs.reshape(1, -1), ys.reshape(1, -1)
  col = lambda v: np.asarray(v, np.float32).reshape(-1, 1)  # noqa: E731
  sx = _reflect(col(a[0]) * xs + col(a[1]) * ys + col(a[2]), w)
  sy = _reflect(col(b[0]) * xs + col(b[1]) * ys + col(b[2]), h)
  x0, y0 = np.floor(sx), np.floor(sy)
  fx, fy = (sx - x0)[..., None], (sy - y0)[..., None]
  x0, y0 = x0.astype(np.intp), y0.astype(np.intp)
  x1, y1 = np.minimum(x0 + 1, w - 1), np.minimum(y0 + 1, h - 1)
  flat = x.reshape(n * h * w, c)
  base = (np.arange(n) * (h * w)).reshape(-1, 1)
  out = (flat[base + y0 * w + x0] * ((1 - fx) * (1 - fy))
         + flat[base + y0 * w + x1] * (fx * (1 - fy))
         + flat[base + y1 * w + x0] * ((1 - fx) * fy) + flat[base + y1 * w + x1] * (fx * fy))
  return out.reshape(n, h, w, c)


def _numpy_augment(x):
  _, h, w, _ = x.shape
  y = x * np.float32(1 / 255)
  t = np.float32(ANGLE * 2 * np.pi)
  cs, sn = np.cos(t), np.sin(t)
  xo = ((w - 1) - (cs * (w - 1) - sn * (h - 1))) / 2
  yo = ((h - 1) - (sn * (w - 1) + cs * (h - 1))) / 2
  n = len(x)
  rep = lambda *v: [np.full(n, e, np.float32) for e in v]  # noqa: E731
  y = _warp(y, rep(cs, -sn, xo), rep(sn, cs, yo))
  z = np.float32(1 + ZOOM)
  y = _warp(y, rep(z, 0, (w - 1) / 2 * (1 - z)), rep(0, z, (h - 1) / 2 * (1 - z)))
  return y


def augment_pipeline(repeat):
  L = tf.keras.layers
  x = np.random.RandomState(0).uniform(0, 255, (32, 64, 64, 3)).astype(np.float32)
  model = tf.keras.Sequential([L.Input((64, 64, 3)), L.Rescaling(1 / 255),
                               L.RandomRotation((ANGLE, ANGLE)), L.RandomZoom((ZOOM, ZOOM))])
  f = tf.function(lambda im: model(im, training=True))
  xt = tf.constant(x)
  np.testing.assert_allclose(f(xt).numpy(), _numpy_augment(x), atol=2e-5)
  tl, npy = time_pair(lambda: f(xt).numpy(), lambda: _numpy_augment(x), repeat)
  yield ("augment rotate+zoom 32x64x64x3, graph", tl, npy, "ms", "<= 1.5x NumPy")


ALL = [("augment_pipeline", augment_pipeline)]
