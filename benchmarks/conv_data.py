"""Inputs of W7 and the demo epoch, shared by workloads_w7.py and tf_reference.py (NumPy
only, so real TensorFlow's script can use them)."""
import numpy as np

W7_BATCH = 32
DEMO_N = 1347  # the demo's training images (75% of scikit-learn's 1797 digits)


def w7_data():
  """A batch of 32 MNIST-shaped images (28x28x1 in [0, 1)) and int32 labels."""
  rng = np.random.default_rng(7)
  x = rng.random((W7_BATCH, 28, 28, 1), dtype=np.float32)
  y = rng.integers(0, 10, W7_BATCH).astype(np.int32)
  return x, y


def demo_data():
  """The demo's training set's shapes: 1347 8x8x1 images and int32 labels."""
  rng = np.random.default_rng(0)
  x = rng.random((DEMO_N, 8, 8, 1), dtype=np.float32)
  y = rng.integers(0, 10, DEMO_N).astype(np.int32)
  return x, y
