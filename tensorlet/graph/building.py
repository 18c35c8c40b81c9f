"""Building a FuncGraph from a Python callable: shared by tf.function, the
branches and bodies of control flow, and tf.data functions."""
import numpy as np

from tensorlet import _nest as nest
from tensorlet import dtypes as _dt
from tensorlet.composite_tensor import CompositeTensor
from tensorlet.context import ctx
from tensorlet.graph.graph import FuncGraph
from tensorlet.ops.array_ops import Identity
from tensorlet.ops.registry import execute
from tensorlet.ops.state_ops import variable_of
from tensorlet.tensor import Tensor, convert_to_tensor

__all__ = ["build_graph", "finish_outputs", "note_captured_variables", "capture_values"]

_CONVERTIBLE = (bool, int, float, complex, str, bytes, np.ndarray, np.generic)


def finish_outputs(fg, out):
  """Identity nodes for tensor outputs. Python numbers, strings and NumPy values
  become constants (TF converts them: `return 1` gives tf.Tensor(1)); None and
  other objects stay in the structure."""
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
  for v in values:
    if v.dtype is _dt.resource:
      variable_of(v)._note_access()


def capture_values(fg):
  """The outer values a graph captured, in capture order."""
  return [v for v, _ in fg.captures.values()]
