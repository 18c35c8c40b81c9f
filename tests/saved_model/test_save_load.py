"""What a save/load round trip keeps: traces, Python arguments, output structures,
constants of every kind, nested modules and containers, signatures, checkpoints."""
import collections

import numpy as np

import tensorlet as tf

Pair = collections.namedtuple("Pair", ["low", "high"])


class Net(tf.Module):
  def __init__(self):
    super().__init__()
    self.inner = tf.Module()
    self.inner.v = tf.Variable([1.0, 2.0, 3.0])
    self.layers = [tf.Variable(2.0), {"k": tf.Variable(np.int64(7), trainable=False)}]
    self.plain = tf.function(lambda x: tf.strings.join([x, tf.constant(b"!")]))

  @tf.function
  def f(self, x, mode="sum", scale=1.0):
    y = x * self.inner.v * self.layers[0] * scale
    if mode == "sum":
      return tf.reduce_sum(y)
    return {"pair": Pair(tf.reduce_min(y), tf.reduce_max(y)), "n": self.layers[1]["k"],
            "tag": "py"}


def test_traces_python_arguments_and_structures(tmp_path):
  n = Net()
  x = tf.constant([1.0, -1.0, 0.5])
  expect = [n.f(x), n.f(x, "minmax"), n.f(tf.constant([[1.0, 2.0, 3.0]]), scale=2.0),
            n.plain(tf.constant(["a", "b"]))]
  tf.saved_model.save(n, str(tmp_path))
  m = tf.saved_model.load(str(tmp_path))
  assert len(m.f.concrete_functions) == 3
  np.testing.assert_allclose(m.f(x).numpy(), expect[0].numpy())
  out = m.f(x, "minmax")
  assert type(out["pair"]).__name__ == "Pair" and out["tag"].numpy() == b"py"
  assert out["pair"].high.numpy() == expect[1]["pair"].high.numpy() and out["n"].numpy() == 7
  np.testing.assert_allclose(m.f(tf.constant([[1.0, 2.0, 3.0]]), scale=2.0).numpy(),
                             expect[2].numpy())
  assert m.plain(tf.constant(["a", "b"])).numpy().tolist() == [b"a!", b"b!"]
  assert isinstance(m.layers, list) and isinstance(m.layers[1], dict)
  assert m.layers[1]["k"].dtype == tf.int64 and not m.layers[1]["k"].trainable
  assert len(m.trainable_variables) == 2 and len(m.variables) == 3
  cf = m.f.get_concrete_function(tf.TensorSpec([3], tf.float32))
  assert cf.structured_input_signature[0][0].shape == [3]


def test_signatures_and_loaded_functions_inside_new_functions(tmp_path):
  n = Net()
  sig = tf.function(lambda x: {"doubled": x * n.layers[0]},
                    input_signature=[tf.TensorSpec([None], tf.float32)])
  n.sig = sig
  tf.saved_model.save(n, str(tmp_path), signatures={"double": sig})
  m = tf.saved_model.load(str(tmp_path))
  out = m.signatures["double"](x=tf.constant([1.0, 2.0]))
  assert list(out) == ["doubled"] and out["doubled"].numpy().tolist() == [2.0, 4.0]

  @tf.function
  def wrap(x):
    return m.sig(x)["doubled"] + 1.0
  assert wrap(tf.constant([3.0])).numpy().tolist() == [7.0]


def test_print_in_a_loaded_function(tmp_path, capsys):
  class Printer(tf.Module):
    @tf.function(input_signature=[tf.TensorSpec([2], tf.int32)])
    def __call__(self, x):
      tf.print("x is", x, output_stream="stdout")
      return x + 1
  tf.saved_model.save(Printer(), str(tmp_path))
  m = tf.saved_model.load(str(tmp_path))
  assert m(tf.constant([1, 2])).numpy().tolist() == [2, 3]
  assert capsys.readouterr().out == "x is [1 2]\n"


def test_variables_restore_into_the_original_class_with_a_checkpoint(tmp_path):
  n = Net()
  n.inner.v.assign([9.0, 8.0, 7.0])
  tf.saved_model.save(n, str(tmp_path))
  fresh = Net()
  tf.train.Checkpoint(fresh).restore(str(tmp_path / "variables" / "variables"))
  assert fresh.inner.v.numpy().tolist() == [9.0, 8.0, 7.0]
  assert tf.saved_model.contains_saved_model(str(tmp_path))
