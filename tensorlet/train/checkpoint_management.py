"""The `checkpoint` state file of a directory, tf.train.latest_checkpoint and
tf.train.CheckpointManager.

The state file is TensorFlow's CheckpointState in protobuf text format:

    model_checkpoint_path: "ckpt-3"
    all_model_checkpoint_paths: "ckpt-2"
    all_model_checkpoint_paths: "ckpt-3"
    all_model_checkpoint_timestamps: 1700000000.5
    last_preserved_timestamp: 1699999000.25

Paths inside the directory are stored relative to it. The file is replaced
atomically, so a reader sees the old or the new state, never half of one.
"""
import os
import re
import sys
import time
import warnings

import numpy as np

from tensorlet.train import _format
from tensorlet.train.checkpoint import as_path

__all__ = ["CheckpointState", "get_checkpoint_state", "latest_checkpoint",
           "update_checkpoint_state", "CheckpointManager"]

_STATE_FILE = "checkpoint"
_LINE = re.compile(r'^\s*([A-Za-z_]+)\s*:\s*(?:"((?:[^"\\]|\\.)*)"|([-+0-9.eE]+|inf|nan))\s*$')
_ESC = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "'": "'", "\\": "\\"}


class CheckpointState:
  """The parsed `checkpoint` file (the fields of TF's CheckpointState proto)."""

  def __init__(self, model_checkpoint_path="", all_model_checkpoint_paths=(),
               all_model_checkpoint_timestamps=(), last_preserved_timestamp=0.0):
    self.model_checkpoint_path = model_checkpoint_path
    self.all_model_checkpoint_paths = list(all_model_checkpoint_paths)
    self.all_model_checkpoint_timestamps = list(all_model_checkpoint_timestamps)
    self.last_preserved_timestamp = last_preserved_timestamp

  def __repr__(self):
    return _serialize(self).rstrip()


def _quote(s):
  out = []
  for ch in s:
    if ch in '"\\':
      out.append("\\" + ch)
    elif ch == "\n":
      out.append("\\n")
    elif ord(ch) < 32:
      out.append(f"\\{ord(ch):03o}")
    else:
      out.append(ch)
  return '"' + "".join(out) + '"'


def _unquote(s):
  out, i = [], 0
  while i < len(s):
    ch = s[i]
    if ch == "\\" and i + 1 < len(s):
      nxt = s[i + 1]
      if nxt in "01234567":
        digits = re.match(r"[0-7]{1,3}", s[i + 1:]).group(0)
        out.append(chr(int(digits, 8)))
        i += 1 + len(digits)
        continue
      out.append(_ESC.get(nxt, nxt))
      i += 2
      continue
    out.append(ch)
    i += 1
  return "".join(out)


def _serialize(state):
  lines = [f"model_checkpoint_path: {_quote(state.model_checkpoint_path)}"]
  lines += [f"all_model_checkpoint_paths: {_quote(p)}"
            for p in state.all_model_checkpoint_paths]
  lines += [f"all_model_checkpoint_timestamps: {t!r}"
            for t in state.all_model_checkpoint_timestamps]
  if state.last_preserved_timestamp:
    lines.append(f"last_preserved_timestamp: {state.last_preserved_timestamp!r}")
  return "\n".join(lines) + "\n"


def _parse(text):
  state = CheckpointState()
  for line in text.splitlines():
    if not line.strip() or line.lstrip().startswith("#"):
      continue
    m = _LINE.match(line)
    if m is None:
      raise ValueError(f"cannot parse line {line!r}")
    key, s, num = m.groups()
    if key == "model_checkpoint_path" and s is not None:
      state.model_checkpoint_path = _unquote(s)
    elif key == "all_model_checkpoint_paths" and s is not None:
      state.all_model_checkpoint_paths.append(_unquote(s))
    elif key == "all_model_checkpoint_timestamps" and num is not None:
      state.all_model_checkpoint_timestamps.append(float(num))
    elif key == "last_preserved_timestamp" and num is not None:
      state.last_preserved_timestamp = float(num)
    elif key in ("model_checkpoint_path", "all_model_checkpoint_paths",
                 "all_model_checkpoint_timestamps", "last_preserved_timestamp"):
      raise ValueError(f"bad value in line {line!r}")
  return state


def get_checkpoint_state(checkpoint_dir, latest_filename=None):
  """The CheckpointState of `checkpoint_dir` (paths made absolute-or-joined), or None
  if it has no readable `checkpoint` file."""
  checkpoint_dir = as_path(checkpoint_dir, "checkpoint_dir")
  path = os.path.join(checkpoint_dir, latest_filename or _STATE_FILE)
  if not os.path.isfile(path):
    return None
  try:
    with open(path, encoding="utf-8") as f:
      state = _parse(f.read())
  except (OSError, UnicodeDecodeError, ValueError) as e:
    warnings.warn(f"{path}: {e}; checkpoint state ignored", stacklevel=2)
    return None
  if not state.model_checkpoint_path:
    return None

  def full(p):
    return p if os.path.isabs(p) else os.path.join(checkpoint_dir, p)
  state.model_checkpoint_path = full(state.model_checkpoint_path)
  state.all_model_checkpoint_paths = [full(p) for p in state.all_model_checkpoint_paths]
  return state


