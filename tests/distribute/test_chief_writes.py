"""Only the chief writes checkpoints, backups and TensorBoard logs; other workers save
into temporary directories they remove (saving reads variables collectively)."""
import os

import numpy as np
import pytest

import tensorlet as tf

X = np.random.default_rng(0).normal(size=(8, 3)).astype("float32")
Y = np.ones((8, 1), "float32")


def _files(root):
  return sorted(os.path.relpath(os.path.join(d, f), root)
                for d, _, fs in os.walk(root) for f in fs)


def _fit(strategy, tmp_path, **callbacks):
  with strategy.scope():
    tf.keras.utils.set_random_seed(1)
    model = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(3,))])
    model.compile("sgd", "mse")
  cbs = [tf.keras.callbacks.ModelCheckpoint(str(tmp_path / "ckpt" / "w-{epoch}.weights.h5"),
                                            save_weights_only=True),
         tf.keras.callbacks.TensorBoard(str(tmp_path / "logs"), write_graph=False),
         tf.keras.callbacks.BackupAndRestore(str(tmp_path / "backup"),
                                             delete_checkpoint=False)]
  model.fit(X, Y, batch_size=4, epochs=2, verbose=0, callbacks=cbs)
  return model


@pytest.mark.parametrize("rank", [0, 1])
def test_callbacks_write_on_the_chief_only(two_cpus, fake_workers, tmp_path, rank):
  coll = fake_workers(rank=rank, size=2)
  _fit(tf.distribute.MirroredStrategy(two_cpus, collectives=coll), tmp_path)
  files = _files(tmp_path)
  if rank == 0:
    assert "ckpt/w-1.weights.h5" in files and "ckpt/w-2.weights.h5" in files
    assert any(f.startswith("logs/train/events.out.tfevents") for f in files)
    assert "backup/chief/backup_state.json" in files
  else:
    assert files == []
    # ... but it saved what the chief saved: the reads made the same collective calls.
    assert any(c[0] == "all_reduce" for c in coll.calls)


@pytest.mark.parametrize("rank", [0, 1])
def test_checkpoint_manager_writes_on_the_chief_only(two_cpus, fake_workers, tmp_path, rank):
  s = tf.distribute.MirroredStrategy(two_cpus, collectives=fake_workers(rank=rank, size=2))
  with s.scope():
    v = tf.Variable([1.0, 2.0])
    total = tf.Variable(3.0, synchronization=tf.VariableSynchronization.ON_READ,
                        aggregation=tf.VariableAggregation.SUM)
  ckpt = tf.train.Checkpoint(v=v, total=total)
  written = []
  write = ckpt.write

  def recording_write(prefix, options=None):  # what was on disk right after the write
    out = write(prefix, options)
    written.append((os.path.relpath(prefix, tmp_path), _files(tmp_path)))
    return out
  ckpt.write = recording_write
  manager = tf.train.CheckpointManager(ckpt, str(tmp_path), max_to_keep=2)
  path = manager.save()  # outside the scope: the process is still worker `rank`
  assert path == str(tmp_path / "ckpt-1")
  if rank == 0:
    assert written[0][0] == "ckpt-1"
    assert "checkpoint" in _files(tmp_path) and tf.train.latest_checkpoint(str(tmp_path))
  else:
    # The worker wrote a whole checkpoint, into its temporary directory only, then
    # removed it.
    assert written[0][0] == "workertemp_1/ckpt-1"
    assert written[0][1] and all(f.startswith("workertemp_1/") for f in written[0][1])
    assert _files(tmp_path) == []
