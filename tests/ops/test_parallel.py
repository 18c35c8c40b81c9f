"""Kernels split over _parallel's threads (tensorlet/ops/_parallel.py): every piece runs
once, errors reach the caller, and the split GEMMs and the parallel Adam update give
the serial results."""
import threading

import numpy as np
import pytest

from tensorlet.ops import _blas_threads as bt
from tensorlet.ops import _parallel, math_ops, training_ops


@pytest.fixture
def two_threads(monkeypatch):
  monkeypatch.setattr(_parallel, "threads", lambda: 2)


def test_run_calls_each_piece_once_on_several_threads(two_threads):
  seen, names = [], set()
  lock = threading.Lock()

  def piece(i):
    with lock:
      seen.append(i)
      names.add(threading.current_thread().name)
  for _ in range(20):
    _parallel.run(piece, 16)
  assert sorted(seen) == sorted(list(range(16)) * 20)
  assert "MainThread" in names


def test_run_raises_a_pieces_error_and_stays_usable(two_threads):
  def piece(i):
    if i == 3:
      raise ValueError("piece 3")
  with pytest.raises(ValueError, match="piece 3"):
    _parallel.run(piece, 8)
  out = []
  _parallel.run(out.append, 4)
  assert sorted(out) == [0, 1, 2, 3]


def test_serial_when_one_thread(monkeypatch):
  monkeypatch.setattr(_parallel, "threads", lambda: 1)
  names = []
  _parallel.run(lambda i: names.append(threading.current_thread().name), 5)
  assert names == ["MainThread"] * 5


def test_fixed_intra_op_count_keeps_kernels_serial():
  import tensorlet as tf
  before = tf.config.threading.get_intra_op_parallelism_threads()
  try:
    tf.config.threading.set_intra_op_parallelism_threads(2)
    assert _parallel.threads() == 1
  finally:
    tf.config.threading.set_intra_op_parallelism_threads(before)
  assert _parallel.threads() == (min(bt._max, bt._ncpu) if bt.policy_enabled() else 1)


@pytest.mark.parametrize("m,k,n", [(32, 21632, 128), (21632, 32, 128), (32, 128, 21632),
                                   (700, 300, 200), (300, 70000, 3)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_split_matmul_matches_numpy(two_threads, m, k, n, dtype):
  rng = np.random.default_rng(m + k + n)
  a = rng.standard_normal((m, k)).astype(dtype)
  b = rng.standard_normal((k, n)).astype(dtype)
  for x, y in [(a, b), (np.ascontiguousarray(a.T).T, np.ascontiguousarray(b.T).T)]:
    got = math_ops._split_matmul(x, y)
    want = a.astype(np.float64) @ b
    assert got.dtype == dtype and got.shape == (m, n)
    tol = 1e-4 if dtype == np.float32 else 1e-10
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol * np.sqrt(k))


def test_split_matmul_integers_stay_exact(two_threads):
  a = np.arange(32 * 21632, dtype=np.int64).reshape(32, 21632) % 7
  b = np.arange(21632 * 128, dtype=np.int64).reshape(21632, 128) % 5
  np.testing.assert_array_equal(math_ops._matmul_kernel(a, b), a @ b)


def test_big_matmul_op_through_the_split(two_threads):
  import tensorlet as tf
  rng = np.random.default_rng(0)
  a = rng.standard_normal((32, 21632)).astype(np.float32)
  b = rng.standard_normal((21632, 128)).astype(np.float32)
  f = tf.function(lambda x, y: tf.matmul(x, y, transpose_b=True))
  np.testing.assert_allclose(f(a, b.T.copy()).numpy(), a.astype(np.float64) @ b,
                             rtol=1e-4, atol=1e-3)


@pytest.mark.parametrize("size", [1000, 3 * training_ops._CHUNK + 17,
                                  40 * training_ops._CHUNK + 5])
def test_parallel_adam_matches_serial(monkeypatch, size):
  import tensorlet as tf
  rng = np.random.default_rng(size)
  w0, g = rng.standard_normal((2, size)).astype(np.float32)
  results = []
  for threads in (1, 2):
    monkeypatch.setattr(_parallel, "threads", lambda t=threads: t)
    var = tf.Variable(w0)
    opt = tf.keras.optimizers.Adam(0.01)
    for _ in range(3):
      opt.apply_gradients([(tf.constant(g), var)])
    results.append(var.numpy())
  np.testing.assert_array_equal(results[0], results[1])
  m = v = 0.0
  w = w0.astype(np.float64)
  for t in range(1, 4):
    m = m + (g - m) * 0.1
    v = v + (g.astype(np.float64) ** 2 - v) * 0.001
    w = w - 0.01 * np.sqrt(1 - 0.999 ** t) / (1 - 0.9 ** t) * m / (np.sqrt(v) + 1e-7)
  np.testing.assert_allclose(results[1], w, rtol=1e-4, atol=1e-5)
