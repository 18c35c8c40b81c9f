"""AutoGraph's entry points: convert a function, call a function converting it
on the way (`converted_call`), show converted code (`to_code`).

Conversion parses the function's source with `ast`, applies the converters in
order, and compiles the result with the original file name and line numbers,
so tracebacks point at the user's lines. The converted function shares the
original's globals and closure cells. Conversion is strict: a function whose
source cannot be read, or that cannot be converted, raises ConversionError
saying why, unless it has no control flow at all (then converting it would
change nothing and it runs as written).
"""
import ast
import builtins
import dis
import functools
import inspect
import sys
import textwrap
import types
import weakref

from tensorlet.autograph import operators
from tensorlet.autograph.converters import (asserts, break_statements, call_trees,
                                            control_flow, logical_expressions,
                                            return_statements)

__all__ = ["convert", "converted_call", "to_code", "do_not_convert", "ConversionError"]

PIPELINE = [return_statements, break_statements, call_trees, logical_expressions, asserts,
            control_flow]


class ConversionError(Exception):
  """A function could not be converted by AutoGraph."""


class _Ctx:
  def __init__(self, used):
    self.used = set(used)
    self.counts = {}

  def new_name(self, base):
    n = self.counts.get(base, 0)
    while True:
      name = base if n == 0 else f"{base}_{n}"
      n += 1
      if name not in self.used:
        self.used.add(name)
        self.counts[base] = n
        return name


class _Operators(types.SimpleNamespace):
  pass


def _ag_module():
  m = _Operators()
  for name in operators.__dict__:
    if not name.startswith("__"):
      setattr(m, name, getattr(operators, name))
  m.converted_call = converted_call
  m.Undefined = operators.Undefined
  m.UndefinedReturnValue = operators.UndefinedReturnValue
  return m


_AG = None
_cache = weakref.WeakKeyDictionary()
_code_cache = {}


def _jumps(code):
  """Whether a code object (or one nested in it) branches: if/while/for/and/or/ternary.

  NOTE: each `with` block compiles one conditional jump into its exit handler,
  which is not control flow of the user's."""
  branches = withs = 0
  for ins in dis.get_instructions(code):
    if "JUMP_IF" in ins.opname or ins.opname.startswith("POP_JUMP") or \
        ins.opname == "FOR_ITER":
      branches += 1
    elif ins.opname in ("BEFORE_WITH", "SETUP_WITH"):
      withs += 1
  if branches > withs:
    return True
  return any(_jumps(c) for c in code.co_consts if isinstance(c, types.CodeType))


def _parse(f):
  try:
    src = inspect.getsource(f)
    filename = inspect.getsourcefile(f) or "<unknown>"
    first = inspect.getsourcelines(f)[1]
  except (OSError, TypeError) as e:
    raise ConversionError(f"AutoGraph could not read the source of {f.__qualname__} "
                          f"({e}). Define it in a file, or run it without conversion: "
                          f"@tf.autograph.experimental.do_not_convert or "
                          f"tf.function(..., autograph=False).") from None
  src = textwrap.dedent(src)
  try:
    tree = ast.parse(src)
  except SyntaxError as e:
    raise ConversionError(f"AutoGraph could not parse the source of {f.__qualname__}: "
                          f"{e}") from None
  node = tree.body[0]
  if not isinstance(node, ast.FunctionDef):
    raise ConversionError(f"AutoGraph converts functions defined with `def`; "
                          f"{f.__qualname__} is a {type(node).__name__}")
  ast.increment_lineno(tree, first - 1)
  return node, filename


def _transform(f):
  node, filename = _parse(f)
  node.decorator_list = []
  from tensorlet.autograph.converters.control_flow import _fill_locations
  _fill_locations(node, node)
  used = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)} | \
      {a.arg for a in ast.walk(node) if isinstance(a, ast.arg)}
  ctx = _Ctx(used | {"ag__", "vars_"})
  for conv in PIPELINE:
    node = conv.transform(node, ctx)
    _fill_locations(node, node)
  # NOTE: the compiled function keeps the user's name (tracebacks say `mm`);
  # to_code shows it as `tf__mm`, as TF does.
  node.name = f.__name__
  return node, filename


