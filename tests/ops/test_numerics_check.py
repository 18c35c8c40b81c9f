"""tf.debugging.enable_check_numerics / disable_check_numerics, as TF 2.21:
the first op whose floating-point output holds NaN or Inf raises
InvalidArgumentError naming the op, its inputs and the user's line."""
import numpy as np
import pytest

import tensorlet as tf

IAE = tf.errors.InvalidArgumentError


@pytest.fixture
def checks():
  tf.debugging.enable_check_numerics()
  try:
    yield
  finally:
    tf.debugging.disable_check_numerics()


def test_eager_op_that_makes_nan_is_named(checks):
  with pytest.raises(IAE) as e:
    tf.math.log(tf.constant(-1.0))
  msg = str(e.value)
  assert 'Detected Infinity or NaN in output 0 of eagerly-executing op "Log"' in msg
  assert "# of +NaN elements: 1" in msg and "Tensor had NaN values" in msg
  assert "Input tensor: tf.Tensor(-1.0, shape=(), dtype=float32)" in msg
  assert "test_numerics_check.py" in msg   # the user's line


def test_eager_counts_and_inputs(checks):
  with pytest.raises(IAE, match=r"Tensor had \+Inf and NaN values") as e:
    tf.constant([1.0, 0.0]) / 0.0
  msg = str(e.value)
  assert '"RealDiv"' in msg and "Input tensors (2):" in msg
  assert "# of +Inf elements: 1" in msg and "shape: (2,)" in msg


def test_finite_int_and_passthrough_ops_are_not_errors(checks):
  assert tf.math.log(tf.constant(1.0)).numpy() == 0.0
  assert (tf.constant(1) // 1).numpy() == 1
  assert np.isnan(tf.constant(np.nan).numpy())            # constants are not ops that compute
  assert np.isinf(tf.identity(tf.constant(np.inf)).numpy())
  assert np.isnan(tf.Variable(np.nan).numpy())


def test_graph_op_is_named_and_checks_stay_with_the_trace():
  @tf.function
  def f(x):
    y = x * 2
    return tf.math.log(y)
  tf.debugging.enable_check_numerics()
  try:
    assert abs(f(tf.constant(1.0)).numpy() - np.log(2.0)) < 1e-6
    with pytest.raises(IAE) as e:
      f(tf.constant(-1.0))
    msg = str(e.value)
    assert 'output 0 of graph op "Log"' in msg and 'Graph name: "f"' in msg
    assert 'Input tensor: Tensor("mul:0", shape=(), dtype=float32)' in msg
    assert "test_numerics_check.py" in msg
  finally:
    tf.debugging.disable_check_numerics()
  assert np.isnan(tf.math.log(tf.constant(-1.0)).numpy())  # eager: off again
  with pytest.raises(IAE):       # as TF: the trace made while enabled keeps its checks
    f(tf.constant(-1.0))
  g = tf.function(lambda x: tf.math.log(x))
  assert np.isnan(g(tf.constant(-1.0)).numpy())             # new traces are unchecked


def test_gradients_still_flow_through_checked_graphs(checks):
  v = tf.Variable(2.0)

  @tf.function
  def step():
    with tf.GradientTape() as t:
      y = tf.exp(v) * v
    return t.gradient(y, v)
  assert abs(step().numpy() - 3 * np.exp(2.0)) < 1e-4
  with tf.GradientTape() as t:
    y = tf.tanh(v) * 3.0
  assert abs(t.gradient(y, v).numpy() - 3 * (1 - np.tanh(2.0) ** 2)) < 1e-5


def test_disabled_by_default():
  assert np.isnan(tf.math.log(tf.constant(-1.0)).numpy())
