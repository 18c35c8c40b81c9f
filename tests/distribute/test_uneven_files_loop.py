"""A tf.function loop over a dataset sharded by files (AutoShardPolicy.FILE) whose files
do not divide evenly among the workers: every worker runs the same steps, the ones that
ran out getting empty batches, as 2 real TF 2.21 workers do (tf_uneven_files_loop.json,
written by tf_uneven_files_loop.py)."""
import json
import os

import numpy as np
import pytest

import tensorlet as tf
from mpi_launch import check_ok, run_workers
from tf_auto_shard import write_files

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "tf_uneven_files_loop.json")) as _f:
  TF_RESULTS = json.load(_f)

WORKER = f"""
sys.path.insert(0, {HERE!r})
import tensorlet as tf
from tf_auto_shard import write_files
from tf_uneven_files_loop import run
strategy = tf.distribute.MultiWorkerMirroredStrategy()
d = os.path.join(os.getcwd(), "files%d" % strategy.cluster_resolver.task_id)
os.makedirs(d)
report(run(tf, strategy, write_files(d)))
"""


def test_two_workers_agree_on_the_steps_as_tf(tmp_path):
  pytest.importorskip("mpi4py")
  done, reports = run_workers(tmp_path, WORKER, n=2, timeout=180)
  check_ok(done)
  assert [reports[0][0], reports[1][0]] == TF_RESULTS


@pytest.mark.parametrize("batch, more, want_rows", [
    (2, 3, [1, 1, 1, 0, 0, 0]), (4, 1, [2, 1, 0])])
def test_a_worker_that_ran_out_steps_on_with_empty_batches(tmp_path, fake_workers, batch,
                                                           more, want_rows):
  class OtherHasMore(fake_workers):
    """The other worker has `more` pieces beyond this one's last."""

    def all_reduce(self, arrays, op="sum"):
      mine = int(np.asarray(arrays[0]))
      self.calls.append(mine)
      other = 1 if mine or self.more > 0 else 0
      if not mine:
        self.more -= 1
      return [np.asarray(mine + other)]

  names = write_files(str(tmp_path))
  coll = OtherHasMore(1, 2)
  coll.more = more
  s = tf.distribute.MirroredStrategy(["/cpu:0"], collectives=coll)
  opts = tf.data.Options()
  opts.experimental_distribute.auto_shard_policy = tf.data.experimental.AutoShardPolicy.FILE
  dist = s.experimental_distribute_dataset(
      tf.data.TextLineDataset(names[:3]).batch(batch).with_options(opts))

  @tf.function
  def epoch(d):
    rows = tf.TensorArray(tf.int32, size=0, dynamic_size=True)
    i = 0
    for x in d:
      rows = rows.write(i, tf.shape(x)[0])
      i += 1
    return rows.stack()
  assert epoch(dist).numpy().tolist() == want_rows
  assert coll.calls == [1] * (len(want_rows) - more) + [0] * (more + 1)
