"""tf.keras.Model: a Layer with compile / fit / evaluate / predict and weights I/O.

`fit` runs `train_step` once per batch, through `tf.function` (retracing
relaxed, so a smaller last batch traces once more and then never) unless the
model was compiled with `run_eagerly=True`. Loops talk to callbacks only
through a `CallbackList`, which adds History and the progress bar.
"""

import numpy as np

from tensorlet import _nest as nest
from tensorlet.autodiff.tape import GradientTape
from tensorlet.context import ctx
from tensorlet.keras.engine import compile_utils, data_adapter
from tensorlet.keras.engine.base_layer import Layer, default
from tensorlet.polymorphic_function import user_code
from tensorlet.tensor import Tensor

__all__ = ["Model"]

_MODEL_KWARGS = frozenset({"name", "trainable", "dtype", "dynamic", "autocast", "inputs",
                           "outputs"})


def _to_python(logs):
  """Keras' sync_to_numpy_or_python_type: scalars as Python numbers, others as arrays
  (a metric with several thresholds logs one value per threshold)."""
  def value(v):
    if not isinstance(v, Tensor):
      return v
    a = v.numpy()
    return a.item() if np.ndim(a) == 0 else a
  return {k: value(v) for k, v in logs.items()}


_METRIC_ATTR = {"weights": "variables", "trainable_weights": "trainable_variables",
                "non_trainable_weights": "non_trainable_variables"}


