"""Fused optimizer update ops: in-place writes, snapshots, graphs, errors."""
import numpy as np
import pytest

import tensorlet as tf
from tensorlet.ops import training_ops as T
from tensorlet.ops.registry import execute


def test_gradient_descent_writes_in_place_when_unshared():
  v = tf.Variable(np.arange(6, dtype=np.float32))
  address = v._value.__array_interface__["data"][0]
  execute(T.ResourceApplyGradientDescent, [v.handle, tf.constant(0.5), tf.ones([6])])
  # nothing else held the array: updated in place
  assert v._value.__array_interface__["data"][0] == address
  np.testing.assert_array_equal(v.numpy(), np.arange(6) - 0.5)


def test_shared_array_is_copied_so_reads_keep_their_values():
  v = tf.Variable([1.0, 2.0])
  m = tf.Variable([0.0, 0.0])
  read = v.read_value()
  execute(T.ResourceApplyKerasMomentum, [v.handle, m.handle, tf.constant(1.0),
                                         tf.constant([1.0, 1.0])],
          {"momentum": 0.5, "use_nesterov": False})
  np.testing.assert_array_equal(read.numpy(), [1.0, 2.0])
  np.testing.assert_array_equal(v.numpy(), [0.0, 1.0])
  np.testing.assert_array_equal(m.numpy(), [-1.0, -1.0])


def test_adam_in_a_graph_is_one_node_per_variable():
  from tensorlet.keras import optimizers
  opt = optimizers.Adam()
  vs = [tf.Variable(tf.ones([3, 2])), tf.Variable(tf.zeros([2]))]

  @tf.function
  def step(g1, g2):
    opt.apply_gradients([(g1, vs[0]), (g2, vs[1])])
  cf = step.get_concrete_function(tf.ones([3, 2]), tf.ones([2]))
  types = [o.type for o in cf.graph.get_operations()]
  assert types.count("ResourceApplyKerasAdam") == 2
  assert len([t for t in types if t not in ("Placeholder",)]) <= 4
  step(tf.ones([3, 2]), tf.ones([2]))
  assert opt.iterations.numpy() == 1
  np.testing.assert_allclose(vs[1].numpy(), [-0.001, -0.001], rtol=1e-4)


def test_adagrad_and_rmsprop_kernels():
  v, acc = tf.Variable([1.0]), tf.Variable([0.1])
  execute(T.ResourceApplyKerasAdagrad, [v.handle, acc.handle, tf.constant(0.1),
                                        tf.constant([2.0])], {"epsilon": 1e-7})
  np.testing.assert_allclose(acc.numpy(), [4.1])
  np.testing.assert_allclose(v.numpy(), [1.0 - 0.2 / np.sqrt(4.1 + 1e-7)], rtol=1e-6)
  v, ms = tf.Variable([1.0]), tf.Variable([0.0])
  execute(T.ResourceApplyKerasRMSProp, [v.handle, ms.handle, tf.constant(0.1),
                                        tf.constant([2.0])],
          {"rho": 0.9, "momentum": 0.0, "epsilon": 1e-7, "centered": False})
  np.testing.assert_allclose(ms.numpy(), [0.4], rtol=1e-6)
  np.testing.assert_allclose(v.numpy(), [1.0 - 0.2 / np.sqrt(0.4 + 1e-7)], rtol=1e-6)


def test_errors_name_the_op():
  v = tf.Variable([1.0, 2.0])
  with pytest.raises(tf.errors.InvalidArgumentError,
                     match=r"same shape \[2\] \[3\] \[Op:ResourceApplyGradientDescent\]"):
    execute(T.ResourceApplyGradientDescent, [v.handle, tf.constant(0.5), tf.ones([3])])
  with pytest.raises(tf.errors.InvalidArgumentError, match="attr 'T'"):
    execute(T.ResourceApplyGradientDescent, [tf.constant([1.0]), tf.constant(0.5),
                                             tf.ones([1])])
  np.testing.assert_array_equal(v.numpy(), [1.0, 2.0])


