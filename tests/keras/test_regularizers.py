"""tf.keras.regularizers and tf.keras.constraints: values against NumPy, configs and `get`
as in Keras 2 (tf_keras 2.21), and their use by a Dense layer.
"""
import numpy as np
import pytest

import tensorlet as tf

R = tf.keras.regularizers
C = tf.keras.constraints
F32 = lambda v: float(np.float32(v))  # noqa: E731  Keras 2 stores penalties cast to floatx

W = np.array([[1.0, -2.0, 0.5], [3.0, -4.0, 0.0]])


# ------------------------------------------------------------ regularizers

def test_penalty_values():
  w = tf.constant(W)
  l1, sq = np.abs(W).sum(), np.square(W).sum()
  np.testing.assert_allclose(R.L1(0.3)(w), F32(0.3) * l1, rtol=1e-12)
  np.testing.assert_allclose(R.L2(0.2)(w), F32(0.2) * sq, rtol=1e-12)
  np.testing.assert_allclose(R.L1L2(0.3, 0.2)(w), F32(0.3) * l1 + F32(0.2) * sq, rtol=1e-12)
  # Exactly tf_keras' value: the float32-rounded factors applied in float64.
  x = tf.constant([[1., -2.], [3., -4.]], tf.float64)
  assert float(R.L1L2(0.1, 0.2)(x)) == pytest.approx(7.000000104308128, rel=1e-15)
  out = R.L2()(tf.constant(W, tf.float32))
  assert out.dtype == tf.float32 and out.shape == ()
  np.testing.assert_allclose(out, 0.01 * sq, rtol=1e-6)


def test_zero_penalty_is_zero_of_the_weight_dtype():
  out = R.L1L2()(tf.constant([np.inf, 1.0], tf.float64))
  # Keras starts from a constant 0, so an inf weight does not turn it into nan.
  assert out.dtype == tf.float64 and float(out) == 0.0


def test_penalty_gradient():
  w = tf.Variable(W)
  with tf.GradientTape() as tape:
    loss = R.L1L2(0.5, 0.25)(w)
  np.testing.assert_allclose(tape.gradient(loss, w), 0.5 * np.sign(W) + 0.5 * W)


def test_configs_match_keras():
  assert R.L1().get_config() == {"l1": 0.009999999776482582}
  assert R.L2().get_config() == {"l2": 0.009999999776482582}
  assert R.L1L2().get_config() == {"l1": 0.0, "l2": 0.0}
  assert R.l1_l2().get_config() == {"l1": 0.009999999776482582, "l2": 0.009999999776482582}
  assert R.L1(5).get_config() == {"l1": 5.0}
  assert R.L1L2(l1=1, l2=2).get_config() == {"l1": 1.0, "l2": 2.0}
  # None means the default (L1/L2) or zero (L1L2).
  assert R.L1(None).get_config() == {"l1": 0.009999999776482582}
  assert R.L1L2(None, None).get_config() == {"l1": 0.0, "l2": 0.0}
  assert R.L2(l=0.5).get_config() == {"l2": 0.5}  # the legacy keyword


def test_bad_penalties():
  with pytest.raises(ValueError, match="not a valid regularization penalty number"):
    R.L1("x")
  with pytest.raises(ValueError, match="not a valid regularization penalty number"):
    R.L1L2(l2=float("nan"))
  with pytest.raises(TypeError, match="not recognized"):
    R.L1(0.1, factor=2)


@pytest.mark.parametrize("name,cls,cfg", [
    ("l1", R.L1, {"l1": 0.009999999776482582}), ("L1", R.L1, {"l1": 0.009999999776482582}),
    ("l2", R.L2, {"l2": 0.009999999776482582}), ("L2", R.L2, {"l2": 0.009999999776482582}),
    # 'l1_l2' is the function with both defaults 0.01; 'L1L2' the class with zeros.
    ("l1_l2", R.L1L2, {"l1": 0.009999999776482582, "l2": 0.009999999776482582}),
    ("L1L2", R.L1L2, {"l1": 0.0, "l2": 0.0})])
