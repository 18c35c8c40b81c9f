"""tf.GradientTape: watching, persistence, nesting, stop_recording, reset,
nested structures, output_gradients, unconnected_gradients, jacobians."""
import contextlib
import warnings

import numpy as np
import pytest

import tensorlet as tf


def _np(t):
  return None if t is None else np.asarray(t)


# ------------------------------------------------------------------ watching

def test_watched_constant_gradient():
  x = tf.constant(3.0)
  with tf.GradientTape() as tape:
    tape.watch(x)
    y = x * x
  g = tape.gradient(y, x)
  assert isinstance(g, tf.Tensor)
  assert g.dtype == tf.float32 and g.shape == ()
  assert g.numpy() == 6.0


def test_unwatched_constant_gives_none():
  x = tf.constant(3.0)
  with tf.GradientTape() as tape:
    y = x * x
  assert tape.gradient(y, x) is None


def test_trainable_variables_are_watched_automatically():
  v = tf.Variable(2.0)
  frozen = tf.Variable(5.0, trainable=False)
  with tf.GradientTape() as tape:
    y = v * v * frozen
  assert [w is v for w in tape.watched_variables()] == [True]
  gv, gf = tape.gradient(y, [v, frozen])
  assert gv.numpy() == 20.0
  assert gf is None
  assert tape.watched_variables() == (v,)   # still known after the one gradient


def test_non_trainable_variable_watched_explicitly():
  frozen = tf.Variable(5.0, trainable=False)
  with tf.GradientTape() as tape:
    tape.watch(frozen)
    y = 3.0 * frozen
  assert tape.gradient(y, frozen).numpy() == 3.0


def test_watch_accessed_variables_false():
  a = tf.Variable(2.0)
  b = tf.Variable(3.0)
  with tf.GradientTape(watch_accessed_variables=False) as tape:
    tape.watch(a)
    y = a * b
  assert tape.watched_variables() == (a,)
  ga, gb = tape.gradient(y, [a, b])
  assert ga.numpy() == 3.0
  assert gb is None


def test_watch_accessed_variables_false_watches_nothing_by_default():
  v = tf.Variable(2.0)
  with tf.GradientTape(watch_accessed_variables=False) as tape:
    y = v * v
  assert tape.watched_variables() == ()
  assert tape.gradient(y, v) is None


def test_watch_nested_structure():
  x = tf.constant(1.0)
  y = tf.constant(2.0)
  with tf.GradientTape() as tape:
    tape.watch({"x": x, "pair": [y]})
    z = x * y
  gx, gy = tape.gradient(z, [x, y])
  assert (gx.numpy(), gy.numpy()) == (2.0, 1.0)


def test_watch_rejects_python_values():
  with tf.GradientTape() as tape:
    with pytest.raises(ValueError):
      tape.watch(3.0)


def test_integer_watched_tensor_warns_and_gives_none():
  x = tf.constant(3)
  with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    with tf.GradientTape() as tape:
      tape.watch(x)
      y = x * x
  assert any("floating" in str(w.message) for w in caught)
  assert tape.gradient(y, x) is None


def test_float64_and_float16_gradients_keep_dtype():
  for dt in (tf.float64, tf.float16):
    x = tf.constant([1.0, 2.0], dtype=dt)
    with tf.GradientTape() as tape:
      tape.watch(x)
      y = tf.reduce_sum(x * x)
    g = tape.gradient(y, x)
    assert g.dtype == dt
    np.testing.assert_allclose(g.numpy(), [2.0, 4.0])


def test_gradient_of_source_itself_is_ones():
  x = tf.constant([1.0, 2.0])
  with tf.GradientTape() as tape:
    tape.watch(x)
  np.testing.assert_array_equal(tape.gradient(x, x).numpy(), [1.0, 1.0])


def test_reentering_a_recording_tape_raises():
  tape = tf.GradientTape()
  with tape:
    with pytest.raises(ValueError):
      tape.__enter__()


# -------------------------------------------------------------- persistence

def test_non_persistent_second_gradient_raises():
  x = tf.constant(3.0)
  with tf.GradientTape() as tape:
    tape.watch(x)
    y = x * x
  tape.gradient(y, x)
  with pytest.raises(RuntimeError):
    tape.gradient(y, x)


def test_non_persistent_jacobian_after_gradient_raises():
  x = tf.constant([1.0, 2.0])
  with tf.GradientTape() as tape:
    tape.watch(x)
    y = x * x
  tape.gradient(y, x)
  with pytest.raises(RuntimeError):
    tape.jacobian(y, x)


