"""tf.print and tf.debugging.Assert return None eagerly and, inside a tf.function, the
staged Operation, usable as a control input (as TF)."""
import numpy as np
import pytest

import tensorlet as tf


def test_print_and_assert_return_operations_in_graphs(tmp_path):
  out = tmp_path / "log.txt"
  kinds = []

  @tf.function
  def f(x):
    p = tf.print("x:", x, output_stream=f"file://{out}")
    a = tf.debugging.Assert(tf.reduce_all(x > 0), [x])
    kinds.append((type(p).__name__, p.type, type(a).__name__, a.type))
    with tf.control_dependencies([p, a]):
      return tf.identity(x)

  np.testing.assert_array_equal(f(tf.constant([1.0, 2.0])).numpy(), [1.0, 2.0])
  assert kinds == [("Operation", "PrintV2", "Operation", "Assert")]
  assert out.read_text() == "x: [1 2]\n"
  with pytest.raises(tf.errors.InvalidArgumentError):
    f(tf.constant([-1.0, 2.0]))


def test_print_and_assert_return_none_eagerly(capsys):
  assert tf.print("hi") is None
  assert tf.debugging.Assert(True, ["ok"]) is None
