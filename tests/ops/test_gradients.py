"""Gradients: central differences for every differentiable OpCase (float64,
order 2 where the row asks), plus TF's conventions at kinks and ties."""
import numpy as np
import pytest

import tensorlet as tf
from gradcheck import check_grads, dense
from op_table import CASES


def _float_outputs(out):
  """One float tensor from an op's output(s): multi-output ops are flattened and joined."""
  if isinstance(out, (list, tuple)):
    parts = [tf.reshape(o, [-1]) for o in out if o.dtype.is_floating]
    return tf.concat(parts, 0)
  return out


GRAD = [pytest.param(c, id=c.name) for c in CASES if c.grad]


@pytest.mark.parametrize("case", GRAD)
def test_gradient(case):
  xs = case.inputs(np.random.RandomState(0), np.float64)
  assert xs, "a differentiable row needs float inputs"
  check_grads(lambda *ts: _float_outputs(case.fn(*ts)), xs, order=case.order)


def _tape_grads(case, ts):
  with tf.GradientTape() as tape:
    tape.watch(ts)
    y = _float_outputs(case.fn(*ts))
  return tape.gradient(y, ts)


@pytest.mark.parametrize("case", GRAD)
def test_gradient_shape_and_dtype(case):
  """Each gradient has its input's shape and dtype (float32 stays float32)."""
  xs = case.inputs(np.random.RandomState(0), np.float32)
  ts = [tf.constant(x) for x in xs]
  for g, x in zip(_tape_grads(case, ts), xs):
    assert g is not None
    assert g.dtype == tf.float32 and g.shape == x.shape, (g.dtype, g.shape, x.shape)


@pytest.mark.parametrize("case", GRAD)
@pytest.mark.parametrize("dims", ["known", "unknown"])
def test_traced_gradient_matches_eager(case, dims):
  """The same gradient rules staged into a tf.function graph give eager's values, also
  when the graph is traced for inputs of unknown dimensions."""
  xs = case.inputs(np.random.RandomState(0), np.float64)
  ts = [tf.constant(x) for x in xs]
  eager = _tape_grads(case, ts)
  sig = None if dims == "known" else [tf.TensorSpec([None] * np.ndim(x), tf.float64)
                                      for x in xs]
  g = lambda *a: _tape_grads(case, list(a))  # noqa: E731
  # NOTE: fixed arity: tf.function's input_signature does not bind *args yet.
  fixed = [lambda a: g(a), lambda a, b: g(a, b), lambda a, b, c: g(a, b, c),
           lambda a, b, c, d: g(a, b, c, d)][len(ts) - 1]
  try:
    traced = tf.function(fixed, input_signature=sig)(*ts)
  except ValueError as e:
    assert dims == "unknown" and "Cannot infer argument `num`" in str(e), e
    return
  for e, t in zip(eager, traced):
    assert type(t) is type(e)  # IndexedSlices (gathers of rows) in both or in neither
    np.testing.assert_allclose(dense(t).numpy(), dense(e).numpy(), rtol=1e-12, atol=1e-12)


def grads(f, *values, dtype=tf.float64):
  xs = [tf.constant(v, dtype) for v in values]
  with tf.GradientTape() as tape:
    tape.watch(xs)
    y = f(*xs)
  return [None if g is None else dense(g).numpy() for g in tape.gradient(y, xs)]


# ------------------------------------------------- TF's rules at kinks and ties

def test_maximum_tie_goes_to_x():
  gx, gy = grads(tf.maximum, [1.0, 2.0, 3.0], [1.0, 1.0, 4.0])
  np.testing.assert_array_equal(gx, [1, 1, 0])
  np.testing.assert_array_equal(gy, [0, 0, 1])


def test_minimum_tie_goes_to_x():
  gx, gy = grads(tf.minimum, [1.0, 2.0, 3.0], [1.0, 1.0, 4.0])
  np.testing.assert_array_equal(gx, [1, 0, 1])
  np.testing.assert_array_equal(gy, [0, 1, 0])


