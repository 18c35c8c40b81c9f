"""The two graph executors agree: executor.Interpreter (the reference) and
executor.compile_graph (generated Python with inline expressions, in-place
buffer reuse and `del` of large values), before and after the passes, and
against eager execution of the same Python function."""
import numpy as np
import pytest

import tensorlet as tf
from tensorlet.graph import executor, passes


class Lowered:
  """A traced function's graph lowered for the executors (passes.lower), not yet
  optimised (`raw`) and optimised."""

  def __init__(self, cf):
    self.cf = cf
    self.raw = passes.lower(cf.graph, cf._arg_leaves, optimized=False)
    self.consts = {id(op): op.attrs["value"] for op in self.raw.get_operations()
                   if op.opdef.is_const}

  def optimized(self):
    return passes.optimize(self.raw)

  def interpret(self, *arrays, optimize=False):
    return executor.Interpreter(self.optimized() if optimize else self.raw)(*arrays)

  def compile(self, optimize=True):
    return executor.compile_graph(self.optimized() if optimize else self.raw, fn_name="g")


def lower(f, *args):
  return Lowered(f.get_concrete_function(*args))


def check_all_agree(f, *args, rtol=1e-6):
  """Eager, interpreter (raw and optimised), compiled (raw and optimised) and the
  tf.function call agree; no run changes the inputs or the graph's constants."""
  arrays = [np.array(a) for a in args]
  copies = [a.copy() for a in arrays]
  eager = f.python_function(*[tf.constant(a) for a in arrays])
  eager = [t.numpy() for t in (eager if isinstance(eager, (tuple, list)) else [eager])]
  low = lower(f, *[tf.constant(a) for a in arrays])
  const_copies = {k: np.array(v, copy=True) for k, v in low.consts.items()
                  if isinstance(v, np.ndarray)}
  runs = {
      "interp": lambda *xs: low.interpret(*xs),
      "interp_opt": lambda *xs: low.interpret(*xs, optimize=True),
      "compiled_raw": low.compile(optimize=False),
      "compiled": low.compile(),
  }
  compiled = runs["compiled"]
  for _ in range(2):    # twice: a run must not corrupt what the next one reads
    for name, run in [*runs.items(), ("function", None)]:
      if run is None:
        res = f(*[tf.constant(a) for a in arrays])
        res = [t.numpy() for t in (res if isinstance(res, (tuple, list)) else [res])]
      else:
        res = [np.asarray(r) for r in run(*arrays)]
      assert len(res) == len(eager), name
      for i, (r, e) in enumerate(zip(res, eager)):
        assert r.shape == e.shape and r.dtype == e.dtype, (name, i)
        np.testing.assert_allclose(r, e, rtol=rtol, atol=1e-6, err_msg=f"{name} output {i}")
  for a, c in zip(arrays, copies):
    np.testing.assert_array_equal(a, c)
  for k, c in const_copies.items():
    np.testing.assert_array_equal(low.consts[k], c)
  return compiled


# -------------------------------------------------------- random graphs

_S = (3, 4)


def _unary_ops():
  return [
      tf.negative, tf.abs, tf.square, tf.tanh, tf.sin, tf.sigmoid,
      lambda x: tf.sqrt(tf.abs(x) + 1.0),
      lambda x: tf.exp(-tf.abs(x)),
      tf.identity, tf.stop_gradient,
      lambda x: tf.reshape(tf.reshape(x, [4, 3]), list(_S)),
      lambda x: tf.transpose(tf.transpose(x)),
      lambda x: x * 1.0,
      lambda x: x + 0.0,
      lambda x: tf.zeros_like(x) + x,
      lambda x: tf.reduce_sum(x, axis=1, keepdims=True) + x,
      lambda x: x - tf.reduce_mean(x, axis=0),
      lambda x: tf.concat([x[:, :2], x[:, 2:]], axis=1),
      lambda x: tf.maximum(x, 0.0),
      lambda x: x * tf.constant(np.linspace(-1, 1, 4, dtype=np.float32)),
      lambda x: tf.where(x > 0.0, x, x * 0.5),
      lambda x: tf.minimum(tf.maximum(x, -1.0), 1.0),
      lambda x: tf.tile(x[:1], [3, 1]),
      lambda x: tf.reverse(x, axis=[0]),
      lambda x: tf.cast(tf.cast(x * 3.0, tf.int32), tf.float32),
  ]


