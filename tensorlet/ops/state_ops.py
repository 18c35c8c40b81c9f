"""Variable ops. A variable's handle is an eager tensor of dtype `resource`
whose value is the Variable itself; kernels read or replace its array.

Assignments replace the array instead of writing into it, so every tensor
read earlier keeps the value it had (TF's snapshot semantics for reads) --
except when nothing but the variable refers to the array (its reference count
says so): then updates write in place, which saves an allocation per step.
"""
import sys

import numpy as np

from tensorlet import dtypes as _dt
from tensorlet.errors import InvalidArgumentError
from tensorlet.ops.registry import op

_R = frozenset({_dt.resource})


def variable_of(handle):
  """The Variable behind an eager handle or a graph's captured handle."""
  v = getattr(handle, "_variable", None)
  return v if v is not None else handle._value


def _read_shape(inputs, attrs):
  v = variable_of(inputs[0])
  return [(v.shape, v.dtype)]


@op("ReadVariableOp", dtypes=_R, shape=_read_shape, expr="{0}._value", role="read",
    sparse_grad=True)
def ReadVariableOp(var):
  return var._array_value()


@ReadVariableOp.def_grad
def _(op, dy):
  return [dy]


@op("AssignVariableOp", type_inputs=(0,), dtypes=_R, stateful=True, num_outputs=0,
    shape=lambda i, a: [], differentiable=False)
def AssignVariableOp(var, value):
  # NOTE: checked at run time too: in a graph the value's shape may be unknown
  # until now, and a variable never changes shape unless declared shapeless.
  if not var._shape.is_compatible_with(np.shape(value)):
    raise InvalidArgumentError(
        None, None, f"Trying to assign to variable with tensor with wrong shape. Expected "
        f"{_dims(var._shape)} got {_dims(np.shape(value))} [Op:AssignVariableOp]")
  var._set(value)
  return ()


def _dims(shape):
  """TF's way of printing a shape in kernel messages: [2,3], ? for unknown."""
  dims = shape if isinstance(shape, tuple) else shape.as_list()
  return "[" + ",".join("?" if d is None else str(d) for d in dims) + "]"


@op("AssignAddVariableOp", type_inputs=(0,), dtypes=_R, stateful=True, num_outputs=0,
    shape=lambda i, a: [], differentiable=False)
def AssignAddVariableOp(var, delta):
  _update(var, delta, np.add, "AssignAddVariableOp")
  return ()


@op("AssignSubVariableOp", type_inputs=(0,), dtypes=_R, stateful=True, num_outputs=0,
    shape=lambda i, a: [], differentiable=False)
def AssignSubVariableOp(var, delta):
  _update(var, delta, np.subtract, "AssignSubVariableOp")
  return ()


_getrefcount = sys.getrefcount


def _update(var, delta, ufunc, op_name):
  var._cached = None
  v = var._value
  if v.shape != np.shape(delta):
    raise InvalidArgumentError(
        None, None, f"Cannot update variable with shape {_dims(v.shape)} using a Tensor with "
        f"shape {_dims(np.shape(delta))}, shapes must be equal. [Op:{op_name}]")
  # NOTE: 3 references = the variable's attribute, `v`, getrefcount's argument:
  # no tensor shares the array, so writing into it is unobservable.
  if _getrefcount(v) == 3 and type(v) is np.ndarray and v.flags.writeable:
    ufunc(v, delta, out=v, casting="same_kind")
  else:
    var._set(ufunc(v, delta))


# ------------------------------------------------------- sparse updates (rows)

def _ordered_rows(idx):
  """The positions of `idx` in rounds: each round names every row at most once, and a
  row named k times gets its updates in k rounds, in order of occurrence."""
  order = np.argsort(idx, kind="stable")
  s = idx[order]
  new = np.empty(idx.size, bool)
  new[:1] = True
  np.not_equal(s[1:], s[:-1], out=new[1:])
  starts = np.flatnonzero(new)
  rank = np.arange(idx.size) - np.repeat(starts, np.diff(np.append(starts, idx.size)))
  return [order[rank == r] for r in range(int(rank.max()) + 1)] if idx.size else []


def _trunc_div(a, b):
  if a.dtype.kind in "iu":
    q = np.abs(a) // np.abs(b)
    return np.where((a < 0) != (b < 0), -q, q).astype(a.dtype)
  return a / b


_SCATTER_FNS = {
    "ResourceScatterUpdate": lambda a, b: b, "ResourceScatterAdd": np.add,
    "ResourceScatterSub": np.subtract, "ResourceScatterMul": np.multiply,
    "ResourceScatterDiv": _trunc_div, "ResourceScatterMax": np.maximum,
    "ResourceScatterMin": np.minimum,
}


def _scatter_kernel(name):
  fn = _SCATTER_FNS[name]

  def kernel(var, indices, updates):
    v = var._value
    idx, u = np.asarray(indices), np.asarray(updates)
    shape = np.shape(v)
    if not shape:
      raise InvalidArgumentError(None, None, f"params must be at least 1-D, got [] [Op:{name}]")
    if u.ndim and u.shape != idx.shape + shape[1:]:
      raise InvalidArgumentError(
          None, None, f"Must have updates.shape = indices.shape + params.shape[1:] or "
          f"updates.shape = [], got updates.shape {_dims(u.shape)}, indices.shape "
          f"{_dims(idx.shape)}, params.shape {_dims(shape)} [Op:{name}]")
    flat = idx.reshape(-1)
    bad = (flat < 0) | (flat >= shape[0])
    if bad.any():
      k = int(np.argmax(bad))
      raise InvalidArgumentError(None, None, f"indices[{k}] = {flat[k]} is not in "
                                 f"[0, {shape[0]}) [Op:{name}]")
    if name == "ResourceScatterDiv" and v.dtype.kind in "iu" and not np.all(u):
      raise InvalidArgumentError(None, None, f"updates must not contain 0 [Op:{name}]")
    rows = np.broadcast_to(u, idx.shape + shape[1:]).reshape((flat.size,) + shape[1:])
    var._cached = None
    # NOTE: written in place only when no tensor shares the array (as _update)
    out = v if _getrefcount(v) == 3 and type(v) is np.ndarray and v.flags.writeable \
        else np.array(v, copy=True)
    for p in _ordered_rows(flat):
      out[flat[p]] = fn(out[flat[p]], rows[p])
    var._set(out)
    return ()
  kernel.__name__ = name
  return kernel


def _scatter_op(name):
  return op(name, type_inputs=(0,), dtypes=_R, stateful=True, num_outputs=0,
            shape=lambda i, a: [], differentiable=False)(_scatter_kernel(name))


ResourceScatterUpdate = _scatter_op("ResourceScatterUpdate")
ResourceScatterAdd = _scatter_op("ResourceScatterAdd")
ResourceScatterSub = _scatter_op("ResourceScatterSub")
ResourceScatterMul = _scatter_op("ResourceScatterMul")
ResourceScatterDiv = _scatter_op("ResourceScatterDiv")
ResourceScatterMax = _scatter_op("ResourceScatterMax")
ResourceScatterMin = _scatter_op("ResourceScatterMin")
