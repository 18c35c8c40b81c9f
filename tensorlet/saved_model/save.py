"""tf.saved_model.save: a tf.Module's variables, object structure and traced
tf.functions written as data (see layout.py), checked first for anything
that cannot leave Python."""
import contextlib
import inspect
import json
import os
import shutil
import sys

from tensorlet.context import ctx
from tensorlet.polymorphic_function.concrete import ConcreteFunction
from tensorlet.polymorphic_function.polymorphic import Function
from tensorlet.polymorphic_function.trace_type import TensorType
from tensorlet.saved_model import layout
from tensorlet.saved_model.encode import Encoder
from tensorlet.variables import Variable

__all__ = ["save", "collect"]


def _is_function(x):
  return isinstance(x, Function) or hasattr(x, "_tl_concrete_functions")


def functions_of(obj):
  """{attribute name: tf.function} of an object: instance attributes and methods."""
  if isinstance(obj, (list, tuple, dict, Variable)):
    return {}
  out = {k: v for k, v in sorted(getattr(obj, "__dict__", {}).items()) if _is_function(v)}
  for name in dir(type(obj)):
    if name not in out and isinstance(inspect.getattr_static(type(obj), name, None), Function):
      out[name] = getattr(obj, name)
  return out


def concrete_functions_of(fn):
  """The traces a saved function keeps (a signature-only function is traced now)."""
  if not isinstance(fn, Function):
    return list(fn._tl_concrete_functions())
  cfs = [cf for _, cf in fn._traces]
  if not cfs and fn.input_signature is not None:
    cfs = [fn.get_concrete_function()]
  return cfs


def signature_functions(obj, signatures, functions):
  """{signature name: ConcreteFunction} from save's `signatures` argument."""
  if signatures is None:
    restored = getattr(obj, "signatures", None)
    if isinstance(restored, dict) and all(hasattr(s, "_tl_signature_of") for s in
                                          restored.values()):
      return {k: s._tl_signature_of for k, s in restored.items()}
    # NOTE: as TF: the root's one tf.function with an input_signature serves by default.
    typed = [f for f in functions if isinstance(f, Function) and f.input_signature is not None]
    return {"serving_default": typed[0].get_concrete_function()} if len(typed) == 1 else {}
  if not isinstance(signatures, dict):
    signatures = {"serving_default": signatures}
  out = {}
  for name, s in signatures.items():
    if not isinstance(name, str):
      raise ValueError(f"Signature names must be strings, got {name!r}")
    if isinstance(s, Function):
      if s.input_signature is None:
        raise ValueError(f"Expected a TensorFlow function for which to generate a signature, "
                         f"but got a tf.function with no input_signature ('{name}'). Pass "
                         f"f.get_concrete_function(tf.TensorSpec(...)) or set input_signature.")
      s = s.get_concrete_function()
    if not isinstance(s, ConcreteFunction):
      raise ValueError(f"signatures[{name!r}] must be a tf.function or a ConcreteFunction, "
                       f"got {s!r}")
    if any(not isinstance(k, TensorType) for _, _, k in s._params):
      raise ValueError(f"The signature '{name}' must take tensors only; "
                       f"{s.name} has the parameters {s.function_type}")
    out[name] = s
  return out


def collect(obj, signatures=None, root_functions=None, extra=None):
  """Everything save writes, as (manifest, graphs, checkpoint nodes, variable tensors,
  constants); raises ValueError listing what cannot leave Python. `root_functions`
  ({name: tf.function}) are saved as attributes of the root besides its own; `extra`
  is added to the manifest."""
  from tensorlet.train import _graph
  if not _graph.is_trackable(obj):
    raise ValueError(f"Expected an object of type `Trackable`, such as `tf.Module` or a "
                     f"subclass of the `Trackable` class, for export. Got {obj!r} with type "
                     f"{type(obj)}.")
  og = _graph.ObjectGraph(obj)
  nodes, tensors = og.serialize()
  enc = Encoder({id(o): i for i, o in enumerate(og.objs) if isinstance(o, Variable)})
  concrete, cf_ids, functions, objects = {}, {}, [], []

  def add_concrete(cf):
    k = cf_ids.get(id(cf))
    if k is None:
      k = cf_ids[id(cf)] = f"f{len(cf_ids)}"
      where = f"function '{cf.name}'"
      concrete[k] = {"name": cf.name, "graph": enc.graph(cf.graph, []),
                     "params": [[n, kind, enc.key(key, f"{where}, argument '{n}'")]
                                for n, kind, key in cf._params]}
    return k
  own = []
  for i, o in enumerate(og.objs):
    entry = {}
    if isinstance(o, Variable):
      entry["variable"] = {"name": o.name, "trainable": o.trainable}
    fns = functions_of(o)
    if i == 0:
      fns.update(root_functions or {})
      own = list(fns.values())
    if fns:
      entry["functions"] = {}
      for name, fn in fns.items():
        entry["functions"][name] = len(functions)
        functions.append({"name": name, "concrete": [add_concrete(cf) for cf in
                                                     concrete_functions_of(fn)]})
    objects.append(entry)
  sigs = {name: add_concrete(cf) for name, cf in
          signature_functions(obj, signatures, own).items()}
  if enc.problems:
    raise ValueError(f"tf.saved_model.save: {len(enc.problems)} part(s) of {obj!r} cannot "
                     f"leave Python, so nothing was written:\n  - " +
                     "\n  - ".join(enc.problems))
  from tensorlet.version import TENSORLET_VERSION as __version__
  manifest = {"format": layout.FORMAT, "version": layout.VERSION, "tensorlet": __version__,
              "objects": objects, "functions": functions, "signatures": sigs, **(extra or {})}
  return manifest, {"concrete_functions": concrete}, nodes, tensors, enc.constants


