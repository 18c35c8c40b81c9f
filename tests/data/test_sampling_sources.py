"""counter, random, sample_from_datasets, choose_from_datasets, list_files,
CsvDataset, make_csv_dataset, save/load, snapshot, Options: values, order,
element_spec, cardinality, seeds, in tf.function, TF's errors."""
import os

import numpy as np
import pytest

import tensorlet as tf

I64 = tf.TensorSpec([], tf.int64)


def _np(ds):
  return [np.asarray(x).tolist() for x in ds.as_numpy_iterator()]


def test_counter():
  c = tf.data.Dataset.counter()
  assert c.element_spec == I64 and int(c.cardinality()) == tf.data.INFINITE_CARDINALITY
  assert _np(c.take(3)) == [0, 1, 2]
  c = tf.data.Dataset.counter(start=2, step=3, dtype=tf.int32)
  assert c.element_spec == tf.TensorSpec([], tf.int32) and _np(c.take(3)) == [2, 5, 8]
  assert _np(tf.data.experimental.Counter(5, -1).take(2)) == [5, 4]


def test_random_seeds():
  r = tf.data.Dataset.random(seed=4).take(5)
  assert r.element_spec == I64
  first = _np(r)
  assert first == _np(r) == _np(tf.data.Dataset.random(seed=4).take(5))
  assert all(0 <= v < 2 ** 32 for v in first)
  assert _np(tf.data.Dataset.random(seed=5).take(5)) != first
  rr = tf.data.Dataset.random(seed=4, rerandomize_each_iteration=True).take(5)
  assert _np(rr) != _np(rr)
  assert int(tf.data.Dataset.random().cardinality()) == tf.data.INFINITE_CARDINALITY


def test_sample_from_datasets():
  a, b = tf.data.Dataset.range(0, 50), tf.data.Dataset.range(100, 150)
  s = tf.data.Dataset.sample_from_datasets([a, b], weights=[0.5, 0.5], seed=1)
  assert repr(s).startswith("<_DirectedInterleaveDataset") and s.element_spec == I64
  assert int(s.cardinality()) == -2
  got = _np(s)
  assert sorted(got) == list(range(50)) + list(range(100, 150))
  assert [x for x in got if x < 100] == list(range(50))  # each input keeps its order
  assert got == _np(tf.data.experimental.sample_from_datasets([a, b], [0.5, 0.5], seed=1))
  stop = tf.data.Dataset.sample_from_datasets([a.take(3), b], seed=1,
                                              stop_on_empty_dataset=True)
  assert len(_np(stop)) < 53
  skew = tf.data.Dataset.sample_from_datasets(
      [tf.data.Dataset.from_tensors(0).repeat(), tf.data.Dataset.from_tensors(1).repeat()],
      weights=[0.9, 0.1], seed=3).take(2000)
  assert abs(np.mean(_np(skew)) - 0.1) < 0.03
  with pytest.raises(ValueError, match="same length"):
    tf.data.Dataset.sample_from_datasets([a, b], weights=[0.5])
  with pytest.raises(ValueError, match="should not be empty"):
    tf.data.Dataset.sample_from_datasets([])
  with pytest.raises(TypeError, match="compatible element specs"):
    tf.data.Dataset.sample_from_datasets([a, tf.data.Dataset.range(3).map(
        lambda x: tf.cast(x, tf.int32))])


def test_choose_from_datasets():
  a, b = tf.data.Dataset.range(0, 5), tf.data.Dataset.range(100, 105)
  choice = tf.data.Dataset.from_tensor_slices(tf.constant([0, 1, 1, 0], tf.int64))
  c = tf.data.Dataset.choose_from_datasets([a, b], choice)
  assert _np(c) == [0, 100, 101, 1] and int(c.cardinality()) == -2
  bad = tf.data.Dataset.choose_from_datasets(
      [a, b], tf.data.Dataset.from_tensor_slices(tf.constant([0, 2], tf.int64)))
  with pytest.raises(tf.errors.InvalidArgumentError, match="Selector index out of range"):
    list(bad)
  with pytest.raises(TypeError, match="scalar `tf.int64`"):
    tf.data.Dataset.choose_from_datasets([a, b], tf.data.Dataset.range(2).map(
        lambda x: tf.cast(x, tf.int32)))
  many = tf.data.Dataset.from_tensor_slices(tf.constant([0] * 6, tf.int64))
  assert _np(tf.data.experimental.choose_from_datasets([a], many)) == [0, 1, 2, 3, 4]


