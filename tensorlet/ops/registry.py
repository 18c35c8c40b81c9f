"""The op registry and `execute`, the one place where an op runs or is staged.

An op is declared once:

    @op("Exp", dtypes=FLOAT_OR_COMPLEX, shape=same_shape)
    def Exp(x):                 # NumPy kernel (NumPy API only)
      return np.exp(x)

    @Exp.def_grad
    def _(op, dy):              # written in tensorlet ops
      return [dy * op.outputs[0]]

`op` returns the `OpDef`; calling the OpDef converts its arguments and calls
`execute`. `execute` runs the kernel when eager or appends a node when a graph
is being built, then records the call on every recording tape that watches an
input. Tape records and graph nodes have the same fields (type, inputs,
outputs, attrs), so one reverse pass (autodiff/backprop.py) serves both.
"""
import warnings

import numpy as np

from tensorlet import dtypes as _dt
from tensorlet.context import ctx
from tensorlet.errors import InvalidArgumentError, OpError, out_of_memory, out_of_scope_error
from tensorlet.tensor import EagerTensor, Tensor, convert_to_tensor

__all__ = ["OpDef", "op", "execute", "REGISTRY"]

REGISTRY = {}
# The executor's compiled-graph caches, for ops that run graphs (If, While, calls):
# "function": FuncGraph -> compiled function, "loop": (cond, body, n_vars) -> loop.
# Late-bound: graph/executor.py (a layer above) fills it when imported.
GRAPH_EXEC = {}
# NOTE: TF kernels do not warn on overflow or 0/0; NumPy's RuntimeWarnings from
# our kernels are silenced here at no per-call cost (np.errstate costs ~1us).
warnings.filterwarnings("ignore", category=RuntimeWarning, module=r"tensorlet\.ops\.")
_EMPTY = {}
_BY_NP = _dt._BY_NP
_string = _dt.string


def _mask(dtypes):
  if dtypes is None:
    return -1
  m = 0
  for d in dtypes:
    m |= 1 << d._enum
  return m


class OpDef:
  """Everything about one op: kernel, shape rule, gradient, dtype rule, flags."""

  __slots__ = ("name", "kernel", "shape_fn", "grad_fn", "dtypes", "mask", "type_inputs",
               "stateful", "num_outputs", "differentiable", "arg_names", "expr", "inplace",
               "fresh", "grad_shape", "variadic", "role", "static_value", "simplify",
               "none_grads", "runs_python", "is_placeholder", "is_const", "reads_state",
               "sparse_grad", "__weakref__")

  def __init__(self, name, kernel, *, shape=None, dtypes=None, type_inputs=None,
               stateful=False, num_outputs=1, differentiable=True, expr=None, inplace=None,
               fresh=False, grad_shape=None, role=None, static_value=None, simplify=None,
               none_grads=False, runs_python=None, sparse_grad=False):
    self.name = name
    self.kernel = kernel
    self.shape_fn = shape
    self.grad_fn = None
    self.dtypes = frozenset(dtypes) if dtypes is not None else None
    self.mask = _mask(dtypes)
    # Kernel convention: tensor inputs are positional, attributes keyword-only.
    code = getattr(kernel, "__code__", None)
    if code is None:  # a NumPy ufunc
      self.arg_names = ("x", "y", "z")[:kernel.nin]
      variadic = False
    else:
      self.arg_names = code.co_varnames[:code.co_argcount]
      variadic = bool(code.co_flags & 0x04)
    self.variadic = variadic
    # Inputs that share the type attribute T; by default every tensor input
    # (None: every input of a variadic kernel such as AddN's).
    if type_inputs is None and not variadic:
      type_inputs = tuple(range(len(self.arg_names)))
    self.type_inputs = type_inputs
    self.stateful = stateful
    self.num_outputs = num_outputs
    self.differentiable = differentiable
    # Optional Python expression over inputs {0}, {1}... that the graph code
    # generator inlines instead of calling the kernel (same semantics, no call);
    # a callable(attrs) -> expression or None when the attributes matter.
    self.expr = expr
    # `inplace`: the NumPy ufunc name when the kernel is that ufunc, or a template
    # with {out} ("np.maximum({0}, 0, out={out})"), so graphs may write the result
    # into a dying input (`np.add(a, b, out=b)`). `fresh`: the
    # kernel always returns a newly allocated array (so a dying output may be
    # overwritten). An op with `inplace` is fresh.
    self.inplace = inplace
    self.fresh = fresh or inplace is not None
    # What the gradient rule returns for each input, so the reverse pass knows
    # whether to sum it down to the input's shape when shapes are not static:
    # "exact" (shaped like the input), "broadcast" (shaped like the output of
    # an elementwise broadcasting op) or None (unknown: always sum down).
    if grad_shape is None:
      if getattr(shape, "__name__", "") == "broadcast_shape":
        grad_shape = "broadcast"
      elif getattr(shape, "__name__", "") == "same_shape" and len(self.arg_names) == 1 \
          and not variadic:
        grad_shape = "exact"  # a unary elementwise op: dy * f'(x) has x's shape
    self.grad_shape = grad_shape
    # What the graph core must know about the op, instead of comparing names:
    # `role` is "placeholder" (fed by the caller), "const" (value in attrs["value"]),
    # "read" (reads a variable: ordered after updates, never folded, inlined),
    # "zeros" (all zeros, shaped like its input) or None.
    self.role = role
    # NOTE: plain fields, not properties: graph building reads them per op.
    self.is_placeholder = role == "placeholder"
    self.is_const = role == "const"
    self.reads_state = role == "read"
    # `static_value(op)`: the output's value known while tracing from static
    # shapes alone (Shape of a fully defined tensor), or None.
    self.static_value = static_value
    # `simplify(known)`: the index of the input this op's output equals, given
    # `known[i]` = the input's constant value (a 0-d array), ZERO for a zeros_like
    # output, or None; or None when no identity applies (x * 1, x + 0).
    self.simplify = simplify
    # The gradient rule takes None for outputs without a gradient (the reverse
    # pass then makes no zeros for them): call ops, whose extra outputs rarely get one.
    self.none_grads = none_grads
    # The public API whose Python code the op runs ("tf.py_function"): such ops
    # cannot leave Python (a saved model refuses them).
    self.runs_python = runs_python
    # The gradient rule takes an IndexedSlices output gradient as it is (Identity, a
    # variable read, Cast): the reverse pass converts it to a dense tensor otherwise.
    self.sparse_grad = sparse_grad

  def def_grad(self, fn):
    self.grad_fn = fn
    return fn

  def __call__(self, *args, name=None, **attrs):
    return execute(self, convert_inputs(self, args), attrs, name)

  def __repr__(self):
    return f"<OpDef {self.name}>"


