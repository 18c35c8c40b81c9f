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
from tensorlet.distribute import cluster_resolver as cr
from tensorlet.distribute.collectives import LocalCollectives
from tensorlet.distribute.cross_device_ops import (CommunicationImplementation,
                                                   CommunicationOptions)
from tensorlet.distribute.mirrored_strategy import MirroredStrategy


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
    if self.extended.collectives.size > 1:
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
