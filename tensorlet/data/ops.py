"""Datasets in graphs: a dataset is a `variant` tensor whose value is the
Python dataset object.

Eagerly a dataset is built at once and its variant is an EagerTensor (a
tf.function captures it or takes it as an argument). While a graph is built,
each transformation stages one node ("RangeDataset", "MapDataset", ...) whose
inputs are its input datasets' variants and its tensor parameters, and whose
kernel instantiates the dataset from their values at run time; the Python
object made at trace time is only the prototype (element_spec, functions).

"ReduceDataset" runs a loop over a dataset inside a graph: its body (and an
optional test, for `break` in a converted `for`) are FuncGraphs compiled with
trace.GraphCallable, like While's; the loop state is threaded through the
node's inputs and outputs. `Dataset.reduce` and AutoGraph's `for x in
dataset` both build it with `reduce_node`.
"""
import numpy as np

from tensorlet import _nest as nest
from tensorlet import dtypes as _dt
from tensorlet.context import ctx
from tensorlet.errors import InvalidArgumentError, OutOfRangeError
from tensorlet.polymorphic_function import trace
from tensorlet.ops import control_flow_ops as _cf
from tensorlet.ops.registry import REGISTRY, execute, op
from tensorlet.tensor_shape import TensorShape
from tensorlet.tensor import EagerTensor
from tensorlet.tensor_spec import TensorSpec

__all__ = ["Variant", "dataset_op", "variant_of", "reduce_node", "cardinality_node",
           "check_scalar_bool", "IteratorState", "make_iterator_node", "get_next_node"]


class Variant(_cf.Variant):
  """A `variant` scalar holding a dataset (or iterator) object."""

  __slots__ = ()
  shape = ()
  ndim = 0

  def __repr__(self):
    return f"<variant {type(self.value).__name__}>"


def _variant_shape(inputs, attrs):
  return [(TensorShape([]), _dt.variant)]


def _make_dataset(*values, proto):
  n = len(proto._inputs)
  return Variant(proto._instantiate([v.value for v in values[:n]], list(values[n:])))


def dataset_op(name):
  """The OpDef `name` ("MapDataset", ...) that instantiates a dataset at run time.

  NOTE: stateful, so a graph makes a fresh dataset on every run (shuffle and
  cache keep per-object state) and passes never fold it into a constant.
  """
  od = REGISTRY.get(name)
  if od is None:
    od = op(name, type_inputs=(), stateful=True, differentiable=False,
            shape=_variant_shape)(_make_dataset)
  return od


def variant_of(obj):
  """An EagerTensor of dtype variant holding a dataset built eagerly (or an IteratorState)."""
  return EagerTensor(Variant(obj), _dt.variant)


# --------------------------------------------------------------- iterators

class IteratorState:
  """An iterator's run-time state: the flat element generator of one pass over
  `dataset`, and how many elements it has given (for checkpoints, which
  replay that many; see data/checkpointing.py).

  It quacks like a dataset (`_flat_iter`), so ReduceDataset loops over the
  rest of an iterator as it loops over a dataset.
  """

  __slots__ = ("it", "count", "dataset", "saved_state", "__weakref__")

  def __init__(self, dataset):
    from tensorlet.data import checkpointing
    self.dataset = dataset
    self.saved_state = checkpointing.capture(dataset)
    self.it = dataset._flat_iter()
    self.count = 0

  @property
  def element_spec(self):
    return self.dataset.element_spec

  def next_flat(self):
    """The next flat element, or None at the end."""
    e = next(self.it, None)
    if e is not None:
      self.count += 1
    return e

  def _flat_iter(self):
    while True:
      e = self.next_flat()
      if e is None:
        return
      yield e


@op("MakeIterator", type_inputs=(), stateful=True, differentiable=False, shape=_variant_shape)
def MakeIterator(ds):
  return Variant(IteratorState(ds.value))


def make_iterator_node(dataset_variant):
  return execute(MakeIterator, [dataset_variant], {}, "MakeIterator")


def _element_shapes(inputs, attrs):
  return list(attrs["out_specs"])


@op("IteratorGetNext", type_inputs=(), stateful=True, num_outputs=None, differentiable=False,
    shape=_element_shapes)
def IteratorGetNext(it, *, out_specs):
  state = it.value
  elem = state.next_flat()
  if elem is None:
    raise OutOfRangeError(None, None, "End of sequence [Op:IteratorGetNext]")
  return tuple(_components(state.element_spec, elem))


def _components(element_spec, elem):
  """Run-time slots of an element -> the component values graph nodes give."""
  from tensorlet.data import structure
  slots = nest.flatten(element_spec)
  return structure.expand_slots(slots, elem) if structure.has_components(slots) else elem


def _out_specs(element_spec):
  from tensorlet.data import structure
  return tuple((s.shape, s.dtype) for s in structure.graph_specs(nest.flatten(element_spec)))


def get_next_node(iterator_variant, element_spec):
  """The flat slots of the next element (IteratorGetNext)."""
  from tensorlet.data import structure
  outs = execute(IteratorGetNext, [iterator_variant], {"out_specs": _out_specs(element_spec)},
                 "IteratorGetNext")
  outs = list(outs) if isinstance(outs, tuple) else [outs]
  return structure.from_components(nest.flatten(element_spec), outs)


