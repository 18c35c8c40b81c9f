"""Graphs as data: `Operation`s (op type + attrs + inputs) in program order,
`SymbolicTensor` outputs with static shapes, and `FuncGraph`, the graph of a
traced function with its inputs, outputs and captures.

Operations keep the same fields as tape records (opdef, inputs, outputs,
attrs), so the shared reverse pass differentiates graphs too. They are
appended in program order, which is also a valid execution order; control
inputs record the ordering of stateful operations for passes that reorder.
"""
import sys

import numpy as np

from tensorlet import dtypes as _dt
from tensorlet.errors import invalid_argument, out_of_memory, out_of_scope_error
from tensorlet.ops import registry as _registry
from tensorlet.tensor_shape import TensorShape
from tensorlet.tensor import EagerTensor, Tensor

__all__ = ["Graph", "FuncGraph", "Operation", "SymbolicTensor"]

_PKG_DIR = __file__.rsplit("/graph/", 1)[0]
_new = object.__new__


class SymbolicTensor(Tensor):
  """An output of an Operation in a graph: static (maybe partial) shape and dtype."""

  __slots__ = ("op", "value_index", "_dtype", "_shape", "_const", "_variable", "_keras_mask",
               "__weakref__")

  def __init__(self, op, value_index, shape, dtype):
    self.op = op
    self.value_index = value_index
    self._shape = shape if isinstance(shape, TensorShape) else TensorShape(shape)
    self._dtype = dtype
    self._const = None
    self._variable = None  # the Variable, for a captured resource handle

  @property
  def dtype(self):
    return self._dtype

  @property
  def shape(self):
    return self._shape

  @property
  def graph(self):
    return self.op.graph

  @property
  def name(self):
    return f"{self.op.name}:{self.value_index}"

  @property
  def device(self):
    return ""

  def set_shape(self, shape):
    self._shape = self._shape.merge_with(shape)

  @property
  def numpy(self):
    # NOTE: an AttributeError as TF's (its symbolic tensors have no `numpy`), so
    # `hasattr(t, "numpy")` tells eager tensors apart as it does in TF.
    raise AttributeError(
        f"'SymbolicTensor' object has no attribute 'numpy': {self.name} is a symbolic tensor "
        f"of a tf.function graph and has no value while the function is traced. Return it "
        f"from the function to get its value.")

  def __bool__(self):
    # NOTE: seed 003's wording (the message users search for); TF's error type.
    from tensorlet.errors import OperatorNotAllowedInGraphError
    raise OperatorNotAllowedInGraphError("Using a `tf.Tensor` as a Python `bool` is not allowed. Use `if t is not "
                    "None:` instead of `if t:` to test if a tensor is defined, and use "
                    "TensorFlow ops such as tf.cond to execute subgraphs conditioned on the "
                    "value of a tensor.")

  def __iter__(self):
    # NOTE: as TF 2.21 in a graph, even with a known first dimension (AutoGraph turns
    # `for x in tensor` into a loop before this is reached).
    from tensorlet.errors import OperatorNotAllowedInGraphError
    raise OperatorNotAllowedInGraphError(
        "Iterating over a symbolic `tf.Tensor` is not allowed: use tf.unstack, tf.range "
        "indexing or tf.map_fn, or let AutoGraph (tf.function's default) convert the loop.")

  def __len__(self):
    n = self._shape[0] if self._shape.rank else None
    if n is None:
      raise TypeError(f"len is not well defined for a symbolic Tensor ({self.name}) whose "
                      f"first dimension is unknown. Please call `x.shape` rather than `len(x)`")
    return n

  def __index__(self):
    raise TypeError(f"The symbolic tensor {self.name} cannot be used as a Python index or "
                    f"int; use tensor operations instead.")

  def __array__(self, dtype=None, copy=None):
    raise NotImplementedError(
        f"Cannot convert a symbolic tf.Tensor ({self.name}) to a numpy array. This error may "
        f"indicate that you're trying to pass a Tensor to a NumPy call, which is not supported.")

  def __repr__(self):
    return f"<tf.Tensor '{self.name}' shape={self._shape} dtype={self._dtype.name}>"

  def __str__(self):
    # NOTE: TF leaves the shape out when even the rank is unknown.
    shape = f", shape={self._shape}" if self._shape.rank is not None else ""
    return f'Tensor("{self.name}"{shape}, dtype={self._dtype.name})'


