"""Keras callbacks, driven by Model.fit and by a small stand-in model."""
import glob
import os
import re

import numpy as np
import pytest

import tensorlet as tf
from tensorlet.keras import callbacks


class FakeModel:
  """Just what callbacks use: weights, stop_training, save_weights."""

  def __init__(self):
    self.w = [np.zeros(2)]
    self.stop_training = False
    self.saved = []
    self.metrics = []

  def get_weights(self):
    return [a.copy() for a in self.w]

  def set_weights(self, ws):
    self.w = [a.copy() for a in ws]

  def save_weights(self, path, overwrite=True):
    self.saved.append(path)

  def save(self, path, overwrite=True):
    self.saved.append(("model", path))


def _epochs(cb, values, key="val_loss", model=None):
  model = model or FakeModel()
  cbs = callbacks.CallbackList([cb], model=model, epochs=len(values), steps=1, verbose=0)
  cbs.on_train_begin()
  for epoch, v in enumerate(values):
    model.w = [np.full(2, float(epoch))]
    cbs.on_epoch_end(epoch, {key: v})
    if model.stop_training:
      break
  cbs.on_train_end()
  return model, epoch


def _data():
  rng = np.random.default_rng(0)
  x = rng.standard_normal((64, 3)).astype(np.float32)
  y = x @ np.array([[1.0], [-2.0], [0.5]], np.float32)
  return x, y


def _model():
  tf.random.set_seed(0)
  m = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(3,))])
  m.compile(tf.keras.optimizers.SGD(0.1), "mse")
  return m


def test_early_stopping_patience_and_restore():
  cb = callbacks.EarlyStopping(patience=1, restore_best_weights=True)
  model, stopped = _epochs(cb, [3.0, 2.0, 2.5, 2.4, 1.0])
  assert stopped == 2 and cb.stopped_epoch == 2 and cb.best == 2.0 and cb.best_epoch == 1
  np.testing.assert_array_equal(model.w[0], [1.0, 1.0])  # weights of the best epoch
  cb = callbacks.EarlyStopping(monitor="val_accuracy", min_delta=0.1, patience=0)
  _, stopped = _epochs(cb, [0.5, 0.55, 0.9], key="val_accuracy")
  assert stopped == 1  # mode 'auto' maximises accuracies; 0.05 is below min_delta
  cb = callbacks.EarlyStopping(monitor="loss", baseline=1.0, patience=2)
  _, stopped = _epochs(cb, [3.0, 2.0, 1.5, 0.5], key="loss")
  assert stopped == 1  # did not reach the baseline within the patience


def test_early_stopping_verbose_and_missing_metric(capsys):
  cb = callbacks.EarlyStopping(monitor="loss", patience=0, verbose=1)
  _epochs(cb, [1.0, 2.0], key="loss")
  assert capsys.readouterr().out == "Epoch 2: early stopping\n"
  with pytest.warns(UserWarning, match="Early stopping conditioned on metric `val_loss`"):
    _epochs(callbacks.EarlyStopping(), [1.0], key="loss")
  with pytest.warns(UserWarning, match="mode foo is unknown"):
    callbacks.EarlyStopping(mode="foo")


def test_early_stopping_stops_fit():
  x, y = _data()
  m = _model()
  m.compile(tf.keras.optimizers.SGD(0.0), "mse")  # no progress: stops after patience
  hist = m.fit(x, y, epochs=20, batch_size=16, verbose=0,
               callbacks=[callbacks.EarlyStopping(monitor="loss", patience=2)])
  assert len(hist.history["loss"]) == 3 and hist.epoch == [0, 1, 2]


def test_model_checkpoint_best_only_and_formatting(capsys):
  cb = callbacks.ModelCheckpoint("ck/w.{epoch:02d}-{val_loss:.1f}", save_best_only=True,
                                 save_weights_only=True, verbose=1)
  model, _ = _epochs(cb, [3.0, 4.0, 2.0])
  assert model.saved == ["ck/w.01-3.0", "ck/w.03-2.0"]
  out = capsys.readouterr().out
  assert "\nEpoch 1: val_loss improved from inf to 3.00000, saving model to ck/w.01-3.0\n" in out
  assert "\nEpoch 2: val_loss did not improve from 3.00000\n" in out
  with pytest.raises(KeyError, match='Failed to format this callback filepath: "{nope}"'):
    _epochs(callbacks.ModelCheckpoint("{nope}"), [1.0])
  with pytest.raises(ValueError, match="Unrecognized save_freq"):
    callbacks.ModelCheckpoint("x", save_freq="sometimes")


