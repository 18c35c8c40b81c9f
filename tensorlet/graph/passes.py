"""Graph optimisation passes and `lower`, which prepares a graph for execution.

Every pass is a function `graph -> (graph, changed)` over FuncGraphs whose
inputs are placeholders and whose known values are `Const` nodes; it returns
a new graph (or the same one when nothing changed) and reads no global
state. `PIPELINE` lists them in order; `optimize` runs it to a fixed point
(linting the graph after every pass when `LINT` is set, as the test suite
does). What a pass knows about an op comes from its OpDef (`role`,
`stateful`, `simplify`), never from its name.
"""
import numpy as np

from tensorlet import dtypes as _dt
from tensorlet.context import disabled_passes
from tensorlet.errors import InvalidArgumentError
from tensorlet.graph.graph import FuncGraph
from tensorlet.ops.registry import REGISTRY, ZERO

__all__ = ["PIPELINE", "optimize", "lower", "prune", "fold_constants", "cse", "simplify"]

_FOLD_MAX_BYTES = 1 << 22

# Set by the test suite: every pass's result is linted (Graph.lint).
LINT = False


class _Rewrite:
  """Builds a graph from another by copying ops with their inputs mapped."""

  def __init__(self, g):
    self.src = g
    self.g = FuncGraph(g.name)
    self.map = {}      # id(old tensor) -> new tensor
    self.ops = {}      # id(old op) -> new op

  def copy(self, op, inputs=None):
    m = self.map
    ins = [m[id(t)] for t in op.inputs] if inputs is None else inputs
    new = self.g.add_node(op.opdef, op.name, ins, op.attrs, like=op, source=op.source)
    if op.control_inputs:
      ops = self.ops
      new.control_inputs = [ops[id(c)] for c in op.control_inputs if id(c) in ops]
    self.ops[id(op)] = new
    for a, b in zip(op.outputs, new.outputs):
      m[id(a)] = b
    return new

  def const(self, op, value):
    """A Const node standing for `op`'s single output, with its name."""
    out = op.outputs[0]
    new = self.g.add_node(REGISTRY["Const"], op.name, [], {"value": value, "dtype": out.dtype},
                          like=op, source=op.source)
    self.map[id(out)] = new.outputs[0]
    return new

  def finish(self):
    m = self.map
    self.g.inputs = [m[id(t)] for t in self.src.inputs]
    self.g.outputs = [m[id(t)] for t in self.src.outputs]
    return self.g


def _apply(g, drop=(), alias=None, consts=None):
  """The result graph of a pass's decisions about `g`'s ops: `drop` (op ids),
  `alias` (id(output) -> the tensor of `g` it equals), `consts` (id(op) -> value)."""
  rw = _Rewrite(g)
  m = rw.map
  for op in g.get_operations():
    k = id(op)
    if k in drop:
      continue
    if consts and k in consts:
      rw.const(op, consts[k])
      continue
    if alias:
      outs = op.outputs
      if len(outs) == 1 and id(outs[0]) in alias:
        m[id(outs[0])] = m[id(alias[id(outs[0])])]
        continue
    rw.copy(op)
  return rw.finish()


def _const_of(t):
  """The value of a Const node's output, else None."""
  op = t.op
  return op.attrs["value"] if op.opdef.is_const else None


def prune(g):
  """Keeps what the outputs and stateful operations need."""
  needed = {id(t) for t in g.outputs}
  add = needed.add
  drop = set()
  for op in reversed(g.get_operations()):
    od = op.opdef
    outs = op.outputs
    if od.stateful or od.role == "placeholder" or id(op) in needed or (
        id(outs[0]) in needed if len(outs) == 1 else any(id(o) in needed for o in outs)):
      for t in op.inputs:
        add(id(t))
      for c in op.control_inputs:
        add(id(c))  # NOTE: an op without outputs (tf.group's NoOp) is kept by identity
        for o in c.outputs:
          add(id(o))
    else:
      drop.add(id(op))
  if not drop:
    return g, False
  return _apply(g, drop=drop), True


