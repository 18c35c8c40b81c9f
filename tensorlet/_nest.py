"""tf.nest: flatten / pack_sequence_as / map_structure over lists, tuples,
namedtuples and dicts (dict keys in sorted order, as TensorFlow does)."""
import collections.abc as _abc

from tensorlet.composite_tensor import CompositeTensor, TypeSpec

__all__ = ["flatten", "pack_sequence_as", "map_structure", "assert_same_structure",
           "is_nested", "flatten_with_paths"]


def _is_namedtuple(x):
  return isinstance(x, tuple) and hasattr(x, "_fields")


def is_nested(x):
  return isinstance(x, (list, tuple, dict)) or (
      isinstance(x, _abc.Mapping) and not isinstance(x, (str, bytes)))


is_sequence = is_nested


def _sorted_keys(d):
  try:
    return sorted(d)
  except TypeError:
    return list(d)


def _children(x):
  if isinstance(x, _abc.Mapping):
    return [x[k] for k in _sorted_keys(x)]
  return list(x)


def _expand(x):
  """The component tensors (or specs) of a composite value (or spec)."""
  if isinstance(x, CompositeTensor):
    return x._to_components()
  if isinstance(x, TypeSpec):
    return list(x._component_specs)
  return None


def flatten(structure, expand_composites=False):
  if not is_nested(structure):
    parts = _expand(structure) if expand_composites else None
    return [structure] if parts is None else parts
  kids = _children(structure)
  if not expand_composites:
    for k in kids:
      if is_nested(k):
        break
    else:
      return kids     # the common flat list/tuple/dict: no walk needed
  out = []
  # Iterative to keep deep structures off the recursion limit; `open_` holds the
  # containers being walked, so one that contains itself is an error, not a hang.
  open_ = {id(structure)}
  stack = [structure, _LEAVE] + list(reversed(kids))
  while stack:
    x = stack.pop()
    if x is _LEAVE:
      open_.discard(id(stack.pop()))
    elif is_nested(x):
      if id(x) in open_:
        raise ValueError(f"tf.nest: the structure contains itself (a self-referencing "
                         f"{type(x).__name__}), so it cannot be flattened")
      open_.add(id(x))
      stack += [x, _LEAVE]
      stack.extend(reversed(_children(x)))
    else:
      parts = _expand(x) if expand_composites else None
      if parts is None:
        out.append(x)
      else:
        out.extend(parts)
  return out


_LEAVE = object()


def _rebuild(template, children):
  if isinstance(template, _abc.Mapping):
    mapping = dict(zip(_sorted_keys(template), children))
    items = [(k, mapping[k]) for k in template]
    try:
      return type(template)(items)
    except TypeError:
      return dict(items)
  if _is_namedtuple(template):
    return type(template)(*children)
  if isinstance(template, tuple):
    return tuple(children)
  if isinstance(template, list):
    return list(children)
  return type(template)(children)


def _pack(template, flat, pos, expand=False):
  if not is_nested(template):
    if expand and isinstance(template, (CompositeTensor, TypeSpec)):
      spec = template if isinstance(template, TypeSpec) else template._type_spec
      n = len(spec._component_specs)
      return spec._from_components(flat[pos:pos + n]), pos + n
    return flat[pos], pos + 1
  kids = []
  for c in _children(template):
    v, pos = _pack(c, flat, pos, expand)
    kids.append(v)
  return _rebuild(template, kids), pos


def pack_sequence_as(structure, flat_sequence, expand_composites=False):
  if not isinstance(flat_sequence, (list, tuple)) and not hasattr(flat_sequence, "__iter__"):
    raise TypeError(f"Attempted to pack value:\n  {flat_sequence!r:.80}\ninto a structure, but "
                    f"found incompatible type `{type(flat_sequence).__name__}` instead.")
  flat_sequence = list(flat_sequence)
  n = len(flatten(structure, expand_composites))
  if n != len(flat_sequence):
    raise ValueError(f"Could not pack sequence. Structure had {n} atoms, but flat_sequence had "
                     f"{len(flat_sequence)} items. Structure: {structure}, flat_sequence: "
                     f"{flat_sequence}.")
  if not is_nested(structure) and not expand_composites:
    return flat_sequence[0]
  return _pack(structure, flat_sequence, 0, expand_composites)[0]


def _composite_spec(x):
  if isinstance(x, TypeSpec):
    return x
  return x._type_spec if isinstance(x, CompositeTensor) else None


def assert_same_structure(nest1, nest2, check_types=True, expand_composites=False):
  def walk(a, b):
    if expand_composites:
      sa, sb = _composite_spec(a), _composite_spec(b)
      if (sa is None) != (sb is None) or (sa is not None and (
          type(sa) is not type(sb) or len(sa._component_specs) != len(sb._component_specs)
          or getattr(sa, "ragged_rank", None) != getattr(sb, "ragged_rank", None))):
        raise ValueError(f"The two structures don't have the same nested structure.\n\n"
                         f"First structure: type={type(a).__name__} str={a}\n\nSecond "
                         f"structure: type={type(b).__name__} str={b}\n\nMore specifically: "
                         f"Incompatible CompositeTensor TypeSpecs: {sa!r} vs. {sb!r}")
      if sa is not None:
        return
    if is_nested(a) != is_nested(b):
      raise ValueError(f"The two structures don't have the same nested structure.\n\n"
                       f"First structure: {nest1}\n\nSecond structure: {nest2}")
    if not is_nested(a):
      return
    if check_types and type(a) is not type(b):
      raise TypeError(f"The two structures don't have the same sequence type. Input structure "
                      f"has type {type(a)}, while shallow structure has type {type(b)}.")
    if isinstance(a, _abc.Mapping) and set(a) != set(b):
      raise ValueError(f"The two dictionaries don't have the same set of keys. First structure "
                       f"has keys {sorted(a)}, while second structure has keys {sorted(b)}.")
    ca, cb = _children(a), _children(b)
    if len(ca) != len(cb):
      raise ValueError(f"The two structures don't have the same number of elements.\n\n"
                       f"First structure: {nest1}\n\nSecond structure: {nest2}")
    for x, y in zip(ca, cb):
      walk(x, y)
  walk(nest1, nest2)


def map_structure(func, *structures, check_types=True, expand_composites=False):
  if not structures:
    raise ValueError("Must provide at least one structure")
  for s in structures[1:]:
    assert_same_structure(structures[0], s, check_types=check_types)
  flats = [flatten(s, expand_composites) for s in structures]
  return pack_sequence_as(structures[0], [func(*xs) for xs in zip(*flats)],
                          expand_composites)


def flatten_with_paths(structure):
  out = []
  open_ = set()

  def walk(x, path):
    if is_nested(x):
      if id(x) in open_:
        raise ValueError(f"tf.nest: the structure contains itself (a self-referencing "
                         f"{type(x).__name__}), so it cannot be flattened")
      open_.add(id(x))
      keys = _sorted_keys(x) if isinstance(x, _abc.Mapping) else range(len(x))
      for k, c in zip(keys, _children(x)):
        walk(c, path + (k,))
      open_.discard(id(x))
    else:
      out.append((path, x))
  walk(structure, ())
  return out
