"""tf.custom_gradient: a function that supplies its own gradient.

The forward function runs with tapes paused; one record then stands for the
whole call, with the user's `grad_fn` as its gradient. Variables that the
function reads are found by a watcher and become extra inputs of the record,
as TensorFlow does (`grad_fn(*dys, variables=...)`).

In a graph the forward ops are staged as usual and their outputs pass through
one `CustomGradientIdentity` node whose gradient is `grad_fn`. A tf.function
called under a tape is differentiated by the reverse pass over its graph, so
the tensors `grad_fn`'s closure holds are values of that graph (captured by
the gradient graph like any other intermediate).
"""
import functools
import inspect

from tensorlet import _nest as nest
from tensorlet.context import ctx
from tensorlet.ops.registry import OpDef, execute, record
from tensorlet.tensor import EagerTensor, Tensor, convert_to_tensor

__all__ = ["custom_gradient"]


def _kernel(*xs):
  raise RuntimeError("CustomGradient records are never executed")


_CUSTOM = OpDef("CustomGradient", _kernel, type_inputs=())


@_CUSTOM.def_grad
def _(op, *dys):
  return op.attrs["grad"](*dys)


def custom_gradient(f=None):
  """Decorator: `f(*x)` returns `(y, grad_fn)`; `grad_fn(*dy)` returns the gradients of x."""
  if f is None:
    return custom_gradient

  @functools.wraps(f)
  def decorated(*args, **kwargs):
    return call(f, args, kwargs)
  # NOTE: functools.wraps gives `decorated` the user's module and __wrapped__, so
  # AutoGraph would take it for user code and convert `f`'s source in its place.
  decorated.__tl_do_not_convert__ = True
  return decorated


def _identity_kernel(*xs, n, grad, fn, args, kwargs):
  return tuple(xs[:n])


_IDENTITY = OpDef("CustomGradientIdentity", _identity_kernel, type_inputs=(), num_outputs=None,
                  runs_python="tf.custom_gradient",
                  shape=lambda i, a: [(t.shape, t.dtype) for t in i[:a["n"]]])


@_IDENTITY.def_grad
def _(op, *dys):
  n = op.attrs["n"]
  from tensorlet.autodiff.backprop import zeros_for
  dys = [d if d is not None else zeros_for(o) for d, o in zip(dys, op.outputs)]
  return [None] * n + op.attrs["grad"](*dys)


def call(f, args, kwargs):
  """Runs `f` (returning `(y, grad_fn)`) so that tapes differentiate it by `grad_fn`."""
  args = [convert_to_tensor(a) if not isinstance(a, Tensor) and not hasattr(a, "_handle")
          and _is_numeric(a) else a for a in args]
  accessed = []
  watcher = lambda v: accessed.append(v) if all(v is not a for a in accessed) else None  # noqa: E731
  saved_tapes, saved_watchers = ctx.tapes, ctx.variable_watchers
  ctx.tapes = ()
  ctx.variable_watchers = saved_watchers + (watcher,)
  try:
    result, grad_fn = f(*args, **kwargs)
  finally:
    ctx.tapes, ctx.variable_watchers = saved_tapes, saved_watchers
  for w in saved_watchers:
    for v in accessed:
      w(v)
  flat_args = [a for a in nest.flatten(list(args)) if isinstance(a, Tensor)]
  trainable = [v for v in accessed if v.trainable]
  for v in trainable:
    for tape in saved_tapes:
      if tape._watch_accessed_variables:
        tape._watch_variable(v)
  takes_vars = "variables" in inspect.signature(grad_fn).parameters or any(
      p.kind is p.VAR_KEYWORD for p in inspect.signature(grad_fn).parameters.values())
  if trainable and not takes_vars:
    raise TypeError("If using @custom_gradient with a function that uses variables, then "
                    "grad_fn must accept a keyword argument 'variables'.")
  n_args = len(flat_args)

  def grad(*dys):
    dys = list(dys)
    if takes_vars and trainable:
      in_grads, var_grads = grad_fn(*dys, variables=trainable)
    else:
      in_grads, var_grads = grad_fn(*dys), []
    in_grads = [in_grads] if not isinstance(in_grads, (list, tuple)) else list(in_grads)
    in_grads = [g if g is None or isinstance(g, Tensor) else convert_to_tensor(g)
                for g in in_grads]
    if len(in_grads) != n_args:
      raise ValueError(f"custom_gradient function expected to return {n_args} gradients, but "
                       f"returned {len(in_grads)} instead.")
    return in_grads + list(var_grads)

  inputs = flat_args + [v._handle for v in trainable]
  flat_result = nest.flatten(result)
  if ctx.graph is not None:
    positions = [i for i, o in enumerate(flat_result) if isinstance(o, Tensor)]
    outs = execute(_IDENTITY, [flat_result[i] for i in positions] + inputs,
                   {"n": len(positions), "grad": grad, "fn": f, "args": tuple(args),
                    "kwargs": dict(kwargs)})
    for i, o in zip(positions, outs):
      flat_result[i] = o
    return nest.pack_sequence_as(result, flat_result)
  # NOTE: the outputs must be new tensors, reached by tapes only through the
  # CustomGradient record (the forward's own tensors may be watched already).
  new_out = [EagerTensor(o._value, o._dtype) if isinstance(o, EagerTensor) else o
             for o in flat_result]
  tensors_out = [o for o in new_out if isinstance(o, Tensor)]
  if saved_tapes and tensors_out:
    record(_CUSTOM, inputs, tuple(tensors_out), {"grad": grad})
  return nest.pack_sequence_as(result, new_out)


def _is_numeric(a):
  return isinstance(a, (int, float, list, tuple)) and not isinstance(a, bool)
