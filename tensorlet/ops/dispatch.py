"""Dispatch of public API functions on values that are not tensors (Keras symbolic inputs).

The public functions of `tf`, `tf.math`, `tf.nn`, `tf.linalg` ... are wrapped
once, where their namespace module is loaded (`install`). The wrapper costs
one Python frame: it calls the function and only when that raises does it ask
the registered dispatchers (Keras registers one for its KerasTensors, which
refuse conversion to tensors) whether one of them takes the call. So a
function applied to a Keras symbolic tensor in a functional model becomes a
node of the model (Keras 2's TFOpLambda) for every wrapped function, not a
chosen few.

Each wrapped function has one API name, TF's canonical one ("math.add" for
`tf.add`, `tf.math.add`), which is what Keras records in model configs;
`lookup` maps an API name back to the function.
"""
import functools
import importlib
import types

__all__ = ["install", "register_dispatcher", "api_name", "lookup"]

_DISPATCHERS = []
# Python operators by their API name ("__operators__.add" -> OPERATORS["add"]); filled by
# the users of operator dispatch (Keras' symbolic tensors).
OPERATORS = {}
_WRAPPERS = {}   # id(raw function) -> wrapper (one wrapper per function, in every namespace)
_RAW = {}        # id(raw function) -> raw function (keeps the ids above valid)
_NAMES = {}      # id(wrapper) -> (priority, API name)
# TF exports a function under several names; the first (canonical) one prefers these
# namespaces: `tf.add` is "math.add", `tf.matmul` "linalg.matmul", `tf.nn.relu` "nn.relu".
_PRIORITY = {"math": 0, "linalg": 1, "nn": 2, "": 3}
# Where the rule above misses TF's canonical name (tensorlet exports a few more names).
_CANONICAL = {"math.cast": "cast", "math.realdiv": "realdiv", "math.truncatediv": "truncatediv",
              "math.truncatemod": "truncatemod", "math.saturate_cast": "dtypes.saturate_cast",
              "math.complex": "dtypes.complex", "linalg.eye": "eye", "linalg.einsum": "einsum",
              "linalg.norm": "norm", "linalg.tensordot": "tensordot",
              "math.softmax": "nn.softmax", "math.log_softmax": "nn.log_softmax",
              "nn.zero_fraction": "math.zero_fraction"}
# Modules whose functions are not wrapped: control flow and Python-function ops take
# callables, not tensors, and keep their identity for AutoGraph.
SKIP_MODULES = ("tensorlet.ops.control_flow_ops", "tensorlet.ops.script_ops",
                "tensorlet.ops.graph_ops", "tensorlet.ops.registry", "tensorlet.ops.dispatch",
                "tensorlet.graph.control_flow")
# Namespaces `lookup` searches, by the first part of an API name.
_NAMESPACES = {"math": "tensorlet.math", "linalg": "tensorlet.linalg", "nn": "tensorlet.nn",
               "random": "tensorlet.random", "strings": "tensorlet.strings",
               "image": "tensorlet.image", "signal": "tensorlet.signal"}


def register_dispatcher(fn):
  """`fn(api_function, args, kwargs)` returns a result, or NotImplemented to decline; it
  is asked only after the function itself raised on these arguments."""
  if fn not in _DISPATCHERS:
    _DISPATCHERS.append(fn)


def _wrap(fn):
  @functools.wraps(fn)
  def wrapper(*args, **kwargs):
    try:
      return fn(*args, **kwargs)
    except Exception:
      for d in _DISPATCHERS:
        out = d(wrapper, args, kwargs)
        if out is not NotImplemented:
          return out
      raise
  wrapper._tl_dispatch = fn
  return wrapper


def add_dispatch_support(fn, name):
  """The dispatching wrapper of `fn` (made once), known by API name `name`."""
  raw = getattr(fn, "_tl_dispatch", fn)
  w = _WRAPPERS.get(id(raw))
  if w is None:
    w = _WRAPPERS[id(raw)] = _wrap(raw)
    _RAW[id(raw)] = raw
  prefix = name.rsplit(".", 1)[0] if "." in name else ""
  rank = _PRIORITY.get(prefix, 4)
  old = _NAMES.get(id(w))
  if old is None or rank < old[0]:
    _NAMES[id(w)] = (rank, name)
  return w


def install(namespace, prefix=""):
  """Replaces the public functions in the module dict `namespace` (the module `tf.` +
  `prefix`) by their dispatching wrappers."""
  for key, value in list(namespace.items()):
    if key.startswith("_") or not isinstance(value, types.FunctionType):
      continue
    raw = getattr(value, "_tl_dispatch", value)
    mod = getattr(raw, "__module__", "") or ""
    if not (mod.startswith("tensorlet.ops.") or mod == namespace.get("__name__")) or \
        mod.startswith(SKIP_MODULES):
      continue
    namespace[key] = add_dispatch_support(value, f"{prefix}.{key}" if prefix else key)


_CANONICAL_NAMESPACES = ("tensorlet.math", "tensorlet.linalg", "tensorlet.nn")
_namespaces_loaded = False


def api_name(fn):
  """The canonical API name of a wrapped public function ("math.add"), else None."""
  global _namespaces_loaded
  if not _namespaces_loaded:
    # The namespaces that give canonical names load on first access (import time);
    # a name is asked for rarely (Keras layers, composite dispatch), so load them here.
    _namespaces_loaded = True
    for m in _CANONICAL_NAMESPACES:
      importlib.import_module(m)
  entry = _NAMES.get(id(fn))
  return _CANONICAL.get(entry[1], entry[1]) if entry else None


def lookup(name):
  """The public function of API name `name` ("concat", "math.add", "nn.relu",
  "__operators__.getitem"); ValueError when there is none."""
  import tensorlet  # late-bound: API names resolve in the public namespace (top layer)
  parts = name.split(".")
  if parts[:2] == ["compat", "v1"]:  # TF records a few ops by their v1 name
    parts = parts[2:]
  if parts and parts[0] == "__operators__":
    fn = OPERATORS.get(parts[-1]) if len(parts) == 2 else None
  else:
    obj = tensorlet
    if len(parts) > 1 and parts[0] in _NAMESPACES:
      obj = importlib.import_module(_NAMESPACES[parts[0]])
      parts = parts[1:]
    fn = None
    for p in parts:
      obj = getattr(obj, p, None)
      if obj is None:
        break
    fn = obj if callable(obj) else None
    if fn is None and len(parts) > 1:  # "dtypes.cast", "debugging.assert_equal"
      fn = getattr(tensorlet, parts[-1], None)
  if fn is None:
    raise ValueError(f"Unknown TensorFlow API symbol: 'tf.{name}'.")
  return fn
