"""tf.train.Checkpoint: object-based saving and restoring of variables.

The object graph and matching live in `_graph.py`, the files in `_format.py`.
"""
import os

import numpy as np

from tensorlet import dtypes as _dt
from tensorlet.context import ctx
from tensorlet.train import _format, _graph, checkpoint_hooks

__all__ = ["Checkpoint", "CheckpointOptions", "list_variables", "load_variable",
           "load_checkpoint", "CheckpointReader"]


def as_path(path, what="file_prefix"):
  """A str path from a str, bytes, os.PathLike or scalar string tensor."""
  if hasattr(path, "numpy") and not isinstance(path, (str, bytes)):
    path = path.numpy()
  if isinstance(path, bytes):
    path = path.decode("utf-8")
  try:
    return os.fspath(path)
  except TypeError:
    raise TypeError(f"`{what}` must be a string path, got {path!r}") from None


def _eager_only(what):
  if ctx.graph is not None:
    raise RuntimeError(f"tf.train.Checkpoint.{what}() must be called eagerly, not inside a "
                       f"tf.function (tensorlet saves and restores variable values directly).")


class CheckpointOptions:
  """Options for save/restore (accepted for compatibility; tensorlet has one device)."""

  def __init__(self, experimental_io_device=None, experimental_enable_async_checkpoint=False,
               experimental_write_callbacks=None, enable_async=False,
               experimental_sharding_callback=None, experimental_skip_slot_variables=False):
    self.experimental_io_device = experimental_io_device
    self.experimental_enable_async_checkpoint = experimental_enable_async_checkpoint
    self.enable_async = enable_async