def _binary_ops():
  return [
      tf.add, tf.subtract, tf.multiply, tf.maximum, tf.minimum,
      lambda a, b: a / (tf.abs(b) + 1.0),
      lambda a, b: tf.matmul(tf.matmul(a, b, transpose_b=True), a) * 0.1,
      lambda a, b: tf.add_n([a, b, a]),
      lambda a, b: tf.reshape(tf.stack([a, b])[1], list(_S)),
      lambda a, b: tf.squared_difference(a, b),
      lambda a, b: a * b + a,
      lambda a, b: tf.square(a) + tf.square(a) - b,   # duplicate subexpression
  ]


def random_program(seed, n_ops=14):
  rng = np.random.RandomState(seed)
  unary, binary = _unary_ops(), _binary_ops()
  plan = []
  for k in range(n_ops):
    avail = 3 + k
    pick = lambda: int(min(avail - 1, rng.geometric(0.35) - 1)) if rng.rand() < 0.7 else \
        int(rng.randint(avail))
    if rng.rand() < 0.5:
      plan.append(("u", int(rng.randint(len(unary))), avail - 1 - pick()))
    else:
      plan.append(("b", int(rng.randint(len(binary))), avail - 1 - pick(), avail - 1 - pick()))
  n_out = int(rng.randint(1, 4))
  outs = [3 + n_ops - 1] + [int(rng.randint(3 + n_ops)) for _ in range(n_out)]

  def program(x0, x1, x2):
    vals = [x0, x1, x2]
    for step in plan:
      if step[0] == "u":
        vals.append(unary[step[1]](vals[step[2]]))
      else:
        vals.append(binary[step[1]](vals[step[2]], vals[step[3]]))
    return tuple(vals[i] for i in outs)
  return program


@pytest.mark.parametrize("seed", range(30))
def test_random_graphs_interpreter_equals_compiled(seed):
  program = random_program(seed)
  f = tf.function(program)
  rng = np.random.RandomState(100 + seed)
  args = [rng.randn(*_S).astype(np.float32) for _ in range(3)]
  check_all_agree(f, *args, rtol=1e-5)


def test_every_elementwise_inplace_op_agrees():
  ops = [tf.add, tf.subtract, tf.multiply, tf.maximum, tf.minimum, lambda a, b: a / b]
  unary = [tf.negative, tf.abs, tf.square, tf.exp, tf.tanh, tf.sin, tf.cos, tf.floor]
  for op in ops:
    f = tf.function(lambda a, b, op=op: op(op(a * 2.0, b), b + 1.0))
    check_all_agree(f, np.random.rand(2, 3).astype(np.float32) + 1,
                    np.random.rand(2, 3).astype(np.float32) + 1)
  for op in unary:
    f = tf.function(lambda a, op=op: op(op(a + 0.5) * 0.5))
    check_all_agree(f, np.random.rand(2, 3).astype(np.float32))


def test_int_and_float64_graphs():
  f = tf.function(lambda a, b: (a * b + a - b, tf.maximum(a, b) * 2))
  check_all_agree(f, np.arange(6, dtype=np.int32).reshape(2, 3),
                  np.arange(6, 12, dtype=np.int32).reshape(2, 3))
  check_all_agree(f, np.random.rand(2, 3), np.random.rand(2, 3))


# ---------------------------------------------------- buffer reuse, adversarial

