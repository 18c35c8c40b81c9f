"""Iterator.get_next_as_optional and tf.experimental.Optional, iterator
checkpoints with tf.train.Checkpoint, map(num_parallel_calls) on threads and
prefetch in a producer thread."""
import threading
import time

import numpy as np
import pytest

import tensorlet as tf
from concurrency import Overlap
from tensorlet.data.optional import OptionalSpec


def _np(ds):
  return [np.asarray(x).tolist() for x in ds.as_numpy_iterator()]


# ------------------------------------------------------------------ Optional

def test_optional_from_value_and_empty():
  o = tf.experimental.Optional.from_value((1, tf.constant([2.0])))
  assert o.element_spec == (tf.TensorSpec([], tf.int32), tf.TensorSpec([1], tf.float32))
  assert o.has_value().dtype == tf.bool and bool(o.has_value())
  a, b = o.get_value()
  assert int(a) == 1 and b.numpy().tolist() == [2.0]
  e = tf.experimental.Optional.empty(tf.TensorSpec([], tf.int32))
  assert not bool(e.has_value())
  with pytest.raises(tf.errors.InvalidArgumentError, match="does not have a value"):
    e.get_value()
  assert o._type_spec == OptionalSpec(o.element_spec)
  assert tf.data.experimental.Optional is tf.experimental.Optional


def test_get_next_as_optional_eager_and_in_tf_function():
  it = iter(tf.data.Dataset.range(2))
  a = it.get_next_as_optional()
  assert bool(a.has_value()) and int(a.get_value()) == 0
  it.get_next_as_optional()
  z = it.get_next_as_optional()
  assert not bool(z.has_value()) and z.element_spec == tf.TensorSpec([], tf.int64)

  @tf.function
  def next_or_minus_one(iterator):
    o = iterator.get_next_as_optional()
    if o.has_value():
      return o.get_value()
    return tf.constant(-1, tf.int64)
  it = iter(tf.data.Dataset.range(2))
  assert [int(next_or_minus_one(it)) for _ in range(3)] == [0, 1, -1]

  @tf.function
  def plus_one(opt):
    return opt.get_value() + 1
  assert int(plus_one(tf.experimental.Optional.from_value(tf.constant(4)))) == 5
  # The trace type: a second Optional of the same spec reuses the trace.
  assert int(plus_one(tf.experimental.Optional.from_value(tf.constant(9)))) == 10
  assert plus_one.experimental_get_tracing_count() == 1


# ---------------------------------------------------------------- checkpoints

def _ckpt_roundtrip(make, tmp_path, first, after):
  it = iter(make())
  seen = [np.asarray(next(it)).tolist() for _ in range(first)]
  ckpt = tf.train.Checkpoint(iterator=it)
  path = ckpt.save(str(tmp_path / "ckpt"))
  expected = [np.asarray(next(it)).tolist() for _ in range(after)]
  it2 = iter(make())
  tf.train.Checkpoint(iterator=it2).restore(path)
  got = [np.asarray(next(it2)).tolist() for _ in range(after)]
  assert got == expected
  ckpt.restore(path)
  assert [np.asarray(next(it)).tolist() for _ in range(after)] == expected
  return seen, expected


def test_checkpoint_resumes_at_the_same_element(tmp_path):
  _ckpt_roundtrip(lambda: tf.data.Dataset.range(20).map(lambda x: x * 2).batch(3),
                  tmp_path, 2, 3)


def test_checkpoint_after_seeded_shuffle_and_repeat(tmp_path):
  def make():
    return tf.data.Dataset.range(10).shuffle(10, seed=3).repeat(3)
  seen, expected = _ckpt_roundtrip(make, tmp_path, 13, 10)
  full = _np(make())
  assert seen + expected == full[:23]


def test_checkpoint_after_unseeded_shuffle_same_dataset(tmp_path):
  ds = tf.data.Dataset.range(30).shuffle(30)
  it = iter(ds)
  [next(it) for _ in range(5)]
  path = tf.train.Checkpoint(iterator=it).save(str(tmp_path / "c"))
  expected = [int(next(it)) for _ in range(10)]
  it2 = iter(ds)
  tf.train.Checkpoint(iterator=it2).restore(path)
  assert [int(next(it2)) for _ in range(10)] == expected


