"""tf.keras.utils.plot_model / model_to_dot: pictures of a model's layer graph.

The layers are handed to the project's graph pictures (tensorlet.graph.visualize) as a
graph whose operations are the layers and whose edges are the tensors between them, so
DOT and SVG come from that one drawing code. PNG is rendered by Graphviz's `dot` when it
is installed, else drawn with Pillow; without either, a clear ImportError.
"""
import os
import shutil
import subprocess
import tempfile

from tensorlet import dtypes
from tensorlet.graph import visualize
from tensorlet.tensor_shape import TensorShape

__all__ = ["plot_model", "model_to_dot"]


class _Edge:
  __slots__ = ("op", "dtype", "shape")

  def __init__(self, op, dtype, shape):
    self.op = op
    self.dtype = dtype
    self.shape = TensorShape(shape)


class _LayerOp:
  """A layer as visualize sees an operation: name, type (the label's second line), inputs."""

  opdef = None     # not an op of the registry: drawn as a plain box

  def __init__(self, name, label):
    self.name = name
    self.type = label
    self.inputs = []
    self.control_inputs = []
    self.attrs = {}


class _LayerGraph:
  def __init__(self, name, ops):
    self.name = name
    self._ops = ops

  def get_operations(self):
    return list(self._ops)


def _shape_text(shape):
  if shape is None:
    return "?"
  if isinstance(shape, list):
    return ", ".join(_shape_text(s) for s in shape)
  return str(tuple(shape)) if not isinstance(shape, str) else shape


def _label(layer, show_shapes, show_dtype, show_layer_activations, show_trainable):
  parts = [type(layer).__name__]
  if show_layer_activations and hasattr(layer, "activation"):
    parts.append(getattr(layer.activation, "__name__", str(layer.activation)))
  if show_dtype:
    parts.append(layer.dtype)
  if show_shapes:
    nodes = layer._inbound_nodes
    ins = [tuple(t.shape.as_list()) for t in nodes[0].keras_inputs] if nodes else []
    inp = _shape_text(ins[0] if len(ins) == 1 else ins) if ins else "[]"
    try:
      out = _shape_text(layer.output_shape)
    except AttributeError:
      out = "multiple"
    parts.append(f"input: {inp}  output: {out}")
  if show_trainable:
    parts.append("Trainable" if layer.trainable else "Frozen")
  return " | ".join(parts)


def _is_model(layer):
  from tensorlet.keras.engine.training import Model
  return isinstance(layer, Model)


def _model_ops(model, opts, layer_range, expand_nested):
  """(ops in order, entry ops, exit op, clusters) of the model's layer graph; with
  `expand_nested`, a nested model's layers replace its box (a cluster in DOT)."""
  layers = list(model.layers)
  if layer_range is not None:
    names = [layer.name for layer in layers]
    if len(layer_range) != 2 or not all(n in names for n in layer_range):
      raise ValueError(f"layer_range must be a list of two names of layers of the model. "
                       f"Received: {layer_range}")
    lo, hi = names.index(layer_range[0]), names.index(layer_range[1])
    layers = layers[lo:hi + 1]
  relevant = getattr(model, "_tl_nodes", None)
  relevant = None if relevant is None else {id(n) for n in relevant}
  ops, ends, clusters = [], {}, []
  for i, layer in enumerate(layers):
    if expand_nested and _is_model(layer):
      sub_ops, entry, exit_op, sub_clusters = _model_ops(layer, opts, None, True)
      ops.extend(sub_ops)
      ends[id(layer)] = (entry, exit_op)
      clusters.append((layer.name, [op.name for op in sub_ops], sub_clusters))
      continue
    name = layer.name if opts["show_layer_names"] else f"layer {i}"
    op = _LayerOp(name, _label(layer, opts["show_shapes"], opts["show_dtype"],
                               opts["show_layer_activations"], opts["show_trainable"]))
    ops.append(op)
    ends[id(layer)] = ([op], op)
  for layer in layers if relevant is not None else ():
    for node in layer._inbound_nodes:
      if id(node) not in relevant:
        continue
      for kt in node.keras_inputs:
        src = ends.get(id(kt._keras_history[0]))
        if src is not None:
          for dst in ends[id(layer)][0]:
            dst.inputs.append(_Edge(src[1], kt.dtype, kt.shape))
  if relevant is None:  # a Sequential model: each layer feeds the next
    for a, b in zip(layers, layers[1:]):
      try:
        shape = a.output_shape
      except AttributeError:
        shape = None
      shape = shape if isinstance(shape, tuple) else None
      for dst in ends[id(b)][0]:
        dst.inputs.append(_Edge(ends[id(a)][1], dtypes.as_dtype(a.dtype), shape))
  entry = [op for op in ops if not op.inputs] or ops[:1]
  return ops, entry, ops[-1] if ops else None, clusters


def _layer_graph(model, show_shapes, show_dtype, show_layer_names, show_layer_activations,
                 show_trainable, layer_range, expand_nested=False):
  opts = {"show_shapes": show_shapes, "show_dtype": show_dtype,
          "show_layer_names": show_layer_names,
          "show_layer_activations": show_layer_activations, "show_trainable": show_trainable}
  ops, _, _, clusters = _model_ops(model, opts, layer_range, expand_nested)
  g = _LayerGraph(model.name, ops)
  g.clusters = clusters
  return g


