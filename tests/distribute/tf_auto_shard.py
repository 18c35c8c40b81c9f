"""Writes tf_auto_shard.json: what each of 2 real TF 2.21 MultiWorkerMirroredStrategy
workers (one CPU replica each, TF_CONFIG on 127.0.0.1) gets from
experimental_distribute_dataset under each auto_shard_policy, for a range dataset and
for pipelines reading 4 text files of 3 lines ("f<file>-<line>").
Run with /work/tfref/bin/python tests/distribute/tf_auto_shard.py (it starts both workers)."""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def write_files(d):
  names = []
  for i in range(4):
    p = os.path.join(d, f"f{i}.txt")
    with open(p, "w") as f:
      f.write("".join(f"f{i}-{j}\n" for j in range(3)))
    names.append(p)
  return names


def pipelines(tf, d, names):
  """name -> dataset; shared with the tensorlet test, which builds the same ones."""
  return {
      "range": tf.data.Dataset.range(12).batch(4),
      "textline": tf.data.TextLineDataset(names).batch(4),
      "listfiles": tf.data.Dataset.list_files(os.path.join(d, "*.txt"), shuffle=False)
                   .interleave(tf.data.TextLineDataset, cycle_length=2).batch(4),
      "slices": tf.data.Dataset.from_tensor_slices(names).flat_map(tf.data.TextLineDataset)
                .batch(4),
      "threefiles": tf.data.TextLineDataset(names[:3]).batch(2),
  }


def local_pieces(tf, strategy, ds, policy):
  options = tf.data.Options()
  options.experimental_distribute.auto_shard_policy = policy
  try:
    return [[[v.decode() if isinstance(v, bytes) else v for v in t.numpy().tolist()]
             for t in strategy.experimental_local_results(b)]
            for b in strategy.experimental_distribute_dataset(ds.with_options(options))]
  except Exception as e:  # noqa: BLE001 - the error type is the result
    return type(e).__name__


def worker(index, d, out):
  os.environ["TF_CONFIG"] = json.dumps({
      "cluster": {"worker": ["127.0.0.1:23471", "127.0.0.1:23472"]},
      "task": {"type": "worker", "index": index}})
  import tensorflow as tf
  s = tf.distribute.MultiWorkerMirroredStrategy()
  names = write_files(d)
  res = {}
  for name, ds in pipelines(tf, d, names).items():
    for policy in ("OFF", "AUTO", "DATA", "FILE", "HINT"):
      res[f"{name} {policy}"] = local_pieces(
          tf, s, ds, getattr(tf.data.experimental.AutoShardPolicy, policy))
  with open(out, "w") as f:
    json.dump(res, f)


def two_tf_workers(script):
  """Runs `script` as TF workers 0 and 1 (argv: index, a shared files folder, an output
  JSON file) at once; their outputs, in worker order."""
  env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
  with tempfile.TemporaryDirectory() as d:
    files = os.path.join(d, "files")
    os.makedirs(files)
    outs = [os.path.join(d, f"w{i}.json") for i in range(2)]
    procs = [subprocess.Popen([sys.executable, script, str(i), files, outs[i]], env=env)
             for i in range(2)]
    for p in procs:
      p.wait(timeout=300)
    return [json.load(open(o)) for o in outs]


if __name__ == "__main__":
  if len(sys.argv) > 1:
    worker(int(sys.argv[1]), sys.argv[2], sys.argv[3])
    sys.exit(0)
  results = two_tf_workers(__file__)
  merged = {k: [results[0][k], results[1][k]] for k in results[0]}
  with open(os.path.join(HERE, "tf_auto_shard.json"), "w") as f:
    json.dump(merged, f, indent=0)
