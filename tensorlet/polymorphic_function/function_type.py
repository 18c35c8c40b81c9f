"""FunctionType: a function's parameters (with their trace types once traced) and
the one argument binder that tf.function, ConcreteFunction and inference_fn share.

`bind(args, kwargs)` returns one value per parameter, in order (a `*args`
parameter gets a tuple, `**kwargs` a dict), with Python's rules and messages.
`cast(values)` checks each value against its parameter's trace type and
returns the flat tensors a traced graph takes.
"""
import inspect

from tensorlet.polymorphic_function import trace_type
from tensorlet.tensor_spec import TensorSpec

__all__ = ["Parameter", "FunctionType"]

_P = inspect.Parameter
_EMPTY = _P.empty
_POSITIONAL = (_P.POSITIONAL_ONLY, _P.POSITIONAL_OR_KEYWORD)
_KINDS = {k.name: k for k in (_P.POSITIONAL_ONLY, _P.POSITIONAL_OR_KEYWORD, _P.VAR_POSITIONAL,
                              _P.KEYWORD_ONLY, _P.VAR_KEYWORD)}


class Parameter:
  """One parameter: name, inspect kind, default (inspect.Parameter.empty when none)
  and trace type (None before tracing)."""

  __slots__ = ("name", "kind", "default", "type")

  def __init__(self, name, kind, default=_EMPTY, type=None):  # noqa: A002 - TF's name
    self.name, self.kind, self.default, self.type = name, kind, default, type

  def __repr__(self):
    t = self.type.describe() if self.type is not None else "?"
    return f"{self.name}: {t}"


