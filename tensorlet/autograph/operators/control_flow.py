"""Run-time halves of converted control flow: `if_stmt`, `while_stmt`,
`for_stmt`. Each decides by the *value* it gets: a tensor condition or
iterable makes functional control flow (tf.cond / tf.while_loop); anything
else runs exactly as Python would.

Converted code passes the statement's state as two closures over the
enclosing function's variables: `get_state()` returns their current values
and `set_state(values)` writes them back (`nonlocal`). The body closures
mutate that state; these operators thread it through cond/while_loop.
"""
import numpy as np

from tensorlet import _nest as nest
from tensorlet import dtypes as _dt
from tensorlet.autograph.operators.special_values import (Undefined, UndefinedReturnValue,
                                                          is_undefined)
from tensorlet.errors import InvalidArgumentError
from tensorlet.tensor import EagerTensor, Tensor, convert_to_tensor
from tensorlet.tensor_shape import TensorShape

__all__ = ["if_stmt", "while_stmt", "for_stmt"]


def _is_tensor(x):
  return isinstance(x, Tensor)


# ---------------------------------------------------------------------- if

def if_stmt(cond, body, orelse, get_state, set_state, symbol_names, nouts):
  """`if cond: body() else: orelse()`, as tf.cond when `cond` is a tensor."""
  if _is_tensor(cond):
    _tf_if(cond, body, orelse, get_state, set_state, symbol_names)
  elif cond:
    body()
  else:
    orelse()


def _tf_if(cond, body, orelse, get_state, set_state, names):
  from tensorlet.graph.control_flow import _cond_graph
  from tensorlet.ops.math_ops import cast
  if cond.dtype is not _dt.bool:
    cond = cast(cond, _dt.bool)
  init = get_state()

  def branch(fn):
    def run():
      set_state(init)
      fn()
      return tuple(get_state())
    return run

  def validate(a, b):
    for name, x, y in zip(names, a, b):
      rx, ry = isinstance(x, UndefinedReturnValue), isinstance(y, UndefinedReturnValue)
      if rx != ry:
        raise ValueError(f"the {'main' if rx else 'else'} branch must also have a return "
                         f"statement.")
      ux = is_undefined(x) and not rx
      uy = is_undefined(y) and not ry
      if ux and not uy:
        raise ValueError(f"The following symbols must also be initialized in the if branch: "
                         f"('{name}',). Alternatively, you may initialize them before the if "
                         f"statement.")
      if uy and not ux:
        raise ValueError(f"The following symbols must also be initialized in the else branch: "
                         f"('{name}',). Alternatively, you may initialize them before the if "
                         f"statement.")
      if not (ux or uy):
        for xa, ya in zip(nest.flatten(x), nest.flatten(y)):
          da, db = _dtype_of(xa), _dtype_of(ya)
          if da is not None and db is not None and da is not db:
            raise TypeError(f"'{name}' has dtype {da.name} in the main branch, but dtype "
                            f"{db.name} in the else branch")
  out = _cond_graph(cond, branch(body), branch(orelse), "cond", validate=validate)
  set_state(out)


def _dtype_of(v):
  if _is_tensor(v):
    return v.dtype
  if isinstance(v, (bool, int, float, np.number, np.bool_)):
    return convert_to_tensor(v).dtype
  return None


# ------------------------------------------------------------------- loops

def _check_defined(names, values):
  if any(isinstance(v, UndefinedReturnValue) for v in values):
    raise NotImplementedError("a return statement cannot be placed inside this TensorFlow loop; "
                              "this may happen if a return statement depends on a static "
                              "Python condition such as a hyperparameter")
  undefined = tuple(n for n, v in zip(names, values) if is_undefined(v))
  if undefined:
    raise ValueError(f"TensorFlow requires that the following symbols must be defined before "
                     f"the loop: {undefined!r}")


def _loop_vars(names, values):
  """Indices of the state entries that become loop variables (tensors, numbers,
  TensorArrays, nested lists of those); the rest must stay unchanged."""
  idx = []
  for k, v in enumerate(values):
    leaves = nest.flatten(v)
    if all(_is_tensor(x) or hasattr(x, "_to_components") or
           isinstance(x, (int, float, bool, np.number, np.bool_)) for x in leaves) and leaves:
      idx.append(k)
  return idx


def _to_loop_value(v):
  return nest.map_structure(
      lambda x: x if _is_tensor(x) or hasattr(x, "_to_components") else convert_to_tensor(x), v)


class _LoopDtypeError(InvalidArgumentError, TypeError):
  """A loop variable changed dtype (TF 2.0 raised InvalidArgumentError, later TypeError)."""


