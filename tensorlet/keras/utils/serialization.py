"""Keras' object lookup and (de)serialization, shared by losses, metrics,
optimizers, initializers, regularizers and constraints: an object is named by
a string or described by `{"class_name": ..., "config": {...}}`."""

__all__ = ["serialize_object", "deserialize_object", "get_object"]


def serialize_object(obj):
  return {"class_name": type(obj).__name__, "config": obj.get_config()}


def deserialize_object(config, custom_objects, classes, functions, what):
  """An instance from a `serialize_object` dict or a name. `classes` map names to
  classes or factories (called); `functions` to functions (returned as they are);
  `what` names the kind in errors. Extra keys of newer Keras dicts are ignored."""
  from tensorlet.keras.saving.object_registration import lookup_table
  custom = lookup_table(custom_objects)
  if isinstance(config, dict):
    name = config.get("class_name")
    registered = config.get("registered_name")
    cls = (isinstance(registered, str) and custom.get(registered)) or custom.get(name) or \
        classes.get(name)
    if cls is None and isinstance(name, str) and name.startswith("Custom>"):
      # NOTE: Keras 2 registers its own optimizers as "Custom>Adam" and writes that name.
      cls = classes.get(name[len("Custom>"):])
    if cls is None:
      raise _unknown(what, name)
    cfg = config.get("config", {})
    return cls.from_config(cfg) if hasattr(cls, "from_config") else cls(**cfg)
  found = custom.get(config)
  if found is not None:
    return found() if isinstance(found, type) else found
  if config in functions:
    return functions[config]
  cls = classes.get(config)
  if cls is None:
    raise _unknown(what, config)
  return cls()


def get_object(identifier, deserialize, what, classes_are_instantiated=False):
  """Keras' `get`: None stays None, names and dicts are deserialized, callables are
  returned as they are (a class is instantiated where Keras does)."""
  if identifier is None:
    return None
  if isinstance(identifier, (str, dict)):
    return deserialize(identifier)
  if classes_are_instantiated and isinstance(identifier, type):
    return identifier()
  if callable(identifier):
    return identifier
  raise ValueError(f"Could not interpret {what} identifier: {identifier}")


def _unknown(what, name):
  return ValueError(f"Unknown {what}: '{name}'. Please ensure you are using a "
                    f"`keras.utils.custom_object_scope` and that this object is included in "
                    f"the scope.")
