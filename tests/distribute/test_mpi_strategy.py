"""MultiWorkerMirroredStrategy under `mpiexec -n 2`: discovery from MPI and from
TF_CONFIG, variables initialised from the chief, cross-worker reductions eagerly and in
tf.function, chief-only duties, CommunicationOptions and its timeout; and the one-process
fallback without any launcher."""
import json

import pytest

import tensorlet as tf
from tensorlet.distribute import multi_worker_mirrored_strategy as mwms
from mpi_launch import check_ok, run_workers

pytest.importorskip("mpi4py")

BASICS = """
import tensorlet as tf
strategy = tf.distribute.MultiWorkerMirroredStrategy()
rank = strategy.cluster_resolver.task_id
with strategy.scope():
  v = tf.Variable(np.random.default_rng(rank).normal(size=3).astype(np.float32))
per_replica = strategy.run(lambda: tf.constant([1.0, 2.0]) * float(rank + 1))

def replica_sum():
  ctx = tf.distribute.get_replica_context()
  return ctx.all_reduce(tf.distribute.ReduceOp.SUM, tf.constant(float(rank + 1)))

@tf.function
def graph_sum():
  return strategy.reduce("SUM", strategy.run(lambda: tf.constant(float(rank + 1)) * 10.0),
                         axis=None)

contexts = []

def dataset_fn(ctx):
  contexts.append([ctx.input_pipeline_id, ctx.num_input_pipelines, ctx.num_replicas_in_sync,
                   ctx.get_per_replica_batch_size(8)])
  return tf.data.Dataset.range(8).shard(ctx.num_input_pipelines, ctx.input_pipeline_id).batch(2)

from_function = [strategy.experimental_local_results(b)[0].numpy().tolist()
                 for b in strategy.distribute_datasets_from_function(dataset_fn)]

report({
    "contexts": contexts, "from_function": from_function,
    "replicas": strategy.num_replicas_in_sync,
    "task": [strategy.cluster_resolver.task_type, strategy.cluster_resolver.task_id],
    "spec_jobs": strategy.cluster_resolver.cluster_spec().jobs,
    "var": v.numpy().tolist(),
    "sum": strategy.reduce("SUM", per_replica, axis=None).numpy().tolist(),
    "mean": strategy.reduce("MEAN", per_replica, axis=None).numpy().tolist(),
    "axis_sum": float(strategy.reduce("SUM", per_replica, axis=0).numpy()),
    "replica_sum": float(strategy.experimental_local_results(strategy.run(replica_sum))[0]),
    "graph_sum": float(graph_sum().numpy()),
    "chief": [strategy.extended.should_checkpoint, strategy.extended.should_save_summary],
    "multi": strategy.extended.experimental_between_graph,
})
"""


def test_strategy_basics_two_workers(tmp_path):
  done, rep = run_workers(tmp_path, BASICS)
  check_ok(done)
  import numpy as np
  chief_var = np.random.default_rng(0).normal(size=3).astype(np.float32).tolist()
  for r in range(2):
    got = rep[r][0]
    assert got["replicas"] == 2 and got["task"] == ["worker", r] and got["spec_jobs"] == ["worker"]
    assert got["var"] == chief_var  # initialised from the chief on every worker
    assert got["sum"] == [3.0, 6.0] and got["mean"] == [1.5, 3.0] and got["axis_sum"] == 9.0
    assert got["replica_sum"] == 3.0 and got["graph_sum"] == 30.0
    assert got["chief"] == [r == 0, r == 0] and got["multi"] is True
    assert got["contexts"] == [[r, 2, 2, 4]]  # one input pipeline per worker
    assert got["from_function"] == [[r, r + 2], [r + 4, r + 6]]


TF_CONFIG_WORKER = """
import tensorlet as tf
rank = int(os.environ["PMI_RANK"])
cluster = json.loads(sys.argv[1])
task = json.loads(sys.argv[2])[rank]
os.environ["TF_CONFIG"] = json.dumps({"cluster": cluster, "task": task})
try:
  strategy = tf.distribute.MultiWorkerMirroredStrategy()
except Exception as e:
  report({"error": type(e).__name__ + ": " + str(e)})
else:
  r = strategy.cluster_resolver
  report({"resolver": type(r).__name__, "task": [r.task_type, r.task_id],
          "replicas": strategy.num_replicas_in_sync,
          "chief": strategy.extended.should_checkpoint,
          "sum": float(strategy.reduce("SUM", strategy.run(lambda: tf.constant(rank + 1.0)),
                                       axis=None).numpy())})
"""


