"""The BLAS thread policy (tensorlet/ops/_blas_threads.py): small GEMMs on one thread,
large ones on the cores other processes leave idle, tf.config.threading overriding it,
and no policy (and no error) without threadpoolctl."""
import sys
import types

import numpy as np
import pytest

import tensorlet as tf
from tensorlet.graph import executor, passes
from tensorlet.ops import _blas_threads as bt


class FakeBlas:
  """Stands in for the BLAS setter, a clock and /proc/stat; records what was set."""

  def __init__(self, monkeypatch, max_threads=4, ncpu=4):
    self.calls, self.t, self.busy, self.mine = [], 0.0, 0, 0.0
    self.ncpu = ncpu
    for name, v in [("_enabled", max_threads > 1), ("_set", self.calls.append),
                    ("_max", max_threads), ("_cur", None), ("_fixed", 0), ("_ncpu", ncpu),
                    ("_avail", 1), ("_saved", None), ("_next_sample", 0.0), ("_last", None), ("_HZ", 100)]:
      monkeypatch.setattr(bt, name, v)
    monkeypatch.setattr(bt, "_busy_jiffies", lambda: self.busy)
    monkeypatch.setattr(bt, "time", types.SimpleNamespace(monotonic=lambda: self.t,
                                                          process_time=lambda: self.mine))

  def advance(self, seconds, others_cores, my_cores=1.0):
    """`seconds` pass; other processes keep `others_cores` busy, we `my_cores`."""
    self.t += seconds
    self.mine += seconds * my_cores
    self.busy += round((others_cores + my_cores) * seconds * 100)


def test_small_gemms_never_touch_the_blas(monkeypatch):
  f = FakeBlas(monkeypatch)
  bt.gemm(64, 64, 64)
  bt.work(bt.FREE)
  assert f.calls == []


def test_medium_gemms_get_one_thread(monkeypatch):
  f = FakeBlas(monkeypatch)
  bt.gemm(128, 128, 128)  # 2.1e6 multiply-adds: one thread's worth
  assert f.calls == [1]
  bt.gemm(128, 128, 128)
  assert f.calls == [1]   # set once: unchanged counts are not set again


def test_large_gemms_use_the_idle_cores(monkeypatch):
  f = FakeBlas(monkeypatch)
  bt.gemm(1000, 1000, 1000)  # first sample: no history yet, so one thread
  assert f.calls == [1]
  f.advance(0.5, others_cores=0.0)
  bt.gemm(1000, 1000, 1000)
  assert f.calls == [1, 4]
  bt.gemm(400, 400, 40)  # 6.4e6: below MULTI_MIN (7e6), one thread (no spinning second one)
  assert f.calls == [1, 4, 1]
  bt.gemm(400, 400, 100)  # 1.6e7: eight threads' worth, four cores
  assert f.calls == [1, 4, 1, 4]
  bt.gemm(9, 32, 100000)  # more work, but a 9x32 product: it does not split well
  assert f.calls == [1, 4, 1, 4, 1]


def test_busy_neighbours_take_threads_away(monkeypatch):
  f = FakeBlas(monkeypatch, max_threads=2, ncpu=2)
  bt.gemm(1000, 1000, 1000)
  f.advance(0.5, others_cores=0.0, my_cores=2.0)
  bt.gemm(1000, 1000, 1000)
  assert f.calls[-1] == 2
  f.advance(0.5, others_cores=1.0, my_cores=1.0)  # a neighbour holds a core
  bt.gemm(1000, 1000, 1000)
  assert f.calls[-1] == 1
  bt.gemm(1000, 1000, 1000)  # within SAMPLE_S of the sample: no new reading
  assert f.calls[-1] == 1
  f.advance(0.5, others_cores=0.1)  # the neighbour left
  bt.gemm(1000, 1000, 1000)
  assert f.calls[-1] == 2


def test_fixed_threads_override_the_policy(monkeypatch):
  f = FakeBlas(monkeypatch)
  bt.set_fixed(3)
  assert f.calls == [3]
  bt.gemm(128, 128, 128)
  f.advance(1.0, others_cores=0.0)
  bt.gemm(1000, 1000, 1000)
  assert f.calls == [3]
  bt.set_fixed(0)  # back to the user's default, then the policy
  assert f.calls == [3, 4]
  bt.gemm(128, 128, 128)
  assert f.calls == [3, 4, 1]


