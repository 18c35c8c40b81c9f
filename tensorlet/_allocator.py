"""Malloc policy for large arrays (glibc only).

NumPy takes array memory from malloc. glibc serves blocks above its mmap
threshold with fresh mmaps and returns them on free, so eager code that makes
and drops a 4 MB temporary per op pays page faults for every new array (W2
eager ran 12% slower than the same NumPy code). Keeping blocks up to 32 MB in
the heap, and trimming it only past 128 MB free, reuses that memory the way a
framework's own allocator would. Set TENSORLET_MALLOC=default to leave malloc
as it is.
"""
import os
import sys

__all__ = ["tune"]

_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3


def tune(environ=os.environ):
  """Applies the policy; returns True when malloc's thresholds were set."""
  if environ.get("TENSORLET_MALLOC", "") == "default" or not sys.platform.startswith("linux"):
    return False
  try:
    if not os.confstr("CS_GNU_LIBC_VERSION").startswith("glibc"):
      return False
    import ctypes
    libc = ctypes.CDLL(None)
    return bool(libc.mallopt(_M_MMAP_THRESHOLD, 32 << 20) and
                libc.mallopt(_M_TRIM_THRESHOLD, 128 << 20))
  except (OSError, ValueError, AttributeError):  # no confstr name, no libc symbol
    return False
