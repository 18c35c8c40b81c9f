"""The ops that run graphs: If/StatelessIf, While, PartitionedCall/
StatefulPartitionedCall (TF's call op), and their helpers.

Their attributes hold graphs and plain data only; kernels run the graphs
through the executor's compiled-graph cache (registry.GRAPH_EXEC, filled by
graph/executor.py). tf.cond and tf.while_loop, which build If and While
nodes, are in graph/control_flow.py; the gradients in autodiff/.
"""
import threading

import numpy as np

from tensorlet import dtypes as _dt
from tensorlet.context import ctx
from tensorlet.errors import InvalidArgumentError
from tensorlet.ops.registry import GRAPH_EXEC, execute, op
from tensorlet.tensor_shape import TensorShape

__all__ = ["Variant", "call", "If", "StatelessIf", "While", "PartitionedCall",
           "StatefulPartitionedCall"]


class Variant:
  """An opaque value of dtype `variant` (loop histories, tensor lists).

  For a tensor list (a tuple), `written` may give the indices of its non-None slots
  (None: not known) and `clean` says no slot holds a Variant zero: hints that let a
  loop's gradient add a one-slot list to its accumulator without scanning every slot.
  """

  __slots__ = ("value", "written", "clean")

  def __init__(self, value, written=None, clean=False):
    self.value = value
    self.written = written
    self.clean = clean

  def __repr__(self):
    return f"<variant {type(self.value).__name__}>"


def _stateful(*graphs):
  for g in graphs:
    hit = getattr(g, "_stateful", None)
    if hit is None:
      hit = g._stateful = any(o.opdef.stateful for o in g.get_operations())
    if hit:
      return True
  return False


# ------------------------------------------------------------------ call

def _call_shape(inputs, attrs):
  return [(t.shape, t.dtype) for t in attrs["f"].outputs]


def _call_kernel(*args, f):
  return GRAPH_EXEC["function"](f)(*args)


# TF's PartitionedCall: runs the graph `f` on (its inputs..., its captures...);
# its gradient runs the shared reverse pass over `f` (autodiff/function_grad.py).
# NOTE: grad_shape="exact": the gradient graph returns input-shaped gradients.
PartitionedCall = op("PartitionedCall", type_inputs=(), num_outputs=None, none_grads=True,
                     grad_shape="exact", shape=_call_shape)(_call_kernel)
StatefulPartitionedCall = op("StatefulPartitionedCall", type_inputs=(), num_outputs=None,
                             stateful=True, none_grads=True, grad_shape="exact",
                             shape=_call_shape)(_call_kernel)


def call(fg, inputs, name=None):
  """Stages (or runs, eagerly) one call of `fg` on its inputs then its captures'
  values; returns the list of its outputs."""
  od = StatefulPartitionedCall if _stateful(fg) else PartitionedCall
  out = execute(od, list(inputs), {"f": fg}, name or "PartitionedCall")
  return list(out) if isinstance(out, tuple) else [out]


# ------------------------------------------------------------------ cond

def _if_shape(inputs, attrs):
  return [(s, d) for s, d in attrs["out_specs"]]


def if_predicate(pred):
  """The truth of an If's predicate (one element, as TF requires)."""
  if np.size(pred) != 1:
    raise InvalidArgumentError(None, None, f"The predicate of a cond must be a scalar, got "
                               f"shape {list(np.shape(pred))} [Op:If]")
  return bool(pred)


def _if_kernel(pred, *caps, then_idx, else_idx, out_specs, then_graph, else_graph):
  if if_predicate(pred):
    return GRAPH_EXEC["function"](then_graph)(*[caps[i] for i in then_idx])
  return GRAPH_EXEC["function"](else_graph)(*[caps[i] for i in else_idx])


If = op("If", type_inputs=(), stateful=True, num_outputs=None, shape=_if_shape)(_if_kernel)
StatelessIf = op("StatelessIf", type_inputs=(), num_outputs=None, shape=_if_shape)(_if_kernel)


_grad_state = threading.local()


