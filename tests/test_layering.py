"""The packages form a DAG: tensors -> ops -> graph -> autodiff -> function ->
autograph -> everything else (data, keras, train, saved_model, ...). A module
never imports one of a higher layer, at module level or inside a function,
except the late-bound hooks listed in ALLOWED, each with its reason. The
imports are read from the source with `ast`, so an import inside a function
counts too."""
import ast
import pathlib

import tensorlet

ROOT = pathlib.Path(tensorlet.__file__).parent

# Layer of a module: the longest matching prefix; anything else is the top layer.
LAYERS = {
    "tensorlet._nest": 0, "tensorlet.nest": 0, "tensorlet.dtypes": 0, "tensorlet.errors": 0,
    "tensorlet.tensor": 0, "tensorlet.tensor_shape": 0, "tensorlet.tensor_spec": 0,
    "tensorlet.context": 0, "tensorlet._allocator": 0, "tensorlet.composite_tensor": 0,
    "tensorlet.types": 0,
    "tensorlet._unsupported": 0,
    "tensorlet.ops": 1, "tensorlet.variables": 1, "tensorlet.formats": 1,
    "tensorlet.indexed_slices": 1,
    "tensorlet.graph": 2,
    "tensorlet.autodiff": 3,
    "tensorlet.polymorphic_function": 4,
    "tensorlet.autograph": 5,
    "tensorlet.distribute": 6,
}
NAMES = ["tensors", "ops", "graph", "autodiff", "function", "autograph", "distribute", "top"]
TOP = 7

# (importer, imported): why the upward import is a late-bound hook.
ALLOWED = {
    ("tensorlet.tensor", "tensorlet.ops.array_ops"):
        "tf.constant of a list of tensors stacks them, and reshapes: ops",
    ("tensorlet.tensor", "tensorlet.ops.math_ops"):
        "tf.constant(tensor, dtype) casts: an op",
    ("tensorlet.ops.control_flow_ops", "tensorlet.graph.control_flow"):
        "old import path of tf.cond/tf.while_loop, which moved up to the graph layer",
    ("tensorlet.types", "tensorlet.polymorphic_function.concrete"):
        "tf.types.experimental re-exports the function classes, bound once they exist (_late)",
    ("tensorlet.types", "tensorlet.polymorphic_function.polymorphic"):
        "tf.types.experimental re-exports the function classes, bound once they exist (_late)",
    ("tensorlet.ops.dispatch", "tensorlet"):
        "lookup() maps an API name in a saved Keras config back to the public function",
    ("tensorlet.polymorphic_function.polymorphic", "tensorlet.autograph.api"):
        "tf.function(autograph=True) converts the Python function with the layer above",
}


def layer(module):
  best, n = TOP, -1
  for prefix, k in LAYERS.items():
    if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > n:
      best, n = k, len(prefix)
  return best


def _resolve(name):
  """The module an imported name lives in (`from pkg import mod` imports pkg.mod)."""
  parts = name.split(".")
  for k in range(len(parts), 0, -1):
    p = ROOT.parent.joinpath(*parts[:k])
    if p.with_suffix(".py").exists() or (p / "__init__.py").exists():
      return ".".join(parts[:k])
  return name


def imports():
  """(importer, imported module, line) for every tensorlet import in the package."""
  for path in sorted(ROOT.rglob("*.py")):
    rel = path.relative_to(ROOT.parent).with_suffix("")
    mod = ".".join(rel.parts[:-1] if rel.name == "__init__" else rel.parts)
    for node in ast.walk(ast.parse(path.read_text())):
      if isinstance(node, ast.Import):
        names = [a.name for a in node.names]
      elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
        names = [_resolve(f"{node.module}.{a.name}") for a in node.names]
      else:
        continue
      for name in names:
        if name.startswith("tensorlet"):
          yield mod, name, node.lineno


def violations(found):
  return [f"{mod}:{line} ({NAMES[layer(mod)]}) imports {name} ({NAMES[layer(name)]})"
          for mod, name, line in found
          if layer(name) > layer(mod) and (mod, name) not in ALLOWED]


def test_no_upward_imports_outside_the_allow_list():
  bad = violations(imports())
  assert not bad, "upward imports:\n" + "\n".join(bad)


def test_allow_list_entries_are_still_needed():
  used = {(mod, name) for mod, name, _ in imports()}
  assert set(ALLOWED) <= used, set(ALLOWED) - used


def test_layer_map_names_real_packages():
  for prefix in LAYERS:
    assert _resolve(prefix) == prefix, prefix


def test_the_check_reports_upward_imports_only():
  found = [("tensorlet.ops.math_ops", "tensorlet.graph.passes", 1),        # up: reported
           ("tensorlet.graph.passes", "tensorlet.ops.math_ops", 2),        # down: fine
           ("tensorlet.autodiff.tape", "tensorlet.keras.layers", 3),       # up to the top
           ("tensorlet.tensor", "tensorlet.ops.math_ops", 4)]              # allowed hook
  bad = violations(found)
  assert len(bad) == 2 and "math_ops:1" in bad[0] and "tape:3" in bad[1]
