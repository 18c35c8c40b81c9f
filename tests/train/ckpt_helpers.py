"""Small trackable objects for the checkpoint tests."""
import numpy as np

import tensorlet as tf
from tensorlet.train import checkpoint_hooks


class Dense(tf.Module):
  """Creates its weights on first call, as Keras layers do in build()."""

  def __init__(self, units, name=None):
    super().__init__(name=name)
    self.units = units
    self.kernel = None
    self.bias = None

  def __call__(self, x):
    if self.kernel is None:
      rng = np.random.default_rng(1)
      init = rng.normal(size=(int(x.shape[-1]), self.units)).astype(np.float32)
      self.kernel = tf.Variable(init, name="kernel")
      self.bias = tf.Variable(tf.zeros([self.units]), name="bias")
    return tf.matmul(x, self.kernel) + self.bias


class MLP(tf.Module):
  def __init__(self):
    super().__init__()
    self.hidden = Dense(4)
    self.out = Dense(1)

  def __call__(self, x):
    return self.out(tf.nn.relu(self.hidden(x)))


class Momentum:
  """A minimal optimizer speaking the checkpoint slot protocol (`_tl_slot_variables`
  and `checkpoint_hooks.slot_created`), with one "momentum" slot per variable."""

  def __init__(self, learning_rate=0.1, beta=0.9):
    self.learning_rate = learning_rate
    self.beta = beta
    self.iterations = tf.Variable(0, dtype=tf.int64, trainable=False, name="iter")
    self._slots = {}

  def _tl_slot_variables(self):
    for var, slot in self._slots.values():
      yield var, "momentum", slot

  def apply_gradients(self, grads_and_vars):
    for g, v in grads_and_vars:
      if id(v) not in self._slots:
        slot = tf.Variable(tf.zeros_like(v), trainable=False)
        self._slots[id(v)] = (v, slot)
        checkpoint_hooks.slot_created(self, "momentum", v, slot)
      slot = self._slots[id(v)][1]
      slot.assign(self.beta * slot + g)
      v.assign_sub(self.learning_rate * slot)
    self.iterations.assign_add(1)

  def slot(self, v):
    return self._slots[id(v)][1]


def train_step(model, opt, x, y):
  with tf.GradientTape() as tape:
    loss = tf.reduce_mean((model(x) - y) ** 2)
  variables = model.trainable_variables
  opt.apply_gradients(zip(tape.gradient(loss, variables), variables))
  return loss
