"""The call op (TF's PartitionedCall): a tf.function called in another
function or under a tape is one call node, differentiated by the shared
reverse pass over its graph (autodiff/function_grad.py), never replayed op by
op under a tape."""
import numpy as np
import pytest

import tensorlet as tf
from tensorlet.graph.graph import FuncGraph


def _mlp():
  rng = np.random.RandomState(0)
  w1 = tf.Variable(rng.randn(4, 5).astype(np.float32) * 0.5)
  b1 = tf.Variable(np.zeros(5, np.float32))
  w2 = tf.Variable(rng.randn(5, 2).astype(np.float32) * 0.5)

  def model(x):
    return tf.reduce_sum(tf.tanh(tf.matmul(tf.nn.relu(tf.matmul(x, w1) + b1), w2)) * x[:, :2])
  return model, [w1, b1, w2]


def _grads(fn, x, ws):
  with tf.GradientTape() as tape:
    tape.watch(x)
    y = fn(x)
  return [y] + tape.gradient(y, [x] + ws)


def test_function_under_eager_tape_is_one_recorded_call_with_reverse_pass_gradient():
  model, ws = _mlp()
  f = tf.function(model)
  x = tf.constant(np.random.RandomState(1).randn(3, 4).astype(np.float32))
  with tf.GradientTape(persistent=True) as tape:
    tape.watch(x)
    y = f(x)
  recs = tape._records
  assert [r.opdef.name for r in recs] == ["PartitionedCall"]
  fwd = recs[0].attrs["f"]
  assert isinstance(fwd, FuncGraph)
  # The forward call returned the intermediates the gradient graph needs.
  assert len(recs[0].outputs) > 1 and len(fwd.outputs) == len(recs[0].outputs)
  got = [y] + tape.gradient(y, [x] + ws)
  want = _grads(model, x, ws)
  for a, b in zip(got, want):
    np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-5, atol=1e-6)
  # Calling again reuses the compiled forward and gradient graphs (cached by graph).
  again = _grads(f, x, ws)
  for a, b in zip(again, want):
    np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-5, atol=1e-6)


def _derivatives(f, x, n):
  """[f(x), f'(x), ..., f^(n)(x)] by n nested tapes."""
  if n == 0:
    return [f(x)]
  with tf.GradientTape() as tape:
    tape.watch(x)
    lower = _derivatives(f, x, n - 1)
  return lower + [tape.gradient(lower[-1], x)]


def test_second_and_third_order_through_a_function():
  f = tf.function(lambda x: tf.reduce_sum(tf.sin(x) * x * x))
  x = tf.constant([0.3, -1.2, 2.0])
  _, g1, g2, g3 = _derivatives(f, x, 3)
  xn = x.numpy()
  s, c = np.sin(xn), np.cos(xn)
  np.testing.assert_allclose(g1.numpy(), 2 * xn * s + xn * xn * c, rtol=1e-5)
  np.testing.assert_allclose(g2.numpy(), 2 * s + 4 * xn * c - xn * xn * s, rtol=1e-5)
  np.testing.assert_allclose(g3.numpy(), 6 * c - 6 * xn * s - xn * xn * c, rtol=1e-4,
                             atol=1e-5)


def test_nested_function_is_one_call_node_and_differentiates_in_the_outer_graph():
  model, ws = _mlp()
  inner = tf.function(model)

  @tf.function
  def outer(x):
    with tf.GradientTape() as tape:
      tape.watch(x)
      y = inner(x) * 2.0
    return tape.gradient(y, [x] + ws)
  x = tf.constant(np.random.RandomState(2).randn(3, 4).astype(np.float32))
  got = outer(x)
  want = _grads(lambda v: model(v) * 2.0, x, ws)[1:]
  for a, b in zip(got, want):
    np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-5, atol=1e-6)
  g = outer.get_concrete_function(x).graph
  calls = [op for op in g.get_operations() if op.type == "PartitionedCall"]
  assert len(calls) == 2          # the forward call and its gradient's call
  assert "MatMul" not in [op.type for op in g.get_operations()]
  g.lint()
  text = str(g)
  assert "PartitionedCall(" in text and "MatMul(" in text   # nested graphs print too


def test_stateful_callee_is_a_stateful_call_and_runs_once():
  v = tf.Variable(0.0)

  @tf.function
  def bump(x):
    v.assign_add(x)
    return x * 2.0

  @tf.function
  def outer(x):
    return bump(x) + 1.0
  assert outer(tf.constant(3.0)).numpy() == 7.0
  assert v.numpy() == 3.0
  types = [op.type for op in outer.get_concrete_function(tf.constant(3.0)).graph.get_operations()]
  assert "StatefulPartitionedCall" in types and "AssignAddVariableOp" not in types