def test_persistent_tape_used_several_times():
  x = tf.constant(3.0)
  with tf.GradientTape(persistent=True) as tape:
    tape.watch(x)
    y = x * x
    z = y * y
  assert tape.gradient(z, x).numpy() == 108.0   # 4 x^3
  assert tape.gradient(y, x).numpy() == 6.0
  assert tape.gradient(z, y).numpy() == 18.0    # 2 y
  assert tape.gradient(z, x).numpy() == 108.0   # same answer again
  np.testing.assert_allclose(tape.jacobian(z, x).numpy(), 108.0)
  del tape


# --------------------------------------------------------- higher order

def test_second_and_third_order_of_cube():
  x = tf.constant(2.0)
  with tf.GradientTape() as t3:
    t3.watch(x)
    with tf.GradientTape() as t2:
      t2.watch(x)
      with tf.GradientTape() as t1:
        t1.watch(x)
        y = x * x * x
      dy = t1.gradient(y, x)
    d2y = t2.gradient(dy, x)
  d3y = t3.gradient(d2y, x)
  assert (dy.numpy(), d2y.numpy(), d3y.numpy()) == (12.0, 12.0, 6.0)


def derivatives(f, x, order):
  """[f'(x), f''(x), ...] from `order` nested tapes, each gradient taken inside
  the outer tapes' contexts (and inside its own, which stops it recording)."""
  with contextlib.ExitStack() as stack:
    tapes = [stack.enter_context(tf.GradientTape()) for _ in range(order)]
    for t in tapes:
      t.watch(x)
    out = [f(x)]
    for t in reversed(tapes):
      out.append(None if out[-1] is None else t.gradient(out[-1], x))
  return out[1:]


def test_fourth_order_of_cube_is_none():
  d = derivatives(lambda x: x * x * x, tf.constant(2.0), 4)
  assert [t.numpy() for t in d[:3]] == [12.0, 12.0, 6.0]
  assert d[3] is None   # 6 is a constant: it does not depend on x at all


def test_derivatives_of_sin_cycle():
  x = 0.7
  d = derivatives(tf.sin, tf.constant(x, tf.float64), 4)
  np.testing.assert_allclose([t.numpy() for t in d],
                             [np.cos(x), -np.sin(x), -np.cos(x), np.sin(x)], rtol=1e-12)


def test_second_order_with_persistent_outer_tape_and_variable():
  v = tf.Variable(1.5)
  with tf.GradientTape() as outer:
    with tf.GradientTape() as inner:
      y = tf.sin(v) * v
    dy = inner.gradient(y, v)
  d2y = outer.gradient(dy, v)
  x = 1.5
  np.testing.assert_allclose(dy.numpy(), np.cos(x) * x + np.sin(x), rtol=1e-6)
  np.testing.assert_allclose(d2y.numpy(), -np.sin(x) * x + 2 * np.cos(x), rtol=1e-5)


def test_hessian_vector_product_via_nested_tapes():
  x = tf.constant([1.0, 2.0, 3.0])
  vec = tf.constant([1.0, 0.0, -1.0])
  with tf.GradientTape() as outer:
    outer.watch(x)
    with tf.GradientTape() as inner:
      inner.watch(x)
      y = tf.reduce_sum(x * x * x)
    g = inner.gradient(y, x)
    gv = tf.reduce_sum(g * vec)
  hvp = outer.gradient(gv, x)
  np.testing.assert_allclose(hvp.numpy(), 6 * np.array([1.0, 2.0, 3.0]) * [1.0, 0.0, -1.0])


def test_inner_tape_gradient_not_recorded_when_outer_stops():
  x = tf.constant(3.0)
  with tf.GradientTape() as outer:
    outer.watch(x)
    with tf.GradientTape() as inner:
      inner.watch(x)
      y = x * x
    with outer.stop_recording():
      dy = inner.gradient(y, x)
  assert dy.numpy() == 6.0
  assert outer.gradient(dy, x) is None


# ------------------------------------------------------ stop_recording, reset

def test_stop_recording():
  x = tf.constant(3.0)
  with tf.GradientTape(persistent=True) as tape:
    tape.watch(x)
    y = x * x
    with tape.stop_recording():
      z = x * x * x
    w = y + z
  assert tape.gradient(y, x).numpy() == 6.0
  assert tape.gradient(z, x) is None
  assert tape.gradient(w, x).numpy() == 6.0  # only the y path was recorded


