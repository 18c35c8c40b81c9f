"""tf.cond, tf.case, tf.switch_case and tf.while_loop: eagerly and inside
tf.function (autograph=False, so the ops themselves are under test), errors,
and finite-difference gradient checks (order 1 and 2) with the tape outside a
tf.function (the function's graph replayed under the tape) and inside it
(gradients staged into the graph), including captured variables and a
TensorArray accumulating per-step values."""
import collections
import sys

import numpy as np
import pytest

import tensorlet as tf
from gradcheck import check_grads

MODES = ["eager", "function"]


def run(mode, fn, *args):
  if mode == "eager":
    return fn(*args)
  return tf.function(fn, autograph=False)(*args)


def op_types(f, *args):
  return [n.op for n in f.get_concrete_function(*args).graph.as_graph_def().node]


def np_(x):
  return tf.nest.map_structure(lambda t: np.asarray(t), x)


# ---------------------------------------------------------------------- cond

def test_cond_eager_calls_only_the_taken_branch():
  calls = []
  t = tf.cond(tf.constant(True), lambda: calls.append("t") or tf.constant(1),
              lambda: calls.append("f") or tf.constant(2))
  assert calls == ["t"] and int(t) == 1
  f = tf.cond(tf.constant(False), lambda: calls.append("t") or tf.constant(1),
              lambda: calls.append("f") or tf.constant(2))
  assert calls == ["t", "f"] and int(f) == 2


def test_cond_in_graph_traces_both_and_chooses_at_run_time():
  traced = []

  @tf.function(autograph=False)
  def f(p, x):
    return tf.cond(p, lambda: traced.append("t") or x * 2.0,
                   lambda: traced.append("f") or x - 1.0)
  assert float(f(tf.constant(True), tf.constant(3.0))) == 6.0
  assert sorted(traced) == ["f", "t"]
  assert float(f(tf.constant(False), tf.constant(3.0))) == 2.0
  assert sorted(traced) == ["f", "t"]  # one trace serves both predicates
  assert f.experimental_get_tracing_count() == 1
  ops = op_types(f, tf.constant(True), tf.constant(3.0))
  assert "StatelessIf" in ops and "If" not in ops


@pytest.mark.parametrize("mode", MODES)
def test_cond_python_bool_predicate_runs_one_branch(mode):
  traced = []

  def f(x):
    return tf.cond(True, lambda: traced.append("t") or x + 1.0,
                   lambda: traced.append("f") or x - 1.0)
  assert float(run(mode, f, tf.constant(1.0))) == 2.0
  assert traced == ["t"]
  g = tf.function(f, autograph=False)
  assert not {"If", "StatelessIf"} & set(op_types(g, tf.constant(1.0)))


@pytest.mark.parametrize("mode", MODES)
def test_cond_nested_structures(mode):
  Pair = collections.namedtuple("Pair", "a b")

  def f(p, x):
    return tf.cond(p, lambda: {"s": x, "t": (x * 2.0, Pair(x, x + 1.0))},
                   lambda: {"s": -x, "t": (x * 3.0, Pair(x - 1.0, x))})
  out = run(mode, f, tf.constant(True), tf.constant(2.0))
  assert set(out) == {"s", "t"} and isinstance(out["t"][1], Pair)
  assert np_(out) == {"s": 2.0, "t": (4.0, Pair(2.0, 3.0))}
  out = run(mode, f, tf.constant(False), tf.constant(2.0))
  assert np_(out) == {"s": -2.0, "t": (6.0, Pair(1.0, 2.0))}


def test_cond_python_numbers_in_outputs():
  @tf.function(autograph=False)
  def f(p, x):
    both = tf.cond(p, lambda: 1, lambda: 2)
    mixed = tf.cond(p, lambda: x, lambda: 0.0)
    same = tf.cond(p, lambda: (x, 7), lambda: (x + 1.0, 7))
    return both, mixed, same
  both, mixed, same = f(tf.constant(True), tf.constant(5.0))
  assert both.dtype == tf.int32 and int(both) == 1
  assert mixed.dtype == tf.float32 and float(mixed) == 5.0
  assert float(same[0]) == 5.0 and int(same[1]) == 7
  both, mixed, _ = f(tf.constant(False), tf.constant(5.0))
  assert int(both) == 2 and float(mixed) == 0.0
  # eagerly the branch's own value comes back
  assert tf.cond(tf.constant(False), lambda: 1, lambda: 2) == 2