def test_relu_like_maximum_at_zero():
  # tf.maximum(x, 0.) at x == 0 passes the whole gradient to x (x >= y).
  (g,) = grads(lambda x: tf.maximum(x, 0.0), [-1.0, 0.0, 2.0])
  np.testing.assert_array_equal(g, [0, 1, 1])


def test_relu_gradient_is_zero_at_zero():
  nn = pytest.importorskip("tensorlet.ops.nn_ops")
  (g,) = grads(nn.relu, [-1.0, 0.0, 2.0])
  np.testing.assert_array_equal(g, [0, 0, 1])


def test_maximum_broadcast_tie():
  gx, gy = grads(lambda x, y: tf.maximum(x, y), [[0.0, 1.0], [2.0, 0.0]], 0.0)
  np.testing.assert_array_equal(gx, [[1, 1], [1, 1]])
  assert gy == 0


def test_abs_at_zero_is_zero():
  (g,) = grads(tf.abs, [-2.0, 0.0, 3.0])
  np.testing.assert_array_equal(g, [-1, 0, 1])


def test_sign_round_floor_ceil():
  for f in (tf.sign,):
    (g,) = grads(f, [-1.0, 0.0, 1.5])
    np.testing.assert_array_equal(g, [0, 0, 0])
  for f in (tf.round, tf.floor, tf.math.ceil):
    (g,) = grads(f, [-1.0, 0.5, 1.5])
    assert g is None


def test_clip_by_value_boundaries():
  # TF: minimum then maximum, each passing ties to x: gradient 1 on both bounds.
  try:
    clip = tf.clip_by_value
  except (AttributeError, ImportError):
    pytest.skip("tf.clip_by_value is not available")
  (g,) = grads(lambda x: clip(x, -1.0, 1.0), [-2.0, -1.0, 0.0, 1.0, 2.0])
  np.testing.assert_array_equal(g, [0, 1, 1, 1, 0])


def test_reduce_max_splits_ties():
  (g,) = grads(tf.reduce_max, [1.0, 3.0, 3.0])
  np.testing.assert_array_equal(g, [0, 0.5, 0.5])
  (g,) = grads(lambda x: tf.reduce_min(x, axis=1), [[1.0, 1.0], [2.0, 0.0]])
  np.testing.assert_array_equal(g, [[0.5, 0.5], [0, 1]])


def test_reduce_prod_with_zeros():
  (g,) = grads(tf.reduce_prod, [2.0, 0.0, 3.0])
  np.testing.assert_array_equal(g, [0, 6, 0])
  (g,) = grads(tf.reduce_prod, [0.0, 0.0, 3.0])
  np.testing.assert_array_equal(g, [0, 0, 0])
  (g,) = grads(lambda x: tf.reduce_prod(x, axis=1), [[2.0, 0.0], [3.0, 4.0]])
  np.testing.assert_array_equal(g, [[0, 2], [4, 3]])


def test_sqrt_at_zero_is_inf():
  (g,) = grads(tf.sqrt, [0.0, 4.0])
  assert np.isinf(g[0]) and g[1] == 0.25


def test_pow_at_zero_base():
  # d/dx x**2 at 0 is 0; d/dy 0**y uses log(x) only where x > 0, so 0 (not nan).
  gx, gy = grads(tf.pow, [0.0, 2.0], [2.0, 3.0])
  np.testing.assert_allclose(gx, [0, 12])
  np.testing.assert_allclose(gy, [0, 8 * np.log(2)])


def test_div_no_nan_gradient_at_zero_divisor():
  gx, gy = grads(tf.math.divide_no_nan, [1.0, 2.0], [0.0, 4.0])
  np.testing.assert_allclose(gx, [0, 0.25])
  np.testing.assert_allclose(gy, [0, -2.0 / 16])


