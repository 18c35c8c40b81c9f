"""IndexedSlices gradients under MirroredStrategy: summed over the replicas (densely,
which gives TF's values) before the optimizer step."""
import numpy as np

import tensorlet as tf


def test_sparse_gradients_are_all_reduced(two_cpus):
  strategy = tf.distribute.MirroredStrategy(two_cpus)
  with strategy.scope():
    emb = tf.Variable(np.ones((5, 2), np.float32))
    opt = tf.keras.optimizers.SGD(0.5)

  @tf.function
  def step(ids):
    def replica(ids):
      with tf.GradientTape() as t:
        loss = tf.reduce_sum(tf.gather(emb, ids))
      g = t.gradient(loss, emb)
      opt.apply_gradients([(g, emb)])
      return loss
    return strategy.run(replica, args=(ids,))
  data = tf.data.Dataset.from_tensor_slices(np.array([[0, 1], [3, 3]])).batch(2)
  for batch in strategy.experimental_distribute_dataset(data):
    step(batch)
  # TF's result: replica 0 saw rows 0 and 1, replica 1 row 3 twice
  np.testing.assert_array_equal(emb.numpy(), [[0.5] * 2, [0.5] * 2, [1] * 2, [0] * 2, [1] * 2])


def test_reduce_of_indexed_slices(two_cpus):
  strategy = tf.distribute.MirroredStrategy(two_cpus)
  per_replica = strategy.run(
      lambda: tf.IndexedSlices(tf.ones([1, 2]), tf.constant([1]), tf.constant([5, 2])))
  total = strategy.reduce("SUM", per_replica, axis=None)
  np.testing.assert_array_equal(tf.convert_to_tensor(total).numpy()[1], [2, 2])
  assert float(tf.reduce_sum(total)) == 4.0
