"""The op of tf.sparse.cross / cross_hashed (tensorlet/sparse/sparse_cross.py): per row, every combination of one value from each
input (the sparse inputs first, then the dense ones, as TF's op takes them; the last
varying fastest), joined as strings with a separator or hashed with TF's
FingerprintCat64 chain (strings by Fingerprint64, integers as themselves)."""
import itertools

import numpy as np

from tensorlet import dtypes as _dt
from tensorlet.ops._string_hash import fingerprint64, fingerprint_cat64
from tensorlet.ops.registry import op

# tf.sparse.cross_hashed's default key.
DEFAULT_CROSS_KEY = 0xDECAFCAFFE


def _cross_shape(inputs, attrs):
  out = _dt.int64 if attrs["hashed"] else _dt.string
  return [((None, 2), _dt.int64), ((None,), out), ((2,), _dt.int64)]


def _rows(row_ids, nrows):
  starts = np.searchsorted(row_ids, np.arange(nrows), side="left")
  ends = np.searchsorted(row_ids, np.arange(nrows), side="right")
  return starts, ends


def _as_text(v):
  return v if isinstance(v, bytes) else str(int(v)).encode()


@op("SparseCrossRows", type_inputs=(), num_outputs=3, shape=_cross_shape,
    differentiable=False)
def SparseCrossRows(nrows, *parts, hashed, num_buckets, hash_key, separator):
  nrows = int(nrows)
  columns = [(np.asarray(parts[i]), np.asarray(parts[i + 1])) for i in range(0, len(parts), 2)]
  spans = [_rows(ids, nrows) for ids, _ in columns]
  if hashed:
    feats = [fingerprint64(v) if v.dtype == object else v.astype(np.int64).view(np.uint64)
             for _, v in columns]
  indices, values = [], []
  for r in range(nrows):
    ranges = [range(s[0][r], s[1][r]) for s in spans]
    combos = list(itertools.product(*ranges))
    if not combos or not all(ranges):
      continue
    combos = np.array(combos, np.int64).reshape(len(combos), len(columns))
    if hashed:
      h = np.full(len(combos), np.uint64(hash_key), np.uint64)
      for c, f in enumerate(feats):
        h = fingerprint_cat64(h, f[combos[:, c]])
      n = np.uint64(num_buckets if num_buckets > 0 else 2 ** 63 - 1)
      values.append((h % n).astype(np.int64))
    else:
      sep = separator.encode()
      values.append(np.array([sep.join(_as_text(columns[c][1][i]) for c, i in enumerate(row))
                              for row in combos.tolist()], dtype=object))
    indices.append(np.stack([np.full(len(combos), r, np.int64),
                             np.arange(len(combos), dtype=np.int64)], 1))
  width = max((len(v) for v in values), default=0)
  out_dtype = np.int64 if hashed else object
  return (np.concatenate(indices) if indices else np.zeros((0, 2), np.int64),
          np.concatenate(values) if values else np.zeros((0,), out_dtype),
          np.array([nrows, width], np.int64))
