"""Mixed precision: policies, float16 compute with float32 variables in layers, the
LossScaleOptimizer's dynamic loss scaling (checked step by step by hand), and the
demo's convnet trained with float16 compute."""
import os
import sys

import numpy as np
import pytest

import tensorlet as tf

MP = tf.keras.mixed_precision


@pytest.fixture(autouse=True)
def _float32_after():
  yield
  MP.set_global_policy(None)


def test_policies():
  p = MP.Policy("mixed_float16")
  assert (p.name, p.compute_dtype, p.variable_dtype) == ("mixed_float16", "float16", "float32")
  assert repr(p) == '<Policy "mixed_float16">'
  with pytest.raises(NotImplementedError, match="no bfloat16 dtype"):
    MP.Policy("mixed_bfloat16")
  assert MP.Policy("float64").variable_dtype == "float64"
  assert MP.global_policy() == MP.Policy("float32")
  MP.set_global_policy("mixed_float16")
  assert MP.global_policy().name == "mixed_float16"
  MP.set_global_policy(MP.Policy("float32"))
  assert MP.global_policy().compute_dtype == "float32"
  with pytest.raises(ValueError, match="Cannot convert value foo to a mixed precision Policy"):
    MP.Policy("foo")
  with pytest.raises(TypeError, match="must be a string, not a DType"):
    MP.Policy(tf.float16)
  with pytest.raises(ValueError, match="can only be used to set the global policy to "
                                       "floating-point policies"):
    MP.set_global_policy("int32")


def test_mixed_layers_compute_in_float16_with_float32_variables():
  MP.set_global_policy("mixed_float16")
  x = np.random.default_rng(0).standard_normal((4, 3)).astype(np.float32)
  dense = tf.keras.layers.Dense(2, activation="relu")
  out = dense(x)
  assert out.dtype == tf.float16
  assert dense.dtype == "float32" and dense.compute_dtype == "float16"
  assert dense.dtype_policy.name == "mixed_float16"
  assert dense.kernel.true_dtype == tf.float32 and dense.kernel.numpy().dtype == np.float32
  k16, b16 = dense.kernel.numpy().astype(np.float16), dense.bias.numpy().astype(np.float16)
  want = np.maximum(x.astype(np.float16) @ k16 + b16, 0)
  np.testing.assert_allclose(out.numpy(), want, rtol=1e-3, atol=1e-3)
  # gradients reach the float32 variables as float32
  with tf.GradientTape() as tape:
    loss = tf.reduce_sum(tf.cast(dense(x), tf.float32))
  grads = tape.gradient(loss, dense.trainable_variables)
  assert [g.dtype for g in grads] == [tf.float32, tf.float32]
  mask = (want > 0).astype(np.float32)
  np.testing.assert_allclose(grads[0].numpy(), x.T @ mask, rtol=1e-2, atol=1e-2)
  # a layer with its own float32 policy computes in float32 (Keras' float32 softmax)
  model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(4),
                               tf.keras.layers.Activation("softmax", dtype="float32")])
  assert model.layers[0](x).dtype == tf.float16 and model(x).dtype == tf.float32
  assert model.inputs[0].dtype == tf.float32
  # configs carry the policy
  cfg = dense.get_config()
  assert cfg["dtype"]["class_name"] == "Policy" and cfg["dtype"]["config"] == {
      "name": "mixed_float16"}
  MP.set_global_policy("float32")
  again = tf.keras.layers.Dense.from_config(cfg)
  assert again.compute_dtype == "float16" and again(x).dtype == tf.float16
  assert tf.keras.layers.Dense(2).get_config()["dtype"] == "float32"


