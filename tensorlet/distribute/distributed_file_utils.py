"""Where a worker writes checkpoints and logs: the chief writes to the path asked for;
other workers write the same files (so every worker makes the same collective calls
while saving) into a temporary `workertemp_<rank>` directory that is then removed.

The worker is known from the strategy given, else the strategy in scope, else the last
multi-worker strategy made in this process (a process is one worker), so a
CheckpointManager saved outside the scope still writes only on the chief."""
import os
import shutil

from tensorlet.distribute import _state
from tensorlet.distribute.distribute_lib import get_strategy, has_strategy

__all__ = ["is_chief", "write_dirpath", "write_filepath", "remove_temp_dirpath"]


def _group(strategy):
  if strategy is None and has_strategy():
    strategy = get_strategy()
  if strategy is not None:
    c = strategy.extended._collectives
    if c.size > 1 or _state.worker_group is None:
      return c
  return _state.worker_group


def is_chief(strategy=None):
  group = _group(strategy)
  return group is None or group.is_chief


def write_dirpath(dirpath, strategy=None):
  group = _group(strategy)
  if group is None or group.is_chief:
    return dirpath
  return os.path.join(dirpath, f"workertemp_{group.rank}")


def write_filepath(filepath, strategy=None):
  dirpath, base = os.path.split(filepath)
  return os.path.join(write_dirpath(dirpath, strategy), base)


def remove_temp_dirpath(dirpath, strategy=None):
  """Removes a non-chief worker's temporary directory (a no-op on the chief)."""
  if not is_chief(strategy):
    shutil.rmtree(write_dirpath(dirpath, strategy), ignore_errors=True)
