"""The cheaper graph loop machinery (issue 18): a While whose gradient was asked for
runs one compiled loop keeping each iteration's state and the intermediates its
gradient needs (the reverse loop recomputes nothing, so side effects of the body run
once per iteration, as in TF); small called graphs are inlined into their caller's
generated code; comparisons and float sums are inline expressions."""
import numpy as np
import pytest

import tensorlet as tf
from tensorlet.graph import executor, passes
from tensorlet.ops import control_flow_ops as cf


def _compiled(f, *args):
  cf_ = f.get_concrete_function(*args)
  return executor.compile_graph(passes.lower(cf_.graph, cf_._arg_leaves), fn_name="g")


def _loop_grad(x0, w, n, side=None, limit=None):
  with tf.GradientTape() as t:
    t.watch(x0)

    def body(i, y):
      if side is not None:
        side.assign_add(1.0)
      return i + 1, tf.sin(y * w)
    _, y = tf.while_loop(lambda i, y: i < n, body, (0, x0), maximum_iterations=limit)
  return [y] + t.gradient(y, [x0, w])


def _numpy_loop_grad(x0, w, n):
  ys = [x0]
  for _ in range(n):
    ys.append(np.sin(ys[-1] * w))
  dy, dw = np.ones_like(x0), 0.0
  for y in reversed(ys[:-1]):
    dz = dy * np.cos(y * w)
    dw += float((dz * y).sum())
    dy = dz * w
  return ys[-1], dy, dw


def test_body_side_effects_run_once_per_iteration_under_a_tape():
  # Real TF 2.21 counts 5 here: the gradient reads the forward's values, it does not
  # run the body again (the old recomputing gradient counted 10).
  count = tf.Variable(0.0)
  w = tf.Variable(0.5)
  f = tf.function(lambda x: _loop_grad(x, w, 5, side=count))
  y, dx, dw = f(tf.constant(0.3))
  assert count.numpy() == 5.0
  ey, edx, edw = _numpy_loop_grad(np.float64(0.3), 0.5, 5)
  np.testing.assert_allclose([y.numpy(), dx.numpy(), dw.numpy()], [ey, edx, edw], rtol=1e-5)
  f(tf.constant(0.3))
  assert count.numpy() == 10.0


@pytest.mark.parametrize("n", [0, 1, 7])
def test_history_loop_gradients_match_numpy(n):
  w = tf.Variable(0.8)
  x0 = np.linspace(-1, 1, 4).astype(np.float32)
  y, dx, dw = tf.function(lambda x: _loop_grad(x, w, n))(tf.constant(x0))
  ey, edx, edw = _numpy_loop_grad(x0.astype(np.float64), 0.8, n)
  np.testing.assert_allclose(y.numpy(), ey, rtol=1e-5)
  np.testing.assert_allclose(dx.numpy(), edx, rtol=1e-5, atol=1e-7)
  np.testing.assert_allclose(dw.numpy(), edw, rtol=1e-5, atol=1e-7)


def test_history_loop_with_maximum_iterations():
  w = tf.Variable(0.8)
  y, dx, dw = tf.function(lambda x: _loop_grad(x, w, 100, limit=3))(tf.constant(0.4))
  ey, edx, edw = _numpy_loop_grad(np.float64(0.4), 0.8, 3)
  np.testing.assert_allclose([y.numpy(), dx.numpy(), dw.numpy()], [ey, edx, edw], rtol=1e-5)


def test_history_keeps_the_intermediates_and_the_forward_is_one_compiled_loop():
  w = tf.Variable(0.8)
  f = tf.function(lambda x: _loop_grad(x, w, 3))
  f(tf.constant(0.4))
  whiles = [op for op in f.get_concrete_function(tf.constant(0.4)).graph.get_operations()
            if op.opdef is cf.While]
  fwd = [op for op in whiles if op.attrs["keep_history"]]
  assert len(fwd) == 1
  body = fwd[0].attrs["body_graph"]
  hb = fwd[0].attrs["history_body"]
  assert hb is not None and len(hb.outputs) > len(body.outputs)
  loops = executor._LOOPS[fwd[0].attrs["cond_graph"]]
  assert (True, False) in loops  # the history loop, compiled (no per-iteration calls)
  assert "H_(" in loops[(True, False)][1].source


def test_history_is_not_used_by_a_recorded_second_order_gradient():
  w = tf.Variable(0.7)

  @tf.function
  def f(x):
    with tf.GradientTape() as outer:
      outer.watch(x)
      with tf.GradientTape() as inner:
        inner.watch(x)
        _, y = tf.while_loop(lambda i, y: i < 3, lambda i, y: (i + 1, tf.sin(y * w)), (0, x))
      g = inner.gradient(y, x)
    return g, outer.gradient(g, x)
  g, h = f(tf.constant(0.5))
  eps = 1e-3

  def first(x):
    return _numpy_loop_grad(np.float64(x), 0.7, 3)[1]
  np.testing.assert_allclose(g.numpy(), first(0.5), rtol=1e-5)
  np.testing.assert_allclose(h.numpy(), (first(0.5 + eps) - first(0.5 - eps)) / (2 * eps),
                             rtol=1e-3)


