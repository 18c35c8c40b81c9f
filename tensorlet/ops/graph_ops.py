"""Ops that exist only in graphs: constants and the placeholders of inputs."""
from tensorlet.ops._common import ALL
from tensorlet.ops.registry import op
from tensorlet.tensor_shape import TensorShape


def _const_shape(inputs, attrs):
  import numpy as np
  return [(TensorShape(np.shape(attrs["value"])), attrs["dtype"])]


@op("Const", type_inputs=(), shape=_const_shape, differentiable=False, role="const")
def Const(*, value, dtype):
  return value


def _placeholder_kernel(*, dtype, shape):
  raise RuntimeError("a Placeholder is fed by the caller and never executed")


Placeholder = op("Placeholder", type_inputs=(), differentiable=False, role="placeholder",
                 shape=lambda i, a: [(a["shape"], a["dtype"])])(_placeholder_kernel)
del ALL