def _fill_undefined(test, body, get_state, set_state, names, init):
  """Values for the symbols the loop body defines first (TF 2.21 accepts them):
  the body is traced once in a throwaway graph to learn their dtypes and shapes,
  they enter the loop as zeros, and an assertion fails when the loop would run
  zero times. Returns (state, {id(zeros): shape invariant})."""
  undefined = [k for k, v in enumerate(init)
               if is_undefined(v) and not isinstance(v, UndefinedReturnValue)]
  if not undefined:
    return init, {}
  from tensorlet.graph.building import build_graph
  from tensorlet.ops import array_ops
  from tensorlet.ops.logging_ops import Assert
  from tensorlet.ops.registry import execute
  from tensorlet.tensor_spec import TensorSpec
  idx = _loop_vars(names, init)
  vals = [_to_loop_value(init[k]) for k in idx]
  leaves = nest.flatten(vals)
  if not all(_is_tensor(x) for x in leaves):
    _check_defined(names, init)
  specs = [TensorSpec(x.shape, x.dtype) for x in leaves]

  def probe(*xs):
    state = list(init)
    for k, v in zip(idx, nest.pack_sequence_as(vals, list(xs))):
      state[k] = v
    set_state(tuple(state))
    body()
    new = get_state()
    return [new[k] for k in undefined]
  try:
    g = build_graph(probe, specs, "loop_probe")
  finally:
    set_state(tuple(init))
  state, invariants = list(init), {}
  for k, v in zip(undefined, g.structured_outputs):
    leaves = nest.flatten(v)
    if not leaves or not all(_is_tensor(x) for x in leaves):
      _check_defined(names, init)

    def zeros(t):
      z = array_ops.zeros([d if d is not None else 0 for d in t.shape.as_list()]
                          if t.shape.rank is not None else [], t.dtype)
      invariants[id(z)] = t.shape
      return z
    state[k] = nest.map_structure(zeros, v)
  set_state(tuple(state))
  first = test()
  missing = ", ".join(names[k] for k in undefined)
  execute(Assert, [first], {"message": f"assertion failed: [loop must iterate at least once "
                                       f"to initialize {missing}]", "summarize": 3}, "Assert")
  return state, invariants


def _tf_while(test, body, get_state, set_state, names, opts, extra_cond=None):
  from tensorlet.context import ctx
  from tensorlet.graph.control_flow import while_loop
  init = list(get_state())
  if ctx.graph is None and any(is_undefined(v) for v in init):
    while test():  # eagerly the loop runs as Python would
      body()
    return
  init, placeholders = _fill_undefined(test, body, get_state, set_state, names, init)
  _check_defined(names, init)
  idx = _loop_vars(names, init)
  fixed = list(init)
  loop_init = [_to_loop_value(init[k]) for k in idx]

  def restore(vals):
    state = list(fixed)
    for k, v in zip(idx, vals):
      state[k] = v
    set_state(tuple(state))

  def cond_fn(*vals):
    restore(vals)
    c = test()
    if extra_cond is not None:
      c = extra_cond(c, vals)
    return c

  def body_fn(*vals):
    restore(vals)
    body()
    new = list(get_state())
    for k, (n, v) in enumerate(zip(names, new)):
      if k not in idx and v is not fixed[k]:
        raise ValueError(f"'{n}' is a Python value of type {type(fixed[k]).__name__} that the "
                         f"loop body changes; a loop over a tensor can only carry tensors")
    out = []
    for k in idx:
      v = new[k]
      if is_undefined(v):
        raise ValueError(f"'{names[k]}' became undefined in the loop body")
      out.append(_to_loop_value(v))
    for k, o, i in zip(idx, out, loop_init):
      for a, b in zip(nest.flatten(o), nest.flatten(i)):
        if _is_tensor(a) and _is_tensor(b) and a.dtype is not b.dtype:
          raise _LoopDtypeError(None, None, f"Loop variable '{names[k]}' enters the loop with "
                                f"type {b.dtype.name}, but has type {a.dtype.name} after one "
                                f"iteration.")
    for k, o, i, shapes in zip(idx, out, loop_init, inv or [None] * len(idx)):
      shapes = nest.flatten(shapes) if shapes is not None else [None] * len(nest.flatten(i))
      for a, b, s in zip(nest.flatten(o), nest.flatten(i), shapes):
        if _is_tensor(a) and _is_tensor(b) and \
            not a.shape.is_subtype_of(s if s is not None else b.shape):
          raise ValueError(f"'{names[k]}' has shape {b.shape} before the loop, but shape "
                           f"{a.shape} after one iteration. Use "
                           f"tf.autograph.experimental.set_loop_options to set shape "
                           f"invariants.")
    return out
  shape_invariants = opts.get("shape_invariants") if opts else None
  inv = None
  if shape_invariants or placeholders:
    by_id = {id(t): s for t, s in shape_invariants or ()}
    by_id.update(placeholders)
    # NOTE: Python numbers become scalar loop variables
    inv = [nest.map_structure(lambda t: by_id.get(id(t), t.shape) if _is_tensor(t) else
                              TensorShape([]),
                              init[k]) for k in idx]
  res = while_loop(cond_fn, body_fn, loop_init, shape_invariants=inv,
                   maximum_iterations=opts.get("maximum_iterations") if opts else None)
  restore(res if isinstance(res, (list, tuple)) else [res])