def test_history_get_without_intermediates_raises():
  hist = cf.Variant([(np.float32(1.0),)])
  with pytest.raises(tf.errors.InvalidArgumentError, match="lacks the intermediates"):
    cf.WhileHistoryGet.kernel(hist, np.int32(0), var_specs=((None, None), (None, None)))


# ------------------------------------------------------------ inlined calls

def test_small_called_functions_are_inlined():
  @tf.function
  def inner(x):
    return tf.tanh(x) * 2.0, x + 1.0

  @tf.function
  def outer(x):
    a, b = inner(x)
    c, d = inner(b)
    return a + c + d
  x = np.array([0.1, -0.4], np.float32)
  run = _compiled(outer, tf.constant(x))
  kernels = set(map(id, run.raw.__globals__.values()))
  assert id(cf.PartitionedCall.kernel) not in kernels
  assert id(cf.StatefulPartitionedCall.kernel) not in kernels
  t = np.tanh(x) * 2
  want = t + np.tanh(x + 1) * 2 + (x + 2)
  np.testing.assert_allclose(run(x)[0], want, rtol=1e-6)
  np.testing.assert_allclose(outer(tf.constant(x)).numpy(), want, rtol=1e-6)


def test_inlined_call_reads_its_argument_before_the_callee_assigns():
  # TF: the read is an input of the call, made before the call runs: 1 + 2.
  v = tf.Variable(1.0)

  @tf.function
  def inner(x):
    v.assign_add(1.0)
    return x + v.read_value()

  @tf.function
  def outer():
    return inner(v.read_value())
  assert outer().numpy() == 3.0
  assert v.numpy() == 2.0


def test_inlined_call_returning_its_input_and_a_constant_twice():
  big = np.full([300, 300], 3.0, np.float32)  # large values: freed with `del` at last use

  @tf.function
  def inner(x):
    return x, tf.constant(big), x

  @tf.function
  def outer(x):
    a, b, c = inner(x)
    d = b + c
    return a * 2.0, d, a, inner(x)[1] * 1.0
  x = np.full([300, 300], 0.5, np.float32)
  for _ in range(2):
    out = [o.numpy() for o in outer(tf.constant(x))]
    np.testing.assert_allclose(out[0], 1.0)
    np.testing.assert_allclose(out[1], 3.5)
    np.testing.assert_allclose(out[2], 0.5)
    np.testing.assert_allclose(out[3], 3.0)


def test_error_in_an_inlined_callee_names_its_node():
  @tf.function
  def inner(a, b):
    return tf.matmul(a, b)

  @tf.function(input_signature=[tf.TensorSpec([None, None], tf.float32)] * 2)
  def outer(a, b):
    return inner(a + 1.0, b)
  with pytest.raises(tf.errors.InvalidArgumentError, match="op MatMul"):
    outer(tf.ones([2, 3]), tf.ones([2, 3]))


def test_large_called_graphs_stay_calls():
  @tf.function
  def inner(x):
    for _ in range(executor._INLINE_MAX_OPS + 5):
      x = tf.sin(x)
    return x

  @tf.function
  def outer(x):
    return inner(x) + 1.0
  x = np.array([0.3], np.float32)
  run = _compiled(outer, tf.constant(x))
  kernels = set(map(id, run.raw.__globals__.values()))
  assert kernels & {id(cf.PartitionedCall.kernel), id(cf.StatefulPartitionedCall.kernel)}
  want = x
  for _ in range(executor._INLINE_MAX_OPS + 5):
    want = np.sin(want)
  np.testing.assert_allclose(run(x)[0], want + 1, rtol=1e-5)


def test_conds_are_inlined_as_python_ifs():
  v = tf.Variable(0.0)

  @tf.function
  def f(x, p):
    def yes():
      v.assign_add(1.0)
      return x * 2.0
    y = tf.cond(p, yes, lambda: x - 1.0)
    def side():
      v.assign_add(10.0)
    tf.cond(p, side, lambda: None)  # branches without outputs
    return y
  x = np.array([1.0, 3.0], np.float32)
  run = _compiled(f, tf.constant(x), tf.constant(True))
  kernels = set(map(id, run.raw.__globals__.values()))
  assert not kernels & {id(cf.If.kernel), id(cf.StatelessIf.kernel)}
  np.testing.assert_allclose(f(tf.constant(x), tf.constant(True)).numpy(), [2.0, 6.0])
  np.testing.assert_allclose(f(tf.constant(x), tf.constant(False)).numpy(), [0.0, 2.0])
  assert v.numpy() == 11.0


