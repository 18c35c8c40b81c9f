"""String hashing into buckets, bit-exact with TensorFlow: `to_hash_bucket_fast`
(FarmHash Fingerprint64) and `to_hash_bucket_strong` (SipHash-2-4 keyed by two
64-bit words). Keras' Hashing and lookup layers hash with them."""
import numpy as np

from tensorlet import dtypes as _dt
from tensorlet.errors import invalid_argument
from tensorlet.ops._common import as_int, name_scoped
from tensorlet.ops._string_hash import fingerprint64, siphash
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


@name_scoped
def to_hash_bucket_fast(input, num_buckets, name=None):  # noqa: A002
  """The bucket in [0, num_buckets) of each string: FarmHash64 modulo num_buckets.

  Example:
    >>> tf.strings.to_hash_bucket_fast(["Hello", "TensorFlow", "2.x"], 3).numpy()
    array([0, 2, 2])
  """
  x = _strings(input, "to_hash_bucket_fast")
  return execute(StringToHashBucketFast, [x],
                 {"num_buckets": _num_buckets(num_buckets, "StringToHashBucketFast")})


@name_scoped
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

