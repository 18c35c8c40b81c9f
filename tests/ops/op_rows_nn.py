"""Op-table rows of tensorlet/ops/nn_ops.py and the pooling ops of conv_ops.py:
activations, softmax, bias_add, cross-entropies, max/avg pooling against NumPy,
with finite-difference gradients (the Grad ops run through them)."""
import numpy as np
from op_table import F32_64, FLOAT, args, case, same

import tensorlet as tf


def _softmax(x, axis=-1):
  e = np.exp(x - x.max(axis=axis, keepdims=True))
  return e / e.sum(axis=axis, keepdims=True)


def _log_softmax(x, axis=-1):
  m = x.max(axis=axis, keepdims=True)
  return x - m - np.log(np.exp(x - m).sum(axis=axis, keepdims=True))


case("nn.relu", tf.nn.relu, same(lambda x: np.maximum(x, 0)), args([3, 4], away=0.1),
     FLOAT, order=2)
case("nn.relu6", tf.nn.relu6, same(lambda x: np.clip(x, 0, 6)), args([3, 4], lo=-3, hi=9,
                                                                     away=0.1), FLOAT)
case("nn.softmax", tf.nn.softmax, same(_softmax), args([3, 5]), FLOAT, order=2, rtol=1e-3,
     atol=1e-3)
case("nn.softmax/axis0", lambda x: tf.nn.softmax(x, axis=0), same(lambda x: _softmax(x, 0)),
     args([3, 5]), F32_64)
case("nn.log_softmax", tf.nn.log_softmax, same(_log_softmax), args([3, 5]), FLOAT, order=2,
     rtol=1e-3, atol=1e-3)

_B = np.array([0.5, -1.0, 2.0])
case("nn.bias_add", lambda x, b: tf.nn.bias_add(x, b), same(lambda x, b: x + b),
     args([2, 4, 3], [3]), F32_64, order=2)
case("nn.bias_add/NCHW", lambda x, b: tf.nn.bias_add(x, b, data_format="NCHW"),
     same(lambda x, b: x + b.reshape(1, 3, 1, 1)), args([2, 3, 2, 2], [3]), F32_64)


def _xent(labels, logits):
  return -(labels * _log_softmax(logits)).sum(-1)


def _dist_and_logits(rng, dt):
  """Labels that are distributions: TF's logits gradient (softmax - labels) assumes it."""
  return [_softmax(rng.standard_normal((4, 5))).astype(dt), rng.standard_normal((4, 5)).astype(dt)]


_LABELS = _softmax(np.random.RandomState(3).standard_normal((4, 5)))
case("nn.softmax_cross_entropy_with_logits",
     lambda logits: tf.nn.softmax_cross_entropy_with_logits(
         tf.constant(_LABELS.astype(logits.dtype.as_numpy_dtype)), logits),
     same(lambda z: _xent(_LABELS, z)), args([4, 5]), F32_64, order=2)
case("nn.softmax_cross_entropy_with_logits/labels",
     lambda labels, logits: tf.nn.softmax_cross_entropy_with_logits(labels, logits),
     same(_xent), _dist_and_logits, F32_64)
_SPARSE = np.array([0, 4, 2, 1], np.int32)
case("nn.sparse_softmax_cross_entropy_with_logits",
     lambda logits: tf.nn.sparse_softmax_cross_entropy_with_logits(_SPARSE, logits),
     same(lambda z: -_log_softmax(z)[np.arange(4), _SPARSE]), args([4, 5]), F32_64, order=2)


def _pool(x, k, s, padding, fn):
  """NHWC pooling by windows; SAME pads with -inf (max) or excludes padding (avg)."""
  n, h, w, c = x.shape
  if padding == "VALID":
    oh, ow = (h - k) // s + 1, (w - k) // s + 1
    ph = pw = 0
  else:
    oh, ow = -(-h // s), -(-w // s)
    ph = max((oh - 1) * s + k - h, 0) // 2
    pw = max((ow - 1) * s + k - w, 0) // 2
  out = np.zeros((n, oh, ow, c), x.dtype)
  for i in range(oh):
    for j in range(ow):
      r0, c0 = i * s - ph, j * s - pw
      win = x[:, max(r0, 0):r0 + k, max(c0, 0):c0 + k, :]
      out[:, i, j, :] = fn(win.reshape(n, -1, c), axis=1)
  return out


for _pad in ("VALID", "SAME"):
  for _k, _s in ((2, 2), (3, 1)):
    case(f"nn.max_pool2d/{_pad}_k{_k}s{_s}",
         lambda x, k=_k, s=_s, p=_pad: tf.nn.max_pool2d(x, k, s, p),
         lambda x, k=_k, s=_s, p=_pad: _pool(x, k, s, p, np.max), args([2, 5, 4, 3]),
         F32_64, order=2)
    case(f"nn.avg_pool2d/{_pad}_k{_k}s{_s}",
         lambda x, k=_k, s=_s, p=_pad: tf.nn.avg_pool2d(x, k, s, p),
         lambda x, k=_k, s=_s, p=_pad: _pool(x, k, s, p, np.mean), args([2, 5, 4, 3]),
         F32_64, order=2)
