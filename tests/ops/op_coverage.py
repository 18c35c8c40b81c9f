"""Which registered ops the op table exercises.

A row covers the ops whose kernels run, or whose graph nodes are created, while
the row's function runs eagerly, traced by tf.function, and (for `grad=True`
rows) while a tape takes its gradient: gradient helper ops (ReluGrad ...) are
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


def row_ops(case):
  """The op names one row exercises (eager, traced, and its gradient)."""
  seen = set()
  dt = np.dtype(case.dtypes[0])
  with recording(seen):
    xs = case.inputs(np.random.RandomState(0), dt)
    ts = [tf.constant(x) for x in xs]
    case.fn(*ts)
    tf.function(lambda *a: case.fn(*a))(*ts)
    if case.grad:
      xs = case.inputs(np.random.RandomState(0), np.float64)
      ts = [tf.constant(x) for x in xs]
      with tf.GradientTape() as tape:
        tape.watch(ts)
        ys = _float_outputs(case.fn(*ts))
      tape.gradient(ys, ts)
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