def test_cond_structure_and_dtype_mismatch_errors():
  @tf.function(autograph=False)
  def structure(p):
    return tf.cond(p, lambda: (tf.constant(1.0), tf.constant(2.0)), lambda: tf.constant(1.0))

  @tf.function(autograph=False)
  def dtype(p):
    return tf.cond(p, lambda: tf.constant(1.0), lambda: tf.constant(1))
  with pytest.raises(ValueError, match="same number, type, and overall structure"):
    structure(tf.constant(True))
  with pytest.raises(TypeError, match="(?s)same number, type.*dtype=float32.*dtype=int32.*have "
                     "different types"):
    dtype(tf.constant(True))


@pytest.mark.parametrize("mode", MODES)
def test_cond_argument_errors(mode):
  with pytest.raises(TypeError, match="true_fn must be callable"):
    run(mode, lambda p: tf.cond(p, 1, lambda: 2), tf.constant(True))
  with pytest.raises(TypeError, match="false_fn must be callable"):
    run(mode, lambda p: tf.cond(p, lambda: 1, None), tf.constant(True))
  with pytest.raises(TypeError, match="pred must be a bool tensor"):
    run(mode, lambda p: tf.cond(p, lambda: 1, lambda: 2), tf.constant(1.0))


def test_cond_predicate_must_be_scalar():
  with pytest.raises(tf.errors.InvalidArgumentError, match="scalar"):
    tf.cond(tf.constant([True, False]), lambda: 1, lambda: 2)
  with pytest.raises(ValueError, match="rank 0"):
    tf.function(lambda p: tf.cond(p, lambda: 1, lambda: 2), autograph=False)(
        tf.constant([True, False]))


def test_cond_stateful_branches_run_only_when_taken(capsys):
  v = tf.Variable(0.0)

  @tf.function(autograph=False)
  def f(p):
    def yes():
      tf.print("yes")
      v.assign_add(1.0)
      return tf.constant(1)

    def no():
      tf.print("no")
      v.assign_add(10.0)
      return tf.constant(0)
    return tf.cond(p, yes, no)
  for p in [True, True, False]:
    f(tf.constant(p))
  assert float(v) == 12.0
  assert capsys.readouterr().err == "yes\nyes\nno\n"
  assert "If" in op_types(f, tf.constant(True))  # stateful branches: If, not StatelessIf


def test_cond_captures_outer_tensors_and_variables():
  v = tf.Variable(3.0)
  c = tf.constant(10.0)

  @tf.function(autograph=False)
  def f(p, x):
    return tf.cond(p, lambda: x * v, lambda: x + c)
  assert float(f(tf.constant(True), tf.constant(2.0))) == 6.0
  v.assign(4.0)
  assert float(f(tf.constant(True), tf.constant(2.0))) == 8.0
  assert float(f(tf.constant(False), tf.constant(2.0))) == 12.0


def test_nested_cond_in_graph():
  @tf.function(autograph=False)
  def f(x):
    return tf.cond(x > 0.0, lambda: tf.cond(x > 10.0, lambda: x * 100.0, lambda: x * 2.0),
                   lambda: -x)
  assert [float(f(tf.constant(v))) for v in [20.0, 3.0, -4.0]] == [2000.0, 6.0, 4.0]


# ------------------------------------------------------- case / switch_case

@pytest.mark.parametrize("mode", MODES)
def test_case(mode):
  def f(x):
    return tf.case([(x < 0, lambda: tf.constant(-1)), (x < 10, lambda: tf.constant(1))],
                   default=lambda: tf.constant(100))
  assert [int(run(mode, f, tf.constant(v))) for v in [-5, 5, 50]] == [-1, 1, 100]


@pytest.mark.parametrize("mode", MODES)
def test_case_without_default_uses_the_last_pair(mode):
  def f(x):
    return tf.case([(x < 0, lambda: tf.constant("neg")), (x > 100, lambda: tf.constant("pos"))])
  assert run(mode, f, tf.constant(-1)).numpy() == b"neg"
  assert run(mode, f, tf.constant(1)).numpy() == b"pos"


