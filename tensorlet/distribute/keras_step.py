"""Keras' train/test/predict steps under a strategy: each global batch is split across
the replicas in sync (this worker keeps its replicas' pieces), the step runs on every
replica, and the logs are replica 0's (its metric results already cover all replicas);
predictions are joined back in replica order (across workers too)."""
from tensorlet import _nest as nest
from tensorlet.distribute import values as _values
from tensorlet.distribute.input_lib import split_structure


def distributed_step(strategy, step, kind):
  ext = strategy.extended

  def run(batch):
    if not any(isinstance(v, _values.DistributedValues) for v in nest.flatten(batch)):
      batch = split_structure(batch, ext)  # (a distributed dataset's batches are split)
    out = strategy.run(step, args=(batch,))
    if kind == "predict":
      return strategy.gather(out, axis=0)
    return _values.select_replica(0, out)
  run.__name__ = getattr(step, "__name__", f"{kind}_step")
  return run
