"""tf.summary: event files read back with TensorBoard's own reader."""
import os
import struct
import subprocess
import sys
import zlib

import numpy as np
import pytest

import tensorlet as tf

from tensorboard.backend.event_processing import event_accumulator as ea
from tensorboard.backend.event_processing import plugin_event_accumulator as pea
from tensorboard.util import tensor_util


def _read(logdir):
  acc = pea.EventAccumulator(str(logdir), size_guidance={pea.TENSORS: 0})
  acc.Reload()
  return acc


def _decode_png(data):
  """Pixels of an 8-bit, unfiltered PNG (what the writer produces), read independently."""
  assert data[:8] == b"\x89PNG\r\n\x1a\n"
  pos, chunks = 8, {}
  while pos < len(data):
    n = struct.unpack(">I", data[pos:pos + 4])[0]
    kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + n]
    assert struct.unpack(">I", data[pos + 8 + n:pos + 12 + n])[0] == zlib.crc32(kind + body)
    chunks[kind] = chunks.get(kind, b"") + body
    pos += 12 + n
  w, h, depth, color = struct.unpack(">IIBB", chunks[b"IHDR"][:10])
  channels = {0: 1, 4: 2, 2: 3, 6: 4}[color]
  rows = np.frombuffer(zlib.decompress(chunks[b"IDAT"]), np.uint8).reshape(h, -1)
  assert depth == 8 and (rows[:, 0] == 0).all()
  return rows[:, 1:].reshape(h, w, channels)


def _values(acc, tag):
  return [(e.step, tensor_util.make_ndarray(e.tensor_proto)) for e in acc.Tensors(tag)]


def test_scalars_histograms_images_text_read_back(tmp_path):
  writer = tf.summary.create_file_writer(str(tmp_path))
  with writer.as_default():
    for step in range(3):
      assert tf.summary.scalar("loss", 1.0 / (step + 1), step=step).numpy()
    tf.summary.scalar("count", tf.constant(7, tf.int64), step=5, description="how many")
    tf.summary.histogram("weights", np.arange(10.), step=1, buckets=5)
    imgs = np.random.default_rng(0).random((4, 3, 5, 3)).astype(np.float32)
    tf.summary.image("pictures", imgs, step=2, max_outputs=2)
    tf.summary.text("notes", "**hello**", step=4)
  writer.close()
  acc = _read(tmp_path)
  tags = acc.Tags()["tensors"]
  assert set(tags) == {"loss", "count", "weights", "pictures", "notes"}
  assert [(s, float(v)) for s, v in _values(acc, "loss")] == [
      (0, 1.0), (1, np.float32(0.5)), (2, np.float32(1 / 3))]
  assert acc.SummaryMetadata("loss").plugin_data.plugin_name == "scalars"
  (step, v), = _values(acc, "count")
  assert step == 5 and v.dtype == np.float32 and v == 7.0
  assert acc.SummaryMetadata("count").summary_description == "how many"
  (step, h), = _values(acc, "weights")
  assert step == 1 and acc.SummaryMetadata("weights").plugin_data.plugin_name == "histograms"
  np.testing.assert_allclose(h, [[0, 1.8, 2], [1.8, 3.6, 2], [3.6, 5.4, 2], [5.4, 7.2, 2],
                                 [7.2, 9, 2]])
  (step, im), = _values(acc, "pictures")
  assert step == 2 and acc.SummaryMetadata("pictures").plugin_data.plugin_name == "images"
  assert list(im[:2]) == [b"5", b"3"] and len(im) == 4   # width, height, 2 PNGs
  decoded = _decode_png(im[2])
  np.testing.assert_array_equal(decoded, np.clip(imgs[0] * 255.5, 0, 255).astype(np.uint8))
  (step, t), = _values(acc, "notes")
  assert step == 4 and t == b"**hello**"
  assert acc.SummaryMetadata("notes").plugin_data.plugin_name == "text"


def test_legacy_accumulator_sees_the_same_events(tmp_path):
  with tf.summary.create_file_writer(str(tmp_path)).as_default():
    tf.summary.scalar("x", 2.5, step=3)
  acc = ea.EventAccumulator(str(tmp_path))
  acc.Reload()
  (event,) = acc.Tensors("x")
  assert event.step == 3 and tensor_util.make_ndarray(event.tensor_proto) == 2.5
  files = os.listdir(tmp_path)
  assert len(files) == 1 and files[0].startswith("events.out.tfevents.") and \
      files[0].endswith(".v2")


