"""Op-table rows of SparseCrossRows (tf.sparse.cross / cross_hashed on dense inputs)
against itertools.product; the hashed values are checked against real TF in
test_sparse_cross_ops.py. Not differentiable."""
import itertools

import numpy as np

import tensorlet as tf
from op_table import case, s_

_A = np.array([[b"a", b"b"], [b"c", b"d"]], dtype=object)
_B = np.array([[b"x"], [b"yz"]], dtype=object)


def _parts(sp):
  return [sp.indices, sp.values, sp.dense_shape]


def _ref(a, b, sep=b"_X_"):
  idx, vals = [], []
  for r in range(a.shape[0]):
    for j, combo in enumerate(itertools.product(a[r].tolist(), b[r].tolist())):
      idx.append([r, j])
      vals.append(sep.join(combo))
  return [np.array(idx, np.int64), np.array(vals, dtype=object),
          np.array([a.shape[0], len(vals) // a.shape[0]], np.int64)]


case("sparse_cross", lambda a, b: _parts(tf.sparse.cross([a, b])), _ref,
     lambda rng, dtype: [_A, _B], [s_], grad=False)
case("sparse_cross/separator", lambda a, b: _parts(tf.sparse.cross([a, b], separator="-")),
     lambda a, b: _ref(a, b, b"-"), lambda rng, dtype: [_A, _B], [s_], grad=False)
