"""AdamW, Adamax, Nadam, Adadelta, Ftrl, Lion, the legacy classes, EMA, clipping order,
weight decay and the all-or-nothing apply_gradients, against NumPy."""
import numpy as np
import pytest

import tensorlet as tf
from tensorlet.keras import optimizers

STEPS = 4


def _grads(shape, steps=STEPS):
  rng = np.random.default_rng(5)
  return [rng.standard_normal(shape).astype(np.float32) for _ in range(steps)]


def _adam(w, gs, lr=1e-3, b1=0.9, b2=0.999, eps=1e-7, wd=0.0):
  m, v = np.zeros_like(w), np.zeros_like(w)
  for t, g in enumerate(gs, 1):
    w = w - w * wd * lr
    m = m + (g - m) * (1 - b1)
    v = v + (g * g - v) * (1 - b2)
    w = w - m * lr * np.sqrt(1 - b2 ** t) / (1 - b1 ** t) / (np.sqrt(v) + eps)
  return w


def _adamax(w, gs, lr=1e-3, b1=0.9, b2=0.999, eps=1e-7):
  m, u = np.zeros_like(w), np.zeros_like(w)
  for t, g in enumerate(gs, 1):
    m = m + (g - m) * (1 - b1)
    u = np.maximum(b2 * u, np.abs(g))
    w = w - lr * m / ((1 - b1 ** t) * (u + eps))
  return w


def _nadam(w, gs, lr=1e-3, b1=0.9, b2=0.999, eps=1e-7, scale=1.0):
  m, v, prod = np.zeros_like(w), np.zeros_like(w), 1.0
  for t, g in enumerate(gs, 1):
    u_t = b1 * (1 - 0.5 * 0.96 ** (scale * t))
    u_next = b1 * (1 - 0.5 * 0.96 ** (scale * (t + 1)))
    prod = prod * u_t
    m = m + (g - m) * (1 - b1)
    v = v + (g * g - v) * (1 - b2)
    m_hat = u_next * m / (1 - prod * u_next) + (1 - u_t) * g / (1 - prod)
    w = w - lr * m_hat / (np.sqrt(v / (1 - b2 ** t)) + eps)
  return w


def _adadelta(w, gs, lr=1e-3, rho=0.95, eps=1e-7):
  eg, ed = np.zeros_like(w), np.zeros_like(w)
  for g in gs:
    eg = rho * eg + (1 - rho) * g * g
    delta = -np.sqrt(ed + eps) * g / np.sqrt(eg + eps)
    ed = rho * ed + (1 - rho) * delta * delta
    w = w + lr * delta
  return w


def _ftrl(w, gs, lr=1e-3, power=-0.5, init=0.1, l1=0.0, l2=0.0, shrink=0.0, beta=0.0):
  n, z = np.full_like(w, init), np.zeros_like(w)
  l2 = l2 + beta / (2 * lr)
  for g in gs:
    new_n = n + g * g
    z = z + g + 2 * shrink * w - (new_n ** -power - n ** -power) / lr * w
    w = (np.clip(z, -l1, l1) - z) / (new_n ** -power / lr + 2 * l2)
    n = new_n
  return w


def _lion(w, gs, lr=1e-4, b1=0.9, b2=0.99):
  m = np.zeros_like(w)
  for g in gs:
    w = w - lr * np.sign(m * b1 + g * (1 - b1))
    m = m * b2 + g * (1 - b2)
  return w


def _legacy_adagrad(w, gs, lr, init=0.1, eps=1e-7):
  acc = np.full_like(w, init)
  for g in gs:
    acc = acc + g * g
    w = w - lr * g / (np.sqrt(acc) + eps)
  return w


def _legacy_rmsprop(w, gs, lr, rho=0.9, eps=1e-7):
  ms = np.zeros_like(w)
  for g in gs:
    ms = rho * ms + (1 - rho) * g * g
    w = w - lr * g / (np.sqrt(ms) + eps)
  return w


