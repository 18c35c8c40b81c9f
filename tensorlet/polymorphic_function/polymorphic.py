"""tf.function: binds a call's arguments (function_type.py), finds the trace for
their trace types (trace_type.py) in its cache (cache.py, which holds the
dispatch rule), traces on a miss and calls the ConcreteFunction.
"""
import functools
import inspect
import types
import warnings
import weakref

from tensorlet import _nest as nest
from tensorlet.context import ctx
from tensorlet.polymorphic_function import trace_type
from tensorlet.polymorphic_function.cache import FunctionCache
from tensorlet.polymorphic_function.function_type import FunctionType
from tensorlet.polymorphic_function.concrete import ConcreteFunction
from tensorlet.polymorphic_function.trace import finish_outputs
from tensorlet.polymorphic_function import user_code
from tensorlet.graph.graph import FuncGraph
from tensorlet.tensor import EagerTensor, Tensor, convert_to_tensor
from tensorlet.tensor_spec import TensorSpec
from tensorlet.variables import Variable
from tensorlet.composite_tensor import TypeSpec

__all__ = ["function", "Function"]

_RETRACE_WARN_AT = 5
_VAR = (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)


def _variable_call_key(args):
  """The fast-path key of positional eager tensors and plain tf.Variables: what their
  trace types hold ((dtype, shape) of a tensor; dtype, declared shape, trainability and
  which earlier argument it is the same variable as, of a variable); None for any other
  argument."""
  key, ids = [], {}
  for a in args:
    t = type(a)
    if t is EagerTensor:
      key.append((a._dtype._enum, a._value.shape))
    elif t is Variable:
      key.append((a._dtype._enum, a._shape._dims, a._trainable, ids.setdefault(id(a), len(ids))))
    else:
      return None
  return tuple(key)