def test_where_gradient_goes_to_chosen_branch():
  gx, gy = grads(lambda x, y: tf.where([True, False], x, y), [1.0, 2.0], [3.0, 4.0])
  np.testing.assert_array_equal(gx, [1, 0])
  np.testing.assert_array_equal(gy, [0, 1])


def test_stop_gradient_and_integer_paths_give_none():
  (g,) = grads(lambda x: tf.stop_gradient(x) * 2.0, [1.0])
  assert g is None
  (g,) = grads(lambda x: tf.cast(tf.cast(x, tf.int32), tf.float64), [1.5])
  assert g is None
  (g,) = grads(lambda x: tf.cast(tf.argmax(x), tf.float64), [1.0, 2.0])
  assert g is None


def test_segment_max_ties_share_gradient():
  (g,) = grads(lambda x: tf.math.unsorted_segment_max(x, [0, 0, 1, -1], 2),
               [2.0, 2.0, 1.0, 5.0])
  np.testing.assert_array_equal(g, [0.5, 0.5, 1, 0])


def test_gather_duplicate_indices_accumulate():
  (g,) = grads(lambda x: tf.gather(x, [0, 0, 2]), [1.0, 2.0, 3.0])
  np.testing.assert_array_equal(g, [2, 0, 1])


def test_scatter_nd_duplicates_accumulate_forward_and_back():
  u = tf.constant([1.0, 2.0, 3.0])
  r = tf.scatter_nd([[0], [0], [1]], u, [2])
  np.testing.assert_array_equal(r.numpy(), [3, 3])
  (g,) = grads(lambda x: tf.scatter_nd([[0], [0], [1]], x, [2]) * tf.constant([1.0, 10.0],
                                                                              tf.float64),
               [1.0, 2.0, 3.0])
  np.testing.assert_array_equal(g, [1, 1, 10])


def test_tensor_scatter_update_gradient_masks_overwritten():
  gt, gu = grads(lambda t, u: tf.tensor_scatter_nd_update(t, [[1]], u), [1.0, 2.0, 3.0], [9.0])
  np.testing.assert_array_equal(gt, [1, 0, 1])
  np.testing.assert_array_equal(gu, [1])


def test_top_k_gradient_scatters_to_winners():
  (g,) = grads(lambda x: tf.math.top_k(x, 2).values, [[1.0, 5.0, 3.0], [4.0, 0.0, 2.0]])
  np.testing.assert_array_equal(g, [[0, 1, 1], [1, 0, 1]])


def test_mean_gradient_scales():
  (g,) = grads(lambda x: tf.reduce_mean(x, axis=0), [[1.0, 2.0], [3.0, 4.0]])
  np.testing.assert_array_equal(g, [[0.5, 0.5], [0.5, 0.5]])


def test_broadcast_gradients_are_unbroadcast():
  gx, gy = grads(tf.add, [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], [1.0, 2.0, 3.0])
  assert gx.shape == (2, 3) and gy.shape == (3,)
  np.testing.assert_array_equal(gy, [2, 2, 2])
  gx, gy = grads(tf.multiply, [[1.0], [2.0]], 3.0)
  assert gx.shape == (2, 1) and np.shape(gy) == ()
  np.testing.assert_array_equal(gy, 3.0)


def test_float32_gradients_keep_dtype():
  x = tf.constant([1.0, 2.0])
  with tf.GradientTape() as tape:
    tape.watch(x)
    y = tf.reduce_sum(tf.exp(x) * x)
  g = tape.gradient(y, x)
  assert g.dtype == tf.float32



# ------------------------------------------------------- complex gradients

def _cplx(rng, shape):
  return rng.uniform(0.5, 1.5, shape) + 1j * rng.uniform(-1, 1, shape)


