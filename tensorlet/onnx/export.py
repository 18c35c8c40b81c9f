"""Builds the ONNX graph: one Scope per ONNX (sub)graph; tensorlet graphs are
emitted into scopes op by op through the converters."""
import os

import numpy as np

from tensorlet import dtypes as _dt
from tensorlet.onnx.converters import CONVERTERS, LIMITS
from tensorlet.saved_model.encode import source_of

__all__ = ["export", "supported_ops", "unsupported_ops"]

MIN_OPSET = 13
_NO_NODE = ("Placeholder", "ReadVariableOp", "Const")


def supported_ops():
  """The tensorlet op types export can convert."""
  return sorted(set(CONVERTERS) | set(_NO_NODE))


def _walk(graph):
  for op in graph.get_operations():
    yield op
    for a in op.attrs.values():
      if type(a).__name__ == "FuncGraph":
        yield from _walk(a)


def _problems(graph):
  out = []
  for op in _walk(graph):
    if op.type in _NO_NODE:
      continue
    if op.type not in CONVERTERS:
      out.append((op.type, source_of(op)))
      continue
    why = LIMITS[op.type](op) if op.type in LIMITS else None
    if why:
      out.append((f"{op.type} with {why}", source_of(op)))
  return out


def unsupported_ops(fn, input_signature=None):
  """[(op type, 'file:line (in function)')] of the ops of `fn` without an ONNX form."""
  return _problems(_concrete(fn, input_signature).graph)


def _onnx():
  try:
    import onnx
  except ImportError:
    raise ImportError("tensorlet.onnx.export needs the optional 'onnx' package: "
                      "pip install 'tensorlet[onnx]'") from None
  return onnx


class _Builder:
  """Model-wide state: initializers and unique value names."""

  def __init__(self, onnx, opset):
    self.onnx = onnx
    self.opset = opset
    self.initializers = []
    self._n = 0
    self._consts = {}
    self.seq_types = {}  # ONNX name of a sequence (a TensorList) -> its element dtype

  def fresh(self, hint):
    self._n += 1
    return f"{hint}_{self._n}"

  def onnx_type_of(self, np_dtype):
    np_dtype = np.dtype(np_dtype)
    if np_dtype.kind == "O":
      return self.onnx.TensorProto.STRING
    return self.onnx.helper.np_dtype_to_tensor_dtype(np_dtype)

  def onnx_type(self, dtype):
    return self.onnx.TensorProto.STRING if dtype is _dt.string else self.onnx_type_of(dtype._np)

  def constant(self, array, hint="const"):
    """An initializer holding `array` (one per array object)."""
    key = id(array)
    hit = self._consts.get(key)
    if hit is not None and hit[1] is array:
      return hit[0]
    name = self.fresh(hint)
    self.initializers.append(self.onnx.numpy_helper.from_array(np.asarray(array), name))
    self._consts[key] = (name, array)
    return name

  def same_types(self, src, dst):
    """Sequences named `dst` hold what those named `src` hold."""
    for a, b in zip(src, dst):
      if a in self.seq_types:
        self.seq_types.setdefault(b, self.seq_types[a])

  def value_info(self, name, tensor_like_dtype, shape):
    if tensor_like_dtype is _dt.variant:
      return self.onnx.helper.make_tensor_sequence_value_info(
          name, self.onnx_type(self.seq_types[name]), None)
    dims = None if shape.rank is None else shape.as_list()
    return self.onnx.helper.make_tensor_value_info(name, self.onnx_type(tensor_like_dtype), dims)


class _Scope:
  """The nodes of one ONNX graph and the ONNX name of each tensorlet tensor."""

  def __init__(self, builder):
    self.b = builder
    self.nodes = []
    self.names = {}

  def node(self, op_type, inputs, n_out=1, **attrs):
    outs = [self.b.fresh(op_type.lower()) for _ in range(n_out)]
    self.nodes.append(self.b.onnx.helper.make_node(op_type, list(inputs), outs,
                                                   name=self.b.fresh("n"), **attrs))
    return outs

  def inline(self, fg, inputs, captures):
    """Emits `fg` here with its placeholders bound to ONNX names; returns its outputs."""
    for ph, name in zip(fg.inputs, inputs):
      self.names[id(ph)] = name
    for (_, ph), name in zip(fg.captures.values(), captures):
      self.names[id(ph)] = name
    for op in fg.get_operations():
      if op.type == "Placeholder":
        continue
      ins = [self.names[id(t)] for t in op.inputs]
      if op.type == "ReadVariableOp":
        outs = ins  # NOTE: the variable's initializer is its value
      elif op.type == "Const":
        outs = [self.b.constant(np.asarray(op.attrs["value"], op.outputs[0].dtype._np))]
      else:
        outs = CONVERTERS[op.type](self, op, ins)
      for t, name in zip(op.outputs, outs):
        self.names[id(t)] = name
    return [self.names[id(t)] for t in fg.outputs]

  def _graph(self, scope, outs, fg_outputs, inputs, hint):
    h = self.b.onnx.helper
    infos = [self.b.value_info(n, t.dtype, t.shape) for n, t in zip(outs, fg_outputs)]
    return h.make_graph(scope.nodes, self.b.fresh(hint), inputs, infos)

  def subgraph(self, fg, inputs, captures, hint):
    """An If branch: a graph without inputs that reads outer values by name."""
    sub = _Scope(self.b)
    outs = sub.inline(fg, inputs, captures)
    return self._graph(sub, outs, fg.outputs, [], hint)

  def loop_body(self, body_g, cond_g, bcaps, ccaps, outer):
    """A Loop body: (iteration, condition, vars) -> (condition, vars); `outer` names the
    loop's initial values."""
    from tensorlet.tensor_shape import TensorShape
    sub = _Scope(self.b)
    it, c = self.b.fresh("iter"), self.b.fresh("cond_in")
    names = [self.b.fresh("var") for _ in body_g.inputs]
    self.b.same_types(outer, names)
    h = self.b.onnx.helper
    inputs = [h.make_tensor_value_info(it, self.b.onnx.TensorProto.INT64, []),
              h.make_tensor_value_info(c, self.b.onnx.TensorProto.BOOL, [])]
    inputs += [self.b.value_info(n, ph.dtype, ph.shape) for n, ph in zip(names, body_g.inputs)]
    new = sub.inline(body_g, names, bcaps)
    more = sub.inline(cond_g, new, ccaps)[0]
    self.b.same_types(names, new)
    cond_out = cond_g.outputs[0]
    outs = [more] + new
    infos = [self.b.value_info(more, cond_out.dtype, TensorShape([]))]
    infos += [self.b.value_info(n, t.dtype, t.shape) for n, t in zip(new, body_g.outputs)]
    return h.make_graph(sub.nodes, self.b.fresh("loop_body"), inputs, infos)