class _recorded_gradient:  # noqa: N801 - used as a context manager
  """Marks gradient branches/bodies traced while a tape records the gradient.

  NOTE: tracing a nested graph hides the tapes (they record the node, not its
  insides), so a While gradient built inside the branch of an If gradient
  could not see that it will be differentiated again (higher order) and would
  read its states from the non-differentiable history."""

  def __init__(self, on=False):
    self.on = on

  def __enter__(self):
    self.saved = getattr(_grad_state, "on", False)
    _grad_state.on = self.saved or bool(ctx.tapes) or self.on

  def __exit__(self, *exc):
    _grad_state.on = self.saved


def _gradient_recorded():
  return bool(ctx.tapes) or getattr(_grad_state, "on", False)


def _differentiable(t):
  return t.dtype.is_floating or t.dtype.is_complex or t.dtype in (_dt.resource, _dt.variant)


def _add_grads(a, b):
  """a + b for gradients; list (variant) gradients of captured TensorArrays add by element."""
  if a.dtype is _dt.variant:
    from tensorlet.ops.tensor_array_ops import VariantAddN
    return execute(VariantAddN, [a, b], {})
  return a + b


def _zeros_for(t):
  """Zeros shaped like `t`'s value (a variable's value for a resource handle)."""
  from tensorlet.ops import array_ops
  if t.dtype is _dt.resource:
    from tensorlet.ops.state_ops import variable_of
    v = variable_of(t)
    return array_ops.zeros(v.shape, v.dtype)
  if t.dtype is _dt.variant:
    from tensorlet.ops.tensor_array_ops import VariantZerosLike
    return execute(VariantZerosLike, [t], {})
  if t.dtype is _dt.string:
    return None
  return array_ops.zeros_like(t)


# ------------------------------------------------------------- while_loop

def _while_shape(inputs, attrs):
  return [(s, d) for s, d in attrs["var_specs"]] + [(TensorShape([]), _dt.variant)]


@op("While", type_inputs=(), stateful=True, num_outputs=None, shape=_while_shape)
def While(*args, n_vars, cond_idx, body_idx, has_max, var_specs, keep_history, cond_graph,
          body_graph, history_body=None):
  vars_ = args[:n_vars]
  caps = args[n_vars:len(args) - (1 if has_max else 0)]
  limit = int(args[-1]) if has_max else None
  ccaps = [caps[i] for i in cond_idx]
  bcaps = [caps[i] for i in body_idx]
  # NOTE: test and body compiled inline into one Python loop. A loop whose gradient was
  # asked for keeps each iteration's (vars..., body outputs...) and runs the body's
  # forward graph (`history_body`, set by the gradient rule) so that its outputs go on
  # with the intermediates the gradient needs: the reverse loop then recomputes nothing.
  body = history_body if keep_history else None
  loop = GRAPH_EXEC["loop"](cond_graph, body or body_graph, n_vars, keep_history,
                            limit is not None)
  hist = [] if keep_history else None
  extra = ([hist.append] if keep_history else []) + ([limit] if limit is not None else [])
  return tuple(loop(*vars_, *ccaps, *bcaps, *extra)) + (Variant(hist),)


@op("WhileHistoryLen", type_inputs=(), shape=lambda i, a: [(TensorShape([]), _dt.int32)],
    differentiable=False)
def WhileHistoryLen(hist):
  return np.int32(len(hist.value))


def _history_get_expr(attrs, node=None):
  # NOTE: inlined in the reverse loop (a short entry fails its unpacking there instead).
  return f"{{0}}.value[{{1}}][:{len(attrs['var_specs'])}]"


@op("WhileHistoryGet", type_inputs=(), num_outputs=None, differentiable=False,
    shape=lambda i, a: list(a["var_specs"]), expr=_history_get_expr)
def WhileHistoryGet(hist, i, *, var_specs):
  """Iteration i's (vars..., body outputs..., intermediates...), as many as `var_specs`."""
  entry = hist.value[int(i)]
  if len(entry) < len(var_specs):
    raise InvalidArgumentError(None, None, "a While loop's history lacks the intermediates "
                               "its gradient needs (it ran before the gradient was built)")
  return entry[:len(var_specs)]


# The builders moved up a layer (graph/control_flow.py); old import paths still work.
_MOVED = ("cond", "while_loop", "case", "switch_case", "_cond_graph", "_expand", "_collapse",
          "_merged_captures")


def __getattr__(name):
  if name in _MOVED:
    # Late-bound: the builders trace graphs (graph layer, above ops).
    from tensorlet.graph import control_flow
    return getattr(control_flow, name)
  raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
