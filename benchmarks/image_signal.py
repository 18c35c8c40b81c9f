"""tf.image.resize and tf.signal.stft beside hand-written NumPy of the same work,
measured alternately in one process: `python benchmarks/image_signal.py`.

The NumPy floors are what a user would write: bilinear resize by gathering the
two neighbours per axis (TF's half-pixel rule) and stft by framing with a
stride trick, windowing and np.fft.rfft.
"""
import numpy as np

import tensorlet as tf
from harness import time_pair


def _np_bilinear(x, oh, ow):
  def axis(n_in, n_out):
    src = (np.arange(n_out) + 0.5) * n_in / n_out - 0.5
    lo = np.floor(src)
    frac = (src - lo).astype(np.float32)
    return (np.clip(lo, 0, n_in - 1).astype(int), np.clip(lo + 1, 0, n_in - 1).astype(int),
            frac)
  t, b, fy = axis(x.shape[1], oh)
  le, r, fx = axis(x.shape[2], ow)
  rows = x[:, t] * (1 - fy)[None, :, None, None] + x[:, b] * fy[None, :, None, None]
  return rows[:, :, le] * (1 - fx)[None, None, :, None] + rows[:, :, r] * fx[None, None, :,
                                                                           None]


def _np_stft(s, fl, fs, n):
  frames = np.lib.stride_tricks.sliding_window_view(s, fl, axis=-1)[..., ::fs, :]
  w = (0.5 - 0.5 * np.cos(2 * np.pi * np.arange(fl) / fl)).astype(np.float32)
  return np.fft.rfft(frames * w, n).astype(np.complex64)


def main():
  rng = np.random.RandomState(0)
  img = rng.rand(32, 224, 224, 3).astype(np.float32)
  sig = rng.randn(16, 16000).astype(np.float32)
  rows = []
  tl, npy = time_pair(lambda: tf.image.resize(img, [112, 112]).numpy(),
                      lambda: _np_bilinear(img, 112, 112), repeat=7)
  rows.append(("resize bilinear 32x224x224x3 -> 112", tl, npy))
  f = tf.function(lambda x: tf.image.resize(x, [112, 112]))
  tl, npy = time_pair(lambda: f(img).numpy(), lambda: _np_bilinear(img, 112, 112), repeat=7)
  rows.append(("resize bilinear, tf.function", tl, npy))
  tl, npy = time_pair(lambda: tf.signal.stft(sig, 400, 160, 512).numpy(),
                      lambda: _np_stft(sig, 400, 160, 512), repeat=7)
  rows.append(("stft 16x16000, 400/160, fft 512", tl, npy))
  print("| workload | tensorlet | NumPy | ratio |\n|---|---|---|---|")
  for name, a, b in rows:
    print(f"| {name} | {a * 1e3:.2f} ms | {b * 1e3:.2f} ms | {a / b:.2f}x |")


if __name__ == "__main__":
  main()