class Operation:
  """A node: op type (its OpDef), inputs, attrs, outputs, control inputs."""

  __slots__ = ("graph", "opdef", "name", "inputs", "outputs", "attrs", "control_inputs",
               "source", "needs", "__weakref__")

  def __init__(self, graph, opdef, name, inputs, attrs):
    self.graph = graph
    self.opdef = opdef
    self.name = name
    self.inputs = inputs
    self.attrs = attrs
    self.outputs = ()
    self.control_inputs = []
    self.source = None
    self.needs = None  # set by the reverse pass: which inputs want a gradient

  @property
  def type(self):
    return self.opdef.name

  def get_attr(self, name):
    return self.attrs[name]

  @property
  def node_def(self):
    return NodeDef(self)

  def __repr__(self):
    return f"<tf.Operation '{self.name}' type={self.type}>"


class NodeDef:
  """The as_graph_def() view of an Operation: name, op, input, attr."""

  __slots__ = ("name", "op", "input", "attr", "device")

  def __init__(self, operation):
    self.name = operation.name
    self.op = operation.type
    self.input = [t.name if t.value_index else t.op.name for t in operation.inputs] + \
        ["^" + c.name for c in operation.control_inputs]
    self.attr = dict(operation.attrs)
    self.device = ""

  def __repr__(self):
    return f"name: {self.name!r} op: {self.op!r} input: {self.input}"


class GraphDef:
  __slots__ = ("node", "library", "versions")

  def __init__(self, nodes):
    self.node = nodes
    self.library = None
    self.versions = None

  def __repr__(self):
    return "\n".join(repr(n) for n in self.node)


def _user_frame():
  """(filename, lineno, line) of the innermost frame outside tensorlet."""
  f = sys._getframe(2)
  while f is not None and f.f_code.co_filename.startswith(_PKG_DIR):
    f = f.f_back
  if f is None:
    return None
  return (f.f_code.co_filename, f.f_lineno, f.f_code.co_name)


