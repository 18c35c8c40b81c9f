"""String hashing into buckets, bit-exact with TensorFlow: `to_hash_bucket_fast`
(FarmHash Fingerprint64), `to_hash_bucket_strong` (SipHash-2-4 keyed by two
64-bit words) and the hashed cross of one value per column (SparseCrossHashed's
FingerprintCat64 chain). Keras' Hashing, HashedCrossing and lookup layers use them."""
import numpy as np

from tensorlet import dtypes as _dt
from tensorlet.errors import invalid_argument
from tensorlet.ops._common import as_int
from tensorlet.ops._string_hash import fingerprint64, fingerprint_cat64, siphash
from tensorlet.ops.registry import execute, op
from tensorlet.ops.string_ops import _strings

_STR = frozenset({_dt.string})


def _bucket_shape(inputs, attrs):
  return [(inputs[0].shape, _dt.int64)]


@op("StringToHashBucketFast", dtypes=_STR, shape=_bucket_shape, differentiable=False)
def StringToHashBucketFast(input, *, num_buckets):  # noqa: A002
  return (fingerprint64(input) % np.uint64(num_buckets)).astype(np.int64)


@op("StringToHashBucketStrong", dtypes=_STR, shape=_bucket_shape, differentiable=False)
def StringToHashBucketStrong(input, *, num_buckets, key):  # noqa: A002
  return (siphash(input, key) % np.uint64(num_buckets)).astype(np.int64)


def _num_buckets(num_buckets, name):
  n = as_int(num_buckets, name, "num_buckets")
  if n < 1:
    raise invalid_argument(name, f"Value for attr 'num_buckets' of {n} must be at least "
                                 f"minimum 1")
  return n


def to_hash_bucket_fast(input, num_buckets, name=None):  # noqa: A002
  """The bucket in [0, num_buckets) of each string: FarmHash64 modulo num_buckets.

  Example:
    >>> tf.strings.to_hash_bucket_fast(["Hello", "TensorFlow", "2.x"], 3).numpy()
    array([0, 2, 2])
  """
  x = _strings(input, "to_hash_bucket_fast")
  return execute(StringToHashBucketFast, [x],
                 {"num_buckets": _num_buckets(num_buckets, "StringToHashBucketFast")})


def to_hash_bucket_strong(input, num_buckets, key, name=None):  # noqa: A002
  """The bucket of each string under SipHash-2-4 keyed by `key` (two ints): a hash
  that is hard to collide on purpose without knowing the key.

  Example:
    >>> tf.strings.to_hash_bucket_strong(["Hello", "TF"], 3, [1, 2]).numpy()
    array([2, 0])
  """
  x = _strings(input, "to_hash_bucket_strong")
  n = _num_buckets(num_buckets, "StringToHashBucketStrong")
  key = list(np.asarray(key).reshape(-1)) if not isinstance(key, (list, tuple)) else list(key)
  if len(key) != 2:
    raise invalid_argument("StringToHashBucketStrong", "Key must have 2 elements")
  key = tuple(as_int(k, "StringToHashBucketStrong", "key", wide=True) % 2 ** 64 for k in key)
  return execute(StringToHashBucketStrong, [x], {"num_buckets": n, "key": key})


# tf.sparse.cross_hashed's default key.
DEFAULT_CROSS_KEY = 0xDECAFCAFFE


def _cross_shape(inputs, attrs):
  return [(inputs[0].shape, _dt.int64)]


@op("HashedCross", type_inputs=(), shape=_cross_shape, differentiable=False)
def HashedCross(*columns, num_buckets, hash_key):
  """The bucket of the cross of the i-th values of all columns: strings enter by their
  Fingerprint64, integers as their 64-bit value (as SparseCrossHashed)."""
  h = np.full(np.shape(columns[0]), np.uint64(hash_key), np.uint64)
  for col in columns:
    col = np.asarray(col)
    feature = fingerprint64(col) if col.dtype == object else col.astype(np.int64).view(np.uint64)
    h = fingerprint_cat64(h, feature)
  n = np.uint64(num_buckets if num_buckets > 0 else 2 ** 63 - 1)
  return (h % n).astype(np.int64)


def hashed_cross(columns, num_buckets=0, hash_key=None, name=None):
  """Per position, the hashed cross of one value of each column (equal-shape tensors of
  strings or integers), as tf.sparse.cross_hashed gives for one value per row."""
  from tensorlet.tensor import convert_to_tensor
  cols = [convert_to_tensor(c) for c in columns]
  for c in cols:
    if c.dtype is not _dt.string and not c.dtype.is_integer:
      raise TypeError(f"hashed_cross: columns must be strings or integers, got {c.dtype.name}")
  return execute(HashedCross, cols, {
      "num_buckets": as_int(num_buckets, "HashedCross", "num_buckets"),
      "hash_key": as_int(DEFAULT_CROSS_KEY if hash_key is None else hash_key, "HashedCross",
                         "hash_key", wide=True) % 2 ** 64})
