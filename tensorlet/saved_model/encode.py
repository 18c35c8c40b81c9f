"""Graphs to plain data: op type names, inputs as (node, output) indices, attrs
as JSON values with tagged dtypes, shapes, arrays (kept in a side store) and
nested graphs (control flow). Nothing is pickled and no code is written.

The encoder is also the check for what cannot leave Python: every attr,
captured value or output it cannot express as data is recorded as a problem
with the op's source line, and `save` reports them all before writing.
"""
import numpy as np

from tensorlet import dtypes as _dt
from tensorlet.graph.graph import FuncGraph, SymbolicTensor
from tensorlet.composite_tensor import CompositeTensor, TypeSpec
from tensorlet.polymorphic_function import trace_type as tt
from tensorlet.tensor_shape import TensorShape
from tensorlet.tensor import EagerTensor, Tensor


def _ragged_spec():
  from tensorlet.ragged import RaggedTensorSpec
  return RaggedTensorSpec


def _sparse_spec():
  from tensorlet.sparse import SparseTensorSpec
  return SparseTensorSpec


def _indexed_slices_spec():
  from tensorlet.indexed_slices import IndexedSlicesSpec
  return IndexedSlicesSpec


# Composite specs a saved function may take or return, by class name (the loader
# rebuilds them from their constructor fields; nothing else is looked up by name).
COMPOSITE_SPECS = {"RaggedTensorSpec": _ragged_spec, "SparseTensorSpec": _sparse_spec,
                   "IndexedSlicesSpec": _indexed_slices_spec}

__all__ = ["Encoder", "source_of"]


def source_of(op):
  """'file:line (function)' where the op was created, or '' when unknown."""
  src = getattr(op, "source", None)
  return f"{src[0]}:{src[1]} (in {src[2]})" if src else ""


def shape_data(shape):
  shape = TensorShape(shape)
  return None if shape.rank is None else shape.as_list()


