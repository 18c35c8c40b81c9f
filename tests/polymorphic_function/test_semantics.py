"""tf.function semantics: side effects, tf.print, py_function, variables,
automatic control dependencies, closures, nesting, run_functions_eagerly,
gradients through and inside functions, and errors raised from graphs."""
import sys

import numpy as np
import pytest

import tensorlet as tf


def traces(f):
  return f.experimental_get_tracing_count()


# ------------------------------------------------------------ side effects

def test_python_side_effects_only_while_tracing(capsys):
  @tf.function
  def f(x):
    print("Traced with", x)
    tf.print("Executed with", x)
  f(1)
  f(1)
  f(2)
  captured = capsys.readouterr()
  assert captured.out == "Traced with 1\nTraced with 2\n"
  assert captured.err == "Executed with 1\nExecuted with 1\nExecuted with 2\n"


def test_tf_print_to_stdout_runs_every_call(capsys):
  @tf.function
  def f(x):
    tf.print("x =", x, output_stream=sys.stdout)
    return x + 1
  for v in [1, 2, 3]:
    f(tf.constant(v))
  assert capsys.readouterr().out == "x = 1\nx = 2\nx = 3\n"
  assert traces(f) == 1


def test_python_list_mutation_happens_once():
  seen = []

  @tf.function
  def f(x):
    seen.append(1)
    return x * 2
  for _ in range(3):
    f(tf.constant(1.0))
  assert seen == [1]


# ------------------------------------------------ py_function / numpy_function

def test_py_function_values_and_numpy_function():
  calls = []

  def py(x):
    calls.append("py")
    return x * 2

  def npf(x):
    calls.append("np")
    assert isinstance(x, np.float32)  # TF 2.21: a 0-d input is a NumPy scalar in a graph
    return (x + 1).astype(np.float32)

  @tf.function
  def f(x):
    a = tf.py_function(py, [x], tf.float32)
    b = tf.numpy_function(npf, [x], tf.float32)
    return a + b
  for v in [1.0, 2.0]:
    assert f(tf.constant(v)).numpy() == v * 2 + v + 1
  assert calls == ["py", "np", "py", "np"]
  assert traces(f) == 1


def test_py_function_is_differentiable():
  def cube(x):
    return x * x * x

  @tf.function
  def f(x):
    return tf.py_function(cube, [x], tf.float32)
  x = tf.constant(2.0)
  with tf.GradientTape() as tape:
    tape.watch(x)
    y = f(x)
  assert y.numpy() == 8.0
  assert tape.gradient(y, x).numpy() == pytest.approx(12.0)
  with tf.GradientTape() as tape:       # eagerly as well
    tape.watch(x)
    y = tf.py_function(cube, [x], tf.float32)
  assert tape.gradient(y, x).numpy() == pytest.approx(12.0)


# --------------------------------------------------------------- variables

# Seed 003's four variable examples (a variable created on every call, assign_add
# on an outer variable, obj.v created once, initializers depending on the
# argument) and its py_function / iterator examples are asserted with their
# printed output in tests/seeds/test_seed003_function.py; these go further.

def test_variables_created_in_a_module_method_on_first_call():
  class Dense(tf.Module):
    def __init__(self):
      super().__init__()
      self.w = None

    @tf.function
    def __call__(self, x):
      if self.w is None:
        self.w = tf.Variable(tf.ones([x.shape[-1], 2]))
      return tf.matmul(x, self.w)
  d = Dense()
  assert d(tf.ones([1, 3])).numpy().tolist() == [[3.0, 3.0]]
  assert d(tf.ones([4, 3])).shape == [4, 2]
  assert len(d.trainable_variables) == 1


def test_new_variable_on_a_retrace_raises():
  made = []

  @tf.function
  def f(x):
    made.append(tf.Variable(x))
    return made[-1].read_value()
  with pytest.raises(ValueError):
    f(tf.constant(1.0))


