"""Op-table rows for the numerics check node (CheckNumericsV2, which
tf.debugging.enable_check_numerics puts after graph ops) and the control
dependency helpers (tf.tuple, whose traced form uses tf.group's NoOp)."""
import numpy as np

import tensorlet as tf
from op_table import F32_64, FLOAT_C, args, case
from tensorlet.ops.numerics import CheckNumericsV2
from tensorlet.ops.registry import execute



def _checked(x):
  return execute(CheckNumericsV2, [tf.convert_to_tensor(x)], {"message": "check"})


case("debugging/check_numerics_v2", _checked, lambda x: x, args([2, 3]), FLOAT_C, grad=False)
case("debugging/check_numerics_v2/grad", lambda x: _checked(x) * x, lambda x: x * x,
     args([3]), F32_64, grad=True)
case("tuple", lambda x, y: tf.tuple([x * 2, y])[0] + tf.tuple([y])[0],
     lambda x, y: (x * 2 + y).astype(x.dtype), args([2, 3], [2, 3]), F32_64, grad=True)
case("group/no_op", lambda x: (tf.group(x), tf.no_op(), x + 1)[2],
     lambda x: (x + 1).astype(x.dtype), args([4]), (np.float32,), grad=False)