def op(name, **kwargs):
  """Decorator declaring a kernel as the op `name`; returns the OpDef."""
  def wrap(kernel):
    if name in REGISTRY:
      raise ValueError(f"op {name!r} is registered twice")
    od = OpDef(name, kernel, **kwargs)
    REGISTRY[name] = od
    return od
  return wrap


def convert_inputs(od, args):
  """Converts op arguments; Python values take the dtype of a tensor sharing T."""
  out = []
  for a in args:  # fast path: tensors and variables only (the common eager case)
    if isinstance(a, Tensor):
      out.append(a)
    else:
      conv = getattr(a, "_as_tensor", None)
      if conv is None:
        break
      out.append(conv())
  else:
    return out
  ti = od.type_inputs
  if ti is None:
    ti = range(len(args))
  hint = None
  for i in ti:
    if i < len(args):
      a = args[i]
      if isinstance(a, Tensor):
        hint = a.dtype
        break
      conv = getattr(a, "dtype", None)
      if conv is not None and hasattr(a, "_as_tensor"):
        hint = a.dtype
        break
  if hint is None and ti and ti[0] < len(args):
    # NOTE: no tensor among them: the first value's dtype is used for the rest
    # (TF's args_to_matching_eager), so `tf.add([1.0], 2)` is float32.
    args = list(args)
    args[ti[0]] = convert_to_tensor(args[ti[0]])
    hint = args[ti[0]].dtype
  out = []
  for i, a in enumerate(args):
    if isinstance(a, Tensor):
      out.append(a)
    elif i in ti and hint is not None:
      out.append(_convert_with_hint(od, i, a, hint))
    else:
      out.append(convert_to_tensor(a))
  return out


# NOTE: TF 2.21 casts a NumPy value to the dtype its op needs (`int32_t *
# np.float32(1.5)` is int32, truncated; `float32_t * np.float64(2.5)` float32).
_NP_COMPAT = {"i": "biufc", "u": "biufc", "f": "biufc", "c": "c", "b": "b"}


def _convert_with_hint(od, i, a, hint):
  if hasattr(a, "_as_tensor"):
    return convert_to_tensor(a)
  if isinstance(a, (np.ndarray, np.generic)):
    if hint._np.kind in _NP_COMPAT.get(a.dtype.kind, ""):
      return convert_to_tensor(a, hint)
    return convert_to_tensor(a)
  try:
    return convert_to_tensor(a, hint)
  except ValueError as e:
    arg = od.arg_names[i] if i < len(od.arg_names) else f"input #{i}"   # variadic ops
    raise ValueError(f"{e} (argument '{arg}' of {od.name})") from None
  except TypeError:
    if ctx.graph is None or isinstance(a, (list, tuple)):
      raise
    # NOTE: TF's wording while building a graph (op_def_library).
    arg = od.arg_names[i] if i < len(od.arg_names) else f"input #{i}"
    t = type(a).__name__
    raise TypeError(f"Expected {hint.name} passed to parameter '{arg}' of op '{od.name}', got "
                    f"{a!r} of type '{t}' instead. Error: Expected {hint.name}, but got {a!r} "
                    f"of type '{t}'.") from None


