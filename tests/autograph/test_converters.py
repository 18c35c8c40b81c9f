"""AutoGraph converters: a converted function gives exactly what the Python
function gives on Python values (AutoGraph's assertTransformedEquivalent), and
on tensors a tf.function (AutoGraph on) gives what eager execution gives.
Python values keep Python semantics (loops over them unroll, an `if` on a
Python bool traces one branch); tensors get graph control flow."""
import numpy as np
import pytest

import tensorlet as tf
from tensorlet.autograph import convert


def values(x):
  return tf.nest.map_structure(lambda t: np.asarray(t).tolist() if isinstance(t, tf.Tensor)
                               else t, x)


def check(f, *cases):
  """converted(f)(*args) == f(*args) on Python args (same value and type); on
  tensor args the tf.function equals eager execution."""
  conv = tf.autograph.to_graph(f)
  graph = tf.function(f)
  for args in cases:
    args = args if isinstance(args, tuple) else (args,)
    want = f(*args)
    got = conv(*args)
    assert got == want and type(got) is type(want), (args, got, want)
    tensors = [tf.constant(a) for a in args]
    eager = values(f(*tensors))
    assert values(graph(*tensors)) == eager, (args, eager)
    assert values(conv(*tensors)) == eager  # the converted function run eagerly
  return graph


def n_nodes(f, *args):
  return len(f.get_concrete_function(*args).graph.as_graph_def().node)


def op_types(f, *args):
  return {n.op for n in f.get_concrete_function(*args).graph.as_graph_def().node}


# --------------------------------------------------------------------- if

def sign(x):
  if x > 0:
    r = 1
  elif x < 0:
    r = -1
  else:
    r = 0
  return r


def nested_ifs(x, y):
  if x > 0:
    if y > 0:
      z = x + y
    else:
      z = x - y
  else:
    if y > x:
      z = y * 2
    else:
      z = x * 3
      z = z + 1
  return z


def if_without_else(x):
  y = x
  if x < 0:
    y = -x
    x = 0
  return y * 10 + x


def test_if_elif_else():
  g = check(sign, 5, -5, 0)
  assert op_types(g, tf.constant(1)) & {"If", "StatelessIf"}


def test_nested_ifs_and_if_without_else():
  check(nested_ifs, (1, 2), (1, -2), (-1, 2), (-3, -5))
  check(if_without_else, 4, -4)


def test_if_on_python_bool_traces_one_branch():
  traced = []

  @tf.function
  def f(x, flag):
    if flag:
      traced.append("then")
      x = x + 1
    else:
      traced.append("else")
      x = x - 1
    return x
  assert int(f(tf.constant(1), True)) == 2
  assert traced == ["then"]
  assert not op_types(f, tf.constant(1), True) & {"If", "StatelessIf"}
  traced.clear()
  assert int(f(tf.constant(1), tf.constant(False))) == 0
  assert sorted(traced) == ["else", "then"]  # a tensor condition traces both


def test_if_on_tensor_with_python_values_in_branches():
  def f(x):
    if x > 0:
      y = 1
    else:
      y = 2.5
    return y
  g = tf.function(f)
  with pytest.raises(TypeError, match="'y' has dtype int32 in the main branch, but dtype "
                     "float32 in the else branch"):
    g(tf.constant(1))

  def same(x):
    if x > 0:
      y = 1
    else:
      y = 2
    return y
  g = tf.function(same)
  assert int(g(tf.constant(1))) == 1 and int(g(tf.constant(-1))) == 2
  assert g(tf.constant(1)).dtype == tf.int32


def test_variable_defined_in_one_branch_only():
  @tf.function
  def used_later(x):
    if x > 0:
      y = x
    return y

  @tf.function
  def unused_later(x):
    if x > 0:
      tmp = x * 2
      x = tmp + 1
    return x
  with pytest.raises(ValueError, match=r"must also be initialized in the else branch: \('y',\)"):
    used_later(tf.constant(1))
  assert int(unused_later(tf.constant(1))) == 3 and int(unused_later(tf.constant(-1))) == -1


