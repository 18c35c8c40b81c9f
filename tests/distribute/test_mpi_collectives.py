"""MPICollectives under `mpiexec -n 2` on this machine: values of every collective,
fusion into one message per dtype, bad input, and what the survivors see when a
worker dies, raises or hangs (a clear tf.errors error in bounded time, no hang)."""
import os
import time

import pytest

from mpi_launch import ROOT, check_ok, run_workers

pytest.importorskip("mpi4py")


def test_all_reduce_values_and_fusion(tmp_path):
  done, rep = run_workers(tmp_path, """
    from tensorlet.distribute.mpi_collectives import MPICollectives
    c = MPICollectives()
    calls = []
    class Counting:  # counts the MPI messages the collectives send
      def __init__(self, comm): self.comm = comm
      def __getattr__(self, name):
        calls.append(name)
        return getattr(self.comm, name)
    c._comm = Counting(c._comm)
    r = c.rank
    rng = np.random.default_rng(r)
    arrays = [rng.normal(size=(3, 4)).astype(np.float32), rng.normal(size=7).astype(np.float32),
              np.arange(5, dtype=np.int64) * (r + 1), rng.normal(size=()).astype(np.float64),
              np.full((2, 2), r + 1, np.int32)]
    out = {}
    for op in ("sum", "mean", "max", "min"):
      res = c.all_reduce(arrays, op)
      out[op] = [[a.tolist(), str(a.dtype), list(a.shape)] for a in res]
    out["calls"] = calls.count("Iallreduce")
    out["bools"] = [a.tolist() for a in c.all_reduce([np.array([r == 0, False, True])], "max")
                    + c.all_reduce([np.array([r == 0, False, True])], "min")]
    out["empty"] = c.all_reduce([], "sum")
    report(out)
  """)
  check_ok(done)
  import numpy as np
  per_rank = []
  for r in range(2):
    rng = np.random.default_rng(r)
    per_rank.append([rng.normal(size=(3, 4)).astype(np.float32),
                     rng.normal(size=7).astype(np.float32),
                     np.arange(5, dtype=np.int64) * (r + 1), rng.normal(size=()),
                     np.full((2, 2), r + 1, np.int32)])
  want = {"sum": [a + b for a, b in zip(*per_rank)],
          "max": [np.maximum(a, b) for a, b in zip(*per_rank)],
          "min": [np.minimum(a, b) for a, b in zip(*per_rank)]}
  want["mean"] = [(a + b) / 2 if a.dtype.kind == "f" else (a + b) // 2
                  for a, b in zip(*per_rank)]
  for r in range(2):
    got = rep[r][0]
    for op in ("sum", "mean", "max", "min"):
      for (vals, dtype, shape), w, orig in zip(got[op], want[op], per_rank[0]):
        assert dtype == str(orig.dtype) and shape == list(orig.shape)
        np.testing.assert_allclose(np.array(vals), w, rtol=1e-6)
    # 4 ops x 3 dtypes (float32, int64, float64 + int32 -> 4 dtypes): one message each
    assert got["calls"] == 4 * 4
    assert got["bools"] == [[True, False, True], [False, False, True]]
    assert got["empty"] == []
  assert rep[0][0] == rep[1][0]


def test_broadcast_and_all_gather(tmp_path):
  done, rep = run_workers(tmp_path, """
    from tensorlet.distribute.mpi_collectives import MPICollectives
    c = MPICollectives()
    r = c.rank
    mine = [np.arange(6, dtype=np.float32).reshape(2, 3) + 10 * r,
            np.array([r, r], np.int16), np.array(r + 0.5), np.ones((0, 3))]
    b0 = c.broadcast(mine, root=0)
    b1 = c.broadcast(mine if r == 1 else [], root=1)  # the others need not know shapes
    g0 = c.all_gather(np.full((r + 1, 2), r, np.int32))          # sizes differ per worker
    g1 = c.all_gather(np.full((2, 2 - r, 3), r, np.float64), axis=1)
    g2 = c.all_gather(np.zeros((0, 2), np.float32) if r == 0 else np.ones((2, 2), np.float32))
    c.barrier()
    enc = lambda xs: [[x.tolist(), str(x.dtype), list(x.shape)] for x in xs]
    report({"b0": enc(b0), "b1": enc(b1), "g": enc([g0, g1, g2])})
    c.close(); c.close()
  """)
  check_ok(done)
  for r in range(2):
    got = rep[r][0]
    for key, root in (("b0", 0), ("b1", 1)):
      assert got[key] == [[[[10. * root, 10 * root + 1, 10 * root + 2],
                            [10 * root + 3, 10 * root + 4, 10 * root + 5]], "float32", [2, 3]],
                          [[root, root], "int16", [2]], [root + 0.5, "float64", []],
                          [[], "float64", [0, 3]]]
    g0, g1, g2 = got["g"]
    assert g0 == [[[0, 0], [1, 1], [1, 1]], "int32", [3, 2]]
    assert g1[1:] == ["float64", [2, 3, 3]]
    assert [[row[0] for row in m] for m in g1[0]] == [[0, 0, 1], [0, 0, 1]]
    assert g2 == [[[1, 1], [1, 1]], "float32", [2, 2]]


