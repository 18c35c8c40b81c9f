"""Loops over datasets: Dataset.reduce, get_single_element, and AutoGraph's
`for x in dataset` inside tf.function. All three run as one graph node whose
kernel iterates the Python dataset (ops.py); the loop body is a FuncGraph.

The `for` statement follows autograph/operators/control_flow.py's loop rules:
the statement's state (get_state/set_state) is split into loop variables
(tensors, numbers, TensorArrays) and fixed Python values that the body must
leave alone; `break` and `return` arrive as `extra_test`, checked before each
element. Loop variable shapes that the body changes are relaxed, as
TensorFlow's Dataset.reduce does (seed 003's `loss += tf.abs(y - x)` over
elements of unknown shape).
"""
from tensorlet import _nest as nest
from tensorlet.context import ctx
from tensorlet.data import ops, structure
from tensorlet.errors import InvalidArgumentError
from tensorlet.ops.registry import execute
from tensorlet.tensor import Tensor, convert_to_tensor

__all__ = ["reduce", "for_stmt", "single_element"]

_END = object()


def _normalize_state(out, template):
  if isinstance(out, list):
    out = tuple(out)
  if isinstance(out, tuple):
    items = [_normalize_state(o, None) for o in out]
    return type(out)(*items) if hasattr(out, "_fields") else tuple(items)
  if isinstance(out, dict):
    return {k: _normalize_state(v, None) for k, v in out.items()}
  return out if isinstance(out, Tensor) else convert_to_tensor(out)


def reduce(dataset, initial_state, reduce_func):
  from tensorlet.autograph.api import convert
  if not callable(reduce_func):
    raise TypeError(f"`reduce_func` must be callable, got {reduce_func!r}")
  init = structure.normalize(initial_state, "initial state")
  func = convert(reduce_func)
  spec = dataset.element_spec

  def body(state_flat, elem_flat):
    state = structure.pack(init, state_flat)
    out = _normalize_state(func(state, structure.pack(spec, elem_flat)), init)
    try:
      nest.assert_same_structure(init, out, check_types=False)
    except (TypeError, ValueError):
      raise TypeError(f"The structure of the new state must match the initial state: "
                      f"expected {init}, got {out}.") from None
    return structure.flatten(out)
  outs = ops.reduce_node(dataset, structure.flatten(init), body, what="Dataset.reduce")
  return structure.pack(init, outs)


def single_element(dataset):
  if ctx.graph is None:
    dataset._check_concrete()
    it = dataset._flat_iter()
    first = next(it, None)
    if first is None:
      raise InvalidArgumentError(None, None, "Dataset was empty.")
    if next(it, None) is not None:
      raise InvalidArgumentError(None, None, "Dataset had more than one element.")
    return structure.eager_element(dataset.element_spec, first)
  flat_specs = structure.flatten(dataset.element_spec)
  outs = execute(ops.DatasetToSingleElement, [dataset._variant_tensor()],
                 {"out_specs": ops._out_specs(dataset.element_spec)}, "DatasetToSingleElement")
  outs = list(outs) if isinstance(outs, tuple) else [outs]
  return structure.pack(dataset.element_spec, structure.from_components(flat_specs, outs))


def for_stmt(dataset, extra_test, body, get_state, set_state, names, opts):
  """`for x in dataset` (or an iterator): a Python loop eagerly, ReduceDataset in a graph.

  NOTE: the test runs before the next element is taken, so a `break` out of a
  loop over an iterator leaves the following element in it.
  """
  if ctx.graph is None:
    it = iter(dataset)
    while extra_test is None or extra_test():
      x = next(it, _END)
      if x is _END:
        return
      body(x)
    return
  from tensorlet.autograph.operators import control_flow as cf
  from tensorlet.autograph.operators.special_values import is_undefined
  from tensorlet.graph.control_flow import _collapse, _expand
  init = list(get_state())
  cf._check_defined(names, init)
  idx = cf._loop_vars(names, init)
  fixed = list(init)
  loop_init = [cf._to_loop_value(init[k]) for k in idx]
  expanded = _expand(loop_init)
  flat_init = [convert_to_tensor(v) for v in nest.flatten(expanded)]
  spec = dataset.element_spec

  def pack(xs):
    return _collapse(nest.pack_sequence_as(expanded, list(xs)), loop_init)

  def restore(vals):
    state = list(fixed)
    for k, v in zip(idx, vals):
      state[k] = v
    set_state(tuple(state))

  def loop_body(state_xs, elem_xs):
    restore(pack(state_xs))
    body(structure.pack(spec, elem_xs))
    new = list(get_state())
    for k, (n, v) in enumerate(zip(names, new)):
      if k not in idx and v is not fixed[k]:
        raise ValueError(f"'{n}' is a Python value of type {type(fixed[k]).__name__} that "
                         f"the loop body changes; a loop over a dataset can only carry "
                         f"tensors")
    out = []
    for k in idx:
      if is_undefined(new[k]):
        raise ValueError(f"'{names[k]}' became undefined in the loop body")
      out.append(cf._to_loop_value(new[k]))
    for k, o, i in zip(idx, out, loop_init):
      for a, b in zip(nest.flatten(o), nest.flatten(i)):
        if isinstance(a, Tensor) and isinstance(b, Tensor) and a.dtype is not b.dtype:
          raise cf._LoopDtypeError(None, None, f"Loop variable '{names[k]}' enters the loop "
                                   f"with type {b.dtype.name}, but has type {a.dtype.name} "
                                   f"after one iteration.")
    return [convert_to_tensor(x) for x in nest.flatten(_expand(out))]

  def test(xs):
    restore(pack(xs))
    c = extra_test()
    return c if isinstance(c, Tensor) else convert_to_tensor(bool(c))
  outs = ops.reduce_node(dataset, flat_init, loop_body, test if extra_test is not None else None,
                         what="for loop over a dataset")
  restore(pack(outs))
