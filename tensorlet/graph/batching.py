"""Batch rules for tf.vectorized_map: fn is traced once on one element's spec,
then its graph is run on the whole batch op by op. An op whose inputs are all
unbatched runs as is; an op with a batched input needs a batch rule (the
batched value has the batch as its new first axis). Rules exist for
elementwise ops (unary and broadcasting binary), reductions, MatMul, Cast,
Identity, Reshape, Transpose, ExpandDims and softmax; any other op raises
NoBatchRule (vectorized_map then
loops)."""
from tensorlet import _nest as nest
from tensorlet.ops import array_ops as A
from tensorlet.ops._common import broadcast_shape, same_shape
from tensorlet.ops.registry import execute
from tensorlet.graph.building import build_graph
from tensorlet.tensor import Tensor
from tensorlet.tensor_spec import TensorSpec

__all__ = ["NoBatchRule", "vectorize", "output_signature"]


class NoBatchRule(Exception):
  pass


def _graph(fn, elems, specs):
  def call(*phs):
    return fn(nest.pack_sequence_as(elems, list(phs)))
  return build_graph(call, specs, "vectorized_map_fn")


def output_signature(fn, elems, specs):
  fg = _graph(fn, elems, specs)
  return nest.map_structure(
      lambda t: TensorSpec(t.shape, t.dtype) if isinstance(t, Tensor) else t,
      fg.structured_outputs)


def _rank(t):
  r = t.shape.rank
  if r is None:
    raise NoBatchRule("a value of unknown rank")
  return r


def _elementwise(op, ins):
  """Batched operands get size-1 axes so they broadcast against unbatched ones (which
  align to the right)."""
  ranks = [_rank(v) - (1 if b else 0) for v, b in ins]
  r = max(ranks)
  vals = []
  for (v, b), rv in zip(ins, ranks):
    if b and rv < r:
      shape = A.shape(v)
      v = A.reshape(v, A.concat([shape[:1], A.ones([r - rv], shape.dtype), shape[1:]], 0))
    vals.append(v)
  return execute(op.opdef, vals, dict(op.attrs))


def _reduction(op, ins):
  (x, _), = ins
  r = _rank(x) - 1
  axes = op.attrs["axis"]
  if axes is None:  # over all of an element's axes: the batch axis stays
    axes = tuple(range(r))
  shifted = tuple((a + r if a < 0 else a) + 1 for a in axes)
  return execute(op.opdef, [x], dict(op.attrs, axis=shifted))


def _matmul(op, ins):
  (a, ba), (b, bb) = ins
  if _rank(a) - ba != 2 or _rank(b) - bb != 2:
    raise NoBatchRule("MatMul of non-matrix elements")
  from tensorlet.ops.math_ops import matmul
  ta, tb = op.attrs.get("transpose_a", False), op.attrs.get("transpose_b", False)
  return matmul(a, b, transpose_a=ta, transpose_b=tb)


def _reshape(op, ins):
  (x, bx), (shape, bs) = ins
  if bs:
    raise NoBatchRule("Reshape to a per-element shape")
  from tensorlet.ops.math_ops import cast
  return A.reshape(x, A.concat([A.shape(x)[:1], cast(shape, A.shape(x).dtype)], 0))


def _transpose(op, ins):
  (x, _), = ins
  perm = [0] + [int(p) + 1 for p in op.attrs["perm"]]
  return execute(op.opdef, [x], dict(op.attrs, perm=tuple(perm)))


def _expand_dims(op, ins):
  (x, _), = ins
  a = int(op.attrs["axis"])
  return execute(op.opdef, [x], dict(op.attrs, axis=a + 1 if a >= 0 else a))


def _last_axis(op, ins):
  """Ops over the last axis of their only input (softmax): the batch axis is just
  another leading axis."""
  if len(ins) != 1:
    raise NoBatchRule(f"op {op.type} with several inputs")
  return execute(op.opdef, [ins[0][0]], dict(op.attrs))


_RULES = {"Transpose": _transpose, "ExpandDims": _expand_dims, "Softmax": _last_axis,
          "LogSoftmax": _last_axis, "Sum": _reduction, "Mean": _reduction, "Max": _reduction, "Min": _reduction,
          "Prod": _reduction, "Any": _reduction, "All": _reduction, "MatMul": _matmul,
          "Reshape": _reshape}


def _rule(op):
  r = _RULES.get(op.type)
  if r is not None:
    return r
  if op.opdef.shape_fn in (same_shape, broadcast_shape) or op.type in ("Cast", "Identity"):
    return _elementwise
  return None


def vectorize(fn, elems, flat):
  """fn over the batch `flat` (tensors with the batch as first axis) in one pass."""
  specs = [TensorSpec(x.shape[1:] if x.shape.rank is not None else None, x.dtype)
           for x in flat]
  fg = _graph(fn, elems, specs)
  env = {id(ph): (x, True) for ph, x in zip(fg.inputs, flat)}
  for value, ph in fg.captures.values():
    env[id(ph)] = (value, False)
  for op in fg.get_operations():
    if op.type == "Placeholder":
      continue
    ins = [env[id(t)] for t in op.inputs]
    if any(b for _, b in ins):
      rule = _rule(op)
      if rule is None or op.opdef.num_outputs != 1:
        raise NoBatchRule(f"op {op.type} has no batch rule")
      outs, batched = [rule(op, ins)], True
    else:
      if op.opdef.stateful:
        raise NoBatchRule(f"stateful op {op.type}")
      outs = execute(op.opdef, [v for v, _ in ins], dict(op.attrs))
      outs, batched = (list(outs) if isinstance(outs, (list, tuple)) else [outs]), False
    for t, o in zip(op.outputs, outs):
      env[id(t)] = (o, batched)
  n = A.shape(flat[0])[:1]

  def result(t):
    if not isinstance(t, Tensor):
      return t
    v, b = env[id(t)]
    if b:
      return v
    return A.broadcast_to(A.expand_dims(v, 0), A.concat([n, A.shape(v)], 0))
  return nest.map_structure(result, fg.structured_outputs)
