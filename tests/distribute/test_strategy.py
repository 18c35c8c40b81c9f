"""Strategies, replica contexts, run/reduce/PerReplica, all_reduce and merge_call,
checked against TF 2.21's MirroredStrategy over two virtual CPUs."""
import numpy as np
import pytest

import tensorlet as tf
from tensorlet._unsupported import NotImplementedInTensorlet


def _rid():
  return tf.cast(tf.distribute.get_replica_context().replica_id_in_sync_group, tf.float32)


def test_default_strategy_outside_any_scope():
  s = tf.distribute.get_strategy()
  assert s.num_replicas_in_sync == 1
  assert not tf.distribute.has_strategy() and not tf.distribute.in_cross_replica_context()
  rc = tf.distribute.get_replica_context()
  assert rc is not None and int(rc.replica_id_in_sync_group) == 0
  assert float(s.run(lambda x: x + 1.0, args=(tf.constant(1.0),))) == 2.0
  np.testing.assert_array_equal(s.reduce("SUM", tf.constant([1.0, 2.0]), axis=None), [1, 2])
  assert s.experimental_local_results(tf.constant(3.0))[0].numpy() == 3.0
  v = tf.Variable(1.0)
  assert type(v) is tf.Variable


def test_mirrored_strategy_devices(two_cpus):
  s = tf.distribute.MirroredStrategy(two_cpus)
  assert s.num_replicas_in_sync == 2
  assert s.extended.worker_devices == ("/job:localhost/replica:0/task:0/device:CPU:0",
                                       "/job:localhost/replica:0/task:0/device:CPU:1")
  assert tf.distribute.MirroredStrategy().num_replicas_in_sync == 2  # every logical CPU
  with pytest.raises(ValueError, match="not a logical device"):
    tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:5"])
  with pytest.raises(ValueError, match="No duplicates"):
    tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:0"])


def test_scope_contexts(two_cpus):
  s = tf.distribute.MirroredStrategy(two_cpus)
  with s.scope():
    assert tf.distribute.has_strategy() and tf.distribute.get_strategy() is s
    assert tf.distribute.in_cross_replica_context()
    assert tf.distribute.get_replica_context() is None
    with pytest.raises(ValueError, match="Mixing different"):
      with tf.distribute.MirroredStrategy(two_cpus).scope():
        pass
  assert not tf.distribute.has_strategy()


def test_run_reduce_and_local_results(two_cpus):
  s = tf.distribute.MirroredStrategy(two_cpus)
  seen = []

  def fn(x):
    seen.append((int(tf.distribute.get_replica_context().replica_id_in_sync_group),
                 tf.distribute.in_cross_replica_context(), tf.distribute.get_strategy() is s))
    return x * (_rid() + 1.0)
  r = s.run(fn, args=(tf.constant(2.0),))
  assert seen == [(0, False, True), (1, False, True)]
  assert isinstance(r, tf.distribute.experimental.PerReplica)
  assert [t.numpy() for t in s.experimental_local_results(r)] == [2.0, 4.0]
  assert float(s.reduce(tf.distribute.ReduceOp.SUM, r, axis=None)) == 6.0
  assert float(s.reduce("MEAN", r, axis=None)) == 3.0
  ones = s.run(lambda: tf.ones([3, 2]) * _rid())
  np.testing.assert_allclose(s.reduce("SUM", ones, axis=0), [3.0, 3.0])
  np.testing.assert_allclose(s.reduce("MEAN", ones, axis=0), [0.5, 0.5])
  # A value that is not per-replica: MEAN keeps it, SUM is an error (as TF).
  np.testing.assert_array_equal(s.reduce("MEAN", tf.constant([1.0, 2.0]), axis=None), [1, 2])
  with pytest.raises(ValueError, match="non-DistributedValues"):
    s.reduce("SUM", tf.constant([1.0, 2.0]), axis=None)
  with pytest.raises(ValueError, match="reduce_op"):
    s.reduce("PROD", r, axis=None)


def test_all_reduce_and_merge_call(two_cpus):
  s = tf.distribute.MirroredStrategy(two_cpus)
  r = s.run(lambda: tf.distribute.get_replica_context().all_reduce("SUM", _rid() + 1.0))
  assert [t.numpy() for t in s.experimental_local_results(r)] == [3.0, 3.0]
  nested = s.run(lambda: tf.distribute.get_replica_context().all_reduce(
      "MEAN", {"a": _rid(), "b": [tf.ones([2]) * _rid()]}))
  assert s.experimental_local_results(nested)[1]["a"].numpy() == 0.5
  np.testing.assert_allclose(s.experimental_local_results(nested)[0]["b"][0], [0.5, 0.5])
  got = []

  def merge(strategy, value):
    got.append((type(value).__name__, tf.distribute.in_cross_replica_context()))
    return strategy.reduce("SUM", value, axis=None)
  out = s.run(lambda: tf.distribute.get_replica_context().merge_call(
      merge, args=(_rid() + 5.0,)))
  assert got == [("PerReplica", True)]
  assert float(out) == 11.0  # the same tensor on both replicas: not a PerReplica


def test_replica_errors_propagate_without_hanging(two_cpus):
  s = tf.distribute.MirroredStrategy(two_cpus)

  def fn():
    if int(tf.distribute.get_replica_context().replica_id_in_sync_group) == 1:
      raise KeyError("boom")
    return tf.distribute.get_replica_context().all_reduce("SUM", tf.constant(1.0))
  with pytest.raises(KeyError, match="boom"):
    s.run(fn)

  def uneven():
    if int(tf.distribute.get_replica_context().replica_id_in_sync_group) == 0:
      tf.distribute.get_replica_context().all_reduce("SUM", tf.constant(1.0))
    return 0
  with pytest.raises(RuntimeError, match="different number of times"):
    s.run(uneven)
  assert float(s.reduce("SUM", s.run(lambda: _rid()), axis=None)) == 1.0  # still usable


def test_per_replica_values_pass_through_tf_function(two_cpus):
  s = tf.distribute.MirroredStrategy(two_cpus)
  traces = []

  @tf.function
  def step(x):
    traces.append(1)
    return s.reduce("SUM", s.run(lambda v: v * 2.0, args=(x,)), axis=None)
  for k in range(3):
    x = s.experimental_distribute_values_from_function(
        lambda ctx: tf.constant([float(ctx.replica_id_in_sync_group + k)]))
    assert step(x).numpy().tolist() == [2.0 * (2 * k + 1)]
  assert len(traces) == 1


def test_one_device_strategy():
  s = tf.distribute.OneDeviceStrategy("/cpu:0")
  assert s.num_replicas_in_sync == 1
  with s.scope():
    v = tf.Variable(1.0)
    assert tf.distribute.get_strategy() is s
  assert type(v) is tf.Variable
  assert float(s.run(lambda: v + 1.0)) == 2.0
  with pytest.raises(ValueError):
    tf.distribute.OneDeviceStrategy("/gpu:3")


def test_names_not_implemented_raise():
  with pytest.raises(NotImplementedInTensorlet, match="tf.distribute.TPUStrategy"):
    tf.distribute.TPUStrategy  # noqa: B018
  with pytest.raises(NotImplementedInTensorlet):
    tf.distribute.experimental.ParameterServerStrategy  # noqa: B018
  assert isinstance(tf.distribute.InputContext(), tf.distribute.InputContext)
