"""tf.keras.callbacks: hooks called by fit/evaluate/predict (Keras 2 semantics).

The training loops only talk to a CallbackList, which adds History and the
ProgbarLogger when asked and dispatches every hook to every callback.
"""
import os
import sys
import warnings

import numpy as np

from tensorlet import _nest as nest
from tensorlet.keras.utils.progbar import Progbar

__all__ = ["Callback", "CallbackList", "History", "ProgbarLogger", "EarlyStopping",
           "ModelCheckpoint", "TensorBoard", "LambdaCallback", "ReduceLROnPlateau",
           "LearningRateScheduler", "CSVLogger", "TerminateOnNaN", "BackupAndRestore"]


class Callback:
  """Base class: override the `on_*` hooks you need; `model` and `params` are set
  by the loop before training starts."""

  def __init__(self):
    self.validation_data = None
    self.model = None
    self.params = {}

  def set_params(self, params):
    self.params = params

  def set_model(self, model):
    self.model = model

  def on_batch_begin(self, batch, logs=None):
    """Alias of on_train_batch_begin (Keras keeps both)."""

  def on_batch_end(self, batch, logs=None):
    """Alias of on_train_batch_end."""

  def on_epoch_begin(self, epoch, logs=None):
    pass

  def on_epoch_end(self, epoch, logs=None):
    pass

  def on_train_batch_begin(self, batch, logs=None):
    self.on_batch_begin(batch, logs=logs)

  def on_train_batch_end(self, batch, logs=None):
    self.on_batch_end(batch, logs=logs)

  def on_test_batch_begin(self, batch, logs=None):
    pass

  def on_test_batch_end(self, batch, logs=None):
    pass

  def on_predict_batch_begin(self, batch, logs=None):
    pass

  def on_predict_batch_end(self, batch, logs=None):
    pass

  def on_train_begin(self, logs=None):
    pass

  def on_train_end(self, logs=None):
    pass

  def on_test_begin(self, logs=None):
    pass

  def on_test_end(self, logs=None):
    pass

  def on_predict_begin(self, logs=None):
    pass

  def on_predict_end(self, logs=None):
    pass


_HOOKS = [f"on_{w}_{e}" for w in ("train", "test", "predict") for e in ("begin", "end")]
_HOOKS += [f"on_{w}_batch_{e}" for w in ("train", "test", "predict") for e in ("begin", "end")]
_HOOKS += ["on_epoch_begin", "on_epoch_end", "on_batch_begin", "on_batch_end"]


class CallbackList(Callback):
  """Calls each hook on every callback, in order; adds History (`add_history`) and
  a ProgbarLogger (`add_progbar`) unless the list already has one."""

  def __init__(self, callbacks=None, add_history=False, add_progbar=False, model=None,
               **params):
    super().__init__()
    self.callbacks = list(nest.flatten(callbacks)) if callbacks else []
    for cb in self.callbacks:
      if not isinstance(cb, Callback):
        raise TypeError(f"Callbacks must be tf.keras.callbacks.Callback instances; received "
                        f"{cb!r} of type {type(cb).__name__}.")
    self._history = next((c for c in self.callbacks if isinstance(c, History)), None)
    self._progbar = next((c for c in self.callbacks if isinstance(c, ProgbarLogger)), None)
    if self._history is None and add_history:
      self._history = History()
      self.callbacks.append(self._history)
    if self._progbar is None and add_progbar:
      self._progbar = ProgbarLogger(count_mode="steps")
      self.callbacks.append(self._progbar)
    if model is not None:
      self.set_model(model)
    if params:
      self.set_params(params)

  def append(self, callback):
    self.callbacks.append(callback)

  def set_params(self, params):
    self.params = params
    for cb in self.callbacks:
      cb.set_params(params)

  def set_model(self, model):
    self.model = model
    if self._history is not None:
      model.history = self._history
    for cb in self.callbacks:
      cb.set_model(model)

  def __iter__(self):
    return iter(self.callbacks)


def _dispatch(hook):
  # NOTE: as Keras: hooks get their logs positionally, {} when the loop has none.
  if hook.endswith(("_begin", "_end")) and "batch" not in hook and "epoch" not in hook:
    def method(self, logs=None):
      logs = {} if logs is None else logs
      for cb in self.callbacks:
        getattr(cb, hook)(logs)
  else:
    def method(self, index, logs=None):
      logs = {} if logs is None else logs
      for cb in self.callbacks:
        getattr(cb, hook)(index, logs)
  method.__name__ = hook
  method.__doc__ = f"Calls `{hook}` on every callback."
  return method


