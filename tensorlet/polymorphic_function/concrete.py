"""ConcreteFunction: one traced graph with its signature, callable from Python.

The first call lowers and optimises the graph (graph/passes.py) and compiles
it to Python (graph/executor.py); later calls pass the argument arrays straight
to the compiled function. Inside another function's graph, or while a
GradientTape records, a call is one call op (TF's PartitionedCall) instead:
under a tape it runs the graph that also returns the intermediates its
gradient needs, and the gradient is a compiled graph built by the shared
reverse pass (autodiff/function_grad.py).
"""
import inspect

from tensorlet import _nest as nest
from tensorlet import dtypes as _dt
from tensorlet.composite_tensor import CompositeTensor
from tensorlet.context import ctx
from tensorlet.errors import InvalidArgumentError
from tensorlet.ops import control_flow_ops
from tensorlet.polymorphic_function import trace, trace_type
from tensorlet.polymorphic_function.function_type import FunctionType, Parameter
from tensorlet.graph import executor
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
    try:
      leaves = self._bind(args, kwargs)
    except TypeError as e:
      leaves = self._bind_flat(args, kwargs, e)
    return self._call_flat(leaves)

  def _bind(self, args, kwargs):
    ft = self.function_type
    return ft.cast(ft.bind(args, kwargs))

  def _bind_flat(self, args, kwargs, error):
    """TF's fallback to the flat signature: the tensor parameters alone (Python
    values stay as traced), bound by position and name, `cf(a, b)` for `f(a, n, b)`."""
    def fail(why):
      return TypeError(f"{error}\nFallback to flat signature also failed due to: {why}")
    params = [p for p in self.function_type.parameters
              if not isinstance(p.type, trace_type.LiteralType)]
    if any(not isinstance(p.type, (trace_type.TensorType, trace_type.VariableType))
           for p in params):
      raise error
    for i, a in enumerate(list(args) + list(kwargs.values())):
      if not isinstance(a, Tensor):
        raise fail(f"provided list of inputs contains objects other than 'EagerTensor'. "
                   f"Item {i} is type: {type(a).__name__}") from None
    if len(args) > len(params):
      raise fail(f"{self._name}() takes {len(params)} tensor arguments, got {len(args)}") \
          from None
    bound = dict(zip((p.name for p in params), args))
    for k, v in kwargs.items():
      if k in bound or all(p.name != k for p in params):
        raise fail(f"unexpected or repeated keyword argument '{k}'") from None
      bound[k] = v
    missing = [p.name for p in params if p.name not in bound]
    if missing:
      raise fail(f"missing required arguments: {', '.join(missing)}") from None
    out = []
    for i, p in enumerate(params):
      v = bound[p.name]
      if isinstance(p.type, trace_type.VariableType) and isinstance(v, Tensor):
        raise InvalidArgumentError(
            None, None, f"cannot compute __inference_{self._name} as input #{i}(zero-based) "
            f"was expected to be a resource tensor but is a {v.dtype.name} tensor "
            f"[Op:__inference_{self._name}]")
      p.type.cast(v, trace_type.CastContext(self._name, p.name, self.function_type), out)
    return out

  def _call_flat(self, tensors):
    if ctx.tapes or ctx.graph is not None:
      return self._call_op(tensors)
    run = self._run
    if run is None:
      run = self._compile()
    res = run(*[t._value for t in tensors])
    g = self.graph
    if len(res) == 1 and g.structured_outputs is g.output_template[0]:
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
  def _lowered(self):
    """The graph the executors run: captures bound, optimised (graph/passes.py)."""
    from tensorlet.graph import passes  # loaded at the first call, not at import
    return passes.lower(self.graph, self._arg_leaves)

  def _compile(self):
    self._run = executor.compile_graph(self._lowered(), fn_name=executor._ident(self._name))
    return self._run

  def _call_op(self, tensors):
    """One call node (in a graph) or one recorded call (under a tape)."""
    g = self.graph
    caps = [v for v, _ in g.captures.values()]
    inputs = list(tensors) + caps
    trace.note_captured_variables(inputs)  # variable arguments and captured variables
    f = g
    if ctx.tapes and _watched(inputs):
      from tensorlet.autodiff import function_grad  # loaded on first use (import time)
      f = function_grad.forward_graph(g)
    outs = control_flow_ops.call(f, inputs, name=self._name)
    return self._pack(outs[:len(g.outputs)])


def _watched(tensors):
  for tape in ctx.tapes:
    w = tape._watched
    for t in tensors:
      if id(t) in w:
        return True
  return False


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

