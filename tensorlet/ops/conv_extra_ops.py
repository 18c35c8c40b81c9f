"""tf.nn.conv3d and tf.nn.conv1d_transpose as compositions of the Conv2D ops.

A 3-D convolution is a sum over the depth taps of 2-D convolutions: for each
tap the strided depth slices are folded into the batch and convolved with
that tap's 2-D filter. A 1-D transposed convolution is the 2-D one on inputs
of height 1. Both inherit every gradient from the ops they are made of.
"""
import numbers

import numpy as np

from tensorlet.ops import array_ops as _a
from tensorlet.ops import conv_ops as _c
from tensorlet.ops import math_ops as _m
from tensorlet.tensor import Tensor, convert_to_tensor

__all__ = ["conv3d", "conv1d_transpose"]


def _seq(value, n, name, channels_first):
  """An int or n or n + 2 ints -> the n spatial values (TF's strides/dilations rules)."""
  if value is None:
    return [1] * n
  v = [value] if isinstance(value, numbers.Integral) else [int(x) for x in value]
  if len(v) == 1:
    return v * n
  if len(v) == n:
    return v
  if len(v) == n + 2:
    outer = (v[0], v[1]) if channels_first else (v[0], v[-1])
    if outer != (1, 1):
      raise ValueError(f"{name} in the batch and depth dimensions must be 1. Received: "
                       f"{name}={list(v)}")
    return v[2:] if channels_first else v[1:-1]
  raise ValueError(f"{name} should be of length 1, {n} or {n + 2}. Received: {name}={list(v)}")


def _same_pads(n, k, stride, dilation):
  k = (k - 1) * dilation + 1
  out = (n + stride - 1) // stride
  total = max((out - 1) * stride + k - n, 0)
  return total // 2, total - total // 2


def conv3d(input, filters, strides, padding, data_format="NDHWC", dilations=None,  # noqa: A002
           name=None):
  """3-D convolution of NDHWC `input` with DHWIO `filters`.

  Args:
    input: [batch, depth, height, width, in_channels] (NCDHW with data_format="NCDHW").
    filters: [filter_depth, filter_height, filter_width, in_channels, out_channels].
    strides, dilations: an int or lists of 1, 3 or 5 ints.
    padding: "SAME" or "VALID".
  Raises:
    ValueError: for bad arguments or shapes that are not static where needed.
  """
  if data_format not in ("NDHWC", "NCDHW"):
    raise ValueError(f"`data_format` must be 'NDHWC' or 'NCDHW'. Received: {data_format}")
  if padding not in ("SAME", "VALID"):
    raise ValueError(f"`padding` must be 'SAME' or 'VALID'. Received: padding={padding}")
  first = data_format == "NCDHW"
  x = convert_to_tensor(input)
  f = convert_to_tensor(filters, dtype=x.dtype)
  if x.shape.rank != 5 or f.shape.rank != 5:
    raise ValueError(f"conv3d needs 5-D input and filters. Received: input.shape={x.shape}, "
                     f"filters.shape={f.shape}")
  if not f.shape.is_fully_defined():
    raise ValueError(f"conv3d needs a static filter shape. Received: filters.shape={f.shape}")
  s = _seq(strides, 3, "strides", first)
  d = _seq(dilations, 3, "dilations", first)
  if first:
    x = _a.transpose(x, [0, 2, 3, 4, 1])
  c = x.shape[4]
  if c is not None and f.shape[3] != c:
    raise ValueError(f"conv3d: input depth must equal the filter's in_channels: {c} vs "
                     f"{f.shape[3]}")
  kd = f.shape[0]
  span = (kd - 1) * d[0] + 1
  depth = x.shape[1]
  if padding == "SAME":
    x = _pad_depth(x, depth, span, s[0])
    depth = None if depth is None else depth + sum(_same_pads(depth, kd, s[0], d[0]))
  if depth is not None and depth < span:
    raise ValueError(f"conv3d: the dilated filter depth {span} exceeds the input depth "
                     f"{depth}.")
  dyn = _a.shape(x)
  out = None
  for k in range(kd):
    start = k * d[0]
    # The depth positions tap k reads: start, start + s, ... (as many as outputs); a
    # stop counted from the end needs no static depth.
    sl = x[:, start:(start - span + 1) or None:s[0]]
    y = _c.conv2d(_a.reshape(sl, _a.concat([[-1], dyn[2:]], 0)), f[k], strides=s[1:],
                  padding=padding, dilations=d[1:])
    out = y if out is None else out + y
  ys = _a.shape(out)
  out = _a.reshape(out, _a.stack([dyn[0], -1, ys[1], ys[2], ys[3]]))
  od = None if depth is None else (depth - span) // s[0] + 1
  out.set_shape([x.shape[0], od, y.shape[1], y.shape[2], f.shape[4]])
  return _a.transpose(out, [0, 4, 1, 2, 3]) if first else out


def _pad_depth(x, depth, span, stride):
  """x with TF's SAME zero padding on the depth axis (computed at run time when the depth
  is not static: zeros are concatenated, as Pad needs constant paddings)."""
  if depth is not None:
    out = (depth + stride - 1) // stride
    total = max((out - 1) * stride + span - depth, 0)
    if not total:
      return x
    return _a.pad(x, [[0, 0], [total // 2, total - total // 2], [0, 0], [0, 0], [0, 0]])
  dyn = _a.shape(x)
  n = dyn[1]
  total = _m.maximum(((n + stride - 1) // stride - 1) * stride + span - n, 0)
  rest = dyn[2:]
  before = _a.zeros(_a.concat([dyn[:1], _a.reshape(total // 2, [1]), rest], 0), x.dtype)
  after = _a.zeros(_a.concat([dyn[:1], _a.reshape(total - total // 2, [1]), rest], 0),
                   x.dtype)
  return _a.concat([before, x, after], 1)


def conv1d_transpose(input, filters, output_shape, strides, padding="SAME",  # noqa: A002
                     data_format="NWC", dilations=None, name=None):
  """The gradient of conv1d w.r.t. its input; `filters` is [width, out_channels,
  in_channels] and `output_shape` [batch, out_width, out_channels] (NWC)."""
  if data_format not in ("NWC", "NCW"):
    raise ValueError(f"`data_format` must be 'NWC' or 'NCW'. Received: {data_format}")
  first = data_format == "NCW"
  x = convert_to_tensor(input)
  if first:
    x = _a.transpose(x, [0, 2, 1])
  s = _seq(strides, 1, "strides", first)
  d = _seq(dilations, 1, "dilations", first)
  if isinstance(output_shape, Tensor):
    shape = output_shape if not first else _a.gather(output_shape, [0, 2, 1])
    shape = _a.concat([shape[:1], [1], shape[1:]], 0)
  else:
    dims = [int(v) for v in output_shape]
    dims = [dims[0], dims[2], dims[1]] if first else dims
    shape = convert_to_tensor(np.array([dims[0], 1, dims[1], dims[2]], np.int32))
  y = _c.conv2d_transpose(_a.expand_dims(x, 1), _a.expand_dims(filters, 0), shape,
                          [1, 1, s[0], 1], padding=padding, dilations=[1, d[0]])
  y = _a.squeeze(y, [1])
  return _a.transpose(y, [0, 2, 1]) if first else y