def _build(f):
  node, filename = _transform(f)
  freevars = list(f.__code__.co_freevars)
  factory = ast.FunctionDef(
      name="__tl_factory", args=ast.arguments(
          posonlyargs=[], args=[ast.arg(arg=n) for n in ["ag__"] + freevars], vararg=None,
          kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[]),
      body=[node, ast.Return(value=ast.Name(node.name, ast.Load()))], decorator_list=[],
      returns=None, type_params=[])
  module = ast.Module(body=[factory], type_ignores=[])
  ast.fix_missing_locations(module)
  code = compile(module, filename, "exec")
  factory_code = next(c for c in code.co_consts if isinstance(c, types.CodeType))
  inner = next(c for c in factory_code.co_consts if isinstance(c, types.CodeType) and
               c.co_name == node.name)
  global _AG
  if _AG is None:
    _AG = _ag_module()
  cells = dict(zip(f.__code__.co_freevars, f.__closure__ or ()))
  closure = []
  for name in inner.co_freevars:
    if name == "ag__":
      closure.append(types.CellType(_AG))
    elif name in cells:
      closure.append(cells[name])
    else:
      raise ConversionError(f"AutoGraph lost the closure variable {name!r} of "
                            f"{f.__qualname__}")
  new = types.FunctionType(inner, f.__globals__, node.name, f.__defaults__, tuple(closure))
  new.__kwdefaults__ = f.__kwdefaults__
  new.__dict__.update(getattr(f, "__dict__", {}))
  new.__tl_source__ = ast.unparse(node)
  new.__wrapped__ = f
  return new


def convert(f):
  """The converted version of `f` (cached): a function, a method, or a callable
  object (its `__call__`). Lambdas and tensorlet's own functions run as written."""
  if isinstance(f, types.MethodType):
    return types.MethodType(convert(f.__func__), f.__self__)
  if not isinstance(f, types.FunctionType):
    call = getattr(type(f), "__call__", None)
    if isinstance(call, types.FunctionType) and _is_user_function(call):
      return types.MethodType(convert(call), f)
    return f
  if f.__name__ == "<lambda>" or not _is_user_function(f):
    return f
  hit = _cache.get(f)
  if hit is not None:
    return hit
  if inspect.isgeneratorfunction(f) or inspect.iscoroutinefunction(f):
    raise ConversionError(f"AutoGraph does not convert generators or coroutines "
                          f"({f.__qualname__})")
  try:
    new = _build(f)
  except ConversionError:
    if not _jumps(f.__code__):
      new = f  # nothing to convert: it runs the same as written
    else:
      raise
  _cache[f] = new
  return new


# ----------------------------------------------------------- converted_call

_SPECIAL = {builtins.len: operators.len_, builtins.range: operators.range_}


def _is_user_function(f):
  if not isinstance(f, (types.FunctionType, types.MethodType)):
    return False
  fn = f.__func__ if isinstance(f, types.MethodType) else f
  if getattr(fn, "__tl_do_not_convert__", False) or hasattr(fn, "__tl_source__"):
    return False
  mod = getattr(fn, "__module__", None) or ""
  top = mod.split(".")[0]
  if top in ("tensorlet", "numpy", "scipy", "pytest", "_pytest") or \
      top in sys.stdlib_module_names:
    return False
  return True


def converted_call(f, args, kwargs):
  """Calls `f(*args, **kwargs)`, converting `f` first when it is a user function."""
  special = _SPECIAL.get(f) if isinstance(f, types.BuiltinFunctionType) or f in (range,) \
      else None
  if special is not None:
    return special(*args, **kwargs)
  if _is_user_function(f):
    if not _is_generator(f):
      f = convert(f)
  elif not isinstance(f, (types.FunctionType, types.MethodType, type)):
    f = convert(f)  # a callable object: its __call__ when that is a user function
  return f(*args, **kwargs)


def _is_generator(f):
  """Generators run as written when called (their loops are Python loops over
  Python values); only an explicit convert() of one is an error."""
  fn = f.__func__ if isinstance(f, types.MethodType) else f
  return inspect.isgeneratorfunction(fn) or inspect.iscoroutinefunction(fn) or \
      inspect.isasyncgenfunction(fn)


def to_code(entity, recursive=True, experimental_optional_features=None):
  """The source of the converted version of `entity`, meant to be read."""
  f = getattr(entity, "python_function", entity)
  if isinstance(f, types.MethodType):
    f = f.__func__
  node, _ = _transform(f)
  node.name = "tf__" + node.name
  return ast.unparse(node) + "\n"


def do_not_convert(func=None):
  """Marks a function to run as written when called from converted code."""
  if func is None:
    return do_not_convert

  @functools.wraps(func)
  def wrapper(*args, **kwargs):
    return func(*args, **kwargs)
  wrapper.__tl_do_not_convert__ = True
  return wrapper