for _hook in _HOOKS:
  setattr(CallbackList, _hook, _dispatch(_hook))


class History(Callback):
  """Records the epoch logs: `history` maps each name to its per-epoch values."""

  def __init__(self):
    super().__init__()
    self.history = {}
    self.epoch = []

  def on_train_begin(self, logs=None):
    self.epoch = []

  def on_epoch_end(self, epoch, logs=None):
    self.epoch.append(epoch)
    for k, v in (logs or {}).items():
      self.history.setdefault(k, []).append(v)
    self.model.history = self


class ProgbarLogger(Callback):
  """Prints `Epoch i/n` and a Progbar per epoch (verbose from `params`)."""

  def __init__(self, count_mode="samples", stateful_metrics=None):
    super().__init__()
    if count_mode not in ("samples", "steps"):
      raise ValueError(f'Unknown `count_mode`: {count_mode}. Expected values are ["samples", '
                       f'"steps"]')
    self.use_steps = count_mode == "steps"
    self._stateful = set(stateful_metrics or ())
    self.verbose, self.epochs, self.target = 1, 1, None
    self.progbar = None
    self._seen = 0
    self._in_fit = False

  def set_params(self, params):
    self.verbose = params.get("verbose", 1)
    self.epochs = params.get("epochs", 1)
    self.target = params.get("steps") if self.use_steps else params.get("samples")

  def _start(self):
    self._seen = 0
    self.progbar = Progbar(self.target, verbose=self.verbose, stateful_metrics=self._stateful,
                           unit_name="step" if self.use_steps else "sample")

  def _bar(self):
    if self.progbar is None:
      self._start()
    # NOTE: as Keras: the model's metrics are running results, shown as given (they
    # exist once the first batch has run).
    self.progbar.stateful_metrics.update(m.name for m in getattr(self.model, "metrics", ()))
    return self.progbar

  def _update(self, batch, logs):
    self._seen = batch + 1
    self._bar().update(self._seen, list((logs or {}).items()), finalize=False)

  def _finish(self, logs):
    bar = self._bar()
    if self.target is None:
      bar.target = self.target = self._seen
    bar.update(self.target, list((logs or {}).items()), finalize=True)

  def on_train_begin(self, logs=None):
    self._in_fit = True

  def on_train_end(self, logs=None):
    self._in_fit = False

  def on_epoch_begin(self, epoch, logs=None):
    self._start()
    if self.verbose and self.epochs > 1:
      print(f"Epoch {epoch + 1}/{self.epochs}", flush=True)

  def on_train_batch_end(self, batch, logs=None):
    self._update(batch, logs)

  def on_epoch_end(self, epoch, logs=None):
    self._finish(logs)

  def on_test_begin(self, logs=None):
    if not self._in_fit:
      self._start()

  def on_test_batch_end(self, batch, logs=None):
    if not self._in_fit:
      self._update(batch, logs)

  def on_test_end(self, logs=None):
    if not self._in_fit:
      self._finish(logs)

  def on_predict_begin(self, logs=None):
    self._start()

  def on_predict_batch_end(self, batch, logs=None):
    self._update(batch, None)

  def on_predict_end(self, logs=None):
    self._finish(None)


def _monitor_op(mode, monitor, who):
  if mode not in ("auto", "min", "max"):
    warnings.warn(f"{who} mode {mode} is unknown, fallback to auto mode.", stacklevel=3)
    mode = "auto"
  if mode == "auto":
    mode = "max" if monitor.endswith(("acc", "accuracy", "auc")) else "min"
  return np.greater if mode == "max" else np.less


