"""tf.function: a cache of ConcreteFunctions keyed by the trace types of the
call's arguments.

Dispatch rule: a call's key (trace_type.key_of of each bound argument) is
looked up exactly first; on a miss, every earlier trace whose key the call is
a subtype of is a candidate and the most specific candidate wins (a trace for
shape [3] beats one for [None]); with no candidate, the function is traced
again. `reduce_retracing=True` traces the generalisation of the new key and
the earlier ones instead (differing dims become None).
"""
import functools
import inspect
import types
import warnings
import weakref

from tensorlet import _nest as nest
from tensorlet.context import ctx
from tensorlet.polymorphic_function import trace_type
from tensorlet.polymorphic_function.concrete import ConcreteFunction
from tensorlet.polymorphic_function.trace import finish_outputs
from tensorlet.graph.graph import FuncGraph
from tensorlet.tensor_shape import TensorShape
from tensorlet.tensor import EagerTensor, Tensor, convert_to_tensor
from tensorlet.tensor_spec import TensorSpec

__all__ = ["function", "Function"]

_RETRACE_WARN_AT = 5
_POS = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
_VAR = (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)


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
    self._param_list = list(self._sig.parameters.values())
    self._fast_n = len(self._param_list) if all(
        p.kind in _POS and p.default is p.empty for p in self._param_list) else -1
    self._input_signature = None
    if input_signature is not None:
      self._input_signature = self._check_signature(input_signature)
    self._cache = {}
    self._traces = []
    self._trace_count = 0
    self._warned = False
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
      if not isinstance(s, TensorSpec):
        raise TypeError(f"input_signature must be a possibly nested sequence of TensorSpec "
                        f"objects, got invalid args {s!r} with type {type(s)}.")
    return tuple(sig)

  def _bind(self, args, kwargs):
    """Ordered (name, kind, value) per parameter."""
    if not kwargs and len(args) == self._fast_n:
      return [(p.name, p.kind.name, a) for p, a in zip(self._param_list, args)]
    try:
      b = self._sig.bind(*args, **kwargs)
    except TypeError as e:
      raise TypeError(f"{self._name}(): {e}") from None
    b.apply_defaults()
    out = []
    for p in self._param_list:
      v = b.arguments[p.name]
      out.append((p.name, p.kind.name, v))
    return out

  def _key(self, bound):
    return tuple(trace_type.key_of(v) for _, _, v in bound)

  # ---------------------------------------------------------------- calls
  def __call__(self, *args, **kwargs):
    if ctx.run_functions_eagerly:
      return self._python_function(*args, **kwargs)
    # NOTE: fast path for the common call, positional eager tensors only: the key
    # is built straight from the arrays and the tensors are the leaves.
    if not kwargs and len(args) == self._fast_n and self._input_signature is None:
      try:
        key = tuple([("T", a._dtype._enum, a._value.shape) for a in args])
      except AttributeError:
        key = None
      if key is not None and all(type(a) is EagerTensor for a in args):
        cf = self._cache.get(key)
        if cf is not None:
          return cf._call_flat(args)
    bound = self._bind(args, kwargs)
    if self._input_signature is not None:
      cf, bound = self._signature_concrete(bound)
    else:
      key = self._key(bound)
      cf = self._cache.get(key)
      if cf is None:
        cf = self._lookup_or_trace(key, bound)
    leaves = []
    for (_, _, v), (_, _, k) in zip(bound, cf._params):
      _leaves(v, k, leaves)
    return cf._call_flat(leaves)

  def get_concrete_function(self, *args, **kwargs):
    """The ConcreteFunction for these arguments (tensors or TensorSpecs), tracing if needed."""
    if self._input_signature is not None and not args and not kwargs:
      return self._signature_concrete(None)[0]
    bound = self._bind(args, kwargs)
    if self._input_signature is not None:
      return self._signature_concrete(bound)[0]
    key = self._key(bound)
    cf = self._cache.get(key)
    return cf if cf is not None else self._lookup_or_trace(key, bound)

  def _param_specs(self):
    """The input_signature per parameter: specs past the named parameters belong
    to `*args` (as one tuple), as TF binds them."""
    sig = list(self._input_signature)
    var = next((i for i, p in enumerate(self._param_list)
                if p.kind is inspect.Parameter.VAR_POSITIONAL), None)
    if var is None or var >= len(sig):
      return sig
    return sig[:var] + [tuple(sig[var:])]

  def _signature_concrete(self, bound):
    specs = self._param_specs()
    sig_keys = tuple(trace_type.key_of(s) if not isinstance(s, (list, tuple)) else
                     trace_type.key_of(type(s)(TensorSpec(x.shape, x.dtype) for x in s))
                     for s in specs)
    n = len(specs)
    if bound is not None:
      extra = bound[n:]
      if any(v is not p.default and not (p.kind in _VAR and not v)
             for (_, _, v), p in zip(extra, self._param_list[n:])):
        raise TypeError(f"{self._name}() got more arguments than its input_signature "
                        f"describes ({len(self._input_signature)})")
      bound = bound[:n]
      for (name, _, v), spec in zip(bound, specs):
        _check_against_spec(self._name, name, v, spec)
    cf = self._cache.get(sig_keys)
    if cf is None:
      params = [(p.name, p.kind.name, None) for p in self._param_list[:n]]
      fake = [(nm, kd, s) for (nm, kd, _), s in zip(params, specs)]
      cf = self._trace(sig_keys, fake)
      self._cache[sig_keys] = cf
    return cf, bound

  def _lookup_or_trace(self, key, bound):
    cands = [(k, cf) for k, cf in self._traces if len(k) == len(key) and
             all(trace_type.is_subtype(a, b) for a, b in zip(key, k))]
    if cands:
      best = cands[0]
      for c in cands[1:]:
        if all(trace_type.is_subtype(a, b) for a, b in zip(c[0], best[0])):
          best = c
      self._cache[key] = best[1]
      return best[1]
    trace_key = key
    if self._reduce_retracing and self._traces:
      for k, _ in reversed(self._traces):
        if len(k) == len(key):
          g = tuple(trace_type.generalize(a, b) for a, b in zip(key, k))
          if all(x is not None for x in g):
            trace_key = g
            break
    cf = self._trace(trace_key, bound)
    self._cache[key] = cf
    return cf

  # -------------------------------------------------------------- tracing
  def _trace(self, key, bound):
    """Traces for `key`. A first trace that creates variables is traced again
    with creation forbidden, as TF does: a function that would create new
    variables on every call fails here instead of silently reusing them."""
    if self._traces:
      self._maybe_warn(key)
    cf, created = self._trace_once(key, bound, allow_variables=not self._traces)
    if created:
      cf, _ = self._trace_once(key, bound, allow_variables=False)
    self._trace_count += 1
    self._traces.append((key, cf))
    return cf

  def _trace_once(self, key, bound, allow_variables):
    fg = FuncGraph(self._name, outer_graph=ctx.graph)
    leaves = []
    call_values = [_placeholders(fg, v, k, name, leaves) for (name, _, v), k in zip(bound, key)]
    actual = []
    for (_, _, v), k in zip(bound, key):
      try:
        _leaves(v, k, actual)
      except (TypeError, ValueError):
        actual = None
        break
    if actual is not None:
      fg.feeds = {id(ph): t for ph, t in zip(leaves, actual) if not isinstance(t, TensorSpec)}
    params = [(name, kind, k) for (name, kind, _), k in zip(bound, key)]
    fg.structured_input_signature = (tuple(_spec_of(k) for k in key), {})
    fg.inputs = list(leaves)
    func = self._python_function
    if self._autograph:
      from tensorlet.autograph.api import convert  # late-bound: AutoGraph is the layer above
      func = convert(func)
    created = []

    def creator(var):
      if not allow_variables:
        raise ValueError("tf.function-decorated function tried to create variables on "
                         f"non-first call (function '{self._name}'). Create variables once, "
                         "outside the function or guarded so only the first call creates them.")
      created.append(var)
    saved = (ctx.graph, ctx.tapes, ctx.scope, ctx.variable_creator)
    ctx.graph, ctx.tapes, ctx.scope = fg, (), ""
    ctx.variable_creator = creator
    try:
      args, kwargs = _call_args(self._param_list, call_values)
      out = func(*args, **kwargs)
      finish_outputs(fg, out)
    finally:
      ctx.graph, ctx.tapes, ctx.scope, ctx.variable_creator = saved
    fg.feeds = {}
    return ConcreteFunction(fg, self._name, params, leaves, self._python_function), created

  def _maybe_warn(self, key):
    if self._warned or len(self._traces) + 1 < _RETRACE_WARN_AT:
      return
    self._warned = True
    prev = self._traces[-1][0]
    names = [p.name for p in self._param_list]
    changes = []
    for i, (a, b) in enumerate(zip(prev, key)):
      for path, old, new in trace_type.diff(a, b, names[i] if i < len(names) else f"arg{i}"):
        changes.append(f"  argument '{path}': {old} -> {new}")
    site = _call_site()
    warnings.warn(
        f"tf.function '{self._name}' has been traced {len(self._traces) + 1} times"
        f"{' (called at ' + site + ')' if site else ''}. Tracing is expensive. What changed "
        f"since the previous trace:\n" + ("\n".join(changes) or "  (argument structure)") +
        "\nFix: pass tensors instead of Python numbers, or fix the shapes with "
        "input_signature=[tf.TensorSpec(...)] or reduce_retracing=True.",
        RuntimeWarning, stacklevel=_user_stacklevel())


