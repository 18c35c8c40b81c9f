"""The trace cache of one tf.function: trace types of a call -> ConcreteFunction.

Dispatch rule: the call's types (a tuple, one trace type per parameter) are
looked up exactly first; on a miss, every trace whose types the call is a
subtype of is a candidate and the most specific candidate wins (a trace for
shape [3] beats one for [None]); the result is remembered for those exact
types. With no candidate the caller traces; `generalize` gives the types to
trace under reduce_retracing (the most specific common supertype of the new
types and the latest compatible trace: differing dims become None).

`fast` maps the (dtype, shape) pairs of an all-eager-tensor positional call
straight to its trace, and `fast_variables` the key of a positional call of eager
tensors and tf.Variables (polymorphic._variable_call_key); both are filled from the
general lookup, so all agree.
"""

__all__ = ["FunctionCache"]


def _subtype(a, b):
  return len(a) == len(b) and all(x.is_subtype_of(y) for x, y in zip(a, b))


class FunctionCache:

  __slots__ = ("_exact", "traces", "fast", "fast_variables")

  def __init__(self):
    self._exact = {}
    self.traces = []      # [(types, ConcreteFunction)] in trace order
    self.fast = {}
    self.fast_variables = {}

  def get(self, types):
    return self._exact.get(types)

  def lookup(self, types):
    """The ConcreteFunction that serves calls of `types`, or None."""
    cf = self._exact.get(types)
    if cf is not None:
      return cf
    best = None
    for k, c in self.traces:
      if _subtype(types, k) and (best is None or _subtype(k, best[0])):
        best = (k, c)
    if best is None:
      return None
    self._exact[types] = best[1]
    return best[1]

  def generalize(self, types):
    for k, _ in reversed(self.traces):
      if len(k) == len(types):
        g = tuple(a.most_specific_common_supertype([b]) for a, b in zip(types, k))
        if all(x is not None for x in g):
          return g
    return types

  def add(self, types, cf, call_types=None):
    """Records a trace made for `types`; `call_types` (the call that caused it) map
    to it too."""
    self.traces.append((types, cf))
    self._exact.setdefault(types, cf)
    if call_types is not None:
      self._exact[call_types] = cf

  def __len__(self):
    return len(self.traces)
