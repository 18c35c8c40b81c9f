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
