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
  assert len(root.findall(f".//{ns}rect")) == len(cf.graph.get_operations())
  texts = [t.text for t in root.iter(f"{ns}text")]
  assert "StatelessIf (then_graph=cond_true, else_graph=cond_false)" in texts
  assert visualize.write(cf, tmp_path / "g.svg").endswith(".svg")
  assert (tmp_path / "g.svg").read_text() == svg
  visualize.write(cf.graph, tmp_path / "g.dot")
  assert (tmp_path / "g.dot").read_text() == visualize.to_dot(cf)
  with pytest.raises(ValueError, match="picture format"):
    visualize.write(cf, tmp_path / "g.png")
