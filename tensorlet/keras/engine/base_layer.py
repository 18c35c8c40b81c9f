"""tf.keras.layers.Layer: a tf.Module that builds its weights on first call.

`__call__` resolves the `training` flag (an explicit argument, else the flag
of the enclosing layer call, as Keras propagates it), converts NumPy inputs
and casts floating inputs to the layer's dtype, builds the layer from the
input's TensorShape on first use, and calls `call`. Once built and while
executing eagerly that is all it does, so a forward pass costs little more
than its ops. While a graph is being built the user's `call` runs through
AutoGraph (`converted_call`) inside the layer's name scope, and calls on
KerasTensors (`tf.keras.Input`) are recorded for functional models.

Tracking follows Keras: a layer's weights are the ones it created (in
creation order, `add_weight` or a `tf.Variable` attribute), then those of the
layers held in its attributes, in assignment order, nested lists and dicts
included; trainable ones first. Losses added during a call are kept until the
next outermost layer call starts.
"""
import inspect
import threading
import warnings
import weakref

import numpy as np

from tensorlet import _nest as nest
from tensorlet import dtypes as _dt
from tensorlet.context import ctx, name_scope
from tensorlet.keras import backend, constraints, initializers, regularizers
from tensorlet.module import Module
from tensorlet.ops import math_ops as _m
from tensorlet.tensor_shape import TensorShape
from tensorlet.tensor import EagerTensor, Tensor, convert_to_tensor
from tensorlet.variables import Variable, VariableAggregation, VariableSynchronization

__all__ = ["Layer", "InputSpec"]

_ALLOWED_KWARGS = frozenset({"input_dim", "input_shape", "batch_input_shape", "batch_size",
                             "weights", "activity_regularizer", "autocast", "implementation",
                             "dynamic"})


class _CallState(threading.local):
  """The layer call in progress: its training flag and how deep calls are nested."""

  def __init__(self):
    self.training = None
    self.depth = 0


_state = _CallState()
from tensorlet.keras.mixed_precision.autocast_variable import _state as _autocast  # noqa: E402
# Layers holding losses added during a call; cleared when the next outermost call starts.
_LOSSY = weakref.WeakSet()


class _CallInfo:
  """What a `call` signature accepts (computed once per call function)."""

  __slots__ = ("training", "training_pos", "mask", "var_kw", "convert")

  def __init__(self, fn):
    try:
      params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
      params = []
    names = [p.name for p in params]
    self.var_kw = any(p.kind is p.VAR_KEYWORD for p in params)
    self.training = "training" in names
    self.mask = "mask" in names
    pos = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    self.training_pos = pos.index("training") if "training" in pos else 1 << 30
    # NOTE: Keras' own layers are not converted by AutoGraph (TF allowlists its own
    # modules), which keeps tracing cheap; user code is.
    self.convert = not (getattr(fn, "__module__", None) or "").startswith("tensorlet.")


_INFO = weakref.WeakKeyDictionary()


def _call_info(fn):
  key = getattr(fn, "__func__", fn)
  try:
    info = _INFO.get(key)
  except TypeError:
    return _CallInfo(fn)
  if info is None:
    info = _CallInfo(fn)
    try:
      _INFO[key] = info
    except TypeError:
      pass
  return info


class InputSpec:
  """Describes what a layer accepts (dtype, rank, axes sizes); checked on call."""

  def __init__(self, dtype=None, shape=None, ndim=None, max_ndim=None, min_ndim=None,
               axes=None, allow_last_axis_squeeze=False, name=None):
    self.dtype = dtype
    self.shape = shape
    self.ndim = len(shape) if shape is not None else ndim
    self.max_ndim = max_ndim
    self.min_ndim = min_ndim
    self.axes = dict(axes or {})
    self.name = name

  def __repr__(self):
    parts = [f"{k}={v}" for k, v in (("dtype", self.dtype), ("shape", self.shape),
                                      ("ndim", self.ndim), ("max_ndim", self.max_ndim),
                                      ("min_ndim", self.min_ndim), ("axes", self.axes)) if v]
    return f"InputSpec({', '.join(parts)})"


