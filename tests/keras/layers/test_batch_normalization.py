"""BatchNormalization as tf_keras 2.21 has it: which kernel (fused or plain) decides
the moving variance, dtypes under mixed precision and float16 layers, several
axes, masks, `synchronized`, `fused` and the errors. Values are checked against
NumPy; the literal numbers were printed by tf_keras 2.21."""
import numpy as np
import pytest

import tensorlet as tf
from tensorlet.keras.mixed_precision.autocast_variable import AutoCastVariable
from tests.keras.layers.layer_helpers import check_config, check_layer_grads, check_values

L = tf.keras.layers
MP = tf.keras.mixed_precision


@pytest.fixture(autouse=True)
def _float32_policy():
  yield
  MP.set_global_policy("float32")


def _x(*shape, seed=0):
  return (np.random.RandomState(seed).randn(*shape) * 2 + 1).astype(np.float32)


def _moving_var(x, reduce, ddof, momentum=0.5):
  return momentum + (1 - momentum) * x.var(axis=reduce, ddof=ddof)


@pytest.mark.parametrize("shape, kwargs, ddof", [
    ((2, 3, 3, 2), {}, 1),                      # fused kernel: unbiased
    ((2, 2, 3, 3, 2), {}, 1),                   # 5-D channels last: fused
    ((2, 3, 3, 2), {"axis": 1}, 1),             # NCHW: fused
    ((2, 2, 3, 3, 2), {"axis": 3}, 0),          # 5-D other axis: plain
    ((2, 3, 3, 2), {"axis": 2}, 0),             # 4-D axis 2: plain
    ((2, 3, 3, 2), {"fused": False}, 0),
    ((2, 3, 3, 2), {"dtype": "float64"}, 0),    # fused kernel has no float64
    ((2, 3, 3, 2), {"synchronized": True}, 0),
    ((4, 5), {}, 0),
])
def test_moving_variance_follows_the_kernel(shape, kwargs, ddof):
  x = _x(*shape)
  bn = L.BatchNormalization(momentum=0.5, **kwargs)
  bn(x, training=True)
  axis = bn.axis[0]
  reduce = tuple(i for i in range(len(shape)) if i != axis)
  np.testing.assert_allclose(bn.moving_variance.numpy(), _moving_var(x, reduce, ddof),
                             rtol=1e-5)
  assert bn.fused == (ddof == 1)


def test_fused_decision_as_tf_keras():
  assert L.BatchNormalization().fused is None
  assert L.BatchNormalization(axis=2).fused is False
  assert L.BatchNormalization(dtype="float64").fused is False
  assert L.BatchNormalization(synchronized=True).fused is False
  bn = L.BatchNormalization()
  bn(np.ones((2, 3), np.float32))
  assert bn.fused is False and bn.axis == [1]


