"""Graph optimisation passes over a flat, program-ordered node list.

A `Node` is (opdef, inputs, attrs, outputs) where inputs/outputs are value
ids; `consts` maps a value id to a known value (Const nodes, and captured
eager tensors whose values cannot change). Each pass is a pure function
`(nodes, outputs, consts) -> (nodes, changed)` and PIPELINE lists them in
order; `optimize` runs the pipeline to a fixed point.
"""
import numpy as np

from tensorlet.context import disabled_passes

__all__ = ["Node", "PIPELINE", "optimize", "from_func_graph"]

_FOLD_MAX_BYTES = 1 << 22


class Node:
  __slots__ = ("opdef", "inputs", "attrs", "outputs", "controls", "name", "source")

  def __init__(self, opdef, inputs, attrs, outputs, controls=(), name="", source=None):
    self.opdef = opdef
    self.inputs = list(inputs)
    self.attrs = attrs
    self.outputs = list(outputs)
    self.controls = list(controls)
    self.name = name
    self.source = source

  def __repr__(self):
    return f"Node({self.opdef.name}, in={self.inputs}, out={self.outputs})"


def from_func_graph(fg):
  """Nodes for every non-placeholder op of `fg` (placeholders become value ids)."""
  nodes = []
  for op in fg.get_operations():
    if op.type == "Placeholder":
      continue
    nodes.append(Node(op.opdef, [id(t) for t in op.inputs], op.attrs,
                      [id(t) for t in op.outputs], [id(c) for c in op.control_inputs],
                      op.name, op.source))
  return nodes


def _substitute(nodes, outputs, sub):
  for n in nodes:
    n.inputs = [sub.get(i, i) for i in n.inputs]
  outputs[:] = [sub.get(o, o) for o in outputs]


def prune(nodes, outputs, consts):
  """Keeps what outputs and stateful operations need."""
  needed = set(outputs)
  keep = []
  for n in reversed(nodes):
    if n.opdef.stateful or any(o in needed for o in n.outputs):
      keep.append(n)
      needed.update(n.inputs)
  keep.reverse()
  return keep, len(keep) != len(nodes)


def fold_constants(nodes, outputs, consts):
  """Evaluates nodes whose inputs are all known, replacing them by constants."""
  changed = False
  keep = []
  for n in nodes:
    od = n.opdef
    if od.name == "Const":
      consts[n.outputs[0]] = n.attrs["value"]
      changed = True
      continue
    if n.outputs and all(o in consts for o in n.outputs) and not od.stateful:
      changed = True  # value already known while tracing (shape arithmetic)
      continue
    if (od.stateful or od.name == "ReadVariableOp" or not n.inputs or od.num_outputs != 1
        or len(n.outputs) != 1 or not all(i in consts for i in n.inputs)):
      keep.append(n)
      continue
    try:
      v = od.kernel(*[consts[i] for i in n.inputs], **n.attrs)
    except Exception:  # noqa: BLE001 - leave failing nodes to raise at run time
      keep.append(n)
      continue
    if np.asarray(v).nbytes > _FOLD_MAX_BYTES:
      keep.append(n)
      continue
    consts[n.outputs[0]] = v
    changed = True
  return keep, changed


def _attr_key(attrs):
  items = []
  for k in sorted(attrs):
    v = attrs[k]
    if isinstance(v, np.ndarray):
      return None
    try:
      hash(v)
    except TypeError:
      return None
    items.append((k, v))
  return tuple(items)


def cse(nodes, outputs, consts):
  """Merges nodes with the same op, inputs, attrs and control inputs."""
  seen = {}
  sub = {}
  keep = []
  for n in nodes:
    n.inputs = [sub.get(i, i) for i in n.inputs]
    if n.opdef.stateful:
      keep.append(n)
      continue
    ak = _attr_key(n.attrs)
    if ak is None:
      keep.append(n)
      continue
    key = (n.opdef.name, tuple(n.inputs), ak, tuple(n.controls))
    prev = seen.get(key)
    if prev is None:
      seen[key] = n
      keep.append(n)
    else:
      for a, b in zip(n.outputs, prev.outputs):
        sub[a] = b
  if sub:
    _substitute(keep, outputs, sub)
  return keep, bool(sub)


def _is_const(consts, i, value):
  v = consts.get(i)
  return v is not None and np.ndim(v) == 0 and v == value


def _alias_of(n, consts, zeros):
  """The input a node equals, when an algebraic identity makes it redundant."""
  name, ins = n.opdef.name, n.inputs
  if name in ("Identity", "StopGradient") and len(ins) == 1:
    return ins[0]
  if name == "AddV2" and (ins[0] in zeros or _is_const(consts, ins[0], 0)):
    return ins[1]
  if name in ("AddV2", "Sub") and (ins[1] in zeros or _is_const(consts, ins[1], 0)):
    return ins[0]
  if name in ("Mul", "RealDiv") and _is_const(consts, ins[1], 1):
    return ins[0]
  if name == "Mul" and _is_const(consts, ins[0], 1):
    return ins[1]
  return None


def simplify(nodes, outputs, consts):
  """Identities that keep dtype and shape: x*1, x/1, x+0, x-0, zeros_like(.)+y, Identity."""
  sub = {}
  keep = []
  zeros = {o for n in nodes if n.opdef.name == "ZerosLike" for o in n.outputs}
  for n in nodes:
    n.inputs = [sub.get(i, i) for i in n.inputs]
    alias = _alias_of(n, consts, zeros)
    if alias is not None and n.outputs[0] not in outputs and _same_type(n, alias, consts):
      sub[n.outputs[0]] = alias
      continue
    keep.append(n)
  if sub:
    _substitute(keep, outputs, sub)
  return keep, bool(sub)


# Static shapes/dtypes of values are recorded by the executor before passes run.
_TYPES = {}


def _same_type(node, alias, consts):
  """Only alias when the output provably has the alias's shape and dtype."""
  a = _TYPES.get(alias)
  o = _TYPES.get(node.outputs[0])
  return a is not None and o is not None and a == o and a[0] is not None


PIPELINE = [prune, fold_constants, cse, simplify, prune]


def optimize(nodes, outputs, consts, types, max_rounds=4):
  off = disabled_passes()  # tf.config.optimizer.set_experimental_options
  pipeline = [p for p in PIPELINE if p.__name__ not in off] if off else PIPELINE
  _TYPES.clear()
  _TYPES.update(types)
  for _ in range(max_rounds):
    changed = False
    for p in pipeline:
      nodes, c = p(nodes, outputs, consts)
      changed = changed or c
    if not changed:
      break
  _TYPES.clear()
  return nodes
