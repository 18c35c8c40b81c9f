"""Writes tf_uneven_files_loop.json: what each of 2 real TF 2.21 MultiWorkerMirroredStrategy
workers (one CPU replica each, TF_CONFIG on 127.0.0.1) counts in a tf.function loop over
a dataset sharded by files (AutoShardPolicy.FILE) when the files do not divide evenly
among the workers (3 and 5 files of 3 lines for 2 workers), and the batches it gets
iterating the same dataset eagerly. Shared with test_uneven_files_loop.py, which runs
the same program in tensorlet under mpiexec.
Run with /work/tfref/bin/python tests/distribute/tf_uneven_files_loop.py."""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)


def pipelines(tf, names):
  return [("threefiles", tf.data.TextLineDataset(names[:3]).batch(2)),
          ("threefiles_b4", tf.data.TextLineDataset(names[:3]).batch(4)),
          ("fivefiles", tf.data.Dataset.from_tensor_slices(names + names[:1])
           .interleave(tf.data.TextLineDataset, cycle_length=1).batch(2))]


def run(tf, strategy, names):
  """label -> [steps, this worker's rows, rows summed over the workers] of the
  tf.function loop, and label + " eager" -> the lines of each eager step."""
  s = strategy
  res = {}
  for label, ds in pipelines(tf, names):
    opts = tf.data.Options()
    opts.experimental_distribute.auto_shard_policy = tf.data.experimental.AutoShardPolicy.FILE
    dist = s.experimental_distribute_dataset(ds.with_options(opts))

    @tf.function
    def epoch(d):
      steps, rows, total = tf.constant(0), tf.constant(0), tf.constant(0.0)
      for x in d:
        n = s.run(lambda t: tf.shape(t)[0], args=(x,))
        total += tf.cast(s.reduce("SUM", n, axis=None), tf.float32)
        rows += s.experimental_local_results(n)[0]
        steps += 1
      return steps, rows, total
    steps, rows, total = epoch(dist)
    res[label] = [int(steps), int(rows), float(total)]
    res[label + " eager"] = [[os.path.basename(v.decode()) if isinstance(v, bytes) else v
                              for v in s.experimental_local_results(b)[0].numpy().tolist()]
                             for b in dist]
  return res


def worker(index, d, out):
  os.environ["TF_CONFIG"] = json.dumps({
      "cluster": {"worker": ["127.0.0.1:23481", "127.0.0.1:23482"]},
      "task": {"type": "worker", "index": index}})
  import tensorflow as tf
  from tf_auto_shard import write_files
  s = tf.distribute.MultiWorkerMirroredStrategy()
  res = run(tf, s, write_files(d))
  with open(out, "w") as f:
    json.dump(res, f)


if __name__ == "__main__":
  if len(sys.argv) > 1:
    worker(int(sys.argv[1]), sys.argv[2], sys.argv[3])
    sys.exit(0)
  from tf_auto_shard import two_tf_workers
  with open(os.path.join(HERE, "tf_uneven_files_loop.json"), "w") as f:
    json.dump(two_tf_workers(__file__), f, indent=0)