def test_bad_input_raises_on_every_worker(tmp_path):
  done, rep = run_workers(tmp_path, """
    import tensorlet as tf
    from tensorlet.distribute.mpi_collectives import MPICollectives
    c = MPICollectives()
    r = c.rank
    def attempt(fn):
      try:
        fn()
        return "no error"
      except Exception as e:
        return type(e).__name__ + ": " + str(e)
    out = [
        attempt(lambda: c.all_reduce([np.ones(2)], "prod")),
        attempt(lambda: c.all_reduce([np.array([True])], "sum")),
        attempt(lambda: c.all_reduce([np.ones(2, np.complex64)], "max")),
        attempt(lambda: c.all_reduce([np.array(["a"])], "sum")),
        attempt(lambda: c.broadcast([np.ones(2)], root=2)),
        attempt(lambda: c.broadcast([np.array(["x"])] if r == 0 else [], root=0)),
        attempt(lambda: c.all_gather(np.ones((2, 3 + r)))),
        attempt(lambda: c.all_gather(np.ones(2, np.float32 if r else np.float64))),
        attempt(lambda: c.all_gather(np.float32(1))),
        attempt(lambda: c.all_gather(np.ones(2), axis=1)),
    ]
    # still usable after rejected input
    out.append(c.all_reduce([np.ones(2)], "sum")[0].tolist())
    c.close()
    out.append(attempt(lambda: c.barrier()))
    report(out)
  """)
  check_ok(done)
  for r in range(2):
    out = rep[r][0]
    assert out[0].startswith("ValueError") and "prod" in out[0]
    assert out[1].startswith("InvalidArgumentError") and "bool" in out[1]
    assert out[2].startswith("InvalidArgumentError") and "complex" in out[2]
    assert out[3].startswith("InvalidArgumentError")
    assert out[4].startswith("InvalidArgumentError") and "root" in out[4]
    assert out[5].startswith("InvalidArgumentError")  # root's bad dtype fails everywhere
    assert out[6].startswith("InvalidArgumentError") and "worker" in out[6]
    assert out[7].startswith("InvalidArgumentError") and "dtype" in out[7]
    assert out[8].startswith("InvalidArgumentError") and "dimension" in out[8]
    assert out[9].startswith("InvalidArgumentError") and "axis" in out[9]
    assert out[10] == [2.0, 2.0]
    assert out[11].startswith("FailedPreconditionError") and "closed" in out[11]


FAILING = """
import time, signal
import tensorlet as tf
from tensorlet.distribute.mpi_collectives import MPICollectives
c = MPICollectives()
for _ in range(3):  # some training steps first
  c.all_reduce([np.ones(3)])
  c.broadcast([np.ones(3)])
  c.all_gather(np.ones((1, 3)))
how = sys.argv[1]
if c.rank == 1:
  if how == "kill":
    os.kill(os.getpid(), signal.SIGKILL)
  elif how == "exit":
    os._exit(1)
  elif how == "raise":
    raise RuntimeError("worker 1 crashed")
  elif how == "hang":
    time.sleep(100)
t = time.monotonic()
try:
  c.all_reduce([np.ones(3)])
  report("no error")
except tf.errors.OpError as e:
  errs = [type(e).__name__, str(e), time.monotonic() - t]
  try:
    c.all_reduce([np.ones(3)])
  except tf.errors.OpError as e2:
    errs.append(type(e2).__name__ + ": " + str(e2))
  report(errs)
"""


@pytest.mark.parametrize("how", ["exit", "raise"])
def test_dead_worker_gives_unavailable_error(tmp_path, how):
  # With auto-cleanup off, MPICH leaves the survivor running: it must notice on its own.
  t = time.monotonic()
  done, rep = run_workers(tmp_path, FAILING, args=[how], timeout=60,
                          mpiexec_args=["-disable-auto-cleanup"])
  assert time.monotonic() - t < 30
  assert done.returncode != 0
  name, message, waited, later = rep[0][0]
  assert name == "UnavailableError"
  assert "worker 1" in message and "exited" in message
  assert waited < 10  # found dead well before the collective timeout (60 s here)
  assert later.startswith("UnavailableError") and "earlier failure" in later
  if how == "raise":
    assert "worker 1 crashed" in done.stderr


@pytest.mark.parametrize("cleanup", [[], ["-disable-auto-cleanup"]])
def test_killed_worker_ends_the_job(tmp_path, cleanup):
  # A worker killed by a signal: MPICH's launcher ends the whole job (even with
  # auto-cleanup off, it may kill the survivor before the survivor notices).
  t = time.monotonic()
  done, rep = run_workers(tmp_path, FAILING, args=["kill"], timeout=60, mpiexec_args=cleanup)
  assert time.monotonic() - t < 30
  assert done.returncode != 0
  for errs in rep.get(0, []):
    assert errs[0] == "UnavailableError"


