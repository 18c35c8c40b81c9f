"""Every registered op has an op-table row (issue 10, point 5).

A row covers the ops that run or are staged while it runs eagerly, traced and
under a gradient tape (op_coverage.py), so gradient helper ops count through the
public op whose gradient uses them. Ops no row can reach by themselves are
exempt below, each with its reason; any other op without a row fails the test.
"""
import functools

from op_coverage import covered_ops, registered_ops, row_ops
from op_table import CASES

# Plumbing: no numerics of their own to compare with NumPy.
EXEMPT = {
    "Placeholder": "a graph input, fed by the caller: no kernel, nothing to compute",
}


@functools.lru_cache(maxsize=None)
def _gaps():
  ops = registered_ops()
  covered = covered_ops(CASES)
  return ops, covered, sorted(n for n in ops if n not in covered and n not in EXEMPT)


def test_every_op_has_a_row():
  ops, covered, gaps = _gaps()
  assert not gaps, f"{len(gaps)} registered ops without an op-table row: {gaps}"
  stale = sorted(set(EXEMPT) - set(ops))
  assert not stale, f"not registered ops listed in EXEMPT: {stale}"


def test_exempt_ops_are_not_covered_by_rows():
  """An exemption is for an op no row reaches; one a row covers needs no excuse."""
  _, covered, _ = _gaps()
  assert not sorted(set(EXEMPT) & set(covered))


def test_a_row_covers_its_ops_and_their_gradient_ops():
  """The hooks see eager kernels, traced nodes and gradient (also second-order) ops."""
  rows = {c.name: c for c in CASES}
  assert {"Relu", "ReluGrad"} <= row_ops(rows["nn.relu"])
  assert {"MaxPool", "MaxPoolGrad", "MaxPoolGradGrad"} <= row_ops(rows["nn.max_pool2d/VALID_k2s2"])
  assert {"While", "WhileHistoryGet"} <= row_ops(rows["while_loop"])
