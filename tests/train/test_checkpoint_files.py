"""Checkpoint files: no pickle, atomic writes, corruption reported as DataLossError."""
import json
import os

import numpy as np
import pytest

import tensorlet as tf
from tensorlet.train import _format


def _write(tmp_path):
  ckpt = tf.train.Checkpoint(a=tf.Variable(np.arange(100, dtype=np.float32)),
                             s=tf.Variable(np.array([b"x", b"yz"])))
  return ckpt, ckpt.write(str(tmp_path / "c"))


def test_files_are_json_and_npz_without_pickle(tmp_path):
  _, path = _write(tmp_path)
  assert sorted(os.listdir(tmp_path)) == ["c.data-00000-of-00001", "c.index"]
  with open(path + ".index") as f:
    index = json.load(f)
  assert index["format"] == "tensorlet-checkpoint" and index["version"] == 1
  with np.load(path + ".data-00000-of-00001", allow_pickle=False) as npz:
    arrays = {k: npz[k] for k in npz.files}   # would raise on any pickled (object) array
  assert all(a.dtype != object for a in arrays.values())


def test_no_half_written_file_under_the_final_name(tmp_path, monkeypatch):
  ckpt, path = _write(tmp_path)
  before = {n: open(tmp_path / n, "rb").read() for n in os.listdir(tmp_path)}
  ckpt.a.assign(tf.zeros([100]))

  def crash(src, dst):
    raise OSError("disk full")
  monkeypatch.setattr(os, "replace", crash)
  with pytest.raises(OSError, match="disk full"):
    ckpt.write(path)
  monkeypatch.undo()
  # The old checkpoint is intact and no temporary file is left behind.
  assert {n: open(tmp_path / n, "rb").read() for n in os.listdir(tmp_path)} == before
  fresh = tf.train.Checkpoint(a=tf.Variable(tf.zeros([100])), s=tf.Variable([b"", b""]))
  fresh.read(path).assert_consumed()
  np.testing.assert_array_equal(fresh.a.numpy(), np.arange(100))


def test_save_failure_does_not_advance_the_counter(tmp_path, monkeypatch):
  ckpt = tf.train.Checkpoint(a=tf.Variable(1.))
  monkeypatch.setattr(_format, "atomic_write", lambda *a: (_ for _ in ()).throw(OSError("x")))
  with pytest.raises(OSError):
    ckpt.save(str(tmp_path / "ckpt"))
  monkeypatch.undo()
  assert ckpt.save(str(tmp_path / "ckpt")).endswith("ckpt-1")


@pytest.mark.parametrize("damage", ["truncate", "flip", "garbage_index", "wrong_format",
                                    "bad_node", "bad_shape"])
def test_damaged_checkpoints_raise_data_loss(tmp_path, damage):
  ckpt, path = _write(tmp_path)
  data, index = path + ".data-00000-of-00001", path + ".index"
  raw = open(data, "rb").read()
  meta = json.load(open(index))
  if damage == "truncate":
    open(data, "wb").write(raw[:len(raw) // 2])
  elif damage == "flip":
    open(data, "wb").write(raw[:200] + bytes([raw[200] ^ 1]) + raw[201:])
  elif damage == "garbage_index":
    open(index, "wb").write(b"\x00\x01 not json")
  elif damage == "wrong_format":
    meta["format"] = "pickle"
    json.dump(meta, open(index, "w"))
  elif damage == "bad_node":
    meta["nodes"][0]["children"]["a"] = 99
    json.dump(meta, open(index, "w"))
  else:
    next(iter(meta["tensors"].values()))["shape"] = [7]
    json.dump(meta, open(index, "w"))
  before = ckpt.a.numpy().copy()
  with pytest.raises(tf.errors.DataLossError):
    ckpt.read(path)
  np.testing.assert_array_equal(ckpt.a.numpy(), before)


def test_newer_format_version_is_invalid_argument(tmp_path):
  ckpt, path = _write(tmp_path)
  meta = json.load(open(path + ".index"))
  meta["version"] = 99
  json.dump(meta, open(path + ".index", "w"))
  with pytest.raises(tf.errors.InvalidArgumentError, match="upgrade tensorlet"):
    ckpt.read(path)


def test_non_string_dict_keys_are_value_errors(tmp_path):
  with pytest.raises(ValueError, match="not a string"):
    tf.train.Checkpoint(d={1: tf.Variable(1.)}).write(str(tmp_path / "c"))
