"""Op-table rows of the vocabulary lookup op (ops/lookup_ops.py): numerics eagerly and
traced, against a Python dict. Not differentiable."""
import numpy as np

from op_table import case, fixed, i32, i64, s_
from tensorlet.ops.lookup_ops import vocabulary_lookup

_WORDS = np.array([[b"b", b"zz"], [b"", b"a"]], dtype=object)
_VOCAB = np.array([b"a", b"b", b""], dtype=object)
_INTS = np.array([[3, 9, -1], [7, 3, 0]])
_IVOCAB = np.array([7, 3, 0, 11])


def _ref(keys, vocab, offset, default):
  index = {v: i for i, v in enumerate(vocab.tolist())}
  return np.vectorize(lambda k: index[k] + offset if k in index else default,
                      otypes=[np.int64])(keys)


case("vocabulary_lookup/strings", lambda k, v: vocabulary_lookup(k, v, offset=2, default=1),
     lambda k, v: _ref(k, v, 2, 1), fixed(_WORDS, _VOCAB), [s_], grad=False)
case("vocabulary_lookup/ints", lambda k, v: vocabulary_lookup(k, v, offset=0, default=-1),
     lambda k, v: _ref(k, v, 0, -1), fixed(_INTS, _IVOCAB), [i32, i64], grad=False)
case("vocabulary_lookup/empty_vocabulary",
     lambda k, v: vocabulary_lookup(k, v[:0], offset=1, default=0),
     lambda k, v: np.zeros(k.shape, np.int64), fixed(_INTS, _IVOCAB), [i64], grad=False)
