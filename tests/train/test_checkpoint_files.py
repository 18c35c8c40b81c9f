"""Checkpoint files: no pickle, atomic writes, corruption reported as DataLossError."""
import hashlib
import io
import json
import os
import zipfile

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
  assert index["format"] == "tensorlet-checkpoint" and index["version"] == _format.VERSION
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


def _rewrite_index(path, meta, checksum=True):
  if checksum:
    meta["checksum"] = _format._index_checksum(meta)
  with open(path + ".index", "w") as f:
    json.dump(meta, f)


def test_edited_object_graph_is_data_loss(tmp_path):
  # The object graph is outside the data file's checksum; the index has its own.
  ckpt, path = _write(tmp_path)
  meta = json.load(open(path + ".index"))
  meta["nodes"][0]["children"] = {}
  _rewrite_index(path, meta, checksum=False)
  with pytest.raises(tf.errors.DataLossError, match="index checksum"):
    ckpt.read(path)


def test_version_1_index_without_checksum_still_reads(tmp_path):
  ckpt, path = _write(tmp_path)
  meta = json.load(open(path + ".index"))
  del meta["checksum"]
  meta["version"] = 1
  _rewrite_index(path, meta, checksum=False)
  fresh = tf.train.Checkpoint(a=tf.Variable(tf.zeros([100])), s=tf.Variable([b"", b""]))
  fresh.read(path).assert_consumed()
  np.testing.assert_array_equal(fresh.a.numpy(), np.arange(100))


def test_deeply_nested_index_is_data_loss(tmp_path):
  ckpt, path = _write(tmp_path)
  with open(path + ".index", "w") as f:
    f.write("[" * 100_000 + "]" * 100_000)
  with pytest.raises(tf.errors.DataLossError, match="nested too deeply"):
    ckpt.read(path)


def test_huge_index_is_refused_before_reading(tmp_path, monkeypatch):
  ckpt, path = _write(tmp_path)
  with open(path + ".index", "r+b") as f:
    f.truncate(_format.MAX_INDEX_BYTES + 1)   # sparse: no disk used
  reads = []
  real_open = open
  monkeypatch.setattr("builtins.open", lambda p, *a, **k: reads.append(p) or
                      real_open(p, *a, **k))
  with pytest.raises(tf.errors.DataLossError, match="too large"):
    ckpt.read(path)
  assert path + ".index" not in reads


def _craft_data(path, meta, members, compression=zipfile.ZIP_STORED):
  buf = io.BytesIO()
  with zipfile.ZipFile(buf, "w", compression=compression) as z:
    for name, raw in members.items():
      z.writestr(name, raw)
  payload = buf.getvalue()
  with open(path + ".data-00000-of-00001", "wb") as f:
    f.write(payload)
  meta["data"] = {"size": len(payload), "sha256": hashlib.sha256(payload).hexdigest()}
  _rewrite_index(path, meta)


def _npy(shape, descr="<f4", body=b""):
  hdr = io.BytesIO()
  np.lib.format.write_array_header_1_0(hdr, {"descr": descr, "fortran_order": False,
                                             "shape": shape})
  return hdr.getvalue() + body


@pytest.mark.parametrize("declared", ["header_only", "index_and_header"])
def test_gigantic_declared_shape_is_refused_before_allocating(tmp_path, declared):
  ckpt = tf.train.Checkpoint(a=tf.Variable(np.arange(4, dtype=np.float32)))
  path = ckpt.write(str(tmp_path / "c"))
  meta = json.load(open(path + ".index"))
  key = next(iter(meta["tensors"]))
  if declared == "index_and_header":
    meta["tensors"][key]["shape"] = [2 ** 40]
  _craft_data(path, meta, {meta["tensors"][key]["entry"] + ".npy":
                           _npy((2 ** 40,), body=b"\0" * 16)})
  with pytest.raises(tf.errors.DataLossError):
    ckpt.read(path)


def test_compressed_member_is_refused(tmp_path):
  # A zip bomb needs compression; tensorlet writes stored members only.
  ckpt = tf.train.Checkpoint(a=tf.Variable(np.arange(4, dtype=np.float32)))
  path = ckpt.write(str(tmp_path / "c"))
  meta = json.load(open(path + ".index"))
  entry = next(iter(meta["tensors"].values()))["entry"]
  _craft_data(path, meta, {entry + ".npy": _npy((4,), body=b"\0" * 16)},
              compression=zipfile.ZIP_DEFLATED)
  with pytest.raises(tf.errors.DataLossError, match="compressed"):
    ckpt.read(path)


def test_old_data_is_kept_until_the_new_index_is_in_place(tmp_path):
  # What a kill between the data and index replaces leaves: new data, old index
  # and the old data as `.prev`. The old checkpoint reads; the next save cleans up.
  ckpt, path = _write(tmp_path)
  data = path + ".data-00000-of-00001"
  os.link(data, data + ".prev")
  ckpt.a.assign(tf.zeros([100]))
  payload_new = tmp_path / "other"
  tf.train.Checkpoint(a=tf.Variable(tf.zeros([100])),
                      s=tf.Variable([b"q", b"r"])).write(str(payload_new))
  os.replace(str(payload_new) + ".data-00000-of-00001", data + ".new")
  os.replace(data + ".new", data)   # the old inode lives on as `.prev`
  fresh = tf.train.Checkpoint(a=tf.Variable(tf.zeros([100])), s=tf.Variable([b"", b""]))
  fresh.read(path).assert_consumed()
  np.testing.assert_array_equal(fresh.a.numpy(), np.arange(100))
  ckpt.write(path)
  assert sorted(n for n in os.listdir(tmp_path) if n.startswith("c.")) == [
      "c.data-00000-of-00001", "c.index"]


def test_temporaries_of_a_killed_save_are_removed_by_the_next(tmp_path):
  ckpt, path = _write(tmp_path)
  for name in (".tmp-c.index-x1", ".tmp-c.data-00000-of-00001-x2"):
    (tmp_path / name).write_bytes(b"partial")
  ckpt.write(path)
  assert sorted(os.listdir(tmp_path)) == ["c.data-00000-of-00001", "c.index"]
