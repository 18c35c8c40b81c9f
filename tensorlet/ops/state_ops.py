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


@op("ReadVariableOp", dtypes=_R, shape=_read_shape, expr="{0}._value", role="read")
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