class Graph:
  """A list of Operations in program order, with unique TF-style names."""

  def __init__(self, name="graph"):
    self.name = name
    self._ops = []
    self._names = {}
    self._last_stateful = None
    self._reads_since = []
    self.seed = None
    self.outer_graph = None
    self._control_deps = ()   # ops every new op depends on (tf.control_dependencies)

  # ---------------------------------------------------------------- names
  def unique_name(self, base):
    n = self._names.get(base)
    if n is None:
      self._names[base] = 1
      return base
    while True:
      cand = f"{base}_{n}"
      n += 1
      if cand not in self._names:
        self._names[base] = n
        self._names[cand] = 1
        return cand

  # ------------------------------------------------------------- building
  def create_op(self, od, inputs, attrs, name=None):
    from tensorlet.context import ctx
    op_name = self.unique_name(ctx.scope + (name or od.name))
    inputs = [t if isinstance(t, SymbolicTensor) and t.op.graph is self
              else self.capture(t, op_name) for t in inputs]
    # NOTE: the node shares the caller's attrs dict with tape records of it, so a
    # gradient rule that switches an attribute on (While's keep_history) reaches the node.
    op = Operation(self, od, op_name, inputs, attrs)
    op.source = _user_frame()
    specs = self._infer(od, inputs, attrs)
    op.outputs = tuple(SymbolicTensor(op, i, s, d) for i, (s, d) in enumerate(specs))
    self._order(op)
    if self._control_deps:
      op.control_inputs.extend(c for c in self._control_deps if c not in op.control_inputs)
    self._ops.append(op)
    _propagate_constant(op)
    if _registry.NUMERICS_CHECK is not None:
      from tensorlet.ops.numerics import graph_check  # loaded once checks are enabled
      checked = graph_check(self, op)
      if checked is not None:
        return checked[0] if len(checked) == 1 and od.num_outputs == 1 else checked
    if len(op.outputs) == 1 and od.num_outputs == 1:
      return op.outputs[0]
    return op.outputs

  def _order(self, op):
    """Automatic control dependencies: stateful ops and variable reads keep program order."""
    od = op.opdef
    if od.stateful:
      if self._last_stateful is not None:
        op.control_inputs.append(self._last_stateful)
      op.control_inputs.extend(r for r in self._reads_since if r not in op.control_inputs)
      self._last_stateful = op
      self._reads_since = []
    elif od.reads_state:
      if self._last_stateful is not None:
        op.control_inputs.append(self._last_stateful)
      self._reads_since.append(op)

  def control_dependencies_push(self, control_inputs):
    """Enters a tf.control_dependencies block; returns what control_dependencies_pop
    restores."""
    saved = self._control_deps
    if control_inputs is None:
      self._control_deps = ()
      return saved
    ops = list(saved)
    for c in control_inputs:
      o = c if isinstance(c, Operation) else getattr(c, "op", None)
      if o is None and hasattr(c, "_handle") and hasattr(c, "_as_tensor"):
        # NOTE: a variable (what `v.assign(...)` returns): wait for the latest
        # stateful op, which automatic control dependencies order after its writes.
        o = self._last_stateful
        if o is None:
          continue
      if o is None:
        if isinstance(c, EagerTensor):
          continue  # NOTE: already computed; nothing to wait for
        if callable(c):
          c = c()
          o = c if isinstance(c, Operation) else getattr(c, "op", None)
        if o is None:
          raise TypeError(f"Control input must be an Operation, a Tensor, or IndexedSlices: "
                          f"{c!r}")
      # NOTE: as TF 2.21 at run time (Grappler's dependency optimizer): a control
      # edge from a pure op is dropped -- only stateful ops (assign, print,
      # asserts, py_function) and tf.group's NoOps make the block wait.
      if o.graph is self and o not in ops and (o.opdef.stateful or o.opdef.name == "NoOp"):
        ops.append(o)
    self._control_deps = tuple(ops)
    return saved

  def control_dependencies_pop(self, saved):
    self._control_deps = saved

  def _infer(self, od, inputs, attrs):
    from tensorlet.ops.registry import check_dtypes_graph
    check_dtypes_graph(od, inputs)
    try:
      return od.shape_fn(inputs, attrs)
    except ValueError as e:
      raise ValueError(f"{e} for '{{{{node {od.name}}}}}' with input shapes: " +
                       ", ".join(_dims(t.shape) for t in inputs) + ".") from None
    except MemoryError as e:
      # NOTE: a shape rule evaluating constant inputs may meet absurd sizes
      raise out_of_memory(od.name, f"the shape of {od.name}'s output ({e})") from None
    except OverflowError as e:
      raise invalid_argument(od.name, f"{od.name}: a constant input is out of range ({e})") \
          from None

  def capture(self, t):
    raise ValueError(f"Tensor {t!r} must be from the same graph as the op that uses it.")

  def capture_constant(self, eager, name=None):
    """A Const node holding an eager tensor converted inside the graph."""
    from tensorlet.ops.registry import REGISTRY
    out = self.create_op(REGISTRY["Const"], [], {"value": eager._value, "dtype": eager._dtype},
                         name=name or "Const")
    return out

  # ---------------------------------------------------------- inspection
  def get_operations(self):
    return list(self._ops)

  def get_operation_by_name(self, name):
    for op in self._ops:
      if op.name == name:
        return op
    raise KeyError(f"The name '{name}' refers to an Operation not in the graph.")

  def get_tensor_by_name(self, name):
    opname, _, idx = name.partition(":")
    return self.get_operation_by_name(opname).outputs[int(idx or 0)]

  def as_graph_def(self, add_shapes=False):
    return GraphDef([NodeDef(op) for op in self._ops])

  def as_default(self):
    return _GraphScope(self)

  def __str__(self):
    return "\n".join(_graph_lines(self, ""))

  # ------------------------------------------------------------ rewriting
  def add_node(self, opdef, name, inputs, attrs, like=None, specs=None, source=None):
    """Appends an Operation as given, without inference, capture or naming rules:
    passes build their result graphs with it. Output specs come from `like`
    (an Operation whose outputs this node replaces) or `specs` [(shape, dtype)]."""
    op = Operation(self, opdef, name, inputs, attrs)
    op.source = source
    if specs is None:
      specs = [(t._shape, t._dtype) for t in like.outputs]
    outs = []
    for i, (shape, dtype) in enumerate(specs):
      t = _new(SymbolicTensor)
      t.op, t.value_index, t._shape, t._dtype = op, i, shape, dtype
      t._const = t._variable = None
      outs.append(t)
    op.outputs = tuple(outs)
    self._names[name] = 1
    self._ops.append(op)
    return op

  # -------------------------------------------------------------- checks
  def lint(self):
    """Checks the graph's invariants; raises ValueError listing every violation.

    Topological order (inputs and control inputs come from earlier ops), input
    ownership (every input is an output of an op of this graph), arity and
    dtypes against each op's OpDef, output specs, and unique op names."""
    from tensorlet.ops.registry import check_dtypes_graph
    problems = []
    seen_ops, names = set(), set()
    for op in self._ops:
      od = op.opdef
      where = f"op '{op.name}' ({od.name})"
      if op.name in names:
        problems.append(f"{where}: the name is used twice")
      names.add(op.name)
      if op.graph is not self:
        problems.append(f"{where}: belongs to graph '{op.graph.name}'")
      for k, t in enumerate(op.inputs):
        if not isinstance(t, SymbolicTensor) or t.op.graph is not self:
          problems.append(f"{where}: input {k} ({t!r}) is not a tensor of this graph")
        elif id(t.op) not in seen_ops:
          problems.append(f"{where}: input {k} ({t.name}) is produced later (not topological)")
        elif t.op.outputs[t.value_index] is not t:
          problems.append(f"{where}: input {k} ({t.name}) is not an output of its op")
      for c in op.control_inputs:
        if id(c) not in seen_ops:
          problems.append(f"{where}: control input '{c.name}' is not an earlier op of this graph")
      arity_ok = od.variadic or len(op.inputs) == len(od.arg_names)
      if not arity_ok:
        problems.append(f"{where}: {len(op.inputs)} inputs, its kernel takes "
                        f"{len(od.arg_names)}")
      if od.num_outputs is not None and len(op.outputs) != od.num_outputs:
        problems.append(f"{where}: {len(op.outputs)} outputs, the OpDef says {od.num_outputs}")
      for k, t in enumerate(op.outputs):
        if t.op is not op or t.value_index != k or not isinstance(t.dtype, _dt.DType) or \
            not isinstance(t.shape, TensorShape):
          problems.append(f"{where}: output {k} is malformed")
      if arity_ok and all(isinstance(t, SymbolicTensor) for t in op.inputs):
        try:
          check_dtypes_graph(od, op.inputs)
        except TypeError as e:
          problems.append(f"{where}: {e}")
      seen_ops.add(id(op))
    for k, t in enumerate(getattr(self, "outputs", ())):
      if not isinstance(t, SymbolicTensor) or t.op.graph is not self or id(t.op) not in seen_ops:
        problems.append(f"output {k} ({t!r}) is not a tensor of this graph")
    for k, t in enumerate(getattr(self, "inputs", ())):
      if not isinstance(t, SymbolicTensor) or t.op.graph is not self or \
          not t.op.opdef.is_placeholder:
        problems.append(f"input {k} ({t!r}) is not a placeholder of this graph")
    if problems:
      raise ValueError(f"graph '{self.name}' is malformed:\n  " + "\n  ".join(problems))
    return self


