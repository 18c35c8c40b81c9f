"""ClusterSpec, TFConfigClusterResolver and SimpleClusterResolver as TF's (values checked
against TF 2.21), the TF_CONFIG <-> MPI consistency check, launcher detection, and
MPIClusterResolver under `mpiexec -n 2`."""
import json

import pytest

from tensorlet import errors
from tensorlet.distribute import cluster_resolver as cr
from mpi_launch import check_ok, run_workers


def test_cluster_spec():
  import tensorlet as tf
  assert tf.train.ClusterSpec is cr.ClusterSpec
  assert tf.distribute.cluster_resolver.TFConfigClusterResolver is cr.TFConfigClusterResolver
  cs = cr.ClusterSpec({"ps": {0: "a:1", 2: "c:3"}, "worker": ["w:1"]})
  assert repr(cs) == "ClusterSpec({'ps': {0: 'a:1', 2: 'c:3'}, 'worker': ['w:1']})"
  assert cs.as_dict() == {"ps": {0: "a:1", 2: "c:3"}, "worker": ["w:1"]}
  assert cs.jobs == ["ps", "worker"]
  assert cs.task_indices("ps") == [0, 2] and cs.num_tasks("ps") == 2
  assert cs.job_tasks("ps") == ["a:1", None, "c:3"]
  assert cs.task_address("worker", 0) == "w:1"
  assert cs == cr.ClusterSpec(cs) and bool(cs) and not cr.ClusterSpec({})
  with pytest.raises(ValueError, match="No task with index 1 in job 'ps'"):
    cs.task_address("ps", 1)
  with pytest.raises(ValueError, match="No such job in cluster: 'x'"):
    cs.num_tasks("x")
  with pytest.raises(TypeError, match="must be a list or a dictionary"):
    cr.ClusterSpec({"w": "abc"})
  with pytest.raises(TypeError, match="`cluster` must be a dictionary"):
    cr.ClusterSpec(5)
  with pytest.raises(TypeError, match="Job name 1 must be bytes or unicode"):
    cr.ClusterSpec({1: ["a"]})
  with pytest.raises(ValueError):
    cr.ClusterSpec({"w": {"a": "b"}})


def test_tf_config_resolver(monkeypatch):
  monkeypatch.setenv("TF_CONFIG", json.dumps({
      "cluster": {"worker": ["127.0.0.1:2000", "127.0.0.1:2001"], "chief": ["host:1"]},
      "task": {"type": "worker", "index": 1}, "environment": "cloud"}))
  r = cr.TFConfigClusterResolver()
  assert r.cluster_spec().as_dict() == {"worker": ["127.0.0.1:2000", "127.0.0.1:2001"],
                                        "chief": ["host:1"]}
  assert (r.task_type, r.task_id, r.rpc_layer, r.environment) == ("worker", 1, None, "cloud")
  assert r.master() == "127.0.0.1:2001"
  assert r.master("worker", 0) == "127.0.0.1:2000"
  assert r.master("worker", 0, rpc_layer="grpc") == "grpc://127.0.0.1:2000"
  assert r.num_accelerators() == {}
  assert cr.worker_index(r) == (2, 3)  # the chief is worker 0
  r.task_type, r.task_id = "chief", 0  # explicit values win over TF_CONFIG
  assert cr.worker_index(r) == (0, 3) and r.master() == "host:1"
  # TF_CONFIG is read on each call
  monkeypatch.setenv("TF_CONFIG", "{}")
  r = cr.TFConfigClusterResolver()
  assert r.cluster_spec().as_dict() == {} and r.task_type is None and r.task_id is None
  assert r.master() == ""
  monkeypatch.delenv("TF_CONFIG")
  r = cr.TFConfigClusterResolver(task_type="worker", task_id=3)
  assert (r.task_type, r.task_id) == ("worker", 3) and not r.cluster_spec()
  monkeypatch.setenv("TF_CONFIG", "{bad")
  with pytest.raises(json.JSONDecodeError):
    cr.TFConfigClusterResolver().task_type
  monkeypatch.setenv("TF_CONFIG", json.dumps({"cluster": {"worker": ["a:1"]},
                                              "task": {"type": "worker", "index": 3}}))
  r = cr.TFConfigClusterResolver()
  assert r.master() == ""
  with pytest.raises(ValueError, match="The `task_id` 3 exceeds the maximum id of worker"):
    cr.worker_index(r)


