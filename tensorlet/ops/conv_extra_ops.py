"""tf.nn.conv3d, conv3d_transpose and conv1d_transpose as compositions of the Conv2D ops.

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
from tensorlet.ops._common import as_int, as_sequence
from tensorlet.ops._common import name_scoped
from tensorlet.tensor import Tensor, convert_to_tensor

__all__ = ["conv3d", "conv1d_transpose", "conv3d_transpose"]


def _seq(value, n, name, channels_first):
  """An int or n or n + 2 ints -> the n spatial values (TF's strides/dilations rules)."""
  if value is None:
    return [1] * n
  if isinstance(value, numbers.Integral):
    v = [value]
  elif isinstance(value, (list, tuple)):
    v = [as_int(x, name, name) for x in value]
  else:
    raise TypeError(f"`{name}` must be an integer or a list of integers, got {value!r:.80}")
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


def _check_3d(input, filters, data_format, padding):  # noqa: A002
  if data_format not in ("NDHWC", "NCDHW"):
    raise ValueError(f"`data_format` must be 'NDHWC' or 'NCDHW'. Received: {data_format}")
  if padding not in ("SAME", "VALID"):
    raise ValueError(f"`padding` must be 'SAME' or 'VALID'. Received: padding={padding}")
  x = convert_to_tensor(input)
  return data_format == "NCDHW", x, convert_to_tensor(filters, dtype=x.dtype)


@name_scoped
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
  first, x, f = _check_3d(input, filters, data_format, padding)
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


@name_scoped
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
    dims = [as_int(v, "conv1d_transpose", "output_shape") for v in
            as_sequence(output_shape, "conv1d_transpose", "output_shape")]
    if len(dims) != 3:
      raise ValueError(f"conv1d_transpose: `output_shape` must have 3 elements, got {dims}")
    dims = [dims[0], dims[2], dims[1]] if first else dims
    shape = convert_to_tensor(np.array([dims[0], 1, dims[1], dims[2]], np.int32))
  y = _c.conv2d_transpose(_a.expand_dims(x, 1), _a.expand_dims(filters, 0), shape,
                          [1, 1, s[0], 1], padding=padding, dilations=[1, d[0]])
  y = _a.squeeze(y, [1])
  return _a.transpose(y, [0, 2, 1]) if first else y


@name_scoped
def conv3d_transpose(input, filters, output_shape, strides, padding="SAME",  # noqa: A002
                     data_format="NDHWC", dilations=None, name=None):
  """The gradient of conv3d w.r.t. its input: `filters` is [d, h, w, out_channels,
  in_channels], `output_shape` [batch, out_depth, out_height, out_width, out_channels].

  Each depth tap is a 2-D transposed convolution of every input depth slice, placed at
  depth `i * stride + tap * dilation` (less SAME's front padding) and summed. The depths
  must be static.
  """
  first, x, f = _check_3d(input, filters, data_format, padding)
  if x.shape.rank != 5 or f.shape.rank != 5 or not f.shape.is_fully_defined():
    raise ValueError(f"conv3d_transpose needs 5-D input and a static 5-D filter. Received: "
                     f"input.shape={x.shape}, filters.shape={f.shape}")
  s = _seq(strides, 3, "strides", first)
  d = _seq(dilations, 3, "dilations", first)
  if first:
    x = _a.transpose(x, [0, 2, 3, 4, 1])
  out = output_shape if isinstance(output_shape, Tensor) else convert_to_tensor(
      np.array([int(v) for v in output_shape], np.int32))
  if first:
    out = _a.gather(out, [0, 2, 3, 4, 1])
  from tensorlet.ops.registry import constant_value
  known = constant_value(out)
  out_d = int(known[1]) if known is not None else None
  depth = x.shape[1]
  if depth is None or out_d is None:
    raise ValueError("conv3d_transpose needs a static input depth and output depth.")
  kd, oc = f.shape[0], f.shape[3]
  span = (kd - 1) * d[0] + 1
  before = 0 if padding == "VALID" else max((depth - 1) * s[0] + span - out_d, 0) // 2
  dyn = _a.shape(x)
  folded = _a.reshape(x, _a.concat([[-1], dyn[2:]], 0))
  shape2d = _a.concat([_a.reshape(dyn[0] * depth, [1]), out[2:]], 0)
  total = None
  full = (depth - 1) * s[0] + 1
  for k in range(kd):
    y = _c.conv2d_transpose(folded, f[k], shape2d, s[1:], padding=padding, dilations=d[1:])
    ys = _a.shape(y)
    y = _a.reshape(y, _a.concat([dyn[:1], [depth], ys[1:]], 0))
    if s[0] > 1:  # input depth i lands at i * stride: interleave zero slices
      y = _a.expand_dims(y, 2)
      y = _a.concat([y, _a.tile(_a.zeros_like(y), [1, 1, s[0] - 1, 1, 1, 1])], 2)
      y = _a.reshape(y, _a.concat([dyn[:1], [depth * s[0]], ys[1:]], 0))[:, :full]
    shift = k * d[0] - before
    lo, hi = max(shift, 0), max(out_d - shift - full, 0)
    y = _a.pad(y, [[0, 0], [lo, hi], [0, 0], [0, 0], [0, 0]])
    start = max(-shift, 0)
    y = y[:, start:start + out_d]
    total = y if total is None else total + y
  total.set_shape([x.shape[0], out_d, None, None, oc])
  return _a.transpose(total, [0, 4, 1, 2, 3]) if first else total