def test_variable_reads_see_assignments_in_program_order():
  v = tf.Variable(1.0)

  @tf.function
  def f():
    a = v.read_value()
    v.assign(10.0)
    b = v.read_value()
    v.assign_add(5.0)
    c = v.read_value()
    return a, b, c
  assert [t.numpy() for t in f()] == [1.0, 10.0, 15.0]
  assert [t.numpy() for t in f()] == [15.0, 10.0, 15.0]


def test_returned_variable_reads_are_snapshots():
  v = tf.Variable([1.0, 2.0])

  @tf.function
  def f():
    return v.read_value()
  r = f()
  v.assign([5.0, 6.0])
  v.assign_add([1.0, 1.0])
  assert r.numpy().tolist() == [1.0, 2.0]
  assert f().numpy().tolist() == [6.0, 7.0]


# ------------------------------------------------ automatic control dependencies

def test_automatic_control_dependencies():
  a = tf.Variable(1.0)
  b = tf.Variable(2.0)

  @tf.function
  def f(x, y):
    a.assign(y * b)
    b.assign_add(x * a)
    return a + b
  assert f(1.0, 2.0).numpy() == 10.0
  assert a.numpy() == 4.0 and b.numpy() == 6.0


def test_stateful_ops_keep_program_order_even_if_unused(capsys):
  v = tf.Variable(0)

  @tf.function
  def f():
    v.assign_add(1)
    tf.print("after one:", v, output_stream=sys.stdout)
    v.assign_add(10)
    tf.print("after two:", v, output_stream=sys.stdout)
  f()
  f()
  assert capsys.readouterr().out == ("after one: 1\nafter two: 11\n"
                                     "after one: 12\nafter two: 22\n")


# ---------------------------------------------------------------- closures

def test_closures_capture_eager_tensors_and_variables():
  c = tf.constant([1.0, 2.0])
  v = tf.Variable([10.0, 20.0])

  @tf.function
  def f(x):
    return x * c + v
  assert f(tf.constant(2.0)).numpy().tolist() == [12.0, 24.0]
  v.assign([0.0, 0.0])                 # an update outside is seen by the next call
  assert f(tf.constant(2.0)).numpy().tolist() == [2.0, 4.0]
  v.assign_add([1.0, 1.0])
  assert f(tf.constant(1.0)).numpy().tolist() == [2.0, 3.0]
  assert traces(f) == 1
  cf = f.get_concrete_function(tf.constant(2.0))
  assert len(cf.captured_inputs) == 2
  assert [w is v for w in cf.variables] == [True]


def test_closure_rebinding_a_python_tensor_is_not_seen():
  # A captured tensor is the value at trace time (TF documents the same).
  c = tf.constant(1.0)

  @tf.function
  def f():
    return c * 2
  assert f().numpy() == 2.0
  c = tf.constant(5.0)  # noqa: F841 - the point of the test
  assert f().numpy() == 2.0


# ------------------------------------------------------------------ nesting

@tf.function
def add(a, b):
  return a + b


@tf.function
def dense_layer(x, w, b):
  return add(tf.matmul(x, w), b)


def test_nested_functions():
  r = dense_layer(tf.ones([3, 2]), tf.ones([2, 2]), tf.ones([2]))
  np.testing.assert_array_equal(r.numpy(), [[3.0, 3.0]] * 3)
  assert r.dtype == tf.float32
  # The inner function is one call node (TF's PartitionedCall) holding its graph.
  g = dense_layer.get_concrete_function(tf.ones([3, 2]), tf.ones([2, 2]), tf.ones([2])).graph
  types = [op.type for op in g.get_operations()]
  assert "MatMul" in types and "AddV2" not in types and types.count("PartitionedCall") == 1
  call = next(op for op in g.get_operations() if op.type == "PartitionedCall")
  assert "AddV2" in [op.type for op in call.get_attr("f").get_operations()]
  assert "PartitionedCall" in str(g) and "AddV2(" in str(g)


def test_plain_python_helpers_are_traced_into_the_graph():
  def inner(x, y, b):
    return tf.matmul(x, y) + b

  @tf.function
  def outer(x):
    return inner(x, tf.constant([[2.0], [3.0]]), tf.constant(4.0))
  assert outer(tf.constant([[1.0, 2.0]])).numpy().tolist() == [[12.0]]


