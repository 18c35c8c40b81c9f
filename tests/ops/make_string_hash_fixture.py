"""Writes string_hash_tf.json: real TensorFlow's to_hash_bucket_fast/strong of strings
of every length class FarmHash and SipHash distinguish. Run with /work/tfref/bin/python."""
import json
import os

os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

rng = np.random.RandomState(0)
strings = [bytes(rng.randint(0, 256, size=n).astype(np.uint8))
           for n in list(range(0, 140)) + [191, 192, 193, 255, 256, 1000]]
strings += ["héllo".encode(), b"hello", b"world", b"[UNK]", b"1", b"-1"]
big = 2 ** 63 - 1
keys = [[1, 2], [2 ** 40 + 7, 12345678901234], [-1, 0]]
out = {"strings": [s.hex() for s in strings],
       "fast": {str(n): tf.strings.to_hash_bucket_fast(strings, n).numpy().tolist()
                for n in (big, 1000, 3)},
       "strong": [{"key": k, "num_buckets": n,
                   "values": tf.strings.to_hash_bucket_strong(strings, n, k).numpy().tolist()}
                  for k in keys for n in (big, 7)]}
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "string_hash_tf.json"),
          "w") as f:
  json.dump(out, f)
