"""Shapes and seeded inputs of the convolution kernel benchmarks (NumPy only, so real
TensorFlow's reference script, `tf_reference.py -k conv`, measures the same ones)."""
import numpy as np

# name, x shape NHWC, filter HWIO, stride, padding, TF's fwd / input-grad / filter-grad CPU
# ms at one thread (tf_reference.py -k conv --threads 1)
SHAPES = [
    ("1ch 28x28 ->32 VALID", (32, 28, 28, 1), (3, 3, 1, 32), 1, "VALID", (1.8, 1.3, 1.5)),
    ("3ch 32x32 ->32 SAME", (32, 32, 32, 3), (3, 3, 3, 32), 1, "SAME", (3.85, 2.4, 2.7)),
    ("16ch 28x28 ->32 s2 SAME", (32, 28, 28, 16), (3, 3, 16, 32), 2, "SAME", (1.4, 1.84, 1.55)),
    ("32ch 14x14 ->64 SAME", (32, 14, 14, 32), (3, 3, 32, 64), 1, "SAME", (3.24, 3.77, 4.7)),
    ("32ch 13x13 ->64 s2 VALID", (32, 13, 13, 32), (3, 3, 32, 64), 2, "VALID", (0.98, 1.18, 1.23)),
    ("64ch 8x8 ->64 SAME", (32, 8, 8, 64), (3, 3, 64, 64), 1, "SAME", (2.23, 3.15, 3.26)),
]
# W5's layer (BENCHMARKS.md): a single 200x200 image of 100 channels (`-k w5_kernels`).
# TF 2.21 at one thread, CPU ms (load 2-3).
W5_SHAPES = [("W5 200x200x100 ->100 VALID", (1, 200, 200, 100), (3, 3, 100, 100), 1, "VALID",
              (105, 184, 212))]


def out_size(n, k, s, padding):
  """(pad before, pad after, output size) of one spatial dim, TF's rule."""
  if padding == "VALID":
    return 0, 0, (n - k) // s + 1
  out = -(-n // s)
  total = max((out - 1) * s + k - n, 0)
  return total // 2, total - total // 2, out


def conv_data(xs, fs, s, padding, seed=2):
  """Seeded float32 input, filter and output gradient of one shape."""
  rng = np.random.default_rng(seed)
  oh = out_size(xs[1], fs[0], s, padding)[2]
  ow = out_size(xs[2], fs[1], s, padding)[2]
  x = rng.standard_normal(xs, dtype=np.float32)
  f = rng.standard_normal(fs, dtype=np.float32)
  dy = rng.standard_normal((xs[0], oh, ow, fs[3]), dtype=np.float32)
  return x, f, dy
