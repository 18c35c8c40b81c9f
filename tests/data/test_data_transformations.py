"""tf.data transformations: values, order, element_spec, cardinality and repr
(expected values as TensorFlow 2.21 prints them), and TF's exception types."""
import numpy as np
import pytest

import tensorlet as tf

D = tf.data.Dataset


def _np(ds):
  return list(ds.as_numpy_iterator())


def _card(ds):
  return int(ds.cardinality())


def _scalar(dtype=tf.int64):
  return tf.TensorSpec([], dtype)


R = D.range(10)


# ----------------------------------------------------------------- batch

def test_batch_values_spec_and_cardinality():
  got = _np(R.batch(3))
  assert [b.tolist() for b in got] == [[0, 1, 2], [3, 4, 5], [6, 7, 8], [9]]
  assert all(b.dtype == np.int64 for b in got)
  assert R.batch(3).element_spec == tf.TensorSpec([None], tf.int64)
  assert _card(R.batch(3)) == 4


def test_batch_drop_remainder_gives_static_batch_dimension():
  ds = R.batch(3, drop_remainder=True)
  assert ds.element_spec == tf.TensorSpec([3], tf.int64)
  assert [b.tolist() for b in _np(ds)] == [[0, 1, 2], [3, 4, 5], [6, 7, 8]]
  assert _card(ds) == 3 and len(ds) == 3


def test_batch_of_structures_and_strings():
  ds = D.from_tensor_slices({"x": np.arange(6.0).reshape(3, 2), "s": ["a", "b", "c"]}).batch(2)
  assert ds.element_spec == {"s": tf.TensorSpec([None], tf.string),
                             "x": tf.TensorSpec([None, 2], tf.float64)}
  first, second = _np(ds)
  assert first["s"].tolist() == [b"a", b"b"] and second["s"].tolist() == [b"c"]
  np.testing.assert_array_equal(first["x"], [[0, 1], [2, 3]])
  elem = next(iter(ds))
  assert elem["s"].dtype == tf.string and elem["s"].shape == tf.TensorShape([2])


def test_batch_of_generator_elements_with_different_shapes_fails():
  ds = D.from_generator(lambda: iter([[1], [1, 2]]),
                        output_signature=tf.TensorSpec([None], tf.int32)).batch(2)
  with pytest.raises(tf.errors.InvalidArgumentError, match="Cannot batch tensors"):
    list(ds)


@pytest.mark.parametrize("size, exc", [(0, tf.errors.InvalidArgumentError),
                                       (-1, tf.errors.InvalidArgumentError),
                                       (1.5, TypeError)])
def test_batch_size_errors(size, exc):
  with pytest.raises(exc, match="batch_size"):
    list(R.batch(size))


def test_batch_repr():
  assert repr(R.batch(2)) == ("<_BatchDataset element_spec=TensorSpec(shape=(None,), "
                              "dtype=tf.int64, name=None)>")


def test_gathered_batches_equal_element_batches():
  # The row-number fast path (slices -> shuffle -> batch) and the element path
  # (a map in between) shuffle with the same draws, so batches are identical.
  x = np.arange(100, dtype=np.float32).reshape(50, 2)
  fast = D.from_tensor_slices(x).shuffle(20, seed=4).take(45).batch(8)
  slow = D.from_tensor_slices(x).map(lambda v: v).shuffle(20, seed=4).take(45).batch(8)
  a, b = _np(fast), _np(slow)
  assert len(a) == 6 and [len(v) for v in a] == [8] * 5 + [5]
  for u, v in zip(a, b):
    np.testing.assert_array_equal(u, v)
    assert u.dtype == v.dtype == np.float32
  assert len(set(np.concatenate(a)[:, 0].tolist())) == 45


# ------------------------------------------------------------ padded_batch

def _ragged():
  return R.take(4).map(lambda x: tf.fill([x], x))


