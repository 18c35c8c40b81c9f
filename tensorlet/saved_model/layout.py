"""The files of a saved model directory and the manifest's format version.

  saved_model.json          manifest: format, version, objects, functions, signatures
  graphs.json               the traced graphs of every concrete function (data only)
  variables/variables.*     variable values: a tf.train checkpoint (safe .npz + JSON index)
  constants/constants.*     arrays of graph constants, in the same checkpoint format
"""
import os

__all__ = ["FORMAT", "VERSION", "manifest_path", "graphs_path", "variables_prefix",
           "constants_prefix"]

FORMAT = "tensorlet-saved-model"
VERSION = 1


def manifest_path(export_dir):
  return os.path.join(export_dir, "saved_model.json")


def graphs_path(export_dir):
  return os.path.join(export_dir, "graphs.json")


def variables_prefix(export_dir):
  # NOTE: TF's location, so tf.train.Checkpoint(obj).restore() reads it too.
  return os.path.join(export_dir, "variables", "variables")


def constants_prefix(export_dir):
  return os.path.join(export_dir, "constants", "constants")
