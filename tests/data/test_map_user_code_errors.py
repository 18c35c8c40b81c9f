"""An error raised while tf.data traces a map function reads as TF 2.21's:
an "in user code:" block with the user's lines and the original message; the
traceback keeps the user's frames and drops tensorlet's."""
import os
import traceback

import pytest

import tensorlet as tf

TENSORLET_DIR = os.path.dirname(tf.__file__)


def _helper(x):
  return tf.matmul(x, tf.ones([3, 3]))


def _fn(x):
  y = x * 2
  return _helper(y)


def _map_error(method="map"):
  ds = tf.data.Dataset.from_tensor_slices(tf.ones([4, 2, 2]))
  with pytest.raises(ValueError) as info:
    getattr(ds, method)(_fn)
  return info.value


def test_map_error_has_user_code_block():
  text = str(_map_error())
  assert text.startswith("in user code:\n\n")
  assert f'File "{__file__}"' in text and "in _fn  *" in text and "in _helper  *" in text
  assert "return _helper(y)" in text and "return tf.matmul(x, tf.ones([3, 3]))" in text
  assert "ValueError: " in text and "[2,2], [3,3]" in text


@pytest.mark.parametrize("mode", ["", "full"])
def test_map_traceback_frames(mode, monkeypatch):
  monkeypatch.setenv("TENSORLET_TRACEBACK", mode)
  e = _map_error()
  frames = traceback.extract_tb(e.__traceback__)
  names = [f.name for f in frames if f.filename == __file__]
  assert "_fn" in names and "_helper" in names and str(e).startswith("in user code:")
  internal = [f for f in frames if f.filename.startswith(TENSORLET_DIR)]
  if mode == "full":  # every frame kept
    assert any(f.filename.startswith(os.path.join(TENSORLET_DIR, "data")) for f in internal)
  else:  # only the public entry's re-raise is left, as Keras' error_handler frame in TF
    assert len(internal) <= 1 and all(f.filename.endswith("user_code.py") for f in internal)


def test_other_traced_dataset_functions():
  ds = tf.data.Dataset.range(3)
  with pytest.raises(TypeError, match="in user code") as info:
    ds.filter(lambda x: tf.strings.length(x) > 0)
  assert "<lambda>" in str(info.value)


def test_errors_outside_user_functions_unchanged():
  with pytest.raises(ValueError) as info:
    tf.data.Dataset.range(3).map(42)
  assert "in user code" not in str(info.value)