def test_list_files(tmp_path):
  for n in ("b.txt", "a.txt", "c.txt", "x.dat"):
    (tmp_path / n).write_bytes(b"")
  pat = str(tmp_path / "*.txt")
  ds = tf.data.Dataset.list_files(pat, shuffle=False)
  assert ds.element_spec == tf.TensorSpec([], tf.string) and int(ds.cardinality()) == 3
  assert [os.path.basename(p) for p in ds.as_numpy_iterator()] == [b"a.txt", b"b.txt", b"c.txt"]
  s1 = [p for p in tf.data.Dataset.list_files(pat, seed=7).as_numpy_iterator()]
  assert s1 == [p for p in tf.data.Dataset.list_files(pat, seed=7).as_numpy_iterator()]
  assert sorted(s1) == sorted(ds.as_numpy_iterator())
  with pytest.raises(tf.errors.InvalidArgumentError, match="No files matched pattern"):
    tf.data.Dataset.list_files(str(tmp_path / "zzz*"))


_CSV = b'a,b,c,label\n1,2.5,x,0\n3,,y,1\n5,6.5,"z,w",0\n'


def test_csv_dataset(tmp_path):
  p = tmp_path / "c.csv"
  p.write_bytes(_CSV)
  c = tf.data.experimental.CsvDataset(str(p), [tf.int32, [0.0], tf.string, tf.int64],
                                      header=True)
  assert repr(c).startswith("<CsvDatasetV2")
  assert c.element_spec == (tf.TensorSpec([], tf.int32), tf.TensorSpec([], tf.float32),
                            tf.TensorSpec([], tf.string), I64)
  assert int(c.cardinality()) == -2
  assert list(c.as_numpy_iterator()) == [(1, 2.5, b"x", 0), (3, 0.0, b"y", 1),
                                         (5, 6.5, b"z,w", 0)]
  sel = tf.data.experimental.CsvDataset(str(p), [[0], [0]], header=True, select_cols=[0, 3])
  assert list(sel.as_numpy_iterator()) == [(1, 0), (3, 1), (5, 0)]
  with pytest.raises(tf.errors.InvalidArgumentError, match="not a valid int32: a"):
    list(tf.data.experimental.CsvDataset(str(p), [[0], [0]], select_cols=[0, 3]))
  required = tf.data.experimental.CsvDataset(str(p), [tf.int32, tf.float32, tf.string,
                                                      tf.int64], header=True)
  with pytest.raises(tf.errors.InvalidArgumentError, match="required but missing"):
    list(required)

  @tf.function
  def label_sum():
    s = tf.constant(0, tf.int64)
    for _, _, _, lab in tf.data.experimental.CsvDataset(str(p), [[0], [0.0], [""], [0]],
                                                         header=True):
      s += tf.cast(lab, tf.int64)
    return s
  assert int(label_sum()) == 1


def test_make_csv_dataset(tmp_path):
  p = tmp_path / "c.csv"
  p.write_bytes(_CSV)
  m = tf.data.experimental.make_csv_dataset(str(p), batch_size=2, label_name="label",
                                            shuffle=False, num_epochs=1)
  feats, label = m.element_spec
  assert list(feats) == ["a", "b", "c"]
  assert feats["a"] == tf.TensorSpec([None], tf.int32)
  assert feats["b"] == tf.TensorSpec([None], tf.float32)
  assert feats["c"] == tf.TensorSpec([None], tf.string)
  assert label == tf.TensorSpec([None], tf.int32)
  got = list(m.as_numpy_iterator())
  assert got[0][0]["a"].tolist() == [1, 3] and got[0][1].tolist() == [0, 1]
  assert got[0][0]["b"].tolist() == [2.5, 0.0] and got[1][0]["c"].tolist() == [b"z,w"]
  sel = tf.data.experimental.make_csv_dataset(str(p), batch_size=3, select_columns=["a", "label"],
                                              shuffle=False, num_epochs=1)
  assert list(sel.element_spec) == ["a", "label"]
  assert [b["a"].tolist() for b in sel.as_numpy_iterator()] == [[1, 3, 5]]
  forever = tf.data.experimental.make_csv_dataset(str(p), batch_size=2, shuffle=True,
                                                  shuffle_seed=1)
  assert int(forever.cardinality()) == tf.data.INFINITE_CARDINALITY
  assert len(list(forever.take(5).as_numpy_iterator())) == 5
  with pytest.raises(ValueError, match="label_name"):
    tf.data.experimental.make_csv_dataset(str(p), batch_size=2, label_name="zz")
  with pytest.raises(ValueError, match="select_columns"):
    tf.data.experimental.make_csv_dataset(str(p), batch_size=2, select_columns=["zz"])