def save(obj, export_dir, signatures=None, options=None, **collect_args):
  """Writes `obj` (a tf.Module, Keras model or other trackable) to `export_dir`.

  Saved: the variables and objects reachable from `obj`, and every traced
  signature of its tf.functions (a function with an `input_signature` is
  traced now). `signatures`: a tf.function with an input_signature, a
  ConcreteFunction, or a dict of them by name (the default is 'serving_default').
  Raises ValueError, before writing anything, listing each op or value that
  only exists in Python (tf.py_function, untracked variables, ...).
  """
  if ctx.graph is not None:
    raise RuntimeError("tf.saved_model.save() must be called eagerly, not inside a "
                       "tf.function.")
  from tensorlet import errors
  from tensorlet.train import _atomic, _format
  if not isinstance(export_dir, (str, bytes, os.PathLike)):
    raise TypeError(f"tf.saved_model.save: `export_dir` must be a path (str or "
                    f"os.PathLike), got {export_dir!r}")
  export_dir = os.fsdecode(os.fspath(export_dir))
  _atomic.recover_directory(export_dir)
  if os.path.exists(export_dir) and not os.path.isdir(export_dir):
    raise errors.FailedPreconditionError(None, None, f"tf.saved_model.save: {export_dir} is "
                                         f"not a directory")
  if not collect_args and _is_keras_model(obj):
    # As TF: a Keras model is saved callable, with a 'serving_default' signature
    # traced from its inputs (and can be loaded back as the Keras model).
    from tensorlet.saved_model import keras_io
    keras_io.save_model(obj, export_dir, signatures=signatures)
    return
  dist = sys.modules.get("tensorlet.distribute._state")
  with dist.saving() if dist is not None else contextlib.nullcontext():
    # (tf.distribute variables trace as the one variable the object tracks)
    manifest, graphs, nodes, tensors, constants = collect(obj, signatures, **collect_args)
  _atomic.remove_temporaries(export_dir)
  # NOTE: the new version is built whole beside the old one and exchanged with
  # it in one step, so a crash leaves one of the two complete (see _atomic).
  staged = _atomic.staging_dir(export_dir)
  try:
    _format.write_checkpoint(layout.variables_prefix(staged), nodes, tensors)
    _format.write_checkpoint(layout.constants_prefix(staged), [{"type": "constants"}],
                             constants)
    _format.atomic_write(layout.graphs_path(staged), json.dumps(graphs).encode())
    _format.atomic_write(layout.manifest_path(staged),
                         json.dumps(manifest, indent=1, sort_keys=True).encode())
    _keep_foreign_entries(export_dir, staged)
    _atomic.exchange_directory(staged, export_dir)
  except BaseException:
    shutil.rmtree(staged, ignore_errors=True)
    raise


def _keep_foreign_entries(export_dir, staged):
  """Copies what the user keeps in `export_dir` besides a saved model's own files
  (TF leaves such files alone when it saves over a directory)."""
  if not os.path.isdir(export_dir):
    return
  ours = set(os.listdir(staged))
  for name in os.listdir(export_dir):
    if name in ours:
      continue
    src, dst = os.path.join(export_dir, name), os.path.join(staged, name)
    if os.path.isdir(src) and not os.path.islink(src):
      shutil.copytree(src, dst, symlinks=True)
    else:
      shutil.copy2(src, dst, follow_symlinks=False)


def _is_keras_model(obj):
  import sys
  training = sys.modules.get("tensorlet.keras.engine.training")
  return training is not None and isinstance(obj, training.Model)
