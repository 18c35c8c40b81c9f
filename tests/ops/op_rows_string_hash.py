"""Op-table rows of the string hash ops (ops/string_hash_ops.py) against real
TensorFlow's values (string_hash_tf.json, written by make_string_hash_fixture.py)."""
import json
import os

import numpy as np

import tensorlet as tf
from op_table import case, fixed, s_

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "string_hash_tf.json")) as f:
  _TF = json.load(f)
_STRINGS = np.array([bytes.fromhex(h) for h in _TF["strings"]], dtype=object)


def _const(values):
  return lambda x: np.array(values, np.int64)


for n, values in _TF["fast"].items():
  case(f"to_hash_bucket_fast/{n}", lambda x, n=int(n): tf.strings.to_hash_bucket_fast(x, n),
       _const(values), fixed(_STRINGS), [s_], grad=False)
for row in _TF["strong"]:
  case(f"to_hash_bucket_strong/{row['key']}/{row['num_buckets']}",
       lambda x, k=row["key"], n=row["num_buckets"]: tf.strings.to_hash_bucket_strong(x, n, k),
       _const(row["values"]), fixed(_STRINGS), [s_], grad=False)

# tf.sparse.cross_hashed of one value per row against a Python FingerprintCat64 chain
# (TF's own values: test_sparse_cross_ops.py and the Keras HashedCrossing fixture).

_M = (1 << 64) - 1


def _cat64(a, b):
  mul = 0xc6a4a7935bd1e995
  mix = lambda v: v ^ (v >> 47)  # noqa: E731
  r = (a ^ mul) & _M
  r ^= (mix((b * mul) & _M) * mul) & _M
  r = (r * mul) & _M
  return mix((mix(r) * mul) & _M)


def _cross_ref(words, ints):
  from tensorlet.ops._string_hash import fingerprint64
  return np.array([_cat64(_cat64(0xDECAFCAFFE, int(f)), int(i) & _M) % 1000003
                   for f, i in zip(fingerprint64(words).tolist(), ints.tolist())], np.int64)


_CROSS_WORDS = np.array([b"a", b"bc", b"", b"x" * 70], dtype=object)
_CROSS_INTS = np.array([1, -5, 2 ** 40, 0], np.int64)
case("cross_hashed", lambda w, i: tf.sparse.cross_hashed(
    [tf.reshape(w, [-1, 1]), tf.reshape(i, [-1, 1])], 1000003).values, _cross_ref,
     lambda rng, dtype: [_CROSS_WORDS, _CROSS_INTS], [s_], grad=False)