def test_stop_recording_on_a_tape_never_entered_raises_runtime_error():
  tape = tf.GradientTape()
  with pytest.raises(RuntimeError):
    with tape.stop_recording():
      pass


def test_stop_recording_after_exit_raises_value_error():
  tape = tf.GradientTape(persistent=True)
  with tape:
    pass
  with pytest.raises(ValueError):
    with tape.stop_recording():
      pass


def test_stop_recording_pauses_only_that_tape():
  x = tf.constant(3.0)
  with tf.GradientTape() as outer:
    outer.watch(x)
    with tf.GradientTape() as inner:
      inner.watch(x)
      with inner.stop_recording():
        y = x * x
  assert inner.gradient(y, x) is None
  assert outer.gradient(y, x).numpy() == 6.0


def test_stop_recording_then_resumes():
  x = tf.constant(2.0)
  with tf.GradientTape() as tape:
    tape.watch(x)
    with tape.stop_recording():
      a = x * 10.0
    y = a + x * x
  assert tape.gradient(y, x).numpy() == 4.0


def test_reset_clears_records_and_watches():
  x = tf.constant(2.0)
  v = tf.Variable(3.0)
  with tf.GradientTape() as tape:
    tape.watch(x)
    _ = x * v                       # recorded, then forgotten
    tape.reset()
    second = v * v * v
  gx, gv = tape.gradient(second, [x, v])
  assert gx is None                 # the watch of x was cleared too
  assert gv.numpy() == 27.0         # v re-watched on access after the reset


def test_reset_forgets_earlier_targets():
  x = tf.constant(2.0)
  with tf.GradientTape(persistent=True) as tape:
    tape.watch(x)
    first = x * x
    tape.reset()
    tape.watch(x)
    second = x * x * x
  assert tape.gradient(first, x) is None
  assert tape.gradient(second, x).numpy() == 12.0


def test_reset_outside_the_context_raises():
  tape = tf.GradientTape()
  with tape:
    pass
  with pytest.raises(ValueError):
    tape.reset()


def test_non_persistent_tape_entered_again_after_its_gradient_starts_afresh():
  x = tf.constant(2.0)
  with tf.GradientTape() as tape:
    tape.watch(x)
    y = x * x
  assert tape.gradient(y, x).numpy() == 4.0
  with tape:
    tape.watch(x)
    y = x * x * x
  assert tape.gradient(y, x).numpy() == 12.0


def test_gradient_inside_the_context_stops_a_non_persistent_tape():
  x = tf.constant(2.0)
  with tf.GradientTape() as tape:
    tape.watch(x)
    y = x * x
    assert tape.gradient(y, x).numpy() == 4.0
    z = y * x                   # not recorded any more
  with pytest.raises(RuntimeError):
    tape.gradient(z, x)


def test_reentering_a_persistent_tape_continues_recording():
  x = tf.constant(3.0)
  tape = tf.GradientTape(persistent=True)
  with tape:
    tape.watch(x)
    y = x * x
  outside = y * x               # between the two blocks: not recorded
  with tape:
    z = y * 2.0
  assert tape.gradient(z, x).numpy() == 12.0
  assert tape.gradient(outside, x) is None


# -------------------------------------------------------- nested structures

def test_list_target_sums_and_dict_sources():
  x = tf.constant(2.0)
  v = tf.Variable(3.0)
  with tf.GradientTape() as tape:
    tape.watch(x)
    targets = [x * x, x * v]
  grads = tape.gradient(targets, {"x": x, "v": v})
  assert sorted(grads) == ["v", "x"]
  assert grads["x"].numpy() == 2 * 2.0 + 3.0
  assert grads["v"].numpy() == 2.0


def test_dict_target_and_nested_sources_keep_structure():
  a = tf.constant(1.0)
  b = tf.constant(2.0)
  c = tf.constant(3.0)
  with tf.GradientTape() as tape:
    tape.watch([a, b, c])
    out = {"p": a * b, "q": b * c}
  grads = tape.gradient(out, [a, (b, {"c": c})])
  assert isinstance(grads, list) and isinstance(grads[1], tuple)
  assert isinstance(grads[1][1], dict)
  assert grads[0].numpy() == 2.0
  assert grads[1][0].numpy() == 1.0 + 3.0
  assert grads[1][1]["c"].numpy() == 2.0


