"""Graph passes: each pass's structural effect, and the same outputs before
and after it (the unoptimised lowered graph run by executor.Interpreter against
the pass's result, interpreted and compiled). Passes map graphs to graphs; the
suite lints every pass's result (tests/conftest.py sets passes.LINT)."""
import sys

import numpy as np
import pytest

import tensorlet as tf
from tensorlet.graph import executor, passes
from test_executor import lower


def run_pass(p, low, g=None):
  """Runs one pass on the unoptimised lowered graph (or `g`): (graph, changed)."""
  src = low.raw if g is None else g
  out, changed = p(src)
  assert (out is not src) == changed
  out.lint()
  return out, changed


def op_types(g):
  """The computing ops of a graph (no placeholders or constants), in order."""
  return [op.type for op in g.get_operations() if op.opdef.role not in ("const", "placeholder")]


def consts_of(g):
  return [op.attrs["value"] for op in g.get_operations() if op.opdef.is_const]


def same_outputs(low, g, *arrays, reset=None):
  """The unoptimised graph and `g` agree, interpreted and compiled. `reset()`
  restores state (variables) before each run."""
  results = []
  for make in [lambda: low.interpret(*arrays),
               lambda: executor.Interpreter(g)(*arrays),
               lambda: executor.compile_graph(g)(*arrays)]:
    if reset is not None:
      reset()
    results.append([np.asarray(r) for r in make()])
  for other in results[1:]:
    for a, b in zip(results[0], other):
      np.testing.assert_allclose(b, a, rtol=1e-6)
  return results[0]


# ------------------------------------------------------------------- prune

def test_prune_drops_unused_ops_but_keeps_stateful_ones(capsys):
  v = tf.Variable(1.0)

  @tf.function
  def f(x):
    unused = tf.exp(x) * 2.0          # noqa: F841 - dead code for prune
    v.assign_add(1.0)                 # unused result, but stateful
    tf.print("side effect", output_stream=sys.stdout)
    return x + 1.0
  low = lower(f, tf.constant(1.0))
  g, changed = run_pass(passes.prune, low)
  assert changed
  before, after = op_types(low.raw), op_types(g)
  assert "Exp" in before and "Exp" not in after
  assert before.count("Mul") == 1 and "Mul" not in after
  assert "AssignAddVariableOp" in after and "PrintV2" in after
  assert "AddV2" in after and "Identity" in after
  out = same_outputs(low, g, np.float32(2.0),
                     reset=lambda: v.assign(1.0))
  assert out[0] == 3.0 and v.numpy() == 2.0
  assert capsys.readouterr().out == "side effect\n" * 3


def test_prune_keeps_what_stateful_ops_need():
  v = tf.Variable(0.0)

  @tf.function
  def f(x):
    delta = tf.square(x) + 1.0       # only feeds the assignment
    v.assign(delta)
    return x
  low = lower(f, tf.constant(2.0))
  g, _ = run_pass(passes.prune, low)
  assert {"Square", "AddV2", "AssignVariableOp"} <= set(op_types(g))
  f(tf.constant(3.0))
  assert v.numpy() == 10.0


def test_prune_is_a_no_op_on_a_minimal_graph():
  low = lower(tf.function(lambda x: x * 2.0), tf.constant(1.0))
  g, changed = run_pass(passes.prune, low)
  assert not changed and op_types(g) == op_types(low.raw)


# ----------------------------------------------------------- fold_constants

def test_fold_constants_folds_constant_subgraphs():
  @tf.function
  def f(x):
    c = tf.constant(2.0) * tf.constant(3.0) + 1.0      # 7.0, known while tracing
    m = tf.reshape(tf.range(2000.0), [2, 1000]) * c    # too big to know while tracing
    return x * c + m
  low = lower(f, tf.ones([2, 1000]))
  assert "Range" in op_types(low.raw) and "Reshape" in op_types(low.raw)
  assert 7.0 in [v for v in consts_of(low.raw) if np.ndim(v) == 0]   # lowering knew it
  g, changed = run_pass(passes.fold_constants, low)
  assert changed
  assert "Range" not in op_types(g) and "Reshape" not in op_types(g)
  assert op_types(g) == ["Mul", "AddV2", "Identity"]
  out = same_outputs(low, g, np.ones((2, 1000), np.float32))
  np.testing.assert_allclose(out[0], 7.0 + 7.0 * np.arange(2000).reshape(2, 1000))


def test_fold_constants_leaves_inputs_variables_and_stateful_ops():
  v = tf.Variable(2.0)

  @tf.function
  def f(x):
    a = v.read_value() * 3.0                  # a variable read is not a constant
    r = tf.random.uniform([2], seed=1) * 0.0  # random ops are stateful: never folded
    return x + a + tf.reduce_sum(r)
  low = lower(f, tf.constant(1.0))
  g, _ = run_pass(passes.fold_constants, low)
  types = op_types(g)
  assert "ReadVariableOp" in types and "Mul" in types
  assert any("Random" in t for t in types)
  assert f(tf.constant(1.0)).numpy() == 7.0
  v.assign(10.0)
  assert f(tf.constant(1.0)).numpy() == 31.0