def test_case_exclusive_and_errors():
  with pytest.raises(tf.errors.InvalidArgumentError, match="more than one predicate"):
    tf.case([(tf.constant(True), lambda: 1), (tf.constant(True), lambda: 2)],
            default=lambda: 3, exclusive=True)
  assert tf.case([(tf.constant(True), lambda: 1), (tf.constant(True), lambda: 2)],
                 default=lambda: 3) == 1  # the first true predicate wins
  with pytest.raises(TypeError, match="callable"):
    tf.case([(tf.constant(True), 1)], default=lambda: 3)
  with pytest.raises(ValueError, match="empty"):
    tf.case([])


@pytest.mark.parametrize("mode", MODES)
def test_switch_case(mode):
  def f(i, x):
    return tf.switch_case(i, [lambda: x + 1.0, lambda: x * 10.0, lambda: -x])
  assert [float(run(mode, f, tf.constant(i), tf.constant(2.0))) for i in range(3)] == \
      [3.0, 20.0, -2.0]
  # out of range: the last branch is the default
  assert float(run(mode, f, tf.constant(7), tf.constant(2.0))) == -2.0
  assert float(run(mode, f, tf.constant(-1), tf.constant(2.0))) == -2.0


@pytest.mark.parametrize("mode", MODES)
def test_switch_case_dict_and_default(mode):
  def f(i):
    return tf.switch_case(i, {0: lambda: tf.constant(10), 5: lambda: tf.constant(50)},
                          default=lambda: tf.constant(-1))
  assert [int(run(mode, f, tf.constant(i))) for i in [0, 5, 3]] == [10, 50, -1]


def test_switch_case_errors():
  with pytest.raises(TypeError, match="integer"):
    tf.switch_case(tf.constant(1.0), [lambda: 1])
  with pytest.raises(ValueError, match="empty"):
    tf.switch_case(tf.constant(1), [])


# ---------------------------------------------------------------- while_loop

@pytest.mark.parametrize("mode", MODES)
def test_while_loop_single_tensor(mode):
  out = run(mode, lambda x: tf.while_loop(lambda i: i < 10, lambda i: i + 3, x), tf.constant(0))
  assert isinstance(out, tf.Tensor) and int(out) == 12


@pytest.mark.parametrize("mode", MODES)
def test_while_loop_tuple_list_namedtuple_and_nested_vars(mode):
  State = collections.namedtuple("State", "i acc")

  def f(x):
    t = tf.while_loop(lambda i, s: i < 4, lambda i, s: (i + 1, s + x), (0, tf.zeros([2])))
    lst = tf.while_loop(lambda i, s: i < 4, lambda i, s: [i + 1, s * 2.0], [0, x])
    nt = tf.while_loop(lambda s: s.i < 3, lambda s: [State(s.i + 1, s.acc + s.i)],
                       [State(tf.constant(0), tf.constant(0))])
    nested = tf.while_loop(lambda i, ab: i < 3,
                           lambda i, ab: (i + 1, {"a": ab["a"] + 1.0, "b": (ab["b"][0] * 2.0,)}),
                           (tf.constant(0), {"a": tf.constant(0.0), "b": (x,)}))
    return t, lst, nt, nested
  t, lst, nt, nested = run(mode, f, tf.constant([1.0, 2.0]))
  assert isinstance(t, tuple) and int(t[0]) == 4 and list(np.asarray(t[1])) == [4.0, 8.0]
  assert isinstance(lst, list) and list(np.asarray(lst[1])) == [16.0, 32.0]
  assert isinstance(nt, list) and isinstance(nt[0], State)
  assert (int(nt[0].i), int(nt[0].acc)) == (3, 3)
  assert int(nested[0]) == 3 and float(nested[1]["a"]) == 3.0
  assert list(np.asarray(nested[1]["b"][0])) == [8.0, 16.0]


@pytest.mark.parametrize("mode", MODES)
def test_while_loop_zero_iterations_and_python_loop_vars(mode):
  out = run(mode, lambda x: tf.while_loop(lambda i, y: i < 0, lambda i, y: (i + 1, y * 2.0),
                                          (0, x)), tf.constant(3.0))
  assert int(out[0]) == 0 and float(out[1]) == 3.0


@pytest.mark.parametrize("mode", MODES)
def test_while_loop_maximum_iterations(mode):
  def f(x):
    a = tf.while_loop(lambda i: True, lambda i: i + 1, x, maximum_iterations=5)
    b = tf.while_loop(lambda i: i < 3, lambda i: i + 1, x, maximum_iterations=tf.constant(100))
    c = tf.while_loop(lambda i: i < 100, lambda i: i + 1, x, maximum_iterations=0)
    return a, b, c
  assert [int(t) for t in run(mode, f, tf.constant(0))] == [5, 3, 0]