@pytest.mark.parametrize("make, inputs, err, msg", [
    (lambda: L.BatchNormalization(axis="a"), None, TypeError,
     "Expected an int or a list/tuple of ints for the argument 'axis', but received: 'a'"),
    (lambda: L.BatchNormalization(synchronized=True, fused=True), None, ValueError,
     "`fused=True` is not supported when `synchronized=True`."),
    (lambda: L.BatchNormalization(axis=[1, 2], fused=True), None, ValueError,
     "Passing `fused=True` is only supported when axis is 1 or 3"),
    (lambda: L.BatchNormalization(axis=5), (2, 3), ValueError,
     "Invalid value for `axis` argument. Expected 0 <= axis < inputs.rank (with "
     "inputs.rank=2). Received: axis=(5,)"),
    (lambda: L.BatchNormalization(axis=[1, -1]), (2, 3), ValueError, "Duplicate axis: (1, 1)"),
    (lambda: L.BatchNormalization(fused=True), (2, 3, 2), ValueError,
     "Batch normalization layers with `fused=True` only support 4D or 5D input tensors. "
     "Received tensor with shape: (2, 3, 2)"),
    (lambda: L.BatchNormalization(axis=-4), (2, 3, 3, 2), ValueError,
     "Unsupported axis. The use of `fused=True` is only possible with `axis=1` or `axis=3` "
     "for 4D input tensors. Received: axis=(0,)"),
    (lambda: L.BatchNormalization(virtual_batch_size=0), (8, 3), ValueError,
     "`virtual_batch_size` must be a positive integer that divides the true batch size of "
     "the input tensor. Received: virtual_batch_size=0"),
    (lambda: L.BatchNormalization(virtual_batch_size=2, axis=0), (8, 3), ValueError,
     "When using `virtual_batch_size`, the batch dimension must be 0 and thus axis cannot "
     "include 0. Received axis=[0]"),
    (lambda: L.BatchNormalization(virtual_batch_size=2, adjustment=lambda s: (1.0, 0.0)),
     (8, 3), ValueError, "When using `virtual_batch_size`, adjustment cannot be specified"),
    (lambda: L.BatchNormalization(virtual_batch_size=2, fused=True), None, ValueError,
     "Passing `fused=True` is not supported when `virtual_batch_size` is specified."),
    (lambda: L.BatchNormalization(renorm=True, renorm_clipping={"x": 1}), None, ValueError,
     "Received invalid keys for `renorm_clipping` argument: {'x': 1}. Supported values: "
     "['rmax', 'rmin', 'dmax']."),
    (lambda: L.BatchNormalization(renorm=True, fused=True), None, ValueError,
     "Passing both `fused=True` and `renorm=True` is not supported"),
    (lambda: L.BatchNormalization(adjustment=lambda s: (1.0, 0.0), fused=True), None,
     ValueError, "Passing `fused=True` is not supported when `adjustment` is specified."),
])
def test_errors(make, inputs, err, msg):
  with pytest.raises(err) as info:
    layer = make()
    layer(np.ones(inputs, np.float32))
  assert msg in str(info.value)


@pytest.mark.parametrize("kwargs", [{}, {"center": False, "scale": False},
                                    {"synchronized": True}])
def test_mixed_float16(kwargs):
  MP.set_global_policy("mixed_float16")
  x = _x(4, 5)
  bn = L.BatchNormalization(momentum=0.5, **kwargs)
  assert (bn.dtype, bn.compute_dtype) == ("float32", "float16")
  y = bn(x, training=True)
  # float32 math on the float16 inputs, the output rounded to float16 once
  x16 = x.astype(np.float16).astype(np.float32)
  want = (x16 - x16.mean(0)) / np.sqrt(x16.var(0) + 1e-3)
  assert y.dtype == tf.float16
  np.testing.assert_allclose(y.numpy(), want.astype(np.float16), rtol=1e-3, atol=1e-3)
  np.testing.assert_allclose(y.numpy()[0], [1.485, -1.517, 1.193, 1.71, 1.454], atol=1e-3)
  for w in bn.weights:
    # plain float32 variables, never AutoCast (read as float32 inside the call too)
    assert w.dtype == tf.float32 and not isinstance(w, AutoCastVariable)
  np.testing.assert_allclose(bn.moving_variance.numpy(), _moving_var(x16, 0, 0), rtol=1e-5)
  inference = bn(x.astype(np.float16))
  assert inference.dtype == tf.float16
  if bn.scale:
    with tf.GradientTape() as tape:
      out = bn(x, training=True)
      loss = tf.reduce_sum(tf.cast(out, tf.float32) ** 2 * np.arange(5, dtype=np.float32))
    grads = tape.gradient(loss, bn.trainable_weights)
    assert [g.dtype for g in grads] == [tf.float32, tf.float32]
    np.testing.assert_allclose(grads[0].numpy(), [0.0, 7.995, 15.992, 23.99, 32.002], atol=0.05)


