"""ResourceApplyKerasAdam's small-variable path (no scratch buffers) and its chunked
path give bitwise the same values, and both follow Keras' Adam."""
import numpy as np
import pytest

import tensorlet as tf
from tensorlet.ops import training_ops


def _run(shape, dtype, small, monkeypatch, steps=3):
  monkeypatch.setattr(training_ops, "_SMALL", small)
  rng = np.random.default_rng(2)
  p, m, v = [tf.Variable(rng.standard_normal(shape).astype(dtype) ** (2 if i == 2 else 1))
             for i in range(3)]
  g = np.random.default_rng(1).standard_normal(shape).astype(dtype)
  for step in range(steps):
    training_ops.ResourceApplyKerasAdam.kernel(p, m, v, 0.01, np.int64(step), g, beta_1=0.9,
                                               beta_2=0.999, epsilon=1e-7)
  return [x.numpy() for x in (p, m, v)], g, rng


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("shape", [(), (7,), (30, 40)])
def test_small_and_buffered_paths_agree_bitwise(shape, dtype, monkeypatch):
  small, _, _ = _run(shape, dtype, 1 << 30, monkeypatch)
  buffered, _, _ = _run(shape, dtype, 0, monkeypatch)
  for a, b in zip(small, buffered):
    assert a.dtype == b.dtype and np.array_equal(a, b)


def test_small_path_follows_keras_adam(monkeypatch):
  (p, m, v), g, _ = _run((5,), np.float64, 1 << 30, monkeypatch, steps=1)
  rng = np.random.default_rng(2)
  p0, m0, v0 = [rng.standard_normal(5) ** (2 if i == 2 else 1) for i in range(3)]
  m1 = m0 + (g - m0) * 0.1
  v1 = v0 + (g * g - v0) * 0.001
  alpha = 0.01 * np.sqrt(1 - 0.999) / (1 - 0.9)
  np.testing.assert_allclose(m, m1)
  np.testing.assert_allclose(v, v1)
  np.testing.assert_allclose(p, p0 - alpha * m1 / (np.sqrt(v1) + 1e-7))