def test_variable_list_sources_of_a_module():
  class Linear(tf.Module):
    def __init__(self):
      super().__init__()
      self.w = tf.Variable([[1.0], [2.0]])
      self.b = tf.Variable([0.5])

    def __call__(self, x):
      return tf.matmul(x, self.w) + self.b

  model = Linear()
  x = tf.constant([[1.0, 1.0], [2.0, 3.0]])
  with tf.GradientTape() as tape:
    loss = tf.reduce_sum(model(x))
  gb, gw = tape.gradient(loss, model.trainable_variables)   # sorted: b, w
  np.testing.assert_allclose(gw.numpy(), [[3.0], [4.0]])
  np.testing.assert_allclose(gb.numpy(), [2.0])


# --------------------------------------------------------- output_gradients

def test_output_gradients_weight_the_target():
  x = tf.constant([1.0, 2.0, 3.0])
  with tf.GradientTape() as tape:
    tape.watch(x)
    y = x * x
  g = tape.gradient(y, x, output_gradients=tf.constant([1.0, 10.0, 100.0]))
  np.testing.assert_allclose(g.numpy(), [2.0, 40.0, 600.0])


def test_output_gradients_for_a_list_of_targets():
  x = tf.constant(2.0)
  with tf.GradientTape() as tape:
    tape.watch(x)
    y1 = x * x
    y2 = x * 3.0
  g = tape.gradient([y1, y2], x, output_gradients=[tf.constant(1.0), tf.constant(-1.0)])
  assert g.numpy() == 4.0 - 3.0


def test_output_gradients_numpy_value_and_mismatched_count():
  x = tf.constant([1.0, 2.0])
  with tf.GradientTape(persistent=True) as tape:
    tape.watch(x)
    y = 3.0 * x
  np.testing.assert_allclose(
      tape.gradient(y, x, output_gradients=np.array([2.0, 0.5], np.float32)).numpy(), [6.0, 1.5])
  with pytest.raises(ValueError):
    tape.gradient(y, x, output_gradients=[tf.constant([1.0, 1.0]), tf.constant([1.0, 1.0])])


# ------------------------------------------------------ unconnected_gradients

def test_unconnected_gradients_none_and_zero():
  x = tf.constant([1.0, 2.0])
  y = tf.constant([[3.0]])
  v = tf.Variable([[1.0, 2.0], [3.0, 4.0]])
  with tf.GradientTape(persistent=True) as tape:
    tape.watch([x, y])
    z = x * 2.0
  assert tape.gradient(z, [x, y])[1] is None
  assert tape.gradient(z, y, unconnected_gradients=tf.UnconnectedGradients.NONE) is None
  zero = tape.gradient(z, y, unconnected_gradients=tf.UnconnectedGradients.ZERO)
  assert zero.shape == (1, 1) and zero.dtype == tf.float32
  np.testing.assert_array_equal(zero.numpy(), [[0.0]])
  zv = tape.gradient(z, v, unconnected_gradients="zero")
  assert zv.shape == (2, 2)
  np.testing.assert_array_equal(zv.numpy(), np.zeros((2, 2)))
  # The connected source is unaffected by the choice.
  np.testing.assert_array_equal(
      tape.gradient(z, x, unconnected_gradients="zero").numpy(), [2.0, 2.0])


def test_unconnected_gradients_bad_value():
  x = tf.constant(1.0)
  with tf.GradientTape() as tape:
    tape.watch(x)
    y = x * 2.0
  with pytest.raises(ValueError):
    tape.gradient(y, x, unconnected_gradients="sometimes")


def test_stop_gradient_disconnects():
  x = tf.constant(3.0)
  with tf.GradientTape() as tape:
    tape.watch(x)
    y = tf.stop_gradient(x * x) + x
  assert tape.gradient(y, x).numpy() == 1.0


# ----------------------------------------------- variables and accumulation

def test_variable_used_twice_accumulates():
  v = tf.Variable(3.0)
  with tf.GradientTape() as tape:
    y = v * v + v
  assert tape.gradient(y, v).numpy() == 7.0


def test_tensor_used_in_several_branches_accumulates():
  x = tf.constant([1.0, 2.0])
  with tf.GradientTape() as tape:
    tape.watch(x)
    a = tf.exp(x)
    b = x * 4.0
    y = tf.reduce_sum(a * b + a)
  xs = np.array([1.0, 2.0])
  np.testing.assert_allclose(tape.gradient(y, x).numpy(),
                             np.exp(xs) * 4 * xs + np.exp(xs) * 4 + np.exp(xs), rtol=1e-6)


