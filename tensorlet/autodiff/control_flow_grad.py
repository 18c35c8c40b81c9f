"""Gradients of If and While, built like every graph gradient: the shared
reverse pass over the branch or body graph (function_grad.call_gradients).

The gradient of `If` is a `cond` whose branches call the gradient graphs of
the forward branches; the gradient of `While` is a reverse `while_loop` whose
body calls the gradient graph of the forward body, on the loop state the
forward op kept for each iteration (`keep_history`, switched on only when a
gradient is requested), or recomputes when the gradient is itself recorded.
"""
from tensorlet import dtypes as _dt
from tensorlet.autodiff.function_grad import call_gradients, forward_graph, sparse_gradient_dtypes
from tensorlet.indexed_slices import IndexedSlices, to_dense
from tensorlet.errors import InvalidArgumentError
from tensorlet.ops import array_ops
from tensorlet.ops import control_flow_ops as cf
from tensorlet.graph.control_flow import cond, while_loop
from tensorlet.ops.control_flow_ops import (_add_grads, _differentiable, _gradient_recorded,
                                            _recorded_gradient, _zeros_for)
from tensorlet.ops.registry import execute
from tensorlet.tensor import EagerTensor


def _sparse_caps(a, dys):
  """{capture index: (indices dtype, dense_shape dtype)} of the captures whose gradient
  is an IndexedSlices in one branch or both (int64 where the branches differ)."""
  out = {}
  for graph, idx in ((a["then_graph"], a["then_idx"]), (a["else_graph"], a["else_idx"])):
    for i, dtypes in sparse_gradient_dtypes(graph, dys).items():
      have = out.get(idx[i])
      out[idx[i]] = dtypes if have in (None, dtypes) else (_dt.int64, _dt.int64)
  return out


def _as_indexed_slices(g, dtypes):
  """`g` as an IndexedSlices with indices and dense_shape of `dtypes` (a dense gradient:
  all its rows, as TF's cond makes its branches agree)."""
  from tensorlet.ops import math_ops
  if type(g) is not IndexedSlices:
    shape = array_ops.shape(g)
    g = IndexedSlices(g, array_ops.range(shape[0]), shape)
  indices, dense_shape = g.indices, g.dense_shape
  if indices.dtype is not dtypes[0]:
    indices = math_ops.cast(indices, dtypes[0])
  if dtypes[1] is not None and dense_shape.dtype is not dtypes[1]:
    dense_shape = math_ops.cast(dense_shape, dtypes[1])
  return IndexedSlices(g.values, indices, dense_shape)


def _if_grad(op, *dys):
  pred = op.inputs[0]
  caps = list(op.inputs[1:])
  a = op.attrs
  dys = [d if d is not None else _zeros_for(o) for d, o in zip(dys, op.outputs)]

  def branch(graph, idx):
    def fn():
      mine = [caps[i] for i in idx]
      grads = call_gradients(graph, mine, dys)
      out = [_zeros_for(c) for c in caps]
      for i, g in zip(idx, grads):
        if g is None:
          continue
        if i in sparse and type(g) is IndexedSlices:
          out[i] = g
        else:
          out[i] = _add_grads(out[i], to_dense(g) if type(g) is IndexedSlices else g)
      # NOTE: as TF, a capture whose gradient is an IndexedSlices in one branch gets one
      # from both
      for i, dtypes in sparse.items():
        out[i] = _as_indexed_slices(out[i], dtypes)
      return out
    return fn
  with _recorded_gradient():
    sparse = _sparse_caps(a, dys)
    grads = cond(pred, branch(a["then_graph"], a["then_idx"]),
                 branch(a["else_graph"], a["else_idx"]))
  grads = grads if isinstance(grads, list) else list(grads)
  return [None] + [g if _differentiable(c) else None for g, c in zip(grads, caps)]


cf.If.def_grad(_if_grad)
cf.StatelessIf.def_grad(_if_grad)



@cf.While.def_grad
def _(op, *dys):
  a = op.attrs
  if not a["keep_history"]:
    if isinstance(op.outputs[-1], EagerTensor):
      raise InvalidArgumentError(None, None, "a While loop that ran without keeping its "
                                 "iterations cannot be differentiated")
    a["keep_history"] = True  # the graph is compiled later: the loop will keep them
  n = a["n_vars"]
  vars_in = list(op.inputs[:n])
  caps = list(op.inputs[n:len(op.inputs) - (1 if a["has_max"] else 0)])
  bcaps = [caps[i] for i in a["body_idx"]]
  hist = op.outputs[n]
  body_g = a["body_graph"]
  gs0 = [d if d is not None else _zeros_for(v) for d, v in zip(dys[:n], op.outputs[:n])]
  diff_vars = [k for k, v in enumerate(vars_in) if _differentiable(v)]
  diff_caps = [k for k, c in enumerate(bcaps) if _differentiable(c)]
  count = execute(cf.WhileHistoryLen, [hist], {})
  specs = a["var_specs"]
  # NOTE: when this gradient is itself recorded (higher order), the state of
  # iteration i is recomputed from the loop inputs, so it stays differentiable;
  # otherwise it is read from the history the forward loop kept (O(n)), with the
  # body's outputs and the intermediates its gradient needs (forward_graph).
  recompute = _gradient_recorded()
  fwd = forward_graph(body_g)
  if fwd is not body_g:
    # NOTE: an attribute (like keep_history), so a saved graph keeps it with the gradient.
    a["history_body"] = fwd
  extra = getattr(fwd, "_forward_extra", None)
  hist_specs = tuple(specs) + tuple((t.shape, t.dtype) for t in fwd.outputs)

  def state_at(i):
    if recompute:
      out = while_loop(lambda j, *xs: j < i,
                       lambda j, *xs: [j + 1] + cf.call(body_g, list(xs) + bcaps)[:n],
                       [0] + vars_in)
      return list(out[1:])
    st = execute(cf.WhileHistoryGet, [hist, i], {"var_specs": hist_specs})
    return list(st) if isinstance(st, tuple) else [st]

  def g_cond(i, *rest):
    return i > 0

  def g_body(i, *rest):
    gs = list(rest[:len(diff_vars)])
    gc = list(rest[len(diff_vars):])
    entry = state_at(i - 1)
    state, outs = entry[:n], (entry[n:] if len(entry) > n else None)
    full = [None] * n
    for k, g in zip(diff_vars, gs):
      full[k] = g
    for k in range(n):
      if full[k] is None:
        full[k] = _zeros_for(state[k])
    gs_all = call_gradients(body_g, list(state) + bcaps, full, outs, extra, dense=True)
    g_state, g_caps = gs_all[:n], gs_all[n:]
    new_gs = [g_state[k] if g_state[k] is not None else array_ops.zeros_like(gs[j])
              for j, k in enumerate(diff_vars)]
    new_gc = [_add_grads(gc[j], g_caps[k]) if g_caps[k] is not None else gc[j]
              for j, k in enumerate(diff_caps)]
    return [i - 1] + new_gs + new_gc
  init = [count] + [gs0[k] for k in diff_vars] + [_zeros_for(bcaps[k]) for k in diff_caps]
  with _recorded_gradient():
    res = while_loop(g_cond, g_body, init)
  res = list(res)
  var_grads = [None] * n
  for j, k in enumerate(diff_vars):
    var_grads[k] = res[1 + j]
  cap_grads = [None] * len(caps)
  for j, k in enumerate(diff_caps):
    cap_grads[a["body_idx"][k]] = res[1 + len(diff_vars) + j]
  return var_grads + cap_grads + ([None] if a["has_max"] else [])
