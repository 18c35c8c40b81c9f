"""Distributed workloads (`python benchmarks/run.py -k dist`), each run by MPI workers
that `mpiexec` starts on this machine (this file is also the worker program):

- dist_allreduce: tensorlet's fused all-reduce (MPICollectives.all_reduce of a model's
  gradient list, `mean`) against one hand-written mpi4py `Allreduce` of a preallocated
  buffer of the same bytes, alternately in the same processes; MB/s = bytes / time.
- dist_step: the training step (tf.function, GradientTape, Adam) of W4's Keras MLP and
  of the demo convnet under MultiWorkerMirroredStrategy, 32 examples per worker, with 1
  and 2 workers, beside a hand-written data-parallel step in the same processes (the
  step without a strategy, then one raw mpi4py Allreduce of its gradients' size); scaling
  efficiency = 1-worker step time / 2-worker step time (same work per worker, so 1.0
  means twice the throughput).
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

# Gradient shapes of the models the step benchmarks train.
W4_SHAPES = [(784, 128), (128,), (128, 10), (10,)]
CONVNET_SHAPES = [(3, 3, 1, 32), (32,), (3, 3, 32, 64), (64,), (1024, 10), (10,)]
SIZES_MB = (1, 4, 16)


def _launch(n, mode, repeat, timeout=600):
  sys.path.insert(0, ROOT)
  from tensorlet.distribute import launch
  with tempfile.TemporaryDirectory() as d:
    out = os.path.join(d, "result.json")
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
      env.setdefault(var, "1")  # 1 and 2 workers alike (run.py --threads overrides)
    done = launch.run(n, [os.path.abspath(__file__), "--worker", mode, str(repeat), out],
                      timeout=timeout, env=env, capture_output=True)
    if done.returncode != 0 or not os.path.exists(out):
      raise RuntimeError(f"{mode} workers failed ({done.returncode}):\n{done.stdout}\n"
                         f"{done.stderr}")
    with open(out) as f:
      return json.load(f)


def _have_mpi():
  import importlib.util
  if importlib.util.find_spec("mpi4py") is None:
    print("dist_*: skipped, no mpi4py (pip install 'tensorlet[distributed]')", flush=True)
    return False
  return True


def dist_allreduce(repeat):
  if not _have_mpi():
    return
  res = _launch(2, "allreduce", repeat)
  for name, nbytes, tl, raw in res:
    mb = nbytes / 1e6
    yield (f"dist allreduce {name} ({mb:.2f} MB)", tl, raw, "ms",
           f"{mb / tl:7.0f} MB/s fused (raw MPI {mb / raw:.0f} MB/s), 2 workers")


def dist_step(repeat):
  if not _have_mpi():
    return
  one = _launch(1, "step", repeat)
  two = _launch(2, "step", repeat)
  for (name, t1, floor1), (_, t2, floor2) in zip(one, two):
    yield (f"dist step {name} 1 worker", t1, floor1, "ms",
           "32 examples per worker; beside: the step without a strategy")
    yield (f"dist step {name} 2 workers", t2, floor2, "ms",
           f"beside: step + raw MPI Allreduce; scaling efficiency {t1 / t2:.2f} (1-worker {t1 * 1e3:.2f} ms / 2-worker "
           f"{t2 * 1e3:.2f} ms)")


def dist_run_overhead(repeat):
  """Eager MirroredStrategy.run over 2 virtual CPUs of a tiny replica function (with
  and without an all-reduce), beside the same arithmetic in NumPy: the cost of handing
  each replica to its (pooled) thread and back."""
  sys.path.insert(0, ROOT)
  import numpy as np
  import tensorlet as tf
  cpu = tf.config.list_physical_devices("CPU")[0]
  tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
  try:
    s = tf.distribute.MirroredStrategy()
    x, xn = tf.constant(np.ones((4, 4), "float32")), np.ones((4, 4), "float32")

    def summed(a):
      return tf.distribute.get_replica_context().all_reduce("SUM", a * 2.0)
    for name, fn, ref in [("plain", lambda a: a * 2.0, lambda: [xn * 2.0, xn * 2.0]),
                          ("all_reduce", summed, lambda: [(xn * 2.0) * 2] * 2)]:
      tl, raw = [], []
      for _ in range(max(5, repeat)):
        t = time.perf_counter()
        for _ in range(50):
          s.run(fn, args=(x,))
        tl.append((time.perf_counter() - t) / 50)
        t = time.perf_counter()
        for _ in range(50):
          ref()
        raw.append((time.perf_counter() - t) / 50)
      yield (f"dist run overhead {name} (2 replicas)", statistics.median(tl),
             statistics.median(raw), "ms", "eager strategy.run, replica threads pooled")
  finally:
    tf.config.set_logical_device_configuration(cpu, None)


ALL = [("dist_allreduce", dist_allreduce), ("dist_step", dist_step),
       ("dist_run_overhead", dist_run_overhead)]


# -- the workers ------------------------------------------------------------------------

def _timed_pair(comm, fn_a, fn_b, repeat, min_time=0.05):
  """Medians of fn_a and fn_b run alternately; every worker runs the same number of
  calls (rank 0 chooses it), as collectives require."""
  import numpy as np
  for _ in range(2):
    fn_a()
    fn_b()
  n = 1
  while True:
    t = time.perf_counter()
    for _ in range(n):
      fn_b()
    enough = np.array([time.perf_counter() - t >= min_time or n >= 1 << 14], np.int8)
    comm.Bcast(enough, root=0)
    if enough[0]:
      break
    n *= 2
  a, b = [], []
  for _ in range(repeat):
    comm.Barrier()
    t = time.perf_counter()
    for _ in range(n):
      fn_a()
    a.append((time.perf_counter() - t) / n)
    comm.Barrier()
    t = time.perf_counter()
    for _ in range(n):
      fn_b()
    b.append((time.perf_counter() - t) / n)
  return statistics.median(a), statistics.median(b)


def _allreduce_worker(repeat):
  import numpy as np
  from mpi4py import MPI
  from tensorlet.distribute.mpi_collectives import MPICollectives
  comm = MPI.COMM_WORLD
  c = MPICollectives()
  rng = np.random.default_rng(comm.rank)
  cases = [("W4 grads", W4_SHAPES), ("convnet grads", CONVNET_SHAPES)]
  cases += [(f"{mb} MiB in 8 arrays", [(mb * (1 << 20) // 32,)] * 8) for mb in SIZES_MB]
  rows = []
  for name, shapes in cases:
    grads = [rng.normal(size=s).astype(np.float32) for s in shapes]
    flat = np.concatenate([g.ravel() for g in grads])
    out = np.empty_like(flat)
    tl, raw = _timed_pair(comm, lambda: c.all_reduce(grads, "mean"),
                          lambda: comm.Allreduce(flat, out), repeat)
    rows.append((name, flat.nbytes, tl, raw))
  c.close()
  return rows


def _step_worker(repeat):
  """Median train-step time of W4 and the demo convnet under MultiWorkerMirroredStrategy
  (32 examples per worker, graph mode), beside the same step with no strategy."""
  import numpy as np
  from mpi4py import MPI
  import tensorlet as tf
  comm = MPI.COMM_WORLD
  strategy = tf.distribute.MultiWorkerMirroredStrategy()
  per_worker = 32
  rng = np.random.default_rng(1 + comm.rank)

  def w4():
    return tf.keras.Sequential([tf.keras.Input((784,)), tf.keras.layers.Dense(128, "relu"),
                                tf.keras.layers.Dense(10)])

  def convnet():
    return tf.keras.Sequential([
        tf.keras.Input((8, 8, 1)),
        tf.keras.layers.Conv2D(32, 3, padding="same", activation="relu"),
        tf.keras.layers.MaxPooling2D(),
        tf.keras.layers.Conv2D(64, 3, padding="same", activation="relu"),
        tf.keras.layers.Flatten(), tf.keras.layers.Dense(10)])

  rows = []
  for name, make, shape in (("W4 keras Adam", w4, (784,)), ("demo convnet", convnet, (8, 8, 1))):
    x = rng.uniform(size=(per_worker,) + shape).astype(np.float32)
    y = rng.integers(0, 10, size=per_worker).astype(np.int32)
    global_batch = per_worker * strategy.num_replicas_in_sync

    def build():
      model = make()
      opt = tf.keras.optimizers.Adam(1e-3)
      loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(
          from_logits=True, reduction=tf.keras.losses.Reduction.NONE)

      def replica_step(xb, yb):
        with tf.GradientTape() as tape:
          loss = tf.nn.compute_average_loss(loss_fn(yb, model(xb, training=True)),
                                            global_batch_size=global_batch)
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        return loss
      return replica_step, model

    with strategy.scope():
      dist_step_fn, _ = build()

    @tf.function
    def dist_step(xb, yb):
      return strategy.run(dist_step_fn, args=(xb, yb))

    plain_fn, plain_model = build()
    plain_step = tf.function(plain_fn)
    flat = np.zeros(sum(int(np.prod(v.shape)) for v in plain_model.trainable_variables),
                    np.float32)
    summed = np.empty_like(flat)

    def hand_parallel_step():  # the step alone, then one raw MPI all-reduce of its gradients' size
      plain_step(xt, yt)
      if comm.size > 1:
        comm.Allreduce(flat, summed)

    xt, yt = tf.constant(x), tf.constant(y)
    t_dist, t_hand = _timed_pair(comm, lambda: dist_step(xt, yt), hand_parallel_step, repeat)
    rows.append((name, t_dist, t_hand))
  return rows


def _worker(mode, repeat, out):
  from mpi4py import MPI
  rows = {"allreduce": _allreduce_worker, "step": _step_worker}[mode](repeat)
  if MPI.COMM_WORLD.rank == 0:
    with open(out + ".tmp", "w") as f:
      json.dump(rows, f)
    os.replace(out + ".tmp", out)


if __name__ == "__main__" and sys.argv[1:2] == ["--worker"]:
  sys.path.insert(0, ROOT)
  _worker(sys.argv[2], int(sys.argv[3]), sys.argv[4])