def test_policy_off_restores_the_default(monkeypatch):
  f = FakeBlas(monkeypatch)
  bt.gemm(128, 128, 128)
  bt.set_policy(False)
  bt.gemm(128, 128, 128)
  assert f.calls == [1, 4] and not bt.policy_enabled()
  bt.set_policy(True)
  bt.gemm(128, 128, 128)
  assert f.calls == [1, 4, 1]


def test_hand_back_restores_the_users_count_for_numpy(monkeypatch):
  f = FakeBlas(monkeypatch)
  bt.hand_back()  # nothing set yet: nothing to give back
  assert f.calls == []
  bt.gemm(128, 128, 128)
  bt.hand_back()
  assert f.calls == [1, 4] and bt.current() == 4
  bt.hand_back()  # already the user's count
  assert f.calls == [1, 4]
  bt.set_fixed(2)  # a fixed count stays: the user asked for it
  bt.hand_back()
  assert f.calls == [1, 4, 2]


def test_einsum_work_counts_every_label(monkeypatch):
  seen = []
  monkeypatch.setattr(bt, "work", lambda mnk, out=None: seen.append(mnk))
  a, b = np.zeros((8, 30, 40)), np.zeros((8, 40, 50))
  bt.einsum("bij,bjk->bik", [a, b])
  bt.einsum("...ij,...jk", [a, b])
  assert seen == [8 * 30 * 40 * 50] * 2


def test_without_threadpoolctl_no_policy_and_no_error(monkeypatch):
  monkeypatch.setitem(sys.modules, "threadpoolctl", None)  # import fails
  monkeypatch.setattr(bt, "_enabled", None)
  monkeypatch.setattr(bt, "_set", None)
  monkeypatch.setattr(bt, "_cur", None)
  bt.gemm(1000, 1000, 1000)
  assert not bt.policy_enabled() and bt.current() is None
  a = np.random.RandomState(0).rand(300, 300).astype(np.float32)
  np.testing.assert_allclose(tf.matmul(a, a).numpy(), a @ a, rtol=1e-5)
  with pytest.raises(ImportError, match="threadpoolctl"):
    tf.config.threading.set_intra_op_parallelism_threads(1)


def test_kernels_call_the_policy(monkeypatch):
  seen = []
  monkeypatch.setattr(bt, "work", lambda mnk, out=None: seen.append(mnk))
  rng = np.random.RandomState(0)
  a, b = rng.rand(3, 70, 80).astype(np.float32), rng.rand(3, 80, 90).astype(np.float32)
  np.testing.assert_allclose(tf.matmul(a, b).numpy(), a @ b, rtol=1e-5)
  assert seen.pop() == 3 * 70 * 80 * 90
  np.testing.assert_allclose(tf.einsum("bij,bjk->bik", a, b).numpy(), a @ b, rtol=1e-5)
  assert seen.pop() == 3 * 70 * 80 * 90
  x, w = rng.rand(2, 10, 10, 3).astype(np.float32), rng.rand(3, 3, 3, 4).astype(np.float32)
  xv, wv = tf.Variable(x), tf.Variable(w)
  with tf.GradientTape() as tape:
    y = tf.nn.conv2d(xv, wv, 1, "VALID")
  tape.gradient(y, [xv, wv])
  # forward, input gradient and filter gradient: each 2*8*8 outputs x 3*3*3*4
  assert seen[-3:] == [2 * 8 * 8 * 3 * 3 * 3 * 4] * 3


def test_graphs_inline_small_products_and_ask_for_large_ones():
  @tf.function
  def f(x, y):
    return tf.matmul(x, y)

  def source(shape_x, shape_y):
    cf = f.get_concrete_function(tf.TensorSpec(shape_x), tf.TensorSpec(shape_y))
    run = executor.compile_graph(passes.lower(cf.graph, cf._arg_leaves, optimized=False))
    return run.source
  assert " @ " in source([20, 64], [64, 64])
  big = source([300, 300], [300, 300])
  assert " @ " not in big and "k" in big
  assert " @ " not in source([None, 64], [64, 64])  # unknown size: the kernel decides
  x = np.ones((300, 300), np.float32)
  np.testing.assert_allclose(f(x, x).numpy(), x @ x)


def test_intra_op_threads_fix_the_count_for_large_gemms():
  threadpoolctl = pytest.importorskip("threadpoolctl")

  def blas():
    return {i["num_threads"] for i in threadpoolctl.threadpool_info()
            if i["user_api"] == "blas"}
  try:
    tf.config.threading.set_intra_op_parallelism_threads(1)
    a = np.ones((400, 400), np.float32)
    tf.matmul(a, a)
    assert blas() == {1} and bt.current() == 1
  finally:
    tf.config.threading.set_intra_op_parallelism_threads(0)
