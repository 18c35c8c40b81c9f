"""Which registered ops the op table exercises.

A row covers the ops whose kernels run, or whose graph nodes are created, while
the row's function runs eagerly, traced by tf.function (also for inputs of unknown dims), and (for `grad=True`
rows) while a tape takes its gradient (and the gradient's gradient for `order=2`): gradient helper ops (ReluGrad ...) are
covered through the public op whose gradient uses them.
"""
import contextlib

import numpy as np

import tensorlet as tf
from tensorlet.graph import graph as _graph
from tensorlet.ops import registry


@contextlib.contextmanager
def recording(seen):
  """Adds to `seen` the name of every op that runs or is staged inside the block."""
  saved = {}
  for name, od in list(registry.REGISTRY.items()):
    k = od.kernel
    if k is None:
      continue
    saved[od] = k

    def wrapped(*a, _k=k, _n=name, **kw):
      seen.add(_n)
      return _k(*a, **kw)
    od.kernel = wrapped
  create = _graph.Graph.create_op

  def create_op(self, od, inputs, attrs, name=None):
    seen.add(od.name)
    return create(self, od, inputs, attrs, name)
  _graph.Graph.create_op = create_op
  try:
    yield seen
  finally:
    _graph.Graph.create_op = create
    for od, k in saved.items():
      od.kernel = k


def _float_outputs(out):
  outs = out if isinstance(out, (list, tuple)) else [out]
  return [o for o in outs if isinstance(o, tf.Tensor) and o.dtype.is_floating]


def _fixed_arity(f, n):
  # NOTE: tf.function's input_signature does not bind *args.
  return [lambda: f(), lambda a: f(a), lambda a, b: f(a, b), lambda a, b, c: f(a, b, c),
          lambda a, b, c, d: f(a, b, c, d), lambda a, b, c, d, e: f(a, b, c, d, e)][n]


def _tape_gradient(case, ts):
  with tf.GradientTape() as tape:
    tape.watch(ts)
    ys = _float_outputs(case.fn(*ts))
  return [g for g in tape.gradient(ys, ts) if g is not None]


def row_ops(case):
  """The op names one row exercises (eager, traced, and its gradient)."""
  seen = set()
  dt = np.dtype(case.dtypes[0])
  with recording(seen):
    xs = case.inputs(np.random.RandomState(0), dt)
    ts = [tf.constant(x) for x in xs]
    case.fn(*ts)
    tf.function(lambda *a: case.fn(*a))(*ts)
    sig = [tf.TensorSpec([None] * np.ndim(x), t.dtype) for x, t in zip(xs, ts)]
    try:  # unknown dims reach the run-time variants (Slice, TileGrad, RepeatIndices ...)
      tf.function(_fixed_arity(case.fn, len(ts)), input_signature=sig)(*ts)
    except ValueError:  # "Cannot infer argument `num`": as TF, test_numerics checks it
      pass
    if case.grad:
      xs = case.inputs(np.random.RandomState(0), np.float64)
      ts = [tf.constant(x) for x in xs]
      with tf.GradientTape() as outer:
        outer.watch(ts)
        with tf.GradientTape() as tape:
          tape.watch(ts)
          ys = _float_outputs(case.fn(*ts))
        gs = [g for g in tape.gradient(ys, ts) if g is not None]
      if case.order > 1:  # second-order rows also reach the gradients' own Grad ops
        outer.gradient(gs, ts)
      try:
        tf.function(_fixed_arity(lambda *a: _tape_gradient(case, list(a)), len(ts)),
                    input_signature=[tf.TensorSpec([None] * np.ndim(x), tf.float64)
                                     for x in xs])(*ts)
      except ValueError:
        pass
  return seen


def covered_ops(cases):
  """{op name: first row name covering it} over `cases`; rows that fail are skipped."""
  out = {}
  for c in cases:
    try:
      names = row_ops(c)
    except Exception:  # noqa: BLE001 - a failing row is test_numerics' business
      continue
    for n in names:
      out.setdefault(n, c.name)
  return out


def registered_ops():
  """{name: OpDef} of every op the package defines: the tensorlet.ops modules and the
  tf.data iterator/optional ops (dataset-kind ops such as MapDataset are made on
  demand, one per dataset class, and are tested with tf.data)."""
  import importlib
  import pkgutil

  import tensorlet.ops
  for m in pkgutil.iter_modules(tensorlet.ops.__path__):
    importlib.import_module("tensorlet.ops." + m.name)
  from tensorlet.data import ops as data_ops
  from tensorlet.data import optional  # noqa: F401
  out = {}
  for name, od in registry.REGISTRY.items():
    mod = getattr(od.kernel, "__module__", None) or ""
    if od.kernel is data_ops._make_dataset:
      continue
    if mod.startswith(("tensorlet.ops.", "tensorlet.data.")) or mod == "numpy":
      out[name] = od
  return out