def test_padded_batch_pads_to_longest():
  got = _np(_ragged().padded_batch(2))
  assert [b.tolist() for b in got] == [[[0], [1]], [[2, 2, 0], [3, 3, 3]]]
  assert _ragged().padded_batch(2).element_spec == tf.TensorSpec([None, None], tf.int64)
  assert repr(_ragged().padded_batch(2)) == (
      "<_PaddedBatchDataset element_spec=TensorSpec(shape=(None, None), dtype=tf.int64, "
      "name=None)>")


def test_padded_batch_shapes_and_padding_value():
  ds = _ragged().padded_batch(2, padded_shapes=[5], padding_values=tf.constant(-1, tf.int64),
                              drop_remainder=True)
  assert ds.element_spec == tf.TensorSpec([2, 5], tf.int64)
  assert [b.tolist() for b in _np(ds)] == [[[-1, -1, -1, -1, -1], [1, -1, -1, -1, -1]],
                                           [[2, 2, -1, -1, -1], [3, 3, 3, -1, -1]]]


def test_padded_batch_errors():
  with pytest.raises(tf.errors.DataLossError, match="pad to a smaller size"):
    list(_ragged().padded_batch(2, padded_shapes=[2]))
  with pytest.raises(TypeError, match="padding_values"):
    _ragged().padded_batch(2, padding_values=1.5)
  with pytest.raises(tf.errors.InvalidArgumentError, match="batch_size"):
    list(_ragged().padded_batch(0))


# ----------------------------------------------------------------- unbatch

def test_unbatch_restores_elements_and_cardinality():
  assert _np(R.batch(4).unbatch()) == list(range(10))
  assert R.batch(4).unbatch().element_spec == _scalar()
  assert _card(R.batch(4).unbatch()) == tf.data.UNKNOWN_CARDINALITY
  assert _card(R.batch(4, drop_remainder=True).unbatch()) == 8
  with pytest.raises(ValueError, match="rank >= 1"):
    R.unbatch()


def test_unbatch_mismatched_component_sizes():
  ds = D.from_generator(lambda: iter([([1, 2], [1])]),
                        output_signature=(tf.TensorSpec([None], tf.int32),
                                          tf.TensorSpec([None], tf.int32))).unbatch()
  with pytest.raises(tf.errors.InvalidArgumentError, match="same batch size"):
    list(ds)


# ---------------------------------------------------------------- zip / concat

def test_zip_values_spec_cardinality():
  z = D.zip(R, R.skip(3))
  assert _np(z) == [(i, i + 3) for i in range(7)]
  assert _card(z) == 7
  assert D.zip((R, (R, R))).element_spec == (_scalar(), (_scalar(), _scalar()))
  assert _card(D.zip(R, R.repeat())) == 10
  assert _np(D.zip(datasets={"a": R.take(2), "b": R.skip(8)})) == [{"a": 0, "b": 8},
                                                                 {"a": 1, "b": 9}]


def test_zip_errors():
  with pytest.raises(TypeError, match="tuple"):
    D.zip([R, R])
  with pytest.raises(TypeError, match="tf.data.Dataset"):
    D.zip((R, 1))
  with pytest.raises(TypeError):
    D.zip()


def test_concatenate_values_spec_cardinality():
  c = R.take(2).concatenate(R.skip(8))
  assert _np(c) == [0, 1, 8, 9] and _card(c) == 4
  a, b = D.from_tensors([1, 2]), D.from_tensors([1, 2, 3])
  assert a.concatenate(b).element_spec == tf.TensorSpec([None], tf.int32)
  assert _card(R.concatenate(R.repeat())) == tf.data.INFINITE_CARDINALITY
  assert _card(R.concatenate(R.filter(lambda x: True))) == tf.data.UNKNOWN_CARDINALITY


def test_concatenate_errors():
  with pytest.raises(TypeError, match="Incompatible"):
    R.concatenate(D.from_tensor_slices([1.0]))
  with pytest.raises(TypeError, match="Incompatible"):
    R.concatenate(D.zip(R, R))
  with pytest.raises(TypeError, match="tf.data.Dataset"):
    R.concatenate([1, 2])


