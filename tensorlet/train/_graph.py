"""The object graph of a checkpoint and how restore matches it to Python objects.

Saving walks from the root breadth first. Nodes are objects (one node per
object, however many paths reach it); edges are local names:
  * `tf.Variable` - a leaf whose value is saved;
  * `tf.Module` (Keras layers and models), `tf.random.Generator` and any
    object with an `_tl_slot_variables` method (optimizers) - their
    attributes in sorted order, as `tf.Module` walks them;
  * `tf.train.Checkpoint` and any object with a `_tl_checkpoint_children()`
    method - the (name, value) pairs that method returns;
  * lists, tuples and string-keyed dicts holding any of these - by index,
    namedtuple field or key.
Optimizer slot variables are not edges: each optimizer node lists
(primary variable node, slot name, slot node), so slots follow the variables
they belong to, whatever the optimizer calls its internal containers.

Restoring matches checkpoint nodes to objects from the root by edge names.
Everything found now is validated first (kind, dtype, shape) and only then
assigned, so a failed restore changes nothing. A checkpoint edge whose object
does not exist yet (a Keras layer not built, an optimizer without slots) is
kept on the parent in `_tl_pending_restore`; `checkpoint_hooks` calls back
when the attribute is set or the slot is created, and the value is assigned
then (TF's deferred restoration).
"""
import sys
from collections import deque

import numpy as np

from tensorlet import dtypes as _dt
from tensorlet.context import ctx
from tensorlet.errors import InvalidArgumentError
from tensorlet.module import Module
from tensorlet.variables import Variable
from tensorlet.train import checkpoint_hooks

__all__ = ["is_trackable", "ObjectGraph", "Restoration"]

_PENDING = "_tl_pending_restore"
_SAVABLE = frozenset(d for d in _dt.ALL if d not in (_dt.resource, _dt.variant))


def _is_generator(x):
  m = sys.modules.get("tensorlet.ops.random_ops")
  return m is not None and isinstance(x, m.Generator)


def _is_optimizer(x):
  return callable(getattr(type(x), "_tl_slot_variables", None))


def is_trackable(x):
  """True for objects whose state checkpoints save (containers excluded)."""
  return (isinstance(x, (Variable, Module)) or _is_optimizer(x) or _is_generator(x) or
          callable(getattr(type(x), "_tl_checkpoint_children", None)))


def _is_container(x):
  return isinstance(x, (list, tuple, dict))


def _escape(name):
  # NOTE: TF's escaping, so "a/b" as one name never collides with a -> b.
  return name.replace(".", "..").replace("/", ".S")


def _slot_list(opt):
  """(primary variable, slot name, slot variable) triples, as optimizers yield them."""
  return list(opt._tl_slot_variables())


def _items(obj, path, strict):
  """(name, value) pairs of `obj`'s direct children, trackable or container."""
  hook = getattr(type(obj), "_tl_checkpoint_children", None)
  if callable(hook):
    pairs = obj._tl_checkpoint_children()
    pairs = pairs.items() if isinstance(pairs, dict) else pairs
  elif isinstance(obj, dict):
    pairs = []
    for k in obj:
      if isinstance(k, str):
        pairs.append((k, obj[k]))
      elif strict and _holds_state(obj[k], ()):
        raise ValueError(f"Cannot checkpoint the dict at '{path or '(root)'}': its key {k!r} "
                         f"is not a string, and checkpoints name children by string keys.")
    pairs.sort(key=lambda kv: kv[0])
  elif isinstance(obj, tuple) and hasattr(obj, "_fields"):
    pairs = list(zip(obj._fields, obj))
  elif isinstance(obj, (list, tuple)):
    pairs = [(str(i), v) for i, v in enumerate(obj)]
  elif isinstance(obj, Variable):
    return []
  else:
    d = getattr(obj, "__dict__", {})
    ignored = getattr(obj, "_TF_MODULE_IGNORED_PROPERTIES", ())
    pairs = [(k, d[k]) for k in sorted(d) if k != _PENDING and k not in ignored]
  return [(str(k), v) for k, v in pairs if is_trackable(v) or _is_container(v)]


def _holds_state(x, exclude, seen=None):
  """True if `x` is or (for a container) holds a trackable not in `exclude`."""
  if is_trackable(x):
    return id(x) not in exclude
  seen = set() if seen is None else seen
  if not _is_container(x) or id(x) in seen:
    return False
  seen.add(id(x))
  vals = x.values() if isinstance(x, dict) else x
  return any(_holds_state(v, exclude, seen) for v in vals)


