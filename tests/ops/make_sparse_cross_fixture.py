"""Writes sparse_cross_tf.json: real TensorFlow's tf.sparse.cross / cross_hashed on mixed
sparse/dense, string/int64 inputs. Run with /work/tfref/bin/python."""
import json
import os

os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
import tensorflow as tf  # noqa: E402

from sparse_cross_cases import CASES, inputs  # noqa: E402

out = {}
for name, fn, kwargs in CASES:
  sp = getattr(tf.sparse, fn)(inputs(tf, name), **kwargs)
  out[name] = [sp.indices.numpy().tolist(),
               [v.decode() if isinstance(v, bytes) else v for v in sp.values.numpy().tolist()],
               sp.dense_shape.numpy().tolist()]
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "sparse_cross_tf.json"),
          "w") as f:
  json.dump(out, f)