_COMPLEX_LOSSES = [
    ("mul_conj", lambda z: tf.math.real(tf.reduce_sum(z * tf.math.conj(z))), [[3]]),
    ("exp", lambda z: tf.math.real(tf.reduce_sum(tf.exp(z))), [[3]]),
    ("log_imag", lambda z: tf.math.imag(tf.reduce_sum(tf.math.log(z))), [[3]]),
    ("div", lambda z, w: tf.math.real(tf.reduce_sum(z / w)), [[3], [3]]),
    ("abs", lambda z: tf.reduce_sum(tf.abs(z)), [[3]]),
    ("matmul", lambda a, b: tf.math.real(tf.reduce_sum(tf.matmul(a, b))), [[2, 3], [3, 2]]),
    ("matmul_adjoint", lambda a, b: tf.math.imag(tf.reduce_sum(tf.matmul(
        a, b, adjoint_a=True))), [[3, 2], [3, 2]]),
    ("square_sqrt", lambda z: tf.math.real(tf.reduce_sum(tf.square(z) + tf.sqrt(z))), [[3]]),
    ("trig", lambda z: tf.math.imag(tf.reduce_sum(tf.sin(z) * tf.cos(z) + tf.tanh(z))), [[3]]),
    ("reciprocal_sigmoid", lambda z: tf.math.real(tf.reduce_sum(
        tf.math.reciprocal(z) + tf.sigmoid(z))), [[3]]),
    ("pow", lambda z, w: tf.math.real(tf.reduce_sum(tf.pow(z, w))), [[3], [3]]),
    ("squared_difference", lambda z, w: tf.math.real(tf.reduce_sum(
        tf.math.squared_difference(z, w))), [[3], [3]]),
    ("mean_sub_neg", lambda z: tf.math.real(tf.reduce_mean(-(z - 1.0) * z)), [[2, 2]]),
]


@pytest.mark.parametrize("f,shapes", [pytest.param(f, s, id=n) for n, f, s in _COMPLEX_LOSSES])
def test_complex_gradients_follow_tf_convention(f, shapes):
  """For a real loss L of complex z, tape.gradient is dL/d(re z) + i dL/d(im z)."""
  rng = np.random.RandomState(0)
  zs = [_cplx(rng, s) for s in shapes]
  ds = [_cplx(rng, s) for s in shapes]
  ts = [tf.constant(z) for z in zs]
  with tf.GradientTape() as tape:
    tape.watch(ts)
    y = f(*ts)
  gs = tape.gradient(y, ts)
  eps = 1e-6
  plus = float(f(*[tf.constant(z + eps * d) for z, d in zip(zs, ds)]))
  minus = float(f(*[tf.constant(z - eps * d) for z, d in zip(zs, ds)]))
  numeric = (plus - minus) / (2 * eps)
  analytic = sum(float(np.sum(np.real(np.conj(g.numpy()) * d))) for g, d in zip(gs, ds))
  np.testing.assert_allclose(analytic, numeric, rtol=1e-6, atol=1e-8)


def test_complex_from_real_parts_gradient():
  gx, gy = grads(lambda x, y: tf.math.real(tf.reduce_sum(
      tf.complex(x, y) * tf.constant([2 - 1j, 1j]))), [1.0, 2.0], [3.0, 4.0])
  np.testing.assert_allclose(gx, [2, 0])
  np.testing.assert_allclose(gy, [1, -1])


# ------------------------------------------ gradients with None dims in graphs

def _traced_grads(f, specs, args):
  @tf.function(input_signature=specs)
  def g(*xs):
    with tf.GradientTape() as tape:
      for x in xs:
        tape.watch(x)
      y = tf.reduce_sum(f(*xs) ** 2)
    return tape.gradient(y, list(xs))
  return [None if t is None else t.numpy() for t in g(*args)], \
      g.get_concrete_function(*specs).graph