class ObjectGraph:
  """The objects reachable from a root: nodes, paths, edges and optimizer slots."""

  def __init__(self, root, strict=True):
    self.objs, self.paths, self.children, self.slots = [], [], [], {}
    exclude = set()
    # NOTE: two walks: the first finds the optimizers, whose slot variables must
    # then not appear as plain children anywhere (their containers name them by
    # creation order or variable id, which a fresh optimizer does not share).
    for opt in self._walk(root, exclude, strict=False):
      exclude.update(id(s) for _, _, s in _slot_list(opt))
    optimizers = self._walk(root, exclude, strict)
    index = {id(o): i for i, o in enumerate(self.objs)}
    for opt in optimizers:
      i = index[id(opt)]
      for primary, slot_name, slot in _slot_list(opt):
        p = index.get(id(primary))
        if p is None:
          continue  # NOTE: as TF: slots of variables this checkpoint does not save
        s = index.get(id(slot))
        if s is None:
          s = index[id(slot)] = self._add(
              slot, f"{self.paths[p]}/.OPTIMIZER_SLOT/{self.paths[i] or '(root)'}/{slot_name}")
        self.slots.setdefault(i, []).append((p, str(slot_name), s))

  def _add(self, obj, path):
    self.objs.append(obj)
    self.paths.append(path)
    self.children.append({})
    return len(self.objs) - 1

  def _walk(self, root, exclude, strict):
    self.objs, self.paths, self.children, self.slots = [], [], [], {}
    index = {id(root): self._add(root, "")}
    optimizers = []
    queue = deque([0])
    while queue:
      i = queue.popleft()
      obj = self.objs[i]
      skip = exclude
      if _is_optimizer(obj):
        optimizers.append(obj)
        # NOTE: an optimizer's own containers index slots by its primary variables
        # (often keyed by id); those belong to the model, so such containers are skipped.
        skip = exclude | {id(v) for v, _, _ in _slot_list(obj)}
      for name, child in _items(obj, self.paths[i], strict):
        if id(child) in exclude or (_is_container(child) and not _holds_state(child, skip)):
          continue
        j = index.get(id(child))
        if j is None:
          j = index[id(child)] = self._add(child, _join(self.paths[i], _escape(name)))
          queue.append(j)
        self.children[i][name] = j
    return optimizers

  def variables(self):
    return [(o, p) for o, p in zip(self.objs, self.paths) if isinstance(o, Variable)]

  def serialize(self):
    """(nodes, tensors) for the index and data files."""
    nodes, tensors = [], {}
    for i, obj in enumerate(self.objs):
      node = {"type": type(obj).__name__}
      if self.children[i]:
        node["children"] = dict(self.children[i])
      if i in self.slots:
        node["slots"] = [list(s) for s in self.slots[i]]
      if isinstance(obj, Variable):
        if obj.dtype not in _SAVABLE:
          raise ValueError(f"Cannot checkpoint the variable at '{self.paths[i]}': dtype "
                           f"{obj.dtype.name} cannot be saved.")
        key = self.paths[i] + "/.ATTRIBUTES/VARIABLE_VALUE"
        node["variable"] = key
        tensors[key] = (np.asarray(obj.numpy()), obj.dtype)
      nodes.append(node)
    return nodes, tensors


def _join(path, name):
  return f"{path}/{name}" if path else name


def _describe(path):
  return f"'{path}'" if path else "the root object"


class _Pending:
  """What a restore still expects on one object: children by attribute name and
  slots by (id of primary variable, slot name)."""

  __slots__ = ("children", "slots")

  def __init__(self):
    self.children = {}
    self.slots = {}

  def __bool__(self):
    return bool(self.children or self.slots)

  def __repr__(self):
    return f"<pending checkpoint values: {sorted(self.children)} {sorted(self.slots)}>"


def _pending(obj, create):
  p = getattr(obj, _PENDING, None) if not _is_container(obj) else None
  if p is None and create and not _is_container(obj):
    p = _Pending()
    try:
      object.__setattr__(obj, _PENDING, p)
    except (AttributeError, TypeError):
      return None
  return p


def _tidy(obj):
  p = getattr(obj, _PENDING, None)
  if p is not None and not p:
    try:
      object.__delattr__(obj, _PENDING)
    except AttributeError:
      pass


def _uid(v):
  return getattr(v, "_uid", None) or id(v)


def _assign(var, value):
  """Assigns eagerly, also when called while a tf.function is being traced (a
  variable created on a first trace): restoring is not part of the function."""
  saved = ctx.graph, ctx.tapes
  ctx.graph, ctx.tapes = None, ()
  try:
    var.assign(value)
  finally:
    ctx.graph, ctx.tapes = saved


class _Plan:
  """What one matching pass found: validated before anything is applied."""

  def __init__(self):
    self.node_obj, self.obj_node = {}, {}
    self.assign, self.defer, self.defer_slots, self.waits, self.errors = [], [], [], [], []


