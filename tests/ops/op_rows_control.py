"""Op-table rows of control flow, function calls, variables, TensorArrays and checks:
tf.cond (If/StatelessIf), tf.while_loop (While and the history ops its gradient
reads), calls of nested tf.functions (PartitionedCall/StatefulPartitionedCall),
variable assign/read, TensorArray (TensorList* ops, whose gradients add variants),
tf.debugging.check_numerics/Assert, tf.print, tf.py_function/numpy_function."""
import numpy as np
from op_table import F32_64, REAL, args, case, same

import tensorlet as tf


def _cond(x):
  return tf.cond(tf.reduce_sum(x) > 0, lambda: x * x, lambda: x - 1.0)


case("cond", _cond, same(lambda x: x * x if x.sum() > 0 else x - 1), args([2, 3]), F32_64,
     order=2)
case("cond/false", _cond, same(lambda x: x * x if x.sum() > 0 else x - 1),
     args([2, 3], lo=-2, hi=-1), F32_64)
_COUNTER = {}


def _counter(dtype):
  """One variable per dtype, made on the first (eager) call, read by later traces."""
  if dtype not in _COUNTER:
    _COUNTER[dtype] = tf.Variable(np.zeros([], dtype.as_numpy_dtype))
  return _COUNTER[dtype]


def _stateful_cond(x):
  c = _counter(x.dtype)
  return tf.cond(tf.reduce_sum(x) > 0, lambda: c.assign_add(tf.ones([], x.dtype)) * 0 + x,
                 lambda: x)


case("cond/stateful_branch", _stateful_cond, lambda x: x, args([3], lo=0.5, hi=1), F32_64,
     grad=False)


def _power_loop(x):
  _, y = tf.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a * x), [0, tf.ones_like(x)])
  return y


case("while_loop", _power_loop, same(lambda x: x ** 3), args([2, 3]), F32_64, order=2)
case("while_loop/cumsum", lambda x: tf.while_loop(
    lambda i, a: i < tf.shape(x)[0], lambda i, a: (i + 1, a + x[i]),
    [0, tf.zeros_like(x[0])])[1], same(lambda x: x.sum(0)), args([4, 2]), F32_64)

_DOUBLE = tf.function(lambda x: x * 2.0)
case("function_call", lambda x: _DOUBLE(x) + 1.0, same(lambda x: x * 2 + 1), args([2, 3]),
     F32_64)
_CALLS = {}


def _stateful_call(x):
  c = _counter(x.dtype)
  if x.dtype not in _CALLS:
    _CALLS[x.dtype] = tf.function(lambda y: (c.assign_add(tf.ones([], y.dtype)), y * 3.0)[1])
  return _CALLS[x.dtype](x)


case("function_call/stateful", _stateful_call, same(lambda x: x * 3), args([2, 3]), F32_64)
_VARS = {}


def _assigns(x):
  """assign, assign_add, assign_sub, then read: (x + x) - x / 2."""
  if x.dtype not in _VARS:
    _VARS[x.dtype] = tf.Variable(np.zeros([0], x.dtype.as_numpy_dtype),
                                 shape=tf.TensorShape(None))
  v = _VARS[x.dtype]
  v.assign(x)
  v.assign_add(x)
  v.assign_sub(x // 2 if x.dtype.is_integer else x / 2)
  return v.read_value()


case("variable.assign_add_sub_read", _assigns,
     same(lambda x: x + x - (x // 2 if x.dtype.kind in "iu" else x / 2)), args([2, 3]),
     F32_64 + (np.int32, np.int64), grad=False)


def _read_grad(x):
  if ("g", x.dtype) not in _VARS:
    _VARS["g", x.dtype] = tf.Variable(np.ones([3], x.dtype.as_numpy_dtype))
  v = _VARS["g", x.dtype]
  return v * x  # reads the variable (ReadVariableOp) into a differentiable product


case("variable.read_times_x", _read_grad, same(lambda x: x), args([3]), F32_64)


def _tensor_array(x):
  """unstack, read/write in a loop, stack and concat: rows reversed, then doubled."""
  n = tf.shape(x)[0]
  src = tf.TensorArray(x.dtype, size=n).unstack(x)
  dst = tf.TensorArray(x.dtype, size=n)
  _, dst = tf.while_loop(lambda i, ta: i < n,
                         lambda i, ta: (i + 1, ta.write(n - 1 - i, src.read(i) * 2.0)),
                         [0, dst])
  parts = tf.TensorArray(x.dtype, size=2, infer_shape=False).split(x, [1, n - 1])
  return [dst.stack(), parts.concat(), tf.cast(dst.size(), x.dtype)]


case("tensor_array", _tensor_array,
     lambda x: [x[::-1] * 2, x, np.array(x.shape[0], x.dtype)], args([4, 3]), F32_64)


def _reserve(x):
  ta = tf.TensorArray(x.dtype, size=3, element_shape=[3])
  ta = ta.write(1, x[0])
  return ta.stack()  # unwritten elements read as zeros


case("tensor_array/unwritten", _reserve,
     same(lambda x: np.stack([np.zeros_like(x[0]), x[0], np.zeros_like(x[0])])),
     args([2, 3]), F32_64)
case("debugging.check_numerics", lambda x: tf.debugging.check_numerics(x, "x") * 2.0,
     same(lambda x: x * 2), args([2, 3]), F32_64)


def _asserted(x):
  with tf.control_dependencies([tf.debugging.Assert(tf.reduce_all(tf.math.is_finite(x)),
                                                    [x])]):
    return tf.identity(x)


case("debugging.Assert", _asserted, lambda x: x, args([2, 3]), F32_64, grad=False)


def _printed(x):
  with tf.control_dependencies([tf.print("x:", x, output_stream="file:///dev/null")]):
    return x + 0


case("print", _printed, lambda x: x, args([2]), REAL, grad=False)
case("py_function", lambda x: tf.py_function(lambda a: a * 2, [x], x.dtype),
     same(lambda x: x * 2), args([2, 3]), F32_64)
case("numpy_function", lambda x: tf.numpy_function(lambda a: a * 2, [x], x.dtype),
     same(lambda x: x * 2), args([2, 3]), F32_64, grad=False)
