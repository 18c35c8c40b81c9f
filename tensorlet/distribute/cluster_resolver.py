"""tf.distribute.cluster_resolver and tf.train.ClusterSpec: who the workers are.

`TFConfigClusterResolver` reads the `TF_CONFIG` environment variable as TF does.
`MPIClusterResolver` (tensorlet's own) discovers the workers that `mpiexec -n N`
started: one "worker" task per MPI process, task_id = MPI rank. tensorlet moves
data between workers with MPI collectives, never over the addresses in a cluster
spec: under `TF_CONFIG` the processes must still come from an MPI launcher, and
the spec is checked against MPI (same number of workers, task index = rank).
"""
import json
import os
import socket

from tensorlet import _unsupported, errors


class ClusterSpec:
  """Job name -> task index -> network address, as `tf.train.ClusterSpec`."""

  def __init__(self, cluster):
    if isinstance(cluster, ClusterSpec):
      self._jobs = {j: dict(t) for j, t in cluster._jobs.items()}
      self._dense = dict(cluster._dense)
      return
    if not isinstance(cluster, dict):
      raise TypeError("`cluster` must be a dictionary mapping one or more job names to "
                      "lists of network addresses")
    self._jobs, self._dense = {}, {}
    for job, tasks in cluster.items():
      if not isinstance(job, (str, bytes)):
        raise TypeError(f"Job name {job!r} must be bytes or unicode")
      job = job.decode() if isinstance(job, bytes) else job
      if isinstance(tasks, (list, tuple)):
        self._jobs[job] = {i: _addr(a) for i, a in enumerate(tasks)}
        self._dense[job] = True
      elif isinstance(tasks, dict):
        self._jobs[job] = {int(i): _addr(a) for i, a in tasks.items()}
        self._dense[job] = False
      else:
        raise TypeError(f"The tasks for job {job!r} must be a list or a dictionary from "
                        "integers to strings.")

  @property
  def jobs(self):
    return list(self._jobs)

  def _tasks(self, job):
    if job not in self._jobs:
      raise ValueError(f"No such job in cluster: {job!r}")
    return self._jobs[job]

  def num_tasks(self, job_name):
    return len(self._tasks(job_name))

  def task_indices(self, job_name):
    return sorted(self._tasks(job_name))

  def task_address(self, job_name, task_index):
    tasks = self._tasks(job_name)
    if task_index not in tasks:
      raise ValueError(f"No task with index {task_index} in job {job_name!r}")
    return tasks[task_index]

  def job_tasks(self, job_name):
    tasks = self._tasks(job_name)
    return [tasks.get(i) for i in range(max(tasks) + 1)] if tasks else []

  def as_dict(self):
    return {j: ([t[i] for i in sorted(t)] if self._dense[j] else dict(t))
            for j, t in self._jobs.items()}

  def __bool__(self):
    return bool(self._jobs)

  def __eq__(self, other):
    return isinstance(other, ClusterSpec) and self.as_dict() == other.as_dict()

  def __ne__(self, other):
    return not self == other

  __hash__ = None

  def __repr__(self):
    return f"ClusterSpec({dict(sorted(self.as_dict().items()))!r})"


def _addr(a):
  if isinstance(a, bytes):
    return a.decode()
  if not isinstance(a, str):
    raise TypeError(f"Task address {a!r} must be bytes or unicode")
  return a


class ClusterResolver:
  """Base of the cluster resolvers: a cluster spec plus this process's task."""

  task_type = None
  task_id = None
  rpc_layer = None

  def cluster_spec(self):
    raise NotImplementedError(f"{type(self).__name__}.cluster_spec")

  def master(self, task_type=None, task_id=None, rpc_layer=None):
    raise NotImplementedError(f"{type(self).__name__}.master")

  def num_accelerators(self, task_type=None, task_id=None, config_proto=None):
    return {}

  @property
  def environment(self):
    return ""


class SimpleClusterResolver(ClusterResolver):
  """A resolver holding a given cluster spec and task."""

  def __init__(self, cluster_spec, master="", task_type=None, task_id=None,
               environment="", num_accelerators=None, rpc_layer=None):
    if not isinstance(cluster_spec, ClusterSpec):
      raise TypeError("cluster_spec must be a `tf.train.ClusterSpec`.")
    self._cluster_spec = cluster_spec
    self._master = master
    self.task_type = task_type
    self.task_id = task_id
    self._environment = environment
    self._num_accelerators = num_accelerators or {}
    self.rpc_layer = rpc_layer

  def cluster_spec(self):
    return self._cluster_spec

  def master(self, task_type=None, task_id=None, rpc_layer=None):
    if task_type is not None and task_id is not None:
      return _with_rpc(self._cluster_spec.task_address(task_type, task_id),
                       rpc_layer or self.rpc_layer)
    return self._master

  def num_accelerators(self, task_type=None, task_id=None, config_proto=None):
    return dict(self._num_accelerators)

  @property
  def environment(self):
    return self._environment


def _with_rpc(address, rpc_layer):
  return f"{rpc_layer}://{address}" if rpc_layer else address


def _load_tf_config():
  text = os.environ.get("TF_CONFIG", "")
  return json.loads(text) if text else {}


def _from_tf_config(attr, path, convert):
  """A property: the value given to the constructor (or set), else TF_CONFIG's entry."""

  def get(self):
    value = getattr(self, attr)
    if value is None:
      value = _load_tf_config()
      for key in path:
        value = value.get(key) if isinstance(value, dict) else None
      value = None if value is None else convert(value)
    return value

  def set(self, value):
    setattr(self, attr, value)

  return property(get, set)