def _check_input_spec(layer, spec, x):
  """Raises Keras' ValueError when `x`'s rank or axis sizes do not fit `spec`, and its
  TypeError when `x` is not a tensor (None, a string, ...)."""
  if type(x) is EagerTensor:
    dims = x._value.shape
  else:
    if isinstance(x, (list, tuple, dict)):
      # A single-input layer fed several tensors (a dict from a dataset, say) would
      # otherwise fail deep in `call` with an AttributeError.
      # (The built-in layers that have an input spec all take one tensor.)
      raise ValueError(f"Layer \"{layer.name}\" expects 1 input(s), but it received "
                       f"{len(nest.flatten(x))} input tensors in a {type(x).__name__}. "
                       f"Inputs received: {x!r}"[:1000])
    if not isinstance(x, Tensor) and not hasattr(x, "shape"):
      raise TypeError(f"Inputs to a layer should be tensors. Got {x!r} (of type "
                      f"{type(x)}) as input for layer '{layer.name}'."[:1000])
    shape = getattr(x, "shape", None)
    if shape is None or shape.rank is None:
      return
    dims = tuple(shape.as_list())
  r = len(dims)
  name = layer.name
  for what, bad in (("ndim", spec.ndim is not None and r != spec.ndim),
                    ("min_ndim", spec.min_ndim is not None and r < spec.min_ndim),
                    ("max_ndim", spec.max_ndim is not None and r > spec.max_ndim)):
    if bad:
      raise ValueError(f"Input 0 of layer \"{name}\" is incompatible with the layer: expected "
                       f"{what}={getattr(spec, what)}, found ndim={r}. Full shape received: "
                       f"{tuple(dims)}")
  if spec.shape is not None and any(w is not None and g is not None and w != g
                                    for w, g in zip(spec.shape, dims)):
    raise ValueError(f"Input 0 of layer \"{name}\" is incompatible with the layer: expected "
                     f"shape={tuple(spec.shape)}, found shape={tuple(dims)}")
  for axis, size in spec.axes.items():
    got = dims[axis] if -r <= axis < r else None
    if size is not None and got is not None and got != size:
      raise ValueError(f"Input 0 of layer \"{name}\" is incompatible with the layer: expected "
                       f"axis {axis} of input shape to have value {size}, but received input "
                       f"with shape {tuple(dims)}")


def _to_tensor(x, dtype):
  """NumPy arrays and Python numbers become tensors; floating values take `dtype`."""
  if dtype is not None and not dtype.is_floating:
    dtype = None  # NOTE: Keras autocasts only into a floating compute dtype
  if isinstance(x, Tensor):
    if dtype is not None and x._dtype is not dtype and x._dtype.is_floating:
      return _m.cast(x, dtype)
    return x
  if isinstance(x, Variable):
    return _to_tensor(x._as_tensor(), dtype)
  if type(x) in (int, float):  # Python numbers convert as TF's do (int32, float32)
    x = convert_to_tensor(x)
    return _to_tensor(x, dtype)
  if isinstance(x, (np.ndarray, np.generic, float, int)) and not isinstance(x, bool):
    a = np.asarray(x)
    if dtype is not None and a.dtype.kind == "f":
      return convert_to_tensor(a.astype(dtype.as_numpy_dtype, copy=False))
    return convert_to_tensor(a)
  return x


def shape_tuple(value, arg):
  """A shape argument (an int, or a list/tuple/TensorShape of ints and Nones) as a
  tuple; TypeError naming the argument for anything else."""
  if isinstance(value, TensorShape):
    value = value.as_list() if value.rank is not None else value
  if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
    return (int(value),)
  if isinstance(value, (list, tuple)) and all(
      v is None or (isinstance(v, (int, np.integer)) and not isinstance(v, bool))
      for v in value):
    return tuple(None if v is None else int(v) for v in value)
  raise TypeError(f"`{arg}` must be a tuple of integers or None, got {value!r:.80}")


def _is_tensor_like(v):
  from tensorlet.composite_tensor import CompositeTensor
  return isinstance(v, (Tensor, Variable, CompositeTensor, np.ndarray))


