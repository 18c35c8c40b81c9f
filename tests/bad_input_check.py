"""Shared assertion of the bad-input tests of the Keras / data / train / summary /
saved_model suites: the exception has the expected type (TF's), its message matches,
and it was raised by tensorlet's own check, not leaked from NumPy or the os module."""
import re
import traceback

import pytest


def check(fn, exc_type, pattern):
  with pytest.raises(exc_type) as info:
    fn()
  exc = info.value
  assert re.search(pattern, str(exc)), f"{pattern!r} not in {type(exc).__name__}: {exc}"
  assert type(exc).__module__.startswith(("builtins", "tensorlet")), \
      f"raw {type(exc).__module__}.{type(exc).__name__}: {exc}"
  where = traceback.extract_tb(exc.__traceback__)[-1].filename
  assert "/numpy/" not in where, f"raised inside NumPy ({where}): {exc}"
  return exc