def test_inlined_cond_rejects_a_predicate_of_several_elements():
  @tf.function(input_signature=[tf.TensorSpec(None, tf.bool)])
  def f(p):
    return tf.cond(p, lambda: tf.constant(1.0), lambda: tf.constant(2.0))
  assert f(tf.constant(False)).numpy() == 2.0
  with pytest.raises(tf.errors.InvalidArgumentError, match="must be a scalar"):
    f(tf.constant([True, False]))


def test_loop_with_a_cond_and_its_gradient():
  w = tf.Variable(0.9)

  @tf.function
  def f(x0):
    with tf.GradientTape() as t:
      t.watch(x0)
      x = x0
      for i in tf.range(6):
        if i % 2 == 0:
          x = tf.tanh(x * w)
        else:
          x = x * 0.5 + 0.1
      s = tf.reduce_sum(x)
    return s, t.gradient(s, [x0, w])
  x0 = np.array([0.3, -0.2], np.float64)

  def ref(x, w):
    for i in range(6):
      x = np.tanh(x * w) if i % 2 == 0 else x * 0.5 + 0.1
    return x.sum()
  s, (dx, dw) = f(tf.constant(x0.astype(np.float32)))
  eps = 1e-6
  np.testing.assert_allclose(s.numpy(), ref(x0, 0.9), rtol=1e-5)
  np.testing.assert_allclose(dw.numpy(), (ref(x0, 0.9 + eps) - ref(x0, 0.9 - eps)) / (2 * eps),
                             rtol=1e-4)
  num = [(ref(x0 + eps * e, 0.9) - ref(x0 - eps * e, 0.9)) / (2 * eps) for e in np.eye(2)]
  np.testing.assert_allclose(dx.numpy(), num, rtol=1e-4)


# ------------------------------------------------------------ inline expressions

def test_comparisons_and_float_sums_are_inline_expressions():
  @tf.function
  def f(x, y, k):
    return (x < y, x <= y, x > y, x >= y, tf.reduce_sum(x), tf.reduce_sum(x, axis=1),
            tf.reduce_sum(x, axis=[0], keepdims=True), tf.reduce_sum(k))
  x = np.array([[1.0, 2.0, np.nan], [4.0, 5.0, 6.0]], np.float32)
  y = np.array([[2.0, 2.0, 1.0], [3.0, 7.0, 6.0]], np.float32)
  k = np.array([2 ** 30, 2 ** 30, 2 ** 30], np.int32)
  args = [tf.constant(a) for a in (x, y, k)]
  run = _compiled(f, *args)
  for s in (" < ", " <= ", " > ", " >= ", "np.add.reduce("):
    assert s in run.source
  got = f(*args)
  for g, w in zip(got[:4], (x < y, x <= y, x > y, x >= y)):
    assert g.dtype == tf.bool and g.numpy().tolist() == w.tolist()
  assert np.isnan(got[4].numpy()) and got[4].dtype == tf.float32 and got[4].shape == ()
  np.testing.assert_allclose(got[5].numpy(), [np.nan, 15.0])
  assert got[6].shape == (1, 3) and got[6].dtype == tf.float32
  np.testing.assert_allclose(got[6].numpy(), [[5.0, 7.0, np.nan]])
  # integer sums keep the kernel: int32 wraps around as in TF
  assert got[7].dtype == tf.int32 and got[7].numpy() == np.int32(-(2 ** 30))


def test_constants_of_scalar_arithmetic_are_numpy_scalars():
  @tf.function
  def f(i, x):
    return i + 7, x * 2.5, i * 7, x + 3.5, tf.cast(i, tf.float32) + 3.5
  args = (tf.constant(3), tf.constant([1.0, 2.0]))
  run = _compiled(f, *args)
  consts = {k: v for k, v in run.raw.__globals__.items() if k.startswith("c")}
  kinds = {(v.item(), isinstance(v, np.ndarray)) for v in consts.values()}
  assert (7, False) in kinds       # only 0-d consumers: a NumPy scalar
  assert (2.5, True) in kinds      # an array operand: a 0-d array
  assert (3.5, True) in kinds      # shared by an array and a scalar consumer
  out = f(*args)
  assert [o.dtype for o in out] == [tf.int32, tf.float32, tf.int32, tf.float32, tf.float32]
  assert out[0].numpy() == 10 and out[2].numpy() == 21 and out[4].numpy() == 6.5
  np.testing.assert_allclose(out[1].numpy(), [2.5, 5.0])
  big = tf.constant(2 ** 31 - 1)
  assert f(big, args[1])[0].numpy() == -(2 ** 31) + 6  # int32 wraps around, as in TF