def _eager_grads(f, args):
  xs = [tf.constant(a) for a in args]
  with tf.GradientTape() as tape:
    for x in xs:
      tape.watch(x)
    y = tf.reduce_sum(f(*xs) ** 2)
  return [None if t is None else t.numpy() for t in tape.gradient(y, xs)]


@pytest.mark.parametrize("f, shapes, specs", [
    # run-time broadcasting hidden behind None dims: must still be summed down
    (tf.add, [(1, 3), (5, 3)], [[None, 3], [None, 3]]),
    (tf.multiply, [(5, 1), (5, 4)], [[None, None], [None, 4]]),
    (tf.subtract, [(1,), (2, 3)], [[None], [None, None]]),
    (lambda c, x, y: tf.where(c > 0, x, y), [(4, 1), (1, 3), (4, 3)],
     [[None, None], [None, None], [None, 3]]),
    # no broadcasting of the first input, provably (no SumToShape needed for it)
    (tf.add, [(5, 3), (3,)], [[None, 3], [3]]),
    (lambda x, y: x * y * x, [(6, 2), (1, 2)], [[None, 2], [1, 2]]),
])
def test_broadcast_gradients_with_unknown_dims_match_eager(f, shapes, specs):
  rng = np.random.RandomState(0)
  args = [rng.randn(*s).astype(np.float32) for s in shapes]
  specs = [tf.TensorSpec(s, tf.float32) for s in specs]
  got, _ = _traced_grads(f, specs, args)
  for a, b, x in zip(got, _eager_grads(f, args), args):
    if b is None:  # where's condition
      assert a is None
      continue
    assert a.shape == x.shape
    np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_no_run_time_sum_where_shapes_provably_match():
  # x + bias, relu and a matmul over a None batch dim: gradients need no SumToShape
  w = tf.Variable(np.ones([3, 2], np.float32))
  b = tf.Variable(np.zeros([3], np.float32))

  def f(x):
    return tf.matmul(tf.nn.relu(x + b), w) * 0.5
  rng = np.random.RandomState(1)
  x = rng.randn(4, 3).astype(np.float32)
  (gx,), graph = _traced_grads(f, [tf.TensorSpec([None, 3], tf.float32)], [x])
  np.testing.assert_allclose(gx, _eager_grads(f, [x])[0], rtol=1e-5, atol=1e-6)
  assert "SumToShape" not in {op.type for op in graph.get_operations()}
  # the bias is broadcast over the batch: its gradient is a static reduction
  @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32)])
  def gb(x):
    with tf.GradientTape() as tape:
      y = tf.reduce_sum(f(x))
    return tape.gradient(y, b)
  np.testing.assert_allclose(gb(x).numpy(), (np.maximum(x, 0) > 0).sum(0) * 1.0, rtol=1e-6)


@pytest.mark.parametrize("axis", [0, 1])
def test_gather_gradient_of_many_repeated_ids_sums_in_order(axis):
  # Many ids: the scatter-add runs as rounds of k-th occurrences, ids repeated more than
  # the rounds (padding id 0 here) finish one by one; sums equal np.add.at's exactly.
  rs = np.random.RandomState(4)
  ids = rs.randint(0, 50, (6, 40))
  ids[:, 25:] = 0
  params = rs.standard_normal((50, 3) if axis == 0 else (3, 50))
  dy = rs.standard_normal((6, 40, 3) if axis == 0 else (3, 6, 40))
  x = tf.constant(params)
  with tf.GradientTape() as tape:
    tape.watch(x)
    y = tf.gather(x, ids, axis=axis)
  got = tape.gradient(y, x, output_gradients=tf.constant(dy))
  want = np.zeros_like(params)
  if axis == 0:
    np.add.at(want, ids.reshape(-1), dy.reshape(-1, 3))
  else:
    np.add.at(want.T, ids.reshape(-1), dy.reshape(3, -1).T)
  np.testing.assert_array_equal(np.asarray(tf.convert_to_tensor(got)), want)