def test_inplace_reuse_really_happens():
  f = tf.function(lambda a, b: ((a + b) * 2.0 - 1.0) / 3.0)
  run = check_all_agree(f, np.ones((64, 64), np.float32), np.ones((64, 64), np.float32))
  assert "out=" in run.source


def test_no_inplace_reuse_for_small_arrays():
  # NOTE: below ~1k elements `out=` costs more than a fresh array.
  f = tf.function(lambda a, b: ((a + b) * 2.0 - 1.0) / 3.0)
  run = check_all_agree(f, np.ones((4, 4), np.float32), np.ones((4, 4), np.float32))
  assert "out=" not in run.source


def test_intermediate_returned_and_consumed():
  @tf.function
  def f(a, b):
    t = a + b
    u = t * 2.0
    w = u - 1.0
    return t, w, u
  run = check_all_agree(f, np.ones((3, 3), np.float32), np.full((3, 3), 2.0, np.float32))
  t, w, u = run(np.ones((3, 3), np.float32), np.full((3, 3), 2.0, np.float32))
  assert t is not u and u is not w
  assert t[0, 0] == 3.0 and u[0, 0] == 6.0 and w[0, 0] == 5.0


def test_value_consumed_twice_in_one_op_and_by_later_ops():
  @tf.function
  def f(a):
    t = a * 3.0
    u = t * t          # both operands are t: never written in place
    v = t + u          # t's last use
    return v, tf.exp(v * 0.01)
  check_all_agree(f, np.arange(12, dtype=np.float32).reshape(3, 4))


def test_reshape_and_transpose_views_of_a_dying_value():
  @tf.function
  def f(a):
    t = a + 1.0
    r = tf.reshape(t, [12])      # a view of t
    s = tf.transpose(t)          # another view
    u = r * 2.0                  # must not write into t's memory
    w = t - 1.0                  # t's last use: may be written in place
    return u, w, s, r
  check_all_agree(f, np.arange(12, dtype=np.float32).reshape(3, 4))


def test_views_returned_while_the_base_is_reused():
  @tf.function
  def f(a):
    t = a * 2.0
    head = t[0]                  # strided slice: a view of t
    flat = tf.reshape(t, [-1])
    return head, flat, flat + 1.0, t + 5.0
  check_all_agree(f, np.arange(12, dtype=np.float32).reshape(3, 4))


def test_inputs_are_never_written():
  @tf.function
  def f(a, b):
    x = tf.identity(a)
    y = x + b            # x aliases the caller's array
    z = y * b
    return z, x, a * 1.0
  a = np.arange(6, dtype=np.float32).reshape(2, 3)
  b = np.ones((2, 3), np.float32)
  check_all_agree(f, a, b)
  low = lower(f, tf.constant(a), tf.constant(b))
  a2, b2 = a.copy(), b.copy()
  low.compile()(a2, b2)
  np.testing.assert_array_equal(a2, a)
  np.testing.assert_array_equal(b2, b)


def test_variables_are_never_written_in_place():
  v = tf.Variable(np.arange(6, dtype=np.float32).reshape(2, 3))

  @tf.function
  def f(a):
    r = v.read_value()
    s = r * 1.0          # simplified to the read itself
    t = s + a            # must not reuse the variable's buffer
    u = tf.identity(v) - 1.0
    return t * 2.0, u, r
  before = v.numpy().copy()
  check_all_agree(f, np.ones((2, 3), np.float32))
  np.testing.assert_array_equal(v.numpy(), before)


def test_assigned_values_are_not_corrupted_later():
  v = tf.Variable(np.zeros((3, 3), np.float32))

  @tf.function
  def f(a):
    t = a * 2.0
    v.assign(t)          # v now holds t's array
    u = v.read_value()
    w = u + 1.0          # must not write into v
    return w
  out = f(tf.ones([3, 3]))
  np.testing.assert_array_equal(v.numpy(), np.full((3, 3), 2.0))
  np.testing.assert_array_equal(out.numpy(), np.full((3, 3), 3.0))
  out2 = f(tf.ones([3, 3]) * 5.0)
  np.testing.assert_array_equal(out.numpy(), np.full((3, 3), 3.0))   # first result kept
  np.testing.assert_array_equal(out2.numpy(), np.full((3, 3), 11.0))


