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


_EDGE, _CHAR, _BOX_H, _GAP, _TITLE = 36, 7, 34, 20, 18


def to_svg(graph):
  """A standalone SVG of a Graph or ConcreteFunction: ops in rows by depth;
  the branch and body graphs of If/While/... are nested boxes (dashed, titled
  `op.attr`) under their op, as the clusters of to_dot."""
  g = _graph_of(graph)
  width, height, body = _svg_layout(g)
  out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
         f'font-family="monospace" font-size="11">',
         f"<title>{escape(g.name)}</title>",
         '<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" '
         'markerHeight="7" orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" '
         'fill="#555"/></marker></defs>']
  out += body
  out.append("</svg>")
  return "\n".join(out) + "\n"


def _svg_layout(g):
  """(width, height, SVG elements) of graph `g` drawn from the origin."""
  ops = g.get_operations()
  depth = {}
  for op in ops:  # NOTE: program order is a topological order
    deps = [depth[id(t.op)] for t in op.inputs if id(t.op) in depth]
    deps += [depth[id(c)] for c in op.control_inputs if id(c) in depth]
    depth[id(op)] = 1 + max(deps, default=-1)
  rows = {}
  for op in ops:
    rows.setdefault(depth[id(op)], []).append(op)
  pos, width, y = {}, 0, _GAP
  for r in sorted(rows):
    x, row_h = _GAP, 0
    for op in rows[r]:
      w, h, box_w, elements = _svg_block(op)
      pos[id(op)] = (x, y, box_w, h, elements)
      x += w + _GAP
      row_h = max(row_h, h)
    width = max(width, x)
    y += row_h + _EDGE
  out = []
  for op in ops:
    x, y0, w, _, _ = pos[id(op)]
    for t in op.inputs:
      if id(t.op) in pos:
        sx, sy, sw, sh, _ = pos[id(t.op)]
        out.append(f'<line x1="{sx + sw // 2}" y1="{sy + sh}" x2="{x + w // 2}" y2="{y0}" '
                   f'stroke="#555" marker-end="url(#arrow)"><title>{escape(_tensor_label(t))}</title></line>')
    for c in op.control_inputs:
      sx, sy, sw, sh, _ = pos[id(c)]
      out.append(f'<line x1="{sx + sw // 2}" y1="{sy + sh}" x2="{x + w // 2}" y2="{y0}" '
                 f'stroke="#999" stroke-dasharray="4 3" marker-end="url(#arrow)"/>')
  for op in ops:
    x, y0, _, _, elements = pos[id(op)]
    out.append(f'<g transform="translate({x},{y0})">')
    out += elements
    out.append("</g>")
  return width, max(y - _EDGE + _GAP, _GAP), out


def _svg_block(op):
  """(width, height, op box width, elements) of one op with its nested graphs."""
  label = _label(op)
  box_w = max(len(s) for s in label) * _CHAR + 16
  fill = "#fef7e0" if op.opdef is not None and op.opdef.is_placeholder else "#e8f0fe"
  out = [f'<rect class="op" x="0" y="0" width="{box_w}" height="{_BOX_H}" rx="4" '
         f'fill="{fill}" stroke="#333"/>']
  out += [f'<text x="8" y="{14 + 13 * i}">{escape(s)}</text>' for i, s in enumerate(label)]
  width, height = box_w, _BOX_H
  cx, cy = 0, _BOX_H + _GAP
  for attr, sub in _nested(op):
    sw, sh, body = _svg_layout(sub)
    title = f"{op.name}.{attr}"
    sw = max(sw, len(title) * _CHAR + 16)
    out.append(f'<line x1="{box_w // 2}" y1="{_BOX_H}" x2="{cx + sw // 2}" y2="{cy}" '
               f'stroke="#999" stroke-dasharray="2 3" marker-end="url(#arrow)"/>')
    out.append(f'<g class="cluster" transform="translate({cx},{cy})">')
    out.append(f'<rect class="cluster" x="0" y="0" width="{sw}" height="{sh + _TITLE}" rx="8" '
               f'fill="#fafafa" stroke="#888" stroke-dasharray="6 3"/>')
    out.append(f'<text x="8" y="13" font-style="italic">{escape(title)}</text>')
    out.append(f'<g transform="translate(0,{_TITLE})">')
    out += body
    out.append("</g></g>")
    cx += sw + _GAP
    width, height = max(width, cx - _GAP), max(height, cy + sh + _TITLE)
  return width, height, box_w, out


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
