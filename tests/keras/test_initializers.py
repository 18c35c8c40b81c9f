"""tf.keras.initializers against Keras 2 (tf_keras): shapes, dtypes, statistics, seeding,
get/serialize round trips and the errors Keras raises.

Expected configs and error types were read off tf_keras 2.21. Random values cannot match
TF bit for bit (tensorlet draws from NumPy's Philox), so draws are checked statistically
on samples large enough that the tolerances hold with a wide margin.
"""
import math

import numpy as np
import pytest

import tensorlet as tf

I = tf.keras.initializers
TRUNC = 0.87962566103423978  # stddev of a unit normal truncated to [-2, 2]


def draw(init, shape, dtype=None):
  return np.asarray(init(shape, dtype=dtype), dtype=np.float64)


# ------------------------------------------------------------ constant initializers

def test_zeros_ones_constant_values_and_dtypes():
  z = I.Zeros()((2, 3))
  assert z.dtype == tf.float32 and z.shape == (2, 3)
  np.testing.assert_array_equal(z, np.zeros((2, 3)))
  o = I.Ones()((4,), dtype=tf.float64)
  assert o.dtype == tf.float64
  np.testing.assert_array_equal(o, np.ones(4))
  # Zeros/Ones accept any numeric or boolean dtype, as Keras does.
  assert I.Zeros()((2,), "int32").dtype == tf.int32
  assert I.Ones()((2,), tf.bool).dtype == tf.bool
  c = I.Constant(3)((2,), dtype="int32")
  assert c.dtype == tf.int32
  np.testing.assert_array_equal(c, [3, 3])
  np.testing.assert_array_equal(I.Constant([1, 2])((2,)), [1.0, 2.0])
  np.testing.assert_array_equal(I.Constant(0.5)((2, 2), "float16"), np.full((2, 2), 0.5))


def test_zeros_and_ones_reject_strings():
  with pytest.raises(ValueError, match="numeric or boolean"):
    I.Zeros()((2,), tf.string)
  with pytest.raises(ValueError, match="numeric or boolean"):
    I.Ones()((2,), tf.string)


# ------------------------------------------------------------ random initializers

def test_random_uniform_bounds_and_moments():
  x = draw(I.RandomUniform(-0.3, 0.7, seed=1), (400, 500))
  assert x.min() >= -0.3 and x.max() < 0.7
  # 200k draws: the sample mean/std are within ~0.001 of 0.2 and 1/sqrt(12).
  assert abs(x.mean() - 0.2) < 0.005
  assert abs(x.std() - 1.0 / math.sqrt(12)) < 0.005
  # Both ends of the interval are reached (the bounds are not just loose).
  assert x.min() < -0.299 and x.max() > 0.699


def test_random_uniform_integer_dtype():
  x = I.RandomUniform(0, 10, seed=2)((1000,), dtype="int32")
  assert x.dtype == tf.int32
  v = np.asarray(x)
  assert v.min() == 0 and v.max() == 9  # maxval is exclusive


def test_random_normal_moments():
  x = draw(I.RandomNormal(mean=1.5, stddev=0.3, seed=3), (200000,))
  assert abs(x.mean() - 1.5) < 0.005
  assert abs(x.std() - 0.3) < 0.005
  # An untruncated normal does go past 2 stddev (~4.6% of draws).
  assert 0.03 < np.mean(np.abs(x - 1.5) > 0.6) < 0.06


def test_truncated_normal_is_cut_at_two_stddev():
  x = draw(I.TruncatedNormal(mean=1.0, stddev=2.0, seed=4), (200000,))
  assert x.min() >= 1.0 - 4.0 and x.max() <= 1.0 + 4.0
  assert x.min() < -2.9 and x.max() > 4.9  # the cut, not a narrower spread
  assert abs(x.mean() - 1.0) < 0.02
  # Truncation shrinks the stddev by TRUNC.
  assert abs(x.std() - 2.0 * TRUNC) < 0.02


def test_default_dtype_and_explicit_dtypes():
  for init in (I.RandomUniform(seed=1), I.RandomNormal(seed=1), I.TruncatedNormal(seed=1),
               I.GlorotUniform(seed=1), I.HeNormal(seed=1), I.Orthogonal(seed=1),
               I.Identity()):
    assert init((3, 4)).dtype == tf.float32
    for dt in (tf.float64, tf.float16):
      out = init((3, 4), dtype=dt)
      assert out.dtype == dt and out.shape == (3, 4)


