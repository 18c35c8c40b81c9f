"""Regular expressions never hang: RE2 when installed (the `regex` extra, in the
test extras), else Python's `re` behind a guard that refuses patterns which
can backtrack exponentially."""
import os
import subprocess
import sys

import numpy as np
import pytest

import tensorlet as tf
from tensorlet.ops import _regex

_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EVIL = r"(a+)+$"


def test_catastrophic_pattern_runs_in_linear_time_with_re2():
  pytest.importorskip("re2")
  code = ("import tensorlet as tf\n"
          f"print(tf.strings.regex_full_match(['a' * 5000 + 'b', 'aaa'], {EVIL!r}).numpy())\n"
          f"print(tf.strings.regex_replace('a' * 5000 + 'b', {EVIL!r}, 'x').numpy()[-3:])\n")
  env = dict(os.environ, PYTHONPATH=_ROOT)
  out = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=60, env=env)
  assert out.returncode == 0, out.stderr.decode()[-2000:]
  assert out.stdout.decode().split("\n")[:2] == ["[False  True]", "b'aab'"]


@pytest.fixture
def without_re2(monkeypatch):
  monkeypatch.setattr(_regex, "_re2", None)
  _regex.compile_pattern.cache_clear()
  yield
  _regex.compile_pattern.cache_clear()


@pytest.mark.parametrize("pattern", [EVIL, r"(a*)*b", r"(a|aa)+$", r"(?:x+y?)+z",
                                     r"(a)\1", r"a(?=b)"])
def test_without_re2_risky_patterns_are_refused(without_re2, pattern):
  with pytest.raises(tf.errors.InvalidArgumentError, match="Invalid pattern"):
    tf.strings.regex_full_match(["aaab"], pattern)
  with pytest.raises(tf.errors.InvalidArgumentError, match="Invalid pattern"):
    tf.strings.regex_replace(["aaab"], pattern, "x")


def test_without_re2_ordinary_patterns_work(without_re2):
  np.testing.assert_array_equal(
      tf.strings.regex_full_match(["ab1", "abc", "ab12"], r"ab\d+").numpy(),
      [True, False, True])
  assert tf.strings.regex_replace("a1b22", r"(\d+)", r"<\1>").numpy() == b"a<1>b<22>"
  assert tf.strings.regex_replace("x--y", r"[-]{2,}", "+").numpy() == b"x+y"


def test_invalid_pattern_is_invalid_argument_with_tfs_words():
  with pytest.raises(tf.errors.InvalidArgumentError, match=r"Invalid pattern: \(a, error: "):
    tf.strings.regex_full_match("a", "(a")