def test_fold_constants_leaves_failing_nodes_to_fail_at_run_time():
  @tf.function
  def f(x):
    bad = tf.constant(np.ones((2, 3), np.float32))
    return x + 1.0, bad
  low = lower(f, tf.constant(1.0))
  g, _ = run_pass(passes.fold_constants, low)
  same_outputs(low, g, np.float32(1.0))


def test_trace_time_constants_are_known_to_shape_rules():
  @tf.function
  def f(x):
    n = tf.shape(x)[0] * 2
    return tf.zeros([n]) + 1.0     # the shape is known while tracing
  cf = f.get_concrete_function(tf.ones([3, 2]))
  assert cf.structured_outputs.shape.as_list() == [6]
  assert f(tf.ones([3, 2])).numpy().tolist() == [1.0] * 6


# ----------------------------------------------------------------------- cse

def test_cse_merges_duplicate_ops():
  @tf.function
  def f(x):
    a = tf.square(x) + 1.0
    b = tf.square(x) + 1.0
    return a * b, tf.square(x)
  low = lower(f, tf.ones([3]))
  g, changed = run_pass(passes.cse, low)
  assert changed
  assert op_types(low.raw).count("Square") == 3
  assert op_types(g).count("Square") == 1
  assert op_types(g).count("AddV2") == 1
  out = same_outputs(low, g, np.array([1.0, 2.0, 3.0], np.float32))
  np.testing.assert_allclose(out[0], (np.array([1.0, 4.0, 9.0]) + 1) ** 2)


def test_cse_distinguishes_attrs_and_input_order():
  @tf.function
  def f(x, y):
    return (tf.reduce_sum(x, axis=0), tf.reduce_sum(x, axis=1),
            x - y, y - x, tf.transpose(x), tf.transpose(x, [1, 0]))
  low = lower(f, tf.ones([2, 2]), tf.ones([2, 2]))
  g, _ = run_pass(passes.cse, low)
  types = op_types(g)
  assert types.count("Sum") == 2 and types.count("Sub") == 2
  rng = np.random.RandomState(0)
  same_outputs(low, g, rng.rand(2, 2).astype(np.float32),
               rng.rand(2, 2).astype(np.float32))


def test_cse_keeps_stateful_ops(capsys):
  v = tf.Variable(0.0)
  calls = []

  def py(x):
    calls.append(1)
    return x

  @tf.function
  def f(x):
    v.assign_add(x)
    v.assign_add(x)
    tf.print("p", output_stream=sys.stdout)
    tf.print("p", output_stream=sys.stdout)
    a = tf.py_function(py, [x], tf.float32)
    b = tf.py_function(py, [x], tf.float32)
    return a + b
  low = lower(f, tf.constant(1.0))
  g, _ = run_pass(passes.cse, low)
  types = op_types(g)
  assert types.count("AssignAddVariableOp") == 2 and types.count("PrintV2") == 2
  assert types.count("EagerPyFunc") == 2
  capsys.readouterr()
  calls.clear()
  v.assign(0.0)
  assert f(tf.constant(1.0)).numpy() == 2.0
  assert v.numpy() == 2.0 and len(calls) == 2
  assert capsys.readouterr().out == "p\np\n"


def test_cse_does_not_merge_variable_reads_across_writes():
  v = tf.Variable(1.0)

  @tf.function
  def f():
    r1 = v.read_value()
    r2 = v.read_value()        # same as r1: may merge
    v.assign_add(10.0)
    r3 = v.read_value()        # after a write: must not merge with r1
    return r1 + r2, r3
  low = lower(f)
  g, _ = run_pass(passes.cse, low)
  assert op_types(low.raw).count("ReadVariableOp") == 3
  assert op_types(g).count("ReadVariableOp") == 2
  out = same_outputs(low, g, reset=lambda: v.assign(1.0))
  assert [float(o) for o in out] == [2.0, 11.0]
  v.assign(1.0)
  assert [t.numpy() for t in f()] == [2.0, 11.0]


def test_cse_does_not_merge_random_draws():
  @tf.function
  def f():
    return tf.random.uniform([8]), tf.random.uniform([8])
  a, b = f()
  c, _ = f()
  assert not np.array_equal(a.numpy(), b.numpy())
  assert not np.array_equal(a.numpy(), c.numpy())


# ------------------------------------------------------------------ simplify

