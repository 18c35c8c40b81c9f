"""Markers used by converted code."""

__all__ = ["Undefined", "is_undefined", "UndefinedReturnValue"]


class Undefined:
  """The value of a symbol the converted code has not assigned yet."""

  __slots__ = ("symbol_name",)
  _undefined_kind = "symbol"  # what graph/control_flow.py checks (it cannot import autograph)

  def __init__(self, symbol_name):
    self.symbol_name = symbol_name

  def __repr__(self):
    return f"Undefined({self.symbol_name!r})"

  def __getattr__(self, name):
    if name.startswith("_"):
      raise AttributeError(name)
    raise UnboundLocalError(f"local variable '{self.symbol_name}' referenced before "
                            f"assignment (reading .{name})")

  def __bool__(self):
    raise UnboundLocalError(f"local variable '{self.symbol_name}' referenced before "
                            f"assignment")


class UndefinedReturnValue(Undefined):
  _undefined_kind = "return"
  def __init__(self):
    super().__init__("retval_")


def is_undefined(x):
  return isinstance(x, Undefined)