def _graph_lines(g, indent):
  """`str(graph)`: one line per op, attributes after the call, nested graphs
  (branches, loop bodies, called functions) indented below their op."""
  head = f"{indent}graph {g.name}"
  ins = getattr(g, "inputs", None)
  if ins is not None:
    head += "(" + ", ".join(f"{t.name}: {t.dtype.name}{_dims(t.shape)}" for t in ins) + ")"
  lines = [head + ":"]
  pad = indent + "  "
  for op in g._ops:
    outs = ", ".join(f"{o.name}: {o.dtype.name}{_dims(o.shape)}" for o in op.outputs) or "-"
    args = ", ".join(t.name for t in op.inputs)
    nested = [(k, v) for k, v in op.attrs.items() if isinstance(v, Graph)]
    attrs = ", ".join(f"{k}={_attr_text(v)}" for k, v in op.attrs.items())
    ctl = (" ^" + " ^".join(c.name for c in op.control_inputs)) if op.control_inputs else ""
    lines.append(f"{pad}{outs} = {op.type}({args}){' {' + attrs + '}' if attrs else ''}{ctl}")
    for k, sub in nested:
      lines.append(f"{pad}  {k}:")
      lines.extend(_graph_lines(sub, pad + "    "))
  outs = getattr(g, "outputs", None)
  if outs is not None:
    lines.append(f"{pad}return {', '.join(t.name for t in outs)}")
  return lines