@pytest.mark.parametrize("mode", MODES)
def test_while_loop_accepts_tf1_arguments(mode):
  out = run(mode, lambda x: tf.while_loop(lambda i: i < 5, lambda i: i + 1, [x],
                                          parallel_iterations=1, back_prop=True,
                                          swap_memory=True, name="loop"), tf.constant(0))
  assert int(out[0]) == 5


def test_while_loop_shape_invariants():
  @tf.function(autograph=False)
  def grow(n):
    return tf.while_loop(lambda i, x: i < n,
                         lambda i, x: (i + 1, tf.concat([x, tf.ones([1, 2])], axis=0)),
                         (tf.constant(0), tf.zeros([0, 2])),
                         shape_invariants=(tf.TensorShape([]), tf.TensorShape([None, 2])))
  i, x = grow(tf.constant(3))
  assert x.shape == (3, 2) and int(i) == 3
  assert grow.get_concrete_function(tf.constant(3)).structured_outputs[1].shape.as_list() == \
      [None, 2]
  # eagerly shapes may change freely
  _, x = tf.while_loop(lambda i, x: i < 2, lambda i, x: (i + 1, tf.concat([x, x], 0)),
                       (0, tf.ones([1])))
  assert x.shape == (4,)


def test_while_loop_shape_change_error_message():
  @tf.function(autograph=False)
  def f():
    return tf.while_loop(lambda i, x: i < 5,
                         lambda i, x: (i + 1, tf.concat([x, tf.ones([1, 10])], axis=0)),
                         (tf.constant(0), tf.ones([0, 10])))
  with pytest.raises(ValueError) as e:
    f()
  msg = str(e.value)
  assert "enters the loop with shape (0, 10), but has shape (1, 10) after one iteration" in msg
  assert "shape_invariants" in msg


def test_while_loop_incompatible_shape_invariant():
  @tf.function(autograph=False)
  def f():
    return tf.while_loop(lambda x: tf.reduce_sum(x) < 5.0, lambda x: x + 1.0, [tf.ones([2])],
                         shape_invariants=[tf.TensorShape([3])])
  with pytest.raises(ValueError, match="not compatible with the initial shape"):
    f()


def test_while_loop_dtype_change_error():
  @tf.function(autograph=False)
  def f():
    return tf.while_loop(lambda x: x < 5.0, lambda x: tf.cast(x, tf.int32), [tf.constant(0.0)])
  with pytest.raises(TypeError, match="enters the loop with type float32, but has type int32"):
    f()


@pytest.mark.parametrize("mode", MODES)
def test_while_loop_structure_and_callable_errors(mode):
  with pytest.raises(ValueError):
    run(mode, lambda x: tf.while_loop(lambda a, b: a < 3, lambda a, b: (a + 1,), (x, x)),
        tf.constant(0))
  with pytest.raises(TypeError, match="'cond' must be callable"):
    tf.while_loop(True, lambda i: i, [0])
  with pytest.raises(TypeError, match="'body' must be callable"):
    tf.while_loop(lambda i: i < 1, None, [0])


def test_while_loop_body_side_effects_and_captures(capsys):
  v = tf.Variable(0)
  step = tf.constant(2)

  @tf.function(autograph=False)
  def f(n):
    def body(i):
      tf.print("i =", i)
      v.assign_add(i)
      return i + step
    return tf.while_loop(lambda i: i < n, body, [tf.constant(0)])
  assert int(f(tf.constant(5))[0]) == 6
  assert int(v) == 0 + 2 + 4
  assert capsys.readouterr().err == "i = 0\ni = 2\ni = 4\n"
  assert int(f(tf.constant(3))[0]) == 4
  assert int(v) == 6 + 0 + 2
  assert f.experimental_get_tracing_count() == 1


def test_while_loop_node_and_nesting():
  @tf.function(autograph=False)
  def f(n):
    def outer(i, total):
      inner = tf.while_loop(lambda j, s: j < i, lambda j, s: (j + 1, s + j), (0, 0))[1]
      return i + 1, total + inner
    return tf.while_loop(lambda i, t: i < n, outer, (0, 0))[1]
  # sum over i < 5 of sum(range(i))
  assert int(f(tf.constant(5))) == sum(sum(range(i)) for i in range(5))
  g = f.get_concrete_function(tf.constant(5)).graph.as_graph_def()
  assert any(n.name == "while" and n.op == "While" for n in g.node)


