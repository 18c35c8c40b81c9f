"""Writes keras2_lookup_model.keras: a tf_keras 2.21 functional model with an adapted
StringLookup (tf_idf), IntegerLookup, Hashing and TextVectorization, and
keras2_lookup_model.json: its outputs on fixed inputs. Run with /work/tfref/bin/python."""
import json
import os

os.environ["TF_USE_LEGACY_KERAS"] = "1"
os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
L = tf.keras.layers
words = L.Input((None,), dtype="string", name="words")
text = L.Input((1,), dtype="string", name="text")
ids = L.Input((3,), dtype="int64", name="ids")
lookup = L.StringLookup(output_mode="tf_idf", name="lookup")
lookup.adapt(tf.constant([["a", "b"], ["a", "c"]]))
ints = L.IntegerLookup(vocabulary=[5, 6, 7], output_mode="multi_hot", name="ints")
vectorize = L.TextVectorization(max_tokens=10, output_sequence_length=4, name="vectorize")
vectorize.adapt(["x y z", "x y", "the x"])
hashing = L.Hashing(5, salt=[3, 4], name="hashing")
model = tf.keras.Model([words, text, ids],
                       [lookup(words), vectorize(text), hashing(words), ints(ids)])
model.save(os.path.join(HERE, "keras2_lookup_model.keras"))
inputs = [[["a", "q"], ["c", "b"]], [["z x q"], ["the end"]], [[5, 1, 7], [6, 6, 6]]]
outs = model([tf.constant(x) for x in inputs])
with open(os.path.join(HERE, "keras2_lookup_model.json"), "w") as f:
  json.dump({"inputs": inputs, "outputs": [o.numpy().tolist() for o in outs]}, f)