# ------------------------------------------------------------------- while

def collatz_steps(n):
  k = 0
  while n > 1:
    if n % 2 == 0:
      n = n // 2
    else:
      n = 3 * n + 1
    k += 1
  return k


def while_else(n):
  s = 0
  while n > 0:
    s += n
    n -= 1
  else:
    s = -s
  return s


def test_while():
  g = check(collatz_steps, 1, 6, 27)
  assert "While" in op_types(g, tf.constant(6))
  check(while_else, 0, 4)


def test_while_on_python_values_unrolls():
  @tf.function
  def f(x, n):
    while n > 0:
      x = x * 2
      n -= 1
    return x
  assert int(f(tf.constant(1), 3)) == 8
  assert "While" not in op_types(f, tf.constant(1), 3)
  assert n_nodes(f, tf.constant(1), 6) > n_nodes(f, tf.constant(1), 3)


# --------------------------------------------------------------------- for

def for_range(n):
  s = 0
  for i in range(n):
    s += i * i
  return s


def for_range_args(a, b):
  s = 0
  for i in range(a, b, 2):
    s = s * 2 + i
  return s


def for_over_tensor(x):
  s = 0.0
  for row in x:
    s = s + row[0] * row[1]
  return s


def for_else(n):
  s = 1
  for i in range(n):
    s += i
  else:
    s = s * 10
  return s


def test_for_over_range():
  g = check(for_range, 0, 1, 5)
  assert "While" in op_types(g, tf.constant(5))  # range of a tensor: tf.range
  check(for_range_args, (1, 8), (2, 3))
  check(for_else, 0, 3)


def test_for_over_tf_range_and_tensors():
  @tf.function
  def f(n):
    s = tf.constant(0)
    for i in tf.range(n):
      s += i
    return s
  assert int(f(tf.constant(5))) == 10 and int(f(tf.constant(0))) == 0
  assert "While" in op_types(f, tf.constant(5))
  x = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], np.float32)
  g = tf.function(for_over_tensor)
  assert float(g(tf.constant(x))) == float(for_over_tensor(x)) == 44.0
  assert "While" in op_types(g, tf.constant(x))
  assert float(tf.autograph.to_graph(for_over_tensor)(x)) == 44.0


def test_for_over_python_list_and_range_unrolls():
  @tf.function
  def f(x, n):
    for w in [1, 2, 3]:
      x = x * w
    for i in range(n):
      x = x + i
    return x
  assert int(f(tf.constant(1), 4)) == 6 + 6
  assert "While" not in op_types(f, tf.constant(1), 4)
  assert n_nodes(f, tf.constant(1), 8) > n_nodes(f, tf.constant(1), 4)


def test_for_over_a_tensor_with_unknown_length():
  @tf.function(input_signature=[tf.TensorSpec([None], tf.int32)])
  def f(x):
    s = 0
    for v in x:
      s += v
    return s
  assert int(f(tf.constant([1, 2, 3]))) == 6 and int(f(tf.zeros([0], tf.int32))) == 0


def test_for_target_unpacking_and_enumerate():
  def f(pairs):
    s = 0
    for i, (a, b) in enumerate(pairs):
      s += i * a + b
    return s
  assert convert(f)([(1, 2), (3, 4)]) == f([(1, 2), (3, 4)]) == 9


def test_loop_over_python_values_with_tensor_state():
  @tf.function
  def f(x):
    ys = []
    for i in range(3):
      ys.append(x * i)
    return tf.stack(ys)
  assert f(tf.constant(2)).numpy().tolist() == [0, 2, 4]


# --------------------------------------------------- break / continue / return

def for_break(n):
  s = 0
  for i in range(n):
    if i * i > 10:
      break
    s += i
  return s


def for_continue(n):
  s = 0
  for i in range(n):
    if i % 3 == 0:
      continue
    s += i
  return s


