"""tf.saved_model.load: objects, variables and functions rebuilt from data.

Every file is validated before use: a missing file is NotFoundError, a
damaged one DataLossError, a manifest from a newer format version
InvalidArgumentError, an op type this tensorlet does not have NotFoundError.
No code is imported or run from the directory.
"""
import json
import os

from tensorlet.context import ctx
from tensorlet.errors import DataLossError, InvalidArgumentError, NotFoundError
from tensorlet.polymorphic_function.concrete import ConcreteFunction
from tensorlet.saved_model import layout
from tensorlet.train import _atomic
from tensorlet.saved_model.decode import Decoder, Malformed, need
from tensorlet.saved_model.restored import RestoredFunction, RestoredObject, SignatureFunction
from tensorlet.variables import Variable

__all__ = ["load", "read_manifest"]


def _read_json(path, export_dir):
  if not os.path.isfile(path):
    raise NotFoundError(None, None, f"SavedModel at '{export_dir}' is incomplete: "
                        f"{os.path.basename(path)} does not exist.")
  size = os.path.getsize(path)
  if size > _MAX_JSON_BYTES:
    raise DataLossError(None, None, f"SavedModel at '{export_dir}': {os.path.basename(path)} "
                        f"is {size} bytes, more than a saved model's JSON may be "
                        f"({_MAX_JSON_BYTES})")
  try:
    with open(path, "rb") as f:
      return json.loads(f.read().decode("utf-8"))
  except (UnicodeDecodeError, ValueError) as e:
    raise DataLossError(None, None, f"SavedModel at '{export_dir}': {os.path.basename(path)} "
                        f"is not valid JSON (truncated or edited?): {e}") from None
  except RecursionError:
    raise DataLossError(None, None, f"SavedModel at '{export_dir}': {os.path.basename(path)} "
                        f"is nested too deeply to be a saved model's JSON") from None


# NOTE: checked before reading, so a huge file in place of the JSON is refused
# without being read into memory.
_MAX_JSON_BYTES = 1 << 30


class SavedModelNotFoundError(NotFoundError, OSError):
  """No SavedModel at the path: TF raises OSError there; a NotFoundError too, so that
  code catching either (and tensorlet's own checks) sees it."""


def read_manifest(export_dir):
  """The validated manifest of `export_dir`."""
  if not isinstance(export_dir, (str, bytes, os.PathLike)):
    raise TypeError(f"`export_dir` must be a path (str or os.PathLike), got {export_dir!r}")
  export_dir = os.fsdecode(os.fspath(export_dir))
  _atomic.recover_directory(export_dir)
  if not os.path.isdir(export_dir):
    raise SavedModelNotFoundError(None, None,
                                  f"SavedModel file does not exist at: {export_dir}")
  path = layout.manifest_path(export_dir)
  if not os.path.isfile(path):
    raise SavedModelNotFoundError(None, None, f"SavedModel file does not exist at: {export_dir} (no "
                        f"saved_model.json; a TensorFlow saved_model.pb cannot be read by "
                        f"tensorlet)")
  m = _read_json(path, export_dir)
  if not isinstance(m, dict) or m.get("format") != layout.FORMAT:
    raise DataLossError(None, None, f"SavedModel at '{export_dir}': saved_model.json is not a "
                        f"tensorlet SavedModel manifest (no \"format\": {layout.FORMAT!r})")
  v = m.get("version")
  if type(v) is not int or v < 1:
    raise DataLossError(None, None, f"SavedModel at '{export_dir}': bad format version {v!r}")
  if v > layout.VERSION:
    raise InvalidArgumentError(
        None, None, f"SavedModel at '{export_dir}' has format version {v} (written by tensorlet "
        f"{m.get('tensorlet', '?')}), newer than the version this tensorlet reads "
        f"({layout.VERSION}); upgrade tensorlet to load it.")
  return m