class EagerOp:
  """A tape record: the same fields as a graph Operation."""

  __slots__ = ("opdef", "inputs", "outputs", "attrs", "needs")

  def __init__(self, opdef, inputs, outputs, attrs):
    self.opdef = opdef
    self.inputs = inputs
    self.outputs = outputs
    self.attrs = attrs
    self.needs = None  # set by the reverse pass: which inputs want a gradient

  @property
  def type(self):
    return self.opdef.name

  def get_attr(self, name):
    return self.attrs[name]


# Eager dtype errors name types as TF's runtime does ("float", not "float32").
_RUNTIME_NAME = {"float16": "half", "float32": "float", "float64": "double"}


def _rt(d):
  return _RUNTIME_NAME.get(d.name, d.name)


def _dtype_error(od, inputs, i, first):
  d = inputs[i].dtype
  if first:
    allowed = ", ".join(sorted(_rt(x) for x in od.dtypes)) if od.dtypes else ""
    return InvalidArgumentError(
        None, None, f"Value for attr 'T' of {_rt(d)} is not in the list of allowed values: "
        f"{allowed} [Op:{od.name}]")
  want = inputs[(od.type_inputs or (0,))[0]].dtype
  return InvalidArgumentError(
      None, None, f"cannot compute {od.name} as input #{i}(zero-based) was expected to be a "
      f"{_rt(want)} tensor but is a {_rt(d)} tensor [Op:{od.name}]")


def check_dtypes(od, inputs):
  ti = od.type_inputs
  if ti is None:
    ti = range(len(inputs))
  if not ti:
    return
  d = inputs[ti[0]].dtype
  if not (od.mask >> d._enum) & 1:
    raise _dtype_error(od, inputs, ti[0], True)
  for i in ti[1:]:
    if inputs[i].dtype is not d:
      raise _dtype_error(od, inputs, i, False)


_new = object.__new__


def check_dtypes_graph(od, inputs):
  """Graph-building dtype check: TypeError, as TF raises while building graphs."""
  ti = od.type_inputs
  if ti is None:
    ti = range(len(inputs))
  if not ti:
    return
  names = od.arg_names
  d = inputs[ti[0]].dtype
  if not (od.mask >> d._enum) & 1:
    allowed = ", ".join(sorted(x.name for x in od.dtypes)) if od.dtypes else ""
    arg = names[ti[0]] if ti[0] < len(names) else "inputs"
    raise TypeError(f"Value passed to parameter '{arg}' has DataType {d.name} not in list of "
                    f"allowed values: {allowed} (op {od.name})")
  for i in ti[1:]:
    if inputs[i].dtype is not d:
      a = names[i] if i < len(names) else f"inputs[{i}]"
      b = names[ti[0]] if ti[0] < len(names) else "inputs[0]"
      raise TypeError(f"Input '{a}' of '{od.name}' Op has type {inputs[i].dtype.name} that "
                      f"does not match type {d.name} of argument '{b}'.")


def _wrap(v):
  try:
    dt = _BY_NP[v.dtype]
  except (AttributeError, KeyError):
    dt = _dt.variant if type(v).__name__ == "Variant" else _string
  if dt is _string and not isinstance(v, np.ndarray) and dt is not _dt.variant:
    v = np.asarray(v, dtype=object)
  t = _new(EagerTensor)
  t._value = v
  t._dtype = dt
  t._device = ctx.device
  return t


# tf.debugging.enable_check_numerics sets this to ops/numerics.py's eager check.
NUMERICS_CHECK = None