def test_hung_worker_gives_deadline_exceeded(tmp_path):
  t = time.monotonic()
  done, rep = run_workers(tmp_path, FAILING, args=["hang"], timeout=60,
                          env={"TENSORLET_COLLECTIVE_TIMEOUT": "2"})
  # The survivor times out, exits 1, and the launcher ends the hung worker.
  assert time.monotonic() - t < 30
  assert done.returncode != 0
  name, message, waited, later = rep[0][0]
  assert name == "DeadlineExceededError"
  assert "timed out" in message and "2 s" in message
  assert 1.9 < waited < 10


def test_single_worker_is_identity(tmp_path):
  done, rep = run_workers(tmp_path, """
    from tensorlet.distribute.mpi_collectives import MPICollectives
    c = MPICollectives(timeout=5)
    a = np.arange(4.0)
    res = c.all_reduce([a], "mean")[0]
    report([c.rank, c.size, c.is_chief, res.tolist(), res is not a,
            c.broadcast([a])[0].tolist(), c.all_gather(a[None]).tolist()])
    c.barrier()
  """, n=1)
  check_ok(done)
  assert rep[0][0] == [0, 1, True, [0, 1, 2, 3], True, [0, 1, 2, 3], [[0, 1, 2, 3]]]


def test_timeout_argument_checked():
  from tensorlet.distribute import mpi_collectives as mc
  assert mc._check_timeout(None) is None and mc._check_timeout(0) is None
  assert mc._check_timeout(2) == 2.0
  with pytest.raises(ValueError, match="timeout"):
    mc._check_timeout(-1)
  with pytest.raises(TypeError, match="timeout"):
    mc._check_timeout("5")


def test_timeout_environment_variable(monkeypatch):
  from tensorlet.distribute import mpi_collectives as mc
  monkeypatch.delenv("TENSORLET_COLLECTIVE_TIMEOUT", raising=False)
  assert mc.default_timeout() == mc.DEFAULT_TIMEOUT
  monkeypatch.setenv("TENSORLET_COLLECTIVE_TIMEOUT", "7.5")
  assert mc.default_timeout() == 7.5
  monkeypatch.setenv("TENSORLET_COLLECTIVE_TIMEOUT", "0")
  assert mc.default_timeout() is None
  monkeypatch.setenv("TENSORLET_COLLECTIVE_TIMEOUT", "soon")
  with pytest.raises(ValueError, match="TENSORLET_COLLECTIVE_TIMEOUT"):
    mc.default_timeout()


def test_large_arrays_go_alone(tmp_path):
  done, rep = run_workers(tmp_path, """
    from tensorlet.distribute import mpi_collectives as mc
    mc.FUSE_BELOW_BYTES = 1024  # so small test arrays take the large-array path
    c = mc.MPICollectives()
    big = np.arange(600, dtype=np.float64) * (c.rank + 1)
    flags = np.zeros(2000, bool)
    flags[c.rank] = True
    out = c.all_reduce([big, np.ones(3, np.float32), flags], "max")
    mean = c.all_reduce([big.astype(np.int32)], "mean")[0]
    report([out[0][:3].tolist(), out[1].tolist(), int(out[2].sum()), str(out[2].dtype),
            mean[:4].tolist(), big[:3].tolist()])
  """)
  check_ok(done)
  for r in range(2):
    assert rep[r][0] == [[0.0, 2.0, 4.0], [1.0, 1.0, 1.0], 2, "bool", [0, 1, 3, 4],
                         [0.0, 1.0 * (r + 1), 2.0 * (r + 1)]]  # inputs untouched


def test_without_mpi4py_the_error_says_what_to_install(monkeypatch):
  import sys
  import tensorlet as tf
  from tensorlet.distribute import mpi_collectives as mc
  monkeypatch.setitem(sys.modules, "mpi4py", None)  # as if the extra were not installed
  with pytest.raises(tf.errors.UnimplementedError, match=r"tensorlet\[distributed\]"):
    mc.MPICollectives()


def test_pid_space_names_host_boot_and_namespace(monkeypatch):
  # The dead-peer check compares process ids only between workers of one pid space.
  import subprocess
  import sys
  from tensorlet.distribute import mpi_collectives as mc
  here = mc._pid_space()
  child = subprocess.run([sys.executable, "-c", "import sys; from tensorlet.distribute import "
                          "mpi_collectives as mc; sys.stdout.write(mc._pid_space().hex())"],
                         capture_output=True, text=True, check=True,
                         env=dict(os.environ, PYTHONPATH=ROOT)).stdout
  assert len(here) == 32 and child == here.hex()
  monkeypatch.setattr(mc.socket, "gethostname", lambda: "another-machine")
  assert mc._pid_space() != here
