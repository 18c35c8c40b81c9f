"""Variables created in MirroredStrategy's scope: mirrored and sync-on-read, with their
aggregation honoured as TF 2.21's."""
import numpy as np
import pytest

import tensorlet as tf
from tensorlet.distribute.distributed_variables import MirroredVariable, SyncOnReadVariable


def _rid():
  return tf.cast(tf.distribute.get_replica_context().replica_id_in_sync_group, tf.float32)


def test_variables_in_scope_are_distributed(two_cpus):
  s = tf.distribute.MirroredStrategy(two_cpus)
  with s.scope():
    v = tf.Variable(1.0)
    w = tf.Variable(0.0, synchronization=tf.VariableSynchronization.ON_READ,
                    aggregation=tf.VariableAggregation.SUM)
  assert isinstance(v, MirroredVariable) and isinstance(v, tf.Variable)
  assert v.synchronization == tf.VariableSynchronization.ON_WRITE
  assert isinstance(w, SyncOnReadVariable) and len(w.values) == 2
  assert [x.numpy() for x in s.experimental_local_results(v)] == [1.0, 1.0]
  assert s.extended.variable_created_in_scope(v)
  assert type(tf.Variable(2.0)) is tf.Variable  # outside the scope: a plain variable


def test_sync_on_read_reads_the_aggregate(two_cpus):
  s = tf.distribute.MirroredStrategy(two_cpus)
  with s.scope():
    w = tf.Variable(0.0, synchronization=tf.VariableSynchronization.ON_READ,
                    aggregation=tf.VariableAggregation.SUM)
    m = tf.Variable(0.0, synchronization=tf.VariableSynchronization.ON_READ,
                    aggregation=tf.VariableAggregation.MEAN)

  def fn():
    w.assign_add(_rid() + 1.0)
    m.assign(_rid() + 1.0)
    return w.read_value()
  local = s.run(fn)
  assert [t.numpy() for t in s.experimental_local_results(local)] == [1.0, 2.0]
  assert w.numpy() == 3.0 and float(w.read_value()) == 3.0 and m.numpy() == 1.5
  assert [c.numpy() for c in w.values] == [1.0, 2.0]
  w.assign(5.0)  # cross-replica: the sum is spread over the copies
  assert [c.numpy() for c in w.values] == [2.5, 2.5] and w.numpy() == 5.0
  m.assign(4.0)
  assert [c.numpy() for c in m.values] == [4.0, 4.0]
  with pytest.raises(ValueError, match="does not support `assign_add` in cross-replica"):
    w.assign_add(1.0)


def test_mirrored_updates_follow_aggregation(two_cpus):
  s = tf.distribute.MirroredStrategy(two_cpus)
  with s.scope():
    first = tf.Variable(0.0, aggregation=tf.VariableAggregation.ONLY_FIRST_REPLICA)
    total = tf.Variable(0.0, aggregation=tf.VariableAggregation.SUM)
    mean = tf.Variable(0.0, aggregation=tf.VariableAggregation.MEAN)
    plain = tf.Variable(0.0)

  def fn():
    first.assign_add(_rid() + 1.0)
    total.assign_add(_rid() + 1.0)
    mean.assign(_rid() + 1.0)
    return first
  assert s.run(fn) is first
  assert (first.numpy(), total.numpy(), mean.numpy()) == (1.0, 3.0, 1.5)
  # No aggregation: each replica updates its copy in TF; read in cross-replica context
  # that is replica 0's update.
  s.run(lambda: plain.assign_add(_rid() + 2.0))
  assert plain.numpy() == 2.0
  plain.assign(7.0)  # cross-replica writes need no aggregation
  assert plain.numpy() == 7.0


def test_variables_created_in_replica_functions_are_shared(two_cpus):
  s = tf.distribute.MirroredStrategy(two_cpus)
  made = []

  def fn():
    if not made or len(made) < 2:
      made.append(tf.Variable(_rid() + 10.0))
    return made[-1] + _rid()
  out = s.run(fn)
  assert made[0] is made[1] and isinstance(made[0], MirroredVariable)
  assert made[0].numpy() == 10.0  # replica 0's initial value
  assert [t.numpy() for t in s.experimental_local_results(out)] == [10.0, 11.0]


def test_initial_values_are_broadcast_from_the_chief(two_cpus, fake_workers):
  coll = fake_workers(rank=1, size=2)
  s = tf.distribute.MirroredStrategy(two_cpus, collectives=coll)
  assert s.num_replicas_in_sync == 4
  with s.scope():
    tf.Variable([1.0, 2.0])
  assert coll.calls == [("broadcast", 1, 0)]


@pytest.fixture
def mixed_float16():
  tf.keras.mixed_precision.set_global_policy("mixed_float16")
  yield
  tf.keras.mixed_precision.set_global_policy(None)


def _mixed_model():
  tf.keras.utils.set_random_seed(3)
  model = tf.keras.Sequential([tf.keras.layers.Dense(4, input_shape=(3,)),
                               tf.keras.layers.Dense(1, dtype="float32")])
  model.compile(tf.keras.optimizers.SGD(0.1), "mse")
  return model


def test_mixed_precision_variables_are_mirrored(two_cpus, mixed_float16):
  from tensorlet.keras.mixed_precision.autocast_variable import AutoCastVariable
  s = tf.distribute.MirroredStrategy(two_cpus)
  with s.scope():
    model = _mixed_model()
  k = model.layers[0].kernel
  # As TF 2.21: an AutoCastDistributedVariable, both autocasting and mirrored.
  assert type(k).__name__ == "AutoCastDistributedVariable"
  assert isinstance(k, AutoCastVariable) and isinstance(k, MirroredVariable)
  assert s.extended.variable_created_in_scope(k) and len(k.values) == 2
  assert k.dtype == tf.float32 and k.true_dtype == tf.float32
  x = np.arange(24, dtype="float32").reshape(8, 3) / 24
  y = x.sum(1, keepdims=True)
  out = s.run(lambda xb: model.layers[0](xb), args=(tf.constant(x[:2]),))
  assert {t.dtype for t in s.experimental_local_results(out)} == {tf.float16}
  # Training reduces the replicas' float32 gradients into the one float32 variable:
  # the same weights as one replica on the whole batch.
  model.fit(x, y, batch_size=8, epochs=3, verbose=0)
  one = _mixed_model()
  one.fit(x, y, batch_size=8, epochs=3, verbose=0)
  for a, b in zip(model.get_weights(), one.get_weights()):
    np.testing.assert_allclose(a, b, rtol=2e-3, atol=2e-3)
  assert not np.allclose(model.get_weights()[0], _mixed_model().get_weights()[0])
