"""An error in the user's model while Keras' fit traces its train step reads as
TF 2.21's: "in user code:" naming the user's call() line, and the traceback
goes from the user's fit() call straight to the user's frames."""
import os
import traceback

import numpy as np
import pytest

import tensorlet as tf

TENSORLET_DIR = os.path.dirname(tf.__file__)


class _Bad(tf.keras.Model):
  def __init__(self):
    super().__init__()
    self.d = tf.keras.layers.Dense(3)

  def call(self, x):
    y = self.d(x)
    return tf.matmul(y, tf.ones([4, 4]))


def _error(method, monkeypatch, mode=None):
  if mode:
    monkeypatch.setenv("TENSORLET_TRACEBACK", mode)
  else:
    monkeypatch.delenv("TENSORLET_TRACEBACK", raising=False)
  m = _Bad()
  m.compile("adam", "mse")
  x, y = np.ones((4, 2), "float32"), np.ones((4, 3), "float32")
  args = {"fit": (x, y), "evaluate": (x, y), "predict": (x,), "train_on_batch": (x, y)}[method]
  kwargs = {} if method == "train_on_batch" else {"verbose": 0}
  with pytest.raises(ValueError) as info:
    getattr(m, method)(*args, **kwargs)
  return info.value


@pytest.mark.parametrize("method", ["fit", "evaluate", "predict", "train_on_batch"])
def test_user_code_block_and_filtered_traceback(method, monkeypatch):
  e = _error(method, monkeypatch)
  text = str(e)
  assert text.startswith("in user code:\n\n")
  assert f'File "{__file__}"' in text and "in call  *" in text
  assert "return tf.matmul(y, tf.ones([4, 4]))" in text and "[?,3], [4,4]" in text
  frames = traceback.extract_tb(e.__traceback__)
  assert [f.name for f in frames if f.filename == __file__][-1] == "call"
  internal = [f for f in frames if f.filename.startswith(TENSORLET_DIR)]
  assert len(internal) <= 1 and all(f.filename.endswith("user_code.py") for f in internal)


def test_full_traceback_keeps_keras_frames(monkeypatch):
  e = _error("fit", monkeypatch, mode="full")
  files = [f.filename for f in traceback.extract_tb(e.__traceback__)]
  assert any(f.startswith(os.path.join(TENSORLET_DIR, "keras")) for f in files)
  assert str(e).startswith("in user code:")
