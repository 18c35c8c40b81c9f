"""Datasets and iterators inside tf.function: AutoGraph `for` loops (ReduceDataset),
break, datasets as arguments vs captured, tracing once per element_spec,
reduce/cardinality/iter/next in graphs (values as TensorFlow 2.21 gives them)."""
import numpy as np
import pytest

import tensorlet as tf

R = tf.data.Dataset.range(10)


@tf.function
def _sum_until_break(d):
  s = tf.constant(0, tf.int64)
  for x in d:
    if x > 3:
      break
    s += x
  return s


def test_for_with_break_traced_once_per_element_spec():
  f = tf.function(_sum_until_break.python_function)
  assert int(f(R)) == 6
  assert int(f(R.skip(1))) == 6 and int(f(R.map(lambda x: x * 2))) == 2
  assert f.experimental_get_tracing_count() == 1
  assert int(f(R.batch(1).unbatch())) == 6
  assert f.experimental_get_tracing_count() == 1
  assert int(f(R.take(2))) == 1
  assert f.experimental_get_tracing_count() == 1


def test_new_element_spec_retraces():
  @tf.function
  def total(d):
    s = tf.constant(0.0)
    for x in d:
      s += tf.reduce_sum(tf.cast(x, tf.float32))
    return s
  assert float(total(R)) == 45.0
  assert float(total(R.batch(3))) == 45.0
  assert float(total(R.batch(4))) == 45.0  # same spec (None,): no new trace
  assert total.experimental_get_tracing_count() == 2


def test_for_loop_is_one_reduce_dataset_node():
  @tf.function
  def f():
    x = tf.constant(0, dtype=tf.int64)
    for i in tf.data.Dataset.range(5):
      x += i
    return x
  g = f.get_concrete_function().graph
  names = [n.name for n in g.as_graph_def().node]
  assert "ReduceDataset" in names and "while" not in names
  assert int(f()) == 10


def test_captured_dataset_and_dataset_built_inside():
  @tf.function
  def captured():
    s = tf.constant(0, tf.int64)
    for x in R.take(4):
      s += x
    return s

  @tf.function
  def inside(n):
    d = tf.data.Dataset.range(n).map(lambda x: x * x)
    return d.reduce(tf.constant(0, tf.int64), lambda a, b: a + b)
  assert int(captured()) == 6
  assert int(inside(tf.constant(4, tf.int64))) == 14
  assert int(inside(tf.constant(5, tf.int64))) == 30
  assert inside.experimental_get_tracing_count() == 1


def test_tuple_elements_and_batches_in_a_loop():
  @tf.function
  def tup(d):
    s = tf.constant(0.0)
    n = tf.constant(0)
    for x, y in d:
      s += tf.reduce_sum(x)
      n += tf.shape(y)[0]
    return s, n
  xs = np.arange(12, dtype=np.float32).reshape(6, 2)
  ys = np.arange(6, dtype=np.int32)
  s, n = tup(tf.data.Dataset.from_tensor_slices((xs, ys)).batch(4))
  assert float(s) == 66.0 and int(n) == 6


def test_batch_size_tensor_argument_and_transformations_in_graph():
  @tf.function
  def batch_max_sum(d, n):
    s = tf.constant(0, tf.int64)
    for b in d.batch(n):
      s += tf.reduce_max(b)
    return s

  @tf.function
  def pipeline(d):
    return d.map(lambda x: x * 2).filter(lambda x: x > 4).reduce(
        tf.constant(0, tf.int64), lambda s, x: s + x)
  assert int(batch_max_sum(R, tf.constant(3, tf.int64))) == 24
  assert int(batch_max_sum(R, tf.constant(4, tf.int64))) == 19
  assert batch_max_sum.experimental_get_tracing_count() == 1
  assert int(pipeline(R)) == 84


def test_cardinality_and_reduce_in_graph():
  assert int(tf.function(lambda d: d.cardinality())(R.batch(3))) == 4
  assert int(tf.function(lambda d: d.reduce(np.int64(0), lambda s, x: s + x))(R)) == 45


def test_loop_variable_shape_change_is_relaxed():
  @tf.function
  def grow(d):
    s = tf.zeros([0], tf.int64)
    for x in d:
      s = tf.concat([s, [x]], 0)
    return s
  assert grow(R.take(4)).numpy().tolist() == [0, 1, 2, 3]


def test_loop_errors():
  @tf.function
  def dtype_change(d):
    s = tf.constant(0, tf.int32)
    for x in d:
      s = x
    return s

  @tf.function
  def ret_in_loop(d):
    for x in d:
      if x > 2:
        return x
    return tf.constant(-1, tf.int64)

  @tf.function(autograph=False)
  def no_autograph(d):
    s = tf.constant(0, tf.int64)
    for x in d:
      s += x
    return s
  with pytest.raises(TypeError, match="'s'"):
    dtype_change(R)
  with pytest.raises(NotImplementedError, match="return"):
    ret_in_loop(R)
  with pytest.raises(ValueError, match="AutoGraph"):
    no_autograph(R.take(3))


def test_break_on_a_non_scalar_condition_fails():
  with pytest.raises(tf.errors.InvalidArgumentError):
    _sum_until_break(R.batch(2))


# ---------------------------------------------------------------- iterators

def test_iter_and_next_inside_function():
  @tf.function
  def two(d):
    it = iter(d)
    return next(it) + next(it)

  @tf.function
  def get_next(d):
    return iter(d).get_next()

  @tf.function
  def separate(d):
    a, b = iter(d), iter(d)
    return next(a) + next(a) + next(b)
  assert int(two(R.skip(3))) == 7
  assert int(get_next(R.skip(9))) == 9
  assert int(separate(R)) == 1
  with pytest.raises(tf.errors.OutOfRangeError, match="End of sequence"):
    get_next(R.take(0))


def test_eager_iterator_passed_to_function_advances_per_call():
  it = iter(R)

  @tf.function
  def step(i):
    return next(i) * 10
  assert [int(step(it)) for _ in range(3)] == [0, 10, 20]
  assert int(next(it)) == 3
  assert step.experimental_get_tracing_count() == 1
  assert it.element_spec == tf.TensorSpec([], tf.int64)


def test_captured_eager_iterator_until_exhausted():
  it = iter(R.batch(4))

  @tf.function
  def step():
    return tf.reduce_sum(next(it))
  assert [int(step()) for _ in range(3)] == [6, 22, 17]
  with pytest.raises(tf.errors.OutOfRangeError):
    step()


def test_for_over_iterator_with_break_leaves_the_rest():
  it = iter(R)

  @tf.function
  def head_sum(i):
    s = tf.constant(0, tf.int64)
    for x in i:
      if x >= 5:
        break
      s += x
    return s
  assert int(head_sum(it)) == 10
  assert int(next(it)) == 6


def test_eager_iterator_get_next_and_stop():
  it = iter(R.take(3))
  assert [int(it.get_next()) for _ in range(3)] == [0, 1, 2]
  with pytest.raises(tf.errors.OutOfRangeError):
    it.get_next()
  with pytest.raises(StopIteration):
    next(it)


def test_python_for_over_eager_iterator_with_break():
  it = iter(R)
  seen = []
  for x in it:
    if int(x) >= 2:
      break
    seen.append(int(x))
  assert seen == [0, 1] and int(next(it)) == 3