def test_nested_function_with_variables_and_gradients():
  w = tf.Variable(3.0)

  @tf.function
  def inner(x):
    return x * w

  @tf.function
  def outer(x):
    return inner(x) + inner(x * 2.0)
  x = tf.constant(1.0)
  with tf.GradientTape() as tape:
    y = outer(x)
  assert y.numpy() == 9.0
  assert tape.gradient(y, w).numpy() == 3.0


# ------------------------------------------------------ run_functions_eagerly

def test_run_functions_eagerly_bypasses_graphs(capsys):
  @tf.function
  def f(x):
    print("python runs")
    assert tf.executing_eagerly()
    return x.numpy() * 2   # only possible eagerly
  tf.config.run_functions_eagerly(True)
  try:
    assert tf.config.functions_run_eagerly()
    assert f(tf.constant(3.0)) == 6.0
    assert f(tf.constant(3.0)) == 6.0
  finally:
    tf.config.run_functions_eagerly(False)
  assert not tf.config.functions_run_eagerly()
  assert capsys.readouterr().out == "python runs\npython runs\n"
  assert traces(f) == 0


def test_executing_eagerly_is_false_while_tracing():
  seen = []

  @tf.function
  def f(x):
    seen.append(tf.executing_eagerly())
    return x
  f(tf.constant(1))
  assert seen == [False] and tf.executing_eagerly()


# ---------------------------------------------------------------- gradients

def test_gradient_of_a_function_under_a_tape():
  v = tf.Variable(1.0)
  with tf.GradientTape() as tape:
    result = add(v, 1.0)
  assert tape.gradient(result, v).numpy() == 1.0


def test_first_and_second_order_gradients_through_a_function():
  @tf.function
  def f(x):
    return x * x * x + tf.sin(x)
  x = tf.Variable(0.5)
  with tf.GradientTape() as outer:
    with tf.GradientTape() as inner:
      y = f(x)
    dy = inner.gradient(y, x)
  d2y = outer.gradient(dy, x)
  assert dy.numpy() == pytest.approx(3 * 0.25 + np.cos(0.5), rel=1e-5)
  assert d2y.numpy() == pytest.approx(6 * 0.5 - np.sin(0.5), rel=1e-5)


def test_gradient_through_function_with_matmul_and_reduction():
  w = tf.Variable([[1.0, 2.0], [3.0, 4.0]])

  @tf.function
  def loss(x):
    return tf.reduce_sum(tf.square(tf.matmul(x, w)))
  x = tf.constant([[1.0, 1.0]])
  with tf.GradientTape() as tape:
    l = loss(x)
  g = tape.gradient(l, w)
  # d/dw sum((xw)^2) = x^T 2xw; xw = [4, 6]
  np.testing.assert_allclose(g.numpy(), [[8.0, 12.0], [8.0, 12.0]])


def test_tape_inside_a_function_training_step():
  rng = np.random.RandomState(0)
  xs = tf.constant(rng.randn(16, 3).astype(np.float32))
  true_w = np.array([[1.0], [-2.0], [0.5]], np.float32)
  ys = tf.constant(xs.numpy() @ true_w + 0.3)
  w = tf.Variable(tf.zeros([3, 1]))
  b = tf.Variable(0.0)
  params = [w, b]

  @tf.function
  def train_batch(x_batch, y_batch, lr):
    with tf.GradientTape() as tape:
      f_loss = tf.reduce_mean(tf.square(tf.matmul(x_batch, w) + b - y_batch))
    grads = tape.gradient(f_loss, params)
    for p, g in zip(params, grads):
      p.assign_sub(lr * g)
    return f_loss

  def eager_step(wv, bv, lr):
    with tf.GradientTape() as tape:
      tape.watch([wv, bv])
      l = tf.reduce_mean(tf.square(tf.matmul(xs, wv) + bv - ys))
    gw, gb = tape.gradient(l, [wv, bv])
    return l, wv - lr * gw, bv - lr * gb

  ew, eb = tf.zeros([3, 1]), tf.constant(0.0)
  losses = []
  for _ in range(50):
    losses.append(train_batch(xs, ys, tf.constant(0.1)).numpy())
    el, ew, eb = eager_step(ew, eb, 0.1)
    assert losses[-1] == pytest.approx(el.numpy(), rel=1e-5, abs=1e-7)
  assert traces(train_batch) == 1
  assert losses[-1] < 0.05 * losses[0]
  np.testing.assert_allclose(w.numpy(), ew.numpy(), rtol=1e-5, atol=1e-6)


