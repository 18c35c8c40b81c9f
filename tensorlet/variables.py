"""tf.Variable: mutable state that tapes watch and functions capture."""
import enum
import itertools
import weakref

import numpy as np

from tensorlet import dtypes as _dt
from tensorlet.context import ctx, canonical_device
from tensorlet.errors import InvalidArgumentError
from tensorlet.indexed_slices import IndexedSlices
from tensorlet.ops import overloads
from tensorlet.ops.registry import execute
from tensorlet.ops import state_ops
from tensorlet.tensor_shape import TensorShape
from tensorlet.tensor import EagerTensor, Tensor, convert_to_tensor

__all__ = ["Variable", "VariableSynchronization", "VariableAggregation"]

_uids = itertools.count(1)

# NOTE: set by tensorlet.distribute: inside a strategy's scope, creator(args, kwargs, cls)
# returns the (uninitialised, or already built) distributed variable to make instead. A
# subclass that names `_tl_distributed_name` (AutoCastVariable) is distributed too, as a
# class of that name deriving from it and the distributed variable class.
_creator = None


class VariableSynchronization(enum.Enum):
  AUTO = 0
  NONE = 1
  ON_WRITE = 2
  ON_READ = 3


class VariableAggregation(enum.Enum):
  NONE = 0
  SUM = 1
  MEAN = 2
  ONLY_FIRST_REPLICA = 3


def _no_in_place(op, instead):
  def method(self, other):
    raise RuntimeError(f"`variable {op}= value` with `tf.Variable`s is not supported. Use "
                       f"`{instead}` to modify the variable, or `out = variable {op} value` "
                       f"if you need to get a new output Tensor.")
  return method


