"""Naive NumPy convolutions (channels_last, any rank) for the layer tests."""
import itertools

import numpy as np


def same_pad(n, k, s, d):
  keff = (k - 1) * d + 1
  out = -(-n // s)
  total = max((out - 1) * s + keff - n, 0)
  return total // 2, total - total // 2


def conv(x, k, strides, padding, dilation, groups=1):
  """x (B, *space, C), k (*ksize, C // groups, F)."""
  rank = x.ndim - 2
  if padding == "causal":
    x = np.pad(x, [(0, 0), ((k.shape[0] - 1) * dilation[0], 0), (0, 0)])
    padding = "valid"
  if padding == "same":
    pads = [same_pad(x.shape[1 + i], k.shape[i], strides[i], dilation[i]) for i in range(rank)]
    x = np.pad(x, [(0, 0)] + pads + [(0, 0)])
  space = x.shape[1:-1]
  keff = [(k.shape[i] - 1) * dilation[i] + 1 for i in range(rank)]
  out = [(space[i] - keff[i]) // strides[i] + 1 for i in range(rank)]
  cin, f = k.shape[-2], k.shape[-1]
  y = np.zeros((x.shape[0],) + tuple(out) + (f,))
  fg = f // groups
  for pos in itertools.product(*[range(o) for o in out]):
    for tap in itertools.product(*[range(n) for n in k.shape[:rank]]):
      idx = tuple(p * s + t * d for p, s, t, d in zip(pos, strides, tap, dilation))
      v = x[(slice(None),) + idx]
      for g in range(groups):
        y[(slice(None),) + pos + (slice(g * fg, (g + 1) * fg),)] += \
            v[:, g * cin:(g + 1) * cin] @ k[tap][:, g * fg:(g + 1) * fg]
  return y


def conv_transpose(x, k, strides, out_space, padding, dilation):
  """x (B, *space, C), k (*ksize, F, C); output (B, *out_space, F)."""
  rank = x.ndim - 2
  space = x.shape[1:-1]
  keff = [(k.shape[i] - 1) * dilation[i] + 1 for i in range(rank)]
  before = [0 if padding == "valid" else
            max((space[i] - 1) * strides[i] + keff[i] - out_space[i], 0) // 2
            for i in range(rank)]
  y = np.zeros((x.shape[0],) + tuple(out_space) + (k.shape[-2],))
  for pos in itertools.product(*[range(n) for n in space]):
    for tap in itertools.product(*[range(n) for n in k.shape[:rank]]):
      o = tuple(p * s + t * d - b for p, s, t, d, b in zip(pos, strides, tap, dilation, before))
      if all(0 <= oi < n for oi, n in zip(o, out_space)):
        y[(slice(None),) + o] += x[(slice(None),) + pos] @ k[tap].T
  return y


def depthwise(x, k, strides, padding, dilation):
  """x (B, *space, C), k (*ksize, C, M) -> (B, *out, C * M)."""
  c, m = k.shape[-2], k.shape[-1]
  outs = []
  for ci in range(c):
    outs.append(conv(x[..., ci:ci + 1], k[..., ci:ci + 1, :], strides, padding, dilation))
  return np.concatenate(outs, -1)