def test_function_returning_gradients_of_outer_tensors():
  @tf.function
  def grad_of_square(x):
    with tf.GradientTape() as tape:
      tape.watch(x)
      y = x * x
    return tape.gradient(y, x)
  assert grad_of_square(tf.constant(3.0)).numpy() == 6.0
  assert grad_of_square(tf.constant(4.0)).numpy() == 8.0
  assert traces(grad_of_square) == 1


# ---------------------------------------------------------------- errors

def test_runtime_errors_name_the_op_and_the_users_line():
  @tf.function(input_signature=[tf.TensorSpec([None, None], tf.float32),
                                tf.TensorSpec([None, None], tf.float32)])
  def mm(a, b):
    return tf.matmul(a, b)  # the line the error must point to
  assert mm(tf.ones([2, 3]), tf.ones([3, 2])).shape == [2, 2]
  with pytest.raises(tf.errors.InvalidArgumentError) as info:
    mm(tf.ones([2, 3]), tf.ones([2, 3]))
  msg = str(info.value)
  assert "MatMul" in msg
  assert f"{__file__}:" in msg
  with open(__file__) as fh:
    src = fh.read().splitlines()
  line = 1 + next(i for i, t in enumerate(src) if t.endswith("# the line the error must point to"))
  assert f"{__file__}:{line}" in msg


def test_graph_building_errors_are_raised_while_tracing():
  @tf.function
  def f(x):
    return tf.matmul(x, x)
  with pytest.raises((ValueError, tf.errors.InvalidArgumentError)):
    f(tf.ones([2, 3]))

  @tf.function
  def g(x, y):
    return x + y
  with pytest.raises((TypeError, tf.errors.InvalidArgumentError)):
    g(tf.constant(1), tf.constant(1.0))


def test_symbolic_tensors_refuse_numpy_and_bool():
  @tf.function
  def f(x):
    assert not hasattr(x, "numpy")  # as TF's SymbolicTensor: eager code tests this
    return x.numpy()
  with pytest.raises(AttributeError, match="has no attribute 'numpy'"):
    f(tf.constant(1.0))

  @tf.function(autograph=False)
  def g(x):
    if x > 0:       # without AutoGraph a tensor condition cannot become bool
      return x
    return -x
  with pytest.raises(TypeError, match="bool"):
    g(tf.constant(1.0))


def test_returning_a_graph_tensor_outside_fails_clearly():
  leaked = []

  @tf.function
  def f(x):
    y = x * 2
    leaked.append(y)
    return y
  f(tf.constant(1.0))
  # TF 2.21: TypeError "... is out of scope and cannot be used here" for any use in
  # an op, eagerly or in another function; no `numpy` attribute at all.
  with pytest.raises(TypeError, match="is out of scope and cannot be used here"):
    leaked[0] + 1
  with pytest.raises(TypeError, match="out of scope"):
    tf.reduce_sum(leaked[0])
  with pytest.raises(TypeError, match="out of scope"):
    tf.function(lambda: leaked[0] * 3)()
  with pytest.raises(AttributeError):
    leaked[0].numpy()
  assert leaked[0].shape == () and "mul" in leaked[0].name


# ------------------------------------------- variables as arguments (TF 2.21)

