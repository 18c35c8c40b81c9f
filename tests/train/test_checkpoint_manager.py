"""tf.train.CheckpointManager and the `checkpoint` state file."""
import os

import pytest

import tensorlet as tf
from tensorlet.train import checkpoint_management


def _files(d):
  return sorted(n for n in os.listdir(d) if n.endswith(".index"))


def test_rotation_keeps_max_to_keep(tmp_path):
  v = tf.Variable(0.)
  ckpt = tf.train.Checkpoint(v=v)
  manager = tf.train.CheckpointManager(ckpt, str(tmp_path), max_to_keep=2)
  assert manager.latest_checkpoint is None
  for i in range(1, 5):
    v.assign(float(i))
    assert manager.save() == str(tmp_path / f"ckpt-{i}")
  assert _files(tmp_path) == ["ckpt-3.index", "ckpt-4.index"]
  assert manager.checkpoints == [str(tmp_path / "ckpt-3"), str(tmp_path / "ckpt-4")]
  state = tf.train.get_checkpoint_state(str(tmp_path))
  assert state.model_checkpoint_path == str(tmp_path / "ckpt-4")
  assert state.all_model_checkpoint_paths == manager.checkpoints
  text = open(tmp_path / "checkpoint").read()
  assert text.startswith('model_checkpoint_path: "ckpt-4"\n')
  # A new manager over the same directory continues the rotation.
  manager2 = tf.train.CheckpointManager(ckpt, str(tmp_path), max_to_keep=2)
  assert manager2.latest_checkpoint == str(tmp_path / "ckpt-4")
  manager2.save(checkpoint_number=10)
  assert _files(tmp_path) == ["ckpt-10.index", "ckpt-4.index"]
  v.assign(-1.)
  ckpt.restore(manager2.latest_checkpoint).assert_consumed()
  assert v.numpy() == 4.0


def test_restore_or_initialize_and_interval(tmp_path):
  step = tf.Variable(0, dtype=tf.int64)
  calls = []
  manager = tf.train.CheckpointManager(tf.train.Checkpoint(step=step), str(tmp_path), None,
                                       step_counter=step, checkpoint_interval=5,
                                       init_fn=lambda: calls.append(1))
  assert manager.restore_or_initialize() is None and calls == [1]
  assert manager.save() is not None
  step.assign(3)
  assert manager.save() is None            # fewer than 5 steps since the last save
  step.assign(5)
  assert manager.save() is not None
  assert len(_files(tmp_path)) == 2        # max_to_keep=None keeps everything
  step.assign(0)
  assert manager.restore_or_initialize() == manager.latest_checkpoint
  assert step.numpy() == 5


def test_manager_bad_arguments(tmp_path):
  ckpt = tf.train.Checkpoint(v=tf.Variable(1.))
  with pytest.raises(TypeError, match="tf.train.Checkpoint"):
    tf.train.CheckpointManager(tf.Variable(1.), str(tmp_path), 3)
  with pytest.raises(ValueError, match="max_to_keep"):
    tf.train.CheckpointManager(ckpt, str(tmp_path), 0)
  with pytest.raises(ValueError, match="step_counter"):
    tf.train.CheckpointManager(ckpt, str(tmp_path), 3, checkpoint_interval=2)


def test_state_file_round_trip_and_bad_file(tmp_path):
  checkpoint_management.update_checkpoint_state(
      str(tmp_path), str(tmp_path / 'a"b\n'), [str(tmp_path / 'a"b\n')], [1.5], 0.5)
  state = tf.train.get_checkpoint_state(str(tmp_path))
  assert state.model_checkpoint_path == str(tmp_path / 'a"b\n')
  assert state.all_model_checkpoint_timestamps == [1.5]
  assert state.last_preserved_timestamp == 0.5
  (tmp_path / "checkpoint").write_text("model_checkpoint_path: ???\n")
  with pytest.warns(UserWarning, match="cannot parse"):
    assert tf.train.get_checkpoint_state(str(tmp_path)) is None
  assert tf.train.latest_checkpoint(str(tmp_path / "missing")) is None
