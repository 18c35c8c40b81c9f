"""tf.debugging.enable_check_numerics: report the first op whose output holds NaN
or Inf, eagerly and in graphs, as TF 2.21 does.

Enabled, `registry.execute` calls `eager_check` after every eager op, and graphs
traced meanwhile get a CheckNumericsV2 node after each floating-point output
(`graph_check`); such traces keep their checks after disabling, as TF's do.
Disabled, the cost is one global read per op.
"""
import sys

import numpy as np

from tensorlet.errors import InvalidArgumentError
from tensorlet.ops import registry
from tensorlet.ops._common import FLOAT_C
from tensorlet.ops.logging_ops import check_numerics_grad
from tensorlet.ops.registry import op

__all__ = ["enable", "disable", "CheckNumericsV2"]

_PKG_DIR = __file__.rsplit("/ops/", 1)[0]

# Ops whose outputs are not checked (TF's op-callback skip list): they only move
# values that an earlier op produced, or are structure.
_SKIP = frozenset([
    "Const", "Placeholder", "Identity", "IdentityN", "ReadVariableOp", "AssignVariableOp",
    "AssignAddVariableOp", "AssignSubVariableOp", "NoOp", "CheckNumerics", "CheckNumericsV2",
    "PartitionedCall", "StatefulPartitionedCall", "If", "StatelessIf", "While", "PrintV2",
    "StopGradient", "PreventGradient"])


def enable():
  registry.NUMERICS_CHECK = eager_check


def disable():
  registry.NUMERICS_CHECK = None


def _counts(a):
  """The TF summary lines of `a`'s non-finite elements, and the kinds found."""
  if a.dtype.kind == "c":
    a = np.concatenate([np.real(a).ravel(), np.imag(a).ravel()])
  neg = int(np.count_nonzero(np.isneginf(a)))
  pos = int(np.count_nonzero(np.isposinf(a)))
  nan = int(np.count_nonzero(np.isnan(a)))
  lines, kinds = [], []
  for n, what in ((neg, "-Inf"), (pos, "+Inf"), (nan, "NaN")):
    if n:
      lines.append(f"  # of {'+NaN' if what == 'NaN' else what} elements: {n}")
      kinds.append(what)
  return lines, kinds


def _had(kinds):
  if len(kinds) == 3:
    return "-Inf, +Inf, and NaN"
  return " and ".join(kinds)


def _unchecked(t):
  """A graph tensor as the user built it (not the check node that follows it)."""
  op = getattr(t, "op", None)
  return op.inputs[0] if op is not None and op.opdef.name == "CheckNumericsV2" else t


def _inputs_text(inputs):
  texts = [str(_unchecked(t)) for t in inputs]
  if len(texts) == 1:
    return f"  Input tensor: {texts[0]}"
  if not texts:
    return "  Input tensors (0)"
  return f"  Input tensors ({len(texts)}):\n" + "\n".join(
      f"         {i}: {s}" for i, s in enumerate(texts))


def _user_line():
  f = sys._getframe(2)
  while f is not None and f.f_code.co_filename.startswith(_PKG_DIR):
    f = f.f_back
  return None if f is None else (f.f_code.co_filename, f.f_lineno, f.f_code.co_name)


def _where(src):
  return "" if src is None else f"\n  Created at: File \"{src[0]}\", line {src[1]}, in {src[2]}"


_COUNTS = "<counts>"  # where a graph check's kernel puts the counts it finds


def _message(head, dtype, shape, lines, extra):
  counts = _COUNTS if lines is None else "".join(line + "\n" for line in lines)
  return (f"\n\n!!! Detected Infinity or NaN in {head} !!!\n  dtype: <dtype: '{dtype}'>\n"
          f"  shape: {shape}\n{counts}\n{extra}\n")


def eager_check(od, inputs, res):
  """Raises InvalidArgumentError if an output of eager op `od` has NaN or Inf."""
  if od.name in _SKIP:
    return
  outs = (res,) if od.num_outputs == 1 else res
  for i, a in enumerate(outs):
    if not isinstance(a, (np.ndarray, np.generic)) or a.dtype.kind not in "fc" or \
        np.isfinite(a).all():
      continue
    lines, kinds = _counts(np.asarray(a))
    msg = _message(f"output {i} of eagerly-executing op \"{od.name}\" (# of outputs: "
                   f"{len(outs)})", a.dtype.name, tuple(np.shape(a)), lines,
                   _inputs_text(inputs) + _where(_user_line()))
    raise InvalidArgumentError(None, None, f"{msg} : Tensor had {_had(kinds)} values "
                               f"[Op:CheckNumericsV2]")


def _check_v2(x, *, message):
  if not np.isfinite(x).all():
    lines, kinds = _counts(np.asarray(x))
    text = message.replace(_COUNTS, "".join(line + "\n" for line in lines))
    raise InvalidArgumentError(None, None, f"{text} : Tensor had {_had(kinds)} values "
                               f"[Op:CheckNumericsV2]")
  return x


CheckNumericsV2 = op("CheckNumericsV2", dtypes=FLOAT_C, stateful=True,
                     shape=lambda i, a: [(i[0].shape, i[0].dtype)])(_check_v2)
CheckNumericsV2.def_grad(check_numerics_grad)


def graph_check(g, node):
  """Checked versions of `node`'s floating-point outputs (a CheckNumericsV2 node
  each, named `<node>/CheckNumericsV2`), or None when none needs a check."""
  if node.opdef.name in _SKIP or not any(o.dtype in FLOAT_C for o in node.outputs):
    return None
  from tensorlet.context import ctx
  saved, ctx.scope = ctx.scope, ""
  try:
    outs = []
    for i, o in enumerate(node.outputs):
      if o.dtype not in FLOAT_C:
        outs.append(o)
        continue
      msg = _message(f"output {i} of graph op \"{node.opdef.name}\" (# of outputs: "
                     f"{len(node.outputs)})", o.dtype.name, o.shape, None,
                     _inputs_text(node.inputs) + f"\n  Graph name: \"{g.name}\"" +
                     _where(node.source))
      outs.append(g.create_op(CheckNumericsV2, [o], {"message": msg},
                              name=f"{node.name}/CheckNumericsV2"))
    return tuple(outs)
  finally:
    ctx.scope = saved
