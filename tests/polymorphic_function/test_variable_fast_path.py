"""A tf.function called with eager tensors and tf.Variables as positional arguments
finds its trace without computing trace types again (the fast path), and keeps TF's
retracing rules: variables of one dtype, shape and trainability share a trace, the
same variable passed twice (aliasing) does not share it with two variables."""
import numpy as np
import pytest

import tensorlet as tf
from tensorlet.polymorphic_function.function_type import FunctionType


@pytest.fixture
def type_of_calls(monkeypatch):
  calls = []
  real = FunctionType.type_of

  def counting(self, values):
    calls.append(1)
    return real(self, values)
  monkeypatch.setattr(FunctionType, "type_of", counting)
  return calls


def test_variables_of_one_spec_share_a_trace_and_skip_the_trace_types(type_of_calls):
  traces = []

  @tf.function
  def step(x, v):
    traces.append(1)
    v.assign_add(x)
    return v.read_value() * 2.0

  a, b = tf.Variable([1.0, 2.0]), tf.Variable([10.0, 20.0])
  x = tf.constant([1.0, 1.0])
  assert step(x, a).numpy().tolist() == [4.0, 6.0]
  assert len(type_of_calls) == 1
  assert step(x, b).numpy().tolist() == [22.0, 42.0]   # the variable passed is the one used
  assert step(x, a).numpy().tolist() == [6.0, 8.0]
  assert b.numpy().tolist() == [11.0, 21.0] and a.numpy().tolist() == [3.0, 4.0]
  assert len(traces) == 1
  assert len(type_of_calls) == 1  # b's first call found the trace by the key


def test_aliasing_trainability_dtype_and_shape_retrace():
  traces = []

  @tf.function
  def f(v, w):
    traces.append(1)
    v.assign_add(tf.ones_like(v))
    return w.read_value()

  a, b = tf.Variable([0.0]), tf.Variable([5.0])
  assert f(a, b).numpy().tolist() == [5.0]
  assert f(a, a).numpy().tolist() == [2.0]      # aliased: its own trace reads the write
  assert f(b, a).numpy().tolist() == [2.0]      # two variables again: the first trace
  assert f(b, b).numpy().tolist() == [7.0]      # aliased again: the second trace
  assert len(traces) == 2
  f(tf.Variable([0.0], trainable=False), b)
  assert len(traces) == 3
  f(tf.Variable([0.0], dtype=tf.float64), tf.Variable([1.0], dtype=tf.float64))
  assert len(traces) == 4
  f(tf.Variable([0.0, 1.0]), b)
  assert len(traces) == 5
  f(a, b)
  assert len(traces) == 5


def test_a_tensor_and_a_variable_of_one_shape_do_not_share_a_trace():
  traces = []

  @tf.function
  def f(x):
    traces.append(1)
    return x + 1.0

  v = tf.Variable([1.0, 2.0])
  t = tf.constant([1.0, 2.0])
  assert f(t).numpy().tolist() == [2.0, 3.0]
  assert f(v).numpy().tolist() == [2.0, 3.0]
  v.assign([5.0, 6.0])
  assert f(v).numpy().tolist() == [6.0, 7.0]
  assert f(t).numpy().tolist() == [2.0, 3.0]
  assert len(traces) == 2
  assert [s for s, _ in f._cache.traces][1][0].__class__.__name__ == "VariableType"


def test_unknown_shapes_subclasses_and_tapes():
  traces = []

  @tf.function
  def f(x, v):
    traces.append(1)
    return tf.reduce_sum(x * v)

  loose = tf.Variable(np.ones(3, np.float32), shape=tf.TensorShape(None))
  x = tf.constant([1.0, 2.0, 3.0])
  assert float(f(x, loose)) == 6.0
  loose.assign(np.ones(2, np.float32))
  assert float(f(tf.constant([1.0, 2.0]), loose)) == 3.0
  assert len(traces) == 2   # the tensor's shape changed; the variable's key did not
  with tf.GradientTape() as tape:
    y = f(x, tf.Variable([1.0, 1.0, 1.0]))
  v = tf.Variable([2.0, 2.0, 2.0])
  with tf.GradientTape() as tape:
    y = f(x, v)
  assert float(y) == 12.0 and tape.gradient(y, v).numpy().tolist() == [1.0, 2.0, 3.0]
  from tensorlet.keras.mixed_precision.autocast_variable import AutoCastVariable
  auto = AutoCastVariable(tf.Variable([1.0, 1.0, 1.0]))
  assert float(f(x, auto)) == 6.0  # not a plain Variable: the general path