def _foldable(op):
  od = op.opdef
  return not (od.stateful or od.role is not None or not op.inputs or od.num_outputs != 1 or
              len(op.outputs) != 1 or any(t.dtype is _dt.resource for t in op.inputs))


def fold_constants(g):
  """Evaluates ops whose inputs are all constants, replacing them by constants."""
  known = {}     # id(tensor) -> value, for Const outputs and folded ops
  folded = {}
  for op in g.get_operations():
    od = op.opdef
    if od.is_const:
      known[id(op.outputs[0])] = op.attrs["value"]
      continue
    if not _foldable(op):
      continue
    vals = [known.get(id(t)) for t in op.inputs]
    if any(v is None for v in vals):
      continue
    try:
      v = od.kernel(*vals, **op.attrs)
    except Exception:  # noqa: BLE001 - leave failing ops to raise at run time
      continue
    if v is None or np.asarray(v).nbytes > _FOLD_MAX_BYTES:
      continue
    known[id(op.outputs[0])] = folded[id(op)] = v
  if not folded:
    return g, False
  return _apply(g, consts=folded), True


def _attr_key(attrs):
  if not attrs:
    return ()
  items = []
  for k in sorted(attrs):
    v = attrs[k]
    if isinstance(v, np.ndarray):
      return None
    # NOTE: by bits, so -0.0 and 0.0 (equal, same hash) stay two values.
    if isinstance(v, np.generic):
      v = (v.dtype.str, v.tobytes())
    elif type(v) is float:
      v = (float, v.hex())
    try:
      hash(v)
    except TypeError:
      return None
    items.append((k, v))
  return tuple(items)


def cse(g):
  """Merges ops with the same OpDef, inputs, attrs and control inputs."""
  seen = {}
  alias = {}     # id(output) -> the earlier op's output
  rep_op = {}    # id(merged op) -> the op it merged into
  drop = set()
  for op in g.get_operations():
    od = op.opdef
    if od.stateful or od.is_placeholder:
      continue
    ak = _attr_key(op.attrs)
    if ak is None:
      continue
    ins = tuple(id(alias.get(id(t), t)) for t in op.inputs)
    ctl = tuple(id(rep_op.get(id(c), c)) for c in op.control_inputs)
    key = (od, ins, ak, ctl)
    prev = seen.get(key)
    if prev is None:
      seen[key] = op
      continue
    if len(op.outputs) != 1:
      # NOTE: multi-output ops merge as a whole: their outputs alias one by one.
      for a, b in zip(op.outputs, prev.outputs):
        alias[id(a)] = b
    else:
      alias[id(op.outputs[0])] = prev.outputs[0]
    rep_op[id(op)] = prev
    drop.add(id(op))
  if not drop:
    return g, False
  rw = _Rewrite(g)
  m = rw.map
  for op in g.get_operations():
    if id(op) in drop:
      for o in op.outputs:
        m[id(o)] = m[id(alias[id(o)])]
      rw.ops[id(op)] = rw.ops[id(rep_op[id(op)])]
      continue
    rw.copy(op)
  return rw.finish(), True


def _same_type(a, b):
  """Only alias when the output provably has the alias's shape and dtype."""
  return a.dtype is b.dtype and a.shape.is_fully_defined() and \
      a.shape.as_list() == b.shape.as_list()


def simplify(g):
  """Identities from each OpDef's `simplify` hook (x*1, x/1, x+0, x-0,
  zeros_like(.)+y, Identity) that keep dtype and shape; graph outputs stay."""
  alias = {}
  outs = {id(t) for t in g.outputs}
  for op in g.get_operations():
    hook = op.opdef.simplify
    if hook is not None and len(op.outputs) == 1 and id(op.outputs[0]) not in outs:
      ins = [alias.get(id(t), t) for t in op.inputs]
      k = hook([_known(t) for t in ins])
      if k is not None and _same_type(op.outputs[0], ins[k]):
        alias[id(op.outputs[0])] = ins[k]
  if not alias:
    return g, False
  return _apply(g, alias=alias), True