def _cluster_lines(clusters, pad):
  from tensorlet.graph.visualize import _q
  lines = []
  for name, members, inner in clusters:
    lines.append(f"{pad}subgraph {_q('cluster_' + name)} {{")
    lines.append(f"{pad}  label={_q(name)}; style=rounded;")
    lines.extend(_cluster_lines(inner, pad + "  "))
    lines.extend(f"{pad}  {_q(m)};" for m in members)
    lines.append(f"{pad}}}")
  return lines


def model_to_dot(model, show_shapes=False, show_dtype=False, show_layer_names=True,
                 rankdir="TB", expand_nested=False, dpi=96, subgraph=False, layer_range=None,
                 show_layer_activations=False, show_trainable=False):
  """The model's layer graph as Graphviz DOT text (Keras returns a pydot graph; tensorlet
  has no pydot dependency and returns the DOT source)."""
  if rankdir not in ("TB", "LR"):
    raise ValueError(f"rankdir must be 'TB' or 'LR'. Received: {rankdir}")
  g = _layer_graph(model, show_shapes, show_dtype, show_layer_names, show_layer_activations,
                   show_trainable, layer_range, expand_nested)
  dot = visualize.to_dot(g, name=model.name)
  head, rest = dot.split("\n", 1)
  if g.clusters:  # the layers of each nested model, boxed and labelled with its name
    body, close = rest.rstrip("\n").rsplit("\n", 1)
    rest = "\n".join([body] + _cluster_lines(g.clusters, "  ") + [close]) + "\n"
  return f"{head}\n  rankdir={rankdir}; dpi={int(dpi)};\n{rest}"


def plot_model(model, to_file="model.png", show_shapes=False, show_dtype=False,
               show_layer_names=True, rankdir="TB", expand_nested=False, dpi=96,
               layer_range=None, show_layer_activations=False, show_trainable=False):
  """Writes a picture of the model's layers to `to_file`: .dot/.gv (DOT text), .svg (drawn
  by tensorlet), .png (Graphviz if installed, else Pillow)."""
  if not model.built:
    raise ValueError("This model has not yet been built. Build the model first by calling "
                     "`build()` or by calling the model on a batch of data.")
  to_file = os.fspath(to_file)
  ext = os.path.splitext(to_file)[1].lower()
  g = _layer_graph(model, show_shapes, show_dtype, show_layer_names, show_layer_activations,
                   show_trainable, layer_range, expand_nested)
  if ext in (".dot", ".gv"):
    text = model_to_dot(model, show_shapes, show_dtype, show_layer_names, rankdir,
                        expand_nested, dpi, layer_range=layer_range,
                        show_layer_activations=show_layer_activations,
                        show_trainable=show_trainable)
    _write_atomic(to_file, text.encode("utf-8"))
  elif ext == ".svg":
    _write_atomic(to_file, visualize.to_svg(g).encode("utf-8"))
  elif ext == ".png":
    dot = shutil.which("dot")
    if dot is not None:
      text = model_to_dot(model, show_shapes, show_dtype, show_layer_names, rankdir,
                          expand_nested, dpi, layer_range=layer_range,
                          show_layer_activations=show_layer_activations,
                          show_trainable=show_trainable)
      png = subprocess.run([dot, "-Tpng"], input=text.encode("utf-8"), capture_output=True,
                           check=True).stdout
      _write_atomic(to_file, png)
    else:
      _png_with_pillow(g, to_file)
  else:
    raise ValueError(f"plot_model writes .png, .svg, .dot or .gv files. Received: "
                     f"to_file={to_file!r}")
  return None


def _write_atomic(path, data):
  folder = os.path.dirname(os.path.abspath(path))
  fd, tmp = tempfile.mkstemp(dir=folder, prefix=".plot_model-")
  try:
    with os.fdopen(fd, "wb") as f:
      f.write(data)
    os.replace(tmp, path)
  except BaseException:
    if os.path.exists(tmp):
      os.remove(tmp)
    raise


def _png_with_pillow(g, path):
  try:
    from PIL import Image, ImageDraw
  except ImportError:
    raise ImportError("plot_model needs Graphviz (the `dot` program) or Pillow (`pip install "
                      "pillow`) to write a PNG file; neither was found. Write a .svg or .dot "
                      "file instead.") from None
  ops = g.get_operations()
  depth = {}
  for op in ops:
    depth[id(op)] = 1 + max((depth[id(t.op)] for t in op.inputs if id(t.op) in depth),
                            default=-1)
  rows = {}
  for op in ops:
    rows.setdefault(depth[id(op)], []).append(op)
  char, row_h, box_h, gap = 7, 70, 34, 20
  pos, width = {}, 0
  for r, row in rows.items():
    x = gap
    for op in row:
      w = max(len(op.name), len(op.type)) * char + 16
      pos[id(op)] = (x, gap + r * row_h, w)
      x += w + gap
    width = max(width, x)
  image = Image.new("RGB", (max(width, 1), gap + len(rows) * row_h), "white")
  draw = ImageDraw.Draw(image)
  for op in ops:
    x, y, w = pos[id(op)]
    for t in op.inputs:
      sx, sy, sw = pos[id(t.op)]
      draw.line([(sx + sw // 2, sy + box_h), (x + w // 2, y)], fill=(85, 85, 85), width=1)
  for op in ops:
    x, y, w = pos[id(op)]
    draw.rectangle([x, y, x + w, y + box_h], fill=(232, 240, 254), outline=(51, 51, 51))
    draw.text((x + 8, y + 4), op.name, fill=(0, 0, 0))
    draw.text((x + 8, y + 18), op.type, fill=(0, 0, 0))
  buf = tempfile.SpooledTemporaryFile()
  image.save(buf, format="PNG")
  buf.seek(0)
  _write_atomic(path, buf.read())