def test_gradient_through_plus_equals_expressions():
  v = tf.Variable(2.0)
  x = tf.constant(5.0)
  with tf.GradientTape() as tape:
    tape.watch(x)
    acc = tf.constant(0.0)
    for _ in range(3):
      acc += v * x
    acc *= v
  gv, gx = tape.gradient(acc, [v, x])
  assert gv.numpy() == 6 * 2.0 * 5.0   # acc = 3 v^2 x
  assert gx.numpy() == 3 * 2.0 ** 2


def test_gradient_through_variable_read_value_and_value():
  v = tf.Variable([1.0, 2.0])
  with tf.GradientTape() as tape:
    y = tf.reduce_sum(v.read_value() * v.value() * tf.convert_to_tensor(v))
  np.testing.assert_allclose(tape.gradient(y, v).numpy(), [3.0, 12.0])


def test_gradient_ignores_assignments_but_sees_new_value():
  v = tf.Variable(2.0)
  with tf.GradientTape() as tape:
    v.assign(3.0)
    y = v * v
  assert tape.gradient(y, v).numpy() == 6.0


def test_variable_read_as_target():
  v = tf.Variable([1.0, 2.0])
  with tf.GradientTape() as tape:
    y = tf.identity(v)
  np.testing.assert_array_equal(tape.gradient(y, v).numpy(), [1.0, 1.0])


def test_gradient_descent_with_assign_sub():
  w = tf.Variable(5.0)
  for _ in range(50):
    with tf.GradientTape() as tape:
      loss = (w - 2.0) * (w - 2.0)
    w.assign_sub(0.1 * tape.gradient(loss, w))
  np.testing.assert_allclose(w.numpy(), 2.0, atol=1e-4)


# -------------------------------------------------------------- broadcasting

def test_broadcasting_gradients_are_summed_to_input_shapes():
  a = tf.constant(np.arange(6, dtype=np.float32).reshape(3, 2, 1))
  b = tf.constant([1.0, 2.0, 3.0])
  s = tf.constant(2.0)
  with tf.GradientTape() as tape:
    tape.watch([a, b, s])
    y = tf.reduce_sum((a + b) * s)   # shape (3, 2, 3)
  ga, gb, gs = tape.gradient(y, [a, b, s])
  assert ga.shape == (3, 2, 1) and gb.shape == (3,) and gs.shape == ()
  np.testing.assert_allclose(ga.numpy(), np.full((3, 2, 1), 3 * 2.0))
  np.testing.assert_allclose(gb.numpy(), np.full(3, 6 * 2.0))
  an = np.arange(6).reshape(3, 2, 1)
  np.testing.assert_allclose(gs.numpy(), np.sum(an + np.array([1.0, 2.0, 3.0])))


def test_broadcasting_with_python_scalar_and_keepdims_shape():
  x = tf.constant([[1.0, 2.0, 3.0]])     # (1, 3)
  y = tf.constant([[1.0], [2.0]])        # (2, 1)
  with tf.GradientTape() as tape:
    tape.watch([x, y])
    z = x * y - 1.0
  gx, gy = tape.gradient(z, [x, y])
  np.testing.assert_allclose(gx.numpy(), [[3.0, 3.0, 3.0]])
  np.testing.assert_allclose(gy.numpy(), [[6.0], [6.0]])


def test_broadcast_variable_bias():
  bias = tf.Variable([1.0, 2.0])
  x = tf.ones([4, 2])
  with tf.GradientTape() as tape:
    y = tf.reduce_sum(tf.square(x + bias))
  np.testing.assert_allclose(tape.gradient(y, bias).numpy(), 4 * 2 * np.array([2.0, 3.0]))


# ---------------------------------------------------------------- jacobians

def test_jacobian_elementwise_matches_numpy():
  xs = np.array([1.0, 2.0, 3.0], dtype=np.float32)
  x = tf.constant(xs)
  with tf.GradientTape() as tape:
    tape.watch(x)
    y = x * x
  j = tape.jacobian(y, x)
  assert j.shape == (3, 3)
  np.testing.assert_allclose(j.numpy(), np.diag(2 * xs))


