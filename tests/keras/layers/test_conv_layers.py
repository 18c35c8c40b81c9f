"""Convolution layers (Conv1D/2D/3D with groups, dilation, causal; transposed; depthwise;
separable): values vs naive NumPy convolutions, weight names and shapes, gradients,
configs and Keras 2's errors."""
import numpy as np
import pytest

import tensorlet as tf
from tests.keras.layers import conv_reference as ref
from tests.keras.layers.layer_helpers import check_config, check_layer_grads, check_values, rand

L = tf.keras.layers


def _names(layer):
  return [w.name[len(layer.name) + 1:] for w in layer.weights]


@pytest.mark.parametrize("cls,kw,shape", [
    (L.Conv1D, dict(filters=4, kernel_size=3), (2, 7, 3)),
    (L.Conv1D, dict(filters=4, kernel_size=3, padding="causal", dilation_rate=2), (2, 7, 3)),
    (L.Conv1D, dict(filters=4, kernel_size=2, strides=2, padding="same", groups=2), (2, 7, 4)),
    (L.Conv2D, dict(filters=4, kernel_size=3, groups=2, padding="same"), (2, 5, 6, 2)),
    (L.Conv2D, dict(filters=2, kernel_size=(2, 3), dilation_rate=(2, 1)), (1, 5, 6, 3)),
    (L.Conv3D, dict(filters=3, kernel_size=(2, 3, 2), padding="same", strides=(2, 1, 2)),
     (2, 5, 4, 5, 2)),
    (L.Conv3D, dict(filters=2, kernel_size=2, dilation_rate=(2, 1, 1), groups=2),
     (1, 5, 3, 3, 2)),
])
def test_convolutions_match_numpy(cls, kw, shape):
  x = rand(*shape).astype(np.float32)
  layer = cls(activation="relu", bias_initializer="glorot_uniform", **kw)
  layer(x)
  assert _names(layer) == ["kernel:0", "bias:0"]
  rank = len(shape) - 2
  groups = kw.get("groups", 1)
  assert layer.kernel.shape == layer.kernel_size + (shape[-1] // groups, kw["filters"])

  def want(lay):
    k, b = lay.get_weights()
    y = ref.conv(x.astype(np.float64), k, lay.strides, lay.padding, lay.dilation_rate, groups)
    return np.maximum(y + b, 0)
  y = check_values(layer, x, want, rtol=1e-4, atol=1e-5)
  assert layer.compute_output_shape((None,) + shape[1:]) == tf.TensorShape((None,) + tuple(y.shape[1:]))
  check_layer_grads(cls(dtype="float64", **kw), rand(*shape))
  config = check_config(cls(**kw)).get_config()
  assert config["kernel_size"] == layer.kernel_size and config["groups"] == groups
  assert len(config["strides"]) == rank


def test_conv_channels_first_equals_transposed_channels_last():
  x = rand(2, 3, 7).astype(np.float32)
  a = L.Conv1D(4, 3, data_format="channels_first")
  b = L.Conv1D(4, 3)
  a(x)
  b(np.transpose(x, (0, 2, 1)))
  b.set_weights(a.get_weights())
  np.testing.assert_allclose(a(x).numpy(), np.transpose(b(np.transpose(x, (0, 2, 1))).numpy(),
                                                        (0, 2, 1)), rtol=1e-5, atol=1e-6)
  x3 = rand(1, 2, 4, 4, 3).astype(np.float32)
  c = L.Conv3D(2, 2, data_format="channels_first")
  assert c(x3).shape == (1, 2, 3, 3, 2)


@pytest.mark.parametrize("cls,kw,shape", [
    (L.Conv2DTranspose, dict(filters=3, kernel_size=3, strides=2), (2, 4, 5, 2)),
    (L.Conv2DTranspose, dict(filters=3, kernel_size=3, strides=2, padding="same",
                             output_padding=1), (2, 4, 5, 2)),
    (L.Conv2DTranspose, dict(filters=2, kernel_size=3, dilation_rate=2, padding="same"),
     (1, 4, 5, 2)),
    (L.Conv1DTranspose, dict(filters=3, kernel_size=3, strides=2, padding="same"), (2, 5, 2)),
    (L.Conv1DTranspose, dict(filters=3, kernel_size=4, strides=3), (2, 5, 2)),
    (L.Conv3DTranspose, dict(filters=2, kernel_size=(3, 2, 3), strides=2), (1, 3, 2, 3, 2)),
    (L.Conv3DTranspose, dict(filters=2, kernel_size=3, strides=(2, 1, 2), padding="same",
                             output_padding=(1, 0, 1)), (1, 2, 3, 2, 2)),
])
def test_transposed_convolutions_match_numpy(cls, kw, shape):
  x = rand(*shape).astype(np.float32)
  layer = cls(bias_initializer="glorot_uniform", **kw)
  y = layer(x)
  assert _names(layer) == ["kernel:0", "bias:0"]
  assert layer.kernel.shape == layer.kernel_size + (kw["filters"], shape[-1])
  k, b = layer.get_weights()
  want = ref.conv_transpose(x.astype(np.float64), k, layer.strides, y.shape[1:-1],
                            layer.padding, layer.dilation_rate) + b
  check_values(layer, x, want, rtol=1e-4, atol=1e-5)
  assert layer.compute_output_shape((None,) + shape[1:]) == tf.TensorShape((None,) + tuple(y.shape[1:]))
  check_layer_grads(cls(dtype="float64", **kw), rand(*shape))
  assert check_config(cls(**kw)).get_config()["output_padding"] == layer.output_padding


@pytest.mark.parametrize("cls,kw,shape", [
    (L.DepthwiseConv2D, dict(kernel_size=3, depth_multiplier=2, padding="same"), (2, 5, 5, 3)),
    (L.DepthwiseConv2D, dict(kernel_size=2, strides=2), (2, 5, 5, 3)),
    (L.SeparableConv2D, dict(filters=4, kernel_size=3, depth_multiplier=2), (2, 6, 5, 3)),
    (L.SeparableConv1D, dict(filters=4, kernel_size=3, padding="causal"), (2, 6, 3)),
    (L.SeparableConv1D, dict(filters=4, kernel_size=2, strides=2, padding="same"), (2, 7, 3)),
])
def test_depthwise_and_separable_match_numpy(cls, kw, shape):
  x = rand(*shape).astype(np.float32)
  layer = cls(bias_initializer="glorot_uniform", **kw)
  layer(x)
  sep = cls is not L.DepthwiseConv2D
  assert _names(layer) == (["depthwise_kernel:0", "pointwise_kernel:0", "bias:0"] if sep
                           else ["depthwise_kernel:0", "bias:0"])
  rank = len(shape) - 2
  m = kw.get("depth_multiplier", 1)
  assert layer.depthwise_kernel.shape == layer.kernel_size + (shape[-1], m)
  if sep:
    assert layer.pointwise_kernel.shape == (1,) * rank + (shape[-1] * m, kw["filters"])

  def want(lay):
    ws = lay.get_weights()
    padding = lay.padding
    xx = x.astype(np.float64)
    if padding == "causal":
      xx = np.pad(xx, [(0, 0), (lay.kernel_size[0] - 1, 0), (0, 0)])
      padding = "valid"
    y = ref.depthwise(xx, ws[0], lay.strides, padding, lay.dilation_rate)
    if sep:
      y = y @ ws[1].reshape(ws[1].shape[-2:])
    return y + ws[-1]
  check_values(layer, x, want, rtol=1e-4, atol=1e-5)
  check_layer_grads(cls(dtype="float64", **kw), rand(*shape))
  check_config(cls(**kw))


@pytest.mark.parametrize("make,err,msg", [
    (lambda: L.Conv1D(0, 3), ValueError, "strictly positive"),
    (lambda: L.Conv1D(3, 3, groups=2), ValueError, "evenly divisible by the number of groups"),
    (lambda: L.Conv2D(4, 3, groups=2)(np.ones((1, 5, 5, 3), np.float32)), ValueError,
     "input channels must be evenly divisible"),
    (lambda: L.Conv2D(4, 3, padding="causal"), ValueError, "Causal padding is only supported"),
    (lambda: L.Conv1D(4, 0), ValueError, "kernel_size"),
    (lambda: L.Conv1D(4, 2, strides=2, dilation_rate=2), ValueError, "dilation_rate"),
    (lambda: L.Conv2DTranspose(2, 3, strides=2, output_padding=2), ValueError,
     "greater than output padding"),
    (lambda: L.Conv3D(2, 3)(np.ones((1, 2, 5, 5, 1), np.float32)), ValueError, "<= 0"),
    (lambda: L.Conv1D(2, 3)(np.ones((5, 5), np.float32)), ValueError, "Input 0 of layer"),
])
def test_conv_errors(make, err, msg):
  with pytest.raises(err, match=msg):
    make()


def test_conv_folds_extra_batch_axes():
  x = rand(2, 3, 6, 4).astype(np.float32)
  layer = L.Conv1D(2, 3)
  y = layer(x)
  assert y.shape == (2, 3, 4, 2)
  np.testing.assert_allclose(y.numpy()[1], layer(x[1]).numpy(), rtol=1e-5, atol=1e-6)


def test_conv_layers_in_a_functional_model_train():
  a = tf.keras.Input((8, 2))
  h = L.Conv1D(4, 3, padding="causal", activation="relu")(a)
  h = L.SeparableConv1D(4, 2, padding="same")(h)
  b = tf.keras.Input((6, 6, 1))
  g = L.Conv2DTranspose(2, 3, strides=2)(L.DepthwiseConv2D(3)(b))
  out = L.Dense(1)(tf.concat([L.GlobalAveragePooling1D()(h), L.GlobalMaxPooling2D()(g)], -1))
  model = tf.keras.Model([a, b], out)
  rng = np.random.RandomState(0)
  xa, xb = rng.rand(16, 8, 2).astype("f"), rng.rand(16, 6, 6, 1).astype("f")
  y = xa.sum((1, 2))[:, None] * 0.1
  model.compile("adam", "mse")
  before = model.evaluate([xa, xb], y, verbose=0)
  model.fit([xa, xb], y, epochs=5, verbose=0)
  assert model.evaluate([xa, xb], y, verbose=0) < before
