"""MultiWorkerMirroredStrategy end to end under `mpiexec -n 2`: two workers training on
a global batch end with the same weights as one process training on that batch (custom
loop and Keras fit, to float tolerance), metrics aggregated across workers, and a job
killed mid-training resumes from BackupAndRestore's last epoch."""
import numpy as np
import pytest

from mpi_launch import check_ok, run_workers

pytest.importorskip("mpi4py")

MODEL = """
import tensorlet as tf
GLOBAL_BATCH = 16
EXAMPLES = int(os.environ.get("EXAMPLES", "64"))
rng = np.random.default_rng(0)
x = rng.normal(size=(EXAMPLES, 5)).astype(np.float32)
y = rng.integers(0, 3, size=EXAMPLES).astype(np.int32)
if sys.argv[1] == "mwms":
  strategy = tf.distribute.MultiWorkerMirroredStrategy()
elif sys.argv[1] == "mirrored2":  # one process, two replicas over virtual CPUs
  cpu = tf.config.list_physical_devices("CPU")[0]
  tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
  strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
else:
  strategy = tf.distribute.get_strategy()

def make_model():
  init = lambda seed: tf.keras.initializers.GlorotUniform(seed=seed)
  return tf.keras.Sequential([
      tf.keras.Input((5,)),
      tf.keras.layers.Dense(8, activation="tanh", kernel_initializer=init(1)),
      tf.keras.layers.Dense(3, kernel_initializer=init(2))])

dataset = tf.data.Dataset.from_tensor_slices((x, y)).batch(GLOBAL_BATCH)

def weights(model):
  return [w.numpy().tolist() for w in model.weights]
"""


CUSTOM_LOOP = MODEL + """
with strategy.scope():
  model = make_model()
  opt = tf.keras.optimizers.SGD(0.5, momentum=0.5)  # sensitive to the gradients' scale
dist_dataset = strategy.experimental_distribute_dataset(dataset)

@tf.function
def train_step(batch):
  def replica_fn(xb, yb):
    with tf.GradientTape() as tape:
      logits = model(xb, training=True)
      per_example = tf.keras.losses.sparse_categorical_crossentropy(yb, logits,
                                                                  from_logits=True)
      loss = tf.nn.compute_average_loss(per_example, global_batch_size=GLOBAL_BATCH)
    grads = tape.gradient(loss, model.trainable_variables)
    opt.apply_gradients(zip(grads, model.trainable_variables))
    return loss
  per_replica = strategy.run(replica_fn, args=batch)
  return strategy.reduce(tf.distribute.ReduceOp.SUM, per_replica, axis=None)

@tf.function
def train_epoch():  # the loop over the distributed dataset inside the graph
  total = tf.constant(0.0)
  for batch in dist_dataset:
    total += train_step(batch)
  return total

losses = []
for epoch in range(3):
  if os.environ.get("LOOP_IN_GRAPH"):
    losses.append(float(train_epoch()))
  else:
    for batch in dist_dataset:
      losses.append(float(train_step(batch)))
report({"weights": weights(model), "losses": losses,
        "replicas": strategy.num_replicas_in_sync})
"""


def _same_on_workers(rep, n):
  assert sorted(rep) == list(range(n))
  for r in range(1, n):
    assert rep[r] == rep[0]  # mirrored: bit-identical on every worker
  return rep[0][0]


def _close(a, b, atol=1e-5):
  for u, v in zip(a, b):
    np.testing.assert_allclose(np.array(u), np.array(v), rtol=1e-4, atol=atol)


def _one_process_and_two_workers(tmp_path, source, examples=64, reference="plain", env=None):
  """The reports of `source` run by one process (without a strategy, or with 2 replicas)
  and by 2 workers."""
  out = []
  for n, mode in ((1, reference), (2, "mwms")):
    done, rep = run_workers(tmp_path / mode, source, n=n, args=[mode],
                            env={"EXAMPLES": str(examples), **(env or {})})
    check_ok(done)
    out.append(_same_on_workers(rep, n))
  return out


def test_custom_loop_two_workers_match_one_process(tmp_path):
  one, two = _one_process_and_two_workers(tmp_path, CUSTOM_LOOP)
  assert one["replicas"] == 1 and two["replicas"] == 2
  assert len(two["losses"]) == 12
  _close(one["losses"], two["losses"])
  _close(one["weights"], two["weights"])
  assert two["losses"][-1] < two["losses"][0]  # it trained