@pytest.mark.parametrize("init", [I.RandomNormal(), I.TruncatedNormal(), I.VarianceScaling(),
                                  I.GlorotUniform(), I.LecunNormal(), I.Identity(),
                                  I.Orthogonal()])
@pytest.mark.parametrize("dtype", ["int32", "int64", "bool", "string"])
def test_float_only_initializers_reject_other_dtypes(init, dtype):
  with pytest.raises(ValueError, match="Expected floating point type"):
    init((2, 2), dtype=dtype)


@pytest.mark.parametrize("dtype", ["bool", "string"])
def test_random_uniform_rejects_non_numeric(dtype):
  with pytest.raises(ValueError, match="Expected float or integer dtype"):
    I.RandomUniform()((2,), dtype=dtype)


# ------------------------------------------------------------ variance scaling

def test_variance_scaling_every_mode_and_distribution():
  shape = (500, 300)
  fans = {"fan_in": 500, "fan_out": 300, "fan_avg": 400}
  for mode, n in fans.items():
    for scale in (1.0, 2.0):
      std = math.sqrt(scale / n)
      u = draw(I.VarianceScaling(scale, mode, "uniform", seed=5), shape)
      limit = math.sqrt(3.0) * std
      assert u.min() >= -limit and u.max() <= limit and u.max() > 0.999 * limit
      assert abs(u.std() / std - 1) < 0.01
      t = draw(I.VarianceScaling(scale, mode, "truncated_normal", seed=6), shape)
      # The stddev is corrected for truncation, so the sample std is the target one.
      assert abs(t.std() / std - 1) < 0.01
      assert np.abs(t).max() <= 2 * std / TRUNC
      un = draw(I.VarianceScaling(scale, mode, "untruncated_normal", seed=7), shape)
      assert abs(un.std() / std - 1) < 0.01
      assert np.abs(un).max() > 2 * std / TRUNC  # not truncated


def test_variance_scaling_distribution_names_are_normalized():
  # Keras lowercases the name and reads 'normal' as 'truncated_normal'.
  assert I.VarianceScaling(distribution="NORMAL").distribution == "truncated_normal"
  assert I.VarianceScaling(distribution="Uniform").get_config()["distribution"] == "uniform"


def test_fans_of_dense_conv_and_degenerate_shapes():
  # Conv kernels: fan_in = in_channels * receptive field, fan_out = out_channels * field.
  x = draw(I.VarianceScaling(1.0, "fan_in", "uniform", seed=8), (5, 5, 40, 60))
  assert x.max() <= math.sqrt(3.0 / 1000) and x.max() > 0.999 * math.sqrt(3.0 / 1000)
  x = draw(I.VarianceScaling(1.0, "fan_out", "uniform", seed=8), (5, 5, 40, 60))
  assert x.max() <= math.sqrt(3.0 / 1500) and x.max() > 0.999 * math.sqrt(3.0 / 1500)
  # 1-D: both fans are the length; a scalar has fans 1.
  x = draw(I.VarianceScaling(1.0, "fan_avg", "uniform", seed=8), (30000,))
  assert x.max() <= math.sqrt(3.0 / 30000) and x.max() > 0.999 * math.sqrt(3.0 / 30000)
  s = draw(I.VarianceScaling(1.0, "fan_in", "uniform", seed=8), ())
  assert s.shape == () and abs(float(s)) <= math.sqrt(3.0)


@pytest.mark.parametrize("cls,scale,mode,uniform", [
    (I.GlorotUniform, 1.0, "fan_avg", True), (I.GlorotNormal, 1.0, "fan_avg", False),
    (I.HeUniform, 2.0, "fan_in", True), (I.HeNormal, 2.0, "fan_in", False),
    (I.LecunUniform, 1.0, "fan_in", True), (I.LecunNormal, 1.0, "fan_in", False)])