# ------------------------------------------------------------ loop-invariant code motion

def _loop_source(f, *args):
  f(*args)
  g = f.get_concrete_function(*args).graph
  op = next(op for op in g.get_operations() if op.opdef is cf.While)
  return executor.loop_for(op.attrs["cond_graph"], op.attrs["body_graph"],
                           op.attrs["n_vars"]).source


def test_loop_invariant_values_are_computed_once():
  w = tf.Variable(np.arange(12, dtype=np.float32).reshape(3, 4))

  @tf.function
  def f(x, n):
    return tf.while_loop(lambda i, x: i < n,
                         lambda i, x: (i + 1, x @ tf.transpose(w[:, :3]) * 0.1 + 1.0),
                         (0, x))[1]
  x = np.ones((2, 3), np.float32)
  src = _loop_source(f, tf.constant(x), tf.constant(4))
  first = src.index("if first_:")
  assert src.index("._value", first) < src.index("first_ = False")  # the read moved too
  want = x
  wn = np.arange(12, dtype=np.float32).reshape(3, 4)
  for _ in range(4):
    want = want @ wn[:, :3].T * np.float32(0.1) + 1
  np.testing.assert_allclose(f(tf.constant(x), tf.constant(4)).numpy(), want, rtol=1e-6)
  w.assign(w * 2.0)  # a later call reads the new value
  want = x
  for _ in range(4):
    want = want @ (2 * wn[:, :3]).T * np.float32(0.1) + 1
  np.testing.assert_allclose(f(tf.constant(x), tf.constant(4)).numpy(), want, rtol=1e-6)


def test_reads_stay_in_a_loop_that_writes():
  v = tf.Variable(1.0)

  @tf.function
  def f():
    def body(i, s):
      v.assign_add(1.0)
      return i + 1, s + v.read_value() * 2.0
    return tf.while_loop(lambda i, s: i < 3, body, (0, 0.0))[1]
  assert f().numpy() == (2.0 + 3.0 + 4.0) * 2.0


def test_invariant_values_of_a_loop_that_never_runs_are_not_computed():
  params = tf.constant([1.0, 2.0])

  @tf.function
  def f(n, k):
    return tf.while_loop(lambda i, s: i < n,
                         lambda i, s: (i + 1, s + tf.gather(params, k)), (0, 0.0))[1]
  assert f(tf.constant(0), tf.constant(7)).numpy() == 0.0  # index 7 is never looked up
  assert f(tf.constant(2), tf.constant(1)).numpy() == 4.0
  with pytest.raises(tf.errors.InvalidArgumentError):
    f(tf.constant(2), tf.constant(7))


def test_add_n_of_static_shapes_is_an_inline_sum():
  @tf.function
  def f(a, b, c):
    return tf.add_n([a, b, c]), tf.add_n([a])
  args = [tf.constant(np.full([2, 2], k, np.float32)) for k in (1.0, 2.0, 4.0)]
  run = _compiled(f, *args)
  assert " + " in run.source
  s, one = f(*args)
  np.testing.assert_array_equal(s.numpy(), np.full([2, 2], 7.0))
  np.testing.assert_array_equal(one.numpy(), np.ones([2, 2]))


def test_scalar_captures_of_a_range_loop_become_numpy_scalars():
  @tf.function
  def f(x, n):
    for i in tf.range(2, n, 3):
      x = x * 1.5 + tf.cast(i, tf.float32)
    return x
  x = np.array([1.0, 2.0], np.float32)
  src = _loop_source(f, tf.constant(x), tf.constant(12))
  assert "_as_scalar(" in src
  want = x
  for i in range(2, 12, 3):
    want = want * np.float32(1.5) + np.float32(i)
  out = f(tf.constant(x), tf.constant(12))
  assert out.dtype == tf.float32
  np.testing.assert_allclose(out.numpy(), want, rtol=1e-6)


def test_saved_train_step_with_a_loop_gradient_loads_and_runs(tmp_path):
  # The history graph is an attribute of the While node: it is saved with the gradient.
  class M(tf.Module):
    def __init__(self):
      self.w = tf.Variable(0.8)

    @tf.function(input_signature=[tf.TensorSpec([], tf.float32)])
    def grad(self, x):
      return _loop_grad(x, self.w, 3)
  m = M()
  want = [t.numpy() for t in m.grad(tf.constant(0.4))]
  tf.saved_model.save(m, str(tmp_path))
  got = [t.numpy() for t in tf.saved_model.load(str(tmp_path)).grad(tf.constant(0.4))]
  np.testing.assert_allclose(got, want, rtol=1e-6)
  np.testing.assert_allclose(want, _numpy_loop_grad(np.float64(0.4), 0.8, 3), rtol=1e-5)