def test_cond_inside_while_and_while_inside_cond():
  @tf.function(autograph=False)
  def collatz(n):
    return tf.while_loop(lambda n, k: n > 1,
                         lambda n, k: (tf.cond(n % 2 == 0, lambda: n // 2, lambda: 3 * n + 1),
                                       k + 1), (n, 0))[1]
  assert int(collatz(tf.constant(27))) == 111

  @tf.function(autograph=False)
  def g(p, n):
    return tf.cond(p, lambda: tf.while_loop(lambda i: i < n, lambda i: i + 1, [0])[0],
                   lambda: -n)
  assert int(g(tf.constant(True), tf.constant(4))) == 4
  assert int(g(tf.constant(False), tf.constant(4))) == -4


# ------------------------------------------------------------------ gradients
# Each function is checked eagerly, as a tf.function under an outer tape
# ("outside": the graph is replayed under the tape), and by a tf.function that
# takes the gradients itself ("inside": gradient ops staged into the graph).

def check_grads_in_graph(f, args, order=1, eps=1e-4, rtol=1e-3, atol=1e-4, seed=0):
  """Like gradcheck.check_grads, with the tape(s) inside a tf.function."""
  args = [np.asarray(a, np.float64) for a in args]
  rng = np.random.RandomState(seed)
  y0 = f(*[tf.constant(a) for a in args])
  r = tf.constant(rng.standard_normal(np.shape(y0)))
  d1 = [tf.constant(rng.standard_normal(a.shape)) for a in args]
  d2 = [tf.constant(rng.standard_normal(a.shape)) for a in args]

  def scalar(xs):
    return tf.reduce_sum(tf.cast(f(*xs), tf.float64) * r)

  def directional(xs, d):
    with tf.GradientTape() as t:
      t.watch(xs)
      y = scalar(xs)
    gs = t.gradient(y, xs)
    return tf.add_n([tf.reduce_sum(g * di) for g, di in zip(gs, d) if g is not None])

  @tf.function(autograph=False)
  def first(*xs):
    return directional(list(xs), d1)

  @tf.function(autograph=False)
  def second(*xs):
    xs = list(xs)
    with tf.GradientTape() as t:
      t.watch(xs)
      y = directional(xs, d1)
    gs = t.gradient(y, xs)
    return tf.add_n([tf.reduce_sum(g * di) for g, di in zip(gs, d2) if g is not None])

  def numeric(fn, d):
    plus = [tf.constant(a + eps * np.asarray(di)) for a, di in zip(args, d)]
    minus = [tf.constant(a - eps * np.asarray(di)) for a, di in zip(args, d)]
    return (float(fn(plus)) - float(fn(minus))) / (2 * eps)
  ts = [tf.constant(a) for a in args]
  analytic, want = float(first(*ts)), numeric(scalar, d1)
  assert np.isclose(analytic, want, rtol=rtol, atol=atol), (analytic, want)
  if order >= 2:
    analytic = float(second(*ts))
    want = numeric(lambda xs: first(*xs), d2)
    assert np.isclose(analytic, want, rtol=rtol * 10, atol=atol * 10), (analytic, want)


def cond_fn(x, y):
  return tf.cond(tf.reduce_sum(x) > 0.0, lambda: tf.sin(x) * y, lambda: x * x - y)


def while_fixed(x, y):
  # four iterations whatever the values: the count does not depend on x
  return tf.while_loop(lambda i, a: i < 4, lambda i, a: (i + 1, tf.tanh(a * y) + x),
                       (0, x))[1]


def while_data_dependent(x):
  # iterates while the norm is small; the count stays the same near x
  return tf.while_loop(lambda a: tf.reduce_sum(a * a) < 50.0, lambda a: a * 1.5 + 0.1, [x])[0]


def while_with_cond(x):
  def body(i, a):
    return i + 1, tf.cond(i % 2 == 0, lambda: tf.sin(a), lambda: a * a)
  return tf.while_loop(lambda i, a: i < 3, body, (0, x))[1]


def cond_with_while(x):
  return tf.cond(tf.reduce_sum(x) > 0.0,
                 lambda: tf.while_loop(lambda i, a: i < 2, lambda i, a: (i + 1, a * x), (0, x))[1],
                 lambda: tf.exp(x))


def while_in_while(x):
  def outer(i, a):
    return i + 1, tf.while_loop(lambda j, b: j < i, lambda j, b: (j + 1, tf.sin(b) * x), (0, a))[1]
  return tf.while_loop(lambda i, a: i < 3, outer, (1, x))[1]


def rnn(inputs, h0, w):
  """dynamic_rnn-style: a TensorArray collects every step's state."""
  n = tf.shape(inputs)[0]

  def body(i, h, ta):
    h = tf.tanh(tf.matmul(h, w) + inputs[i])
    return i + 1, h, ta.write(i, h)
  _, h, ta = tf.while_loop(lambda i, h, ta: i < n, body,
                           (0, h0, tf.TensorArray(tf.float64, size=n)))
  return ta.stack() * 2.0 + h


def ta_unstack_read(x):
  ta = tf.TensorArray(tf.float64, size=3).unstack(x)
  return tf.while_loop(lambda i, acc: i < 3, lambda i, acc: (i + 1, acc * ta.read(i)),
                       (0, tf.ones_like(x[0])))[1]


rs = np.random.RandomState(42)
X2, Y2 = rs.uniform(0.2, 1.0, [2, 3]), rs.uniform(0.2, 1.0, [2, 3])
GRAD_CASES = [
    ("cond_true", cond_fn, [X2, Y2]),
    ("cond_false", cond_fn, [-X2, Y2]),
    ("while_fixed", while_fixed, [X2 * 0.5, Y2]),
    ("while_data_dependent", while_data_dependent, [X2]),
    ("while_with_cond", while_with_cond, [X2]),
    ("cond_with_while", cond_with_while, [X2]),
    ("cond_with_while_false", cond_with_while, [-X2]),
    ("while_in_while", while_in_while, [X2]),
    ("rnn", rnn, [rs.uniform(-1, 1, [3, 2, 4]), rs.uniform(-1, 1, [2, 4]),
                  rs.uniform(-0.5, 0.5, [4, 4])]),
    ("ta_unstack_read", ta_unstack_read, [X2.T + 0.5]),
]
IDS = [c[0] for c in GRAD_CASES]


@pytest.mark.parametrize("name,f,args", GRAD_CASES, ids=IDS)
def test_gradients_eager(name, f, args):
  check_grads(f, args, order=2)


@pytest.mark.parametrize("name,f,args", GRAD_CASES, ids=IDS)
def test_gradients_tape_outside_function(name, f, args):
  check_grads(tf.function(f, autograph=False), args, order=2)


@pytest.mark.parametrize("name,f,args", GRAD_CASES, ids=IDS)
def test_gradients_tape_inside_function(name, f, args):
  check_grads_in_graph(f, args, order=2)


def test_while_loop_gradient_values():
  # d/dx of x**(2**3) by three squarings, exact
  @tf.function(autograph=False)
  def f(x):
    with tf.GradientTape() as t:
      t.watch(x)
      y = tf.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a * a), (0, x))[1]
    return y, t.gradient(y, x)
  y, g = f(tf.constant(1.5, tf.float64))
  assert np.isclose(float(y), 1.5 ** 8) and np.isclose(float(g), 8 * 1.5 ** 7)


