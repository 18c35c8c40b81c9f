"""Gradients of graph-calling ops by the shared reverse pass over the callee.

The gradient of calling a graph H (a PartitionedCall, a branch of If, a
While body) is itself a graph, built once per H and set of output gradients:
`backprop` runs over H's operations inside a FuncGraph nested in H, whose
inputs are the output gradients. Every value of H that the gradient rules
use is captured by that graph and then becomes one of its inputs: an input
of H, an output of H, or an intermediate. Intermediates come from the
forward call when it returned them (a tf.function called under a tape runs
`forward_graph(H)`, TF's forward function with intermediates), or else from
a second call of H that returns them. Both calls are call ops, so gradients
of any order go through the same rule. The graphs are cached on H.
"""
from tensorlet import dtypes as _dt
from tensorlet.autodiff.backprop import backprop, is_differentiable_dtype
from tensorlet.context import ctx
from tensorlet.graph.graph import FuncGraph, SymbolicTensor
from tensorlet.indexed_slices import IndexedSlices, to_dense
from tensorlet.ops import control_flow_ops as cf
from tensorlet.ops.array_ops import Identity
from tensorlet.ops.registry import execute
from tensorlet.tensor_spec import TensorSpec

__all__ = ["gradient_graph", "call_gradients", "forward_graph"]


def _cache(h):
  """H's gradient graphs, kept on H itself (they refer to H, so a weak-keyed table
  would never let H go)."""
  c = h.__dict__.get("_gradients")
  if c is None:
    c = h._gradients = {}
  return c


def placeholders_of(h):
  """H's placeholders in call order: its inputs, then its captures."""
  return list(h.inputs) + [ph for _, ph in h.captures.values()]


class _Gradient:
  """The gradient graph of H for the outputs in `mask`, and what its captures need."""

  def __init__(self, h, mask, recorded):
    self.h = h
    self.mask = mask
    g = FuncGraph(f"{h.name}_grad", outer_graph=h)
    g.inputs = [g.placeholder(TensorSpec(h.outputs[k].shape, h.outputs[k].dtype), f"dy_{k}")
                for k in mask]
    srcs = placeholders_of(h)
    saved = (ctx.graph, ctx.scope, ctx.tapes)
    ctx.graph, ctx.scope, ctx.tapes = g, "", ()
    try:
      # NOTE: a gradient that is itself recorded (higher order) must stay
      # differentiable inside nested loops too (While reads no history then).
      with cf._recorded_gradient(recorded):
        # NOTE: the ops a tape would have recorded (non-differentiable ones stop gradients).
        records = [op for op in h.get_operations() if op.opdef.differentiable]
        grads = backprop(records, list(zip([h.outputs[k] for k in mask], g.inputs)),
                         [id(s) for s in srcs])
        # `parts[k]`: 0 for a dense gradient, else the number of tensors of an
        # IndexedSlices one (returned as its components, rebuilt by the caller)
        self.which, self.parts, outs = [], [], []
        for i, s in enumerate(srcs):
          d = grads.get(id(s))
          if d is not None and is_differentiable_dtype(s.dtype):
            if type(d) is IndexedSlices:
              comps = [d.values, d.indices] + ([] if d.dense_shape is None else [d.dense_shape])
              outs.extend(execute(Identity, [c], {}, "Identity") for c in comps)
              self.parts.append(len(comps))
            else:
              outs.append(execute(Identity, [d], {}, "Identity"))
              self.parts.append(0)
            self.which.append(i)
    finally:
      ctx.graph, ctx.scope, ctx.tapes = saved
    g.outputs = outs
    self.graph = g
    # Where each capture's value comes from, in the forward call.
    pos_in = {id(t): i for i, t in enumerate(srcs)}
    pos_out = {id(t): k for k, t in enumerate(h.outputs)}
    self.sources = []     # per capture: ("in", i) | ("out", k) | ("mid", j) | ("outer", value)
    self.intermediates = []
    for value, _ in g.captures.values():
      if isinstance(value, SymbolicTensor) and value.op.graph is h:
        if id(value) in pos_in:
          self.sources.append(("in", pos_in[id(value)]))
        elif id(value) in pos_out:
          self.sources.append(("out", pos_out[id(value)]))
        else:
          self.sources.append(("mid", len(self.intermediates)))
          self.intermediates.append(value)
      else:
        self.sources.append(("outer", value))
    # NOTE: the call passes the captured values itself, so they become plain
    # inputs: the gradient graph is closed (it saves and runs like any other).
    g.inputs = list(g.inputs) + [ph for _, ph in g.captures.values()]
    g.captures = {}
    g.outer_graph = None
    g.structured_outputs = list(g.outputs)
    self._recompute = self._intermediates_only = None

  def positions_in(self, extra):
    """Where each intermediate is in `extra` (a forward graph's extra outputs), or
    None when one is missing; remembered per forward graph."""
    memo = self.__dict__.setdefault("_positions", {})
    key = id(extra)
    if key not in memo:
      index = {id(t): k for k, t in enumerate(extra)}
      memo[key] = [index[id(t)] for t in self.intermediates] \
          if all(id(t) in index for t in self.intermediates) else None
    return memo[key]

  def recompute_graph(self):
    """H returning the intermediates too (called again when the forward did not)."""
    if self._recompute is None:
      self._recompute = self.h.with_outputs(self.intermediates, f"{self.h.name}_fwd")
    return self._recompute

  def intermediates_graph(self):
    """H returning only the intermediates: what its outputs alone need is pruned (an
    LSTM body's gradient recomputes its step, so a While's gradient replays no step)."""
    if self._intermediates_only is None:
      self._intermediates_only = self.h.with_outputs(self.intermediates, f"{self.h.name}_mid",
                                                     keep_outputs=False)
    return self._intermediates_only