def test_get_by_name(name, cls, cfg):
  reg = R.get(name)
  assert type(reg) is cls and reg.get_config() == cfg


def test_get_serialize_deserialize():
  assert R.get(None) is None
  reg = R.L1L2(0.1, 0.2)
  assert R.get(reg) is reg
  ser = R.serialize(R.L2(0.1))
  assert ser == {"class_name": "L2", "config": {"l2": 0.10000000149011612}}
  back = R.get(ser)
  assert type(back) is R.L2 and back.get_config() == ser["config"]
  back = R.deserialize({"module": "keras.regularizers", "registered_name": None,
                        **R.serialize(reg)})
  assert type(back) is R.L1L2 and back.get_config() == reg.get_config()
  assert R.L1.from_config({"l1": 0.3}).get_config() == {"l1": 0.30000001192092896}
  with pytest.raises(ValueError, match="Could not interpret regularizer identifier: 5"):
    R.get(5)


# ------------------------------------------------------------ constraints

def np_norms(w, axis):
  axis = tuple(axis) if isinstance(axis, list) else axis  # NumPy takes tuples, Keras lists
  return np.sqrt(np.sum(np.square(w), axis=axis, keepdims=True))


EPS = 1e-7  # backend.epsilon(), added to the norm before dividing


@pytest.mark.parametrize("axis", [0, 1, [0, 1]])
def test_max_norm(axis):
  w = np.random.RandomState(0).standard_normal((4, 3, 2)) * 2
  out = C.MaxNorm(1.5, axis=axis)(tf.constant(w))
  n = np_norms(w, axis)
  np.testing.assert_allclose(out, w * np.minimum(n, 1.5) / (EPS + n), rtol=1e-10)
  assert np.all(np_norms(np.asarray(out), axis) <= 1.5 + 1e-6)


def test_max_norm_leaves_small_columns():
  w = np.array([[0.3, 3.0], [0.4, 4.0]])
  out = np.asarray(C.MaxNorm(1.0)(tf.constant(w)))
  np.testing.assert_allclose(out[:, 0], w[:, 0], rtol=1e-6)  # norm 0.5 stays
  np.testing.assert_allclose(out[:, 1], [0.6, 0.8], rtol=1e-6)  # norm 5 scaled to 1


def test_non_neg():
  out = C.NonNeg()(tf.constant(W, tf.float32))
  assert out.dtype == tf.float32
  np.testing.assert_array_equal(out, np.where(W >= 0, W, 0))


@pytest.mark.parametrize("axis", [0, 1, [0, 2]])
def test_unit_norm(axis):
  w = np.random.RandomState(1).standard_normal((3, 4, 2))
  out = np.asarray(C.UnitNorm(axis=axis)(tf.constant(w)))
  np.testing.assert_allclose(out, w / (EPS + np_norms(w, axis)), rtol=1e-10)
  np.testing.assert_allclose(np_norms(out, axis), 1.0, rtol=1e-6)


@pytest.mark.parametrize("axis", [0, 1, [0, 1]])
@pytest.mark.parametrize("rate", [1.0, 0.5])
def test_min_max_norm(axis, rate):
  w = np.random.RandomState(2).standard_normal((3, 5, 2)) * np.array([0.1, 3.0])
  out = C.MinMaxNorm(0.5, 1.0, rate=rate, axis=axis)(tf.constant(w))
  n = np_norms(w, axis)
  desired = rate * np.clip(n, 0.5, 1.0) + (1 - rate) * n
  np.testing.assert_allclose(out, w * desired / (EPS + n), rtol=1e-10)
  # tf_keras' value for ones(2, 2, 3), norms 2 over axes (0, 1): (0.5 * 1 + 0.5 * 2) / 2.
  np.testing.assert_allclose(C.MinMaxNorm(0.5, 1.0, 0.5, [0, 1])(tf.ones((2, 2, 3))),
                             np.full((2, 2, 3), 0.75), rtol=1e-6)


