"""interleave, window, group_by_window, bucket_by_sequence_length: values
and order (as TF 2.21 gives them), element_spec, cardinality, inside
tf.function, TF's errors."""
import numpy as np
import pytest

import tensorlet as tf
from concurrency import Overlap

I64 = tf.TensorSpec([], tf.int64)


def _np(ds):
  return [np.asarray(x).tolist() for x in ds.as_numpy_iterator()]


def _ranges(x):
  return tf.data.Dataset.range(x).map(lambda y: x * 10 + y)


# ---------------------------------------------------------------- interleave

def test_interleave_order_matches_tensorflow():
  d = tf.data.Dataset.range(1, 6)
  ds = d.interleave(_ranges, cycle_length=2, block_length=2)
  assert repr(ds).startswith("<_InterleaveDataset")
  assert ds.element_spec == I64 and int(ds.cardinality()) == -2
  assert _np(ds) == [10, 20, 21, 30, 31, 32, 40, 41, 50, 51, 42, 43, 52, 53, 54]
  assert _np(d.interleave(_ranges, cycle_length=3, block_length=1)) == \
      [10, 20, 30, 21, 31, 40, 32, 41, 50, 42, 51, 43, 52, 53, 54]
  par = d.interleave(_ranges, cycle_length=3, block_length=2, num_parallel_calls=2)
  assert repr(par).startswith("<_ParallelInterleaveDataset")
  assert _np(par) == [10, 20, 21, 30, 31, 40, 41, 32, 42, 43, 50, 51, 52, 53, 54]
  assert sorted(_np(d.interleave(_ranges))) == sorted(_np(d.flat_map(_ranges)))


def test_interleave_of_tuples_and_in_tf_function():
  d = tf.data.Dataset.from_tensor_slices(([1, 2], [10.0, 20.0]))
  ds = d.interleave(lambda a, b: tf.data.Dataset.from_tensors((a, b)).repeat(2),
                    cycle_length=2)
  assert ds.element_spec == (tf.TensorSpec([], tf.int32), tf.TensorSpec([], tf.float32))
  assert [(int(a), float(b)) for a, b in ds] == [(1, 10.0), (2, 20.0), (1, 10.0), (2, 20.0)]

  @tf.function
  def total():
    s = tf.constant(0, tf.int64)
    for x in tf.data.Dataset.range(1, 4).interleave(_ranges, cycle_length=2):
      s += x
    return s
  assert int(total()) == sum([10, 20, 21, 30, 31, 32])


def test_interleave_errors():
  d = tf.data.Dataset.range(3)
  with pytest.raises(TypeError, match="must return a `Dataset`"):
    d.interleave(lambda x: x)
  with pytest.raises(tf.errors.InvalidArgumentError, match="cycle_length"):
    d.interleave(_ranges, cycle_length=0)
  with pytest.raises(tf.errors.InvalidArgumentError, match="block_length"):
    d.interleave(_ranges, block_length=0)
  with pytest.raises(tf.errors.InvalidArgumentError, match="num_parallel_calls"):
    d.interleave(_ranges, cycle_length=2, num_parallel_calls=0)


# -------------------------------------------------------------------- window

def test_window_values_spec_and_cardinality():
  d = tf.data.Dataset.range(10)
  w = d.window(3, shift=2)
  assert w.element_spec == tf.data.DatasetSpec(I64)
  assert int(w.cardinality()) == 5
  wins = [_np(x) for x in w]
  assert wins == [[0, 1, 2], [2, 3, 4], [4, 5, 6], [6, 7, 8], [8, 9]]
  w = d.window(3, shift=2, stride=2, drop_remainder=True)
  assert int(w.cardinality()) == 3
  assert [_np(x) for x in w] == [[0, 2, 4], [2, 4, 6], [4, 6, 8]]
  assert [_np(x) for x in d.window(4)] == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
  assert [_np(x) for x in d.window(2, shift=4)] == [[0, 1], [4, 5], [8, 9]]
  assert int(d.window(4).cardinality()) == 3
  assert int(d.repeat().window(2).cardinality()) == tf.data.INFINITE_CARDINALITY


def test_window_of_structures_gives_a_structure_of_datasets():
  d = tf.data.Dataset.from_tensor_slices(({"a": [1, 2, 3]}, [4, 5, 6])).window(2)
  spec = tf.data.DatasetSpec(tf.TensorSpec([], tf.int32))
  assert d.element_spec == ({"a": spec}, spec)
  got = [(_np(a["a"]), _np(b)) for a, b in d]
  assert got == [([1, 2], [4, 5]), ([3], [6])]
  inner = next(iter(d))[1]
  assert isinstance(inner, tf.data.Dataset) and int(inner.cardinality()) == 2


def test_window_flat_map_and_in_tf_function():
  d = tf.data.Dataset.range(7)
  batched = d.window(3, shift=1, drop_remainder=True).flat_map(lambda w: w.batch(3))
  assert batched.element_spec == tf.TensorSpec([None], tf.int64)
  assert _np(batched) == [[i, i + 1, i + 2] for i in range(5)]
  zipped = tf.data.Dataset.from_tensor_slices(([1, 2, 3, 4], [5, 6, 7, 8])).window(2).flat_map(
      lambda a, b: tf.data.Dataset.zip((a.batch(2), b.batch(2))))
  assert [(a.tolist(), b.tolist()) for a, b in zipped.as_numpy_iterator()] == \
      [([1, 2], [5, 6]), ([3, 4], [7, 8])]

  @tf.function
  def sums():
    out = tf.constant(0, tf.int64)
    for b in tf.data.Dataset.range(6).window(2).flat_map(lambda w: w.batch(2)):
      out += b[0] * b[1]
    return out
  assert int(sums()) == 0 * 1 + 2 * 3 + 4 * 5


