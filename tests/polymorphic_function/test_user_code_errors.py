"""Errors raised while tracing a tf.function read as TF 2.21's: an "in user
code:" block naming the user's lines, and no tensorlet frames in the traceback
unless TENSORLET_TRACEBACK=full."""
import os
import traceback

import pytest

import tensorlet as tf

TENSORLET_DIR = os.path.dirname(tf.__file__)


def _helper(x):
  return tf.matmul(x, tf.ones([3, 3]))


@tf.function
def _f(x):
  y = x * 2
  return _helper(y)


def _raise():
  try:
    tf.function(_f.python_function)(tf.ones([2, 2]))
  except ValueError as e:
    return e
  raise AssertionError("no error")


def test_message_has_user_code_block():
  e = _raise()
  text = str(e)
  assert text.startswith("in user code:\n\n")
  assert f'File "{__file__}"' in text and "in _f  *" in text and "in _helper  *" in text
  assert "return _helper(y)" in text and "return tf.matmul(x, tf.ones([3, 3]))" in text
  assert "ValueError: " in text and "[2,2], [3,3]" in text  # the original message follows


def test_traceback_hides_tensorlet_frames(monkeypatch):
  monkeypatch.delenv("TENSORLET_TRACEBACK", raising=False)
  e = _raise()
  files = [f.filename for f in traceback.extract_tb(e.__traceback__)]
  inner = files[files.index(__file__, 1):] if files.count(__file__) > 1 else files
  assert all(not f.startswith(TENSORLET_DIR) for f in inner[1:])
  assert sum(f == __file__ for f in files) >= 3  # _raise, _f, _helper


def test_full_traceback_switch(monkeypatch):
  monkeypatch.setenv("TENSORLET_TRACEBACK", "full")
  e = _raise()
  files = [f.filename for f in traceback.extract_tb(e.__traceback__)]
  assert any(f.startswith(os.path.join(TENSORLET_DIR, "ops")) for f in files)
  assert str(e).startswith("in user code:")


def test_error_type_and_op_errors_keep_their_type():
  @tf.function
  def g(x):
    return tf.reshape(x, [5])
  with pytest.raises(ValueError, match="in user code"):
    g(tf.ones([2, 2]))

  @tf.function
  def h(x):
    raise KeyError("k")
  with pytest.raises(KeyError):
    h(tf.ones([1]))


def test_variable_created_on_every_call_names_the_line():
  @tf.function
  def f(x):
    v = tf.Variable(1.0)
    return v + x
  with pytest.raises(ValueError) as info:
    f(tf.constant(1.0))
  text = str(info.value)
  # TF 2.21's message, on the first call, with the user's line above it
  assert "tf.function only supports singleton tf.Variables created on the first call." in text
  assert "v = tf.Variable(1.0)" in text and "in f  *" in text


def test_variable_created_once_is_fine():
  holder = []

  @tf.function
  def f(x):
    if not holder:
      holder.append(tf.Variable(1.0))
    return holder[0] + x
  assert f(tf.constant(1.0)).numpy() == 2.0
  assert f(tf.constant(2.0)).numpy() == 3.0
