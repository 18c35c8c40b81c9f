"""Keras optimizers against their update rules written out in NumPy."""
import warnings

import numpy as np
import pytest

import tensorlet as tf
from tensorlet.keras import optimizers

STEPS = 4


def _grads(shape, steps=STEPS):
  rng = np.random.default_rng(1)
  return [rng.standard_normal(shape).astype(np.float32) for _ in range(steps)]


def _sgd(w, gs, lr, momentum=0.0, nesterov=False):
  m = np.zeros_like(w)
  for g in gs:
    if momentum:
      m = momentum * m - lr * g
      w = w + (momentum * m - lr * g if nesterov else m)
    else:
      w = w - lr * g
  return w


def _adam(w, gs, lr=1e-3, b1=0.9, b2=0.999, eps=1e-7, amsgrad=False):
  m, v, vhat = np.zeros_like(w), np.zeros_like(w), np.zeros_like(w)
  for t, g in enumerate(gs, 1):
    m = m + (g - m) * (1 - b1)
    v = v + (g * g - v) * (1 - b2)
    vhat = np.maximum(vhat, v)
    alpha = lr * np.sqrt(1 - b2 ** t) / (1 - b1 ** t)
    w = w - m * alpha / (np.sqrt(vhat if amsgrad else v) + eps)
  return w


def _rmsprop(w, gs, lr=1e-3, rho=0.9, momentum=0.0, eps=1e-7, centered=False):
  vel, mom, mg = np.zeros_like(w), np.zeros_like(w), np.zeros_like(w)
  for g in gs:
    vel = rho * vel + (1 - rho) * g * g
    den = vel + eps
    if centered:
      mg = rho * mg + (1 - rho) * g
      den = vel - mg * mg + eps
    inc = lr * g / np.sqrt(den)
    if momentum:
      mom = momentum * mom + inc
      w = w - mom
    else:
      w = w - inc
  return w


def _adagrad(w, gs, lr=1e-3, init=0.1, eps=1e-7):
  acc = np.full_like(w, init)
  for g in gs:
    acc = acc + g * g
    w = w - lr * g / np.sqrt(acc + eps)
  return w


CASES = [
    (lambda: optimizers.SGD(0.1), lambda w, gs: _sgd(w, gs, 0.1)),
    (lambda: optimizers.SGD(0.1, momentum=0.9), lambda w, gs: _sgd(w, gs, 0.1, 0.9)),
    (lambda: optimizers.SGD(0.05, momentum=0.5, nesterov=True),
     lambda w, gs: _sgd(w, gs, 0.05, 0.5, True)),
    (lambda: optimizers.Adam(), lambda w, gs: _adam(w, gs)),
    (lambda: optimizers.Adam(0.01, beta_1=0.8, beta_2=0.99, epsilon=1e-3),
     lambda w, gs: _adam(w, gs, 0.01, 0.8, 0.99, 1e-3)),
    (lambda: optimizers.Adam(0.01, amsgrad=True), lambda w, gs: _adam(w, gs, 0.01, amsgrad=True)),
    (lambda: optimizers.RMSprop(), lambda w, gs: _rmsprop(w, gs)),
    (lambda: optimizers.RMSprop(0.01, momentum=0.9, centered=True),
     lambda w, gs: _rmsprop(w, gs, 0.01, momentum=0.9, centered=True)),
    (lambda: optimizers.RMSprop(0.01, momentum=0.5),
     lambda w, gs: _rmsprop(w, gs, 0.01, momentum=0.5)),
    (lambda: optimizers.Adagrad(0.1), lambda w, gs: _adagrad(w, gs, 0.1)),
]
IDS = ["sgd", "momentum", "nesterov", "adam", "adam_hp", "amsgrad", "rmsprop",
       "rmsprop_centered_momentum", "rmsprop_momentum", "adagrad"]