def test_float16_layer_keeps_float32_weights_and_does_not_overflow():
  x = _x(2, 3, 3, 2) * 200  # squares overflow float16
  bn = L.BatchNormalization(dtype="float16", momentum=0.5)
  y = bn(x, training=True)
  assert y.dtype == tf.float16 and [w.dtype for w in bn.weights] == [tf.float32] * 4
  x16 = x.astype(np.float16).astype(np.float32)
  np.testing.assert_allclose(bn.moving_variance.numpy(),
                             _moving_var(x16, (0, 1, 2), 1), rtol=1e-4)
  assert np.isfinite(y.numpy()).all()


def test_mixed_precision_model_trains_with_float32_statistics():
  MP.set_global_policy("mixed_float16")
  model = tf.keras.Sequential([L.Dense(4, input_shape=(5,)), L.BatchNormalization(),
                               L.Dense(1, dtype="float32")])
  model.compile(tf.keras.optimizers.SGD(0.1), "mse")
  bn = model.layers[1]
  assert [type(w) for w in bn.weights if isinstance(w, AutoCastVariable)] == []
  x, y = _x(16, 5), _x(16, 1, seed=1)
  model.fit(x, y, epochs=2, batch_size=8, verbose=0)
  assert bn.moving_mean.dtype == tf.float32 and np.isfinite(bn.moving_mean.numpy()).all()
  assert model.predict(x, verbose=0).dtype == np.float32


def test_several_axes():
  x = ((np.arange(48, dtype=np.float32).reshape(2, 3, 2, 4) % 5) - 2.0) * 1.3
  bn = L.BatchNormalization(axis=[1, 2], momentum=0.5)
  mean, var = x.mean((0, 3), keepdims=True), x.var((0, 3), keepdims=True)
  check_values(bn, x, (x - mean) / np.sqrt(var + 1e-3), rtol=1e-5, atol=1e-5, training=True)
  assert bn.gamma.shape == (1, 3, 2, 1) and bn.get_config()["axis"] == [1, 2]
  bn = L.BatchNormalization(axis=[1, 2], momentum=0.5)
  bn(x, training=True)
  np.testing.assert_allclose(bn.moving_variance.numpy().ravel()[:3],
                             [1.9655499, 2.49367, 2.49367], rtol=1e-5)
  np.testing.assert_allclose(bn.moving_variance.numpy(), 0.5 + 0.5 * var, rtol=1e-5)


def test_mask_weighs_the_batch_statistics():
  x = ((np.arange(24, dtype=np.float32).reshape(2, 3, 4) % 7) - 2.5) * 0.7
  mask = np.array([[True, True, False], [True, False, False]])
  bn = L.BatchNormalization(momentum=0.5)
  y = bn(x, training=True, mask=mask)
  kept = x[mask]
  want = (x - kept.mean(0)) / np.sqrt(kept.var(0) + 1e-3)
  np.testing.assert_allclose(y.numpy(), want, rtol=1e-5, atol=1e-5)
  np.testing.assert_allclose(bn.moving_variance.numpy(), [1.64333, 1.64333, 2.02444, 0.88111],
                             rtol=1e-5)
  # a mask from an Embedding reaches the layer by itself
  model = tf.keras.Sequential([
      L.Embedding(5, 4, mask_zero=True, embeddings_initializer=tf.keras.initializers.Constant(
          np.arange(20.0).reshape(5, 4))), L.BatchNormalization(momentum=0.0)])
  model(np.array([[1, 2, 0], [3, 0, 0]]), training=True)
  np.testing.assert_allclose(model.layers[1].moving_mean.numpy(), [8, 9, 10, 11])
  np.testing.assert_allclose(model.layers[1].moving_variance.numpy(), [32 / 3] * 4, rtol=1e-6)


def test_fused_kernel_ignores_a_mask_with_a_warning():
  x = _x(2, 3, 3, 2)
  bn = L.BatchNormalization(momentum=0.5)
  with pytest.warns(UserWarning, match="Masking is not supported with `fused=True`"):
    bn(x, training=True, mask=np.ones((2, 3, 3), bool))
  np.testing.assert_allclose(bn.moving_variance.numpy(), _moving_var(x, (0, 1, 2), 1),
                             rtol=1e-5)


