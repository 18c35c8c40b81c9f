"""tf.TensorArray on list ops over `variant` tensors.

A TensorArray is a Python object around a `flow`: a variant tensor whose value
is an immutable tuple of arrays (None = not written yet). Every write makes a
new tuple and a new TensorArray, so the same ops work eagerly, inside graphs
and as loop variables, and their gradients are lists too: a variant whose
tuple holds per-element gradients (None or Variant(None) = zero).
"""
from itertools import compress, repeat
from operator import is_not

import numpy as np

from tensorlet import dtypes as _dt
from tensorlet.errors import InvalidArgumentError
from tensorlet.ops.control_flow_ops import Variant
from tensorlet.ops.registry import execute, op
from tensorlet.tensor_shape import TensorShape
from tensorlet.tensor import Tensor, convert_to_tensor

__all__ = ["TensorArray"]

_V = frozenset({_dt.variant})


def _items(v):
  return () if v.value is None else v.value


def _vshape(inputs, attrs):
  return [(TensorShape([]), _dt.variant)]


def _elem_spec(attrs):
  return attrs.get("element_shape") or TensorShape(None), attrs["element_dtype"]


def _zero_like_elem(items, attrs):
  for x in items:
    if x is not None:
      return np.zeros_like(x)
  shape = attrs.get("element_shape")
  if shape is not None and shape.is_fully_defined():
    return np.zeros(shape.as_list(), attrs["element_dtype"]._np)
  raise InvalidArgumentError(None, None, "Tried to read from a TensorArray element that was "
                             "never written and whose shape is unknown")


@op("TensorListReserve", type_inputs=(), shape=_vshape, differentiable=False)
def TensorListReserve(size, *, element_dtype, element_shape):
  if int(size) < 0:
    raise InvalidArgumentError(None, None, f"TensorArray size must be >= 0, got {int(size)}")
  return Variant((None,) * int(size), (), True)


@op("VariantZerosLike", type_inputs=(), shape=_vshape, differentiable=False)
def VariantZerosLike(v):
  # NOTE: as long as `v` (unwritten slots), so gradient lists keep the forward
  # list's length: a read's gradient then never ends short of a later index.
  return Variant((None,) * len(v.value) if isinstance(v.value, tuple) else None, (), True)


# Lists with at most this many known written slots keep the indices (Variant.written).
_FEW = 16


@op("VariantAddN", dtypes=_V, shape=_vshape)
def VariantAddN(*vs):
  # NOTE: a loop's gradient list grows by one written slot per iteration, and each
  # iteration adds a list written at one slot: lists whose few written slots are known
  # (Variant.written) are visited at those slots only, so the sum costs one copy of the
  # one other list. Without the hints, the densest list is copied whole and only the
  # others' written slots are visited, all found by C-level passes.
  sparse = [v for v in vs if v.written is not None]
  if len(sparse) >= len(vs) - 1:
    dense = [v for v in vs if v.written is None]
    n = max(len(_items(v)) for v in vs)
    if dense:
      base = _items(dense[0])
      out = list(base)
      if not dense[0].clean and Variant in set(map(type, out)):
        out = [None if isinstance(x, Variant) else x for x in out]
      written = None
    else:
      out, written = [], ()
    if len(out) < n:
      out.extend([None] * (n - len(out)))
    for v in sparse:
      items = v.value
      for i in v.written:
        x = items[i]
        if x is not None and not isinstance(x, Variant):
          if out[i] is None:
            out[i] = x
            if written is not None:
              written += (i,)
          else:
            out[i] = out[i] + x
    if written is not None and len(written) > _FEW:
      written = None
    return Variant(tuple(out), written, True)
  lists = sorted(((_written(items), items) for items in map(_items, vs)),
                 key=lambda wi: -len(wi[0]))
  n = max(len(items) for _, items in lists)
  out = list(lists[0][1]) + [None] * (n - len(lists[0][1]))
  if Variant in set(map(type, out)):
    out = [None if isinstance(x, Variant) else x for x in out]
  for written, items in lists[1:]:
    for i in written:
      x = items[i]
      if not isinstance(x, Variant):
        out[i] = x if out[i] is None else out[i] + x
  return Variant(tuple(out), None, True)


def _written(items):
  """Indices of the slots that hold a value (`is not None`: `!=` on arrays is elementwise)."""
  return list(compress(range(len(items)), map(is_not, items, repeat(None))))


@VariantAddN.def_grad
def _(op, dy):
  return [dy] * len(op.inputs)