@pytest.mark.parametrize("make,rule", CASES, ids=IDS)
@pytest.mark.parametrize("mode", ["eager", "graph"])
def test_update_rules_match_numpy(make, rule, mode):
  w0 = np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3)
  gs = _grads(w0.shape)
  opt, var = make(), tf.Variable(w0)
  step = opt.apply_gradients
  if mode == "graph":
    step = tf.function(lambda g: opt.apply_gradients([(g, var)]))
    for g in gs:
      step(tf.constant(g))
  else:
    for g in gs:
      step([(tf.constant(g), var)])
  np.testing.assert_allclose(var.numpy(), rule(w0, gs), rtol=2e-5, atol=1e-6)
  assert opt.iterations.numpy() == STEPS and opt.iterations.dtype == tf.int64


def test_scalar_variable_and_reads_keep_their_values():
  opt = optimizers.Adam(0.1)
  v = tf.Variable(2.0)
  before = v.read_value()
  opt.apply_gradients([(tf.constant(1.0), v)])
  assert before.numpy() == 2.0  # a tensor read before the step is a snapshot
  np.testing.assert_allclose(v.numpy(), _adam(np.float32(2.0), [np.float32(1.0)], 0.1),
                             rtol=1e-6)
  assert v.shape == [] and v.dtype == tf.float32


def test_minimize_with_callable_and_tape():
  opt = optimizers.SGD(learning_rate=0.1)
  var = tf.Variable(1.0)
  assert opt.minimize(lambda: (var ** 2) / 2.0, [var]).numpy() == 1
  np.testing.assert_allclose(var.numpy(), 0.9)
  with tf.GradientTape() as tape:
    loss = var * 3.0
  opt.minimize(loss, [var], tape=tape)
  np.testing.assert_allclose(var.numpy(), 0.6, rtol=1e-6)
  with pytest.raises(ValueError, match="`tape` is required"):
    opt.minimize(tf.constant(1.0), [var])


def test_slots_variables_and_checkpoint_hooks():
  opt = optimizers.Adam()
  w, b = tf.Variable(tf.ones([2, 2]), name="kernel"), tf.Variable(tf.zeros([2]), name="bias")
  opt.apply_gradients([(tf.ones([2, 2]), w), (tf.ones([2]), b)])
  names = [v.name for v in opt.variables]
  assert names == ["iteration:0", "Adam/m/kernel:0", "Adam/v/kernel:0", "Adam/m/bias:0",
                   "Adam/v/bias:0"]
  slots = list(opt._tl_slot_variables())
  assert [(s, v is w or v is b) for v, s, _ in slots] == [("m", True), ("v", True)] * 2
  assert dict(opt._tl_checkpoint_children())["iter"] is opt.iterations
  opt.apply_gradients([(tf.ones([2]), b)])
  assert len(opt.variables) == 5  # slots are made once per variable


def test_slots_created_on_first_trace_only():
  opt, var = optimizers.RMSprop(0.01, momentum=0.9), tf.Variable([1.0, 2.0])

  @tf.function
  def step(g):
    opt.apply_gradients([(g, var)])
  step(tf.constant([1.0, 1.0]))
  step(tf.constant([[1.0, 1.0]])[0])
  step(tf.constant([1.0, 1.0], shape=[2]))
  assert len(opt.variables) == 3 and opt.iterations.numpy() == 3


def test_checkpoint_round_trip(tmp_path):
  opt, var = optimizers.Adam(0.1), tf.Variable([1.0, 2.0])
  opt.apply_gradients([(tf.constant([1.0, -1.0]), var)])
  path = tf.train.Checkpoint(opt=opt, var=var).save(str(tmp_path / "ckpt"))
  opt2, var2 = optimizers.Adam(0.1), tf.Variable([0.0, 0.0])
  tf.train.Checkpoint(opt=opt2, var=var2).restore(path)
  opt2.apply_gradients([(tf.constant([1.0, -1.0]), var2)])  # slots restored on creation
  opt.apply_gradients([(tf.constant([1.0, -1.0]), var)])
  np.testing.assert_allclose(var2.numpy(), var.numpy())
  assert opt2.iterations.numpy() == 2


