"""ConcreteFunction: one traced graph with its signature, callable from Python.

The first call optimises the graph (graph/passes.py) and compiles it to
Python (graph/executor.py); later calls pass the argument arrays straight to
the compiled function. While a GradientTape is recording, the graph is
instead replayed op by op through `execute`, so the tape records every op and
gradients (of any order) flow through the function.
"""
import inspect

from tensorlet import _nest as nest
from tensorlet import dtypes as _dt
from tensorlet.composite_tensor import CompositeTensor
from tensorlet.context import ctx
from tensorlet.errors import InvalidArgumentError
from tensorlet.polymorphic_function import trace, trace_type
from tensorlet.polymorphic_function.function_type import FunctionType, Parameter
from tensorlet.graph import executor, passes
from tensorlet.ops.registry import _wrap
from tensorlet.tensor import EagerTensor, Tensor

__all__ = ["ConcreteFunction"]

_POSITIONAL = inspect.Parameter.POSITIONAL_ONLY


def _output_text(structured):
  def one(x):
    if isinstance(x, CompositeTensor):
      return repr(x._type_spec)
    if isinstance(x, Tensor):
      return f"TensorSpec(shape={x.shape}, dtype=tf.{x.dtype.name}, name=None)"
    return repr(x)
  if isinstance(structured, Tensor) or not nest.is_nested(structured):
    return one(structured)
  return repr(nest.map_structure(lambda x: _Raw(one(x)), structured))


class _Raw:
  def __init__(self, s):
    self.s = s

  def __repr__(self):
    return self.s


