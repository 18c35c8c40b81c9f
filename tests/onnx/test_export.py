"""Exported ONNX models run in ONNX Runtime with tensorlet's outputs."""
import os
import sys

import numpy as np
import pytest

import tensorlet as tf

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(__file__)), "saved_model"))
import seed_modules  # noqa: E402

import onnxruntime as ort  # noqa: E402


def _run(model, *args):
  sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
  feed = {i.name: np.asarray(a) for i, a in zip(sess.get_inputs(), args)}
  return sess.run(None, feed)


@pytest.mark.parametrize("name", ["mlp", "conv", "loop"])
def test_seed_models_match_onnx_runtime(name, tmp_path):
  ins = seed_modules.inputs()
  model, args = {"mlp": (seed_modules.Mlp100, (ins["mlp"],)),
                 "conv": (seed_modules.ConvNet, (ins["conv"],)),
                 "loop": (seed_modules.Looper, ins["loop"])}[name]
  m = model()
  path = tmp_path / "m.onnx"
  proto = tf.onnx.export(m.__call__, path, opset=17)
  assert path.stat().st_size > 0
  if name == "loop":
    assert {"If", "Loop"} <= {n.op_type for n in proto.graph.node}
  np.testing.assert_allclose(_run(proto, *args)[0], m(*args).numpy(), rtol=1e-5, atol=1e-6)


def test_op_coverage(tmp_path):
  rng = np.random.default_rng(0)
  x = rng.normal(size=[2, 6, 6, 3]).astype(np.float32)
  w = rng.normal(size=[4, 3]).astype(np.float32)

  @tf.function(input_signature=[tf.TensorSpec([None, 6, 6, 3], tf.float32)])
  def f(x):
    p = tf.nn.avg_pool2d(x, 3, 2, "SAME")
    flat = tf.reshape(p, [tf.shape(p)[0], -1])
    h = tf.matmul(tf.reduce_mean(x, axis=[1, 2]), w, transpose_b=True)
    s = tf.stack([tf.reduce_sum(flat, axis=1), tf.reduce_max(h, axis=1)], axis=1)
    z = tf.concat([tf.nn.relu6(h * 3.0), tf.sigmoid(h), tf.math.squared_difference(h, 1.0)], 1)
    g = tf.cast(tf.greater(z, 0.5), tf.float32) + tf.math.rsqrt(tf.abs(z) + 1.0)
    e = tf.squeeze(tf.expand_dims(tf.nn.log_softmax(g), 0), [0])
    return s, tf.transpose(e), tf.where(g > 1.0, g, -g)
  got = _run(tf.onnx.export(f, opset=13), x)
  for a, b in zip(got, f(x)):
    np.testing.assert_allclose(a, b.numpy(), rtol=1e-5, atol=1e-5)


def test_unsupported_ops_are_listed_with_their_lines():
  @tf.function(input_signature=[tf.TensorSpec([3, 3], tf.float32)])
  def f(x):
    return tf.linalg.det(x) + tf.reduce_sum(tf.math.cumprod(x))  # not exportable
  line = [i for i, s in enumerate(open(__file__), 1) if "# not exportable" in s][0]
  kinds = [t for t, _ in tf.onnx.unsupported_ops(f)]
  assert kinds == ["MatrixDeterminant", "Cumprod"]
  with pytest.raises(ValueError, match="(?s)2 op.*MatrixDeterminant") as e:
    tf.onnx.export(f)
  assert f"test_export.py:{line}" in str(e.value)
  assert "Conv2D" in tf.onnx.supported_ops() and "While" in tf.onnx.supported_ops()


def test_bad_arguments():
  f = tf.function(lambda x: x + 1.0)
  with pytest.raises(ValueError, match="no input_signature"):
    tf.onnx.export(f)
  proto = tf.onnx.export(f, input_signature=[tf.TensorSpec([2], tf.float32)])
  assert _run(proto, np.array([1.0, 2.0], np.float32))[0].tolist() == [2.0, 3.0]
  with pytest.raises(ValueError, match="opset"):
    tf.onnx.export(f.get_concrete_function(tf.TensorSpec([2], tf.float32)), opset=7)
  with pytest.raises(TypeError, match="takes a ConcreteFunction"):
    tf.onnx.export(lambda x: x)


def test_strided_slices_export_except_newaxis():
  @tf.function(input_signature=[tf.TensorSpec([4, 5], tf.float32)])
  def f(x):
    return x[1:, ::-2], x[..., 2], x[-1]
  x = np.arange(20, dtype=np.float32).reshape(4, 5)
  for a, b in zip(_run(tf.onnx.export(f), x), f(x)):
    np.testing.assert_array_equal(a, b.numpy())
  g = tf.function(lambda x: x[tf.newaxis, 0], input_signature=[tf.TensorSpec([4], tf.float32)])
  assert [t for t, _ in tf.onnx.unsupported_ops(g)] == ["StridedSlice with tf.newaxis"]


def test_a_called_function_is_inlined():
  v = tf.Variable([[1.0, -2.0], [0.5, 3.0]])

  @tf.function
  def layer(x):
    return tf.nn.relu(tf.matmul(x, v))

  @tf.function(input_signature=[tf.TensorSpec([3, 2], tf.float32)])
  def f(x):
    return layer(layer(x) + 1.0)
  types = [op.type for op in f.get_concrete_function().graph.get_operations()]
  assert types.count("PartitionedCall") == 2
  proto = tf.onnx.export(f)
  assert "MatMul" in {n.op_type for n in proto.graph.node}
  x = np.arange(6, dtype=np.float32).reshape(3, 2) - 2.0
  np.testing.assert_allclose(_run(proto, x)[0], f(x).numpy(), rtol=1e-6)