def test_simple_resolver_and_bad_tasks():
  spec = cr.ClusterSpec({"worker": ["a:1", "b:2"]})
  s = cr.SimpleClusterResolver(spec, task_type="worker", task_id=0)
  assert s.cluster_spec() is spec and s.master() == "" and s.num_accelerators() == {}
  assert s.master("worker", 1, rpc_layer="grpc") == "grpc://b:2"
  with pytest.raises(TypeError, match="ClusterSpec"):
    cr.SimpleClusterResolver({"worker": ["a:1"]})
  ps = cr.SimpleClusterResolver(cr.ClusterSpec({"ps": ["a:1"]}), task_type="ps", task_id=0)
  with pytest.raises(ValueError, match="Unrecognized task_type: 'ps'"):
    cr.worker_index(ps)
  two = cr.SimpleClusterResolver(cr.ClusterSpec({"chief": ["a:1", "b:1"]}),
                                 task_type="chief", task_id=0)
  with pytest.raises(ValueError, match="at most one 'chief'"):
    cr.worker_index(two)


def test_tf_config_must_match_mpi():
  spec = cr.ClusterSpec({"chief": ["a:1"], "worker": ["b:1"]})
  cr.check_matches_mpi(cr.SimpleClusterResolver(spec, task_type="worker", task_id=0), 1, 2)
  with pytest.raises(errors.InvalidArgumentError, match="MPI started 3 processes"):
    cr.check_matches_mpi(cr.SimpleClusterResolver(spec, task_type="chief", task_id=0), 0, 3)
  with pytest.raises(errors.InvalidArgumentError, match="this is rank 0"):
    cr.check_matches_mpi(cr.SimpleClusterResolver(spec, task_type="worker", task_id=0), 0, 2)


def test_resolvers_not_implemented_say_what_to_use():
  import tensorlet as tf
  from tensorlet._unsupported import NotImplementedInTensorlet
  for name in ("SlurmClusterResolver", "KubernetesClusterResolver", "TPUClusterResolver"):
    with pytest.raises(NotImplementedInTensorlet, match="mpiexec"):
      getattr(tf.distribute.cluster_resolver, name)


def test_launcher_detection(monkeypatch):
  for rank, size in cr._LAUNCHER_VARS:
    monkeypatch.delenv(rank, raising=False)
    monkeypatch.delenv(size, raising=False)
  assert cr.launched_by_mpi() is None
  monkeypatch.setenv("OMPI_COMM_WORLD_RANK", "3")
  monkeypatch.setenv("OMPI_COMM_WORLD_SIZE", "4")
  assert cr.launched_by_mpi() == (3, 4)
  monkeypatch.setenv("PMI_RANK", "1")
  monkeypatch.setenv("PMI_SIZE", "2")
  assert cr.launched_by_mpi() == (1, 2)


def test_mpi_cluster_resolver(tmp_path):
  done, rep = run_workers(tmp_path, """
    import socket
    from tensorlet.distribute import cluster_resolver as cr
    r = cr.MPIClusterResolver()
    report([cr.launched_by_mpi(), r.task_type, r.task_id, r.cluster_spec().as_dict(),
            r.master(), r.master("worker", 1), r.master("ps", 0), cr.worker_index(r),
            socket.gethostname()])
  """)
  check_ok(done)
  for rank in range(2):
    launched, task_type, task_id, spec, master, master1, master_ps, index, host = rep[rank][0]
    assert launched == [rank, 2]
    assert (task_type, task_id, index) == ("worker", rank, [rank, 2])
    assert spec == {"worker": [host, host]} and master == host and master1 == host
    assert master_ps == ""
