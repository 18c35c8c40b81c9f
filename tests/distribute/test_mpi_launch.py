"""tensorlet.distribute.launch: the mpiexec command it builds, the BLAS share per worker,
the wall-clock limit that kills the whole job, and its command line."""
import os
import subprocess
import sys
import time

import pytest

from tensorlet.distribute import launch

pytest.importorskip("mpi4py")


def test_command_uses_the_mpiexec_beside_python():
  cmd = launch.command(3, ["train.py", "--epochs", "2"])
  assert cmd[0] == os.path.join(os.path.dirname(sys.executable), "mpiexec") or \
      os.path.basename(cmd[0]) == "mpiexec"
  assert cmd[-5:] == ["3", sys.executable, "train.py", "--epochs", "2"] and cmd[-6] == "-n"
  assert "-launcher" in cmd  # MPICH's hydra: local processes by fork, no network needed
  assert launch.command(1, ["x.py"], mpiexec_args=["-disable-auto-cleanup"])[3] == \
      "-disable-auto-cleanup"
  for bad in (0, -1, 2.0, True, "2"):
    with pytest.raises(ValueError, match="num_workers"):
      launch.command(bad, ["x.py"])


def test_worker_env_shares_the_cores():
  env = launch.worker_env(2, {"PATH": "/bin"})
  want = str(max(1, (os.cpu_count() or 1) // 2))
  assert env["OPENBLAS_NUM_THREADS"] == env["OMP_NUM_THREADS"] == want
  assert launch.worker_env(2, {"OMP_NUM_THREADS": "7"})["OMP_NUM_THREADS"] == "7"


def test_timeout_kills_the_job(tmp_path):
  script = tmp_path / "sleepy.py"
  script.write_text("import os, time\nopen(os.environ['MARK'] + str(os.getpid()), 'w')\n"
                    "time.sleep(60)\n")
  env = dict(os.environ, MARK=str(tmp_path / "pid-"))
  t = time.monotonic()
  with pytest.raises(subprocess.TimeoutExpired):
    launch.run(2, [str(script)], timeout=3, env=env, capture_output=True)
  assert time.monotonic() - t < 20
  pids = [int(p.name[4:]) for p in tmp_path.glob("pid-*")]
  assert len(pids) == 2
  time.sleep(0.5)
  for pid in pids:
    with pytest.raises(ProcessLookupError):
      os.kill(pid, 0)


def test_command_line(tmp_path):
  script = tmp_path / "hello.py"
  script.write_text("import os, sys\nopen(os.path.join(sys.argv[1], os.environ['PMI_RANK']),"
                    " 'w').write(' '.join(sys.argv[2:]))\n")
  assert launch.main(["-n", "2", str(script), str(tmp_path), "a", "b"]) == 0
  assert (tmp_path / "0").read_text() == (tmp_path / "1").read_text() == "a b"
  (tmp_path / "bad.py").write_text("raise SystemExit(3)\n")
  assert launch.main(["-n", "1", str(tmp_path / "bad.py")]) == 3
  slow = tmp_path / "slow.py"
  slow.write_text("import time\ntime.sleep(60)\n")
  assert launch.main(["-n", "1", "--timeout", "2", str(slow)]) == 124


def test_distributed_demo_runs_with_one_command(tmp_path):
  import tensorlet
  root = os.path.dirname(os.path.dirname(tensorlet.__file__))
  env = dict(os.environ, PYTHONPATH=root)
  done = subprocess.run([sys.executable, os.path.join(root, "examples", "distributed_demo.py"),
                         "--epochs", "1", "--out", str(tmp_path / "out"), "--timeout", "240"],
                        capture_output=True, text=True, timeout=300, env=env, cwd=tmp_path)
  assert done.returncode == 0, done.stdout + done.stderr
  assert "2 replicas in sync" in done.stdout and "held-out accuracy" in done.stdout
  assert sorted(os.listdir(tmp_path / "out" / "ckpt")) == [
      "checkpoint", "ckpt-1.data-00000-of-00001", "ckpt-1.index"]  # the chief's files only
  assert not (tmp_path / "out" / "backup").exists()  # removed after a finished fit
  events = os.listdir(tmp_path / "out" / "logs" / "train")
  assert len(events) == 1 and events[0].startswith("events.out.tfevents")  # the chief's