class EarlyStopping(Callback):
  """Stops training when `monitor` has not improved by `min_delta` for `patience`
  epochs; optionally restores the weights of the best epoch."""

  def __init__(self, monitor="val_loss", min_delta=0, patience=0, verbose=0, mode="auto",
               baseline=None, restore_best_weights=False, start_from_epoch=0):
    super().__init__()
    self.monitor = monitor
    self.patience = patience
    self.verbose = verbose
    self.baseline = baseline
    self.min_delta = abs(min_delta)
    self.restore_best_weights = restore_best_weights
    self.start_from_epoch = start_from_epoch
    self.monitor_op = _monitor_op(mode, monitor, "EarlyStopping")
    if self.monitor_op is np.less:
      self.min_delta = -self.min_delta
    self.wait = self.stopped_epoch = self.best_epoch = 0
    self.best = None
    self.best_weights = None

  def on_train_begin(self, logs=None):
    self.wait = self.stopped_epoch = self.best_epoch = 0
    self.best = np.inf if self.monitor_op is np.less else -np.inf
    self.best_weights = None

  def _improved(self, value, reference):
    return bool(self.monitor_op(value - self.min_delta, reference))

  def on_epoch_end(self, epoch, logs=None):
    current = (logs or {}).get(self.monitor)
    if current is None:
      warnings.warn(f"Early stopping conditioned on metric `{self.monitor}` which is not "
                    f"available. Available metrics are: {','.join(logs or {})}", stacklevel=2)
      return
    if epoch < self.start_from_epoch:
      return
    if self.restore_best_weights and self.best_weights is None:
      self.best_weights = self.model.get_weights()
    self.wait += 1
    if self._improved(current, self.best):
      self.best, self.best_epoch = current, epoch
      if self.restore_best_weights:
        self.best_weights = self.model.get_weights()
      if self.baseline is None or self._improved(current, self.baseline):
        self.wait = 0
        return
    if self.wait >= self.patience and epoch > 0:
      self.stopped_epoch = epoch
      self.model.stop_training = True
      if self.restore_best_weights and self.best_weights is not None:
        if self.verbose > 0:
          print(f"Restoring model weights from the end of the best epoch: "
                f"{self.best_epoch + 1}.")
        self.model.set_weights(self.best_weights)

  def on_train_end(self, logs=None):
    if self.stopped_epoch > 0 and self.verbose > 0:
      print(f"Epoch {self.stopped_epoch + 1}: early stopping")


class ModelCheckpoint(Callback):
  """Saves the model (or its weights) every epoch or every `save_freq` batches, to
  `filepath` formatted with `epoch` and the logs (`"w.{epoch:02d}-{val_loss:.2f}"`)."""

  def __init__(self, filepath, monitor="val_loss", verbose=0, save_best_only=False,
               save_weights_only=False, mode="auto", save_freq="epoch", options=None,
               initial_value_threshold=None, **kwargs):
    super().__init__()
    if save_freq != "epoch" and not isinstance(save_freq, int):
      raise ValueError(f"Unrecognized save_freq: {save_freq}. Expected save_freq are 'epoch' "
                       f"or integer values")
    self.filepath = os.fspath(filepath)
    self.monitor = monitor
    self.verbose = verbose
    self.save_best_only = save_best_only
    self.save_weights_only = save_weights_only
    self.save_freq = save_freq
    self.monitor_op = _monitor_op(mode, monitor, "ModelCheckpoint")
    if initial_value_threshold is not None:
      self.best = initial_value_threshold
    else:
      self.best = np.inf if self.monitor_op is np.less else -np.inf
    self._batches = 0
    self._epoch = 0

  def on_epoch_begin(self, epoch, logs=None):
    self._epoch = epoch

  def on_train_batch_end(self, batch, logs=None):
    if self.save_freq == "epoch":
      return
    self._batches += 1
    if self._batches >= self.save_freq:
      self._batches = 0
      self._save(self._epoch, logs)

  def on_epoch_end(self, epoch, logs=None):
    if self.save_freq == "epoch":
      self._save(epoch, logs)

  def _path(self, epoch, logs):
    try:
      return self.filepath.format(epoch=epoch + 1, **(logs or {}))
    except KeyError as e:
      raise KeyError(f'Failed to format this callback filepath: "{self.filepath}". Reason: '
                     f'{e}') from None

  def _save(self, epoch, logs):
    logs = logs or {}
    path = self._path(epoch, logs)
    if self.save_best_only:
      current = logs.get(self.monitor)
      if current is None:
        warnings.warn(f"Can save best model only with {self.monitor} available, skipping.",
                      stacklevel=3)
        return
      if not self.monitor_op(current, self.best):
        if self.verbose > 0:
          print(f"\nEpoch {epoch + 1}: {self.monitor} did not improve from {self.best:.5f}")
        return
      if self.verbose > 0:
        print(f"\nEpoch {epoch + 1}: {self.monitor} improved from {self.best:.5f} to "
              f"{current:.5f}, saving model to {path}")
      self.best = current
    elif self.verbose > 0:
      print(f"\nEpoch {epoch + 1}: saving model to {path}")
    files = _files()
    strategy = _strategy_of(self.model)
    path = files.write_filepath(path, strategy)  # non-chief workers: a temporary copy
    directory = os.path.dirname(path)
    if directory:
      os.makedirs(directory, exist_ok=True)
    if self.save_weights_only:
      self.model.save_weights(path, overwrite=True)
    else:
      self.model.save(path, overwrite=True)
    files.remove_temp_dirpath(os.path.dirname(self._path(epoch, logs)), strategy)


