"""Keras 2's PreprocessingLayer: a layer whose state is computed from data by `adapt`.

`adapt(data)` resets the state (when the layer was built before), feeds every batch
of `data` to `update_state`, then calls `finalize_state` and marks the layer adapted.
Subclasses implement `reset_state`, `update_state` and (optionally) `finalize_state`.
"""
from tensorlet import context
from tensorlet.keras.engine import data_adapter
from tensorlet.keras.engine.base_layer import Layer
from tensorlet.tensor import Tensor


def _disallow_inside_tf_function(method):
  if not context.executing_eagerly():
    raise RuntimeError(
        f"Detected a call to `PreprocessingLayer.{method}` inside a `tf.function`. "
        f"`PreprocessingLayer.{method} is a high-level endpoint that manages its own "
        f"`tf.function`. Please move the call to `PreprocessingLayer.{method}` outside of "
        f"all enclosing `tf.function`s. Note that you can call a `PreprocessingLayer` "
        f"directly on `Tensor`s inside a `tf.function` like: `layer(x)`, or update its "
        f"state like: `layer.update_state(x)`.")


def _is_composite(x):
  from tensorlet.ragged.ragged_tensor import RaggedTensor
  from tensorlet.sparse.sparse_tensor import SparseTensor
  return isinstance(x, (RaggedTensor, SparseTensor))


def _row_slices(x, batch_size, steps):
  """Batches of `batch_size` rows (default 32) of a tensor, ragged or sparse tensor."""
  from tensorlet.sparse.sparse_tensor import SparseTensor
  if isinstance(x, SparseTensor):
    n = int(x.dense_shape.numpy()[0])
  elif isinstance(x, Tensor):
    if x.shape.rank == 0:
      raise ValueError(f"Failed to find data adapter that can handle input: {type(x)} "
                       f"(expected data with a batch dimension, got a scalar)")
    n = int(x.shape[0])
  else:
    n = int(x.nrows())
  if n == 0:
    raise ValueError("Expected input data to be non-empty: `data` holds 0 samples.")
  batch_size = batch_size or 32
  from tensorlet.sparse import sparse_ops
  for i, lo in enumerate(range(0, n, batch_size)):
    if steps is not None and i >= steps:
      return
    hi = min(lo + batch_size, n)
    if isinstance(x, SparseTensor):
      size = [hi - lo] + [int(d) for d in x.dense_shape.numpy()[1:]]
      yield sparse_ops.slice(x, [lo] + [0] * (len(size) - 1), size)
    else:
      yield x[lo:hi]


def _as_batchable(data):
  """Arrays and lists as tensors (float64 as floatx, as Keras' array adapter does)."""
  import numpy as np
  if isinstance(data, (list, tuple)):
    data = _list_data(data)
  if isinstance(data, np.ndarray) or (not isinstance(data, Tensor) and not _is_composite(data)):
    from tensorlet.keras import backend
    from tensorlet.tensor import convert_to_tensor
    a = np.asarray(data)
    if a.dtype == np.float64:
      a = a.astype(backend.floatx())
    data = convert_to_tensor(a)
  return data


def _list_data(data):
  """A Python list of samples as one array (a ragged tensor when rows differ)."""
  import numpy as np
  try:
    a = np.asarray(data)
  except ValueError:
    a = None
  if a is not None and a.dtype != object:
    return a
  from tensorlet.ragged.ragged_ops import constant
  return constant(data)


def _dataset_batches(dataset, steps):
  for i, batch in enumerate(dataset):
    if steps is not None and i >= steps:
      return
    yield batch


