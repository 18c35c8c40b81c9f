"""Writes preprocessing_tf.json: tf_keras 2.21's outputs (and vocabularies) for the
cases of preprocessing_cases.py. Run with /work/tfref/bin/python."""
import json
import os
import sys

os.environ["TF_USE_LEGACY_KERAS"] = "1"
os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from preprocessing_cases import CASES  # noqa: E402


def as_input(x):
  if isinstance(x, dict) and "tuple" in x:
    return tuple(tf.constant(v) for v in x["tuple"])
  if isinstance(x, dict):
    return tf.ragged.constant(x["ragged"])
  return tf.constant(x)


def encode(r):
  if isinstance(r, tf.SparseTensor):
    return {"sparse": [r.indices.numpy().tolist(), r.values.numpy().tolist(),
                       r.dense_shape.numpy().tolist()], "dtype": r.dtype.name}
  if isinstance(r, tf.RaggedTensor):
    return {"ragged": tf.nest.map_structure(
        lambda v: v.decode() if isinstance(v, bytes) else v, r.to_list()),
        "dtype": r.dtype.name}
  v = r.numpy()
  v = v.tolist() if v.dtype != object else np.vectorize(lambda b: b.decode())(v).tolist()
  return {"value": v, "dtype": r.dtype.name}


out = {}
for name, cls, kwargs, adapt, inputs in CASES:
  kw = dict(kwargs)
  if isinstance(kw.get("ngrams"), list):
    kw["ngrams"] = tuple(kw["ngrams"])
  layer = getattr(tf.keras.layers, cls)(**kw)
  if adapt is not None:
    layer.adapt(tf.constant(adapt))
  rec = {"outputs": [encode(layer(as_input(x))) for x in inputs]}
  if hasattr(layer, "get_vocabulary"):
    rec["vocabulary"] = [v if not isinstance(v, (np.integer,)) else int(v)
                         for v in layer.get_vocabulary()]
  if getattr(layer, "idf_weights", None) is not None and hasattr(layer.idf_weights, "numpy"):
    rec["idf_weights"] = layer.idf_weights.numpy().tolist()
  out[name] = rec
with open(os.path.join(HERE, "preprocessing_tf.json"), "w") as f:
  json.dump(out, f, indent=0, sort_keys=True)