def _attr_text(v):
  if isinstance(v, Graph):
    return f"<graph {v.name}>"
  if isinstance(v, _dt.DType):
    return v.name
  if isinstance(v, TensorShape):
    return _dims(v)
  if isinstance(v, (np.ndarray, np.generic)):
    a = np.asarray(v)
    if a.size <= 6:
      return np.array2string(a, separator=",").replace("\n", "")
    return f"<{a.dtype}{list(a.shape)}>"
  if isinstance(v, (list, tuple)):
    inner = ", ".join(_attr_text(x) for x in v)
    return f"[{inner}]" if isinstance(v, list) else f"({inner}{',' if len(v) == 1 else ''})"
  if isinstance(v, dict):
    return "{" + ", ".join(f"{k}: {_attr_text(x)}" for k, x in v.items()) + "}"
  if v is None or isinstance(v, (bool, int, float, str, bytes)):
    return repr(v)
  if callable(v):
    return f"<{getattr(v, '__qualname__', type(v).__name__)}>"
  name = getattr(v, "name", None)
  return f"<{type(v).__name__} {name}>" if isinstance(name, str) else f"<{type(v).__name__}>"


class _GraphScope:
  def __init__(self, g):
    self.g = g

  def __enter__(self):
    from tensorlet.context import ctx
    self._old = ctx.graph
    ctx.graph = self.g
    return self.g

  def __exit__(self, *exc):
    from tensorlet.context import ctx
    ctx.graph = self._old
    return False


def _dims(shape):
  if shape.rank is None:
    return "?"
  return "[" + ",".join("?" if d is None else str(d) for d in shape.as_list()) + "]"


# NOTE: small constant values are known while tracing so shape rules can use
# them (reshape(x, shape(y)), zeros(n)); the graph still holds the ops and
# lowering turns them into constants.
_FOLD_LIMIT = 1024


def _propagate_constant(op):
  od = op.opdef
  if od.stateful or od.num_outputs != 1 or not op.outputs:
    return
  out = op.outputs[0]
  if od.is_const:
    out._const = np.asarray(op.attrs["value"])
    return
  if od.static_value is not None:
    try:
      out._const = od.static_value(op)
    except (OverflowError, MemoryError):
      pass    # not foldable (a shape beyond int32, say): the kernel reports it when run
    return
  if od.reads_state or not op.inputs:
    return
  vals = [t._const for t in op.inputs]
  if any(v is None or v.size > _FOLD_LIMIT for v in vals):
    return
  try:
    r = od.kernel(*vals, **op.attrs)
  except Exception:  # noqa: BLE001 - folding is an optimisation; the op stays in the graph
    return
  r = np.asarray(r)
  if r.size <= _FOLD_LIMIT:
    out._const = r


