"""Op-table rows of tensorlet/ops/conv_extra_ops.py (tf.nn.conv3d, tf.nn.conv1d_transpose):
numerics eager and traced (also with unknown dims) against naive NumPy convolutions, and
finite-difference gradients. Filters are fixed per row (closed over), so traced rows with
unknown input dims still see a static filter, as Keras layers give them."""
import numpy as np
from op_table import F32_64, args, case

import tensorlet as tf
from tests.keras.layers import conv_reference as ref

_K3 = np.random.RandomState(7).standard_normal((2, 3, 2, 2, 3))
_K1T = np.random.RandomState(8).standard_normal((3, 4, 2))


def _c3(x, strides, padding, dilations):
  k = tf.constant(_K3.astype(x.dtype.as_numpy_dtype))
  return tf.nn.conv3d(x, k, strides, padding, dilations=dilations)


def _ref3(strides, padding, dilations):
  return lambda x: ref.conv(x.astype(np.float64), _K3, strides, padding.lower(),
                            dilations).astype(x.dtype)


for name, st, pad, dil, shape in [
    ("valid", [1, 1, 1], "VALID", [1, 1, 1], (2, 4, 5, 4, 2)),
    ("same_strided", [2, 1, 2], "SAME", [1, 1, 1], (1, 5, 4, 5, 2)),
    ("dilated", [1, 1, 1], "VALID", [2, 1, 1], (1, 5, 4, 3, 2))]:
  case(f"nn.conv3d/{name}", lambda x, st=st, pad=pad, dil=dil: _c3(x, st, pad, dil),
       _ref3(st, pad, dil), args(shape), F32_64, rtol=1e-4, atol=1e-5)


def _c1t(x, strides, out_w, padding):
  k = tf.constant(_K1T.astype(x.dtype.as_numpy_dtype))
  n = tf.shape(x)[0]
  return tf.nn.conv1d_transpose(x, k, tf.stack([n, out_w, 4]), strides, padding)


def _ref1t(strides, out_w, padding):
  return lambda x: ref.conv_transpose(x.astype(np.float64), _K1T, [strides], [out_w],
                                      padding.lower(), [1]).astype(x.dtype)


for name, st, out_w, pad in [("same", 2, 10, "SAME"), ("valid", 3, 15, "VALID")]:
  case(f"nn.conv1d_transpose/{name}", lambda x, st=st, w=out_w, pad=pad: _c1t(x, st, w, pad),
       _ref1t(st, out_w, pad), args((2, 5, 2)), F32_64, rtol=1e-4, atol=1e-5)


_K3T = np.random.RandomState(9).standard_normal((3, 2, 3, 4, 2))


def _c3t(x, strides, out_space, padding, in_shape):
  # conv3d_transpose needs static depths (its documented limit): traced rows with
  # unknown dims restore them with a reshape (the batch too, for a constant output_shape).
  x = tf.reshape(x, list(in_shape))
  k = tf.constant(_K3T.astype(x.dtype.as_numpy_dtype))
  return tf.nn.conv3d_transpose(x, k, [in_shape[0]] + out_space + [4], strides, padding)


for name, st, out_space, pad, shape in [
    ("valid", [2, 2, 1], [7, 6, 5], "VALID", (1, 3, 3, 3, 2)),
    ("same", [2, 1, 2], [6, 4, 6], "SAME", (2, 3, 4, 3, 2))]:
  case(f"nn.conv3d_transpose/{name}",
       lambda x, st=st, o=out_space, pad=pad, sh=shape: _c3t(x, st, o, pad, sh),
       lambda x, st=st, o=out_space, pad=pad: ref.conv_transpose(
           x.astype(np.float64), _K3T, st, o, pad.lower(), [1, 1, 1]).astype(x.dtype),
       args(shape), F32_64, rtol=1e-4, atol=1e-5)