class Variable:
  """A tensor-valued, mutable, trackable piece of state.

  Example:
    >>> v = tf.Variable([1.0, 2.0])
    >>> v.assign_add([1.0, 1.0]).numpy()
    array([2., 3.], dtype=float32)
  """

  _tf_tensor_like = True

  def __new__(cls, *args, **kwargs):
    if _creator is not None and (cls is Variable or "_tl_distributed_name" in cls.__dict__):
      made = _creator(args, kwargs, cls)
      if made is not None:
        return made
    return object.__new__(cls)

  def __init__(self, initial_value=None, trainable=None, validate_shape=True,
               caching_device=None, name=None, variable_def=None, dtype=None,
               import_scope=None, constraint=None,
               synchronization=VariableSynchronization.AUTO,
               aggregation=VariableAggregation.NONE, shape=None,
               experimental_enable_variable_lifting=True):
    if initial_value is None:
      raise ValueError("The `initial_value` arg to `tf.Variable` must be specified except when "
                       "you are not providing a `variable_def`. You provided neither.")
    if constraint is not None and not callable(constraint):
      raise ValueError(f"Argument `constraint` must be None or a callable. a callable. Got a "
                       f"{type(constraint)}:  {constraint}")
    if synchronization is VariableSynchronization.ON_READ:
      if trainable:
        raise ValueError("Synchronization value can be set to VariableSynchronization.ON_READ "
                         "only for non-trainable variables. You have specified trainable=True "
                         "and synchronization=VariableSynchronization.ON_READ.")
      trainable = False
    elif trainable is None:
      trainable = True
    creator = ctx.variable_creator
    if creator is not None:
      creator(self)
    init = self._initial_tensor(initial_value, dtype)
    self._dtype = init.dtype
    self._shape = init.shape if validate_shape and shape is None else TensorShape(shape) \
        if shape is not None else TensorShape(None)
    if shape is not None and not TensorShape(shape).is_compatible_with(init.shape):
      raise ValueError(f"The initial value's shape ({init.shape}) is not compatible with the "
                       f"explicitly supplied `shape` argument ({TensorShape(shape)}).")
    base = name if name is not None else "Variable"
    if isinstance(base, str) and base.endswith(":0"):
      base = base[:-2]
    self._name = (ctx.scope + base) if ctx.scope else base
    self._trainable = bool(trainable)
    self._constraint = constraint
    self._synchronization = synchronization
    self._aggregation = aggregation
    self._device = ctx.device
    self._uid = next(_uids)
    self._initial_value = init
    self._value = _own(init._value)
    self._cached = None
    self._handle = EagerTensor(self, _dt.resource)

  @staticmethod
  def _initial_tensor(initial_value, dtype):
    saved = ctx.graph
    if saved is not None and isinstance(initial_value, Tensor) and \
        not isinstance(initial_value, EagerTensor):
      # NOTE: created while tracing from a value the function computed: take its
      # value now, from the arguments of the call being traced (TF lifts it).
      initial_value = saved.evaluate(initial_value)
    ctx.graph = None  # NOTE: the init_scope: initial values are computed eagerly.
    try:
      if callable(initial_value):
        initial_value = initial_value()
      if isinstance(initial_value, Variable):
        initial_value = initial_value._as_tensor()
      # NOTE: as TF: `dtype` converts Python values; a tensor of another dtype
      # raises ValueError (convert_to_tensor's "Tensor conversion requested ...").
      t = convert_to_tensor(initial_value, dtype=dtype)
    finally:
      ctx.graph = saved
    if not isinstance(t, EagerTensor):
      raise ValueError("A tf.Variable's initial value must not depend on a tf.function's "
                       "symbolic tensors; create the variable outside the function or pass "
                       "an initializer callable.")
    return t

  # --------------------------------------------------------------- reading
  def _array_value(self):
    return self._value

  def _as_tensor(self):
    c = ctx
    if c.graph is not None:
      return c.graph.read_variable(self)
    if c.tapes or c.variable_watchers:
      return self._read_recorded(c)
    t = self._cached
    if t is None:
      t = self._cached = EagerTensor(self._value, self._dtype)
    return t

  def _read_recorded(self, c):
    self._note_access()
    return execute(state_ops.ReadVariableOp, [self._handle], {})

  def _note_access(self):
    """Tapes watch trainable variables as they are used; custom_gradient notes them."""
    c = ctx
    for w in c.variable_watchers:
      w(self)
    if self._trainable:
      for tape in c.tapes:
        if tape._watch_accessed_variables:
          tape._watch_variable(self)

  def value(self):
    return self._as_tensor()

  def read_value(self):
    return self._as_tensor()

  def numpy(self):
    v = self._value
    return v.copy() if isinstance(v, np.ndarray) else v

  def __array__(self, dtype=None, copy=None):
    v = np.array(self._value, copy=True)
    return v.astype(dtype) if dtype is not None else v

  def _set(self, value):
    self._value = value
    self._cached = None

  # ------------------------------------------------------------- writing
  def _checked_value(self, value, op_name, same_shape):
    try:
      # NOTE: as TF: a tensor of another dtype is a ValueError ("Tensor conversion
      # requested dtype ..."), a Python value that does not fit a TypeError.
      t = convert_to_tensor(value, self._dtype)
    except (TypeError, ValueError) as e:
      raise type(e)(f"{op_name} on variable '{self.name}': {e}") from None
    if same_shape:
      # The kernel's check: shapes must be equal (the value's shape when the
      # variable's declared shape is not fully known).
      have = self._shape
      if not have.is_fully_defined() and ctx.graph is None:
        have = TensorShape(np.shape(self._value))
      if have.rank is not None and t.shape.rank is not None and \
          not have.is_compatible_with(t.shape):
        raise InvalidArgumentError(
            None, None, f"Cannot update variable with shape {have.as_list()} using a "
            f"Tensor with shape {t.shape.as_list()}, shapes must be equal. "
            f"[Op:{_OP_NAMES[op_name]}]")
    elif not self._shape.is_compatible_with(t.shape):
      raise ValueError(f"Cannot assign value to variable ' {self.name}': Shape mismatch.The "
                       f"variable shape {self._shape}, and the assigned value shape {t.shape} "
                       f"are incompatible.")
    return t

  def assign(self, value, use_locking=None, name=None, read_value=True):
    """Sets the variable's value; returns the variable (or None if not read_value)."""
    t = self._checked_value(value, "assign", False)
    if isinstance(t, EagerTensor) and ctx.graph is None:
      t = EagerTensor(_own(t._value), t._dtype)
    execute(state_ops.AssignVariableOp, [self._handle, t], {})
    return self if read_value else None

  def assign_add(self, delta, use_locking=None, name=None, read_value=True):
    """Adds `delta` (same shape) to the variable."""
    t = self._checked_value(delta, "assign_add", True)
    execute(state_ops.AssignAddVariableOp, [self._handle, t], {})
    return self if read_value else None

  def assign_sub(self, delta, use_locking=None, name=None, read_value=True):
    """Subtracts `delta` (same shape) from the variable."""
    t = self._checked_value(delta, "assign_sub", True)
    execute(state_ops.AssignSubVariableOp, [self._handle, t], {})
    return self if read_value else None

  def _assign_slice(self, key, value, read_value=True):
    """v[key].assign(value): TF's strided-slice assign, `value` broadcast to the slice."""
    from tensorlet.ops import array_ops
    cur = self._as_tensor()
    shape = array_ops.shape(cur)
    # NOTE: the slice of an index grid names the elements written, so every key
    # strided_slice takes (steps, negative bounds, newaxis, ...) is handled alike.
    sel = array_ops.reshape(array_ops.range(array_ops.size(cur)), shape)[key]
    t = convert_to_tensor(value, dtype=self._dtype)
    t = array_ops.broadcast_to(t, array_ops.shape(sel))
    flat = array_ops.tensor_scatter_nd_update(
        array_ops.reshape(cur, [-1]), array_ops.reshape(sel, [-1, 1]), array_ops.reshape(t, [-1]))
    return self.assign(array_ops.reshape(flat, shape), read_value=read_value)

  # -------------------------------------------------- sparse updates (rows)
  def _scatter(self, od, sparse_delta):
    _check_sparse_delta(sparse_delta)
    indices = convert_to_tensor(sparse_delta.indices)
    if indices.dtype not in (_dt.int32, _dt.int64):
      raise TypeError(f"{od.name}: the indices of `sparse_delta` must be int32 or int64, got "
                      f"{indices.dtype.name}")
    updates = convert_to_tensor(sparse_delta.values, self._dtype)
    execute(od, [self._handle, indices, updates], {})
    return self

  def scatter_add(self, sparse_delta, use_locking=False, name=None):
    """Adds the rows of the IndexedSlices `sparse_delta` (repeated rows add up)."""
    return self._scatter(state_ops.ResourceScatterAdd, sparse_delta)

  def scatter_sub(self, sparse_delta, use_locking=False, name=None):
    """Subtracts the rows of the IndexedSlices `sparse_delta`."""
    return self._scatter(state_ops.ResourceScatterSub, sparse_delta)

  def scatter_update(self, sparse_delta, use_locking=False, name=None):
    """Sets the rows `sparse_delta.indices` to its values (a repeated row: the last)."""
    return self._scatter(state_ops.ResourceScatterUpdate, sparse_delta)

  def scatter_mul(self, sparse_delta, use_locking=False, name=None):
    return self._scatter(state_ops.ResourceScatterMul, sparse_delta)

  def scatter_div(self, sparse_delta, use_locking=False, name=None):
    """Divides rows by the values (integers truncate toward zero; a zero divisor raises)."""
    return self._scatter(state_ops.ResourceScatterDiv, sparse_delta)

  def scatter_max(self, sparse_delta, use_locking=False, name=None):
    return self._scatter(state_ops.ResourceScatterMax, sparse_delta)

  def scatter_min(self, sparse_delta, use_locking=False, name=None):
    return self._scatter(state_ops.ResourceScatterMin, sparse_delta)

  def batch_scatter_update(self, sparse_delta, use_locking=False, name=None):
    """scatter_update along the first axis after the indices' batch axes: row
    `indices[b..., k]` of batch `b...` is set to `values[b..., k]`."""
    _check_sparse_delta(sparse_delta)
    from tensorlet.ops import array_ops
    idx = convert_to_tensor(sparse_delta.indices)
    if idx.shape.rank in (None, 0, 1):
      return self.scatter_update(sparse_delta)
    batch = array_ops.shape(idx, out_type=idx.dtype)
    grids = array_ops.meshgrid(*[array_ops.range(batch[i]) for i in range(idx.shape.rank - 1)]
                               + [array_ops.range(batch[-1])], indexing="ij")
    nd = array_ops.stack(grids[:-1] + [idx], axis=-1)
    return self.scatter_nd_update(nd, convert_to_tensor(sparse_delta.values, self._dtype))

  def scatter_nd_update(self, indices, updates, name=None):
    from tensorlet.ops.array_ops import tensor_scatter_nd_update
    return self.assign(tensor_scatter_nd_update(self._as_tensor(), indices, updates))

  def scatter_nd_add(self, indices, updates, name=None):
    from tensorlet.ops.array_ops import tensor_scatter_nd_add
    return self.assign(tensor_scatter_nd_add(self._as_tensor(), indices, updates))

  def scatter_nd_sub(self, indices, updates, name=None):
    from tensorlet.ops.array_ops import tensor_scatter_nd_sub
    return self.assign(tensor_scatter_nd_sub(self._as_tensor(), indices, updates))

  def scatter_nd_max(self, indices, updates, name=None):
    from tensorlet.ops.array_ops import tensor_scatter_nd_max
    return self.assign(tensor_scatter_nd_max(self._as_tensor(), indices, updates))

  def scatter_nd_min(self, indices, updates, name=None):
    from tensorlet.ops.array_ops import tensor_scatter_nd_min
    return self.assign(tensor_scatter_nd_min(self._as_tensor(), indices, updates))

  def sparse_read(self, indices, name=None):
    """The rows `indices` of the variable (tf.gather of its value)."""
    from tensorlet.ops.array_ops import gather
    return gather(self._as_tensor(), indices, name=name)

  def gather_nd(self, indices, name=None):
    from tensorlet.ops.array_ops import gather_nd
    return gather_nd(self._as_tensor(), indices, name=name)

  def is_initialized(self, name=None):
    """Always True: TF 2 variables are initialized when created."""
    return convert_to_tensor(True)

  # ---------------------------------------------------------- properties
  @property
  def name(self):
    return self._name + ":0"

  @property
  def dtype(self):
    return self._dtype

  @property
  def shape(self):
    return self._shape  # NOTE: as TF: TensorShape(None) stays unknown (use tf.shape(v))

  def get_shape(self):
    return self.shape

  @property
  def ndim(self):
    return self.shape.rank

  @property
  def trainable(self):
    return self._trainable

  @property
  def constraint(self):
    return self._constraint

  @property
  def synchronization(self):
    return self._synchronization

  @property
  def aggregation(self):
    return self._aggregation

  @property
  def device(self):
    return canonical_device(self._device)

  @property
  def handle(self):
    return self._handle

  @property
  def initial_value(self):
    return self._initial_value

  @property
  def dtype_base(self):
    return self._dtype

  def ref(self):
    from tensorlet.tensor import _Reference
    return _Reference(self)

  experimental_ref = ref

  def __hash__(self):
    raise TypeError("Variable is unhashable. Instead, use variable.ref() as the key.")

  def __repr__(self):
    t = EagerTensor(self._value, self._dtype)
    return (f"<tf.Variable '{self.name}' shape={self.shape} dtype={self._dtype.name}, "
            f"numpy={t._numpy_text(True)}>")

  def __str__(self):
    return self.__repr__()

  def __format__(self, spec):
    # NOTE: as TF's variables (object.__format__): the repr, and no format specs.
    if spec:
      raise TypeError(f"unsupported format string passed to {type(self).__name__}.__format__")
    return str(self)

  def __bool__(self):
    return bool(self._value)

  def __int__(self):
    return int(self._value)

  def __float__(self):
    return float(self._value)

  def __index__(self):
    return self._as_tensor().__index__()

  def __len__(self):
    return len(self._as_tensor())

  def __iter__(self):
    return iter(self._as_tensor())

  # NOTE: as TF 2: in-place operators would silently rebind the name to a tensor.
  __iadd__ = _no_in_place("+", "variable.assign_add(value)")
  __isub__ = _no_in_place("-", "variable.assign_sub(value)")
  __imul__ = _no_in_place("*", "variable.assign(variable * value)")
  __itruediv__ = _no_in_place("/", "variable.assign(variable / value)")
  __ipow__ = _no_in_place("**", "variable.assign(variable ** value)")

  def __deepcopy__(self, memo):
    v = Variable(np.array(self._value, copy=True), trainable=self._trainable, name=self._name,
                 dtype=self._dtype, constraint=self._constraint, shape=self._shape)
    memo[id(self)] = v
    return v