def _legacy_sgd_decay(w, gs, lr, decay):
  for t, g in enumerate(gs):
    w = w - lr / (1 + decay * t) * g
  return w


L = optimizers.legacy
CASES = [
    ("adamw", lambda: optimizers.AdamW(0.01), lambda w, gs: _adam(w, gs, 0.01, wd=0.004)),
    ("adamw_wd", lambda: optimizers.AdamW(0.05, weight_decay=0.3, beta_1=0.8),
     lambda w, gs: _adam(w, gs, 0.05, b1=0.8, wd=0.3)),
    ("adamax", lambda: optimizers.Adamax(0.02), lambda w, gs: _adamax(w, gs, 0.02)),
    ("nadam", lambda: optimizers.Nadam(0.02), lambda w, gs: _nadam(w, gs, 0.02)),
    ("adadelta", lambda: optimizers.Adadelta(1.0, rho=0.9),
     lambda w, gs: _adadelta(w, gs, 1.0, 0.9)),
    ("ftrl", lambda: optimizers.Ftrl(0.1), lambda w, gs: _ftrl(w, gs, 0.1)),
    ("ftrl_reg", lambda: optimizers.Ftrl(0.1, learning_rate_power=-0.7,
                                         l1_regularization_strength=0.01,
                                         l2_regularization_strength=0.1,
                                         l2_shrinkage_regularization_strength=0.05, beta=0.2),
     lambda w, gs: _ftrl(w, gs, 0.1, -0.7, 0.1, 0.01, 0.1, 0.05, 0.2)),
    ("lion", lambda: optimizers.Lion(0.01), lambda w, gs: _lion(w, gs, 0.01)),
    ("legacy_adagrad", lambda: L.Adagrad(0.1), lambda w, gs: _legacy_adagrad(w, gs, 0.1)),
    ("legacy_rmsprop", lambda: L.RMSprop(0.01), lambda w, gs: _legacy_rmsprop(w, gs, 0.01)),
    ("legacy_sgd_decay", lambda: L.SGD(0.1, decay=0.5),
     lambda w, gs: _legacy_sgd_decay(w, gs, 0.1, 0.5)),
    ("legacy_nadam", lambda: L.Nadam(0.02), lambda w, gs: _nadam(w, gs, 0.02, scale=0.004)),
    ("legacy_adam_lr", lambda: L.Adam(lr=0.01), lambda w, gs: _adam(w, gs, 0.01)),
]


@pytest.mark.parametrize("make,rule", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
@pytest.mark.parametrize("mode", ["eager", "graph"])
def test_update_rules_match_numpy(make, rule, mode):
  w0 = np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3)
  b0 = np.array([0.5, -0.25, 2.0], np.float32)
  gs, hs = _grads(w0.shape), _grads(b0.shape, STEPS)
  opt, w, b = make(), tf.Variable(w0), tf.Variable(b0)
  step = lambda g, h: opt.apply_gradients([(g, w), (h, b)])  # noqa: E731
  if mode == "graph":
    step = tf.function(step)
  for g, h in zip(gs, hs):
    step(tf.constant(g), tf.constant(h))
  np.testing.assert_allclose(w.numpy(), rule(w0, gs), rtol=2e-5, atol=2e-6)
  np.testing.assert_allclose(b.numpy(), rule(b0, hs), rtol=2e-5, atol=2e-6)
  assert opt.iterations.numpy() == STEPS