def _tensor_inputs(x):
  """Whether a layer's inputs are a tensor or a flat list/tuple/dict of two or more
  tensors (a merge layer's), the forms whose errors a layer's own code reports."""
  if _is_tensor_like(x):
    return True
  values = x.values() if isinstance(x, dict) else x if isinstance(x, (list, tuple)) else None
  return values is not None and len(values) > 1 and all(_is_tensor_like(v) for v in values)


def _describe_inputs(x):
  if isinstance(x, (list, tuple, dict)):
    kinds = sorted({type(v).__name__ for v in (x.values() if isinstance(x, dict) else x)})
    return f"a {type(x).__name__} of {len(x)} ({', '.join(kinds) or 'empty'})"
  return f"a {type(x).__name__}"


def _flat_leaves(value, out, _path=()):
  """Leaves of lists/tuples/dicts in insertion order (dicts unsorted, unlike nest).
  A container that holds itself adds no leaves a second time (no endless walk)."""
  if isinstance(value, (list, tuple, dict)):
    if id(value) in _path:
      return
    path = _path + (id(value),)
    for v in (value.values() if isinstance(value, dict) else value):
      _flat_leaves(v, out, path)
  else:
    out.append(value)


def _is_default(method):
  return getattr(method, "_tl_default", False)


def default(method):
  """Marks a base-class method as the default (Keras skips default `build`s)."""
  method._tl_default = True
  return method


