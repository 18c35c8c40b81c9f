"""tf.sparse.cross / cross_hashed against real TF 2.21 (sparse_cross_tf.json, written by
make_sparse_cross_fixture.py), eagerly and traced, and their errors."""
import json
import os

import numpy as np
import pytest

import tensorlet as tf
from sparse_cross_cases import CASES, inputs

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "sparse_cross_tf.json")) as f:
  TF = json.load(f)


@pytest.mark.parametrize("name,fn,kwargs", CASES, ids=[c[0] for c in CASES])
def test_matches_tensorflow(name, fn, kwargs):
  args = inputs(tf, name)
  eager = getattr(tf.sparse, fn)(args, **kwargs)
  traced = tf.function(lambda *xs: getattr(tf.sparse, fn)(list(xs), **kwargs))(*args)
  idx, vals, shape = TF[name]
  for sp in (eager, traced):
    assert sp.indices.numpy().tolist() == idx
    got = sp.values.numpy().tolist()
    assert [v.decode() if isinstance(v, bytes) else v for v in got] == vals
    assert sp.dense_shape.numpy().tolist() == shape


def test_python_reference_and_errors():
  rows = [["p", "q"], ["r", "s"]]
  ints = np.array([[1], [2]], np.int64)
  sp = tf.sparse.cross([tf.constant(rows), ints], separator="|")
  import itertools
  want = ["|".join(p) for r, i in zip(rows, ints.tolist())
          for p in itertools.product(r, [str(v) for v in i])]
  assert [v.decode() for v in sp.values.numpy().tolist()] == want
  empty = tf.sparse.cross([])
  assert empty.dense_shape.numpy().tolist() == [0, 0] and empty.values.dtype == tf.string
  with pytest.raises(tf.errors.InvalidArgumentError, match="should be a matrix"):
    tf.sparse.cross([tf.constant(["a"])])
  with pytest.raises(TypeError):
    tf.sparse.cross_hashed(tf.constant([["a"]]))
