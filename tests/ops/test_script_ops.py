"""tf.py_function / tf.numpy_function call forms, as TF 2.21 (decorators included)."""
import numpy as np

import tensorlet as tf


def test_py_function_as_decorator():
  @tf.py_function(Tout=tf.float32)
  def double(x):
    return x.numpy() * 2
  assert double.__name__ == "double"
  assert double(tf.constant(3.0)).numpy() == 6.0
  assert tf.function(lambda x: double(x))(tf.constant(3.0)).numpy() == 6.0

  @tf.py_function(Tout=[tf.float32, tf.int32])
  def two(x, y):
    return x * 2, y + 1
  a, b = two(tf.constant(1.0), tf.constant(2))
  assert a.numpy() == 2.0 and b.dtype == tf.int32 and b.numpy() == 3


def test_numpy_function_as_decorator():
  seen = []

  @tf.numpy_function(Tout=tf.float32)
  def double(x):
    seen.append(type(x))
    return x * 2
  assert double(np.float32(3.0)).numpy() == 6.0
  assert tf.function(lambda x: double(x))(tf.constant(3.0)).numpy() == 6.0
  # as TF 2.21: a 0-d input is a 0-d array eagerly and a NumPy scalar in a graph
  assert seen == [np.ndarray, np.float32]


def test_keyword_and_positional_forms_still_work():
  assert tf.py_function(lambda x: x * 2, inp=[tf.constant(2.0)], Tout=tf.float32).numpy() == 4.0
  assert tf.py_function(lambda x: x * 2, [tf.constant(2.0)], tf.float32).numpy() == 4.0
  assert tf.numpy_function(lambda x: x + 1, [np.int32(1)], tf.int32).numpy() == 2