def _known(t):
  """What `simplify` hooks see of an input: ZERO (all zeros), a 0-d constant, or None."""
  role = t.op.opdef.role
  if role is None:
    return None
  if role == "zeros":
    return ZERO
  v = _const_of(t)
  if v is None or not isinstance(v, (np.ndarray, np.generic)) or v.dtype.kind not in "biufc":
    return None
  if np.ndim(v) == 0:
    return v
  return ZERO if v.size and v.size <= 4096 and not v.any() else None


PIPELINE = [prune, fold_constants, cse, simplify, prune]


def optimize(g, max_rounds=4, lint=None):
  """Runs PIPELINE until nothing changes (at most `max_rounds` rounds), less the
  passes switched off by tf.config.optimizer.set_experimental_options."""
  lint = LINT if lint is None else lint
  off = disabled_passes()
  pipeline = [p for p in PIPELINE if p.__name__ not in off] if off else PIPELINE
  for _ in range(max_rounds):
    changed = False
    for p in pipeline:
      g, c = p(g)
      if lint and c:
        g.lint()
      changed = changed or c
    if not changed:
      break
  return g


def lower(fg, inputs=None, bind_captures=True, optimized=True):
  """The graph that executors run for `fg`: a copy whose inputs are `inputs`
  (default fg.inputs) then, unless `bind_captures`, the capture placeholders;
  bound captures (eager tensors, variables) and values known while tracing
  become Const nodes; then the optimisation pipeline. `fg` is not changed."""
  inputs = list(fg.inputs if inputs is None else inputs)
  caps = list(fg.captures.values())
  if not bind_captures:
    inputs += [ph for _, ph in caps]
  fed = {id(t) for t in inputs}
  rw = _Rewrite(fg)
  const = REGISTRY["Const"]
  bound = {}
  if bind_captures:
    for value, ph in caps:
      bound[id(ph)] = _bound_value(value, fg)
  scalars = {}   # (dtype, value) -> the Const standing for every such scalar
  for op in fg.get_operations():
    od = op.opdef
    if od.is_const and not op.control_inputs:
      v = op.attrs["value"]
      if isinstance(v, (np.ndarray, np.generic)) and v.ndim == 0 and v.dtype.kind in "biuf":
        key = (op.outputs[0].dtype, v.dtype, v.tobytes())  # bits: -0.0 is not 0.0
        hit = scalars.get(key)
        if hit is not None:
          rw.map[id(op.outputs[0])] = hit   # NOTE: CSE's work, done here at no cost
          continue
        scalars[key] = rw.copy(op).outputs[0]
        continue
    if od.is_placeholder:
      out = op.outputs[0]
      if id(out) in bound:
        v = bound[id(out)]
        new = rw.g.add_node(const, op.name, [], {"value": v, "dtype": out.dtype}, like=op)
        rw.map[id(out)] = new.outputs[0]
      elif id(out) in fed:
        rw.copy(op)
      continue
    if not od.stateful and od.num_outputs == 1 and len(op.outputs) == 1 and \
        op.outputs[0]._const is not None and not od.is_const:
      c = op.outputs[0]._const
      rw.const(op, c if c.ndim else c[()])  # known while tracing (shape arithmetic)
      continue
    rw.copy(op)
  rw.g.inputs = [rw.map[id(t)] for t in inputs]
  rw.g.outputs = [rw.map[id(t)] for t in fg.outputs]
  g = rw.g
  if LINT:
    g.lint()
  return optimize(g) if optimized else g


def _bound_value(value, fg):
  if value.dtype is _dt.resource:
    from tensorlet.ops.state_ops import variable_of
    return variable_of(value)
  v = getattr(value, "_value", None)
  if v is None or getattr(value, "op", None) is not None:
    raise InvalidArgumentError(None, None, f"{fg.name}: a captured tensor has no value")
  return v