class Checkpoint:
  """Saves and restores trackable objects (variables, modules, Keras models, optimizers).

  Example:
    >>> x = tf.Variable(10.)
    >>> ckpt = tf.train.Checkpoint(x=x)
    >>> _ = x.assign(2.)
    >>> path = ckpt.save("ckpt/demo")
    >>> path
    'ckpt/demo-1'
    >>> _ = x.assign(11.)
    >>> _ = ckpt.restore(path).assert_consumed()
    >>> x.numpy()
    2.0
  """

  def __init__(self, root=None, **kwargs):
    object.__setattr__(self, "_tl_children", {})
    object.__setattr__(self, "_save_counter", None)
    if root is not None and not _graph.is_trackable(root):
      raise ValueError(f"`Checkpoint` was expecting root to be a trackable object (a "
                       f"tf.Variable, tf.Module, Keras model or layer, optimizer or "
                       f"Checkpoint), got {root!r}.")
    object.__setattr__(self, "_root", root)
    for name, value in sorted(kwargs.items()):
      if name == "save_counter":
        raise ValueError("'save_counter' is reserved for the Checkpoint's own counter.")
      if not (_graph.is_trackable(value) or isinstance(value, (list, tuple, dict))):
        raise ValueError(f"`Checkpoint` was expecting a trackable object (an object derived "
                         f"from `Trackable`), got {value!r}. If you believe this object "
                         f"should be trackable (i.e. it is part of the TensorFlow Python API "
                         f"and manages state), please open an issue.")
      setattr(self, name, value)

  def __setattr__(self, name, value):
    object.__setattr__(self, name, value)
    if not name.startswith("_"):
      if _graph.is_trackable(value) or isinstance(value, (list, tuple, dict)):
        self._tl_children[name] = value
      else:
        self._tl_children.pop(name, None)
      checkpoint_hooks.child_attached(self, name, value)

  def __delattr__(self, name):
    object.__delattr__(self, name)
    self._tl_children.pop(name, None)

  def _tl_checkpoint_children(self):
    pairs = list(_graph._items(self._root, "", strict=True)) if self._root is not None else []
    pairs.extend(self._tl_children.items())
    if self._save_counter is not None:
      pairs.append(("save_counter", self._save_counter))
    return pairs

  @property
  def save_counter(self):
    """An int64 variable counting saves; numbers the files `save` writes."""
    if self._save_counter is None:
      from tensorlet.variables import Variable
      saved = ctx.graph
      ctx.graph = None  # NOTE: created eagerly, as TF's init_scope does.
      try:
        v = Variable(0, dtype=_dt.int64, trainable=False, name="save_counter")
      finally:
        ctx.graph = saved
      object.__setattr__(self, "_save_counter", v)
      checkpoint_hooks.child_attached(self, "save_counter", v)
    return self._save_counter

  # ------------------------------------------------------------------ saving
  def write(self, file_prefix, options=None):
    """Writes the checkpoint to exactly `file_prefix` (no counter, no `checkpoint`
    file update). Returns the prefix."""
    _eager_only("write")
    file_prefix = as_path(file_prefix)
    nodes, tensors = _graph.ObjectGraph(self).serialize()
    _format.write_checkpoint(file_prefix, nodes, tensors)
    return file_prefix

  def save(self, file_prefix, options=None):
    """Saves to `file_prefix-N` (N = the incremented `save_counter`), records it as the
    latest checkpoint of its directory and returns the path."""
    _eager_only("save")
    from tensorlet.train import checkpoint_management
    file_prefix = as_path(file_prefix)
    counter = self.save_counter
    counter.assign_add(1)
    try:
      path = self.write(f"{file_prefix}-{int(counter.numpy())}", options)
    except BaseException:
      counter.assign_sub(1)
      raise
    checkpoint_management.update_checkpoint_state(os.path.dirname(file_prefix), path,
                                                  [path])
    return path

  # --------------------------------------------------------------- restoring
  def read(self, save_path, options=None):
    """Restores from `save_path` without creating the save counter. Returns a status."""
    return self._restore(save_path, create_counter=False)

  def restore(self, save_path, options=None):
    """Restores variables from `save_path` (e.g. `tf.train.latest_checkpoint(dir)`).

    Values of objects that do not exist yet are kept and assigned when they are
    created (deferred restoration). Returns a status with `assert_consumed()`,
    `assert_existing_objects_matched()`, `expect_partial()`. `save_path=None`
    restores nothing (a first run with no checkpoint yet).
    """
    return self._restore(save_path, create_counter=True)

  def _restore(self, save_path, create_counter):
    _eager_only("restore")
    if save_path is None:
      return InitializationOnlyStatus(self)
    reader = _format.read_checkpoint(as_path(save_path, "save_path"))
    if create_counter and "save_counter" in reader.nodes[0].get("children", {}):
      self.save_counter  # noqa: B018 - create it so it is restored with the rest
    r = _graph.Restoration(reader, self)
    r.match(0, self)
    return CheckpointLoadStatus(r, self)


class CheckpointLoadStatus:
  """The result of `Checkpoint.restore`: checks how checkpoint and program matched.

  Values for objects created later are assigned when they are created, so the
  assertions reflect the state at the time they are called.
  """

  def __init__(self, restoration, checkpoint):
    self._r = restoration
    self._checkpoint = checkpoint

  def _python_unmatched(self):
    # NOTE: the save counter is bookkeeping; a checkpoint written with write() has none.
    skip = (self._checkpoint._save_counter,) if self._checkpoint._save_counter is not None \
        else ()
    return self._r.unmatched_python(skip)

  def assert_consumed(self):
    """Raises AssertionError unless every checkpointed value found its Python variable
    and every Python variable got a value."""
    missing = self._r.unresolved()
    if missing:
      raise AssertionError(f"Unresolved objects in checkpoint {self._r.reader.prefix!r}: "
                           f"{', '.join(missing)}")
    self.assert_existing_objects_matched()
    return self

  def assert_existing_objects_matched(self):
    """Raises AssertionError if a Python variable under the checkpoint's objects has no
    value in the checkpoint. Checkpointed values still waiting for their objects are
    fine."""
    unmatched = self._python_unmatched()
    if unmatched:
      raise AssertionError(
          f"Some Python objects were not bound to checkpointed values, likely due to changes "
          f"in the Python program: {', '.join(repr(p) for p in unmatched)} (checkpoint "
          f"{self._r.reader.prefix!r})")
    return self

  def assert_nontrivial_match(self):
    """Raises AssertionError if nothing but the root object matched."""
    if self._r.matched_count() <= 1:
      raise AssertionError(
          f"Nothing except the root object matched a checkpointed value in "
          f"{self._r.reader.prefix!r}. Typically this means that the checkpoint does not "
          f"match the Python program.")
    return self

  def expect_partial(self):
    """Marks a partial restore as intended (tensorlet does not warn either way)."""
    return self

  def run_restore_ops(self, session=None):
    """Nothing to run: values are assigned eagerly."""

  def initialize_or_restore(self, session=None):
    """Nothing to run: values are assigned eagerly."""


