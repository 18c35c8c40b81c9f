"""tf.distribute.MultiWorkerMirroredStrategy: MirroredStrategy across worker processes.

Each worker process holds a full copy of the variables (one replica per worker, as
TF's on CPU). Values are reduced over the worker's local replicas and then across
workers with MPI collectives (`MPICollectives`), so gradients, metrics and
`strategy.reduce` results are identical on every worker.

The workers are found by the cluster resolver:
- `mpiexec -n N python train.py`: `MPIClusterResolver` (one worker per MPI process),
- `TF_CONFIG` set: `TFConfigClusterResolver`; the processes must still be started by
  an MPI launcher, one per chief/worker task, rank r = TF's worker index r,
- neither: one local worker (no MPI at all), as TF without a cluster.
"""
import enum

from tensorlet.distribute import cluster_resolver as cr
from tensorlet.distribute.collectives import LocalCollectives
from tensorlet.distribute.mirrored_strategy import MirroredStrategy


class CommunicationImplementation(enum.Enum):
  """Which collective implementation to use; tensorlet always uses MPI's."""
  AUTO = "AUTO"
  RING = "RING"
  NCCL = "NCCL"


class CommunicationOptions:
  """Options of cross-worker collectives, as `tf.distribute.experimental.CommunicationOptions`.

  `timeout_seconds`: how long a collective may wait for the other workers before it
  raises DeadlineExceededError (None: $TENSORLET_COLLECTIVE_TIMEOUT, else 600 s).
  `bytes_per_pack` (0: one buffer per dtype) and `implementation` are accepted for
  TF compatibility; MPI chooses its own algorithm."""

  def __init__(self, bytes_per_pack=0, timeout_seconds=None,
               implementation=CommunicationImplementation.AUTO):
    if isinstance(bytes_per_pack, bool) or not isinstance(bytes_per_pack, int) or \
        bytes_per_pack < 0:
      raise ValueError(f"bytes_per_pack must be a non-negative integer, got {bytes_per_pack!r}")
    if timeout_seconds is not None and (isinstance(timeout_seconds, bool) or
                                        not isinstance(timeout_seconds, (int, float)) or
                                        timeout_seconds <= 0):
      raise ValueError(f"timeout_seconds must be a positive number or None, got "
                       f"{timeout_seconds!r}")
    if not isinstance(implementation, CommunicationImplementation):
      raise ValueError(f"implementation should be a "
                       f"tf.distribute.experimental.CommunicationImplementation, got "
                       f"{implementation!r}")
    self.bytes_per_pack = bytes_per_pack
    self.timeout_seconds = timeout_seconds
    self.implementation = implementation

  def __repr__(self):
    return (f"CommunicationOptions(bytes_per_pack={self.bytes_per_pack}, timeout_seconds="
            f"{self.timeout_seconds}, implementation={self.implementation})")


def default_resolver():
  """TF_CONFIG's cluster if set, else the MPI job that started this process, else none."""
  tf_config = cr.TFConfigClusterResolver()
  if tf_config.cluster_spec():
    return tf_config
  launched = cr.launched_by_mpi()
  if launched is not None and launched[1] > 1:
    return cr.MPIClusterResolver()
  return tf_config


def connect(resolver, options=None):
  """The Collectives for the cluster `resolver` describes (checked against MPI)."""
  if isinstance(resolver, cr.MPIClusterResolver):
    count = resolver.num_workers
  elif not resolver.cluster_spec():
    return LocalCollectives()
  else:
    _, count = cr.worker_index(resolver)
  if count == 1:
    return LocalCollectives()
  from tensorlet.distribute.mpi_collectives import MPICollectives, default_timeout
  timeout = options.timeout_seconds if options and options.timeout_seconds else \
      default_timeout()
  collectives = MPICollectives(timeout=timeout)
  if not isinstance(resolver, cr.MPIClusterResolver):
    try:
      cr.check_matches_mpi(resolver, collectives.rank, collectives.size)
    except Exception:
      collectives.close()
      raise
  return collectives


class MultiWorkerMirroredStrategy(MirroredStrategy):
  """Synchronous data-parallel training over worker processes (see the module doc)."""

  def __init__(self, cluster_resolver=None, communication_options=None):
    if communication_options is None:
      communication_options = CommunicationOptions()
    elif not isinstance(communication_options, CommunicationOptions):
      raise ValueError("communication_options must be a "
                       "tf.distribute.experimental.CommunicationOptions")
    resolver = default_resolver() if cluster_resolver is None else cluster_resolver
    if not isinstance(resolver, cr.ClusterResolver):
      raise ValueError(f"cluster_resolver must be a "
                       f"tf.distribute.cluster_resolver.ClusterResolver, got {resolver!r}")
    collectives = connect(resolver, communication_options)
    self._cluster_resolver = resolver
    self._communication_options = communication_options
    # As TF's on CPU: one replica per worker (virtual CPUs are not split further).
    super().__init__(devices=["/device:CPU:0"], collectives=collectives)

  @property
  def cluster_resolver(self):
    return self._cluster_resolver

  def reduce(self, reduce_op, value, axis=None):
    """As MirroredStrategy.reduce; a plain (non-distributed) value is this worker's one
    replica's value and is reduced across the workers, as TF's collective strategy does."""
    from tensorlet import nest
    from tensorlet.distribute.distributed_variables import MirroredVariable, \
        SyncOnReadVariable
    from tensorlet.distribute.values import DistributedValues, PerReplica
    if self.extended._collectives.size > 1:
      def local(v):
        if isinstance(v, (DistributedValues, MirroredVariable, SyncOnReadVariable)):
          return v
        return PerReplica((v,))
      value = nest.pack_sequence_as(value, [local(v) for v in nest.flatten(value)])
    return super().reduce(reduce_op, value, axis)


class _ExperimentalMultiWorkerMirroredStrategy(MultiWorkerMirroredStrategy):
  """tf.distribute.experimental.MultiWorkerMirroredStrategy (older signature)."""

  def __init__(self, communication=CommunicationImplementation.AUTO, cluster_resolver=None,
               communication_options=None):
    if communication_options is None:
      communication_options = CommunicationOptions(implementation=communication)
    super().__init__(cluster_resolver=cluster_resolver,
                     communication_options=communication_options)