class Function:
  """A polymorphic, graph-compiled callable (what `@tf.function` returns)."""

  def __init__(self, python_function, name=None, input_signature=None, autograph=True,
               jit_compile=None, reduce_retracing=False, experimental_relax_shapes=None,
               experimental_autograph_options=None, experimental_implements=None,
               experimental_attributes=None, experimental_follow_type_hints=None):
    if not callable(python_function):
      raise TypeError(f"tf.function expects a callable, got {python_function!r}")
    self._python_function = python_function
    self._name = name or getattr(python_function, "__name__", "function")
    self._autograph = autograph
    self._jit_compile = jit_compile
    self._reduce_retracing = bool(reduce_retracing or experimental_relax_shapes)
    self._sig = inspect.signature(python_function)
    self._function_type = FunctionType.from_callable(python_function, self._name)
    self._input_signature = None
    if input_signature is not None:
      self._input_signature = self._check_signature(input_signature)
    self._fast_n = self._function_type._simple if input_signature is None else -1
    self._cache = FunctionCache()
    self._trace_count = 0
    self._calls = self._calls_seen = 0
    self._descriptors = weakref.WeakKeyDictionary()
    functools.update_wrapper(self, python_function, updated=())

  # ------------------------------------------------------------- metadata
  @property
  def python_function(self):
    return self._python_function

  @property
  def input_signature(self):
    return self._input_signature

  @property
  def function_spec(self):
    return self._sig

  def experimental_get_tracing_count(self):
    return self._trace_count

  def pretty_printed_concrete_signatures(self, verbose=True):
    return "\n\n".join(cf.pretty_printed_signature(verbose) for _, cf in self._traces)

  def __repr__(self):
    return f"<tensorlet.polymorphic_function.Function {self._name} at {hex(id(self))}>"

  def __get__(self, instance, owner):
    """Methods: one Function (own traces) per instance, like TF."""
    if instance is None:
      return self
    bound = self._descriptors.get(instance)
    if bound is None:
      bound = Function(types.MethodType(self._python_function, instance), name=self._name,
                       input_signature=self._input_signature, autograph=self._autograph,
                       jit_compile=self._jit_compile, reduce_retracing=self._reduce_retracing)
      try:
        self._descriptors[instance] = bound
      except TypeError:
        pass
    return bound

  # ------------------------------------------------------------- binding
  def _check_signature(self, sig):
    flat = nest.flatten(list(sig))
    for s in flat:
      if not isinstance(s, (TensorSpec, TypeSpec)):
        raise TypeError(f"input_signature must be a possibly nested sequence of TensorSpec "
                        f"objects, got invalid args {s!r} with type {type(s)}.")
    return tuple(sig)

  @property
  def _traces(self):
    return self._cache.traces

  # ---------------------------------------------------------------- calls
  def __call__(self, *args, **kwargs):
    self._calls += 1
    try:
      return self._call(*args, **kwargs)
    except Exception as e:
      raise user_code.prepared(e)

  def _call(self, *args, **kwargs):
    if ctx.run_functions_eagerly:
      return self._python_function(*args, **kwargs)
    # NOTE: fast path for the common call, positional eager tensors only: the key is
    # built straight from the arrays and the tensors are the leaves (cache.py).
    fast = not kwargs and len(args) == self._fast_n
    if fast:
      try:
        fkey = tuple([(a._dtype._enum, a._value.shape) for a in args])
      except AttributeError:
        fast = False
      else:
        cf = self._cache.fast.get(fkey)
        tensors = all(type(a) is EagerTensor for a in args)
        if cf is not None and tensors:
          return cf._call_flat(args)
        if not tensors:  # tf.Variables among the tensors (a train step given its weights)
          fkey = _variable_call_key(args)
          cf = self._cache.fast_variables.get(fkey)
          if cf is not None:
            return cf._call_flat([a if type(a) is EagerTensor else a._handle for a in args])
    values = self._function_type.bind(args, kwargs)
    if self._input_signature is not None:
      cf, values = self._signature_concrete(values)
    else:
      types = self._function_type.type_of(values)
      cf = self._cache.lookup(types)
      if cf is None:
        cf = self._trace_new(types, values)
      if fast and all(type(a) is EagerTensor for a in args):
        self._cache.fast[fkey] = cf
      elif fast and fkey is not None:
        self._cache.fast_variables[fkey] = cf
    return cf._call_flat(cf.function_type.to_tensors(values))

  def get_concrete_function(self, *args, **kwargs):
    """The ConcreteFunction for these arguments (tensors or TensorSpecs), tracing if needed."""
    try:
      return self._get_concrete_function(*args, **kwargs)
    except Exception as e:
      raise user_code.prepared(e)

  def _get_concrete_function(self, *args, **kwargs):
    if self._input_signature is not None and not args and not kwargs:
      return self._signature_concrete(None)[0]
    values = self._function_type.bind(args, kwargs)
    if self._input_signature is not None:
      return self._signature_concrete(values)[0]
    types = self._function_type.type_of(values)
    cf = self._cache.lookup(types)
    return cf if cf is not None else self._trace_new(types, values)

  def _param_specs(self):
    """The input_signature per parameter: specs past the named parameters belong
    to `*args` (as one tuple), as TF binds them."""
    sig = list(self._input_signature)
    var = next((i for i, p in enumerate(self._function_type.parameters)
                if p.kind is inspect.Parameter.VAR_POSITIONAL), None)
    if var is None or var >= len(sig):
      return sig
    return sig[:var] + [tuple(sig[var:])]

  def _signature_concrete(self, values):
    specs = self._param_specs()
    n = len(specs)
    params = self._function_type.parameters
    if values is not None:
      extra = values[n:]
      if any(v is not p.default and not (p.kind in _VAR and not v)
             for v, p in zip(extra, params[n:])):
        raise TypeError(f"{self._name}() got more arguments than its input_signature "
                        f"describes ({len(self._input_signature)})")
      values = values[:n]
      for p, v, spec in zip(params, values, specs):
        _check_against_spec(self._name, p.name, v, spec)
    types = tuple(trace_type.from_value(s) for s in specs)
    cf = self._cache.get(types)
    if cf is None:
      cf = self._trace(types, tuple(specs))
      self._cache.add(types, cf)
    return cf, values

  def _trace_new(self, types, values):
    trace_types = types
    if self._reduce_retracing and self._cache.traces:
      trace_types = self._cache.generalize(types)
    cf = self._trace(trace_types, values)
    self._cache.add(trace_types, cf, call_types=types)
    return cf

  # -------------------------------------------------------------- tracing
  def _trace(self, types, values):
    """Traces for `types`. A first trace that creates variables is traced again
    with creation forbidden, as TF does: a function that would create new
    variables on every call fails here instead of silently reusing them."""
    first = not self._cache.traces
    if self._calls > self._calls_seen and ctx.graph is None:  # eager calls count, as TF's
      self._maybe_warn(types, first)
    cf, created = self._trace_once(types, values, allow_variables=first)
    if created:
      cf, _ = self._trace_once(types, values, allow_variables=False)
    self._trace_count += 1
    return cf

  def _trace_once(self, types, values, allow_variables):
    fg = FuncGraph(self._name, outer_graph=ctx.graph)
    ftype = self._function_type.with_types(types)
    leaves = []
    # NOTE: as TF, a named TensorSpec names its placeholder ("zz:0"), else the parameter.
    call_values = [t.placeholder_value(trace_type.PlaceholderContext(
                       fg, v.name if isinstance(v, TensorSpec) and v.name else p.name, leaves, v))
                   for p, t, v in zip(ftype.parameters, types, values)]
    try:
      actual = ftype.to_tensors(values)
    except (TypeError, ValueError, AttributeError):
      actual = None
    if actual is not None:
      fg.feeds = {id(ph): t for ph, t in zip(leaves, actual) if isinstance(t, EagerTensor)}
    params = [(p.name, p.kind.name, t) for p, t in zip(ftype.parameters, types)]
    fg.structured_input_signature = ftype.structured_input_signature(values)
    fg.inputs = list(leaves)
    func = self._python_function
    if self._autograph:
      from tensorlet.autograph.api import convert  # late-bound: AutoGraph is the layer above
      func = convert(func)
    created = []

    def creator(var):
      if not allow_variables:
        # TF's text; the "in user code" block (user_code.py) names the line
        raise ValueError("tf.function only supports singleton tf.Variables created on the "
                         "first call. Make sure the tf.Variable is only created once or "
                         "created outside tf.function. See "
                         "https://www.tensorflow.org/guide/function#creating_tfvariables for "
                         "more information.")
      created.append(var)
    saved = (ctx.graph, ctx.tapes, ctx.scope, ctx.variable_creator)
    ctx.graph, ctx.tapes, ctx.scope = fg, (), ""
    ctx.variable_creator = creator
    try:
      args, kwargs = ftype.call_args(call_values)
      out = func(*args, **kwargs)
      finish_outputs(fg, out)
    finally:
      ctx.graph, ctx.tapes, ctx.scope, ctx.variable_creator = saved
    fg.feeds = {}
    return ConcreteFunction(fg, self._name, params, leaves, self._python_function), created

  def _maybe_warn(self, types, first):
    """TF's frequent-tracing warning (same counts: 5 tracing calls among the last
    10 calls of the Python function, over all Function objects wrapping it, at
    most twice), followed by what changed and the fix for that cause."""
    key = _stats_key(self._python_function)
    det = _DETECTORS.get(key)
    if det is None:
      det = _DETECTORS[key] = _TracingDetector()
    if self._calls_seen == 0:  # this Function object's first trace from a call
      det.functions += 1
    det.called_without_tracing(self._calls - self._calls_seen - 1)
    self._calls_seen = self._calls
    counts = det.called_with_tracing()
    if counts is None:
      return
    changes = []
    if not first:
      prev = self._cache.traces[-1][0]
      names = [p.name for p in self._function_type.parameters]
      for i, (a, b) in enumerate(zip(prev, types)):
        for path, old, new in a.diff(b, names[i] if i < len(names) else f"arg{i}"):
          changes.append(f"  argument '{path}': {old} -> {new}")
    if det.functions > 1 and first:
      fix = ("Fix: the tf.function is created anew on each call (in a loop or a function); "
             "create it once, outside the loop, and call that object.")
    elif any("Literal" in c for c in changes):
      fix = ("Fix: pass tensors instead of Python numbers, or fix the argument with "
             "input_signature=[tf.TensorSpec(...)].")
    else:
      fix = ("Fix: give the varying dimensions as None with input_signature="
             "[tf.TensorSpec(...)], or use reduce_retracing=True.")
    warnings.warn(
        f"{counts[0]} out of the last {counts[1]} calls to {self._python_function!r} triggered "
        f"tf.function retracing. Tracing is expensive and the excessive number of tracings "
        f"could be due to (1) creating @tf.function repeatedly in a loop, (2) passing tensors "
        f"with different shapes, (3) passing Python objects instead of tensors.\n" +
        ("What changed since the previous trace of this object:\n" + "\n".join(changes) +
         "\n" if changes else "") + fix,
        RuntimeWarning, stacklevel=_user_stacklevel())