def test_values_of_real_keras():
  """Three steps on a fixed vector, values from tf_keras 2.21."""
  want = {
      "Nadam": [0.39473944902420044, -0.9104654788970947, 1.942094087600708],
      "Ftrl": [0.26247769594192505, -0.797646164894104, 0.7272898554801941],
      "legacy.Nadam": [0.3994685113430023, -0.914610743522644, 1.94219970703125],
      "legacy.RMSprop": [0.23644840717315674, -0.7849434018135071, 1.8335297107696533],
      "Lion": [0.4, -0.9, 1.9],
      "Adadelta": [0.4989234209060669, -0.9991908669471741, 1.9992653131484985],
      "Adamax": [0.31533387303352356, -0.8361766338348389, 1.9287627935409546]}
  make = {"Nadam": lambda: optimizers.Nadam(0.1),
          "Ftrl": lambda: optimizers.Ftrl(0.1, l1_regularization_strength=0.01,
                                          l2_regularization_strength=0.1,
                                          l2_shrinkage_regularization_strength=0.05, beta=0.2,
                                          learning_rate_power=-0.7),
          "legacy.Nadam": lambda: L.Nadam(0.1), "legacy.RMSprop": lambda: L.RMSprop(0.1),
          "Lion": lambda: optimizers.Lion(0.1), "Adadelta": lambda: optimizers.Adadelta(1.0),
          "Adamax": lambda: optimizers.Adamax(0.1)}
  for name, values in want.items():
    opt, v = make[name](), tf.Variable([0.5, -1.0, 2.0])
    for g in ([1.0, -2.0, 0.5], [0.3, 0.1, -1.0], [-0.5, 0.5, 0.5]):
      opt.apply_gradients([(tf.constant(g), v)])
    np.testing.assert_allclose(v.numpy(), values, rtol=3e-6, err_msg=name)


def test_ema_moving_average_overwrite_and_finalize():
  w0 = np.array([1.0, -2.0], np.float32)
  gs = _grads(w0.shape)
  opt, v = optimizers.SGD(0.1, use_ema=True, ema_momentum=0.5), tf.Variable(w0)
  w, avg = w0.copy(), w0.copy()
  for g in gs:
    opt.apply_gradients([(tf.constant(g), v)])
    w = w - 0.1 * g
    avg = 0.5 * avg + 0.5 * w
  np.testing.assert_allclose(v.numpy(), w, rtol=1e-6)
  assert [n for _, n, _ in opt._slot_list] == ["average"]
  opt.finalize_variable_values([v])
  np.testing.assert_allclose(v.numpy(), avg, rtol=1e-6)
  # every 3rd step the variables take their averages (in a graph as well)
  opt, v = optimizers.SGD(0.1, use_ema=True, ema_momentum=0.9, ema_overwrite_frequency=3), \
      tf.Variable(w0)
  step = tf.function(lambda g: opt.apply_gradients([(g, v)]))
  w, avg = w0.copy(), w0.copy()
  for t, g in enumerate(gs, 1):
    step(tf.constant(g))
    w = w - 0.1 * g
    avg = 0.9 * avg + 0.1 * w
    if t % 3 == 0:
      w = avg.copy()
  np.testing.assert_allclose(v.numpy(), w, rtol=1e-5)


def test_fit_finalizes_ema_weights():
  model = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(2,))])
  opt = optimizers.SGD(0.05, use_ema=True, ema_momentum=0.5)
  model.compile(opt, "mse")
  x = np.ones((4, 2), np.float32)
  model.fit(x, np.zeros((4, 1)), batch_size=4, epochs=2, verbose=0)
  avg = opt._averages[id(model.trainable_variables[0])]
  np.testing.assert_array_equal(model.trainable_variables[0].numpy(), avg.numpy())


