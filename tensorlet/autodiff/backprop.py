"""The reverse pass shared by GradientTape and function/control-flow gradients.

Records are (opdef, inputs, outputs, attrs) in execution order, so walking
them backwards visits every consumer of a tensor before its producer and each
gradient is complete (summed) before it is used. Gradient rules are written in
tensorlet ops, so the pass itself runs eagerly, stages into a graph, or is
recorded by an outer tape for higher-order derivatives.
"""
from tensorlet import dtypes as _dt
from tensorlet.context import ctx, name_scope
from tensorlet.errors import InvalidArgumentError
from tensorlet.indexed_slices import IndexedSlices, to_dense

__all__ = ["backprop", "unbroadcast", "is_differentiable_dtype"]

# Gradients of the call, If/While and py_function ops live in modules that pull in
# graphs and control flow; they register themselves when first needed (below), not
# at `import tensorlet`.
_LATE_GRADIENT_MODULES = ("tensorlet.autodiff.function_grad",
                          "tensorlet.autodiff.control_flow_grad",
                          "tensorlet.autodiff.py_function_grad")
_late_loaded = False


def load_late_gradients():
  """Registers the late gradient modules; True the first time (then retry a lookup)."""
  global _late_loaded
  if _late_loaded:
    return False
  _late_loaded = True
  import importlib
  for m in _LATE_GRADIENT_MODULES:
    importlib.import_module(m)
  return True


def is_differentiable_dtype(dtype):
  # NOTE: the set answers the common dtypes fast; the flags cover dtypes added later.
  return dtype in _DIFFERENTIABLE or dtype.is_floating or dtype.is_complex


_DIFFERENTIABLE = frozenset(d for d in _dt.ALL if d.is_floating or d.is_complex) | \
    {_dt.resource, _dt.variant}


def unbroadcast(g, x, rec=None):
  """Sums `g` down to `x`'s shape (undoing broadcasting in the forward op `rec`).

  With static shapes this is decided now. Otherwise a run-time SumToShape is
  staged, unless `rec`'s op is known to give input-shaped gradients, or is an
  elementwise broadcast that provably did not broadcast `x` (the common case
  of a `None` batch dimension: `x + bias`, `x * 0.5`)."""
  from tensorlet.ops import array_ops, math_ops
  kind = rec.opdef.grad_shape if rec is not None else None
  if kind == "exact":
    return g
  gs, xs = g.shape, x.shape
  if gs.is_fully_defined() and xs.is_fully_defined():
    gl, xl = gs.as_list(), xs.as_list()
    if gl == xl:
      return g
    lead = len(gl) - len(xl)
    axes = list(range(lead)) + [i + lead for i, d in enumerate(xl) if d == 1 and gl[i + lead] != 1]
    if axes:
      g = math_ops.reduce_sum(g, axis=axes)
    if g.shape.as_list() != xl:
      g = array_ops.reshape(g, xl)
    return g
  if kind == "broadcast" and _not_broadcast(x, rec.inputs, gs):
    return g
  out = math_ops.sum_to_shape(g, array_ops.shape(x))
  if xs.rank is not None and hasattr(out, "op"):
    out.set_shape(xs)  # the result has x's shape: keeps while_loop gradients' shapes known
  return out


def _not_broadcast(x, inputs, gs):
  """Whether broadcasting `inputs` surely kept `x`'s shape: on every axis `x`'s dim
  is known and not 1 (so the result's dim is the same), or no other input
  stretches it (its dim there is absent or 1)."""
  xs = x.shape
  if xs.rank is None or gs.rank != xs.rank:
    return False
  for i, d in enumerate(xs.as_list()):
    if d is not None and d != 1:
      continue
    from_end = xs.rank - i
    for y in inputs:
      if y is x:
        continue
      ys = y.shape
      if ys.rank is None:
        return False
      if from_end <= ys.rank and ys.as_list()[ys.rank - from_end] != 1:
        return False
  return True


def _sum(grads):
  if len(grads) == 1:
    return grads[0]
  if any(type(g) is IndexedSlices for g in grads):
    return _sum_sparse(grads)
  if grads[0].dtype is _dt.variant:
    from tensorlet.ops.registry import execute
    from tensorlet.ops.tensor_array_ops import VariantAddN
    return execute(VariantAddN, grads, {})
  from tensorlet.ops import math_ops
  return math_ops.add_n(grads)