def test_histogram_edge_cases(tmp_path):
  with tf.summary.create_file_writer(str(tmp_path)).as_default():
    tf.summary.histogram("same", [2.0, 2.0, 2.0], step=0, buckets=3)
    tf.summary.histogram("empty", np.zeros([0], np.float32), step=0, buckets=4)
    tf.summary.histogram("none", [1.0, 2.0], step=0, buckets=0)
    tf.summary.histogram("default", np.arange(100), step=0)
  acc = _read(tmp_path)
  np.testing.assert_array_equal(_values(acc, "same")[0][1], [[2, 2, 0], [2, 2, 0], [2, 2, 3]])
  np.testing.assert_array_equal(_values(acc, "empty")[0][1], np.zeros((4, 3)))
  assert _values(acc, "none")[0][1].shape == (0, 3)
  d = _values(acc, "default")[0][1]
  assert d.shape == (30, 3) and d[:, 2].sum() == 100


def test_summaries_inside_tf_function_write_on_every_call(tmp_path):
  writer = tf.summary.create_file_writer(str(tmp_path))
  step = tf.Variable(0, dtype=tf.int64)
  tf.summary.experimental.set_step(step)
  traces = []
  try:
    @tf.function
    def train(x):
      traces.append(1)
      with writer.as_default():
        tf.summary.scalar("a", x, step=step)       # program order: a before b
        tf.summary.scalar("b", x * 2)               # the default step, read at run time
        tf.summary.histogram("h", tf.stack([x, x + 1.0]))
      step.assign_add(1)
      return x
    for i in range(3):
      train(tf.constant(float(i)))
  finally:
    tf.summary.experimental.set_step(None)
  writer.flush()
  assert len(traces) == 1
  acc = _read(tmp_path)
  assert [(s, float(v)) for s, v in _values(acc, "a")] == [(0, 0.0), (1, 1.0), (2, 2.0)]
  assert [(s, float(v)) for s, v in _values(acc, "b")] == [(0, 0.0), (1, 2.0), (2, 4.0)]
  assert [s for s, _ in _values(acc, "h")] == [0, 1, 2]


def test_no_default_writer_is_a_noop_returning_false(tmp_path):
  for result in (tf.summary.scalar("x", 1.0, step=1), tf.summary.text("t", "a", step=1),
                 tf.summary.histogram("h", [1.0], step=1), tf.summary.write("w", 1, step=1),
                 tf.summary.image("i", np.zeros([1, 2, 2, 1]), step=1)):
    assert isinstance(result, tf.Tensor) and result.dtype == tf.bool and not result.numpy()
  assert not tf.summary.should_record_summaries().numpy()
  assert tf.summary.graph(tf.function(lambda: 1).get_concrete_function()) is False

  @tf.function
  def f():
    return tf.summary.scalar("x", 1.0, step=1)
  assert not f().numpy()
  assert os.listdir(tmp_path) == []


def test_record_if_and_noop_writer(tmp_path):
  writer = tf.summary.create_file_writer(str(tmp_path))
  with writer.as_default():
    assert tf.summary.should_record_summaries().numpy()
    with tf.summary.record_if(False):
      assert not tf.summary.scalar("x", 1.0, step=1).numpy()
      assert not tf.summary.should_record_summaries().numpy()
    with tf.summary.record_if(lambda: True):
      assert tf.summary.scalar("x", 2.0, step=2).numpy()

    @tf.function
    def every_other(i):
      with tf.summary.record_if(tf.equal(i % 2, 0)):
        return tf.summary.scalar("y", tf.cast(i, tf.float32), step=i)
    written = [bool(every_other(tf.constant(i, tf.int64)).numpy()) for i in range(4)]
  assert written == [True, False, True, False]
  acc = _read(tmp_path)
  assert [s for s, _ in _values(acc, "x")] == [2]
  assert [s for s, _ in _values(acc, "y")] == [0, 2]
  with tf.summary.create_noop_writer().as_default():
    assert not tf.summary.scalar("x", 1.0, step=1).numpy()


def test_writer_defaults_steps_and_name_scopes(tmp_path):
  writer = tf.summary.create_file_writer(str(tmp_path / "logs"))
  assert tf.summary.experimental.get_step() is None
  with writer.as_default(step=7):
    assert tf.summary.experimental.get_step() == 7
    with tf.name_scope("train"):
      tf.summary.scalar("loss", 1.0)
  assert tf.summary.experimental.get_step() is None
  with writer:                                  # the writer is also a context manager
    tf.summary.scalar("plain", 1.0, step=1)
  writer.set_as_default()
  try:
    tf.summary.scalar("set_as_default", 3.0, step=2)
    tf.summary.flush()
  finally:
    from tensorlet.summary._writer import state
    state.writer = None
  acc = _read(tmp_path / "logs")
  assert acc.Tags()["tensors"] == ["train/loss", "plain", "set_as_default"]
  assert _values(acc, "train/loss")[0][0] == 7
  writer.close()
  with pytest.raises(RuntimeError, match="already closed"):
    writer.as_default()


