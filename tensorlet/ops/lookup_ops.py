"""Vocabulary lookup: the position of each key in a vocabulary tensor (the
StaticHashTable find of Keras' lookup layers). The vocabulary is an input, so a
traced function reads a variable holding it and sees later changes; its index (a
dict) is built once per vocabulary array and cached while that array lives."""
import weakref

import numpy as np

from tensorlet import dtypes as _dt
from tensorlet.errors import invalid_argument
from tensorlet.ops._common import name_scoped
from tensorlet.ops.registry import execute, op

_KEYS = frozenset({_dt.string, _dt.int32, _dt.int64})
_INDEX = {}  # id(vocabulary array) -> (weakref to it, {key: position})


def _forget(key, ref):
  hit = _INDEX.get(key)
  if hit is not None and hit[0] is ref:
    del _INDEX[key]


def _index_of(vocab):
  key = id(vocab)
  hit = _INDEX.get(key)
  if hit is not None and hit[0]() is vocab:
    return hit[1]
  index = {v: i for i, v in enumerate(vocab.tolist())}
  try:
    ref = weakref.ref(vocab, lambda r, k=key: _forget(k, r))
  except TypeError:  # a NumPy scalar: nothing to cache
    return index
  _INDEX[key] = (ref, index)
  return index


def _shape(inputs, attrs):
  return [(inputs[0].shape, _dt.int64)]


@op("VocabularyLookup", dtypes=_KEYS, type_inputs=(0, 1), shape=_shape, differentiable=False)
def VocabularyLookup(keys, vocabulary, *, offset, default, strict):
  index = _index_of(vocabulary)
  flat = np.asarray(keys).reshape(-1)
  get = index.get
  pos = np.fromiter((get(k, -1) for k in flat.tolist()), np.int64, flat.size)
  found = pos >= 0
  if strict and not found.all():
    missing = flat[~found]
    shown = " ".join(f'"{v.decode("utf-8", "replace")}"' if isinstance(v, bytes) else str(v)
                     for v in missing.tolist())
    raise invalid_argument("VocabularyLookup",
                           f"When `num_oov_indices=0` all inputs should be in vocabulary, "
                           f"found OOV values [{shown}], consider setting "
                           f"`num_oov_indices=1`.")
  return np.where(found, pos + offset, default).reshape(np.shape(keys))


@name_scoped
def vocabulary_lookup(keys, vocabulary, offset=0, default=-1, strict=False, name=None):
  """`offset` + the position of each key in the 1-D `vocabulary`, `default` for keys
  not in it (an InvalidArgumentError for them when `strict`)."""
  return execute(VocabularyLookup, [keys, vocabulary],
                 {"offset": int(offset), "default": int(default), "strict": bool(strict)})
