"""Regular expressions that run in linear time, as TF's (which uses RE2).

With the `regex` extra (google-re2) installed, patterns compile with RE2
itself: TF's syntax, and matching time linear in the input whatever the
pattern. Without it, Python's backtracking `re` is used behind a guard: a
pattern where a repeated part itself holds a repeat or an alternation (the
shape of `(a+)+$` or `(a|aa)*`, which can take exponential time) is refused
with an error that names the extra; so are back-references and look-around,
which RE2 (and TF) reject as well.
"""
import functools
import re

try:
  import re2 as _re2
except ImportError:   # the optional `regex` extra
  _re2 = None

try:
  from re import _parser as _sre_parse   # Python >= 3.11
except ImportError:   # pragma: no cover - Python 3.10
  import sre_parse as _sre_parse

from tensorlet.errors import invalid_argument

__all__ = ["compile_pattern"]


def _invalid(op_name, pattern, why):
  return invalid_argument(op_name, f"Invalid pattern: {pattern.decode('utf-8', 'replace')}, "
                          f"error: {why}")


@functools.lru_cache(maxsize=256)
def compile_pattern(pattern, op_name):
  """A compiled pattern with `fullmatch`, `sub` and `groups`, RE2-backed when possible."""
  if _re2 is not None:
    options = _re2.Options()
    options.log_errors = False
    try:
      return _re2.compile(pattern, options=options)
    except _re2.error as e:
      why = e.args[0].decode("utf-8", "replace") if e.args and isinstance(
          e.args[0], bytes) else str(e)
      raise _invalid(op_name, pattern, why) from None
  try:
    rx = re.compile(pattern)
  except re.error as e:
    raise _invalid(op_name, pattern, e) from None
  problem = _backtracking_risk(_sre_parse.parse(pattern))
  if problem:
    raise _invalid(op_name, pattern, f"{problem}; tensorlet matches such patterns only with "
                   f"RE2, which runs in linear time: pip install 'tensorlet[regex]'")
  return rx


_REPEATS = frozenset(getattr(_sre_parse, name) for name in
                     ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT")
                     if hasattr(_sre_parse, name))


def _backtracking_risk(parsed, inside_repeat=False):
  """Why Python's `re` could take exponential time on this pattern (None if safe)."""
  for op, arg in parsed:
    if op in (_sre_parse.GROUPREF, _sre_parse.GROUPREF_EXISTS):
      return "back-references are not supported"
    if op in (_sre_parse.ASSERT, _sre_parse.ASSERT_NOT):
      return "look-around assertions are not supported"
    if op in _REPEATS:
      lo, hi, body = arg
      if inside_repeat and hi > 1:
        return "a repeated part contains another repeat"
      problem = _backtracking_risk(body, inside_repeat or hi > 1)
      if problem:
        return problem
    elif op is _sre_parse.BRANCH:
      if inside_repeat:
        return "a repeated part contains an alternation"
      for branch in arg[1]:
        problem = _backtracking_risk(branch, inside_repeat)
        if problem:
          return problem
    elif op is _sre_parse.SUBPATTERN:
      problem = _backtracking_risk(arg[-1], inside_repeat)
      if problem:
        return problem
  return None