def while_break_continue(n):
  i = 0
  s = 0
  while i < n:
    i += 1
    if i % 2 == 0:
      continue
    if s > 20:
      break
    s += i
  return s


def nested_loops_break(n):
  s = 0
  for i in range(n):
    for j in range(n):
      if j > i:
        break
      s += j
  return s


def break_else(n):
  for i in range(n):
    if i == 3:
      break
  else:
    return -1
  return i


def test_break_and_continue():
  check(for_break, 0, 3, 10)
  check(for_continue, 0, 10)
  check(while_break_continue, 0, 5, 30)
  check(nested_loops_break, 0, 4)
  assert convert(break_else)(2) == -1 and convert(break_else)(5) == 3


def early_return(x):
  if x > 0:
    return x
  return -x


def return_in_both_branches(x):
  if x > 10:
    return x * 2
  elif x > 0:
    return x + 100
  else:
    return 0


def return_in_loop(n):
  i = 0
  while i < n:
    if i * i >= 20:
      return i
    i += 1
  return -1


def return_in_for(xs):
  for x in xs:
    if x < 0:
      return x
  return 0


def test_return_in_branches_and_loops():
  g = check(early_return, 3, -3, 0)
  assert op_types(g, tf.constant(3)) & {"If", "StatelessIf"}
  check(return_in_both_branches, 20, 5, -5)
  assert convert(return_in_loop)(3) == -1 and convert(return_in_loop)(10) == 5
  assert convert(return_in_for)([1, -2, -3]) == -2 and convert(return_in_for)([1, 2]) == 0
  # TF cannot return from inside a loop over tensors, and says so
  msg = "a return statement cannot be placed inside this TensorFlow loop"
  with pytest.raises(NotImplementedError, match=msg):
    tf.function(return_in_loop)(tf.constant(10))
  with pytest.raises(NotImplementedError, match=msg):
    tf.function(return_in_for)(tf.constant([1, 5, -4, -7]))


def test_break_on_tensor_in_tensor_loop():
  @tf.function
  def f(x):
    s = 0
    for v in x:
      if v < 0:
        break
      s += v
    return s
  assert int(f(tf.constant([1, 2, -1, 5]))) == 3 and int(f(tf.constant([1, 2]))) == 3


def test_tensor_break_in_python_loop_is_an_error():
  @tf.function
  def f(x):
    for i in range(3):
      if tf.equal(x, i):
        break
    return x
  # TF 2.21's NotImplementedError (TF 2.0 raised the bool TypeError)
  with pytest.raises(NotImplementedError, match="not supported in Python for loops"):
    f(tf.constant(1))


# ---------------------------------------------------------- and / or / not

def logic(a, b, c):
  return (a and b) or (not c), a or b and c, not (a and not b)


def test_and_or_not_values():
  cases = [(x, y, z) for x in (0, 1, 2) for y in (0, 3) for z in (0, 1)]
  conv = convert(logic)
  for c in cases:
    assert conv(*c) == logic(*c) and [type(v) for v in conv(*c)] == [type(v) for v in logic(*c)]
  assert conv("", [1], None) == logic("", [1], None)


def test_and_or_short_circuit_on_python_values():
  calls = []

  def side(v):
    calls.append(v)
    return v

  def f(a):
    return a and side("and"), a or side("or")
  assert convert(f)(0) == (0, "or") and calls == ["or"]
  calls.clear()
  assert convert(f)(5) == ("and", 5) and calls == ["and"]


def test_and_or_not_on_tensors():
  def f(x, y):
    return x > 0 and y > 0, x > 0 or y > 0, not x > 0

  g = tf.function(f)
  for x, y in [(1, 1), (1, -1), (-1, 1), (-1, -1)]:
    assert values(g(tf.constant(x), tf.constant(y))) == \
        (x > 0 and y > 0, x > 0 or y > 0, not x > 0)