def _sum_sparse(grads):
  """As TF: IndexedSlices gradients add up by concatenation (indices made int64 when
  their dtypes differ); with a dense one among them, densely."""
  from tensorlet.ops import array_ops, math_ops
  if not all(type(g) is IndexedSlices for g in grads):
    return math_ops.add_n([to_dense(g) if type(g) is IndexedSlices else g for g in grads])
  grads = grads[::-1]  # the reverse pass made them last use first; TF lists first use first
  indices = [g.indices for g in grads]
  if any(i.dtype is not indices[0].dtype for i in indices):
    indices = [math_ops.cast(i, _dt.int64) for i in indices]
  return IndexedSlices(array_ops.concat([g.values for g in grads], 0),
                       array_ops.concat(indices, 0), grads[0].dense_shape)


def zeros_for(t):
  """A zero gradient for output `t` (an empty list for variant outputs)."""
  from tensorlet.ops import array_ops
  if t.dtype is _dt.variant:
    from tensorlet.ops.registry import execute
    from tensorlet.ops.tensor_array_ops import VariantZerosLike
    return execute(VariantZerosLike, [t], {})
  return array_ops.zeros_like(t)


def backprop(records, seeds, source_ids):
  """Reverse pass. Gradient rules see `op.needs[i]`: whether input i needs a gradient.

  Args:
    records: op records in execution order.
    seeds: list of (tensor, initial gradient) pairs.
    source_ids: ids of the tensors whose gradients are wanted.
  Returns:
    dict id(source) -> gradient tensor (sources without a path are absent).
  """
  # Only records on a path from a source matter.
  reach = set(source_ids)
  needed = []
  for rec in records:
    for t in rec.inputs:
      if id(t) in reach:
        needed.append(rec)
        for o in rec.outputs:
          reach.add(id(o))
        break
  acc = {}
  sparse = False  # whether an IndexedSlices gradient was made (rules then may need dense)
  for t, g in seeds:
    if id(t) in reach:
      acc.setdefault(id(t), []).append(g)
  sources = set(source_ids)
  for rec in reversed(needed):
    dys = []
    found = False
    for o in rec.outputs:
      lst = acc.get(id(o))
      if lst is None:
        dys.append(None)
      else:
        found = True
        g = _sum(lst)
        if id(o) not in sources:
          del acc[id(o)]
        else:
          acc[id(o)] = [g]
        dys.append(g)
    if not found:
      continue
    od = rec.opdef
    if od.grad_fn is None and not (load_late_gradients() and od.grad_fn is not None):
      raise LookupError(f"No gradient defined for operation '{od.name}' (op type: {od.name}). "
                        f"It is not differentiable; wrap it in tf.stop_gradient if that is intended.")
    if sparse and not od.sparse_grad:
      dys = [to_dense(d) if type(d) is IndexedSlices else d for d in dys]
    if len(dys) > 1 and not od.none_grads:
      dys = [zeros_for(o) if d is None and is_differentiable_dtype(o.dtype) and
             o.dtype is not _dt.resource else d for d, o in zip(dys, rec.outputs)]
    # NOTE: gradient rules may skip inputs nobody asked about (e.g. MatMul's
    # gradient for the input data of the first layer), as TF's skip_input_indices.
    rec.needs = tuple(id(x) in reach for x in rec.inputs)
    fwd = getattr(rec.outputs[0], "op", None) if ctx.graph is not None and rec.outputs \
        else None
    if fwd is not None:
      # NOTE: as TF, the gradient of op `a/b` is built under `gradient_tape/a/b/`, so
      # TensorBoard groups it instead of listing it among the model's nodes.
      with name_scope(f"gradient_tape/{fwd.name}/"):
        in_grads = od.grad_fn(rec, *dys)
    else:
      in_grads = od.grad_fn(rec, *dys)
    if len(in_grads) != len(rec.inputs):
      raise InvalidArgumentError(None, None, f"Gradient of {od.name} returned {len(in_grads)} "
                                 f"values for {len(rec.inputs)} inputs")
    for x, g in zip(rec.inputs, in_grads):
      if g is None or id(x) not in reach or not is_differentiable_dtype(x.dtype):
        continue
      if type(g) is IndexedSlices:
        sparse = True
      elif x.dtype is not _dt.resource and x.dtype is not _dt.variant:
        g = unbroadcast(g, x, rec)
      acc.setdefault(id(x), []).append(g)
  return {sid: _sum(acc[sid]) for sid in source_ids if sid in acc}
