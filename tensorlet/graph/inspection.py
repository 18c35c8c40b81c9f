"""tensorlet.experimental.graph_svg / graph_dot / inspect: looking inside the
graph a tf.function runs.

`graph_svg(fn, path)` and `graph_dot(fn, path)` draw a ConcreteFunction (or a
tf.function, given example arguments) as graph/visualize.py does; `inspect(fn,
*args)` runs the function's optimised graph op by op with the reference
interpreter and returns every node's output values by node name, in execution
order (printed too with `print_values=True`).
"""
import numpy as np

from tensorlet.graph import visualize

__all__ = ["graph_svg", "graph_dot", "inspect"]


def _concrete(fn, args, kwargs):
  if hasattr(fn, "get_concrete_function"):
    return fn.get_concrete_function(*args, **kwargs)
  if hasattr(fn, "_lowered"):
    return fn
  raise TypeError(f"Expected a tf.function or a ConcreteFunction, got {type(fn).__name__}")


def _write(text, path):
  if path is not None:
    with open(str(path), "w", encoding="utf-8") as f:
      f.write(text)
  return text


def graph_svg(fn, path=None, *args, **kwargs):
  """SVG text of the traced graph of `fn` (written to `path` when given)."""
  return _write(visualize.to_svg(_concrete(fn, args, kwargs)), path)


def graph_dot(fn, path=None, *args, **kwargs):
  """Graphviz DOT text of the traced graph of `fn` (written to `path` when given)."""
  return _write(visualize.to_dot(_concrete(fn, args, kwargs)), path)


def inspect(fn, *args, print_values=False, **kwargs):
  """{node name: output value (a NumPy array, or a tuple for several outputs)}
  of every op of the graph `fn` runs for `args`, in execution order."""
  from tensorlet import _nest as nest
  from tensorlet.tensor import convert_to_tensor
  cf = _concrete(fn, args, kwargs)
  g = cf._lowered()
  flat = [convert_to_tensor(a) for a in nest.flatten((args, kwargs), expand_composites=True)
          if a is not None and not isinstance(a, (str, bool))]
  if len(flat) != len(g.inputs):
    raise ValueError(f"inspect() needs the {len(g.inputs)} tensor arguments of the traced "
                     f"function, got {len(flat)}")
  env = {id(t): np.asarray(a._value) for t, a in zip(g.inputs, flat)}
  values = {}
  for op in g.get_operations():
    od = op.opdef
    if od.is_placeholder:
      values[op.name] = env[id(op.outputs[0])]
      continue
    r = od.kernel(*[env[id(t)] for t in op.inputs], **op.attrs)
    outs = [r] if len(op.outputs) == 1 and od.num_outputs == 1 else list(r)
    for o, v in zip(op.outputs, outs):
      env[id(o)] = v
    values[op.name] = outs[0] if len(outs) == 1 else tuple(outs)
    if print_values:
      print(f"{op.name} ({op.type}): {values[op.name]!r}")
  return values