# -------------------------------------------------------------------- map

def test_map_values_and_specs():
  assert _np(R.map(lambda x: x * 2)) == list(range(0, 20, 2))
  assert _np(R.take(3).map(lambda x: (x, tf.cast(x, tf.float32) / 2))) == [
      (0, 0.0), (1, 0.5), (2, 1.0)]
  spec = R.map(lambda x: {"a": x, "b": tf.fill([x], 1.0)}).element_spec
  assert spec == {"a": _scalar(), "b": tf.TensorSpec([None], tf.float32)}
  assert R.map(lambda x: "abc").element_spec == tf.TensorSpec([], tf.string)
  assert R.map(lambda x: [x, x]).element_spec == (_scalar(), _scalar())
  assert _np(D.zip(R, R).take(2).map(lambda a, b: a + b)) == [0, 2]
  assert _card(R.map(lambda x: x)) == 10


def test_map_is_traced_once_and_runs_graph_ops_per_element():
  calls = []

  def f(x):
    calls.append(1)  # a Python side effect: trace time only
    return tf.py_function(lambda v: v * 3, [x], tf.int64)
  ds = R.take(3).map(f)
  assert _np(ds) == [0, 3, 6] and _np(ds) == [0, 3, 6]
  assert len(calls) == 1


def test_map_parallel_accepts_autotune():
  ds = R.map(lambda x: x + 1, num_parallel_calls=tf.data.AUTOTUNE, deterministic=True)
  assert _np(ds) == list(range(1, 11))
  assert repr(ds).startswith("<_ParallelMapDataset element_spec=")


def test_map_errors():
  with pytest.raises(tf.errors.InvalidArgumentError, match="returned None"):
    R.map(lambda x: None)
  with pytest.raises(TypeError, match="not a tensor"):
    R.map(lambda x: object())
  with pytest.raises(TypeError):
    D.zip(R, R).map(lambda a: a)
  with pytest.raises(ValueError, match="callable"):
    R.map(3)


def test_map_with_captured_variable_reads_it_per_iteration():
  v = tf.Variable(np.int64(1))
  ds = R.take(3).map(lambda x: x * v)
  assert _np(ds) == [0, 1, 2]
  v.assign(10)
  assert _np(ds) == [0, 10, 20]


# ------------------------------------------------------------------ filter

def test_filter_values_cardinality_repr():
  ds = R.filter(lambda x: x % 2 == 0)
  assert _np(ds) == [0, 2, 4, 6, 8]
  assert _card(ds) == tf.data.UNKNOWN_CARDINALITY
  assert _np(R.filter(lambda x: True)) == list(range(10))
  assert repr(ds).startswith("<_FilterDataset element_spec=TensorSpec(shape=(),")


@pytest.mark.parametrize("pred", [lambda x: x, lambda x: tf.fill([2], True),
                                  lambda x: (x > 1, x > 2)])
def test_filter_predicate_must_be_a_bool_scalar(pred):
  with pytest.raises(ValueError, match="predicate"):
    R.filter(pred)


# --------------------------------------------------- take / skip / repeat

@pytest.mark.parametrize("n, take, skip", [(-1, 10, 0), (0, 0, 10), (3, 3, 7), (20, 10, 0)])
def test_take_skip_cardinality(n, take, skip):
  assert _card(R.take(n)) == take and len(_np(R.take(n))) == take
  assert _card(R.skip(n)) == skip and len(_np(R.skip(n))) == skip


def test_take_skip_values():
  assert _np(R.take(3)) == [0, 1, 2] and _np(R.skip(7)) == [7, 8, 9]
  assert _card(R.repeat().take(5)) == 5
  assert _card(R.repeat().skip(5)) == tf.data.INFINITE_CARDINALITY


@pytest.mark.parametrize("count, card", [(None, -1), (-1, -1), (0, 0), (2, 20)])
def test_repeat_cardinality(count, card):
  assert _card(R.repeat(count)) == card