def gradient_graph(h, mask, recorded=False):
  """The (cached) gradient of H for the output indices `mask`."""
  per = _cache(h)
  key = (tuple(mask), bool(recorded))
  gr = per.get(key)
  if gr is None:
    gr = per[key] = _Gradient(h, tuple(mask), recorded)
  return gr


def forward_graph(h):
  """H returning, after its outputs, every intermediate its full gradient needs,
  so a call of it under a tape leaves nothing to recompute (H itself when its
  gradient needs no intermediate)."""
  per = _cache(h)
  fwd = per.get("forward")
  if fwd is None:
    gr = gradient_graph(h, [k for k, t in enumerate(h.outputs) if _differentiable(t)])
    fwd = h
    if gr.intermediates:
      fwd = gr.recompute_graph()
      fwd._forward_of = h                         # gradients are H's
      fwd._forward_extra = list(gr.intermediates)  # H's tensors that outputs[n:] hold
    per["forward"] = fwd
  return fwd


def sparse_gradient_dtypes(h, dys):
  """{position among H's placeholders: (indices dtype, dense_shape dtype)} where the
  gradient of a call of H for the output gradients `dys` is an IndexedSlices."""
  mask = [k for k in range(len(h.outputs)) if dys[k] is not None and
          _differentiable(h.outputs[k])]
  if not mask:
    return {}
  gr = gradient_graph(h, mask, bool(ctx.tapes) or cf._gradient_recorded())
  out, k = {}, 0
  for i, n in zip(gr.which, gr.parts):
    if n:
      outs = gr.graph.outputs
      out[i] = (outs[k + 1].dtype, outs[k + 2].dtype if n == 3 else None)
    k += n or 1
  return out


def _differentiable(t):
  return is_differentiable_dtype(t.dtype) and t.dtype is not _dt.resource


def call_gradients(h, inputs, dys, outputs=None, extra=None, dense=False):
  """Gradients w.r.t. H's placeholders (inputs then captures; None where there is
  none) of a call of H on `inputs` for the output gradients `dys` (None: no
  gradient). `outputs`: the call's outputs when at hand; when they go on past
  H's, they hold the H tensors listed in `extra` (a forward_graph call)."""
  n = len(h.outputs)
  mask = [k for k in range(n) if dys[k] is not None and _differentiable(h.outputs[k])]
  res = [None] * len(inputs)
  if not mask:
    return res
  recorded = bool(ctx.tapes) or cf._gradient_recorded()
  gr = gradient_graph(h, mask, recorded)
  if not gr.which:
    return res
  mids = None
  if gr.intermediates and extra is not None and not recorded:
    # NOTE: a recorded gradient recomputes them instead: the forward's extra
    # outputs would then need gradients of their own (higher order).
    pos = gr.positions_in(extra)
    if pos is not None:
      mids = [outputs[n + k] for k in pos]
  if gr.intermediates and mids is None:
    if outputs is None and any(kind == "out" for kind, _ in gr.sources):
      outs = cf.call(gr.recompute_graph(), inputs, name="PartitionedCallFwd")
      outputs, mids = outs[:n], outs[n:]
    else:
      mids = cf.call(gr.intermediates_graph(), inputs, name="PartitionedCallFwd")
  values = []
  for kind, where in gr.sources:
    if kind == "in":
      values.append(inputs[where])
    elif kind == "out":
      values.append(outputs[where] if outputs is not None else None)
    elif kind == "mid":
      values.append(mids[where])
    else:
      values.append(where)
  if any(v is None for v in values):
    # NOTE: an output of H used by its gradient, without the call's outputs at hand.
    outs = cf.call(h, inputs, name="PartitionedCallFwd")
    values = [outs[where] if kind == "out" else v for (kind, where), v in zip(gr.sources, values)]
  grads = cf.call(gr.graph, [dys[k] for k in mask] + values, name="PartitionedCallGrad")
  k = 0
  for i, n in zip(gr.which, gr.parts):
    if n == 0:
      res[i] = grads[k]
      k += 1
    else:
      res[i] = IndexedSlices._make(grads[k], grads[k + 1], grads[k + 2] if n == 3 else None)
      if dense:
        res[i] = to_dense(res[i])
      k += n
  return res


def _call_grad(op, *dys):
  """The call op's gradient: the callee's gradient graph, called."""
  f = op.attrs["f"]
  h = getattr(f, "_forward_of", f)
  return call_gradients(h, list(op.inputs), list(dys[:len(h.outputs)]), list(op.outputs),
                        getattr(f, "_forward_extra", None))


cf.PartitionedCall.def_grad(_call_grad)
cf.StatefulPartitionedCall.def_grad(_call_grad)
