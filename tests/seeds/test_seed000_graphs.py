"""Seed 000 (TF 2.4 guide, Japanese): introduction to graphs and tf.function.

Its Keras examples (`SequentialModel`, `EagerLayer`, `model.compile/fit`) are
in test_seed000_keras.py. Printed outputs use TF 2.x's newest formats
(seed 002) where this older seed prints an older one.
"""
import re

import numpy as np

import tensorlet as tf


def test_function_to_get_faster():
  # Define a Python function
  def function_to_get_faster(x, y, b):
    x = tf.matmul(x, y)
    x = x + b
    return x

  # Create a `Function` object that contains a graph
  a_function_that_uses_a_graph = tf.function(function_to_get_faster)

  # Make some tensors
  x1 = tf.constant([[1.0, 2.0]])
  y1 = tf.constant([[2.0], [3.0]])
  b1 = tf.constant(4.0)

  # It just works!
  r = a_function_that_uses_a_graph(x1, y1, b1).numpy()
  assert repr(r) == "array([[12.]], dtype=float32)"


def test_tf_function_traces_called_python_functions():
  def inner_function(x, y, b):
    x = tf.matmul(x, y)
    x = x + b
    return x

  # Use the decorator
  @tf.function
  def outer_function(x):
    y = tf.constant([[2.0], [3.0]])
    b = tf.constant(4.0)
    return inner_function(x, y, b)

  # Note that the callable will create a graph that
  # includes inner_function() as well as outer_function()
  r = outer_function(tf.constant([[1.0, 2.0]])).numpy()
  assert repr(r) == "array([[12.]], dtype=float32)"
  graph = outer_function.get_concrete_function(tf.constant([[1.0, 2.0]])).graph
  assert [op.type for op in graph.get_operations()].count("MatMul") == 1


def my_function(x):
  if tf.reduce_sum(x) <= 1:
    return x * x
  else:
    return x-1


def test_control_flow_through_autograph(capsys):
  a_function = tf.function(my_function)
  print("First branch, with graph:", a_function(tf.constant(1.0)).numpy())
  print("Second branch, with graph:", a_function(tf.constant([5.0, 5.0])).numpy())
  assert capsys.readouterr().out == ("First branch, with graph: 1.0\n"
                                     "Second branch, with graph: [4. 4.]\n")


def test_to_code_of_my_function():
  # Don't read the output too carefully.
  code = tf.autograph.to_code(my_function)
  assert code.startswith("def tf__my_function(x):")
  assert "ag__.if_stmt(" in code and "do_return = True" in code and "retval_" in code
  compile(code, "<to_code>", "exec")


def test_polymorphic_function(capsys):
  a_function = tf.function(my_function)
  print(a_function)
  print("Calling a `Function`:")
  print("Int:", a_function(tf.constant(2)))
  print("Float:", a_function(tf.constant(2.0)))
  print("Rank-1 tensor of floats", a_function(tf.constant([2.0, 2.0, 2.0])))
  out = capsys.readouterr().out.splitlines()
  assert re.fullmatch(r"<.*Function.* at 0x[0-9a-f]+>", out[0])
  assert out[1:] == [
      "Calling a `Function`:",
      "Int: tf.Tensor(1, shape=(), dtype=int32)",
      "Float: tf.Tensor(1.0, shape=(), dtype=float32)",
      "Rank-1 tensor of floats tf.Tensor([1. 1. 1.], shape=(3,), dtype=float32)",
  ]
  assert a_function.experimental_get_tracing_count() == 3


