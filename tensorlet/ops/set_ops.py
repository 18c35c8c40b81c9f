"""tf.sets kernels: set operations over the last dimension of two sets given as
sparse components (a dense input is every element of its rows)."""
import numpy as np

from tensorlet import dtypes as _dt
from tensorlet.errors import InvalidArgumentError
from tensorlet.ops._common import INT
from tensorlet.ops.registry import op
from tensorlet.tensor_shape import TensorShape

__all__ = ["SetOperation", "SetSize"]

_SET_DTYPES = frozenset(INT | {_dt.string})


def _rows(indices, values, shape):
  """{row prefix tuple: set of values} for sparse components."""
  out = {}
  for i, v in zip(np.asarray(indices).tolist(), np.asarray(values).tolist()):
    out.setdefault(tuple(i[:-1]), set()).add(v)
  return out


def _setop_shape(inputs, attrs):
  r = inputs[0].shape[1] if inputs[0].shape.rank == 2 else None
  return [(TensorShape([None, r]), _dt.int64), (TensorShape([None]), inputs[1].dtype),
          (TensorShape([r]), _dt.int64)]


@op("SetOperation", type_inputs=(1, 4), dtypes=_SET_DTYPES, num_outputs=3,
    shape=_setop_shape, differentiable=False)
def SetOperation(a_indices, a_values, a_shape, b_indices, b_values, b_shape, *,
                 set_operation):
  a_shape, b_shape = np.asarray(a_shape), np.asarray(b_shape)
  if a_shape.size != b_shape.size or a_shape.size < 2 or \
      np.any(a_shape[:-1] != b_shape[:-1]):
    raise InvalidArgumentError(None, None, f"Shapes {a_shape.tolist()} and {b_shape.tolist()} "
                               f"must match in all but the last dimension [Op:SetOperation]")
  ra, rb = _rows(a_indices, a_values, a_shape), _rows(b_indices, b_values, b_shape)
  fn = {"intersection": lambda x, y: x & y, "union": lambda x, y: x | y,
        "a-b": lambda x, y: x - y, "b-a": lambda x, y: y - x}[set_operation]
  idx, vals, width = [], [], 0
  for prefix in np.ndindex(*a_shape[:-1]):
    s = sorted(fn(ra.get(prefix, set()), rb.get(prefix, set())))
    width = max(width, len(s))
    idx += [list(prefix) + [j] for j in range(len(s))]
    vals += s
  out_vals = np.empty(len(vals), dtype=object) if np.asarray(a_values).dtype.kind == "O" else \
      np.asarray(vals, dtype=np.asarray(a_values).dtype).reshape(-1)
  if out_vals.dtype == object:
    out_vals[:] = vals
  return (np.asarray(idx, np.int64).reshape(-1, a_shape.size), out_vals,
          np.asarray(list(a_shape[:-1]) + [width], np.int64))


@op("SetSize", type_inputs=(1,), dtypes=_SET_DTYPES, differentiable=False,
    shape=lambda i, a: [(TensorShape(None), _dt.int32)])
def SetSize(set_indices, set_values, set_shape):
  shape = np.asarray(set_shape)
  rows = _rows(set_indices, set_values, shape)
  out = np.zeros(tuple(shape[:-1]), np.int32)
  for prefix, s in rows.items():
    out[prefix] = len(s)
  return out