class Layer(Module):
  """Base class of Keras layers: `build(input_shape)` makes weights, `call` computes.

  Example:
    >>> class Scale(tf.keras.layers.Layer):
    ...   def build(self, input_shape):
    ...     self.w = self.add_weight("w", [input_shape[-1]], initializer="ones")
    ...   def call(self, x):
    ...     return x * self.w
    >>> Scale()(tf.ones([2, 3])).shape
    TensorShape([2, 3])
  """

  # Whether `__call__` converts a first argument that is not a tensor (NumPy, numbers).
  _tl_convert_inputs = True
  # Attributes of Keras' own machinery that tracking does not walk.
  _TL_UNTRACKED = frozenset({"_inbound_nodes", "_outbound_nodes", "optimizer", "loss",
                             "compiled_loss", "compiled_metrics", "history"})
  # Attributes checkpoints skip (the optimizer is saved, as Keras' save_weights does).
  _TL_NOT_SAVED = _TL_UNTRACKED - {"optimizer"}

  def __init__(self, trainable=True, name=None, dtype=None, dynamic=False, **kwargs):
    for k in kwargs:
      if k not in _ALLOWED_KWARGS:
        raise TypeError(f"Keyword argument not understood: {k}")
    if name is None:
      name = backend.unique_object_name(backend.to_snake_case(type(self).__name__))
    elif not isinstance(name, str):
      raise TypeError(f"Layer name must be a string, got {name!r}")
    object.__setattr__(self, "_tl_weights", [])
    self._name = name
    self._scope_name = ctx.scope + name + "/"
    self._tl_trainable = bool(trainable)
    from tensorlet.keras.mixed_precision.policy import policy_of
    policy = self._tl_policy = policy_of(dtype)  # None: the global policy
    self._tl_dtype = _dt.as_dtype(policy.variable_dtype or backend.floatx())
    # Mixed precision: inputs are cast to, and weights read as, the compute dtype.
    self._tl_compute = _dt.as_dtype(policy.compute_dtype or backend.floatx())
    self._tl_call_losses = []
    self._tl_regs = []
    self._tl_sig = None
    self._tl_out_shape = None
    self._tl_initial_weights = kwargs.get("weights")
    self._tl_autocast = kwargs.get("autocast", True)
    self.built = False
    self.supports_masking = False
    self.input_spec = None
    self._inbound_nodes = []
    self.activity_regularizer = regularizers.get(kwargs.get("activity_regularizer"))
    batch_shape = kwargs.get("batch_input_shape")
    if batch_shape is None:
      shape = kwargs.get("input_shape")
      if shape is None and kwargs.get("input_dim") is not None:
        shape = (kwargs["input_dim"],)
      if shape is not None:
        shape = shape_tuple(shape, "input_shape")
        batch_shape = (kwargs.get("batch_size"),) + shape
    self._batch_input_shape = shape_tuple(batch_shape, "batch_input_shape") \
        if batch_shape is not None else None

  # ------------------------------------------------------------ attributes
  def __setattr__(self, name, value):
    if not name.startswith("_tl_"):
      if isinstance(value, Variable):
        self._tl_track_variable(value)
      elif isinstance(value, (list, tuple, dict)) and value:
        leaves = []
        _flat_leaves(value, leaves)
        for v in leaves:
          if isinstance(v, Variable):
            self._tl_track_variable(v)
      if name == "call":
        object.__setattr__(self, "_tl_sig", None)
    super().__setattr__(name, value)

  def _tl_track_variable(self, v):
    weights = self.__dict__.get("_tl_weights")
    if weights is None:
      weights = []
      object.__setattr__(self, "_tl_weights", weights)
    if all(w is not v for w in weights):
      weights.append(v)

  @property
  def name(self):
    return self._name

  @property
  def dtype(self):
    """The dtype of the layer's weights, as a string ('float32')."""
    return self._tl_dtype.name

  @property
  def compute_dtype(self):
    return self._tl_compute.name

  @property
  def dtype_policy(self):
    return self._tl_policy

  @property
  def variable_dtype(self):
    return self._tl_dtype.name

  @property
  def trainable(self):
    return self._tl_trainable

  @trainable.setter
  def trainable(self, value):
    value = bool(value)
    for layer in self._flatten_layers():
      layer._tl_trainable = value

  @property
  def dynamic(self):
    return False

  @property
  def stateful(self):
    return False

  # --------------------------------------------------------------- tracking
  def _tl_sublayers(self):
    """Layers held directly in this layer's attributes, in assignment order."""
    return self._tl_held(Layer)

  def _tl_held(self, kinds):
    """Objects of `kinds` held directly in this layer's attributes (lists and dicts
    included), in assignment order."""
    out = []
    skip = self._TL_UNTRACKED
    for name, value in self.__dict__.items():
      if name.startswith("_tl_") or name in skip:
        continue
      if isinstance(value, kinds):
        if value is not self and all(value is not o for o in out):
          out.append(value)
      elif isinstance(value, (list, tuple, dict)) and value:
        leaves = []
        _flat_leaves(value, leaves)
        for v in leaves:
          if isinstance(v, kinds) and v is not self and all(v is not o for o in out):
            out.append(v)
    return out

  def _flatten_layers(self, include_self=True, recursive=True):
    """This layer and the layers it holds, depth first, each once."""
    seen = set()
    out = []

    def visit(layer, top):
      if id(layer) in seen:
        return
      seen.add(id(layer))
      if not top or include_self:
        out.append(layer)
      if top or recursive:
        for sub in layer._tl_sublayers():
          visit(sub, False)
    visit(self, True)
    return out

  @property
  def layers(self):
    return self._tl_sublayers()

  def _tl_checkpoint_children(self):
    """Checkpoint edges: attributes (sorted, as tf.Module), then weights made by
    `add_weight` that no attribute holds, under their local names ("kernel")."""
    pairs, held = [], set()
    for k in sorted(self.__dict__):
      if k.startswith("_tl_") or k in self._TL_NOT_SAVED:
        continue
      v = self.__dict__[k]
      leaves = []
      _flat_leaves(v, leaves)
      held.update(id(x) for x in leaves)
      pairs.append((k, v))
    names = {k for k, _ in pairs}
    for w in self._tl_weights:
      if id(w) not in held:
        name = base = w.name.rsplit("/", 1)[-1].split(":")[0]
        n = 0
        while name in names:
          n += 1
          name = f"{base}_{n}"
        names.add(name)
        pairs.append((name, w))
    return pairs

  def _tl_split(self):
    """(trainable, non-trainable) weights: own ones in creation order, then each held
    layer's, depth first; a weight of a frozen layer (or below one) is non-trainable."""
    trainable, frozen, seen_w, seen_l = [], [], set(), set()

    def visit(layer, on):
      if id(layer) in seen_l:
        return
      seen_l.add(id(layer))
      on = on and layer._tl_trainable
      for w in layer._tl_weights:
        if id(w) not in seen_w:
          seen_w.add(id(w))
          (trainable if on and w.trainable else frozen).append(w)
      for sub in layer._tl_sublayers():
        visit(sub, on)
    visit(self, True)
    return trainable, frozen

  @property
  def trainable_weights(self):
    return self._tl_split()[0]

  @property
  def non_trainable_weights(self):
    return self._tl_split()[1]

  @property
  def weights(self):
    t, n = self._tl_split()
    return t + n

  @property
  def variables(self):
    return self.weights

  @property
  def trainable_variables(self):
    return self.trainable_weights

  @property
  def non_trainable_variables(self):
    return self.non_trainable_weights

  def count_params(self):
    """The number of scalars in the layer's weights (it must be built)."""
    if not self.built:
      raise ValueError(f"You tried to call `count_params` on layer {self.name}, but the layer "
                       f"isn't built. You can build it manually via: "
                       f"`{self.name}.build(batch_input_shape)`.")
    from tensorlet.keras.utils.layer_utils import count_params
    return count_params(self.weights)

  def get_weights(self):
    """The weights as a list of NumPy arrays (the order of `weights`)."""
    return [w.numpy() for w in self.weights]

  def set_weights(self, weights):
    """Assigns a list of NumPy arrays to `weights` (same count and shapes)."""
    params = self.weights
    if not isinstance(weights, (list, tuple)):
      raise TypeError(f"`set_weights` on layer \"{self.name}\" expects a list of NumPy "
                      f"arrays, got {type(weights).__name__}.")
    if len(params) != len(weights):
      raise ValueError(f"You called `set_weights(weights)` on layer \"{self.name}\" with a "
                       f"weight list of length {len(weights)}, but the layer was expecting "
                       f"{len(params)} weights.")
    # Every shape is checked before anything is assigned: a bad last array must not leave
    # the first weights overwritten.
    arrays = []
    for p, w in zip(params, weights):
      w = np.asarray(w)
      if not p.shape.is_compatible_with(w.shape):
        raise ValueError(f"Layer {self.name} weight shape {tuple(p.shape.as_list())} is not "
                         f"compatible with provided weight shape {w.shape}.")
      if w.dtype.kind not in "biuf":
        raise TypeError(f"Layer {self.name}: `set_weights` got an array of dtype {w.dtype} "
                        f"for weight '{p.name}'; expected numbers.")
      arrays.append(w.astype(p.dtype.as_numpy_dtype, copy=False))
    for p, w in zip(params, arrays):
      p.assign(w)

  # ------------------------------------------------------------------ losses
  @property
  def losses(self):
    """Losses added during the last call (`add_loss`, activity regularizers) and the
    weight regularization penalties, computed now."""
    out = []
    for layer in self._flatten_layers():
      out.extend(layer._tl_call_losses)
      for v, reg in layer._tl_regs:
        if callable(v) and not isinstance(v, Variable):
          out.append(v())
        else:
          with name_scope(None):
            out.append(reg(v))
    return out

  def add_loss(self, losses, inputs=None):
    """Adds a loss tensor (during `call`) or a zero-argument callable (evaluated when
    `losses` is read)."""
    for loss in nest.flatten(losses):
      if loss is None:
        continue
      if callable(loss) and not isinstance(loss, Tensor):
        self._tl_regs.append((loss, None))
        continue
      from tensorlet.keras.engine.keras_tensor import KerasTensor
      if isinstance(loss, KerasTensor):
        raise TypeError("add_loss() with a symbolic KerasTensor (a functional-model loss) is "
                        "not supported; add the loss inside a layer's call() instead.")
      if not isinstance(loss, Tensor):
        loss = convert_to_tensor(loss, _dt.float32)
      self._tl_call_losses.append(loss)
      _LOSSY.add(self)

  @property
  def metrics(self):
    return []

  # ----------------------------------------------------------------- weights
  def add_weight(self, name=None, shape=None, dtype=None, initializer=None, regularizer=None,
                 trainable=None, constraint=None, use_resource=None,
                 synchronization=VariableSynchronization.AUTO, aggregation=None, **kwargs):
    """Creates a weight variable of this layer and tracks it.

    Args:
      name: the variable's name inside the layer's scope ("kernel" -> "dense/kernel:0").
      shape: its shape (default scalar).
      dtype: its dtype (default: the layer's).
      initializer: an initializer or its name; default glorot_uniform for floats,
        zeros otherwise.
      regularizer: adds `regularizer(weight)` to `losses`.
      trainable: default True (False for ON_READ synchronization).
      constraint: a projection the optimizer applies after each update.
    Returns:
      The tf.Variable.
    """
    if isinstance(name, (list, tuple, TensorShape)) and (shape is None or isinstance(shape, str)):
      name, shape = (shape if isinstance(shape, str) else kwargs.pop("name", None)), name
    for k in kwargs:
      if k not in ("getter", "collections", "experimental_autocast", "caching_device",
                   "partitioner"):
        raise TypeError(f"Unknown keyword argument: {k}")
    shape = () if shape is None else tuple(TensorShape(shape).as_list())
    dtype = _dt.as_dtype(dtype) if dtype is not None else self._tl_dtype
    if initializer is None:
      initializer = "glorot_uniform" if dtype.is_floating else "zeros"
    init = initializers.get(initializer)
    if synchronization is VariableSynchronization.ON_READ:
      if trainable:
        raise ValueError("Synchronization value can be set to VariableSynchronization.ON_READ "
                         "only for non-trainable variables. You have specified trainable=True "
                         "and synchronization=VariableSynchronization.ON_READ.")
      trainable = False
    elif trainable is None:
      trainable = True
    name = name or "Variable"
    saved = ctx.scope
    if not saved.endswith(self._name + "/"):
      ctx.scope = saved + self._name + "/"
    cls = Variable
    if self._tl_compute is not self._tl_dtype and dtype is self._tl_dtype and \
        kwargs.get("experimental_autocast", True):
      from tensorlet.keras.mixed_precision.autocast_variable import AutoCastVariable as cls
    try:
      # NOTE: unknown dimensions (Keras' shape=(2, None)) make a variable whose shape
      # each assign may change.
      extra = {"shape": TensorShape(shape)} if None in shape else {}
      var = cls(lambda: init(shape, dtype=dtype), trainable=trainable, name=name,
                dtype=dtype, constraint=constraints.get(constraint),
                synchronization=synchronization,
                aggregation=aggregation or VariableAggregation.NONE, **extra)
    finally:
      ctx.scope = saved
    self._tl_track_variable(var)
    if self.__dict__.get("_tl_pending_restore"):
      from tensorlet.train import checkpoint_hooks
      checkpoint_hooks.child_attached(self, name, var)
    reg = regularizers.get(regularizer)
    if reg is not None:
      self._tl_regs.append((var, reg))
    return var

  def add_variable(self, *args, **kwargs):
    """Deprecated alias of `add_weight`."""
    warnings.warn("`layer.add_variable` is deprecated and will be removed in a future "
                  "version. Please use the `layer.add_weight()` method instead.",
                  DeprecationWarning, stacklevel=2)
    return self.add_weight(*args, **kwargs)

  # ------------------------------------------------------------ build / call
  @default
  def build(self, input_shape):
    """Creates the layer's weights for `input_shape` (a TensorShape); the default
    creates none."""
    self.built = True

  def call(self, inputs, *args, **kwargs):
    """The layer's computation; the default returns its inputs."""
    return inputs

  def _maybe_build(self, inputs):
    if self.built:
      return
    shapes = nest.map_structure(lambda t: getattr(t, "shape", None), inputs)
    # Kept for the `.keras` format's build_config (what a loader builds with).
    self._tl_build_input_shape = shapes
    if not _is_default(type(self).build) or "build" in self.__dict__:
      self.build(shapes)
    self.built = True
    if self._tl_initial_weights is not None:
      self.set_weights(self._tl_initial_weights)
      self._tl_initial_weights = None

  def __call__(self, *args, **kwargs):
    if not args:
      if "inputs" not in kwargs:
        raise TypeError(f"{type(self).__name__}.__call__() missing the `inputs` argument")
      args = (kwargs.pop("inputs"),)
    x = args[0]
    if not isinstance(x, Tensor):
      from tensorlet.keras.engine import keras_tensor
      if keras_tensor.any_keras_tensor(args, kwargs):
        return keras_tensor.symbolic_call(self, args, kwargs)
      if not self._tl_convert_inputs:
        pass
      elif isinstance(x, (list, tuple, dict)):
        x = nest.map_structure(lambda v: _to_tensor(v, self._tl_compute if self._tl_autocast
                                                    else None), x)
      else:
        x = _to_tensor(x, self._tl_compute if self._tl_autocast else None)
      args = (x,) + args[1:]
    elif x._dtype is not self._tl_compute and self._tl_autocast and x._dtype.is_floating \
        and self._tl_compute.is_floating:
      args = (_m.cast(x, self._tl_compute),) + args[1:]
    info = self._tl_sig
    if info is None:
      info = self._tl_sig = _call_info(self.call)
    mask = kwargs.get("mask")  # explicit; the call may not take it, compute_mask does
    st = _state
    outer = st.training
    if info.training:
      if len(args) > info.training_pos:
        training = args[info.training_pos]
      else:
        training = kwargs.get("training")
        if training is None:
          training = outer
          if training is not None:
            kwargs["training"] = training
    else:
      training = kwargs.pop("training", None) if "training" in kwargs else None
      if training is None:
        training = outer
      if "mask" in kwargs and not info.mask and not info.var_kw:
        del kwargs["mask"]
    # Keras masks ride on tensors (`_keras_mask`); none exist until a layer made one.
    if mask is None and _masks.seen:
      mask = _input_mask(args[0])
      if mask is not None and info.mask:
        kwargs["mask"] = mask
    st.training = training
    if st.depth == 0 and _LOSSY:
      for layer in list(_LOSSY):
        layer._tl_call_losses = []
      _LOSSY.clear()
    st.depth += 1
    scope = None
    if self._tl_compute is not self._tl_dtype or getattr(_autocast, "dtype", None) is not None:
      from tensorlet.keras.mixed_precision.autocast_variable import autocast_scope
      scope = autocast_scope(self._tl_compute if self._tl_compute is not self._tl_dtype
                             else None)
      scope.__enter__()
    try:
      if self.built and ctx.graph is None:
        if self.input_spec is not None:
          _check_input_spec(self, self.input_spec, args[0])
        try:
          outputs = self.call(*args, **kwargs)
        except Exception as e:
          self._tl_call_error(e, args, kwargs, False)
      else:
        outputs = self._tl_call_slow(args, kwargs)
    except (AttributeError, IndexError) as e:
      if _tensor_inputs(args[0]) or hasattr(e, "_keras_call_info_injected"):
        raise
      raise TypeError(f"Layer {self.name!r} ({type(self).__name__}) cannot be called on "
                      f"{_describe_inputs(args[0])}: it takes a tensor (or a list of tensors "
                      f"for a layer of several inputs)") from e
    finally:
      st.depth -= 1
      st.training = outer
      if scope is not None:
        scope.__exit__(None, None, None)
    if self.activity_regularizer is not None:
      self._tl_activity_loss(outputs)
    if (mask is not None and self.supports_masking) or \
        type(self).compute_mask is not Layer.compute_mask:
      _set_output_mask(outputs, self.compute_mask(args[0], mask))
    return outputs

  def _tl_call_slow(self, args, kwargs):
    with name_scope(self._name):
      if not self.built:
        if self.input_spec is not None:
          _check_input_spec(self, self.input_spec, args[0])
        self._maybe_build(args[0])
      if self.input_spec is not None:
        _check_input_spec(self, self.input_spec, args[0])
      converted = ctx.graph is not None and self._tl_sig.convert
      try:
        if converted:
          from tensorlet.autograph.api import converted_call
          return converted_call(self.call, args, kwargs)
        return self.call(*args, **kwargs)
      except Exception as e:
        self._tl_call_error(e, args, kwargs, converted)

  def _tl_call_error(self, e, args, kwargs, converted):
    """Raises `e` from `call` again with Keras' layer context (keras/utils/traceback_utils.py).
    AttributeError and IndexError on inputs that are not tensors are left to `__call__`,
    which reports the inputs instead."""
    if isinstance(e, (AttributeError, IndexError)) and not _tensor_inputs(args[0]):
      raise e
    from tensorlet.keras.utils.traceback_utils import with_call_info
    new = with_call_info(self, e, args, kwargs, converted)
    if new is e:
      raise e
    raise new.with_traceback(e.__traceback__) from None

  def _tl_activity_loss(self, outputs):
    for out in nest.flatten(outputs):
      if isinstance(out, Tensor):
        loss = self.activity_regularizer(out)
        n = _m.cast(_a_shape0(out), loss.dtype)
        self.add_loss(loss / n)

  def compute_output_shape(self, input_shape):
    """The output shape for `input_shape`, found by tracing `call` symbolically."""
    from tensorlet.keras.engine import keras_tensor
    shapes = nest.map_structure(lambda s: TensorShape(s), input_shape,) \
        if not isinstance(input_shape, TensorShape) and _is_shape_struct(input_shape) \
        else TensorShape(input_shape)
    out = keras_tensor.trace_shapes(self, shapes, self._tl_compute)
    return out

  def compute_mask(self, inputs, mask=None):
    """The mask of the outputs: the input mask when the layer supports masking."""
    return mask if self.supports_masking else None

  # ------------------------------------------------------------------ config
  def get_config(self):
    """The constructor arguments that recreate this layer (without weights)."""
    policy = self._tl_policy
    dtype = self.dtype if policy.compute_dtype == policy.variable_dtype else {
        "module": "keras.mixed_precision", "class_name": "Policy",
        "config": {"name": policy.name}, "registered_name": None}
    config = {"name": self.name, "trainable": self.trainable, "dtype": dtype}
    if self._batch_input_shape is not None:
      config["batch_input_shape"] = self._batch_input_shape
    return config

  @classmethod
  def from_config(cls, config):
    return cls(**config)

  # -------------------------------------------------------------- functional
  @property
  def output_shape(self):
    if self._tl_out_shape == "multiple":
      raise AttributeError(f"The layer \"{self.name}\" has multiple inbound nodes, with "
                           f"different output shapes. Hence the notion of \"output shape\" "
                           f"is ill-defined for the layer.")
    if self._tl_out_shape is None:
      raise AttributeError(f"The layer \"{self.name}\" has never been called and thus has no "
                           f"defined output shape.")
    return self._tl_out_shape

  @property
  def input(self):
    if not self._inbound_nodes:
      raise AttributeError(f"Layer {self.name} is not connected, no input to return.")
    ins = self._inbound_nodes[0].inputs
    return ins[0] if len(ins) == 1 else ins

  @property
  def output(self):
    if not self._inbound_nodes:
      raise AttributeError(f"Layer {self.name} has no inbound nodes.")
    return self._inbound_nodes[0].output_structure

  def __repr__(self):
    return f"<{type(self).__module__}.{type(self).__name__} object at {hex(id(self))}>"


class _MaskState:
  seen = False


_masks = _MaskState()


def _input_mask(x):
  if isinstance(x, (list, tuple)):
    masks = [getattr(t, "_keras_mask", None) for t in x]
    return None if all(m is None for m in masks) else masks
  return getattr(x, "_keras_mask", None)


def _set_output_mask(outputs, mask):
  if mask is None:
    return
  _masks.seen = True
  flat = nest.flatten(outputs)
  masks = nest.flatten(mask) if isinstance(mask, (list, tuple)) else [mask] * len(flat)
  for t, m in zip(flat, masks):
    if m is not None and (isinstance(t, Tensor) or getattr(t, "_tf_tensor_like", False)):
      try:
        t._keras_mask = m
      except AttributeError:
        pass


def _a_shape0(t):
  from tensorlet.ops import array_ops
  return array_ops.shape(t)[0]


def _is_shape_struct(s):
  return isinstance(s, (list, tuple)) and s and all(
      isinstance(e, (list, tuple, TensorShape)) for e in s)