class Model(Layer):
  """Groups layers into an object with training and inference features.

  Subclass it (layers in `__init__`, the forward pass in `call`) or call it as
  `tf.keras.Model(inputs, outputs)` on KerasTensors for a functional model.
  """

  def __new__(cls, *args, **kwargs):
    if cls is Model and (len(args) >= 2 or ("inputs" in kwargs and "outputs" in kwargs) or
                         (len(args) == 1 and "outputs" in kwargs)):
      from tensorlet.keras.engine.functional import Functional
      return super().__new__(Functional)
    return super().__new__(cls)

  def __init__(self, *args, **kwargs):
    if args:
      raise TypeError(f"Model.__init__() takes no positional arguments for a subclassed "
                      f"model, got {len(args)}")
    for k in kwargs:
      if k not in _MODEL_KWARGS:
        raise TypeError(f"Keyword argument not understood: {k}")
    super().__init__(**{k: v for k, v in kwargs.items() if k not in ("inputs", "outputs")})
    self.optimizer = None
    self.compiled_loss = None
    self.compiled_metrics = None
    self.loss = None
    self.history = None
    self.stop_training = False
    self._is_compiled = False
    self._tl_run_eagerly = None
    self._tl_fns = {}
    self._tl_strategy = _strategy_in_scope()

  # ------------------------------------------------------------------ compile
  def compile(self, optimizer="rmsprop", loss=None, metrics=None, loss_weights=None,
              weighted_metrics=None, run_eagerly=None, steps_per_execution=None,
              jit_compile=None, **kwargs):
    """Configures the model for training: optimizer, loss(es) and metrics."""
    from tensorlet.keras import optimizers
    for k in kwargs:
      raise TypeError(f"Invalid keyword argument(s) in `compile()`: ({k!r},). Valid keyword "
                      f"arguments include \"cloning\", \"experimental_run_tf_function\", "
                      f"\"distribute\", \"target_tensors\", or \"sample_weight_mode\".")
    self._tl_compile_args = {"optimizer": optimizer, "loss": loss, "metrics": metrics,
                             "loss_weights": loss_weights, "weighted_metrics": weighted_metrics,
                             "run_eagerly": run_eagerly,
                             "steps_per_execution": steps_per_execution,
                             "jit_compile": jit_compile}
    self.optimizer = optimizers.get(optimizer)
    if self._tl_policy.name == "mixed_float16":
      # As Keras 2: float16 gradients need loss scaling to train as float32 does.
      from tensorlet.keras.mixed_precision import LossScaleOptimizer
      if not isinstance(self.optimizer, LossScaleOptimizer):
        self.optimizer = LossScaleOptimizer(self.optimizer)
    self.loss = loss
    self.compiled_loss = compile_utils.LossesContainer(loss, loss_weights)
    self.compiled_metrics = compile_utils.MetricsContainer(metrics, weighted_metrics, loss)
    self._tl_run_eagerly = run_eagerly
    self._tl_fns = {}
    self._tl_strategy = _strategy_in_scope() or self.__dict__.get("_tl_strategy")
    self._is_compiled = True
    self.stop_training = False

  @property
  def run_eagerly(self):
    return bool(self._tl_run_eagerly) or ctx.run_functions_eagerly

  @run_eagerly.setter
  def run_eagerly(self, value):
    self._tl_run_eagerly = value
    self._tl_fns = {}

  @property
  def distribute_strategy(self):
    """The tf.distribute strategy the model was created (or compiled) under; else the
    current one."""
    s = self.__dict__.get("_tl_strategy")
    if s is not None:
      return s
    from tensorlet.distribute import get_strategy
    return get_strategy()

  def _assert_compiled(self):
    if not self._is_compiled:
      raise RuntimeError("You must compile your model before training/testing. Use "
                         "`model.compile(optimizer, loss)`.")

  # ------------------------------------------------------------------ weights
  # NOTE: as Keras 2, a model lists its weights layer by layer (each layer's own order;
  # a metric held in an attribute counts as a layer of non-trainable weights), then the
  # model's own; a layer lists its own first (base_layer._tl_split).
  def _tl_by_layer(self, attr, own):
    from tensorlet.keras.metrics import Metric
    if type(self)._tl_sublayers is Layer._tl_sublayers:
      held = self._tl_held((Layer, Metric))
    else:  # Sequential, functional: their layers
      held = self._tl_sublayers()
    out, seen = [], set()
    for w in [w for obj in held for w in getattr(
        obj, attr if isinstance(obj, Layer) else _METRIC_ATTR[attr])] + own:
      if id(w) not in seen:
        seen.add(id(w))
        out.append(w)
    return out

  def _tl_own(self, trainable):
    return [w for w in self._tl_weights if bool(w.trainable) == trainable]

  @property
  def trainable_weights(self):
    if not self._tl_trainable:
      return []
    return self._tl_by_layer("trainable_weights", self._tl_own(True))

  @property
  def non_trainable_weights(self):
    if not self._tl_trainable:
      return self._tl_by_layer("trainable_weights", self._tl_own(True)) + \
          self._tl_by_layer("non_trainable_weights", self._tl_own(False))
    return self._tl_by_layer("non_trainable_weights", self._tl_own(False))

  @property
  def weights(self):
    return self._tl_by_layer("weights", self._tl_own(True) + self._tl_own(False))

  # ------------------------------------------------------------------ metrics
  @property
  def metrics(self):
    """The loss trackers then the compiled metrics (empty until a batch has run)."""
    out = []
    if self.compiled_loss is not None:
      out.extend(self.compiled_loss.metrics)
    if self.compiled_metrics is not None:
      out.extend(self.compiled_metrics.metrics)
    return out

  @property
  def metrics_names(self):
    return [m.name for m in self.metrics]

  def reset_metrics(self):
    for m in self.metrics:
      m.reset_state()

  def _tl_output_names(self):
    return list(getattr(self, "output_names", None) or [])

  def compute_loss(self, x=None, y=None, y_pred=None, sample_weight=None):
    """The total loss of a batch: compiled losses plus the model's `losses`."""
    if self.compiled_loss._losses is None:
      self.compiled_loss.build(y_pred, self._tl_output_names())
    return self.compiled_loss(y, y_pred, sample_weight, regularization_losses=self.losses)

  def compute_metrics(self, x, y, y_pred, sample_weight):
    """Updates the compiled metrics and returns every metric's result."""
    if not self.compiled_metrics.built:
      self.compiled_metrics.build(y, y_pred, self._tl_output_names(),
                                  self.compiled_loss._losses)
    self.compiled_metrics.update_state(y, y_pred, sample_weight)
    return self.get_metrics_result()

  def get_metrics_result(self):
    return {m.name: m.result() for m in self.metrics}

  # -------------------------------------------------------------------- steps
  def train_step(self, data):
    """One optimizer step on a batch; returns the metrics' results."""
    x, y, sample_weight = data_adapter.unpack_x_y_sample_weight(data)
    with GradientTape() as tape:
      y_pred = self(x, training=True)
      loss = self.compute_loss(x, y, y_pred, sample_weight)
    self.optimizer.minimize(loss, self.trainable_variables, tape=tape)
    return self.compute_metrics(x, y, y_pred, sample_weight)

  def test_step(self, data):
    x, y, sample_weight = data_adapter.unpack_x_y_sample_weight(data)
    y_pred = self(x, training=False)
    self.compute_loss(x, y, y_pred, sample_weight)
    return self.compute_metrics(x, y, y_pred, sample_weight)

  def predict_step(self, data):
    x, _, _ = data_adapter.unpack_x_y_sample_weight(data)
    return self(x, training=False)

  def _tl_function(self, kind):
    """The train/test/predict step, as a tf.function unless running eagerly."""
    fn = self._tl_fns.get(kind)
    if fn is None:
      step = getattr(self, f"{kind}_step")
      strategy = self.__dict__.get("_tl_strategy")
      if strategy is not None:
        from tensorlet.distribute.keras_step import distributed_step
        step = distributed_step(strategy, step, kind)
      if not self.run_eagerly:
        step = _BatchFunction(step, f"{kind}_function")
      fn = self._tl_fns[kind] = step
    return fn

  def make_train_function(self, force=False):
    if force:
      self._tl_fns.pop("train", None)
    return self._tl_function("train")

  def make_test_function(self, force=False):
    if force:
      self._tl_fns.pop("test", None)
    return self._tl_function("test")

  def make_predict_function(self, force=False):
    if force:
      self._tl_fns.pop("predict", None)
    return self._tl_function("predict")

  # -------------------------------------------------------------------- loops
  @staticmethod
  def _callbacks(callbacks, model, add_history, verbose, epochs, steps):
    from tensorlet.keras import callbacks as callbacks_module
    if isinstance(callbacks, callbacks_module.CallbackList):
      return callbacks
    return callbacks_module.CallbackList(callbacks, add_history=add_history,
                                         add_progbar=verbose != 0, model=model,
                                         verbose=verbose, epochs=epochs, steps=steps)

  def fit(self, x=None, y=None, batch_size=None, epochs=1, verbose="auto", callbacks=None,
          validation_split=0.0, validation_data=None, shuffle=True, class_weight=None,
          sample_weight=None, initial_epoch=0, steps_per_epoch=None, validation_steps=None,
          validation_batch_size=None, validation_freq=1, max_queue_size=10, workers=1,
          use_multiprocessing=False):
    """Trains for `epochs` epochs; returns the History callback."""
    self._assert_compiled()
    verbose = 1 if verbose == "auto" else verbose
    # Arguments are checked before anything runs, so a bad one leaves the model untouched.
    for value, what in ((epochs, "epochs"), (initial_epoch, "initial_epoch")):
      if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"`{what}` must be an integer, got {value!r} of type "
                        f"{type(value).__name__}.")
    if epochs <= 0:
      raise ValueError(f"Expected epochs to be positive. Received is {epochs}.")
    data_adapter.check_batch_size(batch_size)
    data_adapter.check_batch_size(validation_batch_size, "validation_batch_size")
    data_adapter.check_steps(steps_per_epoch, "steps_per_epoch", allow_minus_one=True)
    data_adapter.check_steps(validation_steps, "validation_steps", allow_minus_one=True)
    data_adapter.check_validation_split(validation_split)
    data_adapter.check_validation_data(validation_data)
    _check_validation_freq(validation_freq)
    weigh = data_adapter.class_weight_fn(class_weight)
    if validation_split and validation_data is None:
      (x, y, sample_weight), validation_data = data_adapter.train_validation_split(
          (x, y, sample_weight), validation_split)
    data = data_adapter.DataHandler(x, y, sample_weight, batch_size, steps_per_epoch,
                                    shuffle=shuffle, epochs=max(epochs - initial_epoch, 1))
    val_data = None
    if validation_data is not None:
      if isinstance(validation_data, (list, tuple)):
        vx, vy, vsw = data_adapter.unpack_x_y_sample_weight(tuple(validation_data))
      else:
        vx, vy, vsw = validation_data, None, None
      val_data = data_adapter.DataHandler(vx, vy, vsw, validation_batch_size or batch_size,
                                          validation_steps)
    cbs = self._callbacks(callbacks, self, True, verbose, epochs, data.steps)
    self.stop_training = False
    train_function = self.make_train_function()
    self._tl_resume_at = None
    cbs.on_train_begin()
    resume = self._tl_resume_at  # set by BackupAndRestore when it restored a backup
    if resume is not None:
      initial_epoch, data.start_step = resume
      if data.steps is not None and data.start_step >= data.steps:
        initial_epoch, data.start_step = initial_epoch + 1, 0
    logs = epoch_logs = None
    for epoch in range(initial_epoch, epochs):
      self.reset_metrics()
      cbs.on_epoch_begin(epoch)
      ran = False
      for step, batch in data:
        ran = True
        cbs.on_train_batch_begin(step)
        logs = _to_python(train_function(weigh(batch) if weigh else batch))
        cbs.on_train_batch_end(step, logs)
        if self.stop_training:
          break
      if data.insufficient_data and logs is None:
        break
      if not ran and logs is not None:  # data ran out: the reset metrics, as Keras 2
        logs = _to_python(self.get_metrics_result())
      if logs is None:
        raise ValueError("Unexpected result of `train_function` (Empty logs). Please use "
                         "`Model.compile(..., run_eagerly=True)`, or `tf.config.run_functions_"
                         "eagerly(True)` for more information of where went wrong, or file a "
                         "issue/bug to `tf.keras`.")
      epoch_logs = dict(logs)
      if val_data is not None and _validates(epoch, validation_freq):
        val_data.restart()
        val_logs = self._evaluate_loop(val_data, cbs, in_fit=True)
        epoch_logs.update({"val_" + k: v for k, v in val_logs.items()})
      cbs.on_epoch_end(epoch, epoch_logs)
      if self.stop_training or data.insufficient_data:
        break
    finalize = getattr(self.optimizer, "finalize_variable_values", None)
    if finalize is not None:
      finalize(self.trainable_variables)  # EMA weights replace the trained ones, as Keras 2
    cbs.on_train_end(logs=epoch_logs)
    return self.history

  def evaluate(self, x=None, y=None, batch_size=None, verbose="auto", sample_weight=None,
               steps=None, callbacks=None, max_queue_size=10, workers=1,
               use_multiprocessing=False, return_dict=False, **kwargs):
    """The loss and metrics over the data: a scalar, a list, or a dict (return_dict)."""
    self._assert_compiled()
    verbose = 1 if verbose == "auto" else verbose
    data_adapter.check_steps(steps, "steps", allow_minus_one=True)
    data = data_adapter.DataHandler(x, y, sample_weight, batch_size, steps)
    cbs = self._callbacks(callbacks, self, False, verbose, 1, data.steps)
    logs = self._evaluate_loop(data, cbs)
    if return_dict:
      return logs
    return _in_order(logs, self.metrics_names)

  def _evaluate_loop(self, data, cbs, in_fit=False):
    test_function = self.make_test_function()
    self.reset_metrics()
    cbs.on_test_begin()
    logs = {}
    for step, batch in data:
      cbs.on_test_batch_begin(step)
      logs = _to_python(test_function(batch))
      cbs.on_test_batch_end(step, logs)
    cbs.on_test_end(logs)
    return logs

  def predict(self, x, batch_size=None, verbose="auto", steps=None, callbacks=None,
              max_queue_size=10, workers=1, use_multiprocessing=False):
    """The model's outputs for `x`, batch by batch, as NumPy arrays."""
    verbose = 1 if verbose == "auto" else verbose
    data_adapter.check_steps(steps, "steps", allow_minus_one=True)
    data = data_adapter.DataHandler(x, None, None, batch_size, steps)
    cbs = self._callbacks(callbacks, self, False, verbose, 1, data.steps)
    predict_function = self.make_predict_function()
    cbs.on_predict_begin()
    outputs = []
    for step, batch in data:
      cbs.on_predict_batch_begin(step)
      out = predict_function(batch)
      outputs.append(nest.map_structure(lambda t: t.numpy(), out))
      cbs.on_predict_batch_end(step, {"outputs": out})
    if not outputs:
      raise ValueError("Unexpected result of `predict_function` (Empty batch_outputs). "
                       "Please use `Model.compile(..., run_eagerly=True)`, or "
                       "`tf.config.run_functions_eagerly(True)` for more information of "
                       "where went wrong, or file a issue/bug to `tf.keras`.")
    cbs.on_predict_end()
    return nest.map_structure(lambda *parts: np.concatenate(parts), *outputs)

  def _one_batch(self, x, y, sample_weight):
    data = data_adapter.DataHandler(x, y, sample_weight, batch_size=1 << 62)
    return next(iter(data))[1]

  def train_on_batch(self, x, y=None, sample_weight=None, class_weight=None,
                     reset_metrics=True, return_dict=False):
    """One optimizer step on one batch; the metrics (reset first unless told not to)."""
    self._assert_compiled()
    weigh = data_adapter.class_weight_fn(class_weight)
    batch = self._one_batch(x, y, sample_weight)
    if reset_metrics:
      self.reset_metrics()
    logs = _to_python(self.make_train_function()(weigh(batch) if weigh else batch))
    return logs if return_dict else _in_order(logs, self.metrics_names)

  def test_on_batch(self, x, y=None, sample_weight=None, reset_metrics=True,
                    return_dict=False):
    """The loss and metrics of one batch (metrics reset first unless told not to)."""
    self._assert_compiled()
    batch = self._one_batch(x, y, sample_weight)
    if reset_metrics:
      self.reset_metrics()
    logs = _to_python(self.make_test_function()(batch))
    return logs if return_dict else _in_order(logs, self.metrics_names)

  def predict_on_batch(self, x):
    return nest.map_structure(lambda t: t.numpy(), self(x, training=False))

  def reset_states(self):
    """Resets the states of the model's stateful layers (stateful RNNs)."""
    for layer in self._flatten_layers(include_self=False):
      if getattr(layer, "stateful", False) and hasattr(layer, "reset_states"):
        layer.reset_states()

  # ------------------------------------------------------------------ weights
  def save(self, filepath, overwrite=True, include_optimizer=True, save_format=None,
           signatures=None, options=None, save_traces=True, **kwargs):
    """Saves the whole model: a `.keras` zip, a legacy `.h5` file, or (any other path)
    a SavedModel directory; `tf.keras.models.load_model` reads each back."""
    from tensorlet.keras.saving import saving_api
    saving_api.save_model(self, filepath, overwrite, include_optimizer, save_format,
                          signatures, options, save_traces, **kwargs)

  def save_weights(self, filepath, overwrite=True, save_format=None, options=None):
    """Writes the weights: `.weights.h5` (Keras' `.keras` layout), `.h5` (Keras 2's HDF5
    layout) or else a TF-style object-graph checkpoint (with the optimizer)."""
    from tensorlet.keras.saving import saving_api
    saving_api.save_weights(self, filepath, overwrite, save_format, options)

  def load_weights(self, filepath, skip_mismatch=False, by_name=False, options=None):
    """Restores weights written by `save_weights` (or by Keras 2) in any of its formats;
    for a checkpoint returns the load status (weights of layers not built yet are
    restored when they are created)."""
    from tensorlet.keras.saving import saving_api
    return saving_api.load_weights(self, filepath, skip_mismatch, by_name, options)

  # ------------------------------------------------------------------ summary
  def summary(self, line_length=None, positions=None, print_fn=None, expand_nested=False,
              show_trainable=False, layer_range=None):
    """Prints the layers with their output shapes and parameter counts (Keras 2 look)."""
    if not self.built:
      raise ValueError("This model has not yet been built. Build the model first by calling "
                       "`build()` or by calling the model on a batch of data.")
    from tensorlet.keras.utils.layer_utils import print_summary
    print_summary(self, line_length, positions, print_fn)

  @default
  def build(self, input_shape):
    """Builds a subclassed model by calling it on zeros of `input_shape`."""
    if self.built:
      return
    if input_shape is None:
      raise ValueError("Input shape must be defined when calling `build()` on a `Model` "
                       "subclass.")
    from tensorlet.ops import array_ops
    from tensorlet.tensor_shape import TensorShape
    dims = [1 if d is None else d for d in TensorShape(input_shape).as_list()]
    self(array_ops.zeros(dims, self.dtype))
    self.built = True

  def get_config(self):
    return {"name": self.name, "trainable": self.trainable}

  @classmethod
  def from_config(cls, config, custom_objects=None):
    from tensorlet.keras.saving import model_config
    return model_config.model_from_config(cls, config, custom_objects)

  def to_json(self, **kwargs):
    """The model's config as JSON (`tf.keras.models.model_from_json` reads it back)."""
    from tensorlet.keras.saving import saving_api
    return saving_api.model_to_json(self, **kwargs)

  def get_compile_config(self):
    """The arguments `compile` was given, serialized (None if not compiled)."""
    from tensorlet.keras.saving import saving_api
    return saving_api.compile_config(self)

  def compile_from_config(self, config):
    from tensorlet.keras.saving import saving_api
    saving_api.compile_from_config(self, config)