def test_and_or_short_circuit_on_tensors_at_run_time(capsys):
  def loud(x):
    tf.print("evaluated")
    return x > 5

  @tf.function
  def f(x):
    a = x > 0 and loud(x)
    b = x > 0 or loud(x)
    return a, b
  assert values(f(tf.constant(-1))) == (False, False)
  assert capsys.readouterr().err == "evaluated\n"  # only `or` needed the second operand
  assert values(f(tf.constant(10))) == (True, True)
  assert capsys.readouterr().err == "evaluated\n"  # only `and` did


# ---------------------------------------------------- conditional expressions

def ternary(x):
  return x * 2 if x > 0 else (0 if x == 0 else -x)


def test_conditional_expressions():
  g = check(ternary, 3, 0, -4)
  assert op_types(g, tf.constant(1)) & {"If", "StatelessIf"}


def test_conditional_expression_evaluates_only_the_chosen_value():
  def f(x, d):
    return d[x] if x in d else None
  assert convert(f)(1, {1: "a"}) == "a" and convert(f)(2, {1: "a"}) is None


# ------------------------------------------------------------------ assert

def test_assert_on_tensors_becomes_an_assert_op():
  @tf.function
  def f(x):
    assert x > 0, "x must be positive"
    return x + 1
  assert int(f(tf.constant(1))) == 2
  assert "Assert" in op_types(f, tf.constant(1))
  with pytest.raises(tf.errors.InvalidArgumentError, match="x must be positive"):
    f(tf.constant(-1))
  assert f.experimental_get_tracing_count() == 1


def test_assert_on_python_values_and_eager_tensors():
  def f(x):
    assert x > 0, "positive please"
    return x
  conv = convert(f)
  assert conv(1) == 1
  with pytest.raises(AssertionError, match="positive please"):
    conv(-1)
  with pytest.raises(tf.errors.InvalidArgumentError, match="positive please"):
    conv(tf.constant(-1))


# ---------------------------------------------------- recursive conversion

def helper_abs(x):
  if x < 0:
    x = -x
  return x


def calls_helper(x, y):
  return helper_abs(x) + helper_abs(y)


class Scaler:
  def __init__(self, k):
    self.k = k

  def scale(self, x):
    while x < self.k:
      x = x * 2
    return x

  def __call__(self, x):
    if x > self.k:
      return x - self.k
    return self.scale(x)


def test_called_user_functions_are_converted():
  g = check(calls_helper, (1, -2), (-3, 4))
  assert op_types(g, tf.constant(1), tf.constant(1)) & {"If", "StatelessIf"}


def test_methods_and_callable_objects_are_converted():
  s = Scaler(10)

  def use(x):
    return s(x) + s.scale(x)
  check(use, 3, 30)
  assert int(tf.function(s.scale)(tf.constant(3))) == 12
  assert int(tf.function(s)(tf.constant(3))) == 12 and int(tf.function(s)(tf.constant(13))) == 3


def test_nested_function_definitions_and_closures():
  def outer(x):
    k = 3

    def inner(y):
      if y > k:
        return y - k
      return y + k
    total = 0
    for i in range(2):
      total += inner(x + i)
    return total
  check(outer, 1, 10)


def test_generators_run_as_written():
  def gen(n):
    for i in range(n):
      yield i * 2

  @tf.function
  def f(x):
    for v in gen(3):
      x += v
    return x
  assert int(f(tf.constant(1))) == 7


def test_recursion_through_python_values():
  def fact(n):
    if n <= 1:
      return 1
    return n * fact(n - 1)
  assert convert(fact)(5) == 120
  assert int(tf.function(lambda x: fact(4) * x)(tf.constant(2))) == 48


def test_global_and_nonlocal_names():
  counter = [0]

  def f(x):
    nonlocal_counter = counter
    if x > 0:
      nonlocal_counter[0] += 1
    return x
  convert(f)(3)
  assert counter == [1]

  def g():
    n = 0

    def bump(x):
      nonlocal n
      if x > 0:
        n += x
      return n
    bump(2)
    bump(-1)
    return bump(3)
  assert convert(g)() == g() == 5