def load(export_dir, tags=None, options=None, root_class=RestoredObject):
  """Loads a SavedModel written by tf.saved_model.save.

  Returns an object with the saved attributes: variables (restored as
  tf.Variables), sub-objects, tf.functions (callable with the saved
  signatures, differentiable, re-savable) and `signatures`. (`root_class`: the
  RestoredObject subclass of the root, for Keras models.)
  """
  if ctx.graph is not None:
    raise RuntimeError("tf.saved_model.load() must be called eagerly, not inside a "
                       "tf.function.")
  from tensorlet.train import _format
  export_dir = os.fspath(export_dir)
  manifest = read_manifest(export_dir)
  reader = _format.read_checkpoint(layout.variables_prefix(export_dir))
  constants = _format.read_checkpoint(layout.constants_prefix(export_dir)).values
  graphs = _read_json(layout.graphs_path(export_dir), export_dir)
  where = f"SavedModel at '{export_dir}'"
  try:
    return _restore(manifest, graphs, reader, constants, where, root_class)
  except (Malformed, KeyError, TypeError, ValueError, IndexError, AttributeError) as e:
    detail = f"missing field {e}" if isinstance(e, KeyError) else str(e)
    raise DataLossError(None, None, f"{where} is damaged: saved_model.json and graphs.json do "
                        f"not describe a model ({detail})") from None


def _restore(manifest, graphs, reader, constants, where, root_class):
  objects = _objects(reader, manifest["objects"], root_class)
  dec = Decoder(constants, objects, where)
  concrete = {}
  for k, data in graphs["concrete_functions"].items():
    fg = dec.graph(data["graph"], [])
    params = [(str(n), str(kind), dec.key(key)) for n, kind, key in data["params"]]
    fg.structured_input_signature = (tuple(p[2].input_spec() for p in params), {})
    concrete[k] = ConcreteFunction(fg, str(data["name"]), params, list(fg.inputs))
  functions = [RestoredFunction(str(f["name"]), [concrete[c] for c in f["concrete"]])
               for f in manifest["functions"]]
  for obj, entry in zip(objects, manifest["objects"]):
    for name, i in entry.get("functions", {}).items():
      need(type(i) is int and 0 <= i < len(functions), f"bad function index {i!r}")
      setattr(obj, name, functions[i])
  root = objects[0]
  if isinstance(root, RestoredObject):
    root.signatures = {name: SignatureFunction(name, concrete[k])
                       for name, k in manifest["signatures"].items()}
  return root


def _objects(reader, entries, root_class):
  """One restored object per checkpoint node, children attached."""
  nodes = reader.nodes
  need(isinstance(entries, list) and len(entries) == len(nodes),
       f"the manifest lists {len(entries) if isinstance(entries, list) else '?'} objects, the "
       f"variables checkpoint {len(nodes)}")
  objs = []
  for node, entry in zip(nodes, entries):
    kind = node.get("type")
    if "variable" in node:
      info = entry.get("variable", {})
      value = reader.values[node["variable"]]
      objs.append(Variable(value, trainable=bool(info.get("trainable", True)),
                           name=str(info.get("name", "Variable")),
                           dtype=reader.meta[node["variable"]][0]))
    elif kind == "list":
      objs.append([])
    elif kind == "dict":
      objs.append({})
    elif kind == "tuple":
      objs.append(None)  # built below, once its children exist
    else:
      objs.append(root_class() if not objs else RestoredObject())

  def tuple_at(i, depth=0):
    need(depth < len(nodes), "the object graph has a cycle of tuples")
    if objs[i] is None:
      kids = sorted(nodes[i].get("children", {}).items(), key=lambda kv: int(kv[0]))
      objs[i] = tuple(child(c, depth + 1) for _, c in kids)
    return objs[i]

  def child(c, depth=0):
    return tuple_at(c, depth) if nodes[c].get("type") == "tuple" else objs[c]
  for i, node in enumerate(nodes):
    obj = child(i)
    items = node.get("children", {}).items()
    if isinstance(obj, list):
      obj.extend(child(c) for _, c in sorted(items, key=lambda kv: int(kv[0])))
    elif isinstance(obj, dict):
      obj.update((k, child(c)) for k, c in items)
    elif isinstance(obj, RestoredObject):
      for k, c in items:
        setattr(obj, k, child(c))
  return objs