def test_variable_arguments_share_a_trace_by_spec():
  n = []

  @tf.function
  def f(x, y=None):
    n.append(1)
    return x + y if y is not None else x
  a, b, c = tf.Variable(1.0), tf.Variable(2.0), tf.Variable(3.0)
  sig = f.get_concrete_function(a, b).structured_input_signature
  assert repr(sig[0][0]) == ("VariableSpec(shape=(), dtype=tf.float32, trainable=True, "
                             "alias_id=0)")
  assert sig[0][1].alias_id == 1
  assert f.get_concrete_function(a, a).structured_input_signature[0][1].alias_id == 0
  assert len(n) == 2
  assert f(b, c).numpy() == 5.0 and f(c, c).numpy() == 6.0
  assert len(n) == 2          # (a, b) serves (b, c); (a, a) serves (c, c)
  cf = f.get_concrete_function(a, b)
  assert cf(b, c).numpy() == 5.0
  with pytest.raises(TypeError):
    cf(a, tf.constant(1.0))   # a tensor where the trace takes a variable
  with pytest.raises(tf.errors.InvalidArgumentError, match="expected to be a resource tensor"):
    f.get_concrete_function(a)(tf.constant(1.0))   # TF's flat-signature fallback fails so
  with pytest.raises(tf.errors.InvalidArgumentError):
    cf(tf.Variable(1), b)     # a variable of another dtype
  assert cf.variables == () and cf.captured_inputs == []


def test_variable_argument_writes_the_variable_passed():
  @tf.function
  def inc(v):
    v.assign_add(tf.ones_like(v))
    return v.read_value()
  a, b = tf.Variable([1.0, 2.0]), tf.Variable([3.0, 4.0])
  assert inc(a).numpy().tolist() == [2.0, 3.0]
  assert inc(b).numpy().tolist() == [4.0, 5.0]
  assert a.numpy().tolist() == [2.0, 3.0]
  assert inc.experimental_get_tracing_count() == 1


def test_gradients_through_variable_arguments():
  @tf.function
  def inner(v):
    with tf.GradientTape() as t:
      y = v * v
    return t.gradient(y, v)
  a, b = tf.Variable(1.0), tf.Variable(2.0)
  assert inner(a).numpy() == 2.0 and inner(b).numpy() == 4.0

  f = tf.function(lambda x, y: x * y)
  with tf.GradientTape() as t:
    y = f(a, b)
  ga, gb = t.gradient(y, [a, b])
  assert ga.numpy() == 2.0 and gb.numpy() == 1.0


def test_variable_trace_key_parts():
  f = tf.function(lambda v: v * 2)
  f(tf.Variable([1.0, 2.0]))
  f(tf.Variable([5.0, 6.0], trainable=False))   # trainable is part of the key
  f(tf.Variable([1.0, 2.0, 3.0]))               # so is the shape
  f(tf.Variable([1, 2]))                        # and the dtype
  f(tf.constant([1.0, 2.0]))                    # a tensor is another type
  assert f.experimental_get_tracing_count() == 5
  u = tf.Variable([1.0, 2.0], shape=tf.TensorShape(None))
  assert repr(f.get_concrete_function(u).structured_input_signature[0][0]) == (
      "VariableSpec(shape=<unknown>, dtype=tf.float32, trainable=True, alias_id=0)")


# ------------------------------------- structured_input_signature (TF 2.21)

def test_structured_input_signature_names_arguments():
  c = tf.constant(1.0)

  @tf.function
  def f(x, y, z=3, *args, w, **kw):
    return x + y
  args, kwargs = f.get_concrete_function(c, c, w=c).structured_input_signature
  assert args == (tf.TensorSpec([], tf.float32, name="x"),
                  tf.TensorSpec([], tf.float32, name="y"), 3)
  assert kwargs == {"w": tf.TensorSpec([], tf.float32, name="w")}
  args, _ = f.get_concrete_function(tf.TensorSpec([None], tf.float32),
                                    tf.TensorSpec([], tf.float32, name="yy"),
                                    w=c).structured_input_signature
  assert [s.name for s in args[:2]] == ["x", "yy"]   # a given name is kept

  g = tf.function(lambda x, *args, w, **kw: x)
  args, kwargs = g.get_concrete_function(c, c, [c], w=c, q=c,
                                         r={"a": c}).structured_input_signature
  assert [args[0].name, args[1].name, args[2][0].name] == ["x", "args_0", "args_1_0"]
  assert kwargs["q"].name == "q" and kwargs["r"]["a"].name == "r_a"

  h = tf.function(lambda a, b: a["k"] + b[0])
  args, _ = h.get_concrete_function({"k": c}, [c, 3]).structured_input_signature
  assert args == ({"k": tf.TensorSpec([], tf.float32, name="a_k")},
                  [tf.TensorSpec([], tf.float32, name="b_0"), 3])

  @tf.function(input_signature=[tf.TensorSpec([None], tf.float32),
                                tf.TensorSpec([None], tf.float32, name="bb")])
  def s(a, b):
    return a + b
  args, _ = s.get_concrete_function().structured_input_signature
  assert [a.name for a in args] == ["a", "bb"]


