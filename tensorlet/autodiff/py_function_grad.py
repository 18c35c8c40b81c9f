"""The gradient of tf.py_function: the Python function, run again on the
op's inputs under a GradientTape (it is Python code, not a graph), inside
another py_function so it works in graphs too."""
import numpy as np

from tensorlet.autodiff.tape import GradientTape
from tensorlet.ops import script_ops


@script_ops.EagerPyFunc.def_grad
def _(op, *dys):
  func = op.attrs["func"]
  xs = list(op.inputs)
  n = len(xs)
  dys = [d if d is not None else None for d in dys]
  live = [i for i, d in enumerate(dys) if d is not None]

  def grad_func(*args):
    x, d = list(args[:n]), list(args[n:])
    with GradientTape() as tape:
      for t in x:
        if t.dtype.is_floating:
          tape.watch(t)
      ys = func(*x)
    ys = list(ys) if isinstance(ys, (list, tuple)) else [ys]
    gs = tape.gradient([ys[i] for i in live], x, output_gradients=d)
    return [g if g is not None else np.zeros(np.shape(t), t.dtype._np) for g, t in zip(gs, x)]
  return script_ops.py_function(grad_func, xs + [dys[i] for i in live], [x.dtype for x in xs])
