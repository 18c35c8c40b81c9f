import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# NOTE: test files are imported by path (--import-mode=importlib, so two
# test_errors.py in different folders do not clash); helper modules beside
# them (op_table, ckpt_helpers, ...) are found through these folders.
_TESTS = os.path.dirname(os.path.abspath(__file__))
sys.path.extend(os.path.join(_TESTS, d) for d in sorted(os.listdir(_TESTS))
                if os.path.isdir(os.path.join(_TESTS, d)) and not d.startswith(("_", ".")))


@pytest.fixture(autouse=True)
def _seeded():
  np.random.seed(0)
  yield


# Every graph the suite lowers or optimises is linted after each pass
# (Graph.lint: topological order, input ownership, arity, dtypes, names).
from tensorlet.graph import passes as _passes  # noqa: E402

_passes.LINT = True