class ConcreteFunction:
  """A traced tf.function for one input signature."""

  def __init__(self, func_graph, name, params, arg_leaves, python_function=None):
    self.graph = func_graph
    self._name = name
    self._params = params              # [(name, kind, key)]
    self._arg_leaves = arg_leaves      # placeholder per tensor leaf, in call order
    self._python_function = python_function
    self.function_type = FunctionType.from_trace(
        params, _output_text(func_graph.structured_outputs), name)
    self._run = None
    self._out_ids = None

  # ------------------------------------------------------------- metadata
  @property
  def name(self):
    return self._name

  @property
  def structured_outputs(self):
    return self.graph.structured_outputs

  @property
  def structured_input_signature(self):
    return self.graph.structured_input_signature

  @property
  def inputs(self):
    return list(self._arg_leaves) + [ph for _, ph in self.graph.captures.values()]

  @property
  def outputs(self):
    return list(self.graph.outputs)

  @property
  def captured_inputs(self):
    return [v for v, _ in self.graph.captures.values()]

  @property
  def variables(self):
    return tuple(self.graph.variables)

  @property
  def trainable_variables(self):
    return tuple(v for v in self.graph.variables if v.trainable)

  @property
  def output_shapes(self):
    return nest.map_structure(lambda t: t.shape if isinstance(t, Tensor) else None,
                              self.structured_outputs)

  @property
  def output_dtypes(self):
    return nest.map_structure(lambda t: t.dtype if isinstance(t, Tensor) else None,
                              self.structured_outputs)

  @property
  def inference_fn(self):
    """The traced graph as a callable over the flat tensor arguments, without
    structure binding or gradient support (TF's AtomicFunction)."""
    return _InferenceFunction(self)

  def pretty_printed_signature(self, verbose=True):
    lines = ["Input Parameters:"]
    for n, kind, k in self._params:
      lines.append(f"  {n} ({kind}): {k.describe()}")
    lines.append("Output Type:")
    lines.append(f"  {self.function_type.output}")
    lines.append("Captures:")
    caps = [(v, ph) for v, ph in self.graph.captures.values()]
    if not caps:
      lines.append("  None")
    for v, ph in caps:
      lines.append(f"  {id(v)}: TensorSpec(shape={ph.shape}, dtype=tf.{ph.dtype.name}, "
                   f"name=None)")
    return "\n".join(lines)

  def __str__(self):
    return "ConcreteFunction " + self.pretty_printed_signature()

  def __repr__(self):
    return f"<ConcreteFunction {self._name}({', '.join(n for n, _, _ in self._params)}) at " \
           f"{hex(id(self))}>"

  # ---------------------------------------------------------------- calling
  def __call__(self, *args, **kwargs):
    """Calls with the traced signature: tensors must match it; Python values must equal
    the traced ones."""
    leaves = self._bind(args, kwargs)
    return self._call_flat(leaves)

  def _bind(self, args, kwargs):
    ft = self.function_type
    return ft.cast(ft.bind(args, kwargs))

  def _call_flat(self, tensors):
    if ctx.tapes or ctx.graph is not None:
      return self._replay(tensors)
    run = self._run
    if run is None:
      run = self._compile()
    res = run(*[t._value for t in tensors])
    g = self.graph
    if g.structured_outputs is g.output_template[0] and len(res) == 1:
      return _wrap(res[0])  # the common single-tensor output
    return self._pack([_wrap(r) for r in res])

  def _pack(self, flat):
    if self.graph.output_template is None:
      return None
    outs = list(self.graph.output_template)
    for pos, t in zip(self.graph.output_positions, flat):
      outs[pos] = t
    return nest.pack_sequence_as(self.graph.structured_outputs, outs, expand_composites=True)

  # ------------------------------------------------------------ execution
  def _plan(self):
    g = self.graph
    nodes = passes.from_func_graph(g)
    inputs = [id(ph) for ph in self._arg_leaves]
    consts = {}
    for value, ph in g.captures.values():
      if value.dtype is _dt.resource:
        from tensorlet.ops.state_ops import variable_of
        consts[id(ph)] = variable_of(value)
      elif isinstance(value, EagerTensor):
        consts[id(ph)] = value._value
      else:
        raise InvalidArgumentError(None, None, f"{self._name}: a captured tensor has no value")
    outputs = [id(t) for t in g.outputs]
    types, sizes = {}, {}
    for op in g.get_operations():
      if not op.opdef.stateful and op.type != "Placeholder":
        for t in op.outputs:
          if t._const is not None:
            consts[id(t)] = t._const if t._const.ndim else t._const[()]
      for t in op.outputs:
        s = t.shape
        types[id(t)] = (tuple(s.as_list()) if s.is_fully_defined() else None, t.dtype)
        n = s.num_elements()
        if n is not None:
          sizes[id(t)] = n
    var_consts = {k: v for k, v in consts.items() if hasattr(v, "_handle")}
    nodes = passes.optimize(nodes, outputs, consts, types)
    consts.update(var_consts)
    self._types = types
    return nodes, inputs, outputs, consts, sizes

  def _compile(self):
    nodes, inputs, outputs, consts, sizes = self._plan()
    self._run = executor.compile_nodes(nodes, inputs, outputs, consts, sizes,
                                       fn_name=_ident(self._name), types=self._types)
    return self._run

  def _interpreter(self):
    nodes, inputs, outputs, consts, _ = self._plan()
    return executor.Interpreter(nodes, inputs, outputs, consts)

  def _replay(self, tensors):
    """Runs the graph op by op through `execute` (records on tapes; inlines into graphs)."""
    return trace.replay(self.graph, tensors)


class _InferenceFunction:
  """`ConcreteFunction.inference_fn`: runs the compiled graph on flat tensors."""

  def __init__(self, cf):
    self._cf = cf
    self.function_type = FunctionType(
        [Parameter(f"arg{i}", _POSITIONAL, type=trace_type.from_value(ph))
         for i, ph in enumerate(cf._arg_leaves)], name=f"{cf._name}.inference_fn")

  def __call__(self, *tensors):
    cf, ft = self._cf, self.function_type
    leaves = ft.cast(ft.bind(tensors, {}), cf._name)
    run = cf._run or cf._compile()
    return cf._pack([_wrap(r) for r in run(*[t._value for t in leaves])])


def _ident(name):
  s = "".join(c if c.isalnum() or c == "_" else "_" for c in name)
  return s if s and not s[0].isdigit() else "f_" + s