def _user_stacklevel():
  """The warnings.warn stacklevel of the innermost caller outside tensorlet."""
  import sys
  from tensorlet.graph.graph import _PKG_DIR
  f, level = sys._getframe(1), 1  # the frame that calls warnings.warn
  while f is not None and f.f_code.co_filename.startswith(_PKG_DIR):
    f, level = f.f_back, level + 1
  return level


def _call_site():
  import sys
  from tensorlet.graph.graph import _PKG_DIR
  f = sys._getframe(2)
  while f is not None and f.f_code.co_filename.startswith(_PKG_DIR):
    f = f.f_back
  return f"{f.f_code.co_filename}:{f.f_lineno}" if f is not None else ""


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


def _spec_of(key):
  if key[0] == "T":
    from tensorlet.dtypes import ALL
    d = next(x for x in ALL if x._enum == key[1])
    return TensorSpec(TensorShape(key[2]), d)
  if key[0] == "S":
    return key[1](_spec_of(k) for k in key[2]) if key[1] in (list, tuple) else \
        tuple(_spec_of(k) for k in key[2])
  if key[0] == "L":
    return key[2]
  return key


def _placeholders(fg, v, key, name, leaves):
  """The value the traced function sees for argument `v` of trace type `key`."""
  kind = key[0]
  if kind == "T":
    spec = _spec_of(key)
    ph = fg.placeholder(spec, name)
    leaves.append(ph)
    return ph
  if kind == "S":
    vals = [_placeholders(fg, e, k, name, leaves) for e, k in zip(v, key[2])]
    if hasattr(v, "_fields"):
      return type(v)(*vals)
    return type(v)(vals)
  if kind == "D":
    out = {kk: _placeholders(fg, v[kk], sub, name, leaves) for kk, sub in key[2]}
    try:
      return type(v)(out)
    except TypeError:
      return out
  if kind == "C" and hasattr(key[1], "to_tensors"):
    # NOTE: TF's TraceType protocol: the value enters the graph as the tensors of
    # flatten() (a tf.data.Dataset as one variant tensor) and is rebuilt from them.
    phs = [fg.placeholder(s, name) for s in key[1].flatten()]
    leaves.extend(phs)
    return key[1].from_tensors(iter(phs))
  return v


def _leaves(v, key, out):
  kind = key[0]
  if kind == "C" and hasattr(key[1], "to_tensors"):
    out.extend(key[1].to_tensors(v))
    return
  if kind == "T":
    if isinstance(v, Tensor):
      out.append(v)
    elif hasattr(v, "_as_tensor"):
      out.append(v._as_tensor())
    else:
      out.append(convert_to_tensor(v, _spec_of(key).dtype))
  elif kind == "S":
    for e, k in zip(v, key[2]):
      _leaves(e, k, out)
  elif kind == "D":
    for kk, sub in key[2]:
      _leaves(v[kk], sub, out)


def _call_args(params, values):
  args, kwargs = [], {}
  for p, v in zip(params, values):
    if p.kind is inspect.Parameter.VAR_POSITIONAL:
      args.extend(v)
    elif p.kind is inspect.Parameter.VAR_KEYWORD:
      kwargs.update(v)
    elif p.kind is inspect.Parameter.KEYWORD_ONLY:
      kwargs[p.name] = v
    else:
      args.append(v)
  return args, kwargs


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