class FuncGraph(Graph):
  """The graph of one trace: placeholders in, outputs out, captured outer values."""

  def __init__(self, name, outer_graph=None):
    super().__init__(name)
    self.inputs = []
    self.outputs = []
    self.structured_outputs = None
    self.structured_input_signature = None
    self.captures = {}          # id(outer) -> (outer value, inner placeholder)
    self.variables = []
    self.outer_graph = outer_graph
    self.control_outputs = []
    self.feeds = {}             # id(placeholder) -> the call's eager value, while tracing
    self.arg_handles = {}       # id(handle of a variable argument) -> its resource input

  def placeholder(self, spec, name):
    from tensorlet.ops.registry import REGISTRY
    op = Operation(self, REGISTRY["Placeholder"], self.unique_name(name), [],
                   {"dtype": spec.dtype, "shape": spec.shape})
    t = SymbolicTensor(op, 0, spec.shape, spec.dtype)
    op.outputs = (t,)
    self._ops.append(op)
    return t

  def capture(self, t, consumer=None):
    """Inner placeholder standing for an outer value (eager tensor, variable handle,
    or a tensor of an enclosing graph); a variable's is named `<consumer>/resource`
    after the first op using it, as TF names it, so TensorBoard draws it in that
    op's scope."""
    key = id(t)
    hit = self.captures.get(key)
    if hit is not None:
      return hit[1]
    ph = self.arg_handles.get(key)
    if ph is not None:
      return ph
    if isinstance(t, SymbolicTensor) and self.outer_graph is None:
      raise out_of_scope_error(t)
    from tensorlet.tensor_spec import TensorSpec
    shape = t.shape if t.dtype is not _dt.resource else TensorShape([])
    if t.dtype is not _dt.resource:
      name = "Placeholder"
    else:
      name = f"{consumer or 'ReadVariableOp'}/resource"
    ph = self.placeholder(TensorSpec(shape, t.dtype), name)
    if t.dtype is _dt.resource:
      from tensorlet.ops.state_ops import variable_of
      v = variable_of(t)
      ph._variable = v
      if all(v is not w for w in self.variables):
        self.variables.append(v)
    self.captures[key] = (t, ph)
    return ph

  def variable_argument(self, var, name):
    """The resource input standing for variable argument `var`: its reads and writes
    in this trace use the variable passed to each call (the first input of an
    aliased variable serves all its uses)."""
    from tensorlet.tensor_spec import TensorSpec
    ph = self.placeholder(TensorSpec(TensorShape([]), _dt.resource), name)
    ph._variable = var
    self.arg_handles.setdefault(id(var._handle), ph)
    return ph

  def read_variable(self, var):
    from tensorlet.ops.registry import execute
    from tensorlet.ops import state_ops
    var._note_access()
    return execute(state_ops.ReadVariableOp, [var._handle], {})

  def evaluate(self, t):
    """The value of `t` now, from the arguments of the call being traced (used for
    variable initial values that depend on arguments or other variables)."""
    from tensorlet.ops.registry import _wrap
    from tensorlet.ops.state_ops import variable_of
    if t._const is not None:
      return _wrap(t._const if t._const.ndim else t._const[()])
    needed = {id(t.op)}
    for op in reversed(self._ops):
      if id(op) in needed:
        needed.update(id(x.op) for x in op.inputs if isinstance(x, SymbolicTensor))
    env = {}
    caps = {id(ph): v for v, ph in self.captures.values()}
    for op in self._ops:
      if id(op) not in needed:
        continue
      if op.opdef.is_placeholder:
        o = op.outputs[0]
        if id(o) in self.feeds:
          env[id(o)] = self.feeds[id(o)]._value
        elif id(o) in caps:
          v = caps[id(o)]
          env[id(o)] = variable_of(v) if v.dtype is _dt.resource else v._value
        else:
          raise ValueError(f"The value of {t.name} depends on the function argument "
                           f"{o.name}, which has no value while tracing from a TensorSpec; "
                           f"call the function with tensors to create its variables.")
        continue
      if op.opdef.stateful:
        raise ValueError(f"{t.name} depends on the stateful operation {op.name} and cannot "
                         f"be evaluated while tracing.")
      r = op.opdef.kernel(*[env[id(x)] for x in op.inputs], **op.attrs)
      outs = (r,) if len(op.outputs) == 1 and op.opdef.num_outputs == 1 else r
      for o, v in zip(op.outputs, outs):
        env[id(o)] = v
    return _wrap(env[id(t)])



  def with_outputs(self, extra, name=None, keep_outputs=True):
    """A copy of this graph returning its outputs (unless not `keep_outputs`) and then
    `extra` (tensors of this graph): the forward graph of a call whose gradient needs
    intermediate values. Inputs and captures (same outer values, same order) are kept."""
    g = FuncGraph(name or self.name, outer_graph=self.outer_graph)
    m, ops = {}, {}
    for op in self._ops:
      new = g.add_node(op.opdef, op.name, [m[id(t)] for t in op.inputs], op.attrs, like=op,
                       source=op.source)
      new.control_inputs = [ops[id(c)] for c in op.control_inputs]
      ops[id(op)] = new
      for a, b in zip(op.outputs, new.outputs):
        m[id(a)] = b
        b._const, b._variable = a._const, a._variable
    g.inputs = [m[id(t)] for t in self.inputs]
    g.outputs = [m[id(t)] for t in (list(self.outputs) if keep_outputs else []) + list(extra)]
    g.captures = {k: (v, m[id(ph)]) for k, (v, ph) in self.captures.items()}
    g.variables = list(self.variables)
    g.structured_outputs = list(g.outputs)
    return g
