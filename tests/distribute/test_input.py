"""Distributed datasets: global batches split as TF 2.21 splits them, datasets from a
function with InputContext, sharding by data across workers."""
import numpy as np
import pytest

import tensorlet as tf


def _pieces(strategy, dataset):
  return [[t.numpy().tolist() for t in strategy.experimental_local_results(b)]
          for b in strategy.experimental_distribute_dataset(dataset)]


# (elements, batch size) -> pieces per replica, as real TF 2.21 gives them.
TF_SPLITS_2 = {
    (10, 4): [[[0, 1], [2, 3]], [[4, 5], [6, 7]], [[8], [9]]],
    (7, 3): [[[0, 1], [2]], [[3, 4], [5]], [[6], []]],
    (5, 4): [[[0, 1], [2, 3]], [[4], []]],
    (9, 5): [[[0, 1, 2], [3, 4]], [[5, 6], [7, 8]]],
}
TF_SPLITS_3 = {
    (10, 4): [[[0, 1], [2, 3], []], [[4, 5], [6, 7], []], [[8], [9], []]],
    (8, 8): [[[0, 1, 2], [3, 4, 5], [6, 7]]],
    (5, 5): [[[0, 1], [2, 3], [4]]],
}


def test_global_batches_split_as_tf(two_cpus):
  s = tf.distribute.MirroredStrategy(two_cpus)
  for (n, b), want in TF_SPLITS_2.items():
    assert _pieces(s, tf.data.Dataset.range(n).batch(b)) == want, (n, b)
  cpu = tf.config.list_physical_devices("CPU")[0]
  tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 3)
  s3 = tf.distribute.MirroredStrategy()
  for (n, b), want in TF_SPLITS_3.items():
    assert _pieces(s3, tf.data.Dataset.range(n).batch(b)) == want, (n, b)


def test_structures_split_leaf_by_leaf(two_cpus):
  s = tf.distribute.MirroredStrategy(two_cpus)
  ds = tf.data.Dataset.from_tensor_slices({"x": np.arange(8.0).reshape(4, 2),
                                           "y": np.arange(4)}).batch(4)
  (b,) = list(s.experimental_distribute_dataset(ds))
  local = s.experimental_local_results(b)
  assert local[1]["x"].numpy().tolist() == [[4.0, 5.0], [6.0, 7.0]]
  assert local[0]["y"].numpy().tolist() == [0, 1]
  it = iter(s.experimental_distribute_dataset(ds))
  assert it.get_next()["y"].values[1].numpy().tolist() == [2, 3]
  with pytest.raises(StopIteration):
    next(it)


def test_unbatched_dataset_is_a_clear_error(two_cpus):
  s = tf.distribute.MirroredStrategy(two_cpus)
  with pytest.raises(ValueError, match="must be batched"):
    list(s.experimental_distribute_dataset(tf.data.Dataset.range(3)))
  with pytest.raises(TypeError, match="tf.data.Dataset"):
    s.experimental_distribute_dataset(3)


def test_one_replica_gets_the_whole_batch():
  s = tf.distribute.OneDeviceStrategy("/cpu:0")
  out = [b.numpy().tolist() for b in s.experimental_distribute_dataset(
      tf.data.Dataset.range(3).batch(2))]
  assert out == [[0, 1], [2]]


def test_datasets_from_function(two_cpus):
  s = tf.distribute.MirroredStrategy(two_cpus)
  seen = []

  def dataset_fn(ctx):
    seen.append((ctx.num_input_pipelines, ctx.input_pipeline_id, ctx.num_replicas_in_sync,
                 ctx.get_per_replica_batch_size(8)))
    return tf.data.Dataset.range(6).batch(2)
  out = [[t.numpy().tolist() for t in s.experimental_local_results(b)]
         for b in s.distribute_datasets_from_function(dataset_fn)]
  assert seen == [(1, 0, 2, 4)]
  assert out == [[[0, 1], [2, 3]], [[4, 5], []]]  # as TF: the replica left over gets nothing
  with pytest.raises(ValueError, match="not divisible"):
    tf.distribute.InputContext(1, 0, 2).get_per_replica_batch_size(3)