def test_learning_rate_variable_and_setter():
  opt = optimizers.SGD(0.5)
  assert isinstance(opt.learning_rate, tf.Variable) and opt.learning_rate.dtype == tf.float32
  opt.learning_rate = 0.25
  v = tf.Variable(1.0)
  opt.apply_gradients([(tf.constant(1.0), v)])
  np.testing.assert_allclose(v.numpy(), 0.75)
  assert opt.lr is opt.learning_rate


def test_schedules():
  sched = optimizers.schedules.ExponentialDecay(0.1, decay_steps=2, decay_rate=0.5)
  opt, v = optimizers.SGD(sched), tf.Variable(0.0)
  for _ in range(3):
    opt.apply_gradients([(tf.constant(1.0), v)])
  np.testing.assert_allclose(v.numpy(), -(0.1 + 0.1 * 0.5 ** 0.5 + 0.05), rtol=1e-6)
  stair = optimizers.schedules.ExponentialDecay(1.0, 2, 0.5, staircase=True)
  assert [float(stair(s)) for s in range(5)] == [1.0, 1.0, 0.5, 0.5, 0.25]
  pw = optimizers.schedules.PiecewiseConstantDecay([2, 4], [1.0, 0.5, 0.1])
  np.testing.assert_allclose([float(pw(s)) for s in range(6)], [1, 1, 1, .5, .5, .1])
  cfg = optimizers.serialize(opt)
  again = optimizers.deserialize(cfg)
  assert isinstance(again.learning_rate, tf.Tensor)
  assert again.get_config()["learning_rate"]["config"]["decay_steps"] == 2
  with pytest.raises(ValueError, match="decay_steps"):
    optimizers.schedules.ExponentialDecay(0.1, 0, 0.5)
  with pytest.raises(ValueError, match="boundaries"):
    optimizers.schedules.PiecewiseConstantDecay([1, 2], [1.0])


def test_clipping_and_weight_decay():
  v = tf.Variable([3.0, 4.0])
  optimizers.SGD(1.0, clipnorm=1.0).apply_gradients([(tf.constant([3.0, 4.0]), v)])
  np.testing.assert_allclose(v.numpy(), [2.4, 3.2], rtol=1e-6)
  v = tf.Variable([0.0, 0.0])
  optimizers.SGD(1.0, clipvalue=0.5).apply_gradients([(tf.constant([2.0, -0.1]), v)])
  np.testing.assert_allclose(v.numpy(), [-0.5, 0.1], rtol=1e-6)
  a, b = tf.Variable([0.0]), tf.Variable([0.0])
  optimizers.SGD(1.0, global_clipnorm=5.0).apply_gradients(
      [(tf.constant([6.0]), a), (tf.constant([8.0]), b)])
  np.testing.assert_allclose([a.numpy()[0], b.numpy()[0]], [-3.0, -4.0], rtol=1e-6)
  v = tf.Variable([1.0])
  optimizers.SGD(0.1, weight_decay=0.5).apply_gradients([(tf.constant([0.0]), v)])
  np.testing.assert_allclose(v.numpy(), [0.95], rtol=1e-6)


def test_get_config_and_get():
  cfg = optimizers.Adam().get_config()
  assert cfg == {"name": "Adam", "weight_decay": None, "clipnorm": None,
                 "global_clipnorm": None, "clipvalue": None, "use_ema": False,
                 "ema_momentum": 0.99, "ema_overwrite_frequency": None, "jit_compile": False,
                 "is_legacy_optimizer": False, "learning_rate": np.float32(0.001),
                 "beta_1": 0.9, "beta_2": 0.999, "epsilon": 1e-07, "amsgrad": False}
  assert optimizers.RMSprop().get_config()["ema_overwrite_frequency"] == 100
  assert isinstance(optimizers.get("adam"), optimizers.Adam)
  assert isinstance(optimizers.get("RMSprop"), optimizers.RMSprop)
  sgd = optimizers.get({"class_name": "SGD", "config": {"learning_rate": 0.5,
                                                         "momentum": 0.9}})
  assert float(sgd.learning_rate) == 0.5 and sgd.momentum == 0.9
  same = optimizers.Adagrad()
  assert optimizers.get(same) is same
  again = optimizers.Adagrad.from_config(same.get_config())
  assert again.get_config() == same.get_config()


