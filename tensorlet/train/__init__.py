"""tf.train: object-based checkpoints (Checkpoint, CheckpointManager, latest_checkpoint).

Checkpoints are `<prefix>.index` (JSON object graph) plus
`<prefix>.data-00000-of-00001` (.npz); no pickle is written or read.
"""
from tensorlet.train import checkpoint_hooks  # noqa: F401
from tensorlet.train.checkpoint import (Checkpoint, CheckpointOptions, CheckpointReader,
                                        list_variables, load_checkpoint, load_variable)
from tensorlet.train.checkpoint_management import (CheckpointManager, CheckpointState,
                                                   get_checkpoint_state, latest_checkpoint)

__all__ = ["Checkpoint", "CheckpointManager", "CheckpointOptions", "CheckpointReader",
           "CheckpointState", "get_checkpoint_state", "latest_checkpoint", "list_variables",
           "load_checkpoint", "load_variable"]


_PROTOS = ("Example", "SequenceExample", "Features", "Feature", "BytesList", "FloatList",
           "Int64List", "FeatureList", "FeatureLists")


def __getattr__(name):
  # NOTE: the Example protos need protobuf; built on first use, not at import.
  if name in _PROTOS:
    from tensorlet.formats import protos
    return protos.messages()[name]
  if name == "ClusterSpec":
    from tensorlet.distribute.cluster_resolver import ClusterSpec
    return ClusterSpec
  from tensorlet._unsupported import missing
  raise missing("tf.train", name, __name__)
