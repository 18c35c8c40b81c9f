"""Custom objects Keras can name in configs: the global registry filled by
`register_keras_serializable`, the scopes of `custom_object_scope`, and the
`custom_objects` dicts passed to loaders. Lookups search them innermost first."""
import inspect
import threading

__all__ = ["register_keras_serializable", "get_registered_name", "get_registered_object",
           "get_custom_objects", "custom_object_scope", "CustomObjectScope", "lookup_table"]

# Registered name ("package>Name") -> class or function, as `get_custom_objects()` shows.
_GLOBAL_CUSTOM_OBJECTS = {}
# Object -> its registered name.
_GLOBAL_CUSTOM_NAMES = {}


class _Scopes(threading.local):
  def __init__(self):
    self.stack = []


_scopes = _Scopes()


class CustomObjectScope:
  """Within `with custom_object_scope({"name": obj}):`, configs may name `obj`."""

  def __init__(self, *args):
    self.custom_objects = {}
    for arg in args:
      if arg is None:
        continue
      if not isinstance(arg, dict):
        raise TypeError(f"custom_object_scope expects dicts of custom objects, got "
                        f"{type(arg).__name__}.")
      self.custom_objects.update(arg)

  def __enter__(self):
    _scopes.stack.append(self.custom_objects)
    return self

  def __exit__(self, *exc):
    _scopes.stack.pop()


custom_object_scope = CustomObjectScope


def get_custom_objects():
  """The global dict of registered objects (mutable, as Keras')."""
  return _GLOBAL_CUSTOM_OBJECTS


def register_keras_serializable(package="Custom", name=None):
  """Decorator registering a class or function as `package>name` (name defaults to
  its `__name__`), so configs that name it load without `custom_objects`."""

  def decorator(arg):
    class_name = name if name is not None else getattr(arg, "__name__", None)
    if class_name is None:
      raise ValueError(f"Cannot register {arg!r}: it has no __name__; pass `name=`.")
    if inspect.isclass(arg) and not hasattr(arg, "get_config"):
      raise ValueError("Cannot register a class that does not have a get_config() method.")
    registered = f"{package}>{class_name}"
    _GLOBAL_CUSTOM_OBJECTS[registered] = arg
    _GLOBAL_CUSTOM_NAMES[arg] = registered
    return arg
  return decorator


def get_registered_name(obj):
  """The name `obj` is registered under, else its `__name__`."""
  try:
    found = _GLOBAL_CUSTOM_NAMES.get(obj)
  except TypeError:
    found = None
  return found if found is not None else obj.__name__


def lookup_table(custom_objects=None):
  """Every visible custom object by name: global registry, then scopes (outer to
  inner), then `custom_objects` (later entries win)."""
  table = dict(_GLOBAL_CUSTOM_OBJECTS)
  for scope in _scopes.stack:
    table.update(scope)
  if custom_objects:
    table.update(custom_objects)
  return table


def get_registered_object(name, custom_objects=None, module_objects=None):
  """The object registered, in scope or in `custom_objects` under `name`; else
  `module_objects[name]`; else None."""
  found = lookup_table(custom_objects).get(name)
  if found is not None:
    return found
  if module_objects and name in module_objects:
    return module_objects[name]
  return None
