"""Seed 001 (Russian lesson): graphs and tf.function.

The training step `train_batch` (a Keras model, optimizer and tf.data batches)
belongs to the Keras/tf.data issues; tests/function/test_semantics.py has the
same step written with variables and `assign_sub`. Timings are printed, never
asserted.
"""
import re
import time

import numpy as np

import tensorlet as tf

SIZE = 200  # the seed uses 1000; the values are the same function of SIZE


def function_tf(x, y):
  s = tf.zeros_like(x, dtype=tf.float32)
  s = s + tf.matmul(x, y)
  for n in range(10):
    s = s + tf.matmul(s, y) * x
  return s


def test_function(fn):
  def wrapper(*args, **kwargs):
    start = time.time()
    fn(*args, **kwargs)
    dt = time.time() - start
    print(f"Время обработки: {dt} сек")
  return wrapper


test_function.__test__ = False  # the seed's timing decorator, not a pytest test


def expected(size):
  # ones @ ones = size everywhere; each step multiplies by (1 + size).
  return size * (1.0 + size) ** 10


def test_graph_and_eager_agree_and_time(capsys):
  x = tf.ones((SIZE, SIZE), dtype=tf.float32)
  y = tf.ones_like(x, dtype=tf.float32)
  function_tf_graph = tf.function(function_tf)
  test_function(function_tf)(x, y)
  test_function(function_tf_graph)(x, y)
  lines = capsys.readouterr().out.splitlines()
  assert len(lines) == 2
  for line in lines:
    assert re.fullmatch(r"Время обработки: \d+\.\d+(e-\d+)? сек", line)
  eager = function_tf(x, y).numpy()
  graph = function_tf_graph(x, y).numpy()
  # NOTE: the thread policy may give the two runs different BLAS thread counts (it reads
  # the host's load), and OpenBLAS rounds float32 differently per path: ~5e-6 apart.
  np.testing.assert_allclose(graph, eager, rtol=2e-5)
  np.testing.assert_allclose(eager[0, 0], expected(SIZE), rtol=1e-5)
  assert function_tf_graph.experimental_get_tracing_count() == 1


def test_called_in_a_loop(capsys):
  def test_function_loop(fn):
    def wrapper(*args, **kwargs):
      start = time.time()
      for n in range(10):
        fn(*args, **kwargs)
      dt = time.time() - start
      print(f"Время обработки: {dt} сек")
    return wrapper
  x = tf.ones((50, 50), dtype=tf.float32)
  y = tf.ones_like(x, dtype=tf.float32)
  function_tf_graph = tf.function(function_tf)
  test_function_loop(function_tf)(x, y)
  test_function_loop(function_tf_graph)(x, y)
  assert len(capsys.readouterr().out.splitlines()) == 2
  assert function_tf_graph.experimental_get_tracing_count() == 1


def function_for(s, x, y):
  for n in range(10):
    s = s + tf.matmul(s, y) * x
  return s


def function_tf_nested(x, y):
  s = tf.zeros_like(x, dtype=tf.float32)
  s = s + tf.matmul(x, y)
  return function_for(s, x, y)


def test_called_functions_become_part_of_the_graph():
  x = tf.ones((8, 8), dtype=tf.float32)
  y = tf.ones_like(x, dtype=tf.float32)
  g = tf.function(function_tf_nested)
  np.testing.assert_allclose(g(x, y).numpy(), function_tf(x, y).numpy(), rtol=1e-6)
  ops = [op.type for op in g.get_concrete_function(x, y).graph.get_operations()]
  assert ops.count("MatMul") == 11     # the Python loop is unrolled into the graph


def function_tf_print(x, y):
  print("вызов функции print")
  s = tf.zeros_like(x, dtype=tf.float32)
  s = s + tf.matmul(x, y)
  return function_for(s, x, y)


def test_print_runs_only_while_tracing(capsys):
  x = tf.ones((4, 4), dtype=tf.float32)
  y = tf.ones_like(x, dtype=tf.float32)
  function_tf_graph = tf.function(function_tf_print)
  for n in range(10):
    function_tf_print(x, y)
  assert capsys.readouterr().out == "вызов функции print\n" * 10
  for n in range(10):
    function_tf_graph(x, y)
  assert capsys.readouterr().out == "вызов функции print\n"


def test_variables_passed_as_arguments():
  # The lesson's advice: create tf.Variable outside functions, pass them in.
  w = tf.Variable([[1.0], [2.0]])

  @tf.function
  def step(w, x):
    w.assign_sub(0.5 * x * tf.reduce_sum(x * w))
    return tf.reduce_sum(w)
  assert step(w, tf.constant([[1.0], [0.0]])).numpy() == 2.5
  np.testing.assert_allclose(w.numpy(), [[0.5], [2.0]])