_FREQUENT_HISTORY, _FREQUENT_THRESHOLD, _FREQUENT_MAX_WARNINGS = 10, 5, 2
_DETECTORS = weakref.WeakKeyDictionary()


def _stats_key(fn):
  """What TF counts calls by: the code of the innermost wrapped Python function,
  so Function objects re-created around the same function share their counts."""
  while hasattr(fn, "__wrapped__"):
    fn = fn.__wrapped__
  fn = getattr(fn, "__func__", fn)
  return getattr(fn, "__code__", fn)


class _TracingDetector:
  def __init__(self):
    self.per_trace = []  # calls served by each recent trace (its own call first)
    self.calls = 0
    self.warnings = 0
    self.functions = 0  # Function objects that traced it

  def called_without_tracing(self, n):
    if n > 0:
      if not self.per_trace:
        self.per_trace = [0]
      self.per_trace[-1] += n
      self.calls += n

  def called_with_tracing(self):
    """(tracing calls, calls) to warn about, or None."""
    self.calls += 1
    self.per_trace.append(1)
    while self.per_trace and self.calls - self.per_trace[0] > _FREQUENT_HISTORY:
      self.calls -= self.per_trace.pop(0)
    if self.warnings >= _FREQUENT_MAX_WARNINGS or len(self.per_trace) < _FREQUENT_THRESHOLD:
      return None
    self.warnings += 1
    return len(self.per_trace), self.calls