class TensorBoard(Callback):
  """Writes epoch (and optionally batch) logs, weight histograms and the training
  graph as TensorBoard event files under `log_dir`/train and `log_dir`/validation."""

  def __init__(self, log_dir="logs", histogram_freq=0, write_graph=True, write_images=False,
               write_steps_per_second=False, update_freq="epoch", profile_batch=0,
               embeddings_freq=0, embeddings_metadata=None, **kwargs):
    super().__init__()
    if profile_batch or embeddings_freq:
      raise NotImplementedError("tensorlet's TensorBoard callback does not profile or write "
                                "embeddings: use profile_batch=0 and embeddings_freq=0.")
    if update_freq != "epoch" and update_freq != "batch" and not isinstance(update_freq, int):
      raise ValueError(f"`update_freq` must be 'epoch', 'batch' or an integer; received "
                       f"{update_freq!r}.")
    self.log_dir = os.fspath(log_dir)
    self.histogram_freq = histogram_freq
    self.write_graph = write_graph
    self.write_images = write_images
    self.update_freq = 1 if update_freq == "batch" else update_freq
    self._writers = {}
    self._train_step = 0
    self._graph_pending = False

  def _writer(self, kind):
    w = self._writers.get(kind)
    if w is None:
      from tensorlet import summary
      files = _files()
      log_dir = files.write_dirpath(self.log_dir, _strategy_of(self.model))
      w = self._writers[kind] = summary.create_file_writer(os.path.join(log_dir, kind))
    return w

  def on_train_begin(self, logs=None):
    self._train_step = 0
    if self.write_graph:
      from tensorlet import summary
      summary.trace_on(graph=True)
      self._graph_pending = True

  def on_train_batch_end(self, batch, logs=None):
    from tensorlet import summary
    self._train_step += 1
    if self._graph_pending:
      self._graph_pending = False
      with self._writer("train").as_default():
        summary.trace_export("keras", step=0)
    if self.update_freq != "epoch" and self._train_step % self.update_freq == 0:
      with self._writer("train").as_default():
        for name, value in (logs or {}).items():
          summary.scalar("batch_" + name, value, step=self._train_step)

  def on_epoch_end(self, epoch, logs=None):
    from tensorlet import summary
    logs = logs or {}
    train = {k: v for k, v in logs.items() if not k.startswith("val_")}
    val = {k[4:]: v for k, v in logs.items() if k.startswith("val_")}
    for kind, values in (("train", train), ("validation", val)):
      if values:
        with self._writer(kind).as_default():
          for name, value in values.items():
            summary.scalar("epoch_" + name, value, step=epoch)
    if self.histogram_freq and epoch % self.histogram_freq == 0:
      with self._writer("train").as_default():
        for w in self.model.weights:
          summary.histogram(w.name.replace(":", "_"), w, step=epoch)

  def on_train_end(self, logs=None):
    if self._graph_pending:
      from tensorlet import summary
      summary.trace_off()
      self._graph_pending = False
    for w in self._writers.values():
      w.close()
    self._writers = {}
    files = _files()
    files.remove_temp_dirpath(self.log_dir, _strategy_of(self.model))


