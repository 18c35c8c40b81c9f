"""Public wrappers name the graph node they create after their `name=` argument."""
import numpy as np
import pytest

import tensorlet as tf

_X = tf.TensorSpec([2, 3], tf.float32)

# name -> function of a [2, 3] float32 graph input whose LAST created node is the named op.
_CASES = {
    "add": lambda x: tf.add(x, x, name="my_add"),
    "subtract": lambda x: tf.subtract(x, x, name="my_sub"),
    "multiply": lambda x: tf.multiply(x, x, name="my_mul"),
    "maximum": lambda x: tf.maximum(x, x, name="my_max"),
    "tanh": lambda x: tf.tanh(x, name="my_tanh"),
    "exp": lambda x: tf.exp(x, name="my_exp"),
    "abs": lambda x: tf.abs(x, name="my_abs"),
    "pow": lambda x: tf.pow(x, x, name="my_pow"),
    "truediv": lambda x: tf.truediv(x, x, name="my_div"),
    "equal": lambda x: tf.equal(x, x, name="my_eq"),
    "matmul": lambda x: tf.matmul(x, x, transpose_b=True, name="my_matmul"),
    "cast": lambda x: tf.cast(x, tf.int32, name="my_cast"),
    "reduce_sum": lambda x: tf.reduce_sum(x, axis=1, name="my_sum"),
    "reduce_mean": lambda x: tf.reduce_mean(x, name="my_mean"),
    "argmax": lambda x: tf.argmax(x, axis=1, name="my_argmax"),
    "cumsum": lambda x: tf.cumsum(x, axis=1, name="my_cumsum"),
    "add_n": lambda x: tf.add_n([x, x], name="my_add_n"),
    "identity": lambda x: tf.identity(x, name="my_identity"),
    "stop_gradient": lambda x: tf.stop_gradient(x, name="my_stop"),
    "shape": lambda x: tf.shape(x, name="my_shape"),
    "reshape": lambda x: tf.reshape(x, [3, 2], name="my_reshape"),
    "transpose": lambda x: tf.transpose(x, name="my_transpose"),
    "concat": lambda x: tf.concat([x, x], 0, name="my_concat"),
    "stack": lambda x: tf.stack([x, x], name="my_stack"),
    "expand_dims": lambda x: tf.expand_dims(x, 0, name="my_expand"),
    "squeeze": lambda x: tf.squeeze(tf.expand_dims(x, 0), name="my_squeeze"),
    "tile": lambda x: tf.tile(x, [2, 1], name="my_tile"),
    "gather": lambda x: tf.gather(x, [1, 0], name="my_gather"),
    "reverse": lambda x: tf.reverse(x, [1], name="my_reverse"),
    "zeros_like": lambda x: tf.zeros_like(x, name="my_zeros_like"),
    "one_hot": lambda x: tf.one_hot(tf.cast(x[0], tf.int32), 3, name="my_one_hot"),
    "argsort": lambda x: tf.argsort(x, name="my_argsort"),
    "split": lambda x: tf.split(x, 3, axis=1, name="my_split")[0],
    "where": lambda x: tf.where(x > 2., x, -x, name="my_where"),
    "slice": lambda x: tf.slice(x, [0, 1], [2, 2], name="my_slice"),
    "bias_add": lambda x: tf.nn.bias_add(x, [1., 2., 3.], name="my_bias_add"),
    "softmax_ce": lambda x: tf.nn.softmax_cross_entropy_with_logits(
        tf.nn.softmax(x), x, name="my_ce"),
    "segment_sum": lambda x: tf.math.unsorted_segment_sum(x, [0, 0], 1, name="my_segsum"),
}


def _op_names(fn):
  f = tf.function(fn)
  graph = f.get_concrete_function(_X).graph
  return [op.name for op in graph.get_operations()]


@pytest.mark.parametrize("case", sorted(_CASES))
def test_node_named_after_name_argument(case):
  fn = _CASES[case]
  names = _op_names(fn)
  wanted = [n for n in names if n.startswith("my_")]
  assert len(wanted) == 1, names
  # The named node is the op the wrapper creates, not a helper constant.
  f = tf.function(fn)
  graph = f.get_concrete_function(_X).graph
  op = next(o for o in graph.get_operations() if o.name == wanted[0])
  assert op.type not in ("Const", "Placeholder", "Identity") or case == "identity", op.type


def test_repeated_names_are_made_unique_and_scoped():
  def fn(x):
    with tf.name_scope("block"):
      a = tf.add(x, 1., name="plus")
    return tf.add(a, 2., name="plus"), tf.add(a, 3., name="plus")

  names = _op_names(fn)
  assert "block/plus" in names and "plus" in names and "plus_1" in names, names


def test_named_ops_compute_the_same_values():
  x = np.arange(6, dtype=np.float32).reshape(2, 3)
  for case, fn in _CASES.items():
    eager = fn(tf.constant(x))
    traced = tf.function(fn)(tf.constant(x))
    np.testing.assert_array_equal(traced.numpy(), eager.numpy(), err_msg=case)