class InitializationOnlyStatus:
  """`restore(None)`: nothing restored; variables keep their initial values."""

  def __init__(self, checkpoint):
    self._checkpoint = checkpoint

  def assert_consumed(self):
    raise AssertionError("No checkpoint specified (save_path=None); nothing is being "
                         "restored.")

  def assert_existing_objects_matched(self):
    raise AssertionError("No checkpoint specified (save_path=None); nothing is being "
                         "restored.")

  def assert_nontrivial_match(self):
    raise AssertionError("No checkpoint specified (save_path=None); nothing is being "
                         "restored.")

  def expect_partial(self):
    return self

  def run_restore_ops(self, session=None):
    """Nothing to run."""

  def initialize_or_restore(self, session=None):
    """Nothing to run: variables are initialized when created."""


# --------------------------------------------------------------- inspection
def _resolve(ckpt_dir_or_file):
  from tensorlet.train.checkpoint_management import latest_checkpoint
  path = as_path(ckpt_dir_or_file, "ckpt_dir_or_file")
  if os.path.isdir(path):
    latest = latest_checkpoint(path)
    if latest is None:
      raise ValueError(f"Couldn't find 'checkpoint' file or checkpoints in given directory "
                       f"{path}")
    return latest
  return path


class CheckpointReader:
  """Reads the tensors of a checkpoint (tf.train.load_checkpoint)."""

  def __init__(self, prefix):
    self._reader = _format.read_checkpoint(prefix)

  def get_variable_to_shape_map(self):
    m = {k: list(s) for k, (_, s) in self._reader.meta.items()}
    m[_format.OBJECT_GRAPH_KEY] = []
    return m

  def get_variable_to_dtype_map(self):
    m = {k: d for k, (d, _) in self._reader.meta.items()}
    m[_format.OBJECT_GRAPH_KEY] = _dt.string
    return m

  def has_tensor(self, name):
    return name in self._reader.meta or name == _format.OBJECT_GRAPH_KEY

  def get_tensor(self, name):
    if not isinstance(name, str):
      raise TypeError(f"CheckpointReader.get_tensor: the key must be a string, got {name!r}")
    if name == _format.OBJECT_GRAPH_KEY:
      return self._reader.object_graph_json()
    try:
      v = self._reader.values[name]
    except KeyError:
      from tensorlet.errors import NotFoundError
      raise NotFoundError(None, None, f"Key {name} not found in checkpoint") from None
    v = np.array(v, copy=True)
    return v[()] if v.ndim == 0 else v


def load_checkpoint(ckpt_dir_or_file):
  """A CheckpointReader for a checkpoint prefix or the latest one in a directory."""
  return CheckpointReader(_resolve(ckpt_dir_or_file))


def list_variables(ckpt_dir_or_file):
  """Sorted (key, shape) pairs of the tensors in a checkpoint."""
  shapes = load_checkpoint(ckpt_dir_or_file).get_variable_to_shape_map()
  return [(k, shapes[k]) for k in sorted(shapes)]


def load_variable(ckpt_dir_or_file, name):
  """The value (NumPy) of tensor `name` in a checkpoint."""
  if name.endswith(":0"):
    name = name[:-2]
  return load_checkpoint(ckpt_dir_or_file).get_tensor(name)
