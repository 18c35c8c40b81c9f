"""User functions over dataset elements (map, filter, flat_map ...), traced
once into a FuncGraph with tf.function semantics and run per element.

The function is converted by AutoGraph and traced when the transformation is
made: its Python side effects happen then, once; graph ops (tf.print,
tf.py_function, random ops, variable reads) run for every element. A tuple
element is passed as positional arguments, anything else as one argument,
as TensorFlow does; a returned list becomes a tuple.
"""
from tensorlet import _nest as nest
from tensorlet.data import structure
from tensorlet.errors import InvalidArgumentError
from tensorlet.polymorphic_function import trace, user_code
from tensorlet.tensor import Tensor, convert_to_tensor

__all__ = ["StructuredFunction"]


def _normalize_output(out, name):
  if isinstance(out, list):
    out = tuple(out)
  if out is None:
    # NOTE: TF fails building the node (an empty output list): InvalidArgumentError.
    raise InvalidArgumentError(None, None, f"The function passed to {name} returned None; "
                               f"it must return a tensor or a (nested) tuple/dict of tensors.")
  if _is_dataset(out):
    return out
  if isinstance(out, tuple):
    items = [_normalize_output(o, name) for o in out]
    return type(out)(*items) if hasattr(out, "_fields") else tuple(items)
  if isinstance(out, dict):
    return {k: _normalize_output(v, name) for k, v in out.items()}
  if isinstance(out, Tensor) or structure.is_composite_value(out):
    return out
  try:
    return convert_to_tensor(out)
  except (TypeError, ValueError) as e:
    raise TypeError(f"The function passed to {name} returned {out!r}, which is not a "
                    f"tensor: {e}") from None


def _leaf_spec(x):
  return x._type_spec() if _is_dataset(x) else structure.spec_of(x)


def _is_dataset(x):
  from tensorlet.data.dataset import DatasetV2
  return isinstance(x, DatasetV2)


class StructuredFunction:
  """`func` traced for elements of `input_spec`.

  Attributes:
    graph: the FuncGraph; its inputs are the flat components.
    structure: what the function returned (tensors of the graph, or datasets).
    output_spec: the element_spec of that (a returned dataset as its DatasetSpec).
    captures: the outer tensors the graph captured (extra inputs at run time).
    callable: the compiled graph: call(*flat arrays, *capture values) -> tuple.
  """

  def __init__(self, func, input_spec, name, unpack=True):
    if not callable(func):
      raise ValueError(f"`{name}` expects a callable, got {func!r}")
    from tensorlet.autograph.api import convert
    converted = convert(func)
    result = {}

    flat_in = structure.flatten(input_spec)

    def wrapper(*xs):
      elem = structure.pack(input_spec, structure.from_components(flat_in, xs))
      if unpack and type(elem) is tuple:
        out = converted(*elem)
      else:
        out = converted(elem)
      out = _normalize_output(out, name)
      result["structure"] = out
      leaves = structure.flatten(out)
      return structure.to_components([_leaf_spec(x) for x in leaves], leaves)
    ident = name.replace(".", "_")
    try:
      self.graph = trace.build_graph(wrapper, structure.graph_specs(flat_in), ident)
    except Exception as e:
      raise user_code.prepared(e)
    self.structure = result["structure"]
    self.output_spec = nest.map_structure(_leaf_spec, self.structure)
    self.captures = trace.capture_values(self.graph)
    raw = trace.GraphCallable(self.graph, ident)
    flat_out = structure.flatten(self.output_spec)
    if not (structure.has_components(flat_in) or structure.has_components(flat_out)):
      self.callable = raw
    else:
      # NOTE: composite slots (tuples of component arrays) are spread into the
      # graph's inputs and its outputs grouped back, so callers pass and get slots.
      n_in = len(flat_in)

      def call(*args):
        comps = structure.expand_slots(flat_in, args[:n_in])
        return structure.group_slots(flat_out, list(raw(*comps, *args[n_in:])))
      self.callable = call

  def __call__(self, flat, capture_values):
    return self.callable(*flat, *capture_values)