class Restoration:
  """One restore() call: checkpoint nodes bound to Python objects, now and later."""

  def __init__(self, reader, root):
    self.reader = reader
    self.root = root
    self.node_obj = {}
    self.obj_node = {}
    self.slot_waits = {}  # primary node id -> [(optimizer, slot name, slot node id)]

  # ---------------------------------------------------------------- matching
  def match(self, node_id, obj):
    """Binds node `node_id` to `obj` and everything below it; validates, then assigns."""
    plan = _Plan()
    queue = deque([(node_id, obj)])
    while True:
      self._collect(queue, plan)
      self._resolve_slots(plan, queue)
      if not queue:
        break
    if plan.errors:
      raise plan.errors[0]
    for var, value in plan.assign:
      _assign(var, value)
    self.node_obj.update(plan.node_obj)
    self.obj_node.update(plan.obj_node)
    for parent, name, n in plan.defer:
      _pending(parent, True).children[name] = (self, n)
    for opt, key, n in plan.defer_slots:
      _pending(opt, True).slots[key] = (self, n)
    for p, opt, slot, s in plan.waits:
      self.slot_waits.setdefault(p, []).append((opt, slot, s))

  def _bound(self, n, plan):
    o = self.node_obj.get(n)
    return o if o is not None else plan.node_obj.get(n)

  def _collect(self, queue, plan):
    nodes, paths = self.reader.nodes, self.reader.paths
    while queue:
      n, obj = queue.popleft()
      if self._bound(n, plan) is not None or id(obj) in self.obj_node or \
          id(obj) in plan.obj_node:
        continue
      node = nodes[n]
      key = node.get("variable")
      if (key is not None) != isinstance(obj, Variable):
        plan.errors.append(ValueError(
            f"Cannot restore {_describe(paths[n])} from {self.reader.prefix!r}: the checkpoint "
            f"holds a {node.get('type', 'object')} there, the Python object is a "
            f"{type(obj).__name__}."))
        continue
      plan.node_obj[n] = obj
      plan.obj_node[id(obj)] = n
      if key is not None:
        self._check_variable(obj, key, paths[n], plan)
        continue
      have = dict(_items(obj, paths[n], strict=False))
      for name, c in node.get("children", {}).items():
        child = have.get(name)
        if child is not None:
          queue.append((c, child))
        elif self._bound(c, plan) is None and not _is_container(obj):
          plan.defer.append((obj, name, c))
      for p, slot, s in node.get("slots", []):
        plan.waits.append((p, obj, slot, s))

  def _check_variable(self, var, key, path, plan):
    dtype, shape = self.reader.meta[key]
    if var.dtype is not dtype:
      plan.errors.append(InvalidArgumentError(
          None, None, f"tensor_name = {key}; expected dtype {var.dtype.name} does not equal "
          f"original dtype {dtype.name} (variable '{path}' in checkpoint "
          f"{self.reader.prefix!r})"))
    elif not var.shape.is_compatible_with(shape):
      have = tuple(var.shape.as_list()) if var.shape.rank is not None else "<unknown>"
      plan.errors.append(ValueError(
          f"Received incompatible tensor with shape {shape} when attempting to restore "
          f"variable with shape {have} and name {key} (variable '{path}' in checkpoint "
          f"{self.reader.prefix!r})."))
    else:
      plan.assign.append((var, self.reader.values[key]))

  def _resolve_slots(self, plan, queue):
    """Slots whose primary variable is bound: bind the slot variable if the
    optimizer has made it, else wait for `checkpoint_hooks.slot_created`."""
    waits = [(p, o, sl, s) for p, o, sl, s in plan.waits]
    for p, entries in list(self.slot_waits.items()):
      if p in plan.node_obj:
        waits.extend((p, o, sl, s) for o, sl, s in entries)
        del self.slot_waits[p]
    plan.waits = []
    for p, opt, slot, s in waits:
      primary = self._bound(p, plan)
      if primary is None:
        plan.waits.append((p, opt, slot, s))
        continue
      existing = {(id(v), name): sv for v, name, sv in _slot_list(opt)}
      sv = existing.get((id(primary), slot))
      if sv is not None:
        queue.append((s, sv))
      elif self._bound(s, plan) is None:
        plan.defer_slots.append((opt, (_uid(primary), slot), s))

  # ----------------------------------------------------------------- status
  def unresolved(self):
    """Checkpointed variables not bound to a Python variable (yet)."""
    out = []
    for n, node in enumerate(self.reader.nodes):
      key = node.get("variable")
      if key is not None and n not in self.node_obj:
        dtype, shape = self.reader.meta[key]
        out.append(f"{self.reader.paths[n]} ({dtype.name} {list(shape)})")
    return out

  def unmatched_python(self, skip=()):
    """Python variables under the root that got no value from the checkpoint."""
    g = ObjectGraph(self.root, strict=False)
    return [p for v, p in g.variables() if id(v) not in self.obj_node and
            all(v is not s for s in skip)]

  def matched_count(self):
    return len(self.node_obj)


# ------------------------------------------------------------------- hooks
def _on_child(parent, name, value):
  p = getattr(parent, _PENDING, None)
  entry = p.children.get(name) if isinstance(p, _Pending) else None
  if entry is None or not (is_trackable(value) or _is_container(value)):
    return
  del p.children[name]
  _tidy(parent)
  restoration, node_id = entry
  restoration.match(node_id, value)


def _on_slot(optimizer, slot_name, variable, slot_variable):
  p = getattr(optimizer, _PENDING, None)
  if not isinstance(p, _Pending):
    return
  entry = p.slots.pop((_uid(variable), slot_name), None)
  if entry is None:
    return
  _tidy(optimizer)
  restoration, node_id = entry
  restoration.match(node_id, slot_variable)


checkpoint_hooks.set_handlers(child=_on_child, slot=_on_slot)