def _user_stacklevel():
  """The warnings.warn stacklevel of the innermost caller outside tensorlet."""
  import sys
  from tensorlet.graph.graph import _PKG_DIR
  f, level = sys._getframe(1), 1  # the frame that calls warnings.warn
  while f is not None and f.f_code.co_filename.startswith(_PKG_DIR):
    f, level = f.f_back, level + 1
  return level


class SignatureMismatchError(TypeError, ValueError):
  """A call that does not fit `input_signature` (TF2 raises TypeError; TF 2.0 raised
  ValueError: this is both)."""


def _check_against_spec(fname, name, v, spec):
  if isinstance(spec, (list, tuple)):
    if not isinstance(v, (list, tuple)) or len(v) != len(spec):
      raise SignatureMismatchError(f"{fname}: argument '{name}' should be a sequence of {len(spec)} "
                      f"tensors, got {v!r}")
    for i, (x, s) in enumerate(zip(v, spec)):
      _check_against_spec(fname, f"{name}[{i}]", x, s)
    return
  if isinstance(spec, TypeSpec):
    if not spec.is_compatible_with(v):
      raise SignatureMismatchError(f"Binding inputs to tf.function '{fname}' failed due to `Can "
                                   f"not cast {v!r} to {spec!r}` for argument '{name}'.")
    return
  try:
    t = v if isinstance(v, (Tensor, TensorSpec)) else (
        v._as_tensor() if hasattr(v, "_as_tensor") else convert_to_tensor(v, spec.dtype))
  except (TypeError, ValueError) as e:
    raise TypeError(f"Binding inputs to tf.function '{fname}' failed: argument '{name}': "
                    f"{e}") from None
  if t.dtype is not spec.dtype or not spec.shape.is_compatible_with(t.shape):
    raise SignatureMismatchError(f"Binding inputs to tf.function '{fname}' failed due to `Can not cast "
                    f"TensorSpec(shape={t.shape}, dtype=tf.{t.dtype.name}, name=None) to "
                    f"{spec!r}` for argument '{name}'.")


def function(func=None, input_signature=None, autograph=True, jit_compile=None,
             reduce_retracing=False, experimental_implements=None,
             experimental_autograph_options=None, experimental_attributes=None,
             experimental_relax_shapes=None, experimental_compile=None,
             experimental_follow_type_hints=None):
  """Compiles a Python function into a callable TensorFlow-style graph.

  Use as `@tf.function` or `@tf.function(input_signature=[...])`.

  Example:
    >>> @tf.function
    ... def f(x):
    ...   return x * x + 1
    >>> f(tf.constant(2.0)).numpy()
    5.0
  """
  def decorate(f):
    return Function(f, input_signature=input_signature, autograph=autograph,
                    jit_compile=jit_compile if jit_compile is not None else experimental_compile,
                    reduce_retracing=reduce_retracing,
                    experimental_relax_shapes=experimental_relax_shapes)
  if func is not None:
    return decorate(func)
  return decorate