def test_concrete_function_binds_tensor_arguments_by_position_and_name():
  @tf.function
  def h(a, n, b):
    return a * n + b
  cf = h.get_concrete_function(tf.constant(1.0), 2, tf.constant(3.0))
  assert cf(tf.constant(1.0), 2, tf.constant(5.0)).numpy() == 7.0
  assert cf(tf.constant(1.0), b=tf.constant(5.0)).numpy() == 7.0
  assert cf(a=tf.constant(1.0), b=tf.constant(5.0)).numpy() == 7.0
  # TF's flat-signature fallback: positions count the tensor arguments only.
  assert cf(tf.constant(1.0), tf.constant(5.0)).numpy() == 7.0
  with pytest.raises(TypeError, match="Literal"):
    cf(tf.constant(1.0), 3, tf.constant(5.0))


def test_python_and_tensor_control_flow_under_a_tape_inside_a_function():
  # Values from TF 2.21: Python `if`/`for`/`while` on Python values follow the
  # branch taken while tracing; on tensors AutoGraph makes cond/while, and both
  # differentiate along the path that ran.
  @tf.function
  def f(x, training, n):
    with tf.GradientTape() as t:
      t.watch(x)
      y = x * x if training else x
      for _ in range(n):
        y = y * x
    return t.gradient(y, x)
  assert f(tf.constant(2.0), True, 2).numpy() == 32.0
  assert f(tf.constant(2.0), False, 0).numpy() == 1.0

  @tf.function
  def g(x):
    with tf.GradientTape() as t:
      t.watch(x)
      if x > 1:
        y = x * x
      else:
        y = -x
      for _ in tf.range(3):
        y = y + x
    return t.gradient(y, x)
  assert g(tf.constant(2.0)).numpy() == 7.0 and g(tf.constant(0.0)).numpy() == 2.0

  v = tf.Variable(3.0)

  @tf.function
  def h(flag):
    with tf.GradientTape() as t:
      y = v * 1.0
      if flag:
        y = y * v
      i = 0
      while i < 2:
        y = y + v
        i += 1
    return t.gradient(y, v)
  assert h(True).numpy() == 8.0 and h(False).numpy() == 3.0

  @tf.function
  def m(xs):
    with tf.GradientTape() as t:
      t.watch(xs)
      s = 0.0
      for x in xs:
        s += x * x
    return t.gradient(s, xs)
  assert m(tf.constant([1.0, 2.0, 3.0])).numpy().tolist() == [2.0, 4.0, 6.0]


def test_python_return_values_become_tensors_as_tf():
  @tf.function
  def r():
    return 1, 2.5, True, "x", None, [1, 2], {"a": 3}, np.float32(2)
  out = r()
  assert [o.dtype.name for o in out[:4]] == ["int32", "float32", "bool", "string"]
  assert out[4] is None and [t.numpy() for t in out[5]] == [1, 2]
  assert out[6]["a"].dtype == tf.int32 and out[7].dtype == tf.float32
  one = tf.function(lambda: 1)()
  assert one.dtype == tf.int32 and type(one.numpy()) is np.int32


def test_named_tensor_spec_names_its_placeholder():
  h = tf.function(lambda x, y: x)
  cf = h.get_concrete_function(tf.TensorSpec(None, tf.float32, name="zz"),
                               tf.TensorSpec(None, tf.float32))
  assert [t.name for t in cf.inputs] == ["zz:0", "y:0"]   # as TF 2.21