def test_save_and_load(tmp_path):
  ds = tf.data.Dataset.from_tensor_slices(({"a": [1, 2, 3]}, [b"x", b"y", b""],
                                           np.arange(6.0).reshape(3, 2)))
  path = str(tmp_path / "saved")
  ds.save(path)
  assert not [n for n in os.listdir(tmp_path) if n.startswith(".tmp")]
  loaded = tf.data.Dataset.load(path)
  assert loaded.element_spec == ds.element_spec
  assert int(loaded.cardinality()) == 3
  want = list(ds.as_numpy_iterator())
  got = list(loaded.as_numpy_iterator())
  for (ga, gb, gc), (wa, wb, wc) in zip(got, want):
    assert ga == wa and gb == wb and np.array_equal(gc, wc)
  gz = str(tmp_path / "gz")
  tf.data.Dataset.range(5).save(gz, compression="GZIP")
  assert _np(tf.data.Dataset.load(gz)) == [0, 1, 2, 3, 4]
  with pytest.raises(tf.errors.NotFoundError):
    tf.data.Dataset.load(str(tmp_path / "nothing"))
  with pytest.raises(ValueError, match="does not match"):
    tf.data.Dataset.load(gz, element_spec=tf.TensorSpec([], tf.float32))


def test_snapshot_writes_once_then_reads(tmp_path):
  calls = []

  def record(x):
    calls.append(int(x))
    return x
  ds = tf.data.Dataset.range(4).map(lambda x: tf.py_function(record, [x], tf.int64))
  snap = ds.snapshot(str(tmp_path))
  assert int(snap.cardinality()) == 4
  assert _np(snap) == [0, 1, 2, 3] and calls == [0, 1, 2, 3]
  assert _np(snap) == [0, 1, 2, 3] and calls == [0, 1, 2, 3]
  again = ds.snapshot(str(tmp_path))
  assert _np(again) == [0, 1, 2, 3] and calls == [0, 1, 2, 3]
  other = tf.data.Dataset.range(3).snapshot(str(tmp_path))
  assert _np(other) == [0, 1, 2]


def test_options_merge_and_propagate():
  d = tf.data.Dataset.range(3)
  assert d.options().deterministic is None
  o = tf.data.Options()
  o.deterministic = False
  o.experimental_optimization.map_parallelization = True
  x = d.with_options(o)
  assert repr(x).startswith("<_OptionsDataset")
  assert x.options().deterministic is False
  assert x.map(lambda a: a).options().deterministic is False
  assert x.map(lambda a: a).options().experimental_optimization.map_parallelization is True
  o2 = tf.data.Options()
  o2.deterministic = True
  assert x.with_options(o2).options().deterministic is True
  assert o.threading.private_threadpool_size is None
  with pytest.raises(AttributeError, match="Cannot set the property bogus"):
    o.bogus = 1
  with pytest.raises(TypeError):
    d.with_options(1)
  assert _np(x) == [0, 1, 2] and int(x.cardinality()) == 3


def test_list_files_and_text_lines_inside_tf_function(tmp_path):
  for n, text in (("a.txt", b"1\n2\n"), ("b.txt", b"3\n")):
    (tmp_path / n).write_bytes(text)
  pattern = str(tmp_path / "*.txt")

  @tf.function
  def total():
    s = tf.constant(0)
    for line in tf.data.Dataset.list_files(pattern, shuffle=False).interleave(
        tf.data.TextLineDataset, cycle_length=1):
      s += tf.strings.to_number(line, tf.int32)
    return s
  assert int(total()) == 6


def test_save_options_not_implemented_say_so(tmp_path):
  d = tf.data.Dataset.range(3)
  with pytest.raises(NotImplementedError, match="shard_func"):
    d.save(str(tmp_path / "a"), shard_func=lambda x: x % 2)
  with pytest.raises(NotImplementedError):
    tf.data.Dataset.load(str(tmp_path / "a"), reader_func=lambda d: d)
  with pytest.raises(NotImplementedError):
    d.snapshot(str(tmp_path / "s"), shard_func=lambda x: x)