def test_simplify_removes_algebraic_identities():
  @tf.function
  def f(x, y):
    a = x * 1.0
    b = a + 0.0
    c = 1.0 * b
    d = c - 0.0
    e = d / 1.0
    g = tf.zeros_like(e) + y
    h = tf.identity(g)
    return tf.stop_gradient(h) * e
  low = lower(f, tf.ones([3]), tf.ones([3]))
  g, _ = run_pass(passes.fold_constants, low)
  g, changed = run_pass(passes.simplify, low, g)
  assert changed
  # x*1, x+0, 1*x, x-0, x/1, zeros_like(.)+y, identity and stop_gradient all go:
  # one Mul and the output Identity stay (zeros_like is a constant once lowered).
  assert op_types(g) == ["Mul", "Identity"]
  g3, _ = run_pass(passes.prune, low, g)
  assert op_types(g3) == ["Mul", "Identity"]
  same_outputs(low, g3, np.ones(3, np.float32),
               np.full(3, 2.0, np.float32))
  g4 = low.optimized()
  assert op_types(g4) == ["Mul", "Identity"]
  rng = np.random.RandomState(1)
  same_outputs(low, g4, rng.rand(3).astype(np.float32),
               rng.rand(3).astype(np.float32))


def test_simplify_keeps_identities_that_change_shape_or_dtype():
  @tf.function
  def f(x, row):
    a = x + tf.zeros([2, 3])         # broadcasts [3] -> [2, 3]: not an identity
    b = row * tf.ones([2, 1])        # [3] * [2, 1] -> [2, 3]
    c = tf.cast(x, tf.float64) * 1.0
    return a, b, c
  low = lower(f, tf.ones([3]), tf.ones([3]))
  g = low.optimized()
  out = same_outputs(low, g, np.arange(3, dtype=np.float32),
                     np.arange(3, dtype=np.float32))
  assert out[0].shape == (2, 3) and out[1].shape == (2, 3) and out[2].dtype == np.float64
  r = f(tf.constant([1.0, 2.0, 3.0]), tf.constant([1.0, 2.0, 3.0]))
  assert r[0].shape == [2, 3] and r[1].shape == [2, 3] and r[2].dtype == tf.float64


def test_simplify_needs_known_shapes():
  @tf.function(input_signature=[tf.TensorSpec([None], tf.float32),
                                tf.TensorSpec([None, None], tf.float32)])
  def f(x, y):
    return x * 1.0 + y            # x*1 could broadcast with y: shapes unknown
  assert f(tf.ones([3]), tf.ones([2, 3])).shape == [2, 3]
  low = lower(f, tf.TensorSpec([None], tf.float32), tf.TensorSpec([None, None], tf.float32))
  g = low.optimized()
  same_outputs(low, g, np.ones(3, np.float32),
               np.ones((2, 3), np.float32))


def test_simplify_keeps_graph_outputs():
  @tf.function
  def f(x):
    return x * 1.0, x + 0.0
  r = f(tf.constant([1.0, 2.0]))
  assert [t.numpy().tolist() for t in r] == [[1.0, 2.0]] * 2


# ------------------------------------------------------------------ pipeline

def test_pipeline_lists_the_passes_in_order():
  assert passes.PIPELINE == [passes.prune, passes.fold_constants, passes.cse,
                             passes.simplify, passes.prune]


def test_pipeline_reaches_a_fixed_point():
  @tf.function
  def f(x):
    a = tf.square(x) * 1.0
    b = tf.square(x) + tf.zeros_like(x)
    dead = tf.exp(a)                       # noqa: F841
    k = tf.constant(3.0) - 1.0
    return (a + b) * k
  low = lower(f, tf.ones([4]))
  g = low.optimized()
  assert sorted(op_types(g)) == ["AddV2", "Identity", "Mul", "Square"]
  for p in passes.PIPELINE:
    g, changed = run_pass(p, low, g)
    assert not changed, p.__name__
  same_outputs(low, g, np.arange(4, dtype=np.float32))


@pytest.mark.parametrize("seed", range(10))
def test_every_pass_alone_keeps_outputs_on_random_graphs(seed):
  from test_executor import _S, random_program
  f = tf.function(random_program(1000 + seed))
  rng = np.random.RandomState(seed)
  args = [rng.randn(*_S).astype(np.float32) for _ in range(3)]
  low = lower(f, *[tf.constant(a) for a in args])
  for p in passes.PIPELINE:
    g, _ = run_pass(p, low)
    same_outputs(low, g, *args)


def test_lowering_shares_equal_scalar_constants_but_not_signed_zeros():
  @tf.function
  def f(x):
    a = x * 1.5 + x * 1.5                 # two Const nodes of 1.5: one after lowering
    return a, x / tf.constant(0.0), x / tf.constant(-0.0)
  low = lower(f, tf.constant(2.0))
  values = [float(v) for v in consts_of(low.raw)]
  assert values.count(1.5) == 1
  assert sorted(str(v) for v in values if v == 0) == ["-0.0", "0.0"]
  a, pos, neg = f(tf.constant(2.0))
  assert a.numpy() == 6.0 and pos.numpy() == np.inf and neg.numpy() == -np.inf