def test_jacobian_of_matmul_matches_numpy():
  rng = np.random.RandomState(0)
  wn = rng.standard_normal((3, 4)).astype(np.float32)
  xn = rng.standard_normal((2, 3)).astype(np.float32)
  w = tf.Variable(wn)
  x = tf.constant(xn)
  with tf.GradientTape(persistent=True) as tape:
    tape.watch(x)
    y = tf.matmul(x, w)               # (2, 4)
  jx = tape.jacobian(y, x)            # (2, 4, 2, 3)
  jw = tape.jacobian(y, w)            # (2, 4, 3, 4)
  assert jx.shape == (2, 4, 2, 3) and jw.shape == (2, 4, 3, 4)
  ref_x = np.einsum("ac,jb->abcj", np.eye(2), wn).transpose(0, 1, 2, 3)
  # d y[a,b] / d x[c,j] = delta(a,c) w[j,b]
  np.testing.assert_allclose(jx.numpy(), ref_x, rtol=1e-6)
  # d y[a,b] / d w[j,k] = x[a,j] delta(b,k)
  ref_w = np.einsum("aj,bk->abjk", xn, np.eye(4))
  np.testing.assert_allclose(jw.numpy(), ref_w, rtol=1e-6)


def test_jacobian_scalar_target_equals_gradient():
  x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
  with tf.GradientTape(persistent=True) as tape:
    tape.watch(x)
    y = tf.reduce_sum(x * x * x)
  j = tape.jacobian(y, x)
  assert j.shape == (2, 2)
  np.testing.assert_allclose(j.numpy(), tape.gradient(y, x).numpy())


def test_jacobian_nested_sources_and_unconnected():
  x = tf.constant([1.0, 2.0])
  u = tf.constant([5.0, 6.0, 7.0])
  with tf.GradientTape(persistent=True) as tape:
    tape.watch([x, u])
    y = tf.sin(x)
  jx, ju = tape.jacobian(y, [x, u])
  np.testing.assert_allclose(jx.numpy(), np.diag(np.cos([1.0, 2.0])), rtol=1e-6)
  assert ju is None
  jz = tape.jacobian(y, {"u": u}, unconnected_gradients=tf.UnconnectedGradients.ZERO)
  assert jz["u"].shape == (2, 3)
  np.testing.assert_array_equal(jz["u"].numpy(), np.zeros((2, 3)))


def test_batch_jacobian_matches_numpy():
  xs = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], dtype=np.float32)
  wn = np.array([[1.0, 0.5, -1.0], [2.0, 0.0, 1.0]], dtype=np.float32)
  x = tf.constant(xs)
  with tf.GradientTape() as tape:
    tape.watch(x)
    y = tf.tanh(tf.matmul(x, tf.constant(wn)))   # (3, 3)
  bj = tape.batch_jacobian(y, x)
  assert bj.shape == (3, 3, 2)
  # d y[b,i] / d x[b,j] = (1 - y[b,i]^2) w[j,i]
  yn = np.tanh(xs @ wn)
  ref = (1 - yn ** 2)[:, :, None] * wn.T[None, :, :]
  np.testing.assert_allclose(bj.numpy(), ref, rtol=1e-5, atol=1e-6)


def test_batch_jacobian_elementwise_is_batched_diagonal():
  xs = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], dtype=np.float32)
  x = tf.constant(xs)
  with tf.GradientTape() as tape:
    tape.watch(x)
    y = x * x
  bj = tape.batch_jacobian(y, x)
  assert bj.shape == (2, 3, 3)
  np.testing.assert_allclose(bj.numpy(), np.stack([np.diag(2 * r) for r in xs]))


def test_batch_jacobian_mismatched_batch_raises():
  x = tf.constant([[1.0, 2.0]])
  with tf.GradientTape() as tape:
    tape.watch(x)
    y = tf.reshape(x, [2, 1])
  with pytest.raises(ValueError):
    tape.batch_jacobian(y, x)


def test_jacobian_agrees_with_finite_differences():
  from gradcheck import check_grads
  check_grads(lambda a, b: tf.tanh(a) * b + a * a, [np.array([0.3, -0.7]),
                                                   np.array([1.5, 2.0])], order=2)


def test_python_control_flow_on_tensor_values_under_a_tape():
  # Eagerly, `if`/`for`/`while` on tensor values are plain Python: the tape records
  # the branch and iterations taken (TF 2.21 gives the same gradients).
  x = tf.Variable(2.0)
  with tf.GradientTape() as t:
    if x > 1:
      y = x * x
    else:
      y = x
    for _ in tf.range(3):
      y = y + x
  assert t.gradient(y, x).numpy() == 7.0      # 2x + 3
  with tf.GradientTape() as t:
    y = x
    while y < 10:
      y = y * x
  assert t.gradient(y, x).numpy() == 32.0     # d(x^4)/dx at 2
  with tf.GradientTape() as t:
    y = x if x < 0 else -3 * x
  assert t.gradient(y, x).numpy() == -3.0
