"""Saving over an existing SavedModel directory replaces it as one unit."""
import os

import numpy as np

import tensorlet as tf
from tensorlet.train import _atomic


def _module(value):
  m = tf.Module()
  m.v = tf.Variable(np.full(3, value, np.float32))
  return m


def test_save_over_existing_directory_replaces_it_whole_and_keeps_user_files(tmp_path):
  where = str(tmp_path / "sm")
  tf.saved_model.save(_module(1.0), where)
  (tmp_path / "sm" / "NOTES.txt").write_text("mine")
  tf.saved_model.save(_module(2.0), where)
  np.testing.assert_array_equal(tf.saved_model.load(where).v.numpy(), [2, 2, 2])
  assert (tmp_path / "sm" / "NOTES.txt").read_text() == "mine"
  assert sorted(os.listdir(tmp_path)) == ["sm"]   # no staging or old copies left


def test_without_an_atomic_exchange_a_kill_between_renames_is_repaired(tmp_path, monkeypatch):
  where = str(tmp_path / "sm")
  tf.saved_model.save(_module(1.0), where)
  monkeypatch.setattr(_atomic, "_renameat2", lambda: None)   # the two-rename fallback
  real_rename = os.rename
  calls = []

  def die_after_first(src, dst):
    calls.append(src)
    real_rename(src, dst)
    if len(calls) == 1:
      raise KeyboardInterrupt("killed between the two renames")
  monkeypatch.setattr(os, "rename", die_after_first)
  try:
    tf.saved_model.save(_module(2.0), where)
  except KeyboardInterrupt:
    pass
  monkeypatch.undo()
  assert not os.path.exists(where)       # what a kill at this moment leaves
  np.testing.assert_array_equal(tf.saved_model.load(where).v.numpy(), [1, 1, 1])
  tf.saved_model.save(_module(3.0), where)
  np.testing.assert_array_equal(tf.saved_model.load(where).v.numpy(), [3, 3, 3])
  assert sorted(os.listdir(tmp_path)) == ["sm"]
