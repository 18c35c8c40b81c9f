"""The malloc policy (tensorlet/_allocator.py): large arrays come from the heap."""
import os
import subprocess
import sys

import pytest

from tensorlet import _allocator

_GLIBC = sys.platform.startswith("linux") and \
    os.confstr("CS_GNU_LIBC_VERSION").startswith("glibc")

# Bytes glibc holds in mmapped blocks while one 8 MB array is alive.
_PROBE = """
import ctypes, numpy as np
import tensorlet
class Info(ctypes.Structure):
  _fields_ = [(n, ctypes.c_size_t) for n in
              "arena ordblks smblks hblks hblkhd usmblks fsmblks uordblks fordblks keepcost".split()]
libc = ctypes.CDLL(None)
libc.mallinfo2.restype = Info
a = np.ones(1 << 20)
print(libc.mallinfo2().hblkhd)
"""


def _mmapped_bytes(env_value):
  env = dict(os.environ, TENSORLET_MALLOC=env_value)
  out = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True,
                       check=True, env=env)
  return int(out.stdout)


def test_tune_sets_glibc_thresholds_or_declines_elsewhere():
  assert _allocator.tune() is _GLIBC


def test_opt_out_leaves_malloc_alone():
  assert _allocator.tune({"TENSORLET_MALLOC": "default"}) is False


@pytest.mark.skipif(not _GLIBC, reason="a glibc malloc policy")
def test_large_arrays_come_from_the_heap_unless_opted_out():
  assert _mmapped_bytes("") < 8 << 20 <= _mmapped_bytes("default")
