"""ReduceLROnPlateau, LearningRateScheduler, CSVLogger, TerminateOnNaN and
BackupAndRestore, driven by Model.fit and checked against hand-kept sequences."""
import csv
import os

import numpy as np
import pytest

import tensorlet as tf

K = tf.keras
rng = np.random.default_rng(11)
X = rng.standard_normal((16, 3)).astype(np.float32)
Y = (X @ np.array([[1.0], [-2.0], [0.5]], np.float32)).astype(np.float32)


def _model(lr=0.01, opt=None):
  tf.keras.utils.set_random_seed(4)
  model = K.Sequential([K.layers.Dense(1, input_shape=(3,))])
  model.compile(opt or K.optimizers.SGD(lr), "mse")
  return model


class _Feed(K.callbacks.Callback):
  """Replaces the epoch's monitored value by a scripted one (before the callbacks
  that read it, as it comes first in the list)."""

  def __init__(self, values, key="val_loss"):
    super().__init__()
    self.values, self.key = values, key

  def on_epoch_end(self, epoch, logs=None):
    logs[self.key] = self.values[epoch]


def _plateau_by_hand(values, lr, factor, patience, cooldown, min_lr, min_delta):
  best, wait, cool, out = np.inf, 0, 0, []
  for v in values:
    out.append(lr)
    if cool > 0:
      cool -= 1
      wait = 0
    if v < best - min_delta:
      best, wait = v, 0
    elif cool <= 0:
      wait += 1
      if wait >= patience and lr > min_lr:
        lr, cool, wait = max(lr * factor, min_lr), cooldown, 0
  return out, lr


def test_reduce_lr_on_plateau_follows_the_rule():
  values = [1.0, 0.9, 0.95, 0.95, 0.95, 0.89, 0.99, 0.99, 0.99, 0.99, 0.99, 0.99]
  model = _model(0.1)
  cb = K.callbacks.ReduceLROnPlateau(monitor="val_loss", factor=0.5, patience=2, cooldown=1,
                                     min_lr=0.02, min_delta=0.001)
  h = model.fit(X, Y, epochs=len(values), callbacks=[_Feed(values), cb], verbose=0)
  logged, final = _plateau_by_hand(values, 0.1, 0.5, 2, 1, 0.02, 0.001)
  np.testing.assert_allclose(h.history["lr"], logged, rtol=1e-6)
  np.testing.assert_allclose(float(model.optimizer.lr.numpy()), final, rtol=1e-6)
  # accuracy-like monitors improve upwards in auto mode
  cb = K.callbacks.ReduceLROnPlateau(monitor="val_accuracy", factor=0.5, patience=1)
  model = _model(0.1)
  h = model.fit(X, Y, epochs=3, callbacks=[_Feed([0.5, 0.6, 0.6], "val_accuracy"), cb],
                verbose=0)
  np.testing.assert_allclose(h.history["lr"], [0.1, 0.1, 0.1], rtol=1e-6)
  assert float(model.optimizer.lr.numpy()) == pytest.approx(0.05)
  with pytest.raises(ValueError, match="does not support a factor >= 1.0"):
    K.callbacks.ReduceLROnPlateau(factor=1.5)
  with pytest.warns(UserWarning, match="conditioned on metric `val_loss`"):
    _model().fit(X, Y, epochs=1, callbacks=[K.callbacks.ReduceLROnPlateau()], verbose=0)


def test_learning_rate_scheduler_sets_each_epoch():
  model = _model(0.1)
  sched = K.callbacks.LearningRateScheduler(lambda epoch, lr: lr * 0.5 if epoch else lr)
  h = model.fit(X, Y, epochs=4, callbacks=[sched], verbose=0)
  np.testing.assert_allclose(h.history["lr"], [0.1, 0.05, 0.025, 0.0125], rtol=1e-6)
  # one-argument schedules; the epochs' SGD steps use the scheduled rate
  w0 = np.array([[0.0], [0.0], [0.0]], np.float32)
  model = K.Sequential([K.layers.Dense(1, input_shape=(3,), use_bias=False)])
  model.set_weights([w0])
  model.compile(K.optimizers.SGD(1.0), "mse")
  model.fit(X, Y, epochs=2, batch_size=16, shuffle=False, verbose=0,
            callbacks=[K.callbacks.LearningRateScheduler(lambda e: [0.1, 0.01][e])])
  w = w0
  for lr in (0.1, 0.01):
    w = w - lr * 2 * X.T @ (X @ w - Y) / 16
  np.testing.assert_allclose(model.get_weights()[0], w, rtol=1e-5)
  bad = K.callbacks.LearningRateScheduler(lambda e: "fast")
  with pytest.raises(ValueError, match='output of the "schedule" function should be float'):
    _model().fit(X, Y, epochs=1, callbacks=[bad], verbose=0)


def test_csv_logger_rows_append_and_missing_values(tmp_path):
  path = str(tmp_path / "log.csv")
  model = _model()
  h = model.fit(X, Y, epochs=3, validation_data=(X, Y), validation_freq=2, verbose=0,
                callbacks=[K.callbacks.CSVLogger(path)])
  with open(path) as f:
    rows = list(csv.reader(f))
  assert rows[0] == ["epoch", "loss", "val_loss"]
  assert [r[0] for r in rows[1:]] == ["0", "1", "2"]
  np.testing.assert_allclose([float(r[1]) for r in rows[1:]], h.history["loss"])
  assert rows[1][2] == "NA" and float(rows[2][2]) == pytest.approx(h.history["val_loss"][0])
  model.fit(X, Y, epochs=1, verbose=0, callbacks=[K.callbacks.CSVLogger(path, separator=";",
                                                                        append=True)])
  with open(path) as f:
    lines = f.read().splitlines()
  assert len(lines) == 5 and lines[-1].startswith("0;")  # appended, no second header