def latest_checkpoint(checkpoint_dir, latest_filename=None):
  """The prefix of the newest checkpoint recorded in `checkpoint_dir`, or None.

  Example:
    >>> ckpt = tf.train.Checkpoint(v=tf.Variable(1.))
    >>> tf.train.latest_checkpoint("ckpt_dir") is None
    True
    >>> path = ckpt.save("ckpt_dir/ckpt")
    >>> tf.train.latest_checkpoint("ckpt_dir") == path
    True
  """
  state = get_checkpoint_state(checkpoint_dir, latest_filename)
  if state is None:
    return None
  p = state.model_checkpoint_path
  return p if os.path.isfile(_format.index_path(p)) else None


def _relative(path, save_dir):
  d = os.path.abspath(save_dir or ".")
  a = os.path.abspath(path)
  if os.path.dirname(a) == d or a.startswith(d + os.sep):
    return os.path.relpath(a, d)
  return path


def update_checkpoint_state(save_dir, model_checkpoint_path, all_model_checkpoint_paths,
                            all_model_checkpoint_timestamps=None,
                            last_preserved_timestamp=None, latest_filename=None):
  """Atomically writes `save_dir/checkpoint` (paths inside it stored relative)."""
  save_dir = save_dir or "."
  os.makedirs(save_dir, exist_ok=True)
  state = CheckpointState(
      _relative(model_checkpoint_path, save_dir),
      [_relative(p, save_dir) for p in all_model_checkpoint_paths],
      all_model_checkpoint_timestamps or (), last_preserved_timestamp or 0.0)
  _format.atomic_write(os.path.join(save_dir, latest_filename or _STATE_FILE),
                       _serialize(state).encode("utf-8"))


def _delete_checkpoint(prefix):
  # NOTE: the index goes first: without it the prefix is simply absent.
  for path in (_format.index_path(prefix), _format.data_path(prefix),
               _format.data_path(prefix) + ".prev"):
    try:
      os.remove(path)
    except FileNotFoundError:
      pass


