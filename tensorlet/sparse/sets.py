"""tf.sets: size, intersection, union and difference of the sets in the last
dimension of dense or sparse tensors; results are SparseTensors with each
row's values sorted."""
from tensorlet import dtypes as _dt
from tensorlet.ops import array_ops as A
from tensorlet.ops import set_ops as K
from tensorlet.ops.registry import execute
from tensorlet.sparse.sparse_tensor import SparseTensor
from tensorlet.tensor import convert_to_tensor

__all__ = ["size", "intersection", "union", "difference"]


def _components(x):
  if isinstance(x, SparseTensor):
    return [x.indices, x.values, x.dense_shape]
  t = convert_to_tensor(x)
  if t.shape.rank is not None and t.shape.rank < 2:
    raise ValueError(f"tf.sets: a dense set input must have rank >= 2, got shape {t.shape}")
  every = A.where(A.fill(A.shape(t), True))
  return [every, A.reshape(t, [-1]), A.shape(t, out_type=_dt.int64)]


def _check_dtypes(a, b):
  if a[1].dtype is not b[1].dtype:
    raise TypeError(f"tf.sets: the two sets must have the same dtype, got {a[1].dtype.name} "
                    f"and {b[1].dtype.name}")


def _op(a, b, kind):
  ca, cb = _components(a), _components(b)
  _check_dtypes(ca, cb)
  i, v, s = execute(K.SetOperation, ca + cb, {"set_operation": kind})
  return SparseTensor(i, v, s)


def set_size(a, validate_indices=True):
  """The number of distinct values in each set (last dimension) of a SparseTensor."""
  if not isinstance(a, SparseTensor):
    raise TypeError(f"Expected `SparseTensor`, got {a!r}.")
  return execute(K.SetSize, _components(a), {})


def set_intersection(a, b, validate_indices=True):
  return _op(a, b, "intersection")


def set_union(a, b, validate_indices=True):
  return _op(a, b, "union")


def set_difference(a, b, aminusb=True, validate_indices=True):
  return _op(a, b, "a-b" if aminusb else "b-a")


size, intersection, union, difference = set_size, set_intersection, set_union, set_difference


from tensorlet._unsupported import getattr_for as _getattr_for  # noqa: E402
__getattr__ = _getattr_for("tf.sets", __name__)