def test_terminate_on_nan_stops_at_the_batch():
  model = _model(1e30)  # diverges to inf/nan within a few batches
  seen = []
  h = model.fit(X * 1e10, Y, batch_size=2, epochs=3, verbose=0,
                callbacks=[K.callbacks.TerminateOnNaN(),
                           K.callbacks.LambdaCallback(
                               on_batch_end=lambda b, logs: seen.append(logs["loss"]))])
  assert not np.isfinite(seen[-1]) and all(np.isfinite(seen[:-1]))
  assert len(seen) < 8 and len(h.history["loss"]) == 1


class _Crash(K.callbacks.Callback):
  def __init__(self, at_epoch, at_batch=None):
    super().__init__()
    self.at_epoch, self.at_batch = at_epoch, at_batch

  def on_train_batch_end(self, batch, logs=None):
    if self._epoch == self.at_epoch and (self.at_batch is None or batch == self.at_batch):
      raise RuntimeError("interrupted")

  def on_epoch_begin(self, epoch, logs=None):
    self._epoch = epoch


@pytest.mark.parametrize("save_freq", ["epoch", 3])
def test_backup_and_restore_resumes_where_it_stopped(tmp_path, save_freq):
  backup = str(tmp_path / "backup")
  ref = _model(opt=K.optimizers.Adam(0.05))
  ref.fit(X, Y, batch_size=4, epochs=4, shuffle=False, verbose=0)

  model = _model(opt=K.optimizers.Adam(0.05))
  cb = K.callbacks.BackupAndRestore(backup, save_freq=save_freq)
  with pytest.raises(RuntimeError, match="interrupted"):
    model.fit(X, Y, batch_size=4, epochs=4, shuffle=False, verbose=0,
              callbacks=[cb, _Crash(2, 2 if save_freq == 3 else None)])
  assert os.path.exists(os.path.join(backup, "chief", "backup_state.json"))
  # a new process: fresh model and optimizer, the same fit call
  again = _model(opt=K.optimizers.Adam(0.05))
  epochs = []
  h = again.fit(X, Y, batch_size=4, epochs=4, shuffle=False, verbose=0,
                callbacks=[K.callbacks.BackupAndRestore(backup, save_freq=save_freq),
                           K.callbacks.LambdaCallback(
                               on_epoch_begin=lambda e, logs: epochs.append(e))])
  # epoch backups: epochs 0 and 1 were saved, so 2 and 3 run; batch backups (every 3
  # batches of 4 per epoch): the last was epoch 2, batch 1, so epoch 2 goes on at batch 2
  assert epochs == [2, 3]
  assert again.optimizer.iterations.numpy() == 16
  np.testing.assert_allclose(again.get_weights()[0], ref.get_weights()[0], rtol=1e-5)
  assert h.epoch == [2, 3]
  assert not os.path.exists(backup)  # deleted after a fit that finished


def test_backup_and_restore_arguments():
  with pytest.raises(ValueError, match="Empty `backup_dir`"):
    K.callbacks.BackupAndRestore("")
  with pytest.raises(ValueError, match="Unrecognized save_freq"):
    K.callbacks.BackupAndRestore("/tmp/x", save_freq="batch")
  with pytest.raises(NotImplementedError, match="save before preemption"):
    K.callbacks.BackupAndRestore("/tmp/x", save_before_preemption=True)


def test_progbar_logger_options(capsys):
  x, y = np.ones((8, 3), np.float32), np.ones((8, 1), np.float32)
  model = K.Sequential([K.layers.Dense(1, input_shape=(3,), kernel_initializer="zeros")])
  model.compile(K.optimizers.SGD(0.1), "mse", metrics=["mae"])
  model.fit(x, y, batch_size=4, epochs=2, verbose=2)
  lines = capsys.readouterr().out.splitlines()
  # verbose=2: one line per epoch, the same text as Keras 2 up to the timings
  assert lines[0] == "Epoch 1/2" and lines[2] == "Epoch 2/2"
  assert lines[1].startswith("2/2 - ") and " - loss: 0.5200 - mae: 0.6000 - " in lines[1]
  assert " - loss: 8.3200e-04 - mae: 0.0240 - " in lines[3]
  # a ProgbarLogger of one's own replaces the default one, and follows fit's verbose
  model.fit(x, y, batch_size=4, epochs=1, verbose=0,
            callbacks=[K.callbacks.ProgbarLogger(count_mode="steps")])
  assert capsys.readouterr().out == ""
  logger = K.callbacks.ProgbarLogger(count_mode="steps", stateful_metrics=["mae"])
  model.fit(x, y, batch_size=4, epochs=1, verbose=1, callbacks=[logger])
  out = capsys.readouterr().out
  assert "2/2 [==============================]" in out and logger.use_steps
  assert "mae" in logger.progbar.stateful_metrics
  with pytest.raises(ValueError, match="Unknown `count_mode`: rows"):
    K.callbacks.ProgbarLogger(count_mode="rows")