class CheckpointManager:
  """Saves numbered checkpoints in a directory and deletes old ones.

  Args:
    checkpoint: the tf.train.Checkpoint to save and restore.
    directory: where checkpoints and the `checkpoint` state file go.
    max_to_keep: how many recent checkpoints to keep (None keeps all).
    keep_checkpoint_every_n_hours: also keep one checkpoint per this many hours.
    checkpoint_name: the file name prefix ("ckpt" -> "ckpt-1", "ckpt-2", ...).
    step_counter, checkpoint_interval: with both, `save()` only saves when the
      step counter advanced by at least `checkpoint_interval` since the last save.
    init_fn: called by `restore_or_initialize()` when there is no checkpoint.

  Example:
    >>> ckpt = tf.train.Checkpoint(v=tf.Variable(1.))
    >>> manager = tf.train.CheckpointManager(ckpt, "run", max_to_keep=3)
    >>> manager.latest_checkpoint is None
    True
    >>> path = manager.save()
    >>> manager.latest_checkpoint == path
    True
  """

  def __init__(self, checkpoint, directory, max_to_keep, keep_checkpoint_every_n_hours=None,
               checkpoint_name="ckpt", step_counter=None, checkpoint_interval=None,
               init_fn=None):
    from tensorlet.train.checkpoint import Checkpoint
    if not isinstance(checkpoint, Checkpoint):
      raise TypeError(f"CheckpointManager expects a tf.train.Checkpoint, got {checkpoint!r}")
    if max_to_keep is not None and (isinstance(max_to_keep, bool) or
                                    not isinstance(max_to_keep, int)):
      raise TypeError(f"`max_to_keep` must be an integer or None, got {max_to_keep!r}.")
    if max_to_keep is not None and max_to_keep <= 0:
      raise ValueError(f"Expected a positive integer or `None` for `max_to_keep`, got "
                       f"{max_to_keep}.")
    if checkpoint_interval is not None and step_counter is None:
      raise ValueError("`step_counter` should be passed if `checkpoint_interval` is not "
                       "None.")
    self._checkpoint = checkpoint
    self._directory = as_path(directory, "directory")
    self._max_to_keep = max_to_keep
    self._keep_every_s = None if keep_checkpoint_every_n_hours is None else \
        keep_checkpoint_every_n_hours * 3600.0
    self._prefix = os.path.join(self._directory, checkpoint_name)
    self._step_counter = step_counter
    self._checkpoint_interval = checkpoint_interval
    self._init_fn = init_fn
    self._last_checkpoint_step = None
    self._maybe_delete = {}  # path -> timestamp, oldest first
    now = time.time()
    state = get_checkpoint_state(self._directory)
    if state is None:
      self._latest_checkpoint = None
      self._last_preserved = now - 1.0
    else:
      self._latest_checkpoint = state.model_checkpoint_path
      self._last_preserved = min(state.last_preserved_timestamp or now - 1.0, now)
      stamps = state.all_model_checkpoint_timestamps or \
          [self._last_preserved] * len(state.all_model_checkpoint_paths)
      for path, t in zip(state.all_model_checkpoint_paths, stamps):
        t = min(t, now)
        if t > self._last_preserved:
          self._maybe_delete[path] = t

  @property
  def directory(self):
    return self._directory

  @property
  def checkpoint(self):
    return self._checkpoint

  @property
  def checkpoint_interval(self):
    return self._checkpoint_interval

  @property
  def latest_checkpoint(self):
    """The prefix of the newest checkpoint, or None."""
    return self._latest_checkpoint

  @property
  def checkpoints(self):
    """Prefixes of the managed checkpoints, oldest first."""
    return list(self._maybe_delete)

  def _record_state(self):
    paths = list(self._maybe_delete)
    latest = self._latest_checkpoint
    if latest is None:
      return
    update_checkpoint_state(self._directory, latest, paths,
                            [self._maybe_delete[p] for p in paths], self._last_preserved)

  def _sweep(self):
    """Drops checkpoints beyond `max_to_keep` from the managed list; returns the
    ones whose files are to be deleted."""
    doomed = []
    if self._max_to_keep is None:
      return doomed
    while len(self._maybe_delete) > self._max_to_keep:
      path = next(iter(self._maybe_delete))
      t = self._maybe_delete.pop(path)
      if self._keep_every_s is not None and t - self._last_preserved >= self._keep_every_s:
        self._last_preserved = t
        continue
      doomed.append(path)
    return doomed

  def save(self, checkpoint_number=None, check_interval=True, options=None):
    """Saves `<directory>/<checkpoint_name>-N`, deletes checkpoints beyond `max_to_keep`
    and returns the path (None when the interval check skips the save).

    N is `checkpoint_number` (an int or an integer variable/tensor) if given,
    else the checkpoint's incremented `save_counter`.
    """
    if self._checkpoint_interval is not None:
      step = int(_value(self._step_counter))
      if check_interval and self._last_checkpoint_step is not None and \
          step < self._last_checkpoint_step + self._checkpoint_interval:
        return None
      self._last_checkpoint_step = step
    if checkpoint_number is not None:
      # Checked before the save counter moves; int('a') or int(1.5) would be accidents.
      n = _value(checkpoint_number)
      if isinstance(n, (bool, np.bool_)) or not isinstance(n, (int, np.integer)) or \
          np.ndim(n) != 0:
        raise TypeError(f"CheckpointManager.save: `checkpoint_number` must be an integer, "
                        f"got {checkpoint_number!r}")
    counter = self._checkpoint.save_counter
    counter.assign_add(1)
    number = int(counter.numpy()) if checkpoint_number is None else int(_value(
        checkpoint_number))
    files = sys.modules.get("tensorlet.distribute.distributed_file_utils")
    if files is not None and not files.is_chief():
      # As TF: a non-chief worker saves into a temporary directory it then removes, so
      # only the chief's files (and checkpoint state) appear in `directory`.
      prefix = files.write_filepath(f"{self._prefix}-{number}")
      try:
        self._checkpoint.write(prefix, options)
      finally:
        files.remove_temp_dirpath(self._directory)
      return f"{self._prefix}-{number}"
    try:
      path = self._checkpoint.write(f"{self._prefix}-{number}", options)
    except BaseException:
      counter.assign_sub(1)
      raise
    # NOTE: re-saving a number moves it to the end of the queue, as TF does.
    self._maybe_delete.pop(path, None)
    self._maybe_delete[path] = time.time()
    self._latest_checkpoint = path
    # NOTE: the state file stops naming a checkpoint before its files go, so a
    # crash while deleting leaves stray files, never a listed broken checkpoint.
    doomed = self._sweep()
    self._record_state()
    for old in doomed:
      _delete_checkpoint(old)
    return path

  def restore_or_initialize(self):
    """Restores the latest checkpoint (returning its path) or calls `init_fn` (None)."""
    if self._latest_checkpoint is not None:
      self._checkpoint.restore(self._latest_checkpoint)
      if self._checkpoint_interval is not None:
        self._last_checkpoint_step = int(_value(self._step_counter))
      return self._latest_checkpoint
    if self._init_fn is not None:
      self._init_fn()
    return None


def _value(x):
  return x.numpy() if hasattr(x, "numpy") else x