def _reads(node):
  """The names `node` reads, its subgraphs' reads of outer values included."""
  out = set(node.input)
  for a in node.attribute:
    for g in ([a.g] if a.HasField("g") else []) + list(a.graphs):
      for n in g.node:
        out |= _reads(n)
  return out


def _live(nodes, outputs):
  """The nodes that `outputs` depend on (in order) and every name they read: what a
  converter made and nothing used (an input projection the ONNX LSTM does itself) goes."""
  used = set(outputs)
  keep = []
  for n in reversed(nodes):
    if used.intersection(n.output):
      keep.append(n)
      used |= _reads(n)
  return keep[::-1], used


def _concrete(fn, input_signature):
  from tensorlet.polymorphic_function.concrete import ConcreteFunction
  if isinstance(fn, ConcreteFunction):
    return fn
  if hasattr(fn, "get_concrete_function"):
    if input_signature is not None:
      return fn.get_concrete_function(*input_signature)
    if getattr(fn, "input_signature", 0) is None:
      raise ValueError("tensorlet.onnx.export: the tf.function has no input_signature; pass "
                       "input_signature=[tf.TensorSpec(...)] or a ConcreteFunction.")
    return fn.get_concrete_function()
  if hasattr(fn, "call") and hasattr(fn, "trainable_weights"):  # a Keras model
    from tensorlet.saved_model.keras_io import serving_function
    return serving_function(fn, input_signature).get_concrete_function()
  raise TypeError(f"tensorlet.onnx.export takes a ConcreteFunction, a tf.function or a Keras "
                  f"model, got {fn!r}")


def export(fn, path=None, opset=17, input_signature=None):
  """Converts `fn` (a ConcreteFunction, or a tf.function traced for `input_signature`
  or its own) to an `onnx.ModelProto`, checks it and writes it to `path` if given.

  Raises ValueError listing every op that has no ONNX form (with source lines).
  """
  onnx = _onnx()
  if not isinstance(opset, int) or not MIN_OPSET <= opset <= onnx.defs.onnx_opset_version():
    raise ValueError(f"opset must be an int from {MIN_OPSET} to "
                     f"{onnx.defs.onnx_opset_version()}, got {opset!r}")
  cf = _concrete(fn, input_signature)
  fg = cf.graph
  bad = _problems(fg)
  if bad:
    raise ValueError(f"tensorlet.onnx.export: {len(bad)} op(s) of '{cf.name}' cannot be "
                     f"exported to ONNX:\n" + "\n".join(
                         f"  - {t}" + (f" created at {src}" if src else "") for t, src in bad))
  b = _Builder(onnx, opset)
  top = _Scope(b)
  captures = []
  for value, ph in fg.captures.values():
    if value.dtype is _dt.resource:
      from tensorlet.ops.state_ops import variable_of
      var = variable_of(value)
      captures.append(b.constant(var.numpy(), var.name.split(":")[0].replace("/", "_")))
    else:
      captures.append(b.constant(value._value))
  in_names = [ph.op.name for ph in fg.inputs]
  outs = top.inline(fg, in_names, captures)
  out_names = [f"output_{i}" for i in range(len(outs))]
  for o, n in zip(outs, out_names):
    top.nodes.append(onnx.helper.make_node("Identity", [o], [n], name=b.fresh("n")))
  h = onnx.helper
  nodes, used = _live(top.nodes, out_names)
  graph = h.make_graph(nodes, cf.name,
                       [b.value_info(n, ph.dtype, ph.shape) for n, ph in zip(in_names, fg.inputs)],
                       [b.value_info(n, t.dtype, t.shape) for n, t in zip(out_names, fg.outputs)],
                       initializer=[i for i in b.initializers if i.name in used])
  model = h.make_model(graph, opset_imports=[h.make_opsetid("", opset)],
                       producer_name="tensorlet")
  onnx.checker.check_model(model)
  if path is not None:
    onnx.save(model, os.fspath(path))
  return model
