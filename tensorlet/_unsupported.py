"""The AttributeError for a TF name tensorlet does not implement: it says so, and for
TF namespaces tensorlet leaves out, what to use instead.

Each public namespace module ends with `__getattr__ = _unsupported.getattr_for("tf.nn")`;
Python calls it only for names the module lacks, so lookups that succeed cost nothing.
"""

# NOTE: the namespaces (and names) of TF 2.21 that tensorlet leaves out on purpose.
_INSTEAD = {
    "tf.compat.v1": "the TF1 API (sessions, placeholders, collections) is out of scope; "
                    "write TF2 code: tf.function, tf.Variable, tf.keras",
    "tf.estimator": "tf.estimator is gone from TensorFlow 2.16+; use tf.keras Model.fit or a "
                    "training loop with tf.GradientTape",
    "tf.lite": "TFLite conversion is not available; export with tf.saved_model.save or to "
               "ONNX with tensorlet.onnx.export",
    "tf.tpu": "tensorlet runs on the CPU with NumPy; build and train the model without a "
              "TPU strategy",
    "tf.xla": "there is no XLA compiler; drop jit_compile / tf.xla (tf.function still traces "
              "and optimizes the graph)",
    "tf.queue": "use tf.data input pipelines",
    "tf.feature_column": "use Keras preprocessing layers (tf.keras.layers.Normalization, "
                         "StringLookup, ...)",
    "tf.profiler": "profile with Python's cProfile; tf.summary writes TensorBoard logs",
    "tf.mlir": "there is no MLIR bridge; tensorlet.onnx.export exports graphs",
    "tf.distribute.cluster_resolver": "tensorlet finds the workers from TF_CONFIG "
                                      "(TFConfigClusterResolver) or from the MPI launcher "
                                      "(MPIClusterResolver): start the job with mpiexec, under "
                                      "Slurm/PBS/LSF inside the allocation",
}


class NotImplementedInTensorlet(AttributeError, NotImplementedError):
  """A TF name tensorlet does not implement (an AttributeError, so hasattr() is False)."""


def missing(namespace, name, module_name=None):
  """The exception for `namespace.name` (namespace in TF spelling, 'tf.nn')."""
  if name[:2] == "__":  # NOTE: dunder probes (copy, pickle, inspect) get the bare error.
    return AttributeError(f"module '{module_name or namespace}' has no attribute '{name}'")
  full = f"{namespace}.{name}"
  hint = _INSTEAD.get(full)
  if hint is None and namespace in _INSTEAD:
    hint = _INSTEAD[namespace]
  if hint is not None:
    msg = f"{full} is not implemented in tensorlet: {hint}."
  else:
    msg = (f"{full} is not implemented in tensorlet (or is not in TensorFlow 2's API); the "
           f"README lists the namespaces tensorlet covers.")
  if module_name:
    msg = f"module '{module_name}' has no attribute '{name}': {msg}"
  return NotImplementedInTensorlet(msg, name=name)


def getattr_for(namespace, module_name):
  """A module-level `__getattr__` raising `missing(...)` for every unknown name."""

  def __getattr__(name):
    raise missing(namespace, name, module_name)
  return __getattr__