# ------------------------------------------------------- opting out of it

@tf.autograph.experimental.do_not_convert
def unconverted_abs(x):
  if x < 0:
    x = -x
  return x


def test_do_not_convert():
  assert int(unconverted_abs(tf.constant(-3))) == 3  # eagerly it is plain Python
  with pytest.raises(TypeError, match="as a Python `bool` is not allowed"):
    tf.function(lambda x: unconverted_abs(x))(tf.constant(-3))

  def calls_it(x):
    return unconverted_abs(x) * 2
  with pytest.raises(TypeError, match="as a Python `bool` is not allowed"):
    tf.function(calls_it)(tf.constant(-3))
  assert tf.function(calls_it)(-3) == 6  # a Python value needs no conversion


def test_autograph_false_leaves_python_control_flow():
  @tf.function(autograph=False)
  def f(x):
    if x > 0:
      return x
    return -x
  with pytest.raises(TypeError, match="as a Python `bool` is not allowed"):
    f(tf.constant(1))

  @tf.function(autograph=False)
  def g(x, flag):
    if flag:  # Python values still work without AutoGraph
      return x
    return -x
  assert int(g(tf.constant(1), False)) == -1


# ----------------------------------------------------- conversion problems

def _exec_function(src, name):
  ns = {"tf": tf}
  exec(compile(src, "<generated>", "exec"), ns)
  return ns[name]


def test_function_without_source_and_with_control_flow_is_an_error():
  f = _exec_function("def nosrc(x):\n  if x > 0:\n    return x\n  return -x\n", "nosrc")
  with pytest.raises(tf.autograph.ConversionError, match="could not read the source of nosrc"):
    convert(f)
  with pytest.raises(tf.autograph.ConversionError, match="do_not_convert"):
    tf.function(f)(tf.constant(1))


def test_function_without_source_or_control_flow_runs_as_written():
  f = _exec_function("def plain(x):\n  return x * 2 + 1\n", "plain")
  assert convert(f) is f
  assert int(tf.function(f)(tf.constant(3))) == 7


def test_generators_cannot_be_converted_explicitly():
  def gen():
    yield 1
  with pytest.raises(tf.autograph.ConversionError, match="generators"):
    convert(gen)


def test_lambdas_and_builtins_run_as_written():
  lam = lambda x: x + 1  # noqa: E731
  assert convert(lam) is lam and convert(len) is len
  assert int(tf.function(lambda x: x * 2 if False else x)(tf.constant(4))) == 4


# ------------------------------------------------------------------ to_code

def test_to_code_is_readable_python():
  code = tf.autograph.to_code(early_return)
  assert code.startswith("def tf__early_return(x):")
  assert "ag__.if_stmt(" in code and "do_return" in code and "retval_" in code
  compile(code, "<to_code>", "exec")
  loop = tf.autograph.to_code(collatz_steps)
  assert "ag__.while_stmt(" in loop and "ag__.if_stmt(" in loop
  compile(loop, "<to_code>", "exec")
  assert "ag__.for_stmt(" in tf.autograph.to_code(for_break)
  assert "ag__.and_(" in tf.autograph.to_code(logic)
  assert "ag__.if_exp(" in tf.autograph.to_code(ternary)
  assert "ag__.converted_call(helper_abs" in tf.autograph.to_code(calls_helper)


def test_to_code_of_a_tf_function_and_a_method():
  assert tf.autograph.to_code(tf.function(sign)).startswith("def tf__sign(x):")
  assert tf.autograph.to_code(Scaler(1).scale).startswith("def tf__scale(self, x):")


def test_converted_function_keeps_name_and_signature_defaults():
  def f(x, y=2, *, z=3):
    """Doc."""
    if x > 0:
      return x + y + z
    return 0
  g = convert(f)
  assert g.__name__ == "f" and g.__doc__ == "Doc."
  assert g(1) == 6 and g(1, z=10) == 13 and g(-1) == 0
  assert convert(f) is g  # cached
