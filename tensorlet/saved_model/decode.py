"""Plain data back to graphs: FuncGraphs whose ops are looked up by name in the
op registry, attrs rebuilt from tagged JSON values, arrays from the constants
store and captured variables from the restored ones. Only registered ops and
the value kinds listed here can come out of a file; nothing in it is run.
"""
import collections

from tensorlet import _nest as nest
from tensorlet import dtypes as _dt
from tensorlet.errors import NotFoundError
from tensorlet.graph.graph import FuncGraph, Operation, SymbolicTensor, _propagate_constant
from tensorlet.polymorphic_function import trace_type as tt
from tensorlet.saved_model.encode import COMPOSITE_SPECS
from tensorlet.tensor_shape import TensorShape
from tensorlet.tensor import EagerTensor

__all__ = ["Decoder", "Malformed"]


class Malformed(Exception):
  """Data that does not describe a graph; `load` reports it as DataLossError."""


def need(cond, text):
  if not cond:
    raise Malformed(text)


def dtype_of(name):
  d = _dt._BY_NAME.get(name) if isinstance(name, str) else None
  need(d is not None, f"unknown dtype {name!r}")
  return d


def shape_of(dims):
  need(dims is None or (isinstance(dims, list) and all(
      d is None or (type(d) is int and d >= 0) for d in dims)), f"bad shape {dims!r}")
  return TensorShape(dims)


def registry():
  """The op registry with every op module imported (ops register when their module loads)."""
  import importlib
  import pkgutil
  from tensorlet import ops
  from tensorlet.ops.registry import REGISTRY
  for m in pkgutil.iter_modules(ops.__path__):
    if m.name.endswith("_ops"):
      importlib.import_module(f"tensorlet.ops.{m.name}")
  return REGISTRY


