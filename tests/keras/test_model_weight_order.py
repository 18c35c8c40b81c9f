"""A model lists its weights as tf_keras 2.21 does (the expected names were printed by
it): layer by layer, each layer in its own order (trainable then non-trainable), then
the model's own weights; `trainable_weights` and `non_trainable_weights` likewise, so
`get_weights()` lists arrays in TF's order."""
import numpy as np

import tensorlet as tf

L = tf.keras.layers


def _names(ws):
  return [w.name for w in ws]


def _bn_dense(*names):
  return [f"{n}/{w}:0" for n in names
          for w in (("gamma", "beta", "moving_mean", "moving_variance") if n.startswith("bn")
                    else ("kernel", "bias"))]


def test_functional_and_nested_models():
  inp = tf.keras.Input((3,))
  h = L.BatchNormalization(name="bn0")(inp)
  h = L.Dense(4, name="d1")(h)
  h = L.BatchNormalization(name="bn1")(h)
  model = tf.keras.Model(inp, L.Dense(2, name="d2")(h))
  assert _names(model.weights) == _bn_dense("bn0", "d1", "bn1", "d2")
  assert _names(model.trainable_weights) == [
      "bn0/gamma:0", "bn0/beta:0", "d1/kernel:0", "d1/bias:0", "bn1/gamma:0", "bn1/beta:0",
      "d2/kernel:0", "d2/bias:0"]
  assert _names(model.non_trainable_weights) == [
      "bn0/moving_mean:0", "bn0/moving_variance:0", "bn1/moving_mean:0",
      "bn1/moving_variance:0"]
  outer = tf.keras.Sequential([model, L.BatchNormalization(name="bn_out"),
                               L.Dense(1, name="dout")])
  outer(tf.ones([2, 3]))
  assert _names(outer.weights) == _bn_dense("bn0", "d1", "bn1", "d2", "bn_out", "dout")
  assert [a.shape for a in outer.get_weights()] == [w.shape for w in outer.weights]
  clone = tf.keras.models.clone_model(outer)
  clone.set_weights(outer.get_weights())
  for a, b in zip(clone.get_weights(), outer.get_weights()):
    np.testing.assert_array_equal(a, b)


class _Block(L.Layer):
  def __init__(self, **kwargs):
    super().__init__(**kwargs)
    self.d = L.Dense(2, name="bd")
    self.bn = L.BatchNormalization(name="bbn")
    self.d2 = L.Dense(2, name="bd2")

  def call(self, x):
    return self.d2(self.bn(self.d(x)))


class _Model(tf.keras.Model):
  def __init__(self):
    super().__init__(name="m")
    self.w0 = self.add_weight("own", shape=(1,), initializer="ones")
    self.s = self.add_weight("own_nt", shape=(1,), initializer="ones", trainable=False)
    self.a = L.Dense(2, name="a")
    self.blk = _Block(name="blk")
    self.frozen = L.BatchNormalization(name="fz")
    self.frozen.trainable = False
    self.c = L.Dense(1, name="c")

  def call(self, x):
    return self.c(self.frozen(self.blk(self.a(x)))) * self.w0


def test_subclassed_model_lists_its_own_weights_last():
  m = _Model()
  m(tf.ones([2, 3]))
  layers = ["m/a/kernel:0", "m/a/bias:0", "m/blk/bd/kernel:0", "m/blk/bd/bias:0",
            "m/blk/bbn/gamma:0", "m/blk/bbn/beta:0", "m/blk/bd2/kernel:0", "m/blk/bd2/bias:0"]
  assert _names(m.weights[:-2]) == layers + [
      "m/blk/bbn/moving_mean:0", "m/blk/bbn/moving_variance:0", "m/fz/gamma:0", "m/fz/beta:0",
      "m/fz/moving_mean:0", "m/fz/moving_variance:0", "m/c/kernel:0", "m/c/bias:0"]
  assert m.weights[-2] is m.w0 and m.weights[-1] is m.s
  assert _names(m.trainable_weights[:-1]) == layers + ["m/c/kernel:0", "m/c/bias:0"]
  assert m.trainable_weights[-1] is m.w0
  # a frozen model: every weight non-trainable, each frozen layer's in its own order
  m.trainable = False
  assert m.trainable_weights == []
  frozen = m.non_trainable_weights
  assert frozen[0] is m.w0 and frozen[-1] is m.s
  assert _names(frozen[1:-1]) == [
      "m/a/kernel:0", "m/a/bias:0", "m/blk/bd/kernel:0", "m/blk/bd/bias:0",
      "m/blk/bbn/gamma:0", "m/blk/bbn/beta:0", "m/blk/bbn/moving_mean:0",
      "m/blk/bbn/moving_variance:0", "m/blk/bd2/kernel:0", "m/blk/bd2/bias:0", "m/fz/gamma:0",
      "m/fz/beta:0", "m/fz/moving_mean:0", "m/fz/moving_variance:0", "m/c/kernel:0",
      "m/c/bias:0"]


class _Tracked(tf.keras.Model):
  def __init__(self):
    super().__init__(name="t")
    self.d = L.Dense(1, name="d")
    self.tracker = tf.keras.metrics.Mean(name="tracker")
    self.sums = [tf.keras.metrics.Sum(name="s")]

  def call(self, x):
    return self.d(x)


def test_metrics_held_by_a_model_count_as_its_weights():
  m = _Tracked()
  m(tf.ones([2, 3]))
  # as tf_keras: a metric attribute's state is among the (non-trainable) weights
  assert _names(m.weights) == ["t/d/kernel:0", "t/d/bias:0", "total:0", "count:0", "total:0"]
  assert _names(m.non_trainable_weights) == ["total:0", "count:0", "total:0"]
  assert _names(m.trainable_weights) == ["t/d/kernel:0", "t/d/bias:0"]
  assert len(m.get_weights()) == 5 and [type(x).__name__ for x in m.layers] == ["Dense"]
  compiled = tf.keras.Sequential([tf.keras.Input((3,)), L.Dense(2, name="dd")])
  compiled.compile("sgd", "mse", metrics=["mae"])
  compiled.fit(np.ones((4, 3)), np.ones((4, 2)), verbose=0)
  assert _names(compiled.weights) == ["dd/kernel:0", "dd/bias:0"]  # compiled metrics: not