def execute(od, inputs, attrs=_EMPTY, name=None):
  """Runs (eager) or stages (graph) `od` on tensor `inputs`; records on tapes.

  `name` names the graph node (TF style, e.g. "add" for `a + b`); eager ignores it.
  """
  c = ctx
  g = c.graph
  if g is not None:
    out = g.create_op(od, inputs, attrs, name)
    if c.tapes:
      record(od, inputs, out if isinstance(out, tuple) else (out,), attrs)
    return out
  ti = od.type_inputs
  if ti is None:
    ti = range(len(inputs))
  n = len(ti)
  if n:
    d = inputs[ti[0]]._dtype
    if not (od.mask >> d._enum) & 1 or (n > 1 and (
        inputs[ti[1]]._dtype is not d or (n > 2 and any(
            inputs[i]._dtype is not d for i in ti[2:])))):
      check_dtypes(od, inputs)
  try:
    # NOTE: arity-specialised calls: this line is most of eager overhead.
    if attrs:
      res = od.kernel(*[t._value for t in inputs], **attrs)
    elif len(inputs) == 2:
      res = od.kernel(inputs[0]._value, inputs[1]._value)
    elif len(inputs) == 1:
      res = od.kernel(inputs[0]._value)
    else:
      res = od.kernel(*[t._value for t in inputs])
  except OpError:
    raise
  except Exception as e:  # NumPy errors become TF errors naming the op
    _check_eager_inputs(od, inputs)
    raise kernel_error(od, inputs, attrs, e) from None
  if NUMERICS_CHECK is not None:
    NUMERICS_CHECK(od, inputs, res)
  if od.num_outputs == 1:
    out = _wrap(res)
    if c.tapes:
      record(od, inputs, (out,), attrs)
    return out
  outs = tuple(_wrap(r) for r in res)
  if c.tapes:
    record(od, inputs, outs, attrs)
  return outs


def _check_eager_inputs(od, inputs):
  for i, t in enumerate(inputs):
    if not isinstance(t, EagerTensor):
      raise out_of_scope_error(t)


def kernel_error(od, inputs, attrs, e):
  """The TF-style error for a kernel failure, from the shape rule when it can tell."""
  if isinstance(e, MemoryError):
    return out_of_memory(od.name, f"the output of {od.name} ({e})")
  if od.shape_fn is not None:
    try:
      od.shape_fn(inputs, attrs)
    except (ValueError, TypeError) as se:
      return InvalidArgumentError(None, None, f"{se} [Op:{od.name}]")
    except Exception:  # noqa: BLE001 - fall through to the generic message
      pass
  shapes = ", ".join(str(list(t._value.shape)) if hasattr(t, "_value") else "?" for t in inputs)
  return InvalidArgumentError(None, None, f"{od.name} failed on inputs of shapes [{shapes}]: "
                              f"{e} [Op:{od.name}]")


def record(od, inputs, outputs, attrs):
  """Appends the call to each recording tape that watches one of `inputs`."""
  if not od.differentiable:
    return
  rec = None
  for tape in ctx.tapes:
    w = tape._watched
    for t in inputs:
      if id(t) in w:
        if rec is None:
          rec = EagerOp(od, inputs, outputs, attrs)
        tape._records.append(rec)
        for o in outputs:
          w.add(id(o))
        break


# ------------------------------------------------------------ shape helpers

def same_shape(inputs, attrs):
  x = inputs[0]
  return [(x.shape, x.dtype)]


def constant_value(t):
  """The value of `t` when known without running a graph, else None."""
  if isinstance(t, EagerTensor):
    return np.asarray(t._value)
  cv = getattr(t, "_const", None)
  return cv


# ------------------------------------------------- graph-rewrite hooks (OpDef fields)

ZERO = "zeros"  # `simplify`'s marker for an input known to be all zeros (a ZerosLike output)


def _is(v, x):
  return v is not None and v is not ZERO and np.ndim(v) == 0 and v == x


def pass_through(known):
  """Identity, StopGradient: the output is the input."""
  return 0


def add_identity(known):
  """x + 0, 0 + x."""
  if known[0] is ZERO or _is(known[0], 0):
    return 1
  if known[1] is ZERO or _is(known[1], 0):
    return 0
  return None


def sub_identity(known):
  """x - 0."""
  return 0 if known[1] is ZERO or _is(known[1], 0) else None


def div_identity(known):
  """x / 1."""
  return 0 if _is(known[1], 1) else None


def mul_identity(known):
  """x * 1, 1 * x."""
  if _is(known[1], 1):
    return 0
  if _is(known[0], 1):
    return 1
  return None


# NOTE: small constant values are known while tracing so shape rules can use
# them (reshape(x, shape(y)), zeros(n)).
STATIC_LIMIT = 1024


def shape_value(op):
  """Shape, Size, Rank of a tensor of fully defined static shape."""
  x = op.inputs[0]
  if not x.shape.is_fully_defined():
    return None
  d = x.shape.as_list()
  v = {"Shape": d, "Size": int(np.prod(d)), "Rank": len(d)}[op.opdef.name]
  return np.asarray(v, dtype=(op.attrs.get("out_type") or _dt.int32)._np)


def fill_value(fill):
  """ZerosLike/OnesLike: they depend only on the static shape (gradient seeds)."""
  def static(op):
    x = op.inputs[0]
    if x.shape.is_fully_defined() and x.shape.num_elements() <= STATIC_LIMIT and \
        x.dtype.is_numeric:
      return np.full(x.shape.as_list(), fill, x.dtype._np)
    return None
  return static
