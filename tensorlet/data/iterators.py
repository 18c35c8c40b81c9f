"""Dataset iterators, eager and inside tf.function.

An iterator's run-time state is an `IteratorState` (the generator of flat
elements of one pass over a dataset) held in a `variant` tensor. Eagerly,
`next(it)` advances it directly; inside a graph `next(it)` stages an
IteratorGetNext node on the variant (ops.py), so an iterator made eagerly and
passed to (or captured by) a tf.function advances on every call, as in TF.
AutoGraph's `for x in iterator` runs the rest of the iterator as one
ReduceDataset node, like `for x in dataset`.
"""
from tensorlet.context import ctx
from tensorlet.data import ops, structure
from tensorlet.data.dataset import DatasetSpec
from tensorlet.errors import OutOfRangeError

__all__ = ["OwnedIterator", "NumpyIterator", "IteratorSpec", "graph_iterator"]

# NOTE: TF's limit on get_next calls while one function is traced; more means a
# Python `for` over a dataset with AutoGraph off, which would never end.
_GET_NEXT_LIMIT = 32


class _Iterator:
  """What eager and graph iterators share: the element spec, `next`, `get_next`,
  graph staging of IteratorGetNext and AutoGraph's `for` hook."""

  _graph_calls = 0

  @property
  def element_spec(self):
    return self._spec

  def __iter__(self):
    return self

  def next(self):
    return self.__next__()

  def get_next(self, name=None):
    """The next element; OutOfRangeError after the last one."""
    try:
      return self.__next__()
    except StopIteration:
      raise OutOfRangeError(None, None, "End of sequence [Op:IteratorGetNext]") from None

  def get_next_as_optional(self):
    """The next element as a tf.experimental.Optional (empty after the last)."""
    from tensorlet.data.optional import get_next_as_optional
    return get_next_as_optional(self)

  def _stage_next(self):
    self._graph_calls += 1
    if self._graph_calls > _GET_NEXT_LIMIT:
      raise ValueError(
          f"More than {_GET_NEXT_LIMIT} `next()` calls on one tf.data iterator while a "
          f"tf.function was traced: a Python `for` loop over a dataset inside tf.function "
          f"needs AutoGraph (autograph=True) to become a graph loop.")
    return structure.pack(self._spec, ops.get_next_node(self._variant_tensor(), self._spec))

  def _type_spec(self):
    return IteratorSpec(self._spec)

  def __tf_tracing_type__(self, context):
    return IteratorSpec(self._spec)

  def __tl_for_stmt__(self, extra_test, body, get_state, set_state, symbol_names, opts):
    from tensorlet.data import loops
    loops.for_stmt(self, extra_test, body, get_state, set_state, symbol_names, opts)


class OwnedIterator(_Iterator):
  """The iterator of a dataset made eagerly: `next(it)` gives the next element."""

  def __init__(self, dataset):
    self._spec = dataset.element_spec
    self._dtypes = structure.flat_dtypes(self._spec)
    self._pack = structure.packer(self._spec)
    self._state = ops.IteratorState(dataset)
    self._variant = None
    self._ckpt = None

  def __next__(self):
    if ctx.graph is not None:
      return self._stage_next()
    e = self._state.next_flat()
    if e is None:
      raise StopIteration
    return structure.eager_element(self._spec, e, self._dtypes, self._pack)

  def _tl_checkpoint_children(self):
    """tf.train.Checkpoint(iterator=it) saves the position (see checkpointing.py)."""
    from tensorlet.data import checkpointing
    if self._ckpt is None:
      self._ckpt = checkpointing.StateVariable(self._state)
    self._ckpt.refresh()
    return {"iterator_state": self._ckpt}

  def _variant_tensor(self):
    if self._variant is None:
      self._variant = ops.variant_of(self._state)
    return self._variant

  def __repr__(self):
    return f"<OwnedIterator element_spec={self._spec!r}>"


class _GraphIterator(_Iterator):
  """An iterator inside a graph: a variant tensor (MakeIterator's output or an argument)."""

  def __init__(self, variant, spec):
    self._variant = variant
    self._spec = spec

  def __next__(self):
    if ctx.graph is None:
      raise RuntimeError("An iterator made inside a tf.function can only be used inside it.")
    return self._stage_next()

  def _variant_tensor(self):
    return self._variant

  def __repr__(self):
    return f"<OwnedIterator element_spec={self._spec!r}>"


def graph_iterator(dataset):
  """`iter(dataset)` while a graph is built: a MakeIterator node."""
  return _GraphIterator(ops.make_iterator_node(dataset._variant_tensor()), dataset.element_spec)


class IteratorSpec(DatasetSpec):
  """The trace type of an iterator: tf.function passes it as one variant tensor."""

  @property
  def value_type(self):
    return OwnedIterator

  def to_tensors(self, value):
    return [value._variant_tensor()]

  def from_tensors(self, tensors):
    return _GraphIterator(next(iter(tensors)), self._element_spec)

  def __repr__(self):
    return f"IteratorSpec({self._element_spec!r})"


class NumpyIterator:
  """`as_numpy_iterator()`: elements as NumPy values (strings as bytes)."""

  def __init__(self, dataset):
    self._spec = dataset.element_spec
    self._pack = structure.packer(self._spec)
    self._it = dataset._flat_iter()

  def __iter__(self):
    return self

  def __next__(self):
    return structure.numpy_element(self._spec, next(self._it), pack_fn=self._pack)

  def next(self):
    return self.__next__()

  def __repr__(self):
    return "<NumpyIterator>"
