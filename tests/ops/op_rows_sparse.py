"""Op-table rows for the sparse kernels (ops/sparse_ops.py) and StringNGrams
(ops/ragged_string_ops.py)."""
import numpy as np

import tensorlet as tf
from op_table import F32_64, args, case, fixed, i32, i64, s_

_IDX = [[0, 1], [1, 0], [1, 3], [2, 2]]
_SHAPE = [3, 4]


def _dense(v, default=0):
  out = np.full(_SHAPE, default, dtype=v.dtype)
  for (r, c), x in zip(_IDX, v):
    out[r, c] = x
  return out


def _sp(v):
  return tf.SparseTensor(_IDX, v, _SHAPE)


case("sparse_to_dense", lambda v: tf.sparse.to_dense(_sp(v)), _dense, args([4]),
     F32_64 + (i32, i64), grad=True)
case("sparse_to_dense/default", lambda v, d: tf.sparse.to_dense(_sp(v), default_value=d),
     lambda v, d: _dense(v, d), args([4], []), F32_64, grad=True)
case("sparse_dense_matmul", lambda v, b: tf.sparse.sparse_dense_matmul(_sp(v), b),
     lambda v, b: _dense(v) @ b, args([4], [4, 2]), F32_64 + (i32,), grad=True)
case("sparse_dense_matmul/adjoint",
     lambda v, b: tf.sparse.sparse_dense_matmul(_sp(v), b, adjoint_a=True, adjoint_b=True),
     lambda v, b: _dense(v).T @ b.T, args([4], [2, 3]), F32_64, grad=True)
case("sparse_dense_matmul/dense_sparse",
     lambda b, v: tf.sparse.sparse_dense_matmul(b, _sp(v)),
     lambda b, v: b @ _dense(v), args([2, 3], [4]), F32_64, grad=True)


def _fill_ref(v):
  # row 1 of [[.., ..], empty, ..] gets the default at column 0
  return np.array([v[0], -1, v[1]], dtype=v.dtype)


case("sparse_fill_empty_rows",
     lambda v: tf.sparse.fill_empty_rows(tf.SparseTensor([[0, 1], [2, 0]], v, [3, 2]),
                                          -1)[0].values,
     _fill_ref, args([2]), F32_64 + (i32,), grad=True)
case("bincount", lambda x: tf.math.bincount(x, minlength=6),
     lambda x: np.bincount(x, minlength=6).astype(np.int32), fixed([1, 1, 3, 0, 3, 3]),
     (i32, i64), grad=False)
case("bincount/weights", lambda x, w: tf.math.bincount(tf.cast(x, tf.int32), weights=w),
     lambda x, w: np.bincount(x.astype(int), w).astype(w.dtype),
     lambda rng, dt: [np.array([0, 2, 2, 1], dt), rng.uniform(0, 1, 4).astype(dt)], F32_64,
     grad=False)
case("bincount/axis", lambda x: tf.math.bincount(x, axis=-1),
     lambda x: np.stack([np.bincount(r, minlength=4) for r in x]).astype(np.int32),
     fixed([[0, 3, 3], [1, 1, 2]]), (i32,), grad=False)
case("string_ngrams", lambda s: tf.strings.ngrams(s, 2),
     lambda s: np.array([b"a bc", b"bc d"], dtype=object), fixed([b"a", b"bc", b"d"]),
     (s_,), grad=False)


def _set_ref(kind):
  def ref(a, b):
    rows = [sorted(kind(set(x.tolist()), set(y.tolist()))) for x, y in zip(a, b)]
    return np.asarray([v for r in rows for v in r], a.dtype)
  return ref


for _name, _kind in [("intersection", lambda x, y: x & y), ("union", lambda x, y: x | y),
                     ("difference", lambda x, y: x - y)]:
  case(f"sets_{_name}", (lambda n: lambda a, b: getattr(tf.sets, n)(a, b).values)(_name),
       _set_ref(_kind), fixed([[1, 2, 2, 3], [4, 5, 6, 6]], [[2, 3, 7, 7], [4, 4, 9, 9]]),
       (i32, i64), grad=False)
case("sets_size", lambda v: tf.sets.size(tf.SparseTensor([[0, 0], [0, 1], [1, 0]], v, [2, 3])),
     lambda v: np.array([len(set(v[:2].tolist())), 1], np.int32), fixed([3, 3, 5]), (i32, i64),
     grad=False)
