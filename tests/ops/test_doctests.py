"""The `>>>` examples in tensorlet's docstrings run and print what they say.

Every module of the package whose source holds an example is imported and its
docstrings (functions, classes, methods) run under doctest with `tf` bound to
tensorlet and NumPy printing as NumPy 1.x did (the examples show `array(...)`
and plain scalars), each in a fresh temporary working directory."""
import doctest
import importlib
import os
import pkgutil

import numpy as np
import pytest

import tensorlet

_ROOT = os.path.dirname(tensorlet.__file__)
_FLAGS = doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS


def _modules_with_examples():
  names = []
  for info in pkgutil.walk_packages([_ROOT], "tensorlet."):
    rel = info.name.split(".")[1:]
    path = os.path.join(_ROOT, *rel)
    path = os.path.join(path, "__init__.py") if info.ispkg else path + ".py"
    if os.path.isfile(path):
      with open(path, encoding="utf-8") as f:
        if ">>>" in f.read():
          names.append(info.name)
  return sorted(names)


def _doctests():
  finder = doctest.DocTestFinder(exclude_empty=True)
  tests = []
  for namespace in tensorlet._LAZY:  # load the public namespaces first, in their own order
    getattr(tensorlet, namespace)
  modules = []
  for name in _modules_with_examples():
    try:
      modules.append(importlib.import_module(name))
    except ImportError:
      # A leaf imported before the module that owns it (keras.confusion_metrics
      # before keras.metrics) trips the owner's import cycle; the owner loads it.
      modules.append(None)
  modules = [m or importlib.import_module(n) for m, n in zip(modules, _modules_with_examples())]
  for module in modules:
    name = module.__name__
    for t in finder.find(module, name, globs={}):
      if t.examples:
        tests.append(t)
  return sorted(tests, key=lambda t: t.name)


_TESTS = _doctests()


def test_examples_are_found():
  # A collection that silently finds nothing would make every example untested.
  assert len(_TESTS) >= 50
  names = {t.name for t in _TESTS}
  assert "tensorlet.ops.clip_ops.clip_by_value" in names


@pytest.mark.parametrize("test", _TESTS, ids=lambda t: t.name)
def test_docstring_example(test, tmp_path, monkeypatch):
  monkeypatch.chdir(tmp_path)  # examples that write files write them here
  test.globs = {"tf": tensorlet, "np": np}
  runner = doctest.DocTestRunner(optionflags=_FLAGS)
  out = []
  from tensorlet.ops import random_ops
  state = random_ops._STATE
  saved = (state.global_seed, state.op_seeds, dict(state.streams))
  try:  # examples may set the global seed; later tests must not see it
    with np.printoptions(legacy="1.25"):
      tensorlet.random.set_seed(0)
      runner.run(test, out=out.append, clear_globs=True)
  finally:
    state.global_seed, state.op_seeds = saved[:2]
    state.streams.clear()
    state.streams.update(saved[2])
  assert runner.failures == 0, "".join(out)