def while_stmt(test, body, get_state, set_state, symbol_names, opts=None):
  """`while test(): body()`, as tf.while_loop when the test gives a tensor."""
  first = test()
  if _is_tensor(first):
    _tf_while(test, body, get_state, set_state, symbol_names, opts or {})
    return
  # Python loop. NOTE: a test that becomes a tensor later raises TF's
  # "Using a tf.Tensor as a Python bool" TypeError through __bool__.
  if not first:
    return
  body()
  while True:
    t = test()
    if _is_tensor(t):
      raise NotImplementedError(
          "The condition of while loop started as non-Tensor, then changed to Tensor. This "
          "may happen either because variables changed type, or when a break or return "
          "statement inside the loop depends on a Tensor condition. In both cases, changing "
          "to a TF loop should remove the error.")
    if not t:
      return
    body()


def for_stmt(iter_, extra_test, body, get_state, set_state, symbol_names, opts=None):
  """`for x in iter_: body(x)` (stopping when `extra_test()` is false, for break/return).

  Tensors iterate over their first axis with tf.while_loop; a tf.data.Dataset
  iterates inside the graph; anything else is a Python loop.
  """
  hook = getattr(iter_, "__tl_for_stmt__", None)
  if hook is not None:
    return hook(extra_test, body, get_state, set_state, symbol_names, opts or {})
  if _is_tensor(iter_):
    return _tf_for_tensor(iter_, extra_test, body, get_state, set_state, symbol_names,
                          opts or {})
  for x in iter_:
    if extra_test is not None:
      go = extra_test()
      if _is_tensor(go):
        raise NotImplementedError(
            "break and return statements which depend on a TF condition are not supported in "
            "Python for loops. Did you intend to make it a TF loop?")
      if not go:
        break
    body(x)


def _tf_for_tensor(iter_, extra_test, body, get_state, set_state, names, opts):
  from tensorlet.ops import array_ops
  from tensorlet.ops.math_ops import logical_and
  if iter_.shape.rank == 0:
    raise TypeError("Cannot iterate over a scalar tensor.")
  rng = _range_args(iter_)
  if rng is not None:
    # NOTE: `for i in tf.range(...)` counts with the range's own numbers instead
    # of slicing the materialised range each iteration (TF does the same).
    start, limit, delta = rng
    counter = [start]
    upward = _const_sign(delta)

    def element(i):
      return i

    def in_range(i):
      if upward is True:
        return i < limit
      if upward is False:
        return i > limit
      from tensorlet.graph.control_flow import cond
      return cond(delta > 0, lambda: i < limit, lambda: i > limit)

    def advance(i):
      return i + delta
  else:
    n = iter_.shape[0]
    n_t = convert_to_tensor(n) if n is not None else array_ops.shape(iter_)[0]
    counter = [convert_to_tensor(0)]

    def element(i):
      return iter_[i]

    def in_range(i):
      return i < n_t

    def advance(i):
      return i + 1
  names = tuple(names) + ("<iteration>",)

  def get():
    return tuple(get_state()) + (counter[0],)

  def set_(vals):
    set_state(tuple(vals[:-1]))
    counter[0] = vals[-1]

  def test():
    c = in_range(counter[0])
    if extra_test is not None:
      e = extra_test()
      c = logical_and(c, e) if _is_tensor(e) else (c if e else convert_to_tensor(False))
    return c

  def step():
    i = counter[0]
    body(element(i))
    counter[0] = advance(i)
  _tf_while(test, step, get, set_, names, opts)


def _range_args(t):
  """(start, limit, delta) tensors when `t` is the output of a graph's Range op."""
  op = getattr(t, "op", None)
  if op is None or getattr(op, "type", None) != "Range" or isinstance(t, EagerTensor):
    return None
  return tuple(op.inputs)


def _const_sign(delta):
  v = getattr(delta, "_const", None)
  if v is None:
    return None
  return bool(v > 0)


