"""Every registered op has an op-table row (issue 10, point 5).

A row covers the ops that run or are staged while it runs eagerly, traced and
under a gradient tape (op_coverage.py), so gradient helper ops count through the
public op whose gradient uses them. Ops no row can reach by themselves are
exempt below, each with its reason; KNOWN_GAPS lists ops still lacking a row.
The test fails on a new gap, and on a known gap that a row now covers (delete it
from the list then, so the list only shrinks).
"""
import functools

from op_coverage import covered_ops, registered_ops
from op_table import CASES

# Plumbing: no numerics of their own to compare with NumPy.
EXEMPT = {
    "Placeholder": "a graph input, fed by the caller: no kernel, nothing to compute",
}

# Ops still without a row (count: 11). Remove names as rows are added.
KNOWN_GAPS = frozenset("""
ResourceApplyGradientDescent ResourceApplyKerasAdadelta ResourceApplyKerasAdagrad
ResourceApplyKerasAdam ResourceApplyKerasAdamAmsgrad ResourceApplyKerasAdamax
ResourceApplyKerasFtrl ResourceApplyKerasLion ResourceApplyKerasMomentum
ResourceApplyKerasNadam ResourceApplyKerasRMSProp
""".split())


@functools.lru_cache(maxsize=None)
def _gaps():
  ops = registered_ops()
  covered = covered_ops(CASES)
  return ops, covered, sorted(n for n in ops if n not in covered and n not in EXEMPT)


def test_every_op_has_a_row():
  ops, covered, gaps = _gaps()
  new = [n for n in gaps if n not in KNOWN_GAPS]
  assert not new, f"{len(new)} registered ops without an op-table row: {new}"
  closed = sorted(KNOWN_GAPS & set(covered))
  assert not closed, f"now covered, remove from KNOWN_GAPS: {closed}"
  stale = sorted((KNOWN_GAPS | set(EXEMPT)) - set(ops))
  assert not stale, f"not registered ops listed in KNOWN_GAPS/EXEMPT: {stale}"


def test_exempt_ops_are_not_covered_by_rows():
  """An exemption is for an op no row reaches; one a row covers needs no excuse."""
  _, covered, _ = _gaps()
  assert not sorted(set(EXEMPT) & set(covered))