@op("TensorListSetItem", type_inputs=(0,), dtypes=_V, shape=_vshape)
def TensorListSetItem(lst, index, item, *, dynamic_size, element_dtype, element_shape):
  items = list(_items(lst))
  i = int(index)
  if i < 0:
    raise InvalidArgumentError(None, None, f"TensorArray index {i} must be >= 0")
  if i >= len(items):
    if not dynamic_size:
      raise InvalidArgumentError(None, None, f"Tried to write to index {i} but array is not "
                                 f"resizeable and size is: {len(items)}")
    items.extend([None] * (i + 1 - len(items)))
  want = element_shape._dims if element_shape is not None else None
  if want is not None:
    got = np.shape(item)
    if got != want and (len(want) != len(got) or
                        any(w is not None and w != g for w, g in zip(want, got))):
      raise InvalidArgumentError(None, None, f"Could not write to TensorArray index {i} "
                                 f"because the value shape is {list(got)} which is "
                                 f"incompatible with the TensorArray's inferred element "
                                 f"shape: {element_shape}")
  was = items[i]
  items[i] = item
  written = lst.written
  if written is not None and was is None and item is not None:
    written = written + (i,) if len(written) < _FEW else None
  return Variant(tuple(items), written, lst.clean and not isinstance(item, Variant))


@TensorListSetItem.def_grad
def _(op, dlist):
  lst, index, item = op.inputs
  a = op.attrs
  d_item = execute(TensorListGetItem, [dlist, index, item], _read_attrs(a))
  d_in = execute(TensorListSetItem, [dlist, index, _zeros(item)], a)
  return [d_in, None, d_item]


def _read_attrs(a):
  return {"element_dtype": a["element_dtype"], "element_shape": a["element_shape"]}


def _zeros(t):
  from tensorlet.ops.array_ops import zeros_like
  return zeros_like(t)


@op("TensorListGetItem", type_inputs=(0,), dtypes=_V,
    shape=lambda i, a: [(a.get("element_shape") or i[2].shape, a["element_dtype"])])
def TensorListGetItem(lst, index, like, *, element_dtype, element_shape):
  """Element `index`; `like` gives the shape of a zero for unwritten gradient slots."""
  items = _items(lst)
  i = int(index)
  if lst.value is not None and not 0 <= i < len(items):
    raise InvalidArgumentError(None, None, f"Tried to read from index {i} but array size is: "
                               f"{len(items)}")
  x = items[i] if i < len(items) else None
  if x is None:
    return np.zeros_like(like)
  return x


@TensorListGetItem.def_grad
def _(op, dy):
  lst, index, like = op.inputs
  zeros = execute(VariantZerosLike, [lst], {})
  a = dict(op.attrs, dynamic_size=True)
  return [execute(TensorListSetItem, [zeros, index, dy], a), None, None]


def _stack_shape(inputs, attrs):
  s = attrs.get("element_shape")
  return [(TensorShape([None]).concatenate(s if s is not None else TensorShape(None)),
           attrs["element_dtype"])]


@op("TensorListStack", type_inputs=(0,), dtypes=_V, shape=_stack_shape)
def TensorListStack(lst, like, *, element_dtype, element_shape):
  """All elements stacked; unwritten slots are zeros shaped like `like` (a sample element)."""
  items = _items(lst)
  if not items:
    shape = element_shape.as_list() if element_shape is not None and \
        element_shape.is_fully_defined() else [0]
    return np.zeros([0] + (shape if shape != [0] else []), element_dtype._np)
  filled = [x if x is not None else None for x in items]
  zero = None
  if any(x is None for x in filled):
    zero = np.zeros_like(like) if np.size(like) or np.ndim(like) else _zero_like_elem(
        items, {"element_shape": element_shape, "element_dtype": element_dtype})
  try:
    return np.stack([x if x is not None else zero for x in filled])
  except ValueError as e:
    raise InvalidArgumentError(None, None, f"TensorArray has inconsistent element shapes and "
                               f"cannot be stacked: {e}") from None


@TensorListStack.def_grad
def _(op, dy):
  return [execute(TensorListFromTensor, [dy], {}), None]


@op("TensorListFromTensor", shape=_vshape)
def TensorListFromTensor(t):
  return Variant(tuple(t[i] for i in range(np.shape(t)[0])))


@TensorListFromTensor.def_grad
def _(op, dlist):
  t = op.inputs[0]
  like = execute(_ElementZeros, [t], {})
  return [execute(TensorListStack, [dlist, like], {"element_dtype": t.dtype,
                                                   "element_shape": None})]


