"""tf.data.Options: pipeline options, set with `Dataset.with_options` and read
back merged with `Dataset.options()`.

tensorlet keeps and merges them as TensorFlow does (a later with_options
wins per option; unset options read as None). They do not change how a
pipeline runs: order is set by each transformation's own `deterministic`
argument, and there are no graph rewrites or thread pools to tune.
"""
import enum

__all__ = ["Options", "merge_options", "AutoShardPolicy"]


class AutoShardPolicy(enum.IntEnum):
  """How tf.distribute shards a dataset across workers
  (`options.experimental_distribute.auto_shard_policy`; unset means AUTO)."""
  OFF = -1   # every worker reads the whole dataset
  AUTO = 0   # by files if the pipeline reads files, else by data
  FILE = 1   # each worker reads its share of the input files
  DATA = 2   # each worker keeps its share of every global batch
  HINT = 3   # tensorlet has no SHARD_HINT placeholders: as OFF


class _OptionsGroup:
  """A fixed set of option names; unknown names raise AttributeError."""

  _NAMES = ()
  _GROUPS = {}

  def __init__(self):
    for n in self._NAMES:
      object.__setattr__(self, n, None)
    for n, cls in self._GROUPS.items():
      object.__setattr__(self, n, cls())

  def __setattr__(self, name, value):
    if name not in self._NAMES:
      raise AttributeError(f"Cannot set the property {name} on {type(self).__name__}.")
    object.__setattr__(self, name, value)

  def _merge_from(self, other):
    for n in self._NAMES:
      v = getattr(other, n)
      if v is not None:
        object.__setattr__(self, n, v)
    for n in self._GROUPS:
      getattr(self, n)._merge_from(getattr(other, n))

  def __eq__(self, other):
    return type(other) is type(self) and all(
        getattr(self, n) == getattr(other, n) for n in (*self._NAMES, *self._GROUPS))

  def __repr__(self):
    return f"{type(self).__name__}()"


class OptimizationOptions(_OptionsGroup):
  _NAMES = ("apply_default_optimizations", "filter_fusion", "filter_parallelization",
            "inject_prefetch", "map_and_batch_fusion", "map_and_filter_fusion", "map_fusion",
            "map_parallelization", "noop_elimination", "parallel_batch", "seq_interleave_prefetch",
            "shuffle_and_repeat_fusion", "warm_start")


class ThreadingOptions(_OptionsGroup):
  _NAMES = ("max_intra_op_parallelism", "private_threadpool_size")


class AutotuneOptions(_OptionsGroup):
  _NAMES = ("autotune_algorithm", "cpu_budget", "enabled", "initial_parallelism",
            "min_parallelism", "ram_budget")


class DistributeOptions(_OptionsGroup):
  _NAMES = ("auto_shard_policy", "num_devices")


class Options(_OptionsGroup):
  """Options of an input pipeline (tf.data.Options)."""

  _NAMES = ("deterministic", "experimental_deterministic", "experimental_external_state_policy",
            "experimental_slack", "experimental_symbolic_checkpoint", "experimental_warm_start",
            "dataset_name", "framework_type")
  _GROUPS = {"experimental_optimization": OptimizationOptions,
             "threading": ThreadingOptions, "autotune": AutotuneOptions,
             "experimental_distribute": DistributeOptions}

  def merge(self, options):
    """A new Options: these, overridden by the options set in `options`."""
    return merge_options(self, options)


def merge_options(*options_list):
  out = Options()
  for o in options_list:
    if not isinstance(o, Options):
      raise TypeError(f"Expected tf.data.Options, got {o!r}")
    out._merge_from(o)
  return out
