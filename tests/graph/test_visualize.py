"""DOT and SVG pictures of traced graphs."""
import xml.etree.ElementTree as ET

import pytest

import tensorlet as tf
from tensorlet.graph import visualize


@tf.function(input_signature=[tf.TensorSpec([None, 2], tf.float32)])
def f(x):
  v = tf.reduce_sum(x)
  return tf.cond(v > 0, lambda: x * 2.0, lambda: x - 1.0)


def test_dot_has_ops_edges_shapes_and_nested_clusters():
  dot = visualize.to_dot(f.get_concrete_function())
  assert dot.startswith('digraph "f" {') and dot.rstrip().endswith("}")
  assert '"x" [label="x\\nPlaceholder", shape=ellipse];' in dot
  assert '"x" -> "Sum" [label="float32[?,2]"];' in dot
  assert 'subgraph "cluster_cond/then_graph"' in dot
  assert '"cond/then_graph/mul" [label="mul\\nMul"];' in dot
  assert dot.count("{") == dot.count("}")


def test_svg_is_well_formed_with_a_box_per_op(tmp_path):
  cf = f.get_concrete_function()
  svg = visualize.to_svg(cf)
  root = ET.fromstring(svg)
  ns = "{http://www.w3.org/2000/svg}"
  ops = cf.graph.get_operations()
  nested = [op for op in ops if op.type == "StatelessIf"]
  inner = sum(len(op.attrs[k].get_operations()) for op in nested for k in ("then_graph", "else_graph"))
  assert len(root.findall(f".//{ns}rect[@class='op']")) == len(ops) + inner
  texts = [t.text for t in root.iter(f"{ns}text")]
  assert "StatelessIf (then_graph=cond_true, else_graph=cond_false)" in texts
  assert visualize.write(cf, tmp_path / "g.svg").endswith(".svg")
  assert (tmp_path / "g.svg").read_text() == svg
  visualize.write(cf.graph, tmp_path / "g.dot")
  assert (tmp_path / "g.dot").read_text() == visualize.to_dot(cf)
  with pytest.raises(ValueError, match="picture format"):
    visualize.write(cf, tmp_path / "g.png")


def test_svg_draws_branches_and_loop_bodies_as_nested_boxes():
  @tf.function(input_signature=[tf.TensorSpec([], tf.int32)])
  def loop(n):
    i = tf.constant(0)
    while i < n:
      i = tf.cond(i > 1, lambda: i + 2, lambda: i + 1)
    return i
  svg = visualize.to_svg(loop.get_concrete_function())
  root = ET.fromstring(svg)
  ns = "{http://www.w3.org/2000/svg}"
  clusters = root.findall(f".//{ns}g[@class='cluster']")
  titles = [c.find(f"{ns}text").text for c in clusters]
  while_op = [op for op in loop.get_concrete_function().graph.get_operations()
              if "While" in op.type][0]
  assert f"{while_op.name}.cond_graph" in titles and f"{while_op.name}.body_graph" in titles
  # the If inside the loop body is a box inside the body's box
  body = clusters[titles.index(f"{while_op.name}.body_graph")]
  inner = [c.find(f"{ns}text").text for c in body.iter(f"{ns}g") if c.get("class") == "cluster"]
  assert any(t.endswith(".then_graph") for t in inner) and any(t.endswith(".else_graph") for t in inner)
  # each box is as large as what it holds
  width = float(body.find(f"{ns}rect").get("width"))
  for g in body.iter(f"{ns}g"):
    tr = g.get("transform", "")
    if tr.startswith("translate(") and g is not body:
      x = float(tr[len("translate("):].split(",")[0])
      assert x < width
  assert float(root.get("height")) > 4 * 34