def test_gradient_of_unconnected_loop_var_and_integer_vars():
  x = tf.constant(2.0)
  f = tf.function(lambda x: tf.while_loop(
      lambda i, y, z: i < 3, lambda i, y, z: (i + 1, y * x, z + 1.0), (0, x, 0.0)),
      autograph=False)
  with tf.GradientTape(persistent=True) as t:
    t.watch(x)
    i, y, z = f(x)
  assert float(t.gradient(y, x)) == 4 * 2.0 ** 3
  # z does not depend on x, but x is an input of the While node: zeros, as in TF
  assert float(t.gradient(z, x)) == 0.0
  assert t.gradient(i, x) is None


# ----------------------------------------------- gradients w.r.t. variables

def check_var_grads(loss, var, order=1, eps=1e-4, seed=0):
  """Tape gradient of `loss()` w.r.t. `var` (order 1, and for order 2 the Hessian
  in random directions) against central differences obtained by assigning."""
  rng = np.random.RandomState(seed)
  v0 = var.numpy().copy()
  d1, d2 = rng.standard_normal(v0.shape), rng.standard_normal(v0.shape)

  def first():
    with tf.GradientTape() as t:
      y = loss()
    return t.gradient(y, var)

  def numeric(fn, d):
    var.assign(v0 + eps * d)
    hi = float(fn())
    var.assign(v0 - eps * d)
    lo = float(fn())
    var.assign(v0)
    return (hi - lo) / (2 * eps)
  assert np.isclose(float(tf.reduce_sum(first() * d1)), numeric(loss, d1), rtol=1e-3, atol=1e-5)
  if order >= 2:
    with tf.GradientTape() as t:
      y = tf.reduce_sum(first() * d1)
    h = float(tf.reduce_sum(t.gradient(y, var) * d2))
    want = numeric(lambda: tf.reduce_sum(first() * d1), d2)
    assert np.isclose(h, want, rtol=1e-2, atol=1e-4), (h, want)