def test_loss_scaling_by_hand():
  opt = MP.LossScaleOptimizer(tf.keras.optimizers.SGD(0.5), dynamic_growth_steps=2)
  assert float(opt.loss_scale) == 2.0 ** 15 and opt.dynamic and opt.initial_scale == 32768.0
  assert float(opt.get_scaled_loss(tf.constant(1.5, tf.float16))) == 49152.0
  un = opt.get_unscaled_gradients([tf.constant([32768.0, 65536.0]), None])
  np.testing.assert_array_equal(un[0].numpy(), [1.0, 2.0]) and un[1] is None
  v = tf.Variable([1.0, 2.0])
  scale, counter, value, its = 32768.0, 0, np.array([1.0, 2.0]), 0
  for g in ([1.0, 1.0], [2.0, 0.0], [np.inf, 1.0], [0.5, np.nan], [1.0, 1.0], [1.0, 1.0]):
    opt.apply_gradients([(tf.constant(g, tf.float32), v)])
    its += 1
    if np.all(np.isfinite(g)):
      value = value - 0.5 * np.array(g)
      counter += 1
      if counter == 2:
        scale, counter = scale * 2, 0
    else:
      scale, counter = max(scale / 2, 1.0), 0
    np.testing.assert_allclose(v.numpy(), value)
    assert float(opt.loss_scale) == scale and int(opt.dynamic_counter.numpy()) == counter
    assert int(opt.iterations.numpy()) == its
  # never below 1
  opt = MP.LossScaleOptimizer(tf.keras.optimizers.SGD(0.5), initial_scale=1.0)
  opt.apply_gradients([(tf.constant([np.inf, 0.0]), v)])
  assert float(opt.loss_scale) == 1.0


def test_skipped_steps_leave_slots_alone_in_graphs():
  opt = MP.LossScaleOptimizer(tf.keras.optimizers.Adam(0.1), initial_scale=8.0)
  v = tf.Variable([1.0, 2.0])
  step = tf.function(lambda g: opt.apply_gradients([(g, v)]))
  step(tf.constant([1.0, 1.0]))
  kept = [v.numpy().copy()] + [s.numpy().copy() for s in opt.inner_optimizer.variables]
  step(tf.constant([np.nan, 1.0]))
  now = [v.numpy()] + [s.numpy() for s in opt.inner_optimizer.variables[1:]]
  for a, b in zip(kept[:1] + kept[2:], now):
    np.testing.assert_array_equal(a, b)
  assert int(opt.iterations.numpy()) == 2 and float(opt.loss_scale) == 4.0


def test_minimize_scales_inside_the_tape_and_config():
  v = tf.Variable([3.0])
  opt = MP.LossScaleOptimizer(tf.keras.optimizers.SGD(0.1), dynamic=False, initial_scale=4.0)
  opt.minimize(lambda: tf.reduce_sum(tf.cast(v, tf.float16) ** 2), [v])
  np.testing.assert_allclose(v.numpy(), [3.0 - 0.1 * 6.0], rtol=1e-6)
  cfg = opt.get_config()
  assert cfg["dynamic"] is False and cfg["initial_scale"] == 4.0
  again = MP.LossScaleOptimizer.from_config(cfg)
  via = tf.keras.optimizers.deserialize(tf.keras.optimizers.serialize(opt))
  assert isinstance(via, MP.LossScaleOptimizer) and via.initial_scale == 4.0
  assert isinstance(again.inner_optimizer, tf.keras.optimizers.SGD) and not again.dynamic
  assert MP.LossScaleOptimizer(tf.keras.optimizers.Adam()).get_config()[
      "dynamic_growth_steps"] == 2000
  with pytest.raises(TypeError, match="cannot wrap another LossScaleOptimizer"):
    MP.LossScaleOptimizer(again)
  with pytest.raises(TypeError, match='"dynamic" argument .* must be a bool'):
    MP.LossScaleOptimizer(tf.keras.optimizers.SGD(), dynamic=1)
  with pytest.raises(ValueError, match='"initial_scale" must be specified'):
    MP.LossScaleOptimizer(tf.keras.optimizers.SGD(), dynamic=False)


