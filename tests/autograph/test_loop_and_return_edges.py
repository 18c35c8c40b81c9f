"""AutoGraph edge cases of issue 11, each checked against TF 2.21's behaviour."""
import numpy as np
import pytest

import tensorlet as tf


def test_symbol_first_assigned_in_range_loop():
  @tf.function
  def f(n):
    for i in tf.range(n):
      y = i * 2
    return y
  assert f(tf.constant(3)).numpy() == 4
  # TF: InvalidArgumentError at run time when the loop runs zero times
  with pytest.raises(tf.errors.InvalidArgumentError,
                     match=r"loop must iterate at least once to initialize y"):
    f(tf.constant(0))


def test_symbol_first_assigned_in_while_loop_keeps_shape():
  @tf.function
  def f(n):
    i = 0
    while i < n:
      y = tf.ones([2]) * tf.cast(i, tf.float32)
      i += 1
    return y
  np.testing.assert_array_equal(f(tf.constant(3)).numpy(), [2.0, 2.0])


def test_symbol_first_assigned_in_loop_with_varying_shape():
  @tf.function
  def f(n):
    for i in tf.range(n):
      y = tf.ones([i + 1])
      z = i
    return y, z
  y, z = f(tf.constant(3))
  assert y.shape == (3,) and z.numpy() == 2


def test_python_int_loop_variable_becomes_tensor():
  @tf.function
  def f(n):
    s = 0
    for i in tf.range(n):
      s = s + i
    return s
  assert f(tf.constant(4)).numpy() == 6

  @tf.function
  def g(x):
    i = 0
    while i < 3:  # a Python loop whose condition turns into a tensor
      i = i + x
    return i
  with pytest.raises(NotImplementedError, match="started as non-Tensor, then changed to Tensor"):
    g(tf.constant(1))

  @tf.function
  def h(n):
    s = 1
    for _ in tf.range(n):
      s = s * 2.5
    return s
  with pytest.raises(TypeError):
    h(tf.constant(3))


def test_return_in_one_branch_of_tensor_if():
  @tf.function
  def only_main(x):
    if x > 0:
      return x
    x = x + 1

  @tf.function
  def only_else(x):
    if x > 0:
      y = 1
    else:
      return x
  with pytest.raises(ValueError, match="the else branch must also have a return statement"):
    only_main(tf.constant(1))
  with pytest.raises(ValueError, match="the main branch must also have a return statement"):
    only_else(tf.constant(1))


def test_return_in_one_branch_then_more_code_is_fine():
  @tf.function
  def f(x):
    if x > 0:
      pass
    else:
      return x
    return x + 1

  @tf.function
  def g(x):
    if x > 0:
      if x > 1:
        return x
      return x + 1
    return 2 * x
  assert f(tf.constant(1)).numpy() == 2 and f(tf.constant(-1)).numpy() == -1
  assert g(tf.constant(1)).numpy() == 2 and g(tf.constant(5)).numpy() == 5
  assert g(tf.constant(-2)).numpy() == -4


def test_set_loop_options_shape_invariants():
  @tf.function
  def grow(n):
    v = tf.zeros([0])
    for i in tf.range(n):
      tf.autograph.experimental.set_loop_options(shape_invariants=[(v, tf.TensorShape([None]))])
      v = tf.concat([v, [tf.cast(i, tf.float32)]], 0)
    return v
  np.testing.assert_array_equal(grow(tf.constant(3)).numpy(), [0.0, 1.0, 2.0])

  @tf.function
  def capped(n):
    v = tf.zeros([0])
    i = 0
    while i < n:
      tf.autograph.experimental.set_loop_options(
          shape_invariants=[(v, tf.TensorShape([None]))], maximum_iterations=2)
      v = tf.concat([v, [tf.cast(i, tf.float32)]], 0)
      i += 1
    return v
  np.testing.assert_array_equal(capped(tf.constant(5)).numpy(), [0.0, 1.0])


def test_shape_change_without_invariants_names_set_loop_options():
  @tf.function
  def grow(n):
    v = tf.zeros([0])
    for i in tf.range(n):
      v = tf.concat([v, [tf.cast(i, tf.float32)]], 0)
    return v
  with pytest.raises(ValueError, match=r"'v' has shape \(0,\) before the loop, but shape \(1,\) "
                                       r"after one iteration. Use tf.autograph.experimental"
                                       r".set_loop_options"):
    grow(tf.constant(3))
