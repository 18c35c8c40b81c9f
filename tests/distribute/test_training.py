"""Training under MirroredStrategy over two virtual CPUs gives the weights of one
replica trained on the global batch: custom loops (eager and tf.function) and Keras
fit/evaluate/predict; gradients cross workers in one fused all-reduce per step."""
import numpy as np
import pytest

import tensorlet as tf

RNG = np.random.default_rng(0)
X = RNG.normal(size=(20, 3)).astype("float32")
Y = RNG.normal(size=(20, 1)).astype("float32")
GLOBAL_BATCH = 8


def _model():
  tf.keras.utils.set_random_seed(1)
  return tf.keras.Sequential([tf.keras.layers.Dense(4, activation="relu", input_shape=(3,)),
                              tf.keras.layers.Dense(1)])


def _custom_loop(strategy, x, y, batch, graph, epochs=3):
  with strategy.scope():
    model = _model()
    opt = tf.keras.optimizers.Adam(0.01)
  data = strategy.experimental_distribute_dataset(
      tf.data.Dataset.from_tensor_slices((x, y)).batch(batch))

  def step(xb, yb):
    with tf.GradientTape() as tape:
      per_example = tf.reduce_sum(tf.square(model(xb, training=True) - yb), axis=1)
      loss = tf.nn.compute_average_loss(per_example, global_batch_size=batch)
    grads = tape.gradient(loss, model.trainable_variables)
    opt.apply_gradients(zip(grads, model.trainable_variables))
    return loss

  def train_step(b):
    return strategy.reduce("SUM", strategy.run(step, args=b), axis=None)
  if graph:
    train_step = tf.function(train_step)
  losses = [float(train_step(b)) for _ in range(epochs) for b in data]
  return [v.numpy() for v in model.trainable_variables], losses


@pytest.mark.parametrize("graph", [False, True])
def test_custom_loop_matches_one_replica(two_cpus, graph):
  want_w, want_l = _custom_loop(tf.distribute.get_strategy(), X, Y, GLOBAL_BATCH, False)
  got_w, got_l = _custom_loop(tf.distribute.MirroredStrategy(two_cpus), X, Y, GLOBAL_BATCH,
                              graph)
  np.testing.assert_allclose(got_l, want_l, rtol=1e-5)
  for a, b in zip(got_w, want_w):
    np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def _fit(strategy, x, y, batch, eager):
  with strategy.scope():
    model = _model()
    model.compile(tf.keras.optimizers.SGD(0.1), "mse", metrics=["mae"], run_eagerly=eager)
  hist = model.fit(x, y, batch_size=batch, epochs=2, verbose=0, shuffle=False)
  ev = model.evaluate(x, y, batch_size=batch, verbose=0)
  pred = model.predict(x, batch_size=batch, verbose=0)
  return model, [v.numpy() for v in model.weights], hist.history, ev, pred


@pytest.mark.parametrize("eager", [False, True])
def test_fit_matches_one_replica(two_cpus, eager):
  _, want_w, want_h, want_ev, want_p = _fit(tf.distribute.get_strategy(), X, Y, 8, eager)
  s = tf.distribute.MirroredStrategy(two_cpus)
  model, got_w, got_h, got_ev, got_p = _fit(s, X, Y, 8, eager)
  assert model.distribute_strategy is s
  for a, b in zip(got_w, want_w):
    np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
  # The logged loss and metric cover both replicas' halves of every batch.
  for k in want_h:
    np.testing.assert_allclose(got_h[k], want_h[k], rtol=1e-5)
  np.testing.assert_allclose(got_ev, want_ev, rtol=1e-5)
  np.testing.assert_allclose(got_p, want_p, rtol=1e-5, atol=1e-6)
  assert type(model.metrics[0].variables[0]).__name__ == "SyncOnReadVariable"


def test_batch_normalization_keeps_per_replica_statistics(two_cpus):
  s = tf.distribute.MirroredStrategy(two_cpus)
  with s.scope():
    bn = tf.keras.layers.BatchNormalization(momentum=0.0)
    bn.build((None, 1))
  x = s.experimental_distribute_values_from_function(
      lambda ctx: tf.constant([[1.0], [3.0]]) * (ctx.replica_id_in_sync_group + 1.0))
  s.run(lambda v: bn(v, training=True), args=(x,))
  # Replica means 2 and 4: the variable reads as their mean, as Keras 2's ON_READ MEAN.
  np.testing.assert_allclose(bn.moving_mean.numpy(), [3.0])
  assert [c.numpy().tolist() for c in bn.moving_mean.values] == [[2.0], [4.0]]


def test_gradients_cross_workers_in_one_fused_all_reduce(two_cpus, fake_workers):
  coll = fake_workers(rank=0, size=2)
  s = tf.distribute.MirroredStrategy(two_cpus, collectives=coll)
  got_w, _ = _custom_loop(s, X[:16], Y[:16], 8, graph=True, epochs=1)
  reduces = [[a.shape for a in c[1]] for c in coll.calls if c[0] == "all_reduce"]
  # Per step: every gradient in one call, then the reported loss.
  grads = [(3, 4), (4,), (4, 1), (1,)]
  assert reduces == [grads, [()], grads, [()]]
  # The other worker is taken to have the same gradients; this worker trained on the
  # first half of each global batch, so it matches one replica on those halves.
  halves = np.concatenate([X[0:4], X[8:12]]), np.concatenate([Y[0:4], Y[8:12]])
  want_w, _ = _custom_loop(tf.distribute.get_strategy(), *halves, 4, graph=False, epochs=1)
  for a, b in zip(got_w, want_w):
    np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_fit_across_fake_workers_aggregates_metrics(two_cpus, fake_workers):
  coll = fake_workers(rank=1, size=2)
  s = tf.distribute.MirroredStrategy(two_cpus, collectives=coll)
  _, got_w, got_h, _, _ = _fit(s, X[:16], Y[:16], 8, eager=False)
  halves = np.concatenate([X[4:8], X[12:16]]), np.concatenate([Y[4:8], Y[12:16]])
  _, want_w, want_h, _, _ = _fit(tf.distribute.get_strategy(), *halves, 4, eager=False)
  for a, b in zip(got_w, want_w):
    np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
  np.testing.assert_allclose(got_h["loss"], want_h["loss"], rtol=1e-5)