class LambdaCallback(Callback):
  """A callback from functions: on_epoch_begin/end(epoch, logs), on_batch_begin/end(
  batch, logs), on_train_begin/end(logs), and any other hook as a keyword."""

  def __init__(self, on_epoch_begin=None, on_epoch_end=None, on_batch_begin=None,
               on_batch_end=None, on_train_begin=None, on_train_end=None, **kwargs):
    super().__init__()
    for hook in kwargs:
      if hook not in _HOOKS:
        raise ValueError(f"LambdaCallback got an unknown hook {hook!r}; hooks are "
                         f"{sorted(_HOOKS)}.")
    self.__dict__.update(kwargs)
    given = {"on_epoch_begin": on_epoch_begin, "on_epoch_end": on_epoch_end,
             "on_batch_begin": on_batch_begin, "on_batch_end": on_batch_end,
             "on_train_begin": on_train_begin, "on_train_end": on_train_end}
    for hook, fn in given.items():
      if fn is not None:
        setattr(self, hook, fn)


def _get_lr(model):
  opt = getattr(model, "optimizer", None)
  if opt is None or not hasattr(opt, "lr"):
    raise ValueError('Optimizer must have a "lr" attribute.')
  return float(np.asarray(opt.lr.numpy() if hasattr(opt.lr, "numpy") else opt.lr))


def _set_lr(model, value):
  model.optimizer.learning_rate = float(value)


class ReduceLROnPlateau(Callback):
  """Multiplies the learning rate by `factor` (down to `min_lr`) when `monitor` has
  not improved by `min_delta` for `patience` epochs, then waits `cooldown` epochs.
  Adds the current rate to the epoch logs as "lr"."""

  def __init__(self, monitor="val_loss", factor=0.1, patience=10, verbose=0, mode="auto",
               min_delta=1e-4, cooldown=0, min_lr=0, **kwargs):
    super().__init__()
    if factor >= 1.0:
      raise ValueError(f"ReduceLROnPlateau does not support a factor >= 1.0. Got {factor}")
    if "epsilon" in kwargs:
      min_delta = kwargs.pop("epsilon")
      warnings.warn("`epsilon` argument is deprecated and will be removed, use `min_delta` "
                    "instead.", stacklevel=2)
    self.monitor, self.factor, self.min_lr, self.min_delta = monitor, factor, min_lr, min_delta
    self.patience, self.verbose, self.cooldown, self.mode = patience, verbose, cooldown, mode
    self._reset()

  def _reset(self):
    if self.mode not in ("auto", "min", "max"):
      warnings.warn(f"Learning rate reduction mode {self.mode} is unknown, fallback to auto "
                    f"mode.", stacklevel=3)
      self.mode = "auto"
    if self.mode == "min" or (self.mode == "auto" and "acc" not in self.monitor):
      self.monitor_op = lambda a, b: np.less(a, b - self.min_delta)
      self.best = np.inf
    else:
      self.monitor_op = lambda a, b: np.greater(a, b + self.min_delta)
      self.best = -np.inf
    self.cooldown_counter = 0
    self.wait = 0

  def on_train_begin(self, logs=None):
    self._reset()

  def in_cooldown(self):
    return self.cooldown_counter > 0

  def on_epoch_end(self, epoch, logs=None):
    logs = logs if logs is not None else {}
    logs["lr"] = _get_lr(self.model)
    current = logs.get(self.monitor)
    if current is None:
      warnings.warn(f"Learning rate reduction is conditioned on metric `{self.monitor}` which "
                    f"is not available. Available metrics are: {','.join(logs)}", stacklevel=2)
      return
    if self.in_cooldown():
      self.cooldown_counter -= 1
      self.wait = 0
    if self.monitor_op(current, self.best):
      self.best = current
      self.wait = 0
    elif not self.in_cooldown():
      self.wait += 1
      if self.wait >= self.patience:
        old_lr = _get_lr(self.model)
        if old_lr > np.float32(self.min_lr):
          new_lr = max(old_lr * self.factor, self.min_lr)
          _set_lr(self.model, new_lr)
          if self.verbose > 0:
            print(f"\nEpoch {epoch + 1}: ReduceLROnPlateau reducing learning rate to "
                  f"{new_lr}.")
          self.cooldown_counter = self.cooldown
          self.wait = 0