def test_tf_config_with_chief_and_worker(tmp_path):
  cluster = {"chief": ["127.0.0.1:2222"], "worker": ["127.0.0.1:2223"]}
  tasks = [{"type": "chief", "index": 0}, {"type": "worker", "index": 0}]
  done, rep = run_workers(tmp_path, TF_CONFIG_WORKER, args=[json.dumps(cluster),
                                                            json.dumps(tasks)])
  check_ok(done)
  assert rep[0][0] == {"resolver": "TFConfigClusterResolver", "task": ["chief", 0],
                       "replicas": 2, "chief": True, "sum": 3.0}
  assert rep[1][0] == {"resolver": "TFConfigClusterResolver", "task": ["worker", 0],
                       "replicas": 2, "chief": False, "sum": 3.0}


def test_tf_config_that_disagrees_with_mpi(tmp_path):
  cluster = {"worker": ["127.0.0.1:2222", "127.0.0.1:2223"]}
  tasks = [{"type": "worker", "index": 1}, {"type": "worker", "index": 0}]  # swapped
  done, rep = run_workers(tmp_path, TF_CONFIG_WORKER, args=[json.dumps(cluster),
                                                            json.dumps(tasks)])
  for r in range(2):
    error = rep[r][0]["error"]
    assert error.startswith("InvalidArgumentError") and f"this is rank {r}" in error
  cluster = {"worker": ["a:1", "b:1", "c:1"]}
  tasks = [{"type": "worker", "index": 0}, {"type": "worker", "index": 1}]
  done, rep = run_workers(tmp_path / "three", TF_CONFIG_WORKER,
                          args=[json.dumps(cluster), json.dumps(tasks)])
  assert "names 3 workers" in rep[0][0]["error"] and "MPI started 2" in rep[0][0]["error"]


def test_collective_timeout_from_communication_options(tmp_path):
  done, rep = run_workers(tmp_path, """
    import time
    import tensorlet as tf
    options = tf.distribute.experimental.CommunicationOptions(timeout_seconds=2)
    strategy = tf.distribute.MultiWorkerMirroredStrategy(communication_options=options)

    @tf.function
    def step():  # the collective inside a graph, as in a training step
      return strategy.reduce("SUM", strategy.run(lambda: tf.constant(1.0)), axis=None)

    step()
    if strategy.cluster_resolver.task_id == 1:
      time.sleep(100)  # never joins the next reduction
    t = time.monotonic()
    try:
      step()
    except tf.errors.DeadlineExceededError as e:
      report([str(e), time.monotonic() - t])
  """, timeout=60)
  assert done.returncode != 0
  message, waited = rep[0][0]
  assert "timed out" in message and 1.9 < waited < 10


def test_without_a_launcher_it_is_one_local_worker(monkeypatch):
  monkeypatch.delenv("TF_CONFIG", raising=False)
  for rank, size in tf.distribute.cluster_resolver._LAUNCHER_VARS:
    monkeypatch.delenv(rank, raising=False)
    monkeypatch.delenv(size, raising=False)
  strategy = tf.distribute.MultiWorkerMirroredStrategy()
  assert strategy.num_replicas_in_sync == 1
  assert isinstance(strategy.cluster_resolver,
                    tf.distribute.cluster_resolver.TFConfigClusterResolver)
  assert not strategy.cluster_resolver.cluster_spec()
  assert strategy.extended.should_checkpoint
  with strategy.scope():
    v = tf.Variable(2.0)
  assert float(strategy.reduce("SUM", strategy.run(lambda: v * 3.0), axis=None)) == 6.0
  assert tf.distribute.experimental.MultiWorkerMirroredStrategy is not None


def test_communication_options():
  o = tf.distribute.experimental.CommunicationOptions(timeout_seconds=5)
  assert o.timeout_seconds == 5
  with pytest.raises(ValueError, match="communication_options"):
    mwms.MultiWorkerMirroredStrategy(communication_options={"timeout_seconds": 1})
  with pytest.raises(ValueError, match="cluster_resolver"):
    mwms.MultiWorkerMirroredStrategy(cluster_resolver="worker")
  s = tf.distribute.experimental.MultiWorkerMirroredStrategy(
      tf.distribute.experimental.CollectiveCommunication.RING)
  assert s.num_replicas_in_sync >= 1