def var_cond(v, x):
  return tf.reduce_sum(tf.cond(tf.reduce_sum(x) > 0.0, lambda: tf.sin(v * x), lambda: v * v))


def var_while(v, x):
  return tf.reduce_sum(tf.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, tf.tanh(a * v)),
                                     (0, x))[1])


def var_rnn(v, x):
  def body(i, h, ta):
    h = tf.tanh(h * v + x[i])
    return i + 1, h, ta.write(i, h)
  ta = tf.while_loop(lambda i, h, ta: i < 3, body,
                     (0, tf.zeros_like(x[0]), tf.TensorArray(tf.float64, size=3)))[2]
  return tf.reduce_sum(ta.stack() ** 2)


@pytest.mark.parametrize("body", [var_cond, var_while, var_rnn])
@pytest.mark.parametrize("where", ["eager", "outside", "inside"])
@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_gradients_wrt_captured_variables(body, where, sign):
  v = tf.Variable(np.array([0.7, -0.3, 0.5]))
  x = tf.constant(sign * np.array([[0.5, 0.2, 0.9], [0.1, 0.4, 0.3], [0.6, 0.8, 0.2]]))
  if where == "eager":
    check_var_grads(lambda: body(v, x), v, order=2)
  elif where == "outside":
    f = tf.function(lambda: body(v, x), autograph=False)
    check_var_grads(f, v, order=2)
  else:
    @tf.function(autograph=False)
    def grad():
      with tf.GradientTape() as t:
        y = body(v, x)
      return y, t.gradient(y, v)

    @tf.function(autograph=False)
    def hvp(d):
      with tf.GradientTape() as outer:
        with tf.GradientTape() as inner:
          y = body(v, x)
        g = tf.reduce_sum(inner.gradient(y, v) * d)
      return outer.gradient(g, v)
    eps, v0 = 1e-4, v.numpy().copy()
    d = np.array([0.3, -0.8, 0.5])
    g = grad()[1].numpy()
    v.assign(v0 + eps * d)
    hi_y, hi_g = [t.numpy() for t in grad()]
    v.assign(v0 - eps * d)
    lo_y, lo_g = [t.numpy() for t in grad()]
    v.assign(v0)
    assert np.isclose(np.dot(g, d), (hi_y - lo_y) / (2 * eps), rtol=1e-3, atol=1e-6)
    d2 = np.array([-0.4, 0.1, 0.9])
    h = hvp(tf.constant(d2)).numpy()
    assert np.isclose(np.dot(h, d), np.dot((hi_g - lo_g) / (2 * eps), d2), rtol=1e-3, atol=1e-5)


@pytest.mark.parametrize("result", ["abc", [1], object(), None, 1, "tensor_str",
                                    "tensor_int", "tensor_float"])
@pytest.mark.parametrize("mode", ["eager", "graph"])
def test_while_loop_cond_that_is_not_boolean_raises_instead_of_looping(result, mode):
  value = {"tensor_str": tf.constant("s"), "tensor_int": tf.constant(1),
           "tensor_float": tf.constant(1.0)}.get(result, result) \
      if isinstance(result, str) else result
  loop = lambda: tf.while_loop(lambda i: value, lambda i: i + 1, [0])  # noqa: E731
  with pytest.raises((TypeError, ValueError)):
    loop() if mode == "eager" else tf.function(loop)()
