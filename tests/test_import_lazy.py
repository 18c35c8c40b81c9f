"""`import tensorlet` stays fast: the modules below load on first use, not at import.

Checked in a fresh interpreter through sys.modules (a timing assertion would be noise)."""
import json
import subprocess
import sys

# Each is loaded by the first use of what it serves (named beside it).
LAZY = [
    "tensorlet.autodiff.function_grad",      # first gradient through a call op
    "tensorlet.autodiff.control_flow_grad",  # first gradient through If/While
    "tensorlet.autodiff.py_function_grad",   # first gradient through a py_function
    "tensorlet.math",                        # tf.math
    "tensorlet.config",                      # tf.config
    "tensorlet.debugging",                   # tf.debugging
    "tensorlet.ops.sparse_ops",              # tf.math.bincount, tf.sparse
    "tensorlet.ops.logging_ops",             # tf.print, tf.Assert, tf.assert_*
    "tensorlet.ops.tensor_array_ops",        # tf.TensorArray
    "tensorlet.graph.control_flow",          # tf.cond, tf.while_loop
    "tensorlet.graph.functional",            # tf.map_fn, tf.scan
    "tensorlet.graph.passes",                # the first call of a tf.function
    "tensorlet.polymorphic_function.polymorphic",  # tf.function, on first use
    "tensorlet.graph.graph",                 # tf.Graph, the first trace
    "tensorlet.ops._parallel",               # the first big matmul
    "tensorlet.distribute",
    "tensorlet.keras",
    "tensorlet.data",
    "tensorlet.nn",
    "tensorlet.ragged",
    "tensorlet.sparse",
    "tensorlet.ops.numerics",                # tf.debugging.enable_check_numerics
    "tensorlet.ops.nn_ops",
    "tensorlet.ops.linalg_ops",
    "tensorlet.ops.random_ops",
    "tensorlet.ops.conv_ops",
    "threadpoolctl",                          # the BLAS thread policy's first GEMM
]


def _loaded_after(code):
  out = subprocess.run([sys.executable, "-c", code + "\nimport sys, json\n"
                        "print(json.dumps(sorted(sys.modules)))"],
                       capture_output=True, text=True, check=True)
  return set(json.loads(out.stdout.splitlines()[-1]))


def test_import_loads_none_of_the_lazy_modules():
  loaded = _loaded_after("import tensorlet")
  assert "tensorlet.ops.math_ops" in loaded  # the check itself sees tensorlet's modules
  assert sorted(loaded & set(LAZY)) == []


def test_lazy_modules_load_on_first_use():
  loaded = _loaded_after(
      "import tensorlet as tf\n"
      "x = tf.Variable(2.0)\n"
      "f = tf.function(lambda x: tf.cond(x > 1.0, lambda: x * x, lambda: x))\n"
      "with tf.GradientTape() as t:\n"
      "  y = f(x)\n"
      "assert float(t.gradient(y, x)) == 4.0\n"
      "assert tf.math.bincount([1, 1, 2]).numpy().tolist() == [0, 2, 1]\n"
      "tf.config.list_logical_devices()\n")
  for m in ("tensorlet.autodiff.control_flow_grad", "tensorlet.autodiff.function_grad", "tensorlet.graph.control_flow",
            "tensorlet.math", "tensorlet.ops.sparse_ops", "tensorlet.config",
            "tensorlet.polymorphic_function.polymorphic", "tensorlet.graph.graph"):
    assert m in loaded, m