def test_clipping_order_and_weight_decay_exclusion():
  # clipnorm wins over clipvalue (Keras 2 applies only the first that is set)
  v = tf.Variable([0.0, 0.0])
  optimizers.SGD(1.0, clipnorm=1.0, clipvalue=0.1).apply_gradients(
      [(tf.constant([3.0, 4.0]), v)])
  np.testing.assert_allclose(v.numpy(), [-0.6, -0.8], rtol=1e-6)
  v = tf.Variable([0.0, 0.0])
  optimizers.SGD(1.0, global_clipnorm=2.5, clipvalue=0.1).apply_gradients(
      [(tf.constant([3.0, 4.0]), v)])
  np.testing.assert_allclose(v.numpy(), [-1.5, -2.0], rtol=1e-6)
  kernel, bias = tf.Variable([1.0], name="kernel"), tf.Variable([1.0], name="bias")
  opt = optimizers.AdamW(0.1, weight_decay=0.5)
  opt.exclude_from_weight_decay(var_names=["bias"])
  zero = tf.constant([0.0])
  opt.apply_gradients([(zero, kernel), (zero, bias)])
  np.testing.assert_allclose([kernel.numpy()[0], bias.numpy()[0]], [0.95, 1.0], rtol=1e-6)
  with pytest.raises(ValueError, match="can only be configued before the optimizer is built"):
    opt.exclude_from_weight_decay(var_list=[kernel])
  opt = optimizers.SGD(0.1, weight_decay=0.5)
  opt.exclude_from_weight_decay(var_list=[bias])
  kernel, bias2 = tf.Variable([1.0]), bias
  opt.apply_gradients([(zero, kernel), (zero, bias2)])
  assert kernel.numpy()[0] == pytest.approx(0.95) and bias2.numpy()[0] == 1.0


ALL = [("SGD", {"momentum": 0.9}), ("Adam", {}), ("RMSprop", {"momentum": 0.5}),
       ("Adagrad", {}), ("AdamW", {}), ("Adamax", {}), ("Nadam", {}), ("Adadelta", {}),
       ("Ftrl", {}), ("Lion", {}), ("Adam", {"use_ema": True, "clipnorm": 1.0})]


def _state(opt, *vs):
  return ([v.numpy().copy() for v in vs], [s.numpy().copy() for _, _, s in opt._slot_list],
          int(opt.iterations.numpy()), len(opt._slot_list))


def _same(a, b):
  assert a[2:] == b[2:]
  for x, y in zip(a[0] + a[1], b[0] + b[1]):
    np.testing.assert_array_equal(x, y)


@pytest.mark.parametrize("name,kwargs", ALL, ids=[f"{n}{'_ema' if k.get('use_ema') else ''}"
                                                  for n, k in ALL])
def test_a_bad_gradient_anywhere_changes_nothing(name, kwargs):
  opt = getattr(optimizers, name)(learning_rate=0.1, **kwargs)
  a, b, c = tf.Variable([1.0, 2.0]), tf.Variable([[3.0]]), tf.Variable([4.0, 5.0, 6.0])
  opt.apply_gradients([(tf.ones([2]), a), (tf.ones([1, 1]), b)])  # slots of a and b exist
  before = _state(opt, a, b, c)
  bad_lists = [
      ([(tf.ones([2]), a), (tf.ones([1, 1]), b), (tf.ones([2]), c)],
       tf.errors.InvalidArgumentError, "same shape"),
      ([(tf.ones([2]), a), (tf.ones([1, 1], tf.float64), b)], tf.errors.InvalidArgumentError,
       "has dtype float64"),
      ([(tf.ones([2]), a), (tf.constant(["x"]), b)], tf.errors.InvalidArgumentError,
       "has dtype string"),
      ([(tf.ones([2]), a), ("x", b)], (TypeError, ValueError), "cannot be converted"),
      ([(tf.ones([2]), a), (np.ones([2, 2], np.float32), b)], tf.errors.InvalidArgumentError,
       "same shape"),
  ]
  for pairs, exc, match in bad_lists:
    with pytest.raises(exc, match=match):
      opt.apply_gradients(pairs)
    _same(_state(opt, a, b, c), before)
  # traced: the shape check fails while tracing, before any update runs
  step = tf.function(lambda g: opt.apply_gradients([(tf.ones([2]), a), (g, c)]))
  with pytest.raises(tf.errors.InvalidArgumentError, match="same shape"):
    step(tf.ones([4]))
  _same(_state(opt, a, b, c), before)
  # and a good list still works afterwards
  opt.apply_gradients([(tf.ones([2]), a), (tf.ones([3]), c)])
  assert opt.iterations.numpy() == 2


