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
  assert rc is not None and rc.replica_id_in_sync_group == 0  # a Python int, as TF
  assert float(s.run(lambda x: x + 1.0, args=(tf.constant(1.0),))) == 2.0
  np.testing.assert_array_equal(s.reduce("SUM", tf.constant([1.0, 2.0]), axis=None), [1, 2])
  assert s.experimental_local_results(tf.constant(3.0))[0].numpy() == 3.0
  v = tf.Variable(1.0)
  assert type(v) is tf.Variable
  with s.scope():
    assert not tf.distribute.in_cross_replica_context() and not tf.distribute.has_strategy()
    assert tf.distribute.get_replica_context() is not None


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
  assert isinstance(r, tf.distribute.DistributedValues) and type(r).__name__ == "PerReplica"
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
  same = tf.constant(1.0)  # one object on both replicas: returned as it is (TF 2.21)
  r = s.run(lambda: tf.distribute.get_replica_context().all_reduce("SUM", same))
  assert [t.numpy() for t in s.experimental_local_results(r)] == [1.0, 1.0]
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
  with pytest.raises(RuntimeError, match="cross-replica context"):
    s.run(lambda: s.run(lambda: 1.0))
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


def test_gather_and_all_gather(two_cpus):
  s = tf.distribute.MirroredStrategy(two_cpus)
  r = s.run(lambda: tf.fill([2, 1], _rid()))
  np.testing.assert_array_equal(s.gather(r, axis=0), [[0.0], [0.0], [1.0], [1.0]])
  g = s.run(lambda: tf.distribute.get_replica_context().all_gather(
      tf.fill([1, 2], _rid()), axis=0))
  for t in s.experimental_local_results(g):
    np.testing.assert_array_equal(t, [[0.0, 0.0], [1.0, 1.0]])


def test_experimental_set_strategy_and_kwargs(two_cpus):
  s = tf.distribute.MirroredStrategy(two_cpus)
  tf.distribute.experimental_set_strategy(s)
  try:
    assert tf.distribute.get_strategy() is s
  finally:
    tf.distribute.experimental_set_strategy(None)
  assert not tf.distribute.has_strategy()
  per = s.experimental_distribute_values_from_function(
      lambda ctx: tf.constant(float(ctx.replica_id_in_sync_group)))
  out = s.run(lambda a, b=None: a + b, args=(tf.constant(1.0),), kwargs={"b": per})
  assert [t.numpy() for t in s.experimental_local_results(out)] == [1.0, 2.0]
  assert tf.distribute.ReduceOp.from_variable_aggregation(
      tf.VariableAggregation.MEAN) is tf.distribute.ReduceOp.MEAN


def test_checkpoints_move_between_strategies(two_cpus, tmp_path):
  s = tf.distribute.MirroredStrategy(two_cpus)
  with s.scope():
    v = tf.Variable([1.0, 2.0])
    total = tf.Variable(0.0, synchronization=tf.VariableSynchronization.ON_READ,
                        aggregation=tf.VariableAggregation.SUM)
  s.run(lambda: total.assign_add(_rid() + 1.0))
  path = tf.train.Checkpoint(v=v, total=total).write(str(tmp_path / "c"))
  plain_v, plain_t = tf.Variable([0.0, 0.0]), tf.Variable(0.0)
  tf.train.Checkpoint(v=plain_v, total=plain_t).read(path)
  assert plain_v.numpy().tolist() == [1.0, 2.0] and plain_t.numpy() == 3.0  # the sum
  plain_t.assign(8.0)
  path2 = tf.train.Checkpoint(v=plain_v, total=plain_t).write(str(tmp_path / "d"))
  tf.train.Checkpoint(v=v, total=total).read(path2)
  assert total.numpy() == 8.0 and [c.numpy() for c in total.values] == [4.0, 4.0]