def _digits_like(n, seed):
  """8x8 images of 10 noisy prototypes (the demo's digits need scikit-learn)."""
  rng = np.random.default_rng(seed)
  y = rng.integers(0, 10, n)
  protos = np.random.default_rng(99).uniform(0, 1, (10, 8, 8, 1))
  x = protos[y] + rng.normal(0, 0.35, (n, 8, 8, 1))
  return x.astype(np.float32), y.astype(np.int32)


def test_demo_convnet_trains_with_float16_compute():
  sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "examples"))
  try:
    from demo import make_model
  finally:
    sys.path.pop(0)
  (x, y), (xt, yt) = _digits_like(200, 0), _digits_like(200, 1)
  accuracy = {}
  for policy in ("float32", "mixed_float16"):
    MP.set_global_policy(policy)
    tf.keras.utils.set_random_seed(0)
    model = make_model()
    model.compile(tf.keras.optimizers.Adam(5e-3),
                  tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"])
    model.fit(x, y, epochs=3, batch_size=50, verbose=0)
    accuracy[policy] = model.evaluate(xt, yt, verbose=0)[1]
    if policy == "mixed_float16":
      assert isinstance(model.optimizer, MP.LossScaleOptimizer)  # compile wraps it
      assert model(xt[:2]).dtype == tf.float16
      assert all(w.dtype == np.float32 for w in model.get_weights())
  assert accuracy["float32"] > 0.6
  assert abs(accuracy["mixed_float16"] - accuracy["float32"]) < 0.05, accuracy


def test_batch_norm_statistics_stay_float32_and_early_overflows_are_skipped():
  MP.set_global_policy("mixed_float16")
  x = np.random.default_rng(2).uniform(size=(4, 6, 6, 3)).astype(np.float32)
  bn = tf.keras.layers.BatchNormalization(momentum=0.5)
  assert bn(x, training=True).dtype == tf.float16
  assert bn.moving_mean.numpy().dtype == np.float32
  np.testing.assert_allclose(bn.moving_mean.numpy(), 0.5 * x.mean((0, 1, 2)), rtol=2e-3)
  model = tf.keras.Sequential([tf.keras.Input((6, 6, 3)), tf.keras.layers.Conv2D(4, 3),
                               tf.keras.layers.BatchNormalization(), tf.keras.layers.Flatten(),
                               tf.keras.layers.Dense(2)])
  model.compile("adam", "mse")
  with np.errstate(all="ignore"):
    h = model.fit(x, np.ones((4, 2)), epochs=8, verbose=0)
  losses = h.history["loss"]
  # the first steps overflow float16 at scale 2**15: skipped until the scale fits
  skipped = sum(1 for a, b in zip(losses, losses[1:]) if a == b)
  assert float(model.optimizer.loss_scale) == 2.0 ** (15 - skipped)
  assert losses[-1] < losses[0]


def test_checkpoints_keep_the_loss_scale_and_inner_slots(tmp_path):
  MP.set_global_policy("mixed_float16")

  def make():
    model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(2)])
    model.compile(tf.keras.optimizers.Adam(0.01), "mse")
    return model
  rng = np.random.default_rng(3)
  x, y = rng.uniform(size=(8, 3)).astype(np.float32), rng.uniform(size=(8, 2)).astype(np.float32)
  model = make()
  model.optimizer._loss_scale.assign(512.0)
  model.fit(x, y, epochs=3, verbose=0)
  model.save_weights(str(tmp_path / "w"))
  other = make()
  other.fit(x[:1], y[:1], epochs=1, verbose=0)
  other.load_weights(str(tmp_path / "w"))
  assert float(other.optimizer.loss_scale) == 512.0
  assert int(other.optimizer.dynamic_counter.numpy()) == 3
  assert int(other.optimizer.iterations.numpy()) == 3
  for a, b in zip(model.optimizer.variables, other.optimizer.variables):
    np.testing.assert_array_equal(a.numpy(), b.numpy())
  np.testing.assert_array_equal(model.get_weights()[0], other.get_weights()[0])