def test_bad_input():
  with pytest.raises(ValueError, match="Unknown optimizer: 'foo'"):
    optimizers.get("foo")
  with pytest.raises(ValueError, match="Could not interpret optimizer identifier"):
    optimizers.get(3)
  with pytest.raises(ValueError, match="decay is deprecated"):
    optimizers.SGD(decay=0.1)
  with pytest.raises(TypeError, match="foo is not a valid argument"):
    optimizers.Adam(foo=1)
  with pytest.raises(ValueError, match="At most one of `clipnorm` and `global_clipnorm`"):
    optimizers.SGD(clipnorm=1.0, global_clipnorm=1.0)
  with pytest.raises(ValueError, match="momentum"):
    optimizers.SGD(momentum=2.0)
  with pytest.raises(ValueError, match="`ema_momentum` must be in the range"):
    optimizers.Adam(use_ema=True, ema_momentum=1.5)
  with pytest.raises(ValueError, match="`ema_overwrite_frequency` must be an integer"):
    optimizers.Adam(use_ema=True, ema_overwrite_frequency=0.5)
  with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    assert float(optimizers.SGD(lr=0.5).learning_rate) == pytest.approx(0.01)  # as Keras
  assert "`lr` is deprecated" in str(w[0].message)
  opt, v = optimizers.Adam(), tf.Variable([1.0, 2.0])
  with pytest.raises(ValueError, match="No gradients provided for any variable"):
    opt.apply_gradients([(None, v)])
  with pytest.raises(tf.errors.InvalidArgumentError, match="same shape"):
    opt.apply_gradients([(tf.constant([1.0, 2.0, 3.0]), v)])
  with pytest.raises(tf.errors.InvalidArgumentError, match="dtype float64"):
    opt.apply_gradients([(tf.constant([1.0, 2.0], tf.float64), v)])
  with pytest.raises(TypeError, match="tf.Variable"):
    opt.apply_gradients([(tf.constant([1.0, 2.0]), tf.constant([1.0, 2.0]))])
  np.testing.assert_array_equal(v.numpy(), [1.0, 2.0])  # failed steps change nothing
  w = tf.Variable([1.0])
  with warnings.catch_warnings(record=True) as rec:
    warnings.simplefilter("always")
    opt.apply_gradients([(None, v), (tf.constant([1.0]), w)])
  assert "Gradients do not exist" in str(rec[0].message)


@pytest.mark.parametrize("graph", [False, True])
def test_constraints_apply_after_each_update(graph):
  v = tf.Variable([[1.0, -1.0]], constraint=tf.keras.constraints.NonNeg())
  free = tf.Variable([[1.0, -1.0]])
  opt = tf.keras.optimizers.SGD(1.0)

  def step():
    g = tf.constant([[0.5, 0.5]])
    opt.apply_gradients([(g, v), (g, free)])
  (tf.function(step) if graph else step)()
  np.testing.assert_array_equal(v.numpy(), [[0.5, 0.0]])
  np.testing.assert_array_equal(free.numpy(), [[0.5, -1.5]])


def test_layer_kernel_constraint_holds_during_fit():
  x = np.random.RandomState(0).standard_normal((32, 4)).astype(np.float32)
  y = -x.sum(1, keepdims=True)  # the best kernel is negative: the constraint must bind
  m = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(4,),
                                                 kernel_constraint="non_neg")])
  m.compile(tf.keras.optimizers.SGD(0.1), "mse")
  m.fit(x, y, epochs=3, batch_size=8, verbose=0)
  assert (m.layers[0].kernel.numpy() >= 0).all()