@op("TensorListElementZeros", shape=lambda i, a: [(i[0].shape[1:], i[0].dtype)],
    differentiable=False)
def _ElementZeros(t):
  return np.zeros(np.shape(t)[1:], np.asarray(t).dtype)


def _pieces(lst, like, element_shape, dtype):
  """The items of `lst`; an unwritten one is zeros shaped like `like`'s item there."""
  out = []
  for i, x in enumerate(_items(lst)):
    if x is None:
      ref = _items(like)[i] if i < len(_items(like)) else None
      if ref is not None:
        x = np.zeros_like(ref)
      elif element_shape is not None and element_shape.is_fully_defined():
        x = np.zeros(element_shape.as_list(), dtype._np)
      else:
        raise InvalidArgumentError(None, None, f"Could not concatenate the TensorArray: "
                                   f"element {i} was never written and its shape is unknown")
    out.append(x)
  return out


def _concat_shape(inputs, attrs):
  s = attrs.get("element_shape")
  rest = s[1:] if s is not None and s.rank else TensorShape(None)
  return [(TensorShape([None]).concatenate(rest), attrs["element_dtype"])]


@op("TensorListConcat", type_inputs=(0,), dtypes=_V, shape=_concat_shape)
def TensorListConcat(lst, like, *, element_dtype, element_shape):
  """The elements joined along their first axis; `like` (a list) sizes unwritten ones."""
  pieces = _pieces(lst, like, element_shape, element_dtype)
  if not pieces:
    rest = element_shape.as_list()[1:] if element_shape is not None and \
        element_shape.is_fully_defined() else []
    return np.zeros([0] + rest, element_dtype._np)
  try:
    return np.concatenate([np.reshape(x, (-1,) + np.shape(x)[1:]) for x in pieces])
  except ValueError as e:
    raise InvalidArgumentError(None, None, f"TensorArray has inconsistent element shapes and "
                               f"cannot be concatenated: {e}") from None


@TensorListConcat.def_grad
def _(op, dy):
  return [execute(TensorListSplitLike, [dy, op.inputs[1]], op.attrs), None]


@op("TensorListSplitLike", type_inputs=(), shape=_vshape)
def TensorListSplitLike(t, like, *, element_dtype, element_shape):
  """`t` cut along its first axis into pieces as long as `like`'s elements."""
  sizes = [np.shape(x)[0] for x in _pieces(like, like, element_shape, element_dtype)]
  return Variant(tuple(np.split(t, np.cumsum(sizes)[:-1])) if sizes else ())


@TensorListSplitLike.def_grad
def _(op, dlist):
  return [execute(TensorListConcat, [dlist, op.inputs[1]], op.attrs), None]


@op("TensorListLength", dtypes=_V, shape=lambda i, a: [(TensorShape([]), _dt.int32)],
    differentiable=False)
def TensorListLength(lst):
  return np.int32(len(_items(lst)))


