"""Public ops on composite values (tf.RaggedTensor, tf.SparseTensor).

A public function decorated with `add_dispatch_support` runs as before; when it
fails on an argument that is a composite value, the implementation registered
for that function and the value's class (`dispatch_for`) runs instead, as TF's
dispatch does. Elementwise ops (`elementwise(od)`) need no registration per
function: a composite class's `_dispatch_elementwise` serves all of them.
The composite modules register themselves when imported, so this module
imports none of them.
"""
import functools

from tensorlet.composite_tensor import CompositeTensor

__all__ = ["add_dispatch_support", "dispatch_for", "elementwise", "call"]

_IMPLS = {}        # public function -> [(composite class, implementation)]


def _composites(args, kwargs):
  out = []
  for a in list(args) + list(kwargs.values()):
    # _tl_dispatchable: values that are no composite tensor but have implementations
    # here too (a DynamicRaggedShape given to tf.ones / tf.broadcast_to)
    if isinstance(a, CompositeTensor) or getattr(type(a), "_tl_dispatchable", False):
      out.append(a)
    elif isinstance(a, (list, tuple)):
      out.extend(x for x in a if isinstance(x, CompositeTensor))
  return out


def call(api, args, kwargs):
  """The composite implementation of `api` for these arguments, or NotImplemented."""
  comps = _composites(args, kwargs)
  for impl_cls, impl in _IMPLS.get(api, ()):
    if any(isinstance(c, impl_cls) for c in comps):
      r = impl(*args, **kwargs)
      if r is not NotImplemented:
        return r
  od = getattr(api, "_tl_elementwise", None)
  if od is not None:
    for c in comps:
      r = type(c)._dispatch_elementwise(od, api, args, kwargs)
      if r is not NotImplemented:
        return r
  return NotImplemented


def add_dispatch_support(fn):
  """`fn`, falling back to composite implementations when it fails on arguments that
  hold one (composites refuse conversion to a tensor, so `fn` fails early)."""
  @functools.wraps(fn)
  def wrapper(*args, **kwargs):
    try:
      return fn(*args, **kwargs)
    except (TypeError, ValueError):
      r = composite_fallback(wrapper, args, kwargs)
      if r is None:
        raise
      return r
  wrapper._tl_undispatched = fn
  return wrapper


def elementwise(api, od):
  """Marks public function `api` as the elementwise op `od` (for composite dispatch)."""
  api._tl_elementwise = od
  return api


def dispatch_for(*apis):
  """Registers the decorated function as the implementation of `apis` for the
  composite class named by its first parameter's annotation-free `cls` argument:
  `@dispatch_for(tf.concat)(RaggedTensor)`."""
  def with_class(cls):
    def register(impl):
      for api in apis:
        _IMPLS.setdefault(api, []).append((cls, impl))
      return impl
    return register
  return with_class


def composite_fallback(api, args, kwargs):
  """For public functions that convert their inputs themselves: the composite
  implementation's result when an argument is a composite value that has one, else
  None (the caller then raises its own error, as TF does where nothing dispatches)."""
  if _composites(args, kwargs):
    r = call(api, args, kwargs)
    return None if r is NotImplemented else r
  return None