def test_custom_gradient_inside_a_function_called_under_a_tape():
  @tf.custom_gradient
  def clip_grad(x):
    def grad(dy):
      return tf.clip_by_value(dy, -0.5, 0.5)
    return tf.identity(x), grad

  f = tf.function(lambda x: tf.reduce_sum(clip_grad(x) * 3.0))
  x = tf.constant([1.0, 2.0])
  with tf.GradientTape() as tape:
    tape.watch(x)
    y = f(x)
  np.testing.assert_allclose(tape.gradient(y, x).numpy(), [0.5, 0.5])


def test_control_flow_inside_a_function_under_a_tape():
  @tf.function
  def f(x):
    y = tf.cond(tf.reduce_sum(x) > 0, lambda: x * x, lambda: -x)
    i = tf.constant(0)
    while i < 3:
      y = tf.sin(y)
      i += 1
    return tf.reduce_sum(y)
  x = tf.constant([0.5, 1.5])
  with tf.GradientTape() as tape:
    tape.watch(x)
    y = f(x)
  g = tape.gradient(y, x).numpy()
  xn = x.numpy().astype(np.float64)
  y0 = xn * xn
  d = 2 * xn
  for _ in range(3):
    d = d * np.cos(y0)
    y0 = np.sin(y0)
  np.testing.assert_allclose(g, d, rtol=1e-5)


def test_control_flow_attrs_hold_graphs_and_plain_data_only():
  @tf.function
  def f(x):
    y = tf.cond(x > 0, lambda: x, lambda: -x)
    return tf.while_loop(lambda i, s: i < 3, lambda i, s: (i + 1, s * 2.0), [0, y])[1]
  assert f(tf.constant(-2.0)).numpy() == 16.0
  g = f.get_concrete_function(tf.constant(1.0)).graph
  seen = set()
  for op in g.get_operations():
    for v in op.attrs.values():
      assert not callable(v) or isinstance(v, FuncGraph), (op.type, v)
    seen.add(op.type)
  assert {"StatelessIf", "While"} <= seen


def test_unconnected_and_integer_outputs_of_a_called_function():
  @tf.function
  def f(x):
    return x * 2.0, tf.shape(x), tf.constant(5.0)
  x = tf.constant([1.0, 2.0])
  with tf.GradientTape() as tape:
    tape.watch(x)
    a, n, c = f(x)
    y = tf.reduce_sum(a) + c
  assert n.numpy().tolist() == [2]
  np.testing.assert_allclose(tape.gradient(y, x).numpy(), [2.0, 2.0])


def test_no_op_module_imports_gradient_tape():
  import ast
  import pathlib
  ops_dir = pathlib.Path(tf.__file__).parent / "ops"
  for path in ops_dir.glob("*.py"):
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
      if isinstance(node, (ast.Import, ast.ImportFrom)):
        names = [a.name for a in node.names] + [getattr(node, "module", None) or ""]
        assert not any("tape" in n or n == "GradientTape" for n in names), path.name


@pytest.mark.parametrize("persistent", [False, True])
def test_tape_not_watching_the_call_records_nothing(persistent):
  f = tf.function(lambda x: x * 3.0)
  x = tf.constant(1.0)
  with tf.GradientTape(persistent=persistent) as tape:
    y = f(x)
  assert tape._records == []
  assert tape.gradient(y, x) is None


def test_saved_model_holds_call_ops_and_their_gradient_graphs(tmp_path):
  class M(tf.Module):
    def __init__(self):
      self.v = tf.Variable([1.0, 2.0])

    @tf.function
    def inner(self, x):
      return x * self.v

    @tf.function(input_signature=[tf.TensorSpec([2], tf.float32)])
    def __call__(self, x):
      with tf.GradientTape() as t:
        t.watch(x)
        y = tf.reduce_sum(self.inner(x) ** 2)
      return y, t.gradient(y, x)
  m = M()
  x = tf.constant([1.0, 3.0])
  want = [t.numpy() for t in m(x)]
  tf.saved_model.save(m, str(tmp_path))
  got = [t.numpy() for t in tf.saved_model.load(str(tmp_path))(x)]
  np.testing.assert_allclose(got[0], want[0])
  np.testing.assert_allclose(got[1], want[1])
  np.testing.assert_allclose(want[1], 2 * x.numpy() * np.array([1.0, 4.0]))
