"""Pictures of graphs without a service: Graphviz DOT text (render it with
Graphviz, `dot -Tsvg`, an optional tool) and a self-contained SVG drawn here.

Nodes are ops (name and type), edges carry the tensor's dtype and shape,
control dependencies are dashed. In DOT, the branch and body graphs of
control flow are clusters inside their If/While node's graph.
"""
from xml.sax.saxutils import escape

__all__ = ["to_dot", "to_svg", "write"]


def _graph_of(g):
  return g.graph if hasattr(g, "graph") and hasattr(g.graph, "get_operations") else g


def _tensor_label(t):
  s = t.shape
  dims = "?" if s.rank is None else ",".join("?" if d is None else str(d) for d in s.as_list())
  return f"{t.dtype.name}[{dims}]"


def _q(text):
  return '"' + str(text).replace("\\", "\\\\").replace('"', '\\"') + '"'


def _nested(op):
  return [(k, a) for k, a in op.attrs.items() if type(a).__name__ == "FuncGraph"]


def to_dot(graph, name=None):
  """DOT text for a Graph or ConcreteFunction (nested graphs as clusters)."""
  g = _graph_of(graph)
  lines = [f"digraph {_q(name or g.name)} {{", "  node [shape=box, fontsize=10];",
           "  edge [fontsize=8];"]
  _dot_body(g, "", lines, "  ")
  lines.append("}")
  return "\n".join(lines) + "\n"


def _dot_body(g, prefix, lines, pad):
  ids = {id(op): f"{prefix}{op.name}" for op in g.get_operations()}
  for op in g.get_operations():
    node = ids[id(op)]
    shape = ", shape=ellipse" if op.opdef is not None and op.opdef.is_placeholder else ""
    label = _q(op.name)[:-1] + "\\n" + _q(op.type)[1:]  # DOT's line break
    lines.append(f"{pad}{_q(node)} [label={label}{shape}];")
    for t in op.inputs:
      src = ids.get(id(t.op))
      if src is not None:
        lines.append(f"{pad}{_q(src)} -> {_q(node)} [label={_q(_tensor_label(t))}];")
    for c in op.control_inputs:
      lines.append(f"{pad}{_q(ids[id(c)])} -> {_q(node)} [style=dashed];")
    for attr, sub in _nested(op):
      cluster = f"{node}/{attr}"
      lines.append(f"{pad}subgraph {_q('cluster_' + cluster)} {{")
      lines.append(f"{pad}  label={_q(f'{op.name}.{attr}')}; style=rounded;")
      _dot_body(sub, cluster + "/", lines, pad + "  ")
      lines.append(f"{pad}}}")
      for t in sub.outputs:
        lines.append(f"{pad}{_q(cluster + '/' + t.op.name)} -> {_q(node)} [style=dotted];")


_ROW, _CHAR, _BOX_H, _GAP = 70, 7, 34, 20


def to_svg(graph):
  """A standalone SVG of a Graph or ConcreteFunction: ops in rows by depth."""
  g = _graph_of(graph)
  ops = g.get_operations()
  depth = {}
  for op in ops:  # NOTE: program order is a topological order
    deps = [depth[id(t.op)] for t in op.inputs if id(t.op) in depth]
    deps += [depth[id(c)] for c in op.control_inputs if id(c) in depth]
    depth[id(op)] = 1 + max(deps, default=-1)
  rows = {}
  for op in ops:
    rows.setdefault(depth[id(op)], []).append(op)
  pos, width = {}, 0
  for r, row in rows.items():
    x = _GAP
    for op in row:
      label = _label(op)
      w = max(len(s) for s in label) * _CHAR + 16
      pos[id(op)] = (x, _GAP + r * _ROW, w, label)
      x += w + _GAP
    width = max(width, x)
  height = _GAP + len(rows) * _ROW
  out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
         f'font-family="monospace" font-size="11">',
         f"<title>{escape(g.name)}</title>",
         '<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" '
         'markerHeight="7" orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" '
         'fill="#555"/></marker></defs>']
  for op in ops:
    x, y, w, _ = pos[id(op)]
    for t in op.inputs:
      if id(t.op) in pos:
        sx, sy, sw, _ = pos[id(t.op)]
        out.append(f'<line x1="{sx + sw // 2}" y1="{sy + _BOX_H}" x2="{x + w // 2}" y2="{y}" '
                   f'stroke="#555" marker-end="url(#arrow)"><title>{escape(_tensor_label(t))}</title></line>')
    for c in op.control_inputs:
      sx, sy, sw, _ = pos[id(c)]
      out.append(f'<line x1="{sx + sw // 2}" y1="{sy + _BOX_H}" x2="{x + w // 2}" y2="{y}" '
                 f'stroke="#999" stroke-dasharray="4 3" marker-end="url(#arrow)"/>')
  for op in ops:
    x, y, w, label = pos[id(op)]
    fill = "#fef7e0" if op.opdef is not None and op.opdef.is_placeholder else "#e8f0fe"
    out.append(f'<g><rect x="{x}" y="{y}" width="{w}" height="{_BOX_H}" rx="4" fill="{fill}" '
               f'stroke="#333"/>')
    for i, s in enumerate(label):
      out.append(f'<text x="{x + 8}" y="{y + 14 + 13 * i}">{escape(s)}</text>')
    out.append("</g>")
  out.append("</svg>")
  return "\n".join(out) + "\n"


def _label(op):
  nested = ", ".join(f"{k}={a.name}" for k, a in _nested(op))
  return [op.name, op.type + (f" ({nested})" if nested else "")]


def write(graph, path):
  """Writes `graph` to `path` as SVG (.svg) or DOT (.dot / .gv)."""
  path = str(path)
  if path.endswith(".svg"):
    text = to_svg(graph)
  elif path.endswith((".dot", ".gv")):
    text = to_dot(graph)
  else:
    raise ValueError(f"Cannot tell the picture format of {path!r}: use .svg, .dot or .gv")
  with open(path, "w", encoding="utf-8") as f:
    f.write(text)
  return path