def test_inspecting_concrete_functions(capsys):
  a_function = tf.function(my_function)
  # Get the concrete function that works on floats
  print("Inspecting concrete functions")
  print("Concrete function for float:")
  print(a_function.get_concrete_function(tf.TensorSpec(shape=[], dtype=tf.float32)))
  print("Concrete function for tensor of floats:")
  print(a_function.get_concrete_function(tf.constant([2.0, 2.0, 2.0])))
  # The seed (TF 2.4) prints "ConcreteFunction my_function(x) Args: x: float32
  # Tensor, shape=() Returns: ..."; TF 2.x now prints the format of seed 002.
  assert capsys.readouterr().out == (
      "Inspecting concrete functions\n"
      "Concrete function for float:\n"
      "ConcreteFunction Input Parameters:\n"
      "  x (POSITIONAL_OR_KEYWORD): TensorSpec(shape=(), dtype=tf.float32, name=None)\n"
      "Output Type:\n"
      "  TensorSpec(shape=(), dtype=tf.float32, name=None)\n"
      "Captures:\n"
      "  None\n"
      "Concrete function for tensor of floats:\n"
      "ConcreteFunction Input Parameters:\n"
      "  x (POSITIONAL_OR_KEYWORD): TensorSpec(shape=(3,), dtype=tf.float32, name=None)\n"
      "Output Type:\n"
      "  TensorSpec(shape=(3,), dtype=tf.float32, name=None)\n"
      "Captures:\n"
      "  None\n")


def test_calling_a_concrete_function_directly(capsys):
  a_function = tf.function(my_function)
  # Concrete functions are callable
  # Note: You won't normally do this, but instead just call the containing `Function`
  cf = a_function.get_concrete_function(tf.constant(2))
  print("Directly calling a concrete function:", cf(tf.constant(2)))
  assert capsys.readouterr().out == \
      "Directly calling a concrete function: tf.Tensor(1, shape=(), dtype=int32)\n"


def test_run_functions_eagerly(capsys):
  # NOTE: the seed wraps a Keras model with an eager side effect; a plain
  # function with the same side effect stands in for it (Keras is a later issue).
  def model(x):
    print("Currently running eagerly")
    return tf.matmul(tf.reshape(x, [60, 28 * 28]), tf.ones([28 * 28, 10]))
  input_data = tf.constant(np.random.RandomState(0).rand(60, 28, 28).astype(np.float32))

  # Now, globally set everything to run eagerly
  tf.config.run_functions_eagerly(True)
  try:
    print("Run all functions eagerly.")
    # Create a polymorphic function
    polymorphic_function = tf.function(model)
    print("Tracing")
    # This does, in fact, trace the function
    print(polymorphic_function.get_concrete_function(input_data))
    print("\nCalling twice eagerly")
    # When you run the function again, you will see the side effect
    # twice, as the function is running eagerly.
    result = polymorphic_function(input_data)
    result = polymorphic_function(input_data)
  finally:
    # Don't forget to set it back when you are done (the seed calls the
    # deprecated tf.config.experimental_run_functions_eagerly(False)).
    tf.config.run_functions_eagerly(False)
  assert result.shape == [60, 10]
  out = capsys.readouterr().out
  assert out == (
      "Run all functions eagerly.\n"
      "Tracing\n"
      "Currently running eagerly\n"
      "ConcreteFunction Input Parameters:\n"
      "  x (POSITIONAL_OR_KEYWORD): TensorSpec(shape=(60, 28, 28), dtype=tf.float32, "
      "name=None)\n"
      "Output Type:\n"
      "  TensorSpec(shape=(60, 10), dtype=tf.float32, name=None)\n"
      "Captures:\n"
      "  None\n"
      "\n"
      "Calling twice eagerly\n"
      "Currently running eagerly\n"
      "Currently running eagerly\n")


def test_python_side_effect_shows_tracing(capsys):
  # Use @tf.function decorator
  @tf.function
  def a_function_with_python_side_effect(x):
    print("Tracing!")  # An eager-only side effect.
    return x * x + tf.constant(2)

  # This is traced the first time.
  print(a_function_with_python_side_effect(tf.constant(2)))
  # The second time through, you won't see the side effect.
  print(a_function_with_python_side_effect(tf.constant(3)))

  # This retraces each time the Python argument changes,
  # as a Python argument could be an epoch count or other
  # hyperparameter.
  print(a_function_with_python_side_effect(2))
  print(a_function_with_python_side_effect(3))
  assert capsys.readouterr().out == (
      "Tracing!\n"
      "tf.Tensor(6, shape=(), dtype=int32)\n"
      "tf.Tensor(11, shape=(), dtype=int32)\n"
      "Tracing!\n"
      "tf.Tensor(6, shape=(), dtype=int32)\n"
      "Tracing!\n"
      "tf.Tensor(11, shape=(), dtype=int32)\n")
