"""tf.no_op, tf.group and tf.tuple: control dependencies as values.

Executing eagerly every op has already run, so they return None (tf.tuple its
tensors). In a graph, tf.group is a NoOp node whose control inputs are the
grouped ops: depending on it (tf.control_dependencies([group])) runs them all.
"""
from tensorlet import _nest as nest
from tensorlet.context import control_dependencies, ctx
from tensorlet.ops._common import name_scoped
from tensorlet.ops.registry import execute, op


@op("NoOp", type_inputs=(), num_outputs=0, shape=lambda i, a: [], differentiable=False)
def NoOp():
  return ()


def no_op(name=None):
  """An op that does nothing: None eagerly, a NoOp Operation in a graph."""
  g = ctx.graph
  if g is None:
    return None
  execute(NoOp, [], {}, name or "NoOp")
  return g.get_operations()[-1]


def group(*inputs, name=None):
  """An op that runs after all of `inputs` (tensors or operations, nested)."""
  if ctx.graph is None:
    return None
  deps = [x for x in nest.flatten(list(inputs)) if x is not None]
  with control_dependencies(deps):
    return no_op(name=name or "NoOp")


@name_scoped
def tuple(tensors, control_inputs=None, name=None):  # noqa: A001 - TF's name
  """`tensors`, each available only after all of them (and `control_inputs`) ran."""
  from tensorlet.ops._common import as_sequence
  tensors = as_sequence(tensors, "tf.tuple", "tensors")
  if ctx.graph is None:
    return list(tensors)
  from tensorlet.ops.array_ops import identity  # late-bound: a sibling op module
  deps = [t for t in tensors if t is not None] + list(control_inputs or [])
  with control_dependencies(deps):
    return [identity(t) if t is not None else None for t in tensors]
