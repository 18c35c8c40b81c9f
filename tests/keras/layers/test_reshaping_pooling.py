"""Shape layers (UpSampling, ZeroPadding, Cropping, RepeatVector, Permute), 1-D and
global poolings and Masking: values vs NumPy, masks, gradients, configs, errors."""
import numpy as np
import pytest

import tensorlet as tf
from tests.keras.layers.layer_helpers import check_config, check_layer_grads, check_values, rand

L = tf.keras.layers


def _bilinear(x, axis, scale):
  n = x.shape[axis]
  src = (np.arange(n * scale) + 0.5) / scale - 0.5
  lo = np.floor(src)
  w = src - lo
  i0, i1 = np.clip(lo, 0, n - 1).astype(int), np.clip(lo + 1, 0, n - 1).astype(int)
  shape = [1] * x.ndim
  shape[axis] = -1
  return np.take(x, i0, axis) * (1 - w.reshape(shape)) + np.take(x, i1, axis) * w.reshape(shape)


def _pool1d(x, k, s, padding, fn):
  n = x.shape[1]
  if padding == "same":
    out = -(-n // s)
    total = max((out - 1) * s + k - n, 0)
    lo = total // 2
  else:
    out, lo = (n - k) // s + 1, 0
  rows = []
  for i in range(out):
    a, b = max(i * s - lo, 0), min(i * s - lo + k, n)
    rows.append(fn(x[:, a:b], axis=1))
  return np.stack(rows, 1)


def _pool3d(x, k, s, padding, fn):
  """Naive NumPy 3-D pooling over real cells only (TF's SAME)."""
  outs, los = [], []
  for n, kk, ss in zip(x.shape[1:4], k, s):
    if padding == "same":
      o = -(-n // ss)
      los.append(max((o - 1) * ss + kk - n, 0) // 2)
    else:
      o, _ = (n - kk) // ss + 1, los.append(0)
    outs.append(o)
  y = np.zeros((x.shape[0],) + tuple(outs) + (x.shape[4],))
  for i in range(outs[0]):
    for j in range(outs[1]):
      for m in range(outs[2]):
        sl = []
        for p, n, kk, ss, lo in zip((i, j, m), x.shape[1:4], k, s, los):
          sl.append(slice(max(p * ss - lo, 0), min(p * ss - lo + kk, n)))
        y[:, i, j, m] = fn(x[:, sl[0], sl[1], sl[2]], axis=(1, 2, 3))
  return y


_CASES = [
    (L.UpSampling1D, dict(size=3), (2, 4, 3), lambda x: np.repeat(x, 3, 1)),
    (L.UpSampling2D, dict(size=(2, 3)), (2, 3, 4, 2),
     lambda x: np.repeat(np.repeat(x, 2, 1), 3, 2)),
    (L.UpSampling2D, dict(size=(2, 3), interpolation="bilinear"), (2, 3, 4, 2),
     lambda x: _bilinear(_bilinear(x, 1, 2), 2, 3)),
    (L.UpSampling2D, dict(size=2, data_format="channels_first"), (1, 2, 3, 2),
     lambda x: np.repeat(np.repeat(x, 2, 2), 2, 3)),
    (L.ZeroPadding1D, dict(padding=(1, 2)), (2, 4, 3),
     lambda x: np.pad(x, [(0, 0), (1, 2), (0, 0)])),
    (L.ZeroPadding2D, dict(padding=((1, 2), (0, 1))), (2, 3, 4, 2),
     lambda x: np.pad(x, [(0, 0), (1, 2), (0, 1), (0, 0)])),
    (L.ZeroPadding2D, dict(padding=1, data_format="channels_first"), (1, 2, 3, 3),
     lambda x: np.pad(x, [(0, 0), (0, 0), (1, 1), (1, 1)])),
    (L.Cropping1D, dict(cropping=(1, 2)), (2, 6, 3), lambda x: x[:, 1:-2]),
    (L.Cropping2D, dict(cropping=((1, 0), (2, 1))), (2, 5, 6, 2), lambda x: x[:, 1:, 2:-1]),
    (L.RepeatVector, dict(n=3), (2, 4), lambda x: np.repeat(x[:, None], 3, 1)),
    (L.Permute, dict(dims=(2, 1)), (2, 4, 3), lambda x: x.transpose(0, 2, 1)),
    (L.Permute, dict(dims=(3, 1, 2)), (2, 4, 3, 5), lambda x: x.transpose(0, 3, 1, 2)),
    (L.MaxPooling1D, dict(pool_size=2), (2, 7, 3), lambda x: _pool1d(x, 2, 2, "valid", np.max)),
    (L.AveragePooling1D, dict(pool_size=3, strides=2, padding="same"), (2, 7, 3),
     lambda x: _pool1d(x, 3, 2, "same", np.mean)),
    (L.MaxPooling1D, dict(pool_size=2, data_format="channels_first"), (2, 3, 6),
     lambda x: _pool1d(x.transpose(0, 2, 1), 2, 2, "valid", np.max).transpose(0, 2, 1)),
    (L.GlobalMaxPooling1D, dict(keepdims=True), (2, 7, 3), lambda x: x.max(1, keepdims=True)),
    (L.GlobalAveragePooling1D, dict(), (2, 7, 3), lambda x: x.mean(1)),
    (L.GlobalAveragePooling1D, dict(data_format="channels_first"), (2, 3, 7),
     lambda x: x.mean(2)),
    (L.GlobalAveragePooling2D, dict(keepdims=True), (2, 4, 5, 3),
     lambda x: x.mean((1, 2), keepdims=True)),
    (L.Masking, dict(mask_value=0.5), (2, 4, 3), lambda x: x),
    (L.MaxPooling3D, dict(pool_size=2), (2, 5, 4, 5, 3),
     lambda x: _pool3d(x, (2, 2, 2), (2, 2, 2), "valid", np.max)),
    (L.MaxPooling3D, dict(pool_size=(3, 2, 2), strides=(2, 1, 2), padding="same"),
     (1, 5, 4, 5, 2), lambda x: _pool3d(x, (3, 2, 2), (2, 1, 2), "same", np.max)),
    (L.AveragePooling3D, dict(pool_size=(3, 2, 2), strides=(2, 1, 2), padding="same"),
     (1, 5, 4, 5, 2), lambda x: _pool3d(x, (3, 2, 2), (2, 1, 2), "same", np.mean)),
    (L.GlobalMaxPooling3D, dict(), (2, 3, 4, 5, 2), lambda x: x.max((1, 2, 3))),
    (L.GlobalAveragePooling3D, dict(keepdims=True, data_format="channels_first"),
     (2, 3, 4, 5, 2), lambda x: x.mean((2, 3, 4), keepdims=True)),
    (L.UpSampling3D, dict(size=(2, 1, 3)), (2, 2, 3, 2, 2),
     lambda x: np.repeat(np.repeat(x, 2, 1), 3, 3)),
    (L.ZeroPadding3D, dict(padding=((1, 0), 2, (0, 1))), (2, 2, 3, 2, 2),
     lambda x: np.pad(x, [(0, 0), (1, 0), (2, 2), (0, 1), (0, 0)])),
    (L.Cropping3D, dict(cropping=((1, 0), 1, (0, 1))), (2, 3, 4, 3, 2),
     lambda x: x[:, 1:, 1:-1, :-1]),
]


@pytest.mark.parametrize("cls,kw,shape,ref", _CASES,
                         ids=[f"{c.__name__}{i}" for i, (c, *_) in enumerate(_CASES)])
def test_shape_layers_match_numpy(cls, kw, shape, ref):
  x = rand(*shape).astype(np.float32)
  y = check_values(cls(**kw), x, ref(x.astype(np.float64)), rtol=1e-5, atol=1e-6)
  assert cls(**kw).compute_output_shape((None,) + shape[1:]) == \
      tf.TensorShape((None,) + tuple(y.shape[1:]))
  check_layer_grads(cls(dtype="float64", **kw), rand(*shape))
  check_config(cls(**kw))


def test_masking_layer_zeroes_and_masks_steps():
  x = rand(2, 4, 3).astype(np.float32)
  x[0, 1] = 0.0
  x[1, 3] = 0.0
  m = L.Masking()
  y = m(x)
  want_mask = np.array([[True, False, True, True], [True, True, True, False]])
  np.testing.assert_array_equal(y._keras_mask.numpy(), want_mask)
  np.testing.assert_array_equal(y.numpy(), x * want_mask[..., None])
  # GlobalAveragePooling1D leaves masked steps out of the mean.
  pooled = L.GlobalAveragePooling1D()(y)
  want = np.stack([x[i][want_mask[i]].mean(0) for i in range(2)])
  np.testing.assert_allclose(pooled.numpy(), want, rtol=1e-6)
  inp = tf.keras.Input((4, 3))
  model = tf.keras.Model(inp, L.GlobalAveragePooling1D()(L.Masking()(inp)))
  np.testing.assert_allclose(model(x).numpy(), want, rtol=1e-6)
  assert m.get_config()["mask_value"] == 0.0


def test_embedding_mask_zero_flows_through_a_functional_model():
  ids = tf.keras.Input((5,), dtype="int32")
  e = L.Embedding(10, 4, mask_zero=True)(ids)
  assert e._keras_mask is not None and e._keras_mask.shape.as_list() == [None, 5]
  d = L.Dense(3)(e)
  assert d._keras_mask is not None          # Dense keeps the mask
  assert L.Flatten()(e)._keras_mask is None  # a layer without mask support drops it
  out = L.GlobalAveragePooling1D()(d)
  model = tf.keras.Model(ids, out)
  x = np.array([[1, 2, 0, 0, 0], [3, 4, 5, 6, 0]], np.int32)
  emb = model.layers[1].get_weights()[0]
  k, b = model.layers[2].get_weights()
  want = np.stack([(emb[x[i][x[i] > 0]] @ k + b).mean(0) for i in range(2)])
  np.testing.assert_allclose(model(x).numpy(), want, rtol=1e-5, atol=1e-6)
  np.testing.assert_allclose(tf.function(model)(x).numpy(), want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("make,err,msg", [
    (lambda: L.UpSampling2D(interpolation="cubic"), ValueError, "`interpolation` argument"),
    (lambda: L.ZeroPadding2D(padding=(1, 2, 3)), ValueError, "`padding` should be"),
    (lambda: L.Cropping2D(cropping=(1, 2, 3)), ValueError, "`cropping` should be"),
    (lambda: L.Cropping1D((2, 2))(np.ones((1, 4, 1), np.float32)), ValueError,
     "must be smaller than the input length"),
    (lambda: L.Permute((1, 3)), ValueError, "Invalid permutation"),
    (lambda: L.ZeroPadding3D(padding=(1, 2)), ValueError, "`padding` should be"),
    (lambda: L.Cropping3D(1)(np.ones((1, 2, 4, 4, 1), np.float32)), ValueError,
     "must be smaller"),
    (lambda: L.MaxPooling3D(2)(np.ones((1, 4, 4, 1), np.float32)), ValueError,
     "expected ndim=5"),
    (lambda: L.RepeatVector(2.5), TypeError, "integer"),
    (lambda: L.RepeatVector(2)(np.ones((1, 2, 3), np.float32)), ValueError, "expected ndim=2"),
    (lambda: L.MaxPooling1D(2)(np.ones((1, 2, 3, 4), np.float32)), ValueError,
     "expected ndim=3"),
])
def test_shape_layer_errors(make, err, msg):
  with pytest.raises(err, match=msg):
    make()


def test_explicit_mask_reaches_compute_mask_of_layers_without_a_mask_argument():
  m = np.array([[True, False]])
  y = L.Dense(2)(np.ones((1, 2, 3), np.float32), mask=m)
  np.testing.assert_array_equal(np.asarray(y._keras_mask), m)
  assert getattr(L.Flatten()(np.ones((1, 2, 3), np.float32), mask=m), "_keras_mask",
                 None) is None