class Decoder:
  """Rebuilds graphs; `constants` maps keys to arrays, `variables` is the restored object
  per object-graph node (captured variables are referred to by node)."""

  def __init__(self, constants, variables, where):
    self.constants = constants
    self.variables = variables
    self.where = where
    self._tensors = {}
    self.registry = registry()

  def array(self, key):
    need(key in self.constants, f"constant {key!r} is missing from the constants file")
    return self.constants[key]

  def value(self, v, graphs=None):
    if v is None or isinstance(v, (bool, str, int, float)):
      return v
    if isinstance(v, list):
      raise Malformed(f"untagged list {v!r}")
    need(isinstance(v, dict) and isinstance(v.get("$"), str), f"bad value {v!r}")
    tag = v["$"]
    if tag == "dtype":
      return dtype_of(v["v"])
    if tag == "shape":
      return shape_of(v["v"])
    if tag == "array":
      a = self.array(v["key"])
      return a[()] if v.get("scalar") else a
    if tag == "bytes":
      return v["v"].encode("latin-1")
    if tag == "complex":
      return complex(*v["v"])
    if tag in ("list", "tuple"):
      items = [self.value(x, graphs) for x in v["v"]]
      return items if tag == "list" else tuple(items)
    if tag == "namedtuple":
      return _namedtuple(v["name"], v["fields"])(*[self.value(x, graphs) for x in v["v"]])
    if tag == "dict":
      return dict(zip([self.value(k) for k in v["k"]], [self.value(x, graphs) for x in v["v"]]))
    if tag == "graph":
      return self.graph(v["v"], graphs or [])
    if tag == "slot":
      from tensorlet.ops.logging_ops import _Slot
      return _Slot(v["i"])
    raise Malformed(f"unknown value tag {tag!r}")

  # -------------------------------------------------------------- graphs
  def graph(self, data, outer):
    from tensorlet.polymorphic_function.trace import GraphCallable
    need(isinstance(data, dict) and isinstance(data.get("nodes"), list), "a graph has no nodes")
    fg = FuncGraph(str(data.get("name", "graph")),
                   outer_graph=outer[-1] if outer else None)
    graphs = outer + [fg]
    for n in data["nodes"]:
      need(isinstance(n, dict), f"bad node {n!r}")
      od = self.registry.get(n.get("op"))
      if od is None:
        raise NotFoundError(None, None, f"{self.where}: graph '{fg.name}' uses the op type "
                            f"{n.get('op')!r} (node {n.get('name')!r}), which is not "
                            f"registered in this tensorlet. The model needs a newer tensorlet, "
                            f"or its graph file was edited.")
      ops = fg._ops
      inputs = [self._tensor(ops, r) for r in n["in"]]
      attrs, callables = {}, {}
      for k, a in n["attrs"].items():
        if isinstance(a, dict) and a.get("$") == "callable":
          callables[k] = a
        else:
          attrs[k] = self.value(a, graphs)
      for k, a in callables.items():
        g = attrs.get(a["graph"])
        need(isinstance(g, FuncGraph), f"node {n['name']!r}: {k} names no graph attr")
        attrs[k] = GraphCallable(g, str(a["name"]))
      name = str(n["name"])
      need(name not in fg._names, f"two nodes are named {name!r}")
      fg._names[name] = 1
      op = Operation(fg, od, name, inputs, attrs)
      op.outputs = tuple(SymbolicTensor(op, i, shape_of(s), dtype_of(d))
                         for i, (d, s) in enumerate(n["out"]))
      for c in n["ctl"]:
        need(type(c) is int and 0 <= c < len(ops), f"bad control input {c!r}")
        op.control_inputs.append(ops[c])
      ops.append(op)
      _propagate_constant(op)
    ops = fg._ops
    for ph_index in data["inputs"]:
      fg.inputs.append(self._tensor(ops, [ph_index, 0]))
    for c in data["captures"]:
      ph = self._tensor(ops, [c["ph"], 0])
      value = self._captured(c["value"], ph, outer)
      fg.captures[id(value)] = (value, ph)
    fg.outputs = [self._tensor(ops, r) for r in data["outputs"]]
    structured = self.structure(data["structured_outputs"], fg.outputs)
    fg.structured_outputs = structured
    fg.output_template = nest.flatten(structured, expand_composites=True)
    fg.output_positions = [i for i, x in enumerate(fg.output_template)
                           if any(x is t for t in fg.outputs)]
    return fg

  def _tensor(self, ops, ref):
    need(isinstance(ref, list) and len(ref) == 2 and type(ref[0]) is int and
         0 <= ref[0] < len(ops), f"bad tensor reference {ref!r}")
    outs = ops[ref[0]].outputs
    need(type(ref[1]) is int and 0 <= ref[1] < len(outs), f"bad tensor reference {ref!r}")
    return outs[ref[1]]

  def _captured(self, c, ph, outer):
    need(isinstance(c, dict), f"bad captured value {c!r}")
    if "var" in c:
      k = c["var"]
      need(type(k) is int and 0 <= k < len(self.variables) and
           hasattr(self.variables[k], "_handle"), f"captured variable {k!r} is not a variable")
      var = self.variables[k]
      ph._variable = var
      fg = ph.op.graph
      if all(var is not w for w in fg.variables):
        fg.variables.append(var)
      return var._handle
    if "const" in c:
      key = c["const"]
      t = self._tensors.get(key)
      if t is None:  # NOTE: one tensor per stored value, as the saved graphs shared it
        t = self._tensors[key] = EagerTensor(self.array(key), dtype_of(c["dtype"]))
      return t
    need(type(c.get("up")) is int and 0 <= c["up"] < len(outer), f"bad capture {c!r}")
    g = outer[len(outer) - 1 - c["up"]]
    return self._tensor(g._ops, [c["node"], c["out"]])

  def structure(self, s, outputs):
    def dec(x):
      if isinstance(x, dict) and x.get("$") == "out":
        need(type(x["i"]) is int and 0 <= x["i"] < len(outputs), f"bad output {x!r}")
        return outputs[x["i"]]
      if isinstance(x, dict) and x.get("$") in ("list", "tuple"):
        items = [dec(e) for e in x["v"]]
        return items if x["$"] == "list" else tuple(items)
      if isinstance(x, dict) and x.get("$") == "namedtuple":
        return _namedtuple(x["name"], x["fields"])(*[dec(e) for e in x["v"]])
      if isinstance(x, dict) and x.get("$") == "dict":
        return dict(zip([self.value(k) for k in x["k"]], [dec(e) for e in x["v"]]))
      if isinstance(x, dict) and x.get("$") == "composite":
        return self.key(x["spec"])._from_components([dec(e) for e in x["v"]])
      return self.value(x)
    return dec(s)

  # -------------------------------------------------------- trace types
  def key(self, k):
    need(isinstance(k, dict), f"bad argument type {k!r}")
    if "T" in k:
      s = shape_of(k["shape"])
      return tt.TensorType(dtype_of(k["T"]), None if s.rank is None else tuple(s.as_list()))
    if "L" in k:
      return tt.LiteralType(self.value(k["L"]))
    if "C" in k:
      need(k["C"] in COMPOSITE_SPECS, f"unknown composite type {k['C']!r}")
      return COMPOSITE_SPECS[k["C"]]()(*[self.value(f) for f in k["v"]])
    if "S" in k:
      subs = tuple(self.key(e) for e in k["v"])
      kinds = {"list": list, "tuple": tuple}
      return tt.SequenceType(kinds.get(k["S"]) or _namedtuple(k["name"], k["fields"]), subs)
    if "D" in k:
      items = [(self.value(kk), self.key(sub)) for kk, sub in k["D"]]
      return tt.MappingType(dict, tuple(kk for kk, _ in items), tuple(s for _, s in items))
    raise Malformed(f"bad argument type {k!r}")


_NAMEDTUPLES = {}


def _namedtuple(name, fields):
  """One class per (name, fields), so loaded structures compare equal to each other."""
  need(isinstance(name, str) and isinstance(fields, list) and
       all(isinstance(f, str) for f in fields), f"bad namedtuple {name!r}")
  key = (name, tuple(fields))
  cls = _NAMEDTUPLES.get(key)
  if cls is None:
    try:
      cls = _NAMEDTUPLES[key] = collections.namedtuple(name, fields)
    except ValueError as e:
      raise Malformed(f"bad namedtuple {name!r}: {e}") from None
  return cls