def test_workers_take_their_replicas_pieces(two_cpus, fake_workers):
  ds = tf.data.Dataset.range(16).batch(8)
  got = []
  for rank in (0, 1):
    s = tf.distribute.MirroredStrategy(two_cpus, collectives=fake_workers(rank, 2))
    got.append(_pieces(s, ds))
    ctxs = []
    s.distribute_datasets_from_function(lambda c: ctxs.append(c) or tf.data.Dataset.range(2))
    assert (ctxs[0].num_input_pipelines, ctxs[0].input_pipeline_id,
            ctxs[0].num_replicas_in_sync) == (2, rank, 4)
  assert got[0] == [[[0, 1], [2, 3]], [[8, 9], [10, 11]]]
  assert got[1] == [[[4, 5], [6, 7]], [[12, 13], [14, 15]]]


def _weighted(v):
  rid = tf.distribute.get_replica_context().replica_id_in_sync_group
  return tf.reduce_sum(v) * (tf.cast(rid, tf.int64) + 1)


def test_iterators_and_loops_inside_tf_function(two_cpus):
  s = tf.distribute.MirroredStrategy(two_cpus)
  it = iter(s.experimental_distribute_dataset(tf.data.Dataset.range(12).batch(4)))

  @tf.function
  def step(iterator):
    return s.reduce("SUM", s.run(_weighted, args=(next(iterator),)), axis=None)
  # Each call takes the next global batch: [0 1 | 2 3] -> 1*1 + 5*2, then [4 5 | 6 7] ...
  assert [int(step(it)) for _ in range(3)] == [11, 35, 59]

  @tf.function
  def epoch(dist):
    total = tf.constant(0, tf.int64)
    for x in dist:  # AutoGraph: one graph loop over the dataset
      total += s.reduce("SUM", s.run(tf.reduce_sum, args=(x,)), axis=None)
    return total
  assert int(epoch(s.experimental_distribute_dataset(
      tf.data.Dataset.range(12).batch(4)))) == 66


def test_loops_over_datasets_from_function_in_tf_function(two_cpus, fake_workers):
  def dataset_fn(ctx):
    return tf.data.Dataset.range(8).shard(ctx.num_input_pipelines,
                                          ctx.input_pipeline_id).batch(2)

  @tf.function
  def epoch(dist, strategy):
    total = tf.constant(0, tf.int64)
    for x in dist:
      total += strategy.reduce("SUM", strategy.run(tf.reduce_sum, args=(x,)), axis=None)
    return total
  # One replica on worker 1 of 2: it reads 1, 3, 5, 7; the other worker is taken to have
  # the same values, so the sums double.
  s = tf.distribute.MirroredStrategy(["/cpu:0"], collectives=fake_workers(rank=1, size=2))
  assert int(epoch(s.distribute_datasets_from_function(dataset_fn), s)) == 32
  two = tf.distribute.MirroredStrategy(two_cpus)
  # Two local replicas take consecutive elements: [0 1 | 2 3], [4 5 | 6 7] (the same
  # total as iterating eagerly), and the loop stops after the last pair.
  assert int(epoch(two.distribute_datasets_from_function(dataset_fn), two)) == 28

  @tf.function
  def weighted(dist, strategy):
    total = tf.constant(0, tf.int64)
    for x in dist:
      total += strategy.reduce("SUM", strategy.run(_weighted, args=(x,)), axis=None)
    return total
  three = lambda ctx: tf.data.Dataset.range(6).batch(2)  # noqa: E731
  eager = sum(int(two.reduce("SUM", two.run(_weighted, args=(x,)), axis=None))
              for x in two.distribute_datasets_from_function(three))
  # [0 1 | 2 3] -> 1 + 2*5, [4 5 | (empty)] -> 9: the left-over replica gets nothing.
  assert int(weighted(two.distribute_datasets_from_function(three), two)) == eager == 20
  with pytest.raises(NotImplementedError, match="batched dense tensors"):
    weighted(two.distribute_datasets_from_function(lambda ctx: tf.data.Dataset.range(3)), two)