class FunctionType:
  """The signature of a tf.function or of one of its traces."""

  def __init__(self, parameters, output=None, name="function"):
    self.parameters = tuple(parameters)
    self.output = output
    self.name = name
    # NOTE: a call with exactly this many positional arguments and no keywords binds
    # to them as they are (the common call); -1 when the signature has no such form.
    ps = self.parameters
    self._simple = len(ps) if all(p.kind in _POSITIONAL and p.default is _EMPTY
                                  for p in ps) else -1

  @classmethod
  def from_callable(cls, fn, name=None):
    sig = inspect.signature(fn)
    return cls([Parameter(p.name, p.kind, p.default) for p in sig.parameters.values()],
               name=name or getattr(fn, "__name__", "function"))

  @classmethod
  def from_trace(cls, params, output=None, name="function"):
    """The type of a trace: `params` are (name, kind name, trace type). Python literal
    parameters default to their traced values (a call may leave them out)."""
    out = []
    for n, kind, t in params:
      default = t.value if isinstance(t, trace_type.LiteralType) else _EMPTY
      out.append(Parameter(n, _KINDS[kind] if isinstance(kind, str) else kind, default, t))
    return cls(out, output, name)

  def with_types(self, types):
    return FunctionType([Parameter(p.name, p.kind, p.default, t)
                         for p, t in zip(self.parameters, types)], self.output, self.name)

  @property
  def types(self):
    return tuple(p.type for p in self.parameters)

  # ------------------------------------------------------------- binding
  def bind(self, args, kwargs):
    """One value per parameter, in order; TypeError as Python's for a call that does
    not fit the parameters."""
    if not kwargs and len(args) == self._simple:
      return tuple(args)
    kwargs = dict(kwargs)
    n, i, out = len(args), 0, []
    for p in self.parameters:
      kind = p.kind
      if kind in _POSITIONAL:
        if i < n:
          if p.name in kwargs and kind is _P.POSITIONAL_OR_KEYWORD:
            raise TypeError(f"{self.name}(): multiple values for argument '{p.name}'")
          v = args[i]
          i += 1
        elif kind is _P.POSITIONAL_OR_KEYWORD and p.name in kwargs:
          v = kwargs.pop(p.name)
        elif p.default is not _EMPTY:
          v = p.default
        else:
          raise TypeError(f"{self.name}(): missing required argument: '{p.name}'")
      elif kind is _P.VAR_POSITIONAL:
        v = tuple(args[i:])
        i = n
      elif kind is _P.KEYWORD_ONLY:
        if p.name in kwargs:
          v = kwargs.pop(p.name)
        elif p.default is not _EMPTY:
          v = p.default
        else:
          raise TypeError(f"{self.name}(): missing required argument: '{p.name}'")
      else:  # VAR_KEYWORD
        v, kwargs = kwargs, {}
      out.append(v)
    if i < n:
      raise TypeError(f"{self.name}(): too many positional arguments ({len(self.parameters)} "
                      f"parameters, {n} given)")
    if kwargs:
      raise TypeError(f"{self.name}(): got an unexpected keyword argument "
                      f"'{next(iter(kwargs))}'")
    return tuple(out)

  def call_args(self, values):
    """(args, kwargs) that call the Python function with bound `values`."""
    args, kwargs = [], {}
    for p, v in zip(self.parameters, values):
      if p.kind is _P.VAR_POSITIONAL:
        args.extend(v)
      elif p.kind is _P.VAR_KEYWORD:
        kwargs.update(v)
      elif p.kind is _P.KEYWORD_ONLY:
        kwargs[p.name] = v
      else:
        args.append(v)
    return args, kwargs

  def type_of(self, values):
    """The trace types of bound values."""
    trace_type._alias_ids = {}
    try:
      return tuple(trace_type.from_value(v) for v in values)
    except RecursionError:
      raise ValueError("tf.function: an argument contains itself (a self-referencing list or "
                       "dict) or is nested too deeply to be traced") from None
    finally:
      trace_type._alias_ids = None

  def to_tensors(self, values):
    """The flat tensors of values already known to fit the types (the cache chose them)."""
    out = []
    for p, v in zip(self.parameters, values):
      p.type.to_tensors(v, out)
    return out

  def cast(self, values, fname=None):
    """The flat tensors of bound values, checking each against its parameter's type."""
    out = []
    fname = fname or self.name
    for p, v in zip(self.parameters, values):
      p.type.cast(v, trace_type.CastContext(fname, p.name, self), out)
    return out

  def structured_input_signature(self, values=None):
    """TF's `(args, kwargs)` signature of a trace: positional parameters (and the
    `*args` values) in `args`, keyword-only ones (and `**kwargs`) in `kwargs`;
    each TensorSpec named by its argument path (`x`, `args_0`, `d_key`, `l_1`) unless
    the TensorSpec passed for it has a name."""
    args, kwargs = [], {}
    values = values if values is not None else [None] * len(self.parameters)
    for p, v in zip(self.parameters, values):
      spec = p.type.input_spec()
      if p.kind is _P.VAR_POSITIONAL:
        args.extend(_named(s, f"{p.name}_{i}") for i, s in enumerate(spec))
      elif p.kind is _P.VAR_KEYWORD:
        kwargs.update((k, _named(s, str(k))) for k, s in spec.items())
      else:
        name = getattr(v, "name", None) if isinstance(v, TensorSpec) else None
        spec = _named(spec, name or p.name)
        if p.kind is _P.KEYWORD_ONLY:
          kwargs[p.name] = spec
        else:
          args.append(spec)
    return tuple(args), kwargs

  def __str__(self):
    ins = ", ".join(repr(p) for p in self.parameters)
    return f"({ins}) -> {self.output}"

  __repr__ = __str__


def _named(spec, path):
  """`spec` with every unnamed TensorSpec in it named by its path from `path`."""
  if isinstance(spec, TensorSpec):
    return spec if spec.name is not None else TensorSpec(spec.shape, spec.dtype, path)
  if isinstance(spec, dict):
    return type(spec)((k, _named(v, f"{path}_{k}")) for k, v in spec.items())
  if isinstance(spec, tuple) and hasattr(spec, "_fields"):
    return type(spec)(*[_named(v, f"{path}_{i}") for i, v in enumerate(spec)])
  if isinstance(spec, (list, tuple)):
    return type(spec)(_named(v, f"{path}_{i}") for i, v in enumerate(spec))
  return spec