def test_named_variance_scaling_initializers(cls, scale, mode, uniform):
  init = cls(seed=11)
  assert isinstance(init, I.VarianceScaling)
  assert (init.scale, init.mode) == (scale, mode)
  assert init.distribution == ("uniform" if uniform else "truncated_normal")
  assert init.get_config() == {"seed": 11}
  # Same draws as the generic initializer with the same parameters and seed.
  shape = (3, 3, 20, 30)
  generic = I.VarianceScaling(scale, mode, init.distribution, seed=11)
  np.testing.assert_array_equal(init(shape), generic(shape))
  # Receptive field 9: fan_in 9 * 200, fan_out 9 * 300.
  n = {"fan_in": 1800, "fan_avg": 2250}[mode]
  x = draw(init, (3, 3, 200, 300))
  assert abs(x.std() / math.sqrt(scale / n) - 1) < 0.01


def test_variance_scaling_argument_errors():
  with pytest.raises(ValueError, match="Invalid `mode` argument: fan"):
    I.VarianceScaling(mode="fan")
  with pytest.raises(ValueError, match="Invalid `distribution` argument: gamma"):
    I.VarianceScaling(distribution="gamma")
  for scale in (0, -1.0):
    with pytest.raises(ValueError, match="`scale` must be positive"):
      I.VarianceScaling(scale=scale)


# ------------------------------------------------------------ identity and orthogonal

def test_identity():
  np.testing.assert_array_equal(I.Identity(gain=2.0)((2, 3)), [[2, 0, 0], [0, 2, 0]])
  np.testing.assert_array_equal(I.Identity()((3, 2), "float64"), np.eye(3, 2))
  for shape in ((3,), (2, 2, 2)):
    with pytest.raises(ValueError, match="only be used for 2D matrices"):
      I.Identity()(shape)


@pytest.mark.parametrize("shape", [(6, 4), (4, 6), (5, 5), (3, 3, 4, 8)])
def test_orthogonal(shape):
  q = draw(I.Orthogonal(seed=12), shape).reshape(-1, shape[-1])
  # Orthonormal columns when tall, orthonormal rows when wide.
  gram = q.T @ q if q.shape[0] >= q.shape[1] else q @ q.T
  np.testing.assert_allclose(gram, np.eye(len(gram)), atol=1e-5)
  g = draw(I.Orthogonal(gain=3.0, seed=12), shape).reshape(q.shape)
  np.testing.assert_allclose(g, 3.0 * q, rtol=1e-6, atol=1e-6)


def test_orthogonal_needs_two_dims():
  with pytest.raises(ValueError, match="at least two-dimensional"):
    I.Orthogonal()((4,))


def test_orthogonal_half_precision():
  q = draw(I.Orthogonal(seed=1), (4, 4), "float16")
  np.testing.assert_allclose(q.T @ q, np.eye(4), atol=5e-3)


# ------------------------------------------------------------ seeding

SEEDED = [I.RandomUniform, I.RandomNormal, I.TruncatedNormal, I.VarianceScaling,
          I.GlorotUniform, I.GlorotNormal, I.HeUniform, I.HeNormal, I.LecunUniform,
          I.LecunNormal, I.Orthogonal]


@pytest.mark.parametrize("cls", SEEDED)
def test_seeded_initializers_repeat_and_ignore_global_seed(cls):
  shape = (4, 5)
  tf.random.set_seed(1)
  init = cls(seed=42)
  a = np.asarray(init(shape))
  # Keras 2: a seeded initializer returns the same values on every call, from any instance,
  # whatever the global seed.
  np.testing.assert_array_equal(a, init(shape))
  tf.random.set_seed(2)
  np.testing.assert_array_equal(a, cls(seed=42)(shape))
  assert not np.array_equal(a, cls(seed=43)(shape))


@pytest.mark.parametrize("cls", SEEDED)
def test_unseeded_initializers_follow_set_seed(cls):
  shape = (4, 5)
  tf.random.set_seed(7)
  a = np.asarray(cls()(shape))
  tf.random.set_seed(7)
  np.testing.assert_array_equal(a, cls()(shape))
  tf.random.set_seed(8)
  assert not np.array_equal(a, cls()(shape))


# ------------------------------------------------------------ get / serialization

