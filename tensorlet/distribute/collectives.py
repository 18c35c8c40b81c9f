"""Cross-worker collectives: the one seam between tf.distribute and the process transport.

A strategy reduces values in two stages: over the replicas of this process (in NumPy,
here), then across worker processes through a `Collectives` object, one per process.
`LocalCollectives` is the single-process case (size 1, rank 0, every call an identity);
`tensorlet.distribute.mpi_collectives.MPICollectives` implements the same interface on
MPI (mpi4py).

Interface (every worker calls each collective in the same order, as MPI requires):

  rank: int, size: int, is_chief (rank == 0)
  all_reduce(arrays, op)         list of ndarrays -> list of reduced ndarrays, same shapes and
                                 dtypes; op is "sum", "mean", "max" or "min". Callers pass many
                                 arrays at once (all gradients of a step); implementations fuse
                                 them, one buffer per dtype (`pack_by_dtype` / `unpack`).
  broadcast(arrays, root=0)      list of ndarrays -> the root's values on every worker.
  all_gather(array, axis=0)      one ndarray per worker, concatenated along axis in rank order;
                                 the size along axis may differ between workers.
  barrier()                      returns once every worker has called it.
  close()                        releases the transport; idempotent.

Hook for multi-worker strategies: `MirroredStrategy(devices=None, cross_device_ops=None, *,
collectives=None)` passes `collectives` to its extended object
(`mirrored_strategy.MirroredExtended(strategy, devices, collectives=None)`; None means
`LocalCollectives()`; `strategy.extended.collectives` returns it). The extended object
reduces over its local replicas and then with `collectives`; it broadcasts initial
variable values from the chief, shards datasets by `collectives.rank` / `collectives.size`
and lets only the chief write checkpoints and logs (distributed_file_utils.py).
`num_replicas_in_sync` is local replicas x `collectives.size`. A MultiWorkerMirroredStrategy
is therefore

    class MultiWorkerMirroredStrategy(MirroredStrategy):
      def __init__(self, communication_options=None, cluster_resolver=None):
        super().__init__(collectives=MPICollectives(...))
"""
import numpy as np

REDUCE_OPS = ("sum", "mean", "max", "min")


def check_op(op):
  """The reduction name, lower-cased; ValueError for anything else."""
  name = str(getattr(op, "value", op)).lower()
  if name not in REDUCE_OPS:
    raise ValueError(f"all_reduce: op must be one of {REDUCE_OPS}, got {op!r}")
  return name


def pack_by_dtype(arrays):
  """Fuse arrays into one flat buffer per dtype: (buffers {dtype: 1-D ndarray}, layout).

  `unpack(buffers, layout)` splits (reduced) buffers back into arrays of the original
  shapes, in the original order; few large messages instead of one per gradient."""
  arrays = [np.asarray(a) for a in arrays]
  groups, sizes, layout = {}, {}, []
  for a in arrays:
    key = a.dtype.str
    offset = sizes.get(key, 0)
    groups.setdefault(key, []).append(a.reshape(-1))
    sizes[key] = offset + a.size
    layout.append((key, offset, a.shape, a.dtype))
  buffers = {k: (np.concatenate(v) if len(v) > 1 else v[0].copy()) for k, v in groups.items()}
  return buffers, layout


def unpack(buffers, layout):
  """Inverse of `pack_by_dtype` (arrays are views of the buffers)."""
  out = []
  for key, offset, shape, dtype in layout:
    n = int(np.prod(shape, dtype=np.int64))
    out.append(buffers[key][offset:offset + n].reshape(shape).astype(dtype, copy=False))
  return out


class Collectives:
  """One worker's view of the group of worker processes (see the module docstring)."""

  rank = 0
  size = 1

  @property
  def is_chief(self):
    return self.rank == 0

  def all_reduce(self, arrays, op="sum"):
    raise NotImplementedError

  def broadcast(self, arrays, root=0):
    raise NotImplementedError

  def all_gather(self, array, axis=0):
    raise NotImplementedError

  def barrier(self):
    raise NotImplementedError

  def close(self):
    pass

  def __repr__(self):
    return f"{type(self).__name__}(rank={self.rank}, size={self.size})"


class LocalCollectives(Collectives):
  """The group of one worker: every collective returns (copies of) its input."""

  rank = 0
  size = 1

  def all_reduce(self, arrays, op="sum"):
    check_op(op)
    return [np.array(a, copy=True) for a in arrays]

  def broadcast(self, arrays, root=0):
    if root != 0:
      raise ValueError(f"broadcast: root {root} is out of range for 1 worker")
    return [np.array(a, copy=True) for a in arrays]

  def all_gather(self, array, axis=0):
    return np.array(array, copy=True)

  def barrier(self):
    pass