NEW_KERNELS = [
    ("ResourceApplyKerasAdamax", 2, True, False, {"beta_1": 0.9, "beta_2": 0.999,
                                                  "epsilon": 1e-7}),
    ("ResourceApplyKerasNadam", 2, True, True, {"beta_1": 0.9, "beta_2": 0.999,
                                                "epsilon": 1e-7}),
    ("ResourceApplyKerasAdadelta", 2, False, False, {"rho": 0.95, "epsilon": 1e-7}),
    ("ResourceApplyKerasFtrl", 2, False, False, {"lr_power": -0.5, "l1": 0.0, "l2": 0.0,
                                                 "l2_shrinkage": 0.0, "beta": 0.0}),
    ("ResourceApplyKerasLion", 1, False, False, {"beta_1": 0.9, "beta_2": 0.99}),
]


@pytest.mark.parametrize("name,slots,iters,uprod,attrs", NEW_KERNELS,
                         ids=[k[0] for k in NEW_KERNELS])
def test_new_kernels_in_place_graph_and_errors(name, slots, iters, uprod, attrs):
  kernel = getattr(T, name)
  v = tf.Variable(np.arange(1, 7, dtype=np.float32))
  ss = [tf.Variable(np.full(6, 0.1, np.float32)) for _ in range(slots)]
  it = tf.Variable(0, dtype=tf.int64)

  def inputs(grad):
    out = [v.handle] + [s.handle for s in ss] + [tf.constant(0.1)]
    out += [it.handle] if iters else []
    out += [tf.constant(0.9 * (1 - 0.5 * 0.96))] if uprod else []
    return out + [grad]
  address = v._value.__array_interface__["data"][0]
  execute(kernel, inputs(tf.ones([6])), attrs)
  assert v._value.__array_interface__["data"][0] == address  # written in place
  after_one = v.numpy().copy()
  assert not np.allclose(after_one, np.arange(1, 7))
  @tf.function
  def step(g):
    execute(kernel, inputs(g), attrs)
  step(tf.ones([6]))
  assert not np.allclose(v.numpy(), after_one)
  kept = v.numpy().copy()
  with pytest.raises(tf.errors.InvalidArgumentError, match=rf"same shape \[6\] \[3\] \[Op:{name}\]"):
    execute(kernel, inputs(tf.ones([3])), attrs)
  np.testing.assert_array_equal(v.numpy(), kept)


@pytest.mark.parametrize("chunk", [T._CHUNK, 1000])
def test_adam_runs_big_variables_in_chunks_with_the_same_values(monkeypatch, chunk):
  monkeypatch.setattr(T, "_CHUNK", chunk)
  rs = np.random.RandomState(3)
  size = 2 * T._CHUNK + 37  # a partial last run
  w0, g = rs.standard_normal((size,)).astype(np.float32), rs.standard_normal((size,))
  v, m, s = (tf.Variable(w0.reshape(-1, 1)), tf.Variable(np.zeros((size, 1), np.float32)),
             tf.Variable(np.zeros((size, 1), np.float32)))
  it = tf.Variable(0, dtype=tf.int64)
  want_w, want_m, want_v = w0.astype(np.float64), np.zeros(size), np.zeros(size)
  for step in range(2):
    gg = (g * (step + 1)).astype(np.float32)
    execute(T.ResourceApplyKerasAdam, [v.handle, m.handle, s.handle, tf.constant(0.01),
                                       it.handle, tf.constant(gg.reshape(-1, 1))],
            {"beta_1": 0.9, "beta_2": 0.999, "epsilon": 1e-7})
    it.assign_add(1)
    want_m += (gg - want_m) * 0.1
    want_v += (gg.astype(np.float64) ** 2 - want_v) * 0.001
    t = step + 1
    alpha = 0.01 * np.sqrt(1 - 0.999 ** t) / (1 - 0.9 ** t)
    want_w -= alpha * want_m / (np.sqrt(want_v) + 1e-7)
  np.testing.assert_allclose(m.numpy()[:, 0], want_m, rtol=1e-5, atol=1e-6)
  np.testing.assert_allclose(s.numpy()[:, 0], want_v, rtol=1e-5, atol=1e-9)
  np.testing.assert_allclose(v.numpy()[:, 0], want_w, rtol=1e-5, atol=1e-6)