class LearningRateScheduler(Callback):
  """Sets the learning rate at the start of each epoch to `schedule(epoch, lr)` (or
  `schedule(epoch)`); adds the rate to the epoch logs as "lr"."""

  def __init__(self, schedule, verbose=0):
    super().__init__()
    self.schedule = schedule
    self.verbose = verbose

  def on_epoch_begin(self, epoch, logs=None):
    from tensorlet.tensor import Tensor
    lr = _get_lr(self.model)
    try:
      lr = self.schedule(epoch, lr)
    except TypeError:  # NOTE: as Keras: a one-argument schedule
      lr = self.schedule(epoch)
    if not isinstance(lr, (Tensor, float, np.float32, np.float64)):
      raise ValueError(f'The output of the "schedule" function should be float. Got: {lr}')
    if isinstance(lr, Tensor):
      if not lr.dtype.is_floating:
        raise ValueError(f"The dtype of `lr` Tensor should be float. Got: {lr.dtype}")
      lr = float(lr.numpy())
    _set_lr(self.model, lr)
    if self.verbose > 0:
      print(f"\nEpoch {epoch + 1}: LearningRateScheduler setting learning rate to {lr}.")

  def on_epoch_end(self, epoch, logs=None):
    if logs is not None:
      logs["lr"] = _get_lr(self.model)


class CSVLogger(Callback):
  """Writes one CSV row per epoch: "epoch" then the sorted log keys (val_ keys added
  up front, so validation every few epochs keeps the columns; missing values "NA")."""

  def __init__(self, filename, separator=",", append=False):
    super().__init__()
    self.sep = separator
    self.filename = os.fspath(filename)
    self.append = append
    self.writer = None
    self.keys = None
    self.append_header = True
    self.csv_file = None

  def on_train_begin(self, logs=None):
    mode = "w"
    if self.append:
      if os.path.exists(self.filename):
        with open(self.filename) as f:
          self.append_header = not bool(len(f.readline()))
      mode = "a"
    self.csv_file = open(self.filename, mode, newline="")  # noqa: SIM115

  def on_epoch_end(self, epoch, logs=None):
    import collections
    import csv
    logs = logs or {}

    def handle_value(k):
      if isinstance(k, str):
        return k
      if isinstance(k, (list, tuple, np.ndarray)) and np.ndim(k):
        return f"\"[{', '.join(map(str, k))}]\""
      return k
    if self.keys is None:
      self.keys = sorted(logs)
      if not any(k.startswith("val_") for k in self.keys):
        self.keys.extend(["val_" + k for k in self.keys])
    if not self.writer:
      sep = self.sep

      class CustomDialect(csv.excel):
        delimiter = sep
      self.writer = csv.DictWriter(self.csv_file, fieldnames=["epoch"] + self.keys,
                                   dialect=CustomDialect)
      if self.append_header:
        self.writer.writeheader()
    row = collections.OrderedDict({"epoch": epoch})
    row.update((k, handle_value(logs.get(k, "NA"))) for k in self.keys)
    self.writer.writerow(row)
    self.csv_file.flush()

  def on_train_end(self, logs=None):
    if self.csv_file is not None:
      self.csv_file.close()
    self.writer = None


class TerminateOnNaN(Callback):
  """Stops training as soon as a batch's loss is NaN or infinite."""

  def on_batch_end(self, batch, logs=None):
    loss = (logs or {}).get("loss")
    if loss is not None:
      loss = float(np.asarray(loss))
      if np.isnan(loss) or np.isinf(loss):
        print(f"Batch {batch}: Invalid loss, terminating training")
        self.model.stop_training = True


