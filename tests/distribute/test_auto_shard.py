"""experimental_distribute_dataset across 2 workers (fake collectives, one process) under
each tf.data auto_shard_policy, against what 2 real TF 2.21 workers got
(tf_auto_shard.json, written by tf_auto_shard.py)."""
import json
import os

import numpy as np
import pytest

import tensorlet as tf
from tf_auto_shard import local_pieces, pipelines, write_files

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "tf_auto_shard.json")) as _f:
  TF_PIECES = json.load(_f)

# With fake collectives the other worker is taken to hold this one's values, so a worker
# cannot see that the other still has files to read: those steps TF pads with empty
# batches are checked by test_workers_that_ran_out_get_empty_batches instead.
PADDED = {("threefiles", "FILE"), ("threefiles", "AUTO")}


def _local_pieces(strategy, ds, policy):
  return local_pieces(tf, strategy, ds, policy)


@pytest.mark.parametrize("policy", ["OFF", "AUTO", "DATA", "FILE", "HINT"])
def test_policies_as_tf(tmp_path, policy, fake_workers):
  names = write_files(str(tmp_path))
  for name, ds in pipelines(tf, str(tmp_path), names).items():
    for rank in (0, 1):
      s = tf.distribute.MirroredStrategy(["/cpu:0"], collectives=fake_workers(rank, 2))
      got = _local_pieces(s, ds, getattr(tf.data.experimental.AutoShardPolicy, policy))
      want = TF_PIECES[f"{name} {policy}"][rank]
      if (name, policy) in PADDED and rank == 1:
        want = [p for p in want if p != [[]]]
      assert got == want, (name, policy, rank)


def test_policy_enum_and_default():
  p = tf.data.experimental.AutoShardPolicy
  assert [int(v) for v in (p.OFF, p.AUTO, p.FILE, p.DATA, p.HINT)] == [-1, 0, 1, 2, 3]
  opts = tf.data.Options()
  opts.experimental_distribute.auto_shard_policy = p.FILE
  assert tf.data.Dataset.range(2).with_options(opts).options() \
      .experimental_distribute.auto_shard_policy == p.FILE


def test_too_few_files_for_the_workers(tmp_path, fake_workers):
  names = write_files(str(tmp_path))
  ds = tf.data.TextLineDataset(names[:1]).batch(2)
  s = tf.distribute.MirroredStrategy(["/cpu:0"], collectives=fake_workers(1, 2))
  with pytest.raises(tf.errors.InvalidArgumentError, match="only has 1 file"):
    _local_pieces_raising(s, ds, tf.data.experimental.AutoShardPolicy.FILE)
  # AUTO falls back to sharding by data: worker 1 takes the second half of each batch.
  assert _local_pieces(s, ds, tf.data.experimental.AutoShardPolicy.AUTO) == [
      [["f0-1"]], [[]]]


def _local_pieces_raising(strategy, ds, policy):
  options = tf.data.Options()
  options.experimental_distribute.auto_shard_policy = policy
  return list(strategy.experimental_distribute_dataset(ds.with_options(options)))


def test_workers_that_ran_out_get_empty_batches(tmp_path, fake_workers):
  class OtherHasMore(fake_workers):
    """The other worker reads `more` steps beyond this one's last."""

    def __init__(self, rank, size, more):
      super().__init__(rank, size)
      self.more = more

    def all_reduce(self, arrays, op="sum"):
      self.calls.append(("all_reduce", [np.array(a) for a in arrays], op))
      mine = int(np.asarray(arrays[0]))
      other = 1 if mine or self.more > 0 else 0
      if not mine:
        self.more -= 1
      return [np.asarray(mine + other)]

  names = write_files(str(tmp_path))
  ds = tf.data.TextLineDataset(names[:3]).batch(2)
  s = tf.distribute.MirroredStrategy(["/cpu:0"], collectives=OtherHasMore(1, 2, more=3))
  got = _local_pieces(s, ds, tf.data.experimental.AutoShardPolicy.FILE)
  assert got == TF_PIECES["threefiles FILE"][1]  # 3 lines, then 3 empty batches as TF


def test_off_with_two_local_replicas_and_cardinality(two_cpus, fake_workers):
  s = tf.distribute.MirroredStrategy(two_cpus, collectives=fake_workers(1, 2))
  ds = tf.data.Dataset.range(16).batch(8)
  options = tf.data.Options()
  options.experimental_distribute.auto_shard_policy = tf.data.experimental.AutoShardPolicy.OFF
  dist = s.experimental_distribute_dataset(ds.with_options(options))
  got = [[t.numpy().tolist() for t in s.experimental_local_results(b)] for b in dist]
  # Every worker steps through every piece of 2 rows, its 2 replicas' worth at a time.
  assert got == [[[0, 1], [2, 3]], [[4, 5], [6, 7]], [[8, 9], [10, 11]], [[12, 13], [14, 15]]]
  assert int(dist.cardinality()) == 4


def test_off_in_a_tf_function_loop(fake_workers):
  s = tf.distribute.MirroredStrategy(["/cpu:0"], collectives=fake_workers(0, 2))
  options = tf.data.Options()
  options.experimental_distribute.auto_shard_policy = tf.data.experimental.AutoShardPolicy.OFF
  dist = s.experimental_distribute_dataset(tf.data.Dataset.range(8).batch(4)
                                           .with_options(options))

  @tf.function
  def epoch(d):
    total, steps = tf.constant(0, tf.int64), tf.constant(0)
    for x in d:
      total += s.reduce("SUM", s.run(tf.reduce_sum, args=(x,)), axis=None)
      steps += 1
    return total, steps
  total, steps = epoch(dist)
  # 4 steps of 2 rows; each sum doubles (the fake other worker holds the same values).
  assert int(steps) == 4 and int(total) == 2 * sum(range(8))


def test_off_splits_sparse_batches(fake_workers):
  s = tf.distribute.MirroredStrategy(["/cpu:0"], collectives=fake_workers(1, 2))
  st = tf.sparse.SparseTensor([[0, 0], [1, 1], [2, 0], [3, 2]], [1., 2., 3., 4.], [4, 3])
  options = tf.data.Options()
  options.experimental_distribute.auto_shard_policy = tf.data.experimental.AutoShardPolicy.OFF
  dist = s.experimental_distribute_dataset(
      tf.data.Dataset.from_tensor_slices(st).batch(4).with_options(options))
  got = [(x.indices.numpy().tolist(), x.values.numpy().tolist(), x.dense_shape.numpy().tolist())
         for x in dist]
  assert got == [([[0, 0], [1, 1]], [1.0, 2.0], [2, 3]), ([[0, 0], [1, 2]], [3.0, 4.0], [2, 3])]