@pytest.mark.parametrize("name,cls", [
    ("zeros", I.Zeros), ("zero", I.Zeros), ("ones", I.Ones), ("one", I.Ones),
    ("constant", I.Constant), ("uniform", I.RandomUniform),
    ("random_uniform", I.RandomUniform), ("normal", I.RandomNormal),
    ("random_normal", I.RandomNormal), ("truncated_normal", I.TruncatedNormal),
    ("glorot_uniform", I.GlorotUniform), ("glorot_normal", I.GlorotNormal),
    ("he_uniform", I.HeUniform), ("he_normal", I.HeNormal),
    ("lecun_uniform", I.LecunUniform), ("lecun_normal", I.LecunNormal),
    ("identity", I.Identity), ("orthogonal", I.Orthogonal),
    ("variance_scaling", I.VarianceScaling), ("GlorotUniform", I.GlorotUniform),
    ("TruncatedNormal", I.TruncatedNormal), ("Zeros", I.Zeros)])
def test_get_by_name(name, cls):
  assert type(I.get(name)) is cls
  assert type(I.deserialize(name)) is cls


def test_get_other_identifiers():
  assert I.get(None) is None
  init = I.HeNormal(seed=1)
  assert I.get(init) is init

  def custom(shape, dtype=None):
    return tf.zeros(shape, dtype)
  assert I.get(custom) is custom
  assert type(I.get(I.GlorotUniform)) is I.GlorotUniform  # a class is instantiated
  got = I.get({"class_name": "RandomUniform", "config": {"minval": -1, "maxval": 1,
                                                         "seed": 5}})
  assert type(got) is I.RandomUniform and got.get_config() == {"minval": -1, "maxval": 1,
                                                                "seed": 5}


def test_get_errors():
  with pytest.raises(ValueError, match="Unknown initializer: 'nope'"):
    I.get("nope")
  with pytest.raises(ValueError, match="Could not interpret initializer identifier: 5"):
    I.get(5)
  with pytest.raises(ValueError, match="Unknown initializer"):
    I.deserialize({"class_name": "Nope", "config": {}})


def test_default_configs_match_keras():
  assert I.Zeros().get_config() == {}
  assert I.Ones().get_config() == {}
  assert I.Constant().get_config() == {"value": 0}
  assert I.RandomUniform().get_config() == {"minval": -0.05, "maxval": 0.05, "seed": None}
  assert I.RandomNormal().get_config() == {"mean": 0.0, "stddev": 0.05, "seed": None}
  assert I.TruncatedNormal().get_config() == {"mean": 0.0, "stddev": 0.05, "seed": None}
  assert I.VarianceScaling().get_config() == {"scale": 1.0, "mode": "fan_in",
                                              "distribution": "truncated_normal",
                                              "seed": None}
  for cls in (I.GlorotUniform, I.GlorotNormal, I.HeUniform, I.HeNormal, I.LecunUniform,
              I.LecunNormal):
    assert cls().get_config() == {"seed": None}
  assert I.Identity().get_config() == {"gain": 1.0}
  assert I.Orthogonal().get_config() == {"gain": 1.0, "seed": None}


@pytest.mark.parametrize("init", [
    I.Zeros(), I.Ones(), I.Constant(2.5), I.RandomUniform(-1.0, 2.0, seed=3),
    I.RandomNormal(1.0, 0.5, seed=4), I.TruncatedNormal(0.5, 2.0, seed=5),
    I.VarianceScaling(2.0, "fan_out", "untruncated_normal", seed=6), I.GlorotUniform(seed=7),
    I.GlorotNormal(seed=8), I.HeUniform(seed=9), I.HeNormal(), I.LecunUniform(seed=10),
    I.LecunNormal(seed=11), I.Identity(gain=2.0), I.Orthogonal(gain=0.5, seed=12)])
def test_config_round_trips(init):
  cls, cfg = type(init), init.get_config()
  assert cls.from_config(cfg).get_config() == cfg
  ser = I.serialize(init)
  assert ser == {"class_name": cls.__name__, "config": cfg}
  back = I.deserialize(ser)
  assert type(back) is cls and back.get_config() == cfg
  # Keras 2.13+ writes 'module' and 'registered_name' too; those keys are ignored.
  back = I.deserialize({"module": "keras.initializers", "registered_name": None, **ser})
  assert type(back) is cls and back.get_config() == cfg
  if cfg.get("seed") is not None:
    np.testing.assert_array_equal(init((3, 4)), back((3, 4)))