def test_summaries_in_replicas_are_written_by_replica_0(two_cpus, tmp_path):
  s = tf.distribute.MirroredStrategy(two_cpus)
  writer = tf.summary.create_file_writer(str(tmp_path))
  with writer.as_default(step=3):
    wrote = s.run(lambda: tf.summary.scalar("x", _rid() + 1.0))
  writer.close()
  assert [bool(w) for w in s.experimental_local_results(wrote)] == [True, False]
  from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
  acc = EventAccumulator(str(tmp_path), size_guidance={"tensors": 0})
  acc.Reload()
  (event,) = acc.Tensors("x")  # one value: replica 0's
  assert event.step == 3 and list(event.tensor_proto.float_val) == [1.0]


def test_cross_device_ops_and_communication_options(two_cpus):
  for ops in (tf.distribute.ReductionToOneDevice(), tf.distribute.HierarchicalCopyAllReduce(),
              tf.distribute.NcclAllReduce()):
    s = tf.distribute.MirroredStrategy(two_cpus, cross_device_ops=ops)
    r = s.run(lambda: _rid() + 1.0)
    assert float(ops.reduce("SUM", r)) == 3.0 and float(ops.reduce("MEAN", r)) == 1.5
    assert float(s.reduce("SUM", r, axis=None)) == 3.0
  with pytest.raises(ValueError, match="CrossDeviceOps"):
    tf.distribute.MirroredStrategy(two_cpus, cross_device_ops="nccl")
  opts = tf.distribute.experimental.CommunicationOptions(timeout_seconds=5.0)
  assert opts.timeout_seconds == 5.0 and opts.implementation is \
      tf.distribute.experimental.CommunicationImplementation.AUTO
  with pytest.raises(ValueError):
    tf.distribute.experimental.CommunicationOptions(bytes_per_pack=-1)


def test_merge_call_with_one_replica_passes_values_through():
  for s in (tf.distribute.get_strategy(), tf.distribute.OneDeviceStrategy("/cpu:0"),
            tf.distribute.MirroredStrategy(["/cpu:0"])):
    got = s.run(lambda: tf.distribute.get_replica_context().merge_call(
        lambda strategy, v: (type(v).__name__, tf.distribute.in_cross_replica_context()),
        args=(tf.constant(1.0),)))
    assert got[0] != "PerReplica"
    if s is not tf.distribute.get_strategy():
      assert got[1] is True


def test_run_reuses_its_replica_threads(two_cpus):
  import threading
  s = tf.distribute.MirroredStrategy(two_cpus)

  def who(x):
    tf.distribute.get_replica_context().all_reduce("SUM", x)
    return threading.get_ident()
  first = s.experimental_local_results(s.run(who, args=(tf.constant(1.0),)))
  again = s.experimental_local_results(s.run(who, args=(tf.constant(1.0),)))
  assert first == again and len(set(first)) == 2


  def fails(x):
    if tf.distribute.get_replica_context().replica_id_in_sync_group == 1:
      raise ValueError("replica 1 failed")
    return tf.distribute.get_replica_context().all_reduce("SUM", x)
  with pytest.raises(ValueError, match="replica 1 failed"):
    s.run(fails, args=(tf.constant(1.0),))
  # The failure unwound both replicas; the same threads serve the next call.
  assert s.experimental_local_results(s.run(who, args=(tf.constant(1.0),))) == first


def test_replica_threads_end_with_their_strategy(two_cpus):
  import gc
  import threading
  import time

  def replica_threads():
    return {t for t in threading.enumerate() if t.name.startswith("tensorlet-replica-")}
  before = replica_threads()
  s = tf.distribute.MirroredStrategy(two_cpus)
  s.run(lambda x: x + 1.0, args=(tf.constant(1.0),))
  mine = replica_threads() - before
  assert len(mine) == 2
  del s
  gc.collect()
  for _ in range(200):
    if not any(t.is_alive() for t in mine):
      break
    time.sleep(0.01)
  assert not any(t.is_alive() for t in mine)