# ------------------------------------------------------------- cardinality

@op("DatasetCardinality", type_inputs=(), stateful=True, differentiable=False,
    shape=lambda i, a: [(TensorShape([]), _dt.int64)])
def DatasetCardinality(ds):
  return np.int64(ds.value._cardinality())


def cardinality_node(dataset):
  return execute(DatasetCardinality, [dataset._variant_tensor()], {}, "DatasetCardinality")


# ------------------------------------------------------------------ reduce

@op("ReduceDataset", type_inputs=(), stateful=True, num_outputs=None, differentiable=False,
    shape=_element_shapes)
def ReduceDataset(ds, *args, body_fn, cond_fn, n_state, body_idx, cond_idx, out_specs,
                  body_graph, cond_graph):
  state = args[:n_state]
  caps = args[n_state:]
  bcaps = [caps[i] for i in body_idx]
  ccaps = [caps[i] for i in cond_idx]
  it = ds.value._flat_iter()
  spec = ds.value.element_spec
  while True:
    if cond_fn is not None and not bool(cond_fn(*state, *ccaps)[0]):
      break
    elem = next(it, None)
    if elem is None:
      break
    state = body_fn(*state, *_components(spec, elem), *bcaps)
  return tuple(state)


def _relax(specs, outs, what):
  """Specs relaxed to fit the body's outputs too; TypeError on a dtype change."""
  relaxed = []
  for s, o in zip(specs, outs):
    if o.dtype is not s.dtype:
      raise TypeError(f"The element types for the new state must match the initial state. "
                      f"Expected {tuple(x.dtype for x in specs)}; got "
                      f"{tuple(x.dtype for x in outs)}. ({what})")
    relaxed.append(TensorSpec(s.shape.most_specific_compatible_shape(o.shape), s.dtype))
  return relaxed


def reduce_node(dataset, init, body, test=None, name="ReduceDataset", what="reduce"):
  """Stages (or runs eagerly) a ReduceDataset over `dataset`.

  Args:
    dataset: the Dataset.
    init: flat list of tensors, the initial loop state.
    body: callable(state_list, element_list) -> new flat state list (traced).
    test: optional callable(state_list) -> bool tensor, checked before each element.
  Returns:
    The final state, a list of tensors. State shapes that the body changes are
    relaxed (traced again with the common shape), as TF's Dataset.reduce does.
  """
  from tensorlet.data import structure
  n = len(init)
  slots = nest.flatten(dataset.element_spec)
  elem_specs = structure.graph_specs(slots)
  specs = [TensorSpec(t.shape, t.dtype) for t in init]
  for _ in range(8):
    body_g = trace.build_graph(
        lambda *xs: list(body(list(xs[:n]), structure.from_components(slots, xs[n:]))),
        specs + elem_specs, "reduce_body")
    if len(body_g.outputs) != n:
      raise ValueError(f"The reduce function must return {n} state tensors, got "
                       f"{len(body_g.outputs)} ({what})")
    relaxed = _relax(specs, body_g.outputs, what)
    if all(a.shape == b.shape for a, b in zip(relaxed, specs)):
      break
    specs = relaxed
  graphs = [body_g]
  cond_g = None
  if test is not None:
    cond_g = trace.build_graph(lambda *xs: test(list(xs)), specs, "reduce_cond")
    if len(cond_g.outputs) != 1 or cond_g.outputs[0].dtype is not _dt.bool:
      raise TypeError(f"The loop test must return a scalar bool ({what})")
    graphs.append(cond_g)
  caps, idx = _cf._merged_captures(graphs)
  trace.note_captured_variables(caps)
  attrs = {"body_fn": trace.GraphCallable(body_g, "reduce_body"),
           "cond_fn": trace.GraphCallable(cond_g, "reduce_cond") if cond_g else None,
           "n_state": n, "body_idx": idx[0], "cond_idx": idx[1] if cond_g else (),
           "out_specs": tuple((s.shape, s.dtype) for s in specs),
           "body_graph": body_g, "cond_graph": cond_g}
  outs = execute(ReduceDataset, [dataset._variant_tensor()] + list(init) + caps, attrs,
                 name if ctx.graph is not None else None)
  return list(outs) if isinstance(outs, tuple) else [outs]


@op("DatasetToSingleElement", type_inputs=(), stateful=True, num_outputs=None,
    differentiable=False, shape=_element_shapes)
def DatasetToSingleElement(ds, *, out_specs):
  it = ds.value._flat_iter()
  first = next(it, None)
  if first is None:
    raise InvalidArgumentError(None, None, "Dataset was empty. [Op:DatasetToSingleElement]")
  if next(it, None) is not None:
    raise InvalidArgumentError(None, None, "Dataset had more than one element. "
                               "[Op:DatasetToSingleElement]")
  return tuple(_components(ds.value.element_spec, first))


def check_scalar_bool(value, what):
  if value.dtype is not _dt.bool or value.shape.rank not in (0, None):
    raise ValueError(f"Invalid `predicate`. `predicate` must return a `tf.bool` scalar "
                     f"tensor, but its return type is {TensorSpec(value.shape, value.dtype)}."
                     f" ({what})")