class Encoder:
  """Encodes graphs and structures; arrays go to `constants` ({key: (array, DType)}),
  variables to indices from `variable_ids` ({id(variable): index})."""

  def __init__(self, variable_ids):
    self.variable_ids = variable_ids
    self.constants = {}
    self._const_keys = {}
    self.problems = []

  def problem(self, where, text, op=None):
    src = source_of(op) if op is not None else ""
    self.problems.append(f"{where}: {text}" + (f"\n    created at {src}" if src else ""))

  # ------------------------------------------------------------- values
  def array(self, value):
    """Stores an array once (by identity) and returns its key."""
    key = self._const_keys.get(id(value))
    if key is None:
      arr = np.asarray(value)
      dtype = _dt.string if arr.dtype.kind in "OSU" else _dt.from_numpy(arr.dtype)
      key = self._const_keys[id(value)] = f"c{len(self.constants)}"
      self.constants[key] = (arr, dtype)
    return key

  def value(self, v, where, op=None, graphs=None):
    """JSON data for an attr or a Python value inside a structure."""
    if v is None or isinstance(v, (bool, str)) or type(v) in (int, float):
      return v
    if isinstance(v, _dt.DType):
      return {"$": "dtype", "v": v.name}
    if isinstance(v, TensorShape):
      return {"$": "shape", "v": shape_data(v)}
    if isinstance(v, (np.ndarray, np.generic)):
      if v.dtype.kind == "O" and not all(isinstance(x, bytes) for x in np.ravel(v)):
        self.problem(where, "an object array that is not bytes cannot be saved", op)
        return None
      return {"$": "array", "key": self.array(v), "scalar": isinstance(v, np.generic)}
    if isinstance(v, bytes):
      return {"$": "bytes", "v": v.decode("latin-1")}
    if isinstance(v, complex):
      return {"$": "complex", "v": [v.real, v.imag]}
    if isinstance(v, tuple) and hasattr(v, "_fields"):
      return {"$": "namedtuple", "name": type(v).__name__, "fields": list(v._fields),
              "v": [self.value(x, where, op, graphs) for x in v]}
    if isinstance(v, (list, tuple)):
      return {"$": type(v).__name__, "v": [self.value(x, where, op, graphs) for x in v]}
    if isinstance(v, dict):
      return {"$": "dict", "k": [self.value(k, where, op, graphs) for k in v],
              "v": [self.value(x, where, op, graphs) for x in v.values()]}
    if isinstance(v, FuncGraph):
      return {"$": "graph", "v": self.graph(v, graphs or [])}
    if type(v).__name__ == "_Slot" and type(v).__module__.endswith("logging_ops"):
      return {"$": "slot", "i": v.i}  # a tf.print template position
    what = "Python code" if callable(v) else f"a Python {type(v).__name__} object"
    self.problem(where, f"holds {what}, which cannot be saved as data", op)
    return None

  # -------------------------------------------------------------- graphs
  def graph(self, fg, outer):
    """The data of `fg`; `outer` lists the enclosing graphs (innermost last)."""
    index = {id(op): i for i, op in enumerate(fg.get_operations())}
    graphs = outer + [(fg, index)]
    nodes = []
    for op in fg.get_operations():
      where = f"graph '{fg.name}', op '{op.name}' ({op.type})"
      api = op.opdef.runs_python
      if api is not None:
        self.problem(where, f"{api} runs Python code, which a saved model "
                     f"cannot hold; write it with TensorFlow ops", op)
      attrs = {}
      for k, a in op.attrs.items():
        if type(a).__name__ == "GraphCallable":
          # NOTE: compiled caches of a graph attr; only which attr they compile is data.
          names = [n for n, g in op.attrs.items() if g is a.fg]
          attrs[k] = {"$": "callable", "name": a.name, "graph": names[0] if names else None}
        elif api is None:
          attrs[k] = self.value(a, f"{where}, attr '{k}'", op, graphs)
      nodes.append({"name": op.name, "op": op.type,
                    "in": [self._ref(t, graphs, where, op) for t in op.inputs],
                    "ctl": [index[id(c)] for c in op.control_inputs],
                    "attrs": attrs,
                    "out": [[t.dtype.name, shape_data(t.shape)] for t in op.outputs]})
    captures = []
    for value, ph in fg.captures.values():
      captures.append({"ph": index[id(ph.op)],
                       "value": self._captured(value, fg, outer, ph)})
    return {"name": fg.name, "nodes": nodes,
            "inputs": [index[id(t.op)] for t in fg.inputs],
            "captures": captures,
            "outputs": [self._ref(t, graphs, fg.name) for t in fg.outputs],
            "structured_outputs": self.structure(fg.structured_outputs, fg.outputs,
                                                 f"the outputs of '{fg.name}'", graphs)}

  def _ref(self, t, graphs, where, op=None):
    index = graphs[-1][1]
    i = index.get(id(t.op))
    if i is None:
      self.problem(where, f"input {t.name} is not in the graph", op)
      return None
    return [i, t.value_index]

  def _captured(self, value, fg, outer, ph):
    where = f"graph '{fg.name}', captured {ph.name}"
    if value.dtype is _dt.resource:
      from tensorlet.ops.state_ops import variable_of
      var = variable_of(value)
      k = self.variable_ids.get(id(var))
      if k is None:
        self.problem(where, f"the function uses the variable '{var.name}', which the saved "
                     f"object does not track; assign it to an attribute of the object (or "
                     f"of one of its tf.Modules)")
      return {"var": k}
    if isinstance(value, EagerTensor):
      if value.dtype is _dt.variant:
        self.problem(where, "a captured variant value (a tf.data dataset or another Python "
                     "object) cannot be saved")
        return None
      return {"const": self.array(value._value), "dtype": value.dtype.name}
    if isinstance(value, SymbolicTensor):
      for depth, (g, index) in enumerate(reversed(outer)):
        i = index.get(id(value.op))
        if i is not None:
          return {"up": depth, "node": i, "out": value.value_index}
    self.problem(where, f"captures {value!r}, which is not a tensor of an enclosing graph")
    return None

  def structure(self, s, outputs, where, graphs=None):
    """A nest of tensors (by position in `outputs`) and Python values."""
    pos = {id(t): i for i, t in enumerate(outputs)}

    def enc(x):
      if isinstance(x, Tensor):
        i = pos.get(id(x))
        if i is None:
          self.problem(where, f"{x!r} is not one of the function's outputs")
        return {"$": "out", "i": i}
      if isinstance(x, CompositeTensor):
        return {"$": "composite", "spec": self.key(x._type_spec, where),
                "v": [enc(c) for c in x._to_components()]}
      if isinstance(x, tuple) and hasattr(x, "_fields"):
        return {"$": "namedtuple", "name": type(x).__name__, "fields": list(x._fields),
                "v": [enc(e) for e in x]}
      if isinstance(x, (list, tuple)):
        return {"$": type(x).__name__, "v": [enc(e) for e in x]}
      if isinstance(x, dict):
        return {"$": "dict", "k": [self.value(k, where) for k in x],
                "v": [enc(e) for e in x.values()]}
      return self.value(x, where, None, graphs)
    return enc(s)

  # -------------------------------------------------------- trace types
  def key(self, k, where):
    """A tf.function trace type (polymorphic_function/trace_type.py) or a composite's
    spec (by class name and constructor fields) as data."""
    if isinstance(k, tt.TensorType):
      return {"T": k.dtype.name, "shape": None if k.shape is None else list(k.shape)}
    if isinstance(k, tt.LiteralType):
      return {"L": self.value(k.value, where)}
    if isinstance(k, tt.SequenceType):
      subs = [self.key(e, where) for e in k.components]
      if k.container in (list, tuple):
        return {"S": k.container.__name__, "v": subs}
      return {"S": "namedtuple", "name": k.container.__name__,
              "fields": list(k.container._fields), "v": subs}
    if isinstance(k, TypeSpec) and type(k).__name__ in COMPOSITE_SPECS:
      return {"C": type(k).__name__, "v": [self.value(f, where) for f in k._fields()]}
    if isinstance(k, tt.MappingType) and k.container is dict:
      return {"D": [[self.value(kk, where), self.key(sub, where)]
                    for kk, sub in zip(k.keys, k.components)]}
    self.problem(where, "an argument that is not a tensor, a Python literal or a list/tuple/"
                 "dict of them cannot be saved")
    return None