def test_synchronized_under_a_strategy():
  x = _x(6, 3)
  strategy = tf.distribute.MirroredStrategy()
  with strategy.scope():
    bn = L.BatchNormalization(synchronized=True, momentum=0.5)
  y = strategy.run(lambda: bn(tf.constant(x), training=True))
  y = strategy.experimental_local_results(y)[0]
  np.testing.assert_allclose(y.numpy(), (x - x.mean(0)) / np.sqrt(x.var(0) + 1e-3),
                             rtol=1e-4, atol=1e-5)
  np.testing.assert_allclose(bn.moving_variance.numpy(), _moving_var(x, 0, 0), rtol=1e-5)


@pytest.mark.parametrize("kwargs, shape", [({}, (3, 4)), ({"axis": [1, 2]}, (3, 2, 2)),
                                           ({"synchronized": True}, (3, 4)),
                                           ({"fused": False}, (2, 2, 2, 3))])
def test_gradients_and_config(kwargs, shape):
  bn = L.BatchNormalization(dtype="float64", beta_initializer="ones",
                            gamma_initializer=tf.keras.initializers.Constant(1.5), **kwargs)
  x = np.random.RandomState(2).standard_normal(shape)
  check_layer_grads(bn, x, training=True)
  check_layer_grads(bn, x, training=False)
  clone = check_config(bn)
  assert "synchronized" not in bn.get_config()  # as Keras 2's config
  assert clone.axis == bn.axis


def test_weighted_moments_against_numpy():
  x = ((np.arange(24, dtype=np.float32).reshape(2, 3, 4) % 7) - 2.5) * 0.7
  w = np.array([[1.0, 0.0, 2.0], [0.5, 1.0, 0.0]], np.float32)[..., None]
  m, v = tf.nn.weighted_moments(x, [0, 1], w)
  wb = np.broadcast_to(w, x.shape)
  mean = (wb * x).sum((0, 1)) / wb.sum((0, 1))
  np.testing.assert_allclose(m.numpy(), mean, rtol=1e-6)
  np.testing.assert_allclose(v.numpy(), (wb * (x - mean) ** 2).sum((0, 1)) / wb.sum((0, 1)),
                             rtol=1e-5)
  np.testing.assert_allclose(v.numpy(), [0.9921, 0.9921, 0.65333, 0.65333], rtol=1e-4)
  m, v = tf.nn.weighted_moments(x, [1], w, keepdims=True)
  assert m.shape == (2, 1, 4) and v.shape == (2, 1, 4)
  m16, v16 = tf.nn.weighted_moments(x.astype(np.float16), [0, 1], w)
  assert m16.dtype == v16.dtype == tf.float16
  m0, _ = tf.nn.weighted_moments(x, [0, 1], np.zeros((2, 3, 1), np.float32))
  assert m0.numpy().tolist() == [0.0] * 4   # weights summing to 0: no NaN
  from tests.gradcheck import check_grads
  check_grads(lambda a, b: tf.add_n(list(tf.nn.weighted_moments(a, [0, 1], b))),
              [x, np.abs(w) + 0.5])


def _renorm_reference(xs, clip, gamma=1.3, beta=0.2, m=0.5, rm=0.99, eps=1e-3):
  """Keras' batch renormalization in NumPy: the training outputs of each batch in `xs`,
  then the moving statistics."""
  mm, ms, rmean, rstd = 0.0, 1.0, 0.0, 1.0
  outs = []
  for x in xs:
    mean, var = x.mean(0), x.var(0)
    std = np.sqrt(var + eps)
    rs = np.maximum(rstd, np.sqrt(eps))
    r, d = std / rs, (mean - rmean) / rs
    r = np.clip(r, clip.get("rmin", -np.inf), clip.get("rmax", np.inf))
    d = np.clip(d, -clip.get("dmax", np.inf), clip.get("dmax", np.inf))
    rmean, rstd = rmean + (mean - rmean) * (1 - rm), rstd + (std - rstd) * (1 - rm)
    ms, mm = ms + (std - ms) * (1 - m), mm + (mean - mm) * (1 - m)
    outs.append((x - mean) / std * (r * gamma) + (d * gamma + beta))
  return outs, mm, np.maximum(ms * ms - eps, 0.0), ms