def test_same_variable_twice_is_applied_twice_as_keras():
  v = tf.Variable([1.0])
  opt = optimizers.SGD(0.1)
  opt.apply_gradients([(tf.constant([1.0]), v), (tf.constant([2.0]), v)])
  np.testing.assert_allclose(v.numpy(), [0.7], rtol=1e-6)
  assert opt.iterations.numpy() == 1


def test_configs_round_trip_and_lookup():
  for name, kwargs in ALL[:10]:
    cls = getattr(optimizers, name)
    opt = cls(learning_rate=0.05, clipvalue=0.5, **kwargs)
    cfg = opt.get_config()
    assert cfg["name"] == name and cfg["clipvalue"] == 0.5
    again = optimizers.deserialize(optimizers.serialize(opt))
    assert type(again) is cls and again.get_config() == cfg
    assert type(optimizers.get(name.lower())) is cls
  assert optimizers.AdamW().get_config()["weight_decay"] == 0.004
  cfg = optimizers.Ftrl(l1_regularization_strength=0.2).get_config()
  assert cfg["l1_regularization_strength"] == 0.2 and cfg["initial_accumulator_value"] == 0.1
  cfg = L.SGD(0.1, decay=0.01, momentum=0.9).get_config()
  assert list(cfg) == ["name", "learning_rate", "decay", "momentum", "nesterov"]
  assert cfg["decay"] == 0.01 and L.Nadam().get_config()["decay"] == 0.004
  again = L.SGD.from_config(cfg)
  assert isinstance(again, L.SGD) and again.decay == 0.01
  assert issubclass(L.Adam, optimizers.Adam)


def test_bad_arguments():
  with pytest.raises(ValueError, match="Missing value of `weight_decay`"):
    optimizers.AdamW(weight_decay=None)
  with pytest.raises(ValueError, match="`initial_accumulator_value` needs to be positive"):
    optimizers.Ftrl(initial_accumulator_value=-1.0)
  with pytest.raises(ValueError, match="`learning_rate_power` needs to be negative or zero"):
    optimizers.Ftrl(learning_rate_power=0.5)
  with pytest.raises(ValueError, match="`l2_shrinkage_regularization_strength` needs"):
    optimizers.Ftrl(l2_shrinkage_regularization_strength=-0.1)
  with pytest.raises(ValueError, match="must be between \\]0, 1\\]"):
    optimizers.Lion(beta_1=0.0)
  with pytest.raises(TypeError, match="Unexpected keyword argument passed to optimizer"):
    L.Adam(weight_decay=0.1)
  with pytest.raises(ValueError, match="decay cannot be less than 0"):
    L.SGD(decay=-1.0)


def _np_schedules():
  s = np.arange(16, dtype=np.float64)
  cos = lambda f, a=0.0, k=1.0: (1 - a) * 0.5 * k * (1 + np.cos(np.pi * f)) + a  # noqa: E731
  sched = optimizers.schedules
  poly_steps = 5 * np.where(s == 0, 1, np.ceil(s / 5))
  warm = np.minimum(s, 9)
  i = np.floor(np.log(1 - s / 3 * (1 - 2.0)) / np.log(2.0))
  frac = (s / 3 - (1 - 2.0 ** i) / (1 - 2.0)) / 2.0 ** i
  return [
      (sched.InverseTimeDecay(0.1, 3, 0.5), 0.1 / (1 + 0.5 * s / 3)),
      (sched.InverseTimeDecay(0.1, 3, 0.5, staircase=True), 0.1 / (1 + 0.5 * np.floor(s / 3))),
      (sched.PolynomialDecay(0.1, 5), (0.1 - 1e-4) * (1 - np.minimum(s, 5) / 5) + 1e-4),
      (sched.PolynomialDecay(0.1, 5, end_learning_rate=0.01, power=2.0, cycle=True),
       0.09 * (1 - s / poly_steps) ** 2 + 0.01),
      (sched.CosineDecay(0.1, 6, alpha=0.2), 0.1 * cos(np.minimum(s, 6) / 6, 0.2)),
      (sched.CosineDecay(0.1, 6, warmup_target=0.5, warmup_steps=3),
       np.where(warm < 3, 0.4 * warm / 3 + 0.1, 0.5 * cos((warm - 3) / 6))),
      (sched.CosineDecayRestarts(0.1, 3), 0.1 * cos(frac)),
      (sched.CosineDecayRestarts(0.1, 3, t_mul=1.0, m_mul=0.5, alpha=0.1),
       0.1 * cos(s / 3 - np.floor(s / 3), 0.1, 0.5 ** np.floor(s / 3))),
  ]