def test_short_last_batch_as_tf(two_cpus):
  """9 examples in batches of 8: the last batch gives one replica nothing (loss 0 there,
  not NaN); loss, metric and weights are TF 2.21's (tf_uneven_fit.py wrote them)."""
  import json
  import os
  with open(os.path.join(os.path.dirname(__file__), "tf_uneven_fit.json")) as f:
    want = json.load(f)
  rng = np.random.default_rng(0)
  x = rng.normal(size=(9, 3)).astype("float32")
  y = rng.normal(size=(9, 1)).astype("float32")
  s = tf.distribute.MirroredStrategy(two_cpus)
  for name, loss in (("string", "mse"), ("object", tf.keras.losses.MeanSquaredError())):
    with s.scope():
      m = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(3,))])
      m.set_weights([np.array([[0.1], [0.2], [-0.3]], "float32"),
                     np.array([0.05], "float32")])
      m.compile(tf.keras.optimizers.SGD(0.1), loss, metrics=["mae"])
    h = m.fit(x, y, batch_size=8, epochs=2, verbose=0, shuffle=False)
    for k, v in want[name]["history"].items():
      np.testing.assert_allclose(h.history[k], v, rtol=1e-5, err_msg=f"{name} {k}")
    for a, b in zip(m.get_weights(), want[name]["weights"]):
      np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_models_trained_under_a_strategy_save_and_load(two_cpus, tmp_path):
  s = tf.distribute.MirroredStrategy(two_cpus)
  with s.scope():
    tf.keras.utils.set_random_seed(1)
    model = tf.keras.Sequential([tf.keras.layers.Dense(4, input_shape=(3,)),
                                 tf.keras.layers.BatchNormalization(),
                                 tf.keras.layers.Dense(1)])
    model.compile("adam", "mse")
  data = tf.data.Dataset.from_tensor_slices((X[:16], Y[:16])).batch(8)
  hist = model.fit(data, epochs=1, verbose=0, validation_data=data)
  assert set(hist.history) == {"loss", "val_loss"}
  bn = model.layers[1]
  mean = bn.moving_mean.numpy()  # the replicas' copies differ; this is their mean
  np.testing.assert_allclose(mean, np.mean([c.numpy() for c in bn.moving_mean.values], 0))
  outs = []
  for name in ("m.keras", "saved"):
    model.save(str(tmp_path / name))
    loaded = tf.keras.models.load_model(str(tmp_path / name))
    np.testing.assert_allclose(loaded.layers[1].moving_mean.numpy(), mean, rtol=1e-6)
    outs.append(loaded.predict(X, verbose=0))
  np.testing.assert_allclose(outs[0], outs[1], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("make_opt", [
    lambda: tf.keras.optimizers.legacy.Adam(0.01),
    lambda: tf.keras.mixed_precision.LossScaleOptimizer(tf.keras.optimizers.SGD(0.1))],
    ids=["legacy_adam", "loss_scale"])
def test_wrapped_and_legacy_optimizers_merge_replicas(two_cpus, make_opt):
  results = []
  for s in (tf.distribute.get_strategy(), tf.distribute.MirroredStrategy(two_cpus)):
    with s.scope():
      model = _model()
      model.compile(make_opt(), "mse")
    hist = model.fit(X[:16], Y[:16], batch_size=8, epochs=2, verbose=0)
    results.append((hist.history["loss"], [w.numpy() for w in model.weights]))
  np.testing.assert_allclose(results[1][0], results[0][0], rtol=1e-5)
  for a, b in zip(results[1][1], results[0][1]):
    np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_fit_on_a_distributed_dataset(two_cpus):
  data = tf.data.Dataset.from_tensor_slices((X[:16], Y[:16])).batch(8)
  _, want_w, want_h, _, _ = _fit(tf.distribute.get_strategy(), X[:16], Y[:16], 8, False)
  s = tf.distribute.MirroredStrategy(two_cpus)
  with s.scope():
    model = _model()
    model.compile(tf.keras.optimizers.SGD(0.1), "mse", metrics=["mae"])
  hist = model.fit(s.experimental_distribute_dataset(data), epochs=2, verbose=0)
  np.testing.assert_allclose(hist.history["loss"], want_h["loss"], rtol=1e-5)
  for a, b in zip([v.numpy() for v in model.weights], want_w):
    np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_one_local_replica_of_several_workers(fake_workers):
  coll = fake_workers(rank=0, size=2)
  s = tf.distribute.MirroredStrategy(["/cpu:0"], collectives=coll)
  assert s.num_replicas_in_sync == 2
  got_w, _ = _custom_loop(s, X[:16], Y[:16], 8, graph=False, epochs=1)
  grads = [(3, 4), (4,), (4, 1), (1,)]
  assert [[a.shape for a in c[1]] for c in coll.calls if c[0] == "all_reduce"] == \
      [grads, [()], grads, [()]]
  halves = np.concatenate([X[0:4], X[8:12]]), np.concatenate([Y[0:4], Y[8:12]])
  want_w, _ = _custom_loop(tf.distribute.get_strategy(), *halves, 4, graph=False, epochs=1)
  for a, b in zip(got_w, want_w):
    np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
