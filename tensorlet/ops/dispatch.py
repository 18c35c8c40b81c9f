"""Dispatch of public API functions on values that are not tensors.

Every public function of `tf`, `tf.math`, `tf.nn`, ... has one wrapper
(`add_dispatch_support`, applied where its op module defines it or where its
namespace module is loaded, `install`). The wrapper costs one Python frame: it
calls the function, and only when that raises does it look for arguments of a
type with a registered handler. Such types register themselves, where they are
defined: Keras' symbolic tensors (the call becomes a TFOpLambda node),
RaggedTensor and SparseTensor (composites refuse conversion to a tensor, so
dense functions fail early on them). For a function and one of those types,
an implementation registered with `dispatch_for` runs first; else the type's
handlers (`register_type`), which serve every function (by its API name or
its elementwise op). This module imports none of those types.

Each wrapped function has one API name, TF's canonical one ("math.add" for
`tf.add`, `tf.math.add`), which is what Keras records in model configs;
`lookup` maps an API name back to the function.
"""
import functools
import importlib
import types

__all__ = ["add_dispatch_support", "install", "register_type", "dispatch_for", "elementwise",
           "call", "composite_fallback", "api_name", "lookup"]

_IMPLS = {}      # raw public function -> [(class, implementation)]
_HANDLERS = []   # [(class, handler(api, args, kwargs))], in registration order
_TYPES = ()      # every class above, for one isinstance check per argument
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


def _add_type(cls):
  global _TYPES
  if cls not in _TYPES:
    _TYPES = _TYPES + (cls,)


def register_type(cls, handler):
  """`handler(api_function, args, kwargs)` returns a result, or NotImplemented to decline;
  it is asked when a public function raised on arguments that hold a `cls` value."""
  if (cls, handler) not in _HANDLERS:
    _HANDLERS.append((cls, handler))
  _add_type(cls)


def unregister_type(cls, handler):
  _HANDLERS.remove((cls, handler))
  global _TYPES
  _TYPES = tuple(c for c in _TYPES if any(c is k for k, _ in _HANDLERS) or
                 any(c is k for impls in _IMPLS.values() for k, _ in impls))


def dispatch_for(*apis):
  """Registers the decorated function as the implementation of `apis` for values of a
  class: `dispatch_for(tf.concat)(RaggedTensor)(ragged_concat)`."""
  def with_class(cls):
    _add_type(cls)

    def register(impl):
      for api in apis:
        _IMPLS.setdefault(getattr(api, "_tl_dispatch", api), []).append((cls, impl))
      return impl
    return register
  return with_class


def elementwise(api, od):
  """Marks public function `api` as the elementwise op `od` (handlers of composite types
  apply such functions to their values)."""
  api._tl_elementwise = od
  return api


def elementwise_op(api):
  """The elementwise op of public function `api`, else None."""
  return getattr(getattr(api, "_tl_dispatch", api), "_tl_elementwise", None)


def elementwise_handler(fn):
  """A type handler from `fn(od, api, args, kwargs)`, asked for elementwise functions only."""
  def handler(api, args, kwargs):
    od = elementwise_op(api)
    return NotImplemented if od is None else fn(od, api, args, kwargs)
  return handler


def _collect(x, out):
  # iterative, each container once: arguments may be deeply nested or contain themselves
  stack, seen = [x], set()
  while stack:
    x = stack.pop()
    if isinstance(x, _TYPES):
      out.append(x)
    elif isinstance(x, (list, tuple, dict)) and id(x) not in seen:
      seen.add(id(x))
      stack.extend(reversed(list(x.values() if isinstance(x, dict) else x)))


def call(api, args, kwargs):
  """The result of the implementation or handler that takes `api` on these arguments,
  or NotImplemented when none does."""
  if not _TYPES:
    return NotImplemented
  found = []
  _collect(args, found)
  _collect(kwargs, found)
  if not found:
    return NotImplemented
  raw = getattr(api, "_tl_dispatch", api)
  api = _WRAPPERS.get(id(raw), api)  # handlers see the public function (its API name)
  for cls, impl in _IMPLS.get(raw, ()):
    if any(isinstance(v, cls) for v in found):
      r = impl(*args, **kwargs)
      if r is not NotImplemented:
        return r
  asked = []
  for v in found:
    for cls, handler in _HANDLERS:
      if isinstance(v, cls) and handler not in asked:
        asked.append(handler)
        r = handler(api, args, kwargs)
        if r is not NotImplemented:
          return r
  return NotImplemented


def composite_fallback(api, args, kwargs):
  """For public functions that catch their own failure (the one-frame elementwise ops):
  the dispatched result, else None (the caller raises its own error, as TF does)."""
  r = call(api, args, kwargs)
  return None if r is NotImplemented else r


def _wrap(fn):
  @functools.wraps(fn)
  def wrapper(*args, **kwargs):
    try:
      return fn(*args, **kwargs)
    except Exception:
      out = call(wrapper, args, kwargs)
      if out is NotImplemented:
        raise
      return out
  wrapper._tl_dispatch = wrapper._tl_undispatched = fn
  return wrapper


def add_dispatch_support(fn, name=None):
  """The dispatching wrapper of `fn` (made once), known by API name `name` (given where
  a namespace exports it; op modules decorate their functions without one)."""
  raw = getattr(fn, "_tl_dispatch", fn)
  w = _WRAPPERS.get(id(raw))
  if w is None:
    w = _WRAPPERS[id(raw)] = _wrap(raw)
    _RAW[id(raw)] = raw
  if name is None:
    return w
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
