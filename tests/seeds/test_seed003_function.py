"""Seed 003 (TF 2.0 beta tf.function tutorial, Japanese).

Tensor values print in TF 2.x's newest format (`<tf.Tensor: shape=...>`, no
`id=` as TF 2.0 beta printed). Its AutoGraph examples are in
test_seed003_autograph.py, its tf.data ones in the tf.data seed tests.
"""
import contextlib
import sys

import tensorlet as tf


# Some helper code to demonstrate the kinds of errors you might encounter.
@contextlib.contextmanager
def assert_raises(error_class):
  try:
    yield
  except error_class as e:
    print('Caught expected exception \n  {}: {}'.format(error_class, e))
  except Exception as e:
    print('Got unexpected exception \n  {}: {}'.format(type(e), e))
  else:
    raise Exception('Expected {} to be raised but no error was raised!'.format(
        error_class))


# A function is like an op
@tf.function
def add(a, b):
  return a + b


def test_a_function_is_like_an_op():
  assert repr(add(tf.ones([2, 2]), tf.ones([2, 2]))) == (  # [[2., 2.], [2., 2.]]
      "<tf.Tensor: shape=(2, 2), dtype=float32, numpy=\n"
      "array([[2., 2.],\n"
      "       [2., 2.]], dtype=float32)>")


def test_functions_have_gradients():
  v = tf.Variable(1.0)
  with tf.GradientTape() as tape:
    result = add(v, 1.0)
  assert repr(tape.gradient(result, v)) == "<tf.Tensor: shape=(), dtype=float32, numpy=1.0>"


def test_functions_inside_functions():
  @tf.function
  def dense_layer(x, w, b):
    return add(tf.matmul(x, w), b)

  assert repr(dense_layer(tf.ones([3, 2]), tf.ones([2, 2]), tf.ones([2]))) == (
      "<tf.Tensor: shape=(3, 2), dtype=float32, numpy=\n"
      "array([[3., 3.],\n"
      "       [3., 3.],\n"
      "       [3., 3.]], dtype=float32)>")


# Functions are polymorphic
@tf.function
def double(a):
  print("Tracing with", a)
  return a + a


def test_functions_are_polymorphic(capsys):
  print(double(tf.constant(1)))
  print()
  print(double(tf.constant(1.1)))
  print()
  print(double(tf.constant("a")))
  print()
  assert capsys.readouterr().out == (
      'Tracing with Tensor("a:0", shape=(), dtype=int32)\n'
      'tf.Tensor(2, shape=(), dtype=int32)\n'
      '\n'
      'Tracing with Tensor("a:0", shape=(), dtype=float32)\n'
      'tf.Tensor(2.2, shape=(), dtype=float32)\n'
      '\n'
      'Tracing with Tensor("a:0", shape=(), dtype=string)\n'
      "tf.Tensor(b'aa', shape=(), dtype=string)\n"
      '\n')


def test_concrete_trace(capsys):
  print("Obtaining concrete trace")
  double_strings = double.get_concrete_function(tf.TensorSpec(shape=None, dtype=tf.string))
  print("Executing traced function")
  print(double_strings(tf.constant("a")))
  print(double_strings(a=tf.constant("b")))
  print("Using a concrete trace with incompatible types will throw an error")
  with assert_raises(tf.errors.InvalidArgumentError):
    double_strings(tf.constant(1))
  out = capsys.readouterr().out.splitlines()
  assert out[:6] == [
      "Obtaining concrete trace",
      'Tracing with Tensor("a:0", dtype=string)',
      "Executing traced function",
      "tf.Tensor(b'aa', shape=(), dtype=string)",
      "tf.Tensor(b'bb', shape=(), dtype=string)",
      "Using a concrete trace with incompatible types will throw an error",
  ]
  assert out[6] == "Caught expected exception "
  assert out[7].startswith("  <class '") and "InvalidArgumentError'>: cannot compute " \
      "__inference_double" in out[7]
  assert ("as input #0(zero-based) was expected to be a string tensor but is a int32 tensor "
          "[Op:__inference_double") in out[7]