class BackupAndRestore(Callback):
  """Backs up the model and its optimizer under `backup_dir` every epoch (or every
  `save_freq` batches); a fit that starts with a backup there restores it and goes on
  from the epoch (and batch) after the one saved. A fit that ends normally deletes the
  backup unless `delete_checkpoint=False`.

  A backup is a checkpoint plus a small JSON file naming it with its epoch and batch,
  replaced atomically after the checkpoint is complete, so a run killed mid-save
  resumes from the previous backup."""

  _STATE = "backup_state.json"

  def __init__(self, backup_dir, save_freq="epoch", delete_checkpoint=True,
               save_before_preemption=False):
    super().__init__()
    if not backup_dir:
      raise ValueError("Empty `backup_dir` argument passed")
    if save_freq != "epoch" and (isinstance(save_freq, bool) or not isinstance(save_freq, int)
                                 or save_freq <= 0):
      raise ValueError(f"Unrecognized save_freq: {save_freq}. Expected save_freq are 'epoch' "
                       f"or a positive integer")
    if save_before_preemption:
      raise NotImplementedError("tensorlet's BackupAndRestore does not save before "
                                "preemption (no preemption notices): use "
                                "save_before_preemption=False.")
    self.backup_dir = os.fspath(backup_dir)
    self.save_freq = save_freq
    self.delete_checkpoint = delete_checkpoint
    self._chief = os.path.join(self.backup_dir, "chief")
    self._epoch = 0
    self._batches = 0
    self._count = 0

  def _checkpoint(self):
    from tensorlet.train.checkpoint import Checkpoint
    return Checkpoint(model=self.model)

  def _state_path(self):
    return os.path.join(self._chief, self._STATE)

  def _read_state(self):
    import json
    try:
      with open(self._state_path()) as f:
        return json.load(f)
    except FileNotFoundError:
      return None

  def on_train_begin(self, logs=None):
    state = self._read_state()
    self.model._tl_resume_at = None
    if state is None:
      return
    self._checkpoint().read(os.path.join(self._chief, state["checkpoint"]))
    self._count = state.get("count", 0)
    epoch, batch = state["epoch"], state["batch"]
    if batch is None:
      self.model._tl_resume_at = (epoch + 1, 0)
    else:
      self.model._tl_resume_at = (epoch, batch + 1)

  def _save(self, epoch, batch):
    import json
    files = _files()
    self._count += 1
    name = f"chief-backup-{self._count}"
    strategy = _strategy_of(self.model)
    if not files.is_chief(strategy):
      # Other workers save too (saving reads the variables collectively), then drop it.
      self._checkpoint().write(os.path.join(files.write_dirpath(self.backup_dir, strategy),
                                            name))
      files.remove_temp_dirpath(self.backup_dir, strategy)
      return
    os.makedirs(self._chief, exist_ok=True)
    old = self._read_state()
    self._checkpoint().write(os.path.join(self._chief, name))
    state = {"checkpoint": name, "epoch": epoch, "batch": batch, "count": self._count}
    tmp = self._state_path() + ".tmp"
    with open(tmp, "w") as f:
      json.dump(state, f)
      f.flush()
      os.fsync(f.fileno())
    os.replace(tmp, self._state_path())
    if old is not None and old["checkpoint"] != name:
      prefix = os.path.join(self._chief, old["checkpoint"])
      for fn in os.listdir(self._chief):
        path = os.path.join(self._chief, fn)
        if path.startswith(prefix + "."):
          os.remove(path)

  def on_epoch_begin(self, epoch, logs=None):
    self._epoch = epoch

  def on_train_batch_end(self, batch, logs=None):
    if self.save_freq != "epoch":
      self._batches += 1
      if self._batches >= self.save_freq:
        self._batches = 0
        self._save(self._epoch, batch)

  def on_epoch_end(self, epoch, logs=None):
    if self.save_freq == "epoch":
      self._save(epoch, None)

  def on_train_end(self, logs=None):
    files = _files()
    if not files.is_chief(_strategy_of(self.model)):
      return  # the chief deletes the shared backup
    if self.delete_checkpoint and os.path.isdir(self.backup_dir):
      import shutil

      def gone_already(function, path, exc_info):
        if not issubclass(exc_info[0], FileNotFoundError):  # another worker's temp dir
          raise exc_info[1]
      shutil.rmtree(self.backup_dir, onerror=gone_already)


def _strategy_of(model):
  """The strategy the model was made under (None: the current one)."""
  return getattr(model, "__dict__", {}).get("_tl_strategy")


class _Chief:
  """Where files go while tf.distribute is unused: this process writes them all."""

  @staticmethod
  def is_chief(strategy=None):
    return True

  @staticmethod
  def write_dirpath(dirpath, strategy=None):
    return dirpath

  @staticmethod
  def write_filepath(filepath, strategy=None):
    return filepath

  @staticmethod
  def remove_temp_dirpath(dirpath, strategy=None):
    pass


def _files():
  """tf.distribute's placement of files (only the chief writes), once it is in use."""
  return sys.modules.get("tensorlet.distribute.distributed_file_utils") or _Chief


from tensorlet._unsupported import getattr_for as _getattr_for  # noqa: E402
__getattr__ = _getattr_for("tf.keras.callbacks", __name__)