def test_window_errors():
  d = tf.data.Dataset.range(3)
  for kw, msg in (({"size": 0}, "size"), ({"size": 2, "shift": 0}, "shift"),
                  ({"size": 2, "stride": 0}, "stride")):
    with pytest.raises(tf.errors.InvalidArgumentError, match=f"Window {msg}"):
      d.window(**kw)


# ----------------------------------------------------------- group_by_window

def test_group_by_window_order_and_flush():
  d = tf.data.Dataset.range(10)
  g = d.group_by_window(lambda x: x % 3, lambda k, w: w.batch(2), window_size=2)
  assert g.element_spec == tf.TensorSpec([None], tf.int64)
  assert int(g.cardinality()) == -2
  # As TF 2.21: full windows when they fill, the rest by key at the end.
  assert _np(g) == [[0, 3], [1, 4], [2, 5], [6, 9], [7], [8]]
  g = d.group_by_window(lambda x: x % 3, lambda k, w: w.batch(4).map(lambda b: (k, b)),
                        window_size_func=lambda k: k + 1)
  assert g.element_spec == (I64, tf.TensorSpec([None], tf.int64))
  assert [(int(k), b.tolist()) for k, b in g.as_numpy_iterator()] == \
      [(0, [0]), (0, [3]), (1, [1, 4]), (0, [6]), (2, [2, 5, 8]), (0, [9]), (1, [7])]
  applied = d.apply(tf.data.experimental.group_by_window(
      lambda x: x % 2, lambda k, w: w.batch(5), window_size=5))
  assert _np(applied) == [[0, 2, 4, 6, 8], [1, 3, 5, 7, 9]]


def test_group_by_window_errors():
  d = tf.data.Dataset.range(10)
  with pytest.raises(ValueError, match="window_size"):
    d.group_by_window(lambda x: x % 3, lambda k, w: w.batch(2))
  with pytest.raises(ValueError, match="int64"):
    d.group_by_window(lambda x: tf.cast(x % 3, tf.int32), lambda k, w: w.batch(2), 2)
  with pytest.raises(TypeError, match="Dataset"):
    d.group_by_window(lambda x: x % 3, lambda k, w: k, 2)
  with pytest.raises(tf.errors.InvalidArgumentError, match="greater than zero"):
    list(d.group_by_window(lambda x: x % 3, lambda k, w: w.batch(2), 0))


# ------------------------------------------------- bucket_by_sequence_length

def _lengths():
  for n in [3, 1, 5, 2, 7, 4, 6, 2]:
    yield np.arange(n)


def _seq_ds():
  return tf.data.Dataset.from_generator(_lengths,
                                        output_signature=tf.TensorSpec([None], tf.int64))


def test_bucket_by_sequence_length_matches_tensorflow():
  b = _seq_ds().bucket_by_sequence_length(lambda x: tf.shape(x)[0], [3, 5], [2, 2, 2])
  assert b.element_spec == tf.TensorSpec([None, None], tf.int64)
  assert _np(b) == [[[0, 0], [0, 1]], [[0, 1, 2, 3, 4, 0, 0], [0, 1, 2, 3, 4, 5, 6]],
                    [[0, 1, 2, 0], [0, 1, 2, 3]], [[0, 1]], [[0, 1, 2, 3, 4, 5]]]
  b = _seq_ds().bucket_by_sequence_length(lambda x: tf.shape(x)[0], [3, 9], [2, 2, 2],
                                          pad_to_bucket_boundary=True)
  assert _np(b) == [[[0, 1, 2, 0, 0, 0, 0, 0], [0, 1, 2, 3, 4, 0, 0, 0]], [[0, 0], [0, 1]],
                    [[0, 1, 2, 3, 4, 5, 6, 0], [0, 1, 2, 3, 0, 0, 0, 0]], [[0, 1]],
                    [[0, 1, 2, 3, 4, 5, 0, 0]]]
  dropped = _seq_ds().bucket_by_sequence_length(lambda x: tf.shape(x)[0], [3, 5], [2, 2, 2],
                                                drop_remainder=True, padding_values=np.int64(-1))
  assert _np(dropped) == [[[0, -1], [0, 1]], [[0, 1, 2, 3, 4, -1, -1], [0, 1, 2, 3, 4, 5, 6]],
                          [[0, 1, 2, -1], [0, 1, 2, 3]]]


def test_bucket_by_sequence_length_errors():
  with pytest.raises(ValueError, match="bucket_batch_sizes"):
    _seq_ds().bucket_by_sequence_length(lambda x: tf.shape(x)[0], [3, 5], [2, 2])
  b = _seq_ds().bucket_by_sequence_length(lambda x: tf.shape(x)[0], [3, 5], [2, 2, 2],
                                          pad_to_bucket_boundary=True)
  with pytest.raises(tf.errors.InvalidArgumentError, match="pad_to_bucket_boundary"):
    list(b)


def test_parallel_interleave_reads_inputs_concurrently():
  slow = Overlap(0.01)

  def make(x):
    return tf.data.Dataset.range(3).map(lambda y: tf.py_function(slow, [x * 10 + y], tf.int64))
  d = tf.data.Dataset.range(4)
  par = d.interleave(make, cycle_length=4, num_parallel_calls=4)
  seq = d.interleave(make, cycle_length=4)
  assert _np(par) == _np(seq)
  assert slow.peak > 1
