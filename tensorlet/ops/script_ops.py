"""tf.py_function and tf.numpy_function: Python code as a stateful op, so it
runs on every call of a tf.function (not only while tracing)."""
import functools

import numpy as np

from tensorlet import _nest as nest
from tensorlet import dtypes as _dt
from tensorlet.context import ctx
from tensorlet.errors import InvalidArgumentError
from tensorlet.ops.registry import execute, op
from tensorlet.tensor_shape import TensorShape
from tensorlet.tensor import EagerTensor, convert_to_tensor


def _out_specs(inputs, attrs):
  return [(TensorShape(None), d) for d in attrs["Tout"]]


def _convert_result(r, dtype, name):
  try:
    t = convert_to_tensor(r, dtype) if not isinstance(r, EagerTensor) else r
  except (TypeError, ValueError) as e:
    raise InvalidArgumentError(None, None, f"{name}: the Python function returned {r!r}, "
                               f"which does not convert to {dtype.name}: {e}") from None
  if t.dtype is not dtype:
    raise InvalidArgumentError(None, None, f"{name}: the Python function returned a "
                               f"{t.dtype.name} value where Tout says {dtype.name} "
                               f"[Op:{name}]")
  return t._value


def _run(func, values, Tout, eager_args, name):
  from tensorlet.context import ctx
  saved = ctx.graph
  ctx.graph = None  # NOTE: the Python function always runs eagerly.
  try:
    args = [EagerTensor(v, _dt.from_numpy(np.asarray(v).dtype) or _dt.string) for v in values] \
        if eager_args else [np.asarray(v) for v in values]
    r = func(*args)
  finally:
    ctx.graph = saved
  if not Tout:
    return ()
  rs = list(r) if isinstance(r, (list, tuple)) else [r]
  if len(rs) != len(Tout):
    raise InvalidArgumentError(None, None, f"{name}: the Python function returned {len(rs)} "
                               f"values, but Tout has {len(Tout)} [Op:{name}]")
  return tuple(_convert_result(x, d, name) for x, d in zip(rs, Tout))


@op("EagerPyFunc", type_inputs=(), stateful=True, num_outputs=None, shape=_out_specs,
    runs_python="tf.py_function")
def EagerPyFunc(*values, func, Tout):
  return _run(func, values, Tout, True, "EagerPyFunc")


# NOTE: EagerPyFunc's gradient differentiates the Python function under a tape:
# autodiff/py_function_grad.py (the tape lives a layer above ops).


@op("PyFunc", type_inputs=(), stateful=True, num_outputs=None, shape=_out_specs,
    runs_python="tf.numpy_function", differentiable=False)
def PyFunc(*values, func, Tout):
  return _run(func, values, Tout, False, "PyFunc")


def _scalars_as_numpy_scalars(func):
  """As TF's numpy_function in a graph: a 0-d input arrives as a NumPy scalar
  (eagerly it is a 0-d array)."""
  @functools.wraps(func)
  def run(*arrays):
    return func(*[a[()] if a.ndim == 0 else a for a in arrays])
  return run


def _call(od, func, inp, Tout, name):
  if not callable(func):
    raise TypeError(f"{od.name}: func must be callable, got {func!r}")
  single = not isinstance(Tout, (list, tuple))
  touts = [] if Tout is None else ([Tout] if single else list(Tout))
  touts = [_dt.as_dtype(d) for d in touts]
  inputs = [convert_to_tensor(x) for x in nest.flatten(list(inp))]
  if od is PyFunc and ctx.graph is not None:
    func = _scalars_as_numpy_scalars(func)
  outs = execute(od, inputs, {"func": func, "Tout": tuple(touts)}, name)
  outs = list(outs) if isinstance(outs, tuple) else [outs]
  if single and Tout is not None:
    return outs[0]
  return outs


def _decorated(od, func, inp, Tout, name):
  """TF's decorator forms: `@tf.py_function(Tout=...)` (no func) and a function with
  no `inp` become a callable that runs `func` on its positional arguments."""
  if func is None:
    return lambda f: _decorated(od, f, inp, Tout, name)
  if inp is None:
    if not callable(func):
      raise TypeError(f"{od.name}: func must be callable, got {func!r}")

    @functools.wraps(func)
    def wrapper(*args):
      return _call(od, func, args, Tout, name)
    return wrapper
  return _call(od, func, inp, Tout, name)


def py_function(func=None, inp=None, Tout=None, name=None):
  """Runs `func` on eager tensors at run time (each call of a tf.function).

  Also a decorator: `@tf.py_function(Tout=tf.float32)` makes `f(x, y)` run as one.

  Args:
    func: Python callable taking eager tensors.
    inp: list of input tensors.
    Tout: a dtype, a list of dtypes, or [] / None for no outputs.
  Returns:
    A tensor (single dtype) or a list of tensors.
  """
  return _decorated(EagerPyFunc, func, inp, Tout, name)


def numpy_function(func=None, inp=None, Tout=None, stateful=True, name=None):
  """Runs `func` on NumPy arrays at run time; not differentiable. Also a decorator,
  as py_function."""
  return _decorated(PyFunc, func, inp, Tout, name)