@pytest.mark.parametrize("clip", [{}, {"rmax": 1.2, "rmin": 0.9, "dmax": 0.1}])
def test_batch_renormalization(clip):
  rng = np.random.RandomState(0)
  xs = [(rng.randn(6, 4) * 2 + 1).astype(np.float32), (rng.randn(6, 4) * 3 - 1).astype(np.float32)]
  bn = L.BatchNormalization(momentum=0.5, renorm=True, renorm_clipping=clip,
                            gamma_initializer=tf.keras.initializers.Constant(1.3),
                            beta_initializer=tf.keras.initializers.Constant(0.2))
  step = tf.function(lambda x: bn(x, training=True))
  got = [step(x).numpy() for x in xs]
  outs, mm, mv, ms = _renorm_reference([x.astype(np.float64) for x in xs], clip)
  for g, want in zip(got, outs):
    np.testing.assert_allclose(g, want, rtol=1e-4, atol=1e-4)
  np.testing.assert_allclose(bn.moving_mean.numpy(), mm, rtol=1e-5)
  np.testing.assert_allclose(bn.moving_variance.numpy(), mv, rtol=1e-5)
  np.testing.assert_allclose(bn.moving_stddev.numpy(), ms, rtol=1e-5)
  assert [w.name.split("/")[-1] for w in bn.weights] == [
      "gamma:0", "beta:0", "moving_mean:0", "moving_variance:0", "moving_stddev:0",
      "renorm_mean:0", "renorm_stddev:0"]
  if not clip:  # tf_keras 2.21's first outputs
    np.testing.assert_allclose(got[0][0], [6.0865, 2.5404, 4.0447, 7.3263], atol=1e-3)
  inference = bn(xs[1]).numpy()
  np.testing.assert_allclose(inference, (xs[1] - mm) / np.sqrt(mv + 1e-3) * 1.3 + 0.2,
                             rtol=1e-4, atol=1e-4)
  config = bn.get_config()
  assert (config["renorm"], config["renorm_clipping"], config["renorm_momentum"]) == (
      True, clip, 0.99)
  check_config(bn)


def test_renorm_gradients_treat_the_corrections_as_constants():
  rng = np.random.RandomState(0)
  xs = [(rng.randn(6, 4) * 2 + 1).astype(np.float32), (rng.randn(6, 4) * 3 - 1).astype(np.float32)]
  bn = L.BatchNormalization(momentum=0.5, renorm=True,
                            gamma_initializer=tf.keras.initializers.Constant(1.3),
                            beta_initializer=tf.keras.initializers.Constant(0.2))
  for x in xs:
    bn(x, training=True)
  x = tf.constant(xs[0])
  weights = np.arange(4, dtype=np.float32)
  with tf.GradientTape() as tape:
    tape.watch(x)
    out = bn(x, training=True)
    loss = tf.reduce_sum(out * out * weights)
  dx, dgamma, dbeta = tape.gradient(loss, [x] + bn.trainable_weights)
  # r and d of this step, from the renorm statistics the two batches before left
  x64 = xs[0].astype(np.float64)
  rmean, rstd = 0.0, 1.0
  for b in xs:
    b = b.astype(np.float64)
    rmean += (b.mean(0) - rmean) * 0.01
    rstd += (np.sqrt(b.var(0) + 1e-3) - rstd) * 0.01
  std = np.sqrt(x64.var(0) + 1e-3)
  r, d = std / rstd, (x64.mean(0) - rmean) / rstd

  def reference(v):
    xhat = (v - v.mean(0)) / np.sqrt(v.var(0) + 1e-3)
    return xhat, xhat * (r * 1.3) + (d * 1.3 + 0.2)
  xhat, y = reference(x64)
  dy = 2 * y * weights
  np.testing.assert_allclose(dgamma.numpy(), (dy * (xhat * r + d)).sum(0), rtol=1e-4)
  np.testing.assert_allclose(dbeta.numpy(), dy.sum(0), rtol=1e-4, atol=1e-4)
  np.testing.assert_allclose(dgamma.numpy(), [0.0, 39.0, 177.944, 375.003], rtol=1e-3,
                             atol=1e-3)  # tf_keras 2.21's
  direction = np.random.RandomState(1).standard_normal(x64.shape)
  eps = 1e-5

  def objective(v):
    return (reference(v)[1] ** 2 * weights).sum()
  numeric = (objective(x64 + eps * direction) - objective(x64 - eps * direction)) / (2 * eps)
  np.testing.assert_allclose((dx.numpy() * direction).sum(), numeric, rtol=1e-3)