def test_constants_and_captures_are_never_written():
  c = tf.constant(np.full((3, 3), 2.0, np.float32))

  @tf.function
  def f(a):
    k = tf.constant(np.ones((3, 3), np.float32)) * 3.0    # folded to a constant
    t = k + a
    u = t + c
    return u * 2.0
  check_all_agree(f, np.ones((3, 3), np.float32))
  np.testing.assert_array_equal(c.numpy(), np.full((3, 3), 2.0))


def test_broadcast_operands_are_not_written():
  @tf.function
  def f(a, row):
    r = row * 2.0        # shape [4]: smaller than the output, never a target
    t = a + r
    u = r + t            # t may be reused, r may not
    return u, r
  check_all_agree(f, np.ones((3, 4), np.float32), np.arange(4, dtype=np.float32))


def test_returned_results_do_not_share_memory_between_calls():
  f = tf.function(lambda a: (a + 1.0) * 2.0)
  x = tf.ones([5, 5])
  r1 = f(x)
  r2 = f(x * 3.0)
  assert r1.numpy()[0, 0] == 4.0 and r2.numpy()[0, 0] == 8.0
  assert not np.shares_memory(r1.numpy(), r2.numpy())


# --------------------------------------------------------- del of large values

def test_large_values_deleted_after_last_use_only():
  n = 300  # 90000 elements, above the executor's del threshold

  @tf.function
  def f(a, b):
    t = tf.matmul(a, b)          # large, used three times
    u = t * 0.5
    w = tf.tanh(t)
    x = tf.reduce_sum(t, axis=0)
    big = u + w                  # large
    return big[0], x, tf.reduce_mean(big), big
  rng = np.random.RandomState(0)
  a = rng.randn(n, n).astype(np.float32) * 0.01
  b = rng.randn(n, n).astype(np.float32) * 0.01
  run = check_all_agree(f, a, b, rtol=1e-4)
  assert "del " in run.source


def test_large_values_feeding_multi_output_ops():
  @tf.function
  def f(a):
    t = a * 2.0
    p, q = tf.split(t, 2, axis=0)
    return p + 1.0, q * 3.0, tf.unstack(t[:2], axis=0)[1]
  check_all_agree(f, np.random.rand(400, 200).astype(np.float32))


# ------------------------------------------------------------ error mapping

def test_errors_map_to_the_node_in_both_executors():
  @tf.function(input_signature=[tf.TensorSpec([None, None], tf.float32)] * 2)
  def f(a, b):
    c = a + 1.0
    return tf.matmul(c, b)
  low = lower(f, tf.TensorSpec([None, None], tf.float32), tf.TensorSpec([None, None], tf.float32))
  a, b = np.ones((2, 3), np.float32), np.ones((2, 3), np.float32)
  for run in [lambda: low.interpret(a, b), lambda: low.compile()(a, b)]:
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"graph node 'MatMul', op MatMul"):
      run()


def test_generated_source_is_registered_with_linecache():
  import linecache
  f = tf.function(lambda a: tf.exp(a) + a)
  run = lower(f, tf.ones([2])).compile()
  assert run.source.startswith("def g(")
  filename = run.raw.__code__.co_filename
  assert linecache.getlines(filename)[0].startswith("def g(")


def test_no_inputs_no_outputs_and_constant_only_graphs():
  v = tf.Variable(1.0)

  @tf.function
  def side():
    v.assign_add(1.0)
  side()
  side()
  assert v.numpy() == 3.0

  @tf.function
  def const():
    return tf.constant(2.0) * 3.0, tf.ones([2]) + 1.0
  a, b = const()
  assert a.numpy() == 6.0 and b.numpy().tolist() == [2.0, 2.0]