def test_ragged_batches_split_by_rows(two_cpus):
  s = tf.distribute.MirroredStrategy(two_cpus)
  ds = tf.data.Dataset.from_tensor_slices(
      tf.ragged.constant([[1, 2], [3], [4, 5, 6], [7]])).batch(4)
  (b,) = list(s.experimental_distribute_dataset(ds))
  assert [r.to_list() for r in s.experimental_local_results(b)] == [[[1, 2], [3]],
                                                                    [[4, 5, 6], [7]]]


def _sparse_pieces(strategy, x):
  return [(t.indices.numpy().tolist(), t.values.numpy().tolist(), t.dense_shape.numpy().tolist())
          for t in strategy.experimental_local_results(x)]


def test_sparse_batches_split_by_rows(two_cpus):
  s = tf.distribute.MirroredStrategy(two_cpus)
  st = tf.sparse.SparseTensor([[0, 0], [1, 1], [2, 0], [2, 2], [4, 1], [5, 0]],
                              [1., 2., 3., 4., 5., 6.], [6, 3])
  # As real TF 2.21: each piece keeps its rows' entries, renumbered, shape [rows, 3].
  want = {3: [[([[0, 0], [1, 1]], [1.0, 2.0], [2, 3]), ([[0, 0], [0, 2]], [3.0, 4.0], [1, 3])],
              [([[1, 1]], [5.0], [2, 3]), ([[0, 0]], [6.0], [1, 3])]],
          2: [[([[0, 0]], [1.0], [1, 3]), ([[0, 1]], [2.0], [1, 3])],
              [([[0, 0], [0, 2]], [3.0, 4.0], [1, 3]), ([], [], [1, 3])],
              [([[0, 1]], [5.0], [1, 3]), ([[0, 0]], [6.0], [1, 3])]]}
  for b, pieces in want.items():
    ds = tf.data.Dataset.from_tensor_slices(st).batch(b)
    assert [_sparse_pieces(s, x) for x in s.experimental_distribute_dataset(ds)] == pieces
  ds = tf.data.Dataset.from_tensor_slices({"s": st, "d": tf.range(6)}).batch(6)
  (x,) = list(s.experimental_distribute_dataset(ds))
  assert _sparse_pieces(s, x["s"])[1] == ([[1, 1], [2, 0]], [5.0, 6.0], [3, 3])
  assert s.experimental_local_results(x["d"])[1].numpy().tolist() == [3, 4, 5]

  @tf.function
  def total(dist):  # split inside a graph loop too
    out = tf.constant(0.0)
    for x in dist:
      out += s.reduce("SUM", s.run(lambda sp: tf.sparse.reduce_sum(sp) *
                                   tf.cast(tf.shape(sp)[0], tf.float32), args=(x,)), axis=None)
    return out
  # rows 0-2 -> (1+2)*2 + (3+4)*1, rows 3-5 -> 5*2 + 6*1
  assert float(total(s.experimental_distribute_dataset(
      tf.data.Dataset.from_tensor_slices(st).batch(3)))) == 13.0 + 16.0


def test_batches_of_unknown_rows_that_cannot_be_cut():
  from tensorlet.distribute.input_lib import split_batch

  @tf.function(input_signature=[tf.RaggedTensorSpec([None, None], tf.int32)])
  def cut(r):
    return split_batch(r, 2, 0, 2)
  with pytest.raises(ValueError, match="cannot split a batch of RaggedTensor"):
    cut(tf.ragged.constant([[1], [2, 3]]))