def test_checkpoint_state_mismatch_raises(tmp_path):
  it = iter(tf.data.Dataset.range(10))
  [next(it) for _ in range(8)]
  path = tf.train.Checkpoint(iterator=it).save(str(tmp_path / "c"))
  short = iter(tf.data.Dataset.range(3))
  with pytest.raises(tf.errors.InvalidArgumentError, match="only 3"):
    tf.train.Checkpoint(iterator=short).restore(path)


def test_checkpoint_counts_elements_taken_inside_tf_function(tmp_path):
  it = iter(tf.data.Dataset.range(10))

  @tf.function
  def step(iterator):
    return next(iterator)
  assert [int(step(it)) for _ in range(4)] == [0, 1, 2, 3]
  path = tf.train.Checkpoint(iterator=it).save(str(tmp_path / "c"))
  it2 = iter(tf.data.Dataset.range(10))
  tf.train.Checkpoint(iterator=it2).restore(path)
  assert int(next(it2)) == 4


# -------------------------------------------------------------------- threads

def test_parallel_map_runs_concurrently_and_keeps_order():
  work = Overlap(0.02)
  ds = tf.data.Dataset.range(16).map(lambda x: tf.py_function(lambda v: work(v, 2), [x],
                                                                tf.int64),
                                     num_parallel_calls=4)
  assert repr(ds).startswith("<_ParallelMapDataset")
  assert ds.element_spec.dtype == tf.int64
  assert int(ds.cardinality()) == 16
  assert _np(ds) == [2 * i for i in range(16)]
  assert work.peak > 1


def test_parallel_map_nondeterministic_gives_every_element():
  def work(x):
    time.sleep(0.001 * (5 - int(x) % 5))
    return x
  ds = tf.data.Dataset.range(20).map(lambda x: tf.py_function(work, [x], tf.int64),
                                     num_parallel_calls=tf.data.AUTOTUNE, deterministic=False)
  assert sorted(_np(ds)) == list(range(20))
  with pytest.raises(tf.errors.InvalidArgumentError, match="num_parallel_calls"):
    tf.data.Dataset.range(3).map(lambda x: x, num_parallel_calls=0)


def test_parallel_map_error_reaches_the_consumer_in_order():
  ds = tf.data.Dataset.from_tensor_slices([1.0, 2.0, 0.0, 4.0]).map(
      lambda x: tf.debugging.check_numerics(1 / x, "inf"), num_parallel_calls=3)
  it = iter(ds)
  assert float(next(it)) == 1.0 and float(next(it)) == 0.5
  with pytest.raises(tf.errors.InvalidArgumentError):
    next(it)


def test_prefetch_overlaps_producer_and_consumer():
  produced = []

  def gen():
    for i in range(5):
      produced.append(i)
      yield i
  ds = tf.data.Dataset.from_generator(gen, output_signature=tf.TensorSpec([], tf.int64))
  it = iter(ds.prefetch(3))
  assert int(next(it)) == 0
  deadline = time.time() + 2
  while len(produced) < 4 and time.time() < deadline:
    time.sleep(0.005)
  assert len(produced) >= 4  # produced ahead while the consumer held one element
  assert [int(x) for x in it] == [1, 2, 3, 4]
  assert _np(tf.data.Dataset.range(50).prefetch(tf.data.AUTOTUNE)) == list(range(50))
  assert int(tf.data.Dataset.range(50).prefetch(2).cardinality()) == 50


def test_prefetch_passes_errors_and_stops_when_abandoned():
  def gen():
    yield 1
    raise ValueError("boom")
  ds = tf.data.Dataset.from_generator(gen, output_signature=tf.TensorSpec([], tf.int64))
  it = iter(ds.prefetch(2))
  assert int(next(it)) == 1
  with pytest.raises(tf.errors.UnknownError, match="boom"):
    next(it)
  before = threading.active_count()
  for _ in range(5):
    it = iter(tf.data.Dataset.range(1000).prefetch(1))
    next(it)
    del it
  deadline = time.time() + 2
  while threading.active_count() > before + 1 and time.time() < deadline:
    time.sleep(0.01)
  assert threading.active_count() <= before + 1