_OP_NAMES = {"assign": "AssignVariableOp", "assign_add": "AssignAddVariableOp",
             "assign_sub": "AssignSubVariableOp"}


def _check_sparse_delta(sparse_delta):
  if not isinstance(sparse_delta, IndexedSlices):
    raise TypeError(f"Argument `sparse_delta` must be a `tf.IndexedSlices`. Received arg: "
                    f"{sparse_delta}")


def _own(v):
  """A private copy of an array so later outside writes cannot reach the variable."""
  if isinstance(v, np.ndarray):
    return v.copy() if v.ndim or v.dtype.kind == "O" else v[()]
  return v


overloads.install(Variable)


class _SliceAssign:
  """Adds TF's `assign` to the tensor `v[key]` returns (see _variable_getitem)."""

  __slots__ = ()

  def assign(self, value, use_locking=None, name=None, read_value=True):
    _, var, key = _SLICES[id(self)]
    return var._assign_slice(key, value, read_value)


_SLICES = {}        # id(slice tensor) -> (weakref to it, variable, key)
_SLICE_CLASSES = {}  # tensor class -> its subclass with `assign`


def _variable_getitem(var, key):
  t = _plain_getitem(var, key)
  if type(key) is bool or getattr(key, "dtype", None) in (_dt.bool, np.bool_):
    return t  # NOTE: a boolean-mask result has no `assign`.
  cls = _SLICE_CLASSES.get(type(t))
  if cls is None:
    cls = _SLICE_CLASSES[type(t)] = type(type(t).__name__, (_SliceAssign, type(t)),
                                         {"__slots__": ()})
  # NOTE: a fresh result of this read, so giving it the subclass changes no other tensor.
  t.__class__ = cls
  k = id(t)
  _SLICES[k] = (weakref.ref(t, lambda _, k=k: _SLICES.pop(k, None)), var, key)
  return t


_plain_getitem = Variable.__getitem__
Variable.__getitem__ = _variable_getitem