def test_input_signature(capsys):
  @tf.function(input_signature=(tf.TensorSpec(shape=[None], dtype=tf.int32),))
  def next_collatz(x):
    print("Tracing with", x)
    return tf.where(tf.equal(x % 2, 0), x // 2, 3 * x + 1)

  print(next_collatz(tf.constant([1, 2])))
  # We specified a 1-D tensor in the input signature, so this should fail.
  with assert_raises(ValueError):
    next_collatz(tf.constant([[1, 2], [3, 4]]))
  out = capsys.readouterr().out.splitlines()
  assert out[:3] == ['Tracing with Tensor("x:0", shape=(None,), dtype=int32)',
                     'tf.Tensor([4 1], shape=(2,), dtype=int32)',
                     "Caught expected exception "]
  # TF 2.0 raised ValueError ("Python inputs incompatible with input_signature");
  # TF 2.x raises TypeError: the error is both.
  assert out[3].startswith("  <class 'ValueError'>: ")
  assert "TensorSpec(shape=(None,), dtype=tf.int32, name=None)" in out[3]


def test_python_or_tensor_args(capsys):
  def train_one_step():
    pass

  @tf.function
  def train(num_steps):
    print("Tracing with num_steps = {}".format(num_steps))
    # NOTE: the seed's `for _ in tf.range(num_steps): train_one_step()` is an
    # AutoGraph loop over a step that does nothing.
    train_one_step()

  train(num_steps=10)
  train(num_steps=20)
  assert capsys.readouterr().out == ("Tracing with num_steps = 10\n"
                                     "Tracing with num_steps = 20\n")
  train(num_steps=tf.constant(10))
  train(num_steps=tf.constant(20))
  assert capsys.readouterr().out == \
      'Tracing with num_steps = Tensor("num_steps:0", shape=(), dtype=int32)\n'


def test_side_effects(capsys):
  @tf.function
  def f(x):
    print("Traced with", x)
    tf.print("Executed with", x, output_stream=sys.stdout)

  f(1)
  f(1)
  f(2)
  assert capsys.readouterr().out == ("Traced with 1\n"
                                     "Executed with 1\n"
                                     "Executed with 1\n"
                                     "Traced with 2\n"
                                     "Executed with 2\n")


def test_py_function_exit_hatch(capsys):
  external_list = []

  def side_effect(x):
    print('Python side effect')
    external_list.append(x)

  @tf.function
  def f(x):
    tf.py_function(side_effect, inp=[x], Tout=[])

  f(1)
  f(1)
  f(1)
  assert len(external_list) == 3
  # .numpy() call required because py_function casts 1 to tf.constant(1)
  assert external_list[0].numpy() == 1
  assert capsys.readouterr().out == "Python side effect\n" * 3


def test_python_state(capsys):
  external_var = tf.Variable(0)

  @tf.function
  def buggy_consume_next(iterator):
    external_var.assign_add(next(iterator))
    tf.print("Value of external_var:", external_var, output_stream=sys.stdout)

  iterator = iter([0, 1, 2, 3])
  buggy_consume_next(iterator)
  # This reuses the first value from the iterator, rather than consuming the next value.
  buggy_consume_next(iterator)
  buggy_consume_next(iterator)
  assert capsys.readouterr().out == "Value of external_var: 0\n" * 3


def measure_graph_size(f, *args):
  g = f.get_concrete_function(*args).graph
  print("{}({}) contains {} nodes in its graph".format(
      f.__name__, ', '.join(map(str, args)), len(g.as_graph_def().node)))


def test_python_lists_unroll_into_the_graph(capsys):
  @tf.function
  def train(dataset):
    loss = tf.constant(0)
    for x, y in dataset:
      loss += tf.abs(y - x)  # Some dummy computation.
    return loss

  small_data = [(1, 1)] * 2
  big_data = [(1, 1)] * 10
  measure_graph_size(train, small_data)
  measure_graph_size(train, big_data)
  assert capsys.readouterr().out == (
      "train([(1, 1), (1, 1)]) contains 8 nodes in its graph\n"
      "train([(1, 1), (1, 1), (1, 1), (1, 1), (1, 1), (1, 1), (1, 1), (1, 1), (1, 1), "
      "(1, 1)]) contains 32 nodes in its graph\n")
  assert train(small_data).numpy() == 0


def test_automatic_control_dependencies():
  a = tf.Variable(1.0)
  b = tf.Variable(2.0)

  @tf.function
  def f(x, y):
    a.assign(y * b)
    b.assign_add(x * a)
    return a + b

  assert repr(f(1.0, 2.0)) == "<tf.Tensor: shape=(), dtype=float32, numpy=10.0>"  # 10.0


def test_variable_created_on_every_call(capsys):
  @tf.function
  def f(x):
    v = tf.Variable(1.0)
    v.assign_add(x)
    return v

  with assert_raises(ValueError):
    f(1.0)
  out = capsys.readouterr().out
  assert out.startswith("Caught expected exception \n  <class 'ValueError'>: ")
  # NOTE: the seed showed TF 2.0's text; this is TF 2.21's, with its user-code block
  assert "tf.function only supports singleton tf.Variables created on the first call." in out
  assert "in user code:" in out and "v = tf.Variable(1.0)" in out


def test_non_ambiguous_variable_use(capsys):
  # Non-ambiguous code is ok though
  v = tf.Variable(1.0)

  @tf.function
  def f(x):
    return v.assign_add(x)

  print(f(1.0))  # 2.0
  print(f(2.0))  # 4.0
  assert capsys.readouterr().out == ("tf.Tensor(2.0, shape=(), dtype=float32)\n"
                                     "tf.Tensor(4.0, shape=(), dtype=float32)\n")


def test_variables_created_only_the_first_time(capsys):
  # You can also create variables inside a tf.function as long as we can prove
  # that those variables are created only the first time the function is executed.
  class C:
    pass
  obj = C()
  obj.v = None

  @tf.function
  def g(x):
    if obj.v is None:
      obj.v = tf.Variable(1.0)
    return obj.v.assign_add(x)

  print(g(1.0))  # 2.0
  print(g(2.0))  # 4.0
  assert capsys.readouterr().out == ("tf.Tensor(2.0, shape=(), dtype=float32)\n"
                                     "tf.Tensor(4.0, shape=(), dtype=float32)\n")


def test_variable_initializers_depend_on_arguments(capsys):
  # Variable initializers can depend on function arguments and on values of other
  # variables. We can figure out the right initialization order using the same
  # method we use to generate control dependencies.
  state = []

  @tf.function
  def fn(x):
    if not state:
      state.append(tf.Variable(2.0 * x))
      state.append(tf.Variable(state[0] * 3.0))
    return state[0] * x * state[1]

  print(fn(tf.constant(1.0)))
  print(fn(tf.constant(3.0)))
  assert capsys.readouterr().out == ("tf.Tensor(12.0, shape=(), dtype=float32)\n"
                                     "tf.Tensor(36.0, shape=(), dtype=float32)\n")
