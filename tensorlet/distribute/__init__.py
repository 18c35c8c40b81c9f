"""tf.distribute: distribution strategies over replicas and worker processes.

MirroredStrategy runs replicas over the logical devices of this process (virtual CPUs);
its `collectives=` hook (collectives.py) extends it across worker processes.
"""
import importlib as _importlib

from tensorlet import _unsupported
from tensorlet.distribute.collectives import Collectives, LocalCollectives  # noqa: F401
from tensorlet.distribute.cross_device_ops import (  # noqa: F401
    CrossDeviceOps, HierarchicalCopyAllReduce, NcclAllReduce, ReductionToOneDevice)
from tensorlet.distribute.distribute_lib import (  # noqa: F401
    ReplicaContext, Strategy, StrategyExtended, experimental_set_strategy, get_replica_context,
    get_strategy, has_strategy, in_cross_replica_context)
from tensorlet.distribute.input_lib import (  # noqa: F401
    DistributedDataset, DistributedIterator, InputContext, InputOptions, InputReplicationMode,
    RunOptions)
from tensorlet.distribute.mirrored_strategy import MirroredStrategy, OneDeviceStrategy  # noqa
from tensorlet.distribute.reduce_util import ReduceOp  # noqa: F401
from tensorlet.distribute.values import DistributedValues  # noqa: F401
from tensorlet.distribute import experimental  # noqa: F401
from tensorlet.distribute import distributed_file_utils  # noqa: F401 - callbacks look it up

# Names other modules provide once they exist (multi-worker training on MPI).
_LAZY_ATTRS = {
    "MultiWorkerMirroredStrategy": ("tensorlet.distribute.multi_worker_mirrored_strategy",
                                    "MultiWorkerMirroredStrategy"),
    "cluster_resolver": ("tensorlet.distribute.cluster_resolver", None),
}

_missing = _unsupported.getattr_for("tf.distribute", __name__)


def __getattr__(name):
  target = _LAZY_ATTRS.get(name)
  if target is not None:
    try:
      m = _importlib.import_module(target[0])
    except ModuleNotFoundError as e:
      if e.name != target[0]:
        raise
      return _missing(name)
    return m if target[1] is None else getattr(m, target[1])
  return _missing(name)
