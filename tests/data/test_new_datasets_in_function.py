"""Every new source and transformation built and iterated inside tf.function
gives what it gives eagerly (the graph instantiates the dataset at run time)."""
import numpy as np
import pytest

import tensorlet as tf


def _pipelines(tmp):
  d = tf.data.Dataset.range(12)
  return {
      "interleave": lambda: d.interleave(lambda x: tf.data.Dataset.range(x % 4),
                                         cycle_length=3, block_length=2),
      "window": lambda: d.window(3, shift=2, drop_remainder=True).flat_map(
          lambda w: w.batch(3)).map(tf.reduce_sum),
      "group_by_window": lambda: d.group_by_window(
          lambda x: x % 3, lambda k, w: w.batch(3), window_size=3).map(tf.reduce_sum),
      "bucket": lambda: d.map(lambda x: tf.range(x % 5)).bucket_by_sequence_length(
          lambda x: tf.shape(x)[0], [2, 4], [2, 2, 2]).map(tf.reduce_sum),
      "scan": lambda: d.scan(np.int64(0), lambda s, x: (s + x, s)),
      "unique": lambda: d.map(lambda x: x % 5).unique(),
      "ignore_errors": lambda: d.map(lambda x: tf.debugging.check_numerics(
          1.0 / tf.cast(x % 3, tf.float32), "z")).ignore_errors().map(
              lambda x: tf.cast(x * 2, tf.int64)),
      "rejection_resample": lambda: d.rejection_resample(
          lambda x: tf.cast(x % 2, tf.int32), [0.5, 0.5], initial_dist=[0.5, 0.5],
          seed=1).map(lambda c, x: x),
      "counter": lambda: tf.data.Dataset.counter(3, 2).take(5),
      "random": lambda: tf.data.Dataset.random(seed=3).take(4).map(lambda x: x % 7),
      "sample": lambda: tf.data.Dataset.sample_from_datasets(
          [d, tf.data.Dataset.range(100, 105)], seed=2),
      "choose": lambda: tf.data.Dataset.choose_from_datasets(
          [d, tf.data.Dataset.range(100, 105)],
          tf.data.Dataset.from_tensor_slices(np.array([1, 0, 1, 1], np.int64))),
      "parallel_map": lambda: d.map(lambda x: x * 3, num_parallel_calls=4),
      "prefetch": lambda: d.prefetch(2).map(lambda x: x + 1),
      "options": lambda: d.with_options(tf.data.Options()),
      "snapshot": lambda: d.snapshot(str(tmp / "snap")),
  }


@pytest.mark.parametrize("name", ["interleave", "window", "group_by_window", "bucket", "scan",
                                  "unique", "ignore_errors", "rejection_resample",
                                  "counter", "random", "sample", "choose", "parallel_map",
                                  "prefetch", "options", "snapshot"])
def test_same_elements_eagerly_and_in_tf_function(name, tmp_path):
  make = _pipelines(tmp_path)[name]
  eager = [int(x) for x in make()]

  @tf.function
  def collect():
    ta = tf.TensorArray(tf.int64, size=0, dynamic_size=True)
    i = 0
    for x in make():
      ta = ta.write(i, tf.cast(x, tf.int64))
      i += 1
    return ta.stack()
  assert collect().numpy().tolist() == eager
  assert len(eager) > 0