def _strategy_in_scope():
  """The (non-default) tf.distribute strategy in scope, if tf.distribute is in use."""
  import sys
  lib = sys.modules.get("tensorlet.distribute.distribute_lib")
  if lib is None or not lib.has_strategy():
    return None
  return lib.get_strategy()


def _in_order(logs, names):
  """Keras' flatten_metrics_in_order: the results in `metrics_names` order, a scalar when
  there is one."""
  results = [logs[name] for name in names if name in logs]
  results += [v for k, v in logs.items() if k not in names]
  return results[0] if len(results) == 1 else results


def _check_validation_freq(freq):
  if isinstance(freq, (int, np.integer)) and not isinstance(freq, bool):
    if freq < 1:
      raise ValueError("`validation_freq` can not be less than 1.")
  elif not isinstance(freq, (list, tuple, set, frozenset, range)):
    raise ValueError(f"`validation_freq` must be an Integer or `collections.abc.Container` "
                     f"(e.g. list, tuple, etc.) Received: {freq}")


def _validates(epoch, freq):
  """Whether validation runs after `epoch` (0-based); a container lists 1-based epochs."""
  if isinstance(freq, (int, np.integer)):
    return (epoch + 1) % freq == 0
  return epoch + 1 in freq


class _BatchFunction:
  """A step as a tf.function traced for any batch size, as Keras' dataset iterator
  (batch dimension None) makes it: the first call traces with the batch dimension
  relaxed, so a smaller last batch does not retrace."""

  def __init__(self, step, name):
    from tensorlet.polymorphic_function.polymorphic import Function
    self._fn = Function(step, name=name, reduce_retracing=True)
    self._traced = False

  def __call__(self, batch):
    if not self._traced:
      from tensorlet.tensor_spec import TensorSpec
      self._fn.get_concrete_function(nest.map_structure(
          lambda t: TensorSpec([None] + t.shape.as_list()[1:], t.dtype)
          if isinstance(t, Tensor) and t.shape.rank else t, batch))
      self._traced = True
    return self._fn(batch)


# An error in the user's model or train_step reads "in user code" without
# tensorlet's frames, as Keras' fit shows it (polymorphic_function/user_code.py).
user_code.filter_methods(Model, ("fit", "evaluate", "predict", "train_on_batch",
                            "test_on_batch", "predict_on_batch"))