def test_bad_input_raises_tf_errors(tmp_path):
  with tf.summary.create_file_writer(str(tmp_path)).as_default():
    with pytest.raises(ValueError, match="No step set"):
      tf.summary.scalar("x", 1.0)
    with pytest.raises(ValueError, match="Expected scalar shape"):
      tf.summary.scalar("x", [1.0, 2.0], step=1)
    with pytest.raises(TypeError, match="string"):
      tf.summary.scalar("x", "a", step=1)
    with pytest.raises(TypeError, match="Cannot convert 1.5"):
      tf.summary.scalar("x", 1.0, step=1.5)
    with pytest.raises(ValueError, match="requested dtype int64"):
      tf.summary.scalar("x", 1.0, step=tf.constant(1))
    with pytest.raises(TypeError, match="must be of type tf.string"):
      tf.summary.text("t", 3, step=1)
    with pytest.raises(ValueError, match="must have rank 4"):
      tf.summary.image("i", np.zeros([4, 5, 3]), step=1)
    with pytest.raises(ValueError, match="channels"):
      tf.summary.image("i", np.zeros([1, 4, 5, 5]), step=1)
    with pytest.raises(TypeError, match="buckets"):
      tf.summary.histogram("h", [1.0], step=1, buckets=2.5)
  with pytest.raises(TypeError, match="Cannot convert 5"):
    tf.summary.create_file_writer(5)


def test_closed_writer_inside_function_is_failed_precondition(tmp_path):
  writer = tf.summary.create_file_writer(str(tmp_path))

  @tf.function
  def f():
    with writer.as_default():
      return tf.summary.scalar("x", 1.0, step=1)
  f()
  writer.close()
  with pytest.raises(tf.errors.FailedPreconditionError, match="closed"):
    f()


def test_writes_are_buffered_until_flush(tmp_path):
  writer = tf.summary.create_file_writer(str(tmp_path), max_queue=1000)
  (name,) = os.listdir(tmp_path)
  size = os.path.getsize(tmp_path / name)     # the file_version event
  with writer.as_default():
    for i in range(20):
      tf.summary.scalar("x", float(i), step=i)
    assert os.path.getsize(tmp_path / name) == size
    writer.flush()
    assert os.path.getsize(tmp_path / name) > size
  writer.close()
  assert len(_values(_read(tmp_path), "x")) == 20


def test_generic_write_with_metadata(tmp_path):
  from tensorboard.compat.proto import summary_pb2
  md = summary_pb2.SummaryMetadata(display_name="custom")
  with tf.summary.create_file_writer(str(tmp_path)).as_default():
    assert tf.summary.write("raw", tf.constant([[1, 2], [3, 4]]), step=3, metadata=md).numpy()
    tf.summary.write("lazy", lambda: tf.constant("v"), step=4)
  acc = _read(tmp_path)
  (step, v), = _values(acc, "raw")
  assert step == 3 and v.dtype == np.int32 and v.tolist() == [[1, 2], [3, 4]]
  assert acc.SummaryMetadata("raw").display_name == "custom"
  assert _values(acc, "lazy")[0][1] == b"v"


def test_summary_scope_and_flush_inside_tf_function(tmp_path):
  with tf.name_scope("outer"):
    with tf.summary.experimental.summary_scope("foo") as (tag, scope):
      assert (tag, scope) == ("outer/foo", "outer/foo/")
  writer = tf.summary.create_file_writer(str(tmp_path), max_queue=1000)
  (name,) = os.listdir(tmp_path)
  size = os.path.getsize(tmp_path / name)

  @tf.function
  def log(x, flush):
    tf.summary.scalar("x", x, step=1)
    if flush:
      tf.summary.flush()
    return x
  with writer.as_default():
    log(tf.constant(1.0), False)
    assert os.path.getsize(tmp_path / name) == size
    log(tf.constant(1.0), True)
    assert os.path.getsize(tmp_path / name) > size
    size = os.path.getsize(tmp_path / name)

  @tf.function
  def log_in_scope(x):
    with writer.as_default():   # leaving as_default flushes, on every call
      tf.summary.scalar("y", x, step=2)
    return x
  for i in range(2):
    log_in_scope(tf.constant(1.0))
    assert os.path.getsize(tmp_path / name) > size
    size = os.path.getsize(tmp_path / name)


def test_pending_events_are_written_at_exit(tmp_path):
  code = ("import tensorlet as tf\n"
          f"w = tf.summary.create_file_writer({str(tmp_path)!r}, max_queue=1000)\n"
          "with tf.summary.record_if(True):\n"
          "  w.set_as_default()\n"
          "  tf.summary.scalar('late', 4.0, step=9)\n")
  root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
  subprocess.run([sys.executable, "-c", code], check=True, cwd=root)
  assert [(s, float(v)) for s, v in _values(_read(tmp_path), "late")] == [(9, 4.0)]