def test_repeat_values_and_empty_input():
  assert _np(R.take(2).repeat(3)) == [0, 1] * 3
  assert _np(R.take(0).repeat()) == []
  assert _card(R.take(0).repeat()) == 0


def test_len_of_infinite_or_unknown_dataset():
  with pytest.raises(TypeError, match="infinite"):
    len(R.repeat())
  with pytest.raises(TypeError, match="unknown"):
    len(R.filter(lambda x: True))


# ------------------------------------------------- enumerate / reduce / misc

def test_enumerate():
  ds = R.skip(7).enumerate(5)
  assert _np(ds) == [(5, 7), (6, 8), (7, 9)]
  assert ds.element_spec == (_scalar(), _scalar())
  assert _card(R.enumerate()) == 10
  assert repr(R.enumerate()).startswith("<_ZipDataset element_spec=(")


def test_reduce_values_and_dtype_error():
  s = R.reduce(np.int64(0), lambda s, x: s + x)
  assert s.dtype == tf.int64 and int(s) == 45
  a, b = R.reduce((np.int64(0), np.int64(1)), lambda s, x: (s[0] + x, s[1] * (x + 1)))
  assert int(a) == 45 and int(b) == 3628800
  with pytest.raises(TypeError):
    R.reduce(0, lambda s, x: s + x)


def test_reduce_relaxes_a_growing_state_shape():
  out = R.take(4).reduce(tf.zeros([0], tf.int64), lambda s, x: tf.concat([s, [x]], 0))
  assert out.numpy().tolist() == [0, 1, 2, 3]


def test_prefetch_and_options_are_accepted():
  ds = R.prefetch(tf.data.AUTOTUNE)
  assert _np(ds)[:3] == [0, 1, 2] and _card(R.prefetch(2)) == 10
  opts = tf.data.Options()
  opts.deterministic = False
  ds2 = R.with_options(opts)
  assert ds2.options().deterministic is False and _np(ds2) == list(range(10))
  with pytest.raises(tf.errors.InvalidArgumentError, match="buffer_size"):
    list(R.prefetch(-2))


def test_cache_in_memory_reads_input_once():
  seen = []

  def gen():
    for i in range(3):
      seen.append(i)
      yield i
  ds = D.from_generator(gen, output_signature=tf.TensorSpec([], tf.int64)).cache()
  assert _np(ds) == [0, 1, 2] and _np(ds) == [0, 1, 2]
  assert seen == [0, 1, 2]
  assert repr(ds).startswith("<CacheDataset element_spec=")


def test_cache_to_file(tmp_path):
  path = str(tmp_path / "c")
  ds = D.from_tensor_slices({"s": ["a", "bc"], "x": [[1.0, 2.0], [3.0, 4.0]]})
  assert len(_np(ds.cache(path))) == 2
  again = _np(ds.map(lambda e: e).cache(path))
  assert again[1]["s"] == b"bc" and again[1]["x"].tolist() == [3.0, 4.0]


def test_repr_of_transformations():
  text = "element_spec=TensorSpec(shape=(), dtype=tf.int64, name=None)>"
  for ds, name in [(R.map(lambda x: x), "_MapDataset"), (R.shuffle(2), "_ShuffleDataset"),
                   (R.repeat(), "_RepeatDataset"), (R.take(2), "_TakeDataset"),
                   (R.skip(2), "_SkipDataset"), (R.prefetch(1), "_PrefetchDataset"),
                   (R.concatenate(R), "_ConcatenateDataset"),
                   (R.batch(2).unbatch(), "_UnbatchDataset"), (R, "_RangeDataset")]:
    assert repr(ds) == f"<{name} {text}"


def test_apply_and_shard():
  assert _np(R.apply(lambda d: d.take(2))) == [0, 1]
  with pytest.raises(TypeError, match="transformation_func"):
    R.apply(lambda d: 1)
  assert _np(R.shard(3, 1)) == [1, 4, 7] and _card(R.shard(3, 1)) == 3
  with pytest.raises(tf.errors.InvalidArgumentError, match="Index"):
    R.shard(3, 3)