class PreprocessingLayer(Layer):
  """Base class of layers with state computed from data (`adapt`), as Keras 2's.

  Example:
    >>> class Total(tf.keras.layers.experimental.preprocessing.PreprocessingLayer):
    ...   def reset_state(self):
    ...     self.total = 0.0
    ...   def update_state(self, data):
    ...     self.total += float(tf.reduce_sum(data))
    ...   def call(self, x):
    ...     return x + self.total
    >>> layer = Total()
    >>> layer.compile(run_eagerly=True)
    >>> layer.reset_state()
    >>> layer.adapt(np.array([1.0, 2.0, 3.0]))
    >>> layer(tf.constant([0.0])).numpy()
    array([6.], dtype=float32)
  """

  # Built-in layers keep their adapt statistics in Python/NumPy and adapt eagerly;
  # subclasses get Keras' traced adapt step unless compiled with run_eagerly=True.
  _tl_adapt_eagerly = False

  def __init__(self, **kwargs):
    super().__init__(**kwargs)
    self._is_compiled = False
    self._is_adapted = False
    self._run_eagerly = None
    self._steps_per_execution = 1
    self._adapt_function = None

  @property
  def is_adapted(self):
    """Whether the layer has been fit to data with `adapt`."""
    return self._is_adapted

  def update_state(self, data):
    """Accumulates statistics of one batch of `data` (subclasses implement it)."""
    raise NotImplementedError

  def reset_state(self):
    """Clears the statistics `adapt` accumulates (subclasses implement it)."""
    raise NotImplementedError

  def finalize_state(self):
    """Turns the accumulated statistics into the layer's state (after the last batch)."""
    pass

  def compile(self, run_eagerly=None, steps_per_execution=None):
    """Configures `adapt`: `run_eagerly=True` runs `update_state` without tracing."""
    if steps_per_execution is None:
      steps_per_execution = 1
    self._run_eagerly = run_eagerly
    self._steps_per_execution = steps_per_execution
    self._adapt_function = None
    self._is_compiled = True

  def make_adapt_function(self):
    """The function that runs one adapt step on a batch (traced unless run eagerly)."""
    if self._adapt_function is not None:
      return self._adapt_function

    def adapt_step(data):
      self._adapt_maybe_build(data)
      self.update_state(data)

    eager = self._run_eagerly if self._run_eagerly is not None else self._tl_adapt_eagerly
    if eager:
      self._adapt_function = adapt_step
    else:
      from tensorlet.polymorphic_function.polymorphic import function

      def traced_step(data):
        # Build outside the trace: a build may create variables, once.
        self._adapt_maybe_build(data)
        traced(data)
      traced = function(self.update_state, reduce_retracing=True)
      self._adapt_function = traced_step
    return self._adapt_function

  def adapt(self, data, batch_size=None, steps=None):
    """Fits the layer's state to `data` (arrays, lists, tensors, ragged or sparse
    tensors, or a `tf.data.Dataset`), `batch_size` rows at a time (default 32;
    datasets come batched), for at most `steps` batches."""
    _disallow_inside_tf_function("adapt")
    if not self._is_compiled:
      self.compile()
    if self.built:
      self.reset_state()
    step = self.make_adapt_function()
    for batch in self._adapt_batches(data, batch_size, steps):
      step(batch)
    self.finalize_state()
    self._is_adapted = True

  def _adapt_batches(self, data, batch_size, steps):
    data_adapter.check_batch_size(batch_size)
    if steps is not None:
      data_adapter.check_steps(steps, "steps")
    if data_adapter._is_dataset(data):
      return _dataset_batches(data, steps)
    if data is None:
      raise ValueError("Expected input data to `adapt`, got None.")
    return _row_slices(_as_batchable(data), batch_size, steps)

  def _adapt_maybe_build(self, data):
    if self.built:
      return
    shape = getattr(data, "shape", None)
    rank = getattr(shape, "rank", None) if shape is not None else None
    if rank is None and shape is not None and not hasattr(shape, "rank"):
      rank = len(shape)
    if rank is not None:
      if self._batch_input_shape is None:
        self._batch_input_shape = (None,) * rank
      # The batch size of one adapt batch is no property of the layer.
      from tensorlet.tensor_shape import TensorShape
      shape = TensorShape([None] + list(shape)[1:]) if rank else TensorShape(shape)
    self._tl_build_input_shape = shape
    self.build(shape)
    self.built = True

  def __init_subclass__(cls, **kwargs):
    super().__init_subclass__(**kwargs)
    # A reset makes the layer un-adapted again, whichever subclass resets.
    own = cls.__dict__.get("reset_state")
    if own is not None and not getattr(own, "_tl_wrapped", False):
      def reset_state(self, _impl=own):
        _impl(self)
        self._is_adapted = False
      reset_state.__doc__ = own.__doc__
      reset_state.__name__ = "reset_state"
      reset_state._tl_wrapped = True
      cls.reset_state = reset_state