def test_constraint_configs_match_keras():
  assert C.MaxNorm().get_config() == {"max_value": 2, "axis": 0}
  assert C.NonNeg().get_config() == {}
  assert C.UnitNorm().get_config() == {"axis": 0}
  assert C.MinMaxNorm().get_config() == {"min_value": 0.0, "max_value": 1.0, "rate": 1.0,
                                         "axis": 0}
  for c in (C.MaxNorm(3, axis=1), C.NonNeg(), C.UnitNorm(axis=[0, 1]),
            C.MinMaxNorm(0.1, 2.0, 0.5, axis=1)):
    cls, cfg = type(c), c.get_config()
    assert cls.from_config(cfg).get_config() == cfg
    ser = C.serialize(c)
    assert ser == {"class_name": cls.__name__, "config": cfg}
    for d in (ser, {"module": "keras.constraints", "registered_name": None, **ser}):
      back = C.get(d)
      assert type(back) is cls and back.get_config() == cfg


@pytest.mark.parametrize("name,cls", [
    ("max_norm", C.MaxNorm), ("maxnorm", C.MaxNorm), ("MaxNorm", C.MaxNorm),
    ("non_neg", C.NonNeg), ("nonneg", C.NonNeg), ("NonNeg", C.NonNeg),
    ("unit_norm", C.UnitNorm), ("unitnorm", C.UnitNorm), ("UnitNorm", C.UnitNorm),
    ("min_max_norm", C.MinMaxNorm), ("MinMaxNorm", C.MinMaxNorm)])
def test_constraint_get_by_name(name, cls):
  assert type(C.get(name)) is cls
  assert type(C.deserialize(name)) is cls


def test_constraint_get_other_identifiers():
  assert C.get(None) is None
  c = C.UnitNorm()
  assert C.get(c) is c
  with pytest.raises(ValueError, match="Unknown constraint"):
    C.get("nope")
  with pytest.raises(ValueError, match="Could not interpret constraint function identifier"):
    C.get(5)


# ------------------------------------------------------------ use by a layer

def test_dense_regularizers_add_to_losses():
  tf.random.set_seed(0)
  layer = tf.keras.layers.Dense(3, kernel_regularizer=R.L2(0.1), bias_regularizer="l1",
                                bias_initializer=tf.keras.initializers.Constant(-2.0))
  layer.build((None, 4))
  assert len(layer.losses) == 2
  k = np.asarray(layer.kernel)
  np.testing.assert_allclose(layer.losses[0], F32(0.1) * np.square(k).sum(), rtol=1e-6)
  np.testing.assert_allclose(layer.losses[1], F32(0.01) * 6.0, rtol=1e-6)
  # The losses are recomputed from the current weights.
  layer.kernel.assign(np.ones((4, 3), np.float32))
  np.testing.assert_allclose(layer.losses[0], F32(0.1) * 12, rtol=1e-6)


def test_dense_constraint_config_round_trip():
  layer = tf.keras.layers.Dense(2, kernel_constraint=C.MaxNorm(1.5, axis=1),
                                kernel_regularizer=R.L1(0.2))
  cfg = layer.get_config()
  assert cfg["kernel_constraint"] == {"class_name": "MaxNorm",
                                      "config": {"max_value": 1.5, "axis": 1}}
  assert cfg["kernel_regularizer"] == {"class_name": "L1",
                                       "config": {"l1": 0.20000000298023224}}
  clone = tf.keras.layers.Dense.from_config(cfg)
  clone.build((None, 3))
  assert isinstance(clone.kernel.constraint, C.MaxNorm)
  assert clone.kernel.constraint.get_config() == {"max_value": 1.5, "axis": 1}
  assert clone.kernel_regularizer.get_config() == {"l1": 0.20000000298023224}
