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


EMBEDDING_FIT = """
import tensorlet as tf
rng = np.random.default_rng(0)
x = rng.integers(0, 20, size=(64, 6)).astype(np.int32)
y = rng.integers(0, 3, size=64).astype(np.int32)
strategy = tf.distribute.MultiWorkerMirroredStrategy() if sys.argv[1] == "mwms" \\
    else tf.distribute.get_strategy()
with strategy.scope():
  init = lambda seed: tf.keras.initializers.GlorotUniform(seed=seed)
  model = tf.keras.Sequential([
      tf.keras.Input((6,), dtype="int32"),
      tf.keras.layers.Embedding(20, 4, embeddings_initializer=init(1)),
      tf.keras.layers.GlobalAveragePooling1D(),
      tf.keras.layers.Dense(3, kernel_initializer=init(2))])
  model.compile(optimizer=tf.keras.optimizers.SGD(0.5, momentum=0.5),
                loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
history = model.fit(tf.data.Dataset.from_tensor_slices((x, y)).batch(16), epochs=2, verbose=0)
report({"weights": [w.numpy().tolist() for w in model.weights],
        "loss": history.history["loss"]})
"""


def test_embedding_fit_two_workers_match_one_process(tmp_path):
  from mpi_launch import check_ok, run_workers
  out = []
  for n, mode in ((1, "plain"), (2, "mwms")):
    done, rep = run_workers(tmp_path / mode, EMBEDDING_FIT, n=n, args=[mode])
    check_ok(done)
    assert sorted(rep) == list(range(n))
    out.append(rep[0][0])
  one, two = out
  for a, b in zip(one["weights"], two["weights"]):
    np.testing.assert_allclose(np.array(a), np.array(b), rtol=1e-4, atol=1e-5)
  np.testing.assert_allclose(one["loss"], two["loss"], rtol=1e-4)