def test_schedules_against_numpy_and_configs():
  for sched, want in _np_schedules():
    got = [float(sched(i)) for i in range(16)]
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-8, err_msg=type(sched).__name__)
    traced = tf.function(lambda s: sched(s))
    np.testing.assert_allclose(float(traced(tf.constant(7, tf.int64))), want[7], rtol=1e-6)
    again = optimizers.schedules.deserialize(optimizers.schedules.serialize(sched))
    assert type(again) is type(sched) and again.get_config() == sched.get_config()
  # an optimizer reads its schedule at the step it is at
  sched = optimizers.schedules.CosineDecay(0.1, 4)
  opt, v = optimizers.SGD(sched), tf.Variable(0.0)
  for _ in range(3):
    opt.apply_gradients([(tf.constant(1.0), v)])
  want = -sum(0.1 * 0.5 * (1 + np.cos(np.pi * t / 4)) for t in range(3))
  np.testing.assert_allclose(v.numpy(), want, rtol=1e-6)
  cfg = optimizers.serialize(opt)
  assert cfg["config"]["learning_rate"]["class_name"] == "CosineDecay"
  assert isinstance(optimizers.deserialize(cfg)._learning_rate, optimizers.schedules.CosineDecay)


def test_variables_in_keras_order():
  """The names and order tf_keras 2.21 gives (save files list optimizer variables so)."""
  a, b = tf.Variable([1.0, 2.0], name="a"), tf.Variable([[3.0]], name="b")
  want = {
      "Adam": ["m/a", "v/a", "m/b", "v/b"],
      "SGD": ["average/a", "average/b", "m/a", "m/b"],
      "RMSprop": ["velocity/a", "velocity/b", "momentum/a", "momentum/b", "average_gradient/a",
                  "average_gradient/b"],
      "Ftrl": ["accumulator/a", "linear/a", "accumulator/b", "linear/b"],
      "Adadelta": ["accumulated_grad/a", "accumulated_delta_var/a", "accumulated_grad/b",
                   "accumulated_delta_var/b"],
      "Adamax": ["m/a", "u/a", "m/b", "u/b"], "Lion": ["m/a", "m/b"]}
  make = {"SGD": lambda: optimizers.SGD(momentum=0.9, use_ema=True),
          "RMSprop": lambda: optimizers.RMSprop(momentum=0.5, centered=True)}
  for name, slots in want.items():
    opt = make.get(name, getattr(optimizers, name))()
    opt.apply_gradients([(tf.ones([2]), a), (tf.ones([1, 1]), b)])
    assert [v.name for v in opt.variables] == ["iteration:0"] + [f"{name}/{s}:0" for s in slots]


def test_legacy_serialization_round_trip():
  cfg = optimizers.serialize(L.RMSprop(0.01, decay=0.1))
  assert cfg["config"]["is_legacy_optimizer"] is True and cfg["config"]["decay"] == 0.1
  again = optimizers.deserialize(cfg)
  assert type(again) is L.RMSprop and again.decay == 0.1
  assert optimizers.serialize(optimizers.RMSprop())["config"]["is_legacy_optimizer"] is False