def test_model_checkpoint_writes_weights_during_fit(tmp_path):
  x, y = _data()
  m = _model()
  path = str(tmp_path / "weights.{epoch}")
  m.fit(x, y, epochs=2, batch_size=16, verbose=0,
        callbacks=[callbacks.ModelCheckpoint(path, monitor="loss", save_weights_only=True)])
  assert sorted(os.path.basename(p) for p in glob.glob(str(tmp_path / "weights.2*"))) == \
      ["weights.2.data-00000-of-00001", "weights.2.index"]
  fresh = _model()
  fresh.load_weights(str(tmp_path / "weights.2"))
  np.testing.assert_allclose(fresh.predict(x, verbose=0), m.predict(x, verbose=0), rtol=1e-6)
  batches = callbacks.ModelCheckpoint(str(tmp_path / "b{epoch}"), save_weights_only=True,
                                      save_freq=3)
  m.fit(x, y, epochs=2, batch_size=16, verbose=0, callbacks=[batches])  # 8 batches
  assert len(glob.glob(str(tmp_path / "b*.index"))) == 2  # saved after batches 3 and 6


def test_history_and_lambda_callback_in_fit():
  x, y = _data()
  m = _model()
  seen = []
  lam = callbacks.LambdaCallback(
      on_epoch_end=lambda epoch, logs: seen.append(("epoch", epoch, sorted(logs))),
      on_batch_end=lambda batch, logs: seen.append(("batch", batch)),
      on_train_end=lambda logs: seen.append("end"),
      on_test_begin=lambda logs: seen.append("test"))
  hist = m.fit(x, y, epochs=2, batch_size=32, verbose=0, validation_data=(x, y),
               callbacks=[lam])
  assert isinstance(hist, callbacks.History) and m.history is hist
  assert hist.epoch == [0, 1] and sorted(hist.history) == ["loss", "val_loss"]
  assert hist.history["loss"][1] < hist.history["loss"][0]
  assert seen == [("batch", 0), ("batch", 1), "test", ("epoch", 0, ["loss", "val_loss"]),
                  ("batch", 0), ("batch", 1), "test", ("epoch", 1, ["loss", "val_loss"]),
                  "end"]
  with pytest.raises(ValueError, match="unknown hook"):
    callbacks.LambdaCallback(on_nothing=print)


def test_progbar_logger_output_of_fit(capsys):
  x, y = _data()
  m = _model()
  m.fit(x, y, epochs=2, batch_size=32)
  out = capsys.readouterr().out
  lines = out.splitlines()
  assert lines[0] == "Epoch 1/2" and lines[2] == "Epoch 2/2" and len(lines) == 4
  assert re.fullmatch(r"2/2 \[==============================\] - \d+s \d+(us|ms|s)/step - "
                      r"loss: \d+\.\d{4}", lines[1]), lines[1]
  assert "\r" not in out and "\b" not in out
  m.evaluate(x, y, batch_size=64)
  # NOTE: times vary on a loaded host (1s, 1s/step): the format is what is checked.
  assert re.fullmatch(r"1/1 \[=+\] - \d+s \d+(us|ms|s)/step - loss: \d\.\d{4}\n",
                      capsys.readouterr().out)
  m.fit(x, y, epochs=1, batch_size=64, verbose=2)
  assert re.fullmatch(r"1/1 - \d+s - loss: \d\.\d{4} - \d+(us|ms|s)/epoch - \d+(us|ms|s)/step\n",
                      capsys.readouterr().out)


def test_callback_list_adds_defaults_once_and_dispatches():
  hist = callbacks.History()
  cbs = callbacks.CallbackList([hist], add_history=True, add_progbar=True, model=FakeModel(),
                               verbose=0, epochs=1, steps=2)
  assert cbs.callbacks[0] is hist and isinstance(cbs.callbacks[1], callbacks.ProgbarLogger)
  assert len(cbs.callbacks) == 2 and hist.params["steps"] == 2
  with pytest.raises(TypeError, match="Callback instances"):
    callbacks.CallbackList([print])
  with pytest.raises(ValueError, match="Unknown `count_mode`"):
    callbacks.ProgbarLogger(count_mode="minutes")


def test_tensorboard_writes_event_files(tmp_path):
  pytest.importorskip("tensorboard")
  from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
  x, y = _data()
  m = _model()
  tb = callbacks.TensorBoard(log_dir=str(tmp_path), histogram_freq=1, update_freq="batch")
  m.fit(x, y, epochs=2, batch_size=32, verbose=0, validation_data=(x, y), callbacks=[tb])
  train = EventAccumulator(str(tmp_path / "train"), size_guidance={"tensors": 0})
  train.Reload()
  tags = train.Tags()
  assert {"epoch_loss", "batch_loss"} <= set(tags["tensors"])
  assert any(t.startswith("dense") for t in tags["tensors"])  # weight histograms
  assert tags["graph"]
  assert [e.step for e in train.Tensors("epoch_loss")] == [0, 1]
  val = EventAccumulator(str(tmp_path / "validation"), size_guidance={"tensors": 0})
  val.Reload()
  assert "epoch_loss" in val.Tags()["tensors"]
  with pytest.raises(NotImplementedError, match="profile"):
    callbacks.TensorBoard(profile_batch=2)
  with pytest.raises(ValueError, match="update_freq"):
    callbacks.TensorBoard(update_freq="hourly")
