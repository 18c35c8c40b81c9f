"""Where a worker writes checkpoints and logs: the chief writes to the path asked for;
other workers write the same files (so every worker makes the same collective calls
while saving) into a temporary `workertemp_<rank>` directory that is then removed."""
import os
import shutil

from tensorlet.distribute.distribute_lib import get_strategy

__all__ = ["is_chief", "write_dirpath", "write_filepath", "remove_temp_dirpath"]


def is_chief(strategy=None):
  strategy = strategy if strategy is not None else get_strategy()
  return strategy.extended.should_checkpoint


def write_dirpath(dirpath, strategy=None):
  strategy = strategy if strategy is not None else get_strategy()
  if strategy.extended.should_checkpoint:
    return dirpath
  return os.path.join(dirpath, f"workertemp_{strategy.extended._collectives.rank}")


def write_filepath(filepath, strategy=None):
  dirpath, base = os.path.split(filepath)
  return os.path.join(write_dirpath(dirpath, strategy), base)


def remove_temp_dirpath(dirpath, strategy=None):
  """Removes a non-chief worker's temporary directory (a no-op on the chief)."""
  strategy = strategy if strategy is not None else get_strategy()
  if not strategy.extended.should_checkpoint:
    shutil.rmtree(write_dirpath(dirpath, strategy), ignore_errors=True)