class TFConfigClusterResolver(ClusterResolver):
  """Cluster and task from the `TF_CONFIG` environment variable (JSON), read on each call:
  {"cluster": {"worker": ["host:port", ...]}, "task": {"type": "worker", "index": 0}}."""

  def __init__(self, task_type=None, task_id=None, rpc_layer=None, environment=None):
    self._task_type = task_type
    self._task_id = task_id
    self._rpc_layer = rpc_layer
    self._environment = environment

  task_type = _from_tf_config("_task_type", ("task", "type"), str)
  task_id = _from_tf_config("_task_id", ("task", "index"), int)
  rpc_layer = _from_tf_config("_rpc_layer", ("rpc_layer",), str)
  environment = _from_tf_config("_environment", ("environment",), str)

  def cluster_spec(self):
    return ClusterSpec(_load_tf_config().get("cluster", {}))

  def master(self, task_type=None, task_id=None, rpc_layer=None):
    task_type = self.task_type if task_type is None else task_type
    task_id = self.task_id if task_id is None else task_id
    if task_type is None or task_id is None:
      return ""
    spec = self.cluster_spec()
    if task_type not in spec.jobs or task_id not in spec.task_indices(task_type):
      return ""
    return _with_rpc(spec.task_address(task_type, task_id), rpc_layer or self.rpc_layer)

  def num_accelerators(self, task_type=None, task_id=None, config_proto=None):
    return {}


# Environment variables by which MPI launchers tell a process its rank and world size.
_LAUNCHER_VARS = (("PMI_RANK", "PMI_SIZE"),                         # MPICH / Intel MPI hydra
                  ("OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"),  # Open MPI
                  ("PMIX_RANK", "PMIX_SIZE"),
                  ("MV2_COMM_WORLD_RANK", "MV2_COMM_WORLD_SIZE"))    # MVAPICH


def launched_by_mpi():
  """(rank, size) when an MPI launcher started this process, else None (no MPI import)."""
  for rank, size in _LAUNCHER_VARS:
    if rank in os.environ and size in os.environ:
      try:
        return int(os.environ[rank]), int(os.environ[size])
      except ValueError:
        continue
  return None


class MPIClusterResolver(ClusterResolver):
  """The workers of an MPI job: one "worker" task per process, task_id = MPI rank.

  The cluster spec lists each worker's host name (MPI needs no ports)."""

  task_type = "worker"

  def __init__(self, comm=None):
    from tensorlet.distribute.mpi_collectives import _mpi
    self._comm = _mpi().COMM_WORLD if comm is None else comm
    self.task_id = self._comm.Get_rank()
    self.num_workers = self._comm.Get_size()
    self._hosts = None
    self.rpc_layer = None

  @property
  def hosts(self):
    """Host name of each worker, in rank order (one collective on first use)."""
    if self._hosts is None:
      import numpy as np
      from tensorlet.distribute.mpi_collectives import MPICollectives
      c = MPICollectives(self._comm)
      try:
        name = socket.gethostname().encode()[:255].ljust(256, b"\0")
        table = c.all_gather(np.frombuffer(name, np.uint8)[None])
      finally:
        c.close()
      self._hosts = [bytes(row).rstrip(b"\0").decode(errors="replace") for row in table]
    return self._hosts

  def cluster_spec(self):
    return ClusterSpec({"worker": list(self.hosts)})

  def master(self, task_type=None, task_id=None, rpc_layer=None):
    task_id = self.task_id if task_id is None else task_id
    if (task_type or "worker") != "worker" or not 0 <= task_id < self.num_workers:
      return ""
    return _with_rpc(self.hosts[task_id], rpc_layer)


def worker_index(resolver):
  """(index, count) of this process among the cluster's workers, TF's numbering: the
  chief (if any) is 0 and the "worker" tasks follow. ValueError for a bad task."""
  spec = resolver.cluster_spec()
  task_type, task_id = resolver.task_type, resolver.task_id
  jobs = spec.as_dict()
  n_chief = len(jobs.get("chief", []))
  n_worker = len(jobs.get("worker", []))
  if task_type not in ("chief", "worker"):
    raise ValueError(f"Unrecognized task_type: {task_type!r}, valid task types are: "
                     "\"chief\", \"worker\" for MultiWorkerMirroredStrategy")
  if n_chief > 1:
    raise ValueError("There must be at most one 'chief' job.")
  count = n_chief + n_worker
  limit = n_chief if task_type == "chief" else n_worker
  if task_id is None or not 0 <= task_id < limit:
    raise ValueError(f"The `task_id` {task_id} exceeds the maximum id of {task_type}.")
  return (task_id if task_type == "chief" else n_chief + task_id), count


def check_matches_mpi(resolver, rank, size):
  """Raises InvalidArgumentError unless the resolver's task is MPI process `rank` of `size`."""
  index, count = worker_index(resolver)
  if count != size or index != rank:
    raise errors.InvalidArgumentError(
        None, None, f"TF_CONFIG names {count} workers and this task "
        f"({resolver.task_type}, {resolver.task_id}) as worker {index}, but MPI started "
        f"{size} processes and this is rank {rank}. Start one process per chief/worker "
        f"task with `mpiexec -n {count}` and give rank r the task of worker index r "
        f"(chief first).")


__getattr__ = _unsupported.getattr_for("tf.distribute.cluster_resolver", __name__)
