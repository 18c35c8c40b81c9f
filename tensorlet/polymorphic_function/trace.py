"""Building a FuncGraph from a Python callable, replaying one through
`execute`, and compiling one into a Python callable. Shared by tf.function,
the branches and bodies of control flow, and their gradients."""
import numpy as np

from tensorlet import _nest as nest
from tensorlet import dtypes as _dt
from tensorlet.composite_tensor import CompositeTensor
from tensorlet.context import ctx
from tensorlet.graph import executor, passes
from tensorlet.graph.graph import FuncGraph
from tensorlet.ops.registry import execute
from tensorlet.tensor import EagerTensor, Tensor, convert_to_tensor
from tensorlet.tensor_spec import TensorSpec

__all__ = ["build_graph", "replay", "GraphCallable", "finish_outputs"]

_CONVERTIBLE = (bool, int, float, complex, str, bytes, np.ndarray, np.generic)


def finish_outputs(fg, out):
  """Identity nodes for tensor outputs. Python numbers, strings and NumPy values
  become constants (TF converts them: `return 1` gives tf.Tensor(1)); None and
  other objects stay in the structure."""
  from tensorlet.ops.array_ops import Identity
  flat = nest.flatten(out, expand_composites=True)
  template, positions, outputs = [], [], []
  for i, leaf in enumerate(flat):
    if hasattr(leaf, "_as_tensor") and not isinstance(leaf, Tensor):
      leaf = leaf._as_tensor()
    elif isinstance(leaf, _CONVERTIBLE):
      leaf = convert_to_tensor(leaf)
    if isinstance(leaf, Tensor):
      if leaf.dtype is _dt.resource:
        raise TypeError("A tf.function cannot return a resource handle")
      t = execute(Identity, [leaf], {}, "Identity")
      outputs.append(t)
      positions.append(i)
      template.append(t)
    else:
      template.append(leaf)
  fg.outputs = outputs
  fg.output_positions = positions
  fg.output_template = template
  fg.structured_outputs = nest.pack_sequence_as(out, template, expand_composites=True) \
      if nest.is_nested(out) or isinstance(out, CompositeTensor) else template[0]


def build_graph(fn, specs, name, arg_names=None):
  """Traces `fn(*placeholders)` into a FuncGraph nested in the current context.

  `specs` are TensorSpecs (one placeholder each). Returns the FuncGraph; its
  `inputs` are the placeholders, `outputs` the flat tensor outputs.
  """
  fg = FuncGraph(name, outer_graph=ctx.graph)
  names = arg_names or [f"arg{i}" for i in range(len(specs))]
  fg.inputs = [fg.placeholder(s, n) for s, n in zip(specs, names)]
  # NOTE: tapes do not record inside the nested graph; the node that runs it is
  # recorded instead (note_captured_variables lets tapes watch its variables).
  saved = (ctx.graph, ctx.scope, ctx.tapes)
  ctx.graph, ctx.scope, ctx.tapes = fg, "", ()
  try:
    out = fn(*fg.inputs)
    finish_outputs(fg, out)
  finally:
    ctx.graph, ctx.scope, ctx.tapes = saved
  return fg


def note_captured_variables(values):
  """Tapes watch the trainable variables among captured values, as if read here."""
  from tensorlet.ops.state_ops import variable_of
  for v in values:
    if v.dtype is _dt.resource:
      variable_of(v)._note_access()


def replay(fg, inputs, captures=None):
  """Re-executes `fg`'s ops through `execute` on `inputs` (placeholders -> tensors).

  Eagerly this runs (and records on tapes); inside a graph it inlines. Captured
  values map to `captures` when given (by position), else to the outer values.
  """
  from tensorlet.ops.state_ops import variable_of
  env = {id(ph): t for ph, t in zip(fg.inputs, inputs)}
  caps = list(fg.captures.values())
  for k, (value, ph) in enumerate(caps):
    env[id(ph)] = captures[k] if captures is not None else value
  for op in fg.get_operations():
    od = op.opdef
    if od.name == "Placeholder":
      continue
    ins = [env[id(t)] for t in op.inputs]
    if ctx.tapes and od.name != "ReadVariableOp":
      note_captured_variables(ins)
    if od.name == "ReadVariableOp":
      var = variable_of(ins[0])
      out = var._as_tensor() if ins[0] is var._handle else execute(od, ins, op.attrs)
    elif od.name == "CustomGradientIdentity":
      from tensorlet.autodiff.custom_gradient import replay_call
      out = replay_call(op, ins)
    else:
      attrs = op.attrs
      if od.name == "While" and ctx.tapes:
        attrs = dict(attrs, keep_history=True)  # a tape may need the iterations
      out = execute(od, ins, attrs, op.name)
    outs = out if isinstance(out, tuple) else (out,)
    for t, o in zip(op.outputs, outs):
      env[id(t)] = o
  flat = [env[id(t)] for t in fg.outputs]
  outs = list(fg.output_template)
  for pos, t in zip(fg.output_positions, flat):
    outs[pos] = t
  return nest.pack_sequence_as(fg.structured_outputs, outs, expand_composites=True)


def capture_values(fg):
  """The outer values a graph captured, in capture order."""
  return [v for v, _ in fg.captures.values()]


class GraphCallable:
  """A FuncGraph compiled once to a Python function over arrays:
  call(input arrays + capture values) -> tuple of output arrays."""

  def __init__(self, fg, name="branch"):
    self.fg = fg
    self.name = name
    self._run = None

  def plan(self):
    """(nodes, inputs, outputs, consts, sizes, types) of the optimised graph;
    inputs are the placeholders then the captures."""
    g = self.fg
    nodes = passes.from_func_graph(g)
    caps = list(g.captures.values())
    inputs = [id(ph) for ph in g.inputs] + [id(ph) for _, ph in caps]
    outputs = [id(t) for t in g.outputs]
    types, sizes = {}, {}
    consts = {}
    for op in g.get_operations():
      for t in op.outputs:
        s = t.shape
        types[id(t)] = (tuple(s.as_list()) if s.is_fully_defined() else None, t.dtype)
        n = s.num_elements()
        if n is not None:
          sizes[id(t)] = n
    nodes = passes.optimize(nodes, outputs, consts, types)
    return nodes, inputs, outputs, consts, sizes, types

  def _compile(self):
    nodes, inputs, outputs, consts, sizes, types = self.plan()
    self._run = executor.compile_nodes(nodes, inputs, outputs, consts, sizes,
                                       fn_name=self.name, types=types)
    return self._run

  def fused_loop(self, body, n_vars):
    """One compiled `while` loop with this graph as its test and `body` as its body."""
    loop = getattr(self, "_loop", None)
    if loop is None or loop[0] is not body:
      n_c = len(self.fg.captures)
      n_b = len(body.fg.captures)
      fn = executor.compile_loop(self.plan(), body.plan(), n_vars, n_c, n_b)
      self._loop = loop = (body, fn)
    return loop[1]

  def __call__(self, *arrays):
    run = self._run or self._compile()
    return run(*arrays)

  def compiled(self):
    """The compiled function itself (no per-call dispatch; loops call it directly)."""
    return self._run or self._compile()


def specs_of(tensors):
  return [TensorSpec(t.shape, t.dtype) for t in tensors]


def as_tensors(values):
  return [v if isinstance(v, Tensor) else convert_to_tensor(v) for v in values]


def is_eager(t):
  return isinstance(t, EagerTensor)