FIT = MODEL + """
with strategy.scope():
  model = make_model()
  model.compile(optimizer=tf.keras.optimizers.SGD(0.5),
                loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                metrics=["accuracy"])
history = model.fit(dataset, epochs=3, verbose=0)
evaluation = model.evaluate(dataset, verbose=0)
report({"weights": weights(model), "history": history.history, "evaluation": evaluation,
        "replicas": strategy.num_replicas_in_sync})
"""


def test_custom_loop_over_the_dataset_inside_tf_function(tmp_path):
  one, two = _one_process_and_two_workers(tmp_path, CUSTOM_LOOP, env={"LOOP_IN_GRAPH": "1"})
  assert len(two["losses"]) == 3  # one per epoch
  _close(one["losses"], two["losses"])
  _close(one["weights"], two["weights"])


def test_fit_two_workers_match_one_process(tmp_path):
  # 70 examples: 4 global batches of 16, then one of 6 (3 per worker)
  one, two = _one_process_and_two_workers(tmp_path, FIT, 70)
  assert two["replicas"] == 2
  _close(one["weights"], two["weights"])
  # metrics are aggregated over both workers: the accuracy of the global batch
  _close(one["history"]["accuracy"], two["history"]["accuracy"], atol=1e-6)
  _close(one["history"]["loss"], two["history"]["loss"])
  _close(one["evaluation"], two["evaluation"])


def test_fit_uneven_last_batch_as_two_local_replicas(tmp_path):
  # 65 examples: the last global batch has 1 example, so one worker gets none. As in TF,
  # that is not one process's result (each replica's loss is scaled by 1/2): it is
  # MirroredStrategy's over two virtual CPUs (which test_training.py checks against TF).
  mirrored, two = _one_process_and_two_workers(tmp_path, FIT, 65, reference="mirrored2")
  assert mirrored["replicas"] == two["replicas"] == 2
  _close(mirrored["weights"], two["weights"])
  _close(mirrored["history"]["loss"], two["history"]["loss"])
  _close(mirrored["history"]["accuracy"], two["history"]["accuracy"], atol=1e-6)


RESUMABLE = MODEL + """
backup_dir = sys.argv[2]
crash_after = int(sys.argv[3])

class Crash(tf.keras.callbacks.Callback):
  def on_epoch_begin(self, epoch, logs=None):
    report({"epoch": epoch})
  def on_epoch_end(self, epoch, logs=None):
    if epoch == crash_after:
      strategy.extended.collectives.barrier()  # the chief has written this epoch's backup
      if strategy.extended.collectives.rank == 1:
        os._exit(3)  # then a worker dies

with strategy.scope():
  model = make_model()
  model.compile(optimizer=tf.keras.optimizers.Adam(0.05),
                loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
model.fit(dataset, epochs=4, verbose=0,
          callbacks=[tf.keras.callbacks.BackupAndRestore(backup_dir), Crash()])
report({"weights": weights(model)})
"""


def test_backup_and_restore_resumes_after_a_dead_worker(tmp_path):
  backup = str(tmp_path / "backup")
  done, rep = run_workers(tmp_path / "a", RESUMABLE, n=2, args=["mwms", backup, "1"],
                          env={"TENSORLET_COLLECTIVE_TIMEOUT": "20"})
  assert done.returncode != 0  # the job failed: worker 1 died after epoch 1
  assert [r["epoch"] for r in rep[0] if "epoch" in r][:2] == [0, 1]
  done, rep = run_workers(tmp_path / "b", RESUMABLE, n=2, args=["mwms", backup, "-1"])
  check_ok(done)
  for r in range(2):
    assert [e["epoch"] for e in rep[r] if "epoch" in e] == [2, 3]  # resumed after epoch 1
  assert rep[0][-1] == rep[1][-1]
  done, full = run_workers(tmp_path / "c", RESUMABLE, n=1,
                           args=["plain", str(tmp_path / "other"), "-1"])
  check_ok(done)
  _close(full[0][-1]["weights"], rep[0][-1]["weights"])