class TensorArray:
  """A list of same-dtype tensors that loops can write to (tf.TensorArray).

  Example:
    >>> ta = tf.TensorArray(tf.float32, size=2)
    >>> ta = ta.write(0, 1.0).write(1, 2.0)
    >>> ta.stack().numpy()
    array([1., 2.], dtype=float32)
  """

  def __init__(self, dtype, size=None, dynamic_size=None, clear_after_read=None,
               tensor_array_name=None, handle=None, flow=None, infer_shape=True,
               element_shape=None, colocate_with_first_write_call=True, name=None):
    self._dtype = _dt.as_dtype(dtype)
    self._dynamic_size = bool(dynamic_size)
    self._clear_after_read = clear_after_read
    self._infer_shape = infer_shape
    self._element_shape = TensorShape(element_shape) if element_shape is not None else None
    if flow is not None:
      self._flow = flow
    else:
      if size is None and not self._dynamic_size:
        raise ValueError("Size must be provided if dynamic_size is False")
      self._flow = execute(TensorListReserve, [convert_to_tensor(0 if size is None else size,
                                                                 _dt.int32)],
                           {"element_dtype": self._dtype,
                            "element_shape": self._element_shape})

  def _with_flow(self, flow, element_shape=None):
    ta = TensorArray.__new__(TensorArray)
    ta._dtype = self._dtype
    ta._dynamic_size = self._dynamic_size
    ta._clear_after_read = self._clear_after_read
    ta._infer_shape = self._infer_shape
    ta._element_shape = element_shape if element_shape is not None else self._element_shape
    ta._flow = flow
    return ta

  # composite protocol used by control flow: one variant tensor
  def _to_components(self):
    return [self._flow]

  def _from_components(self, comps):
    return self._with_flow(comps[0])

  @property
  def flow(self):
    return self._flow

  @property
  def dtype(self):
    return self._dtype

  @property
  def element_shape(self):
    return self._element_shape if self._element_shape is not None else TensorShape(None)

  @property
  def dynamic_size(self):
    return self._dynamic_size

  @property
  def handle(self):
    return self._flow

  def _attrs(self):
    return {"element_dtype": self._dtype, "element_shape": self._element_shape}

  def _like(self):
    s = self._element_shape
    from tensorlet.ops import array_ops
    if s is not None and s.is_fully_defined():
      return array_ops.zeros(s.as_list(), self._dtype)
    return array_ops.zeros([], self._dtype)

  def write(self, index, value, name=None):
    """A TensorArray with `value` at `index` (use the returned array)."""
    v = value if isinstance(value, Tensor) else convert_to_tensor(value, self._dtype)
    if v.dtype is not self._dtype:
      raise InvalidArgumentError(None, None, f"TensorArray dtype is {self._dtype.name} but Op "
                                 f"is trying to write dtype {v.dtype.name}")
    shape = self._element_shape
    if shape is not None and not shape.is_compatible_with(v.shape):
      raise ValueError(f"Inconsistent shapes: saw {v.shape} but expected {shape} (and "
                       f"infer_shape=True)")
    # infer_shape=False: elements may differ in shape (within `element_shape`)
    new_shape = (v.shape if shape is None else shape.merge_with(v.shape)) \
        if self._infer_shape else shape
    attrs = dict(self._attrs(), dynamic_size=self._dynamic_size, element_shape=shape)
    flow = execute(TensorListSetItem, [self._flow, convert_to_tensor(index, _dt.int32)
                                       if not isinstance(index, Tensor) else index, v], attrs)
    return self._with_flow(flow, new_shape)

  def read(self, index, name=None):
    """The element at `index`."""
    idx = convert_to_tensor(index, _dt.int32) if not isinstance(index, Tensor) else index
    return execute(TensorListGetItem, [self._flow, idx, self._like()], self._attrs())

  def stack(self, name=None):
    """All elements stacked along a new first axis."""
    return execute(TensorListStack, [self._flow, self._like()], self._attrs())

  def gather(self, indices, name=None):
    from tensorlet.ops.array_ops import gather
    return gather(self.stack(), indices)

  def concat(self, name=None):
    """All elements joined along their first axis (their lengths may differ)."""
    return execute(TensorListConcat, [self._flow, self._flow], self._attrs())

  def unstack(self, value, name=None):
    """A TensorArray holding value[0], value[1], ... (its size becomes value.shape[0])."""
    v = convert_to_tensor(value, self._dtype) if not isinstance(value, Tensor) else value
    flow = execute(TensorListFromTensor, [v], {})
    return self._with_flow(flow, v.shape[1:] if v.shape.rank else None)

  def scatter(self, indices, value, name=None):
    """A TensorArray with value[k] written at indices[k] (a static number of indices)."""
    from tensorlet.ops.array_ops import unstack
    idx = convert_to_tensor(indices, _dt.int32) if not isinstance(indices, Tensor) else indices
    if idx.shape.rank != 1 or idx.shape[0] is None:
      raise ValueError(f"TensorArray.scatter needs a vector of indices of known length, got "
                       f"shape {idx.shape}")
    v = convert_to_tensor(value, self._dtype) if not isinstance(value, Tensor) else value
    ta = self
    for i, x in zip(unstack(idx), unstack(v, num=idx.shape[0])):
      ta = ta.write(i, x)
    return ta

  def split(self, value, lengths, name=None):
    """A TensorArray of the pieces of `value` cut along its first axis by `lengths`."""
    from tensorlet.ops.array_ops import split
    v = convert_to_tensor(value, self._dtype) if not isinstance(value, Tensor) else value
    parts = split(v, lengths)
    rest = v.shape[1:] if v.shape.rank else None
    ta = TensorArray(self._dtype, size=len(parts), dynamic_size=self._dynamic_size,
                     infer_shape=False,
                     element_shape=TensorShape([None]).concatenate(rest) if rest is not None
                     else None)
    for i, part in enumerate(parts):
      ta = ta.write(i, part)
    return ta

  def size(self, name=None):
    """Number of elements (a scalar int32 tensor)."""
    return execute(TensorListLength, [self._flow], {})

  def close(self, name=None):
    return None

  def identity(self):
    return self

  def __repr__(self):
    return f"<TensorArray dtype={self._dtype.name} element_shape={self.element_shape}>"