def test_adjustment_scales_and_shifts_in_training_only():
  x = _x(6, 4)
  bn = L.BatchNormalization(momentum=0.5, adjustment=lambda shape: (
      tf.fill([4], 1.5), tf.fill([4], 0.25)), beta_initializer="ones")
  y = bn(x, training=True).numpy()
  xhat = (x - x.mean(0)) / np.sqrt(x.var(0) + 1e-3)
  np.testing.assert_allclose(y, xhat * 1.5 + (0.25 + 1.0), rtol=1e-5, atol=1e-5)
  inference = bn(x).numpy()
  np.testing.assert_allclose(inference, (x - bn.moving_mean.numpy()) / np.sqrt(
      bn.moving_variance.numpy() + 1e-3) + 1.0, rtol=1e-5, atol=1e-5)
  with pytest.warns(UserWarning, match="`adjustment` function"):
    assert "adjustment" not in bn.get_config()


def test_virtual_batches():
  rng = np.random.RandomState(0)
  x = (rng.randn(8, 3) * 2 + 1).astype(np.float32)
  bn = L.BatchNormalization(virtual_batch_size=2, momentum=0.5)
  y = bn(x, training=True).numpy()
  # ghost batch j holds rows j and j + 4 (the batch reshaped to (2, 4, 3))
  g = x.reshape(2, 4, 3)
  want = ((g - g.mean(0)) / np.sqrt(g.var(0) + 1e-3)).reshape(8, 3)
  np.testing.assert_allclose(y, want, rtol=1e-4, atol=1e-4)
  np.testing.assert_allclose(bn.moving_mean.numpy().ravel(), 0.5 * g.mean(0).mean(0), rtol=1e-5)
  np.testing.assert_allclose(bn.moving_variance.numpy().ravel(),
                             0.5 + 0.5 * g.var(0).mean(0), rtol=1e-5)
  assert bn.gamma.shape == (1, 1, 3) and bn.axis == [2]
  assert bn.get_config()["virtual_batch_size"] == 2
  # a training flag known only when the graph runs: one batch, as Keras
  step = tf.function(lambda v, t: bn(v, training=t))
  np.testing.assert_allclose(step(x, tf.constant(True)).numpy()[0, :3],
                             [1.2585, -0.103, 1.017], atol=1e-3)
  np.testing.assert_allclose(bn.moving_variance.numpy().ravel(), [1.4506, 1.7087, 3.7276],
                             rtol=1e-4)  # tf_keras 2.21's after both steps
  inference = bn(x).numpy()
  np.testing.assert_allclose(inference, (x - bn.moving_mean.numpy().ravel()) / np.sqrt(
      bn.moving_variance.numpy().ravel() + 1e-3), rtol=1e-4, atol=1e-4)
  with pytest.raises(tf.errors.InvalidArgumentError, match="Input to reshape"):
    L.BatchNormalization(virtual_batch_size=3)(x, training=True)
