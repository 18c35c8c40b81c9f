"""summary() of functional models with merge and op layers in Keras 2's format, get_layer,
and tf.keras.utils.plot_model / model_to_dot (DOT, SVG, PNG, errors)."""
import builtins
import shutil

import numpy as np
import pytest

import tensorlet as tf

L = tf.keras.layers


def _model():
  a = tf.keras.Input((8,), name="ids")
  b = tf.keras.Input((6, 4), name="seq")
  e = L.Embedding(20, 4, name="emb")(a)
  c = L.Conv1D(4, 3, padding="same", name="conv")(b)
  h = L.Concatenate(axis=1, name="cat")([e, c])
  g = L.GlobalAveragePooling1D(name="pool")(h)
  s = L.Dense(3, name="d")(g)
  return tf.keras.Model([a, b], [tf.concat([s, tf.nn.relu(g)], -1), s], name="two")


# Printed by tf_keras 2.21 for the same model (layer names made unique the same way).
_KERAS2_ROWS = [
    " ids (InputLayer)            [(None, 8)]                  0         []",
    " emb (Embedding)             (None, 8, 4)                 80        ['ids[0][0]']",
    " cat (Concatenate)           (None, 14, 4)                0         ['emb[0][0]',",
    "                                                                     'conv[0][0]']",
    " pool (GlobalAveragePooling  (None, 4)                    0         ['cat[0][0]']",
    " 1D)",
    "Total params: 147 (588.00 Byte)",
]


def test_summary_matches_keras2_format():
  model = _model()
  lines = []
  model.summary(print_fn=lines.append)
  stripped = [line.rstrip() for line in lines]
  for row in _KERAS2_ROWS:
    assert row in stripped, row
  relu = [line for line in stripped if "(TFOpLambda)" in line]
  assert len(relu) == 2 and relu[0].endswith("['pool[0][0]']")


def test_get_layer_and_layers():
  model = _model()
  assert [type(x).__name__ for x in model.layers][:4] == ["InputLayer", "InputLayer",
                                                          "Embedding", "Conv1D"]
  assert model.get_layer("cat") is model.layers[4]
  assert model.get_layer(index=2).name == "emb"
  with pytest.raises(ValueError, match="No such layer"):
    model.get_layer("nope")
  with pytest.raises(ValueError, match="only has"):
    model.get_layer(index=99)


def test_model_to_dot_and_plot_model_dot_svg(tmp_path):
  model = _model()
  dot = tf.keras.utils.model_to_dot(model, show_shapes=True, rankdir="LR")
  assert dot.startswith('digraph "two" {') and "rankdir=LR" in dot
  assert '"emb" -> "cat"' in dot and '"conv" -> "cat"' in dot and '"d" -> "tf.concat' in dot
  assert "output: (None, 14, 4)" in dot
  tf.keras.utils.plot_model(model, str(tmp_path / "m.dot"))
  assert (tmp_path / "m.dot").read_text().count("->") == 9
  tf.keras.utils.plot_model(model, str(tmp_path / "m.svg"), show_dtype=True)
  svg = (tmp_path / "m.svg").read_text()
  assert svg.startswith("<svg") and svg.count("<rect") == 9 and "Concatenate" in svg
  with pytest.raises(ValueError, match="rankdir"):
    tf.keras.utils.model_to_dot(model, rankdir="XY")
  with pytest.raises(ValueError, match=".png, .svg"):
    tf.keras.utils.plot_model(model, str(tmp_path / "m.jpg"))
  seq = tf.keras.Sequential([L.Dense(2, input_shape=(3,)), L.Dense(1)])
  assert tf.keras.utils.model_to_dot(seq).count("->") == 1


def test_plot_model_png_with_pillow_and_clear_error_without(tmp_path, monkeypatch):
  pil = pytest.importorskip("PIL.Image")
  model = _model()
  monkeypatch.setattr(shutil, "which", lambda name: None)  # no Graphviz: Pillow draws it
  path = tmp_path / "m.png"
  tf.keras.utils.plot_model(model, str(path), show_shapes=True)
  with pil.open(path) as image:
    assert image.format == "PNG" and image.size[0] > 100 and image.size[1] > 100
    assert np.asarray(image).std() > 0
  real_import = builtins.__import__

  def no_pil(name, *args, **kwargs):
    if name == "PIL" or name.startswith("PIL."):
      raise ImportError("no PIL")
    return real_import(name, *args, **kwargs)
  monkeypatch.setattr(builtins, "__import__", no_pil)
  with pytest.raises(ImportError, match="Graphviz .* or Pillow"):
    tf.keras.utils.plot_model(model, str(tmp_path / "x.png"))
  assert not (tmp_path / "x.png").exists()


def test_expand_nested_draws_the_layers_of_nested_models(tmp_path):
  inner_in = L.Input((4,), name="inner_in")
  hidden = L.Dense(3, name="inner_hidden")(inner_in)
  inner = tf.keras.Model(inner_in, L.Dense(2, name="inner_dense")(hidden), name="inner")
  seq = tf.keras.Sequential([L.Dense(5, name="s1"), L.Dense(2, name="s2")], name="seq")
  seq.build((None, 4))
  x = L.Input((4,), name="x")
  y = L.Concatenate(name="cat")([inner(x), seq(x)])
  model = tf.keras.Model(x, L.Dense(1, name="out")(y), name="outer")
  flat = tf.keras.utils.model_to_dot(model)
  assert '"x" -> "inner"' in flat and "inner_hidden" not in flat
  dot = tf.keras.utils.model_to_dot(model, expand_nested=True)
  # The nested models' layers take their boxes' places, wired through their ends.
  for edge in ['"x" -> "inner_in"', '"inner_in" -> "inner_hidden"',
               '"inner_hidden" -> "inner_dense"', '"inner_dense" -> "cat"', '"x" -> "s1"',
               '"s1" -> "s2"', '"s2" -> "cat"', '"cat" -> "out"']:
    assert edge in dot
  assert '"x" -> "inner"' not in dot and dot.count("->") == 8
  assert 'subgraph "cluster_inner"' in dot and 'subgraph "cluster_seq"' in dot
  tf.keras.utils.plot_model(model, str(tmp_path / "n.svg"), expand_nested=True)
  svg = (tmp_path / "n.svg").read_text()
  assert svg.count("<rect") == 8 and "inner_hidden" in svg
  tf.keras.utils.plot_model(model, str(tmp_path / "n.png"), expand_nested=True)
  assert (tmp_path / "n.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
