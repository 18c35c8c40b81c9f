"""tf.saved_model: save tf.Modules (variables, objects, traced tf.functions) as data
and load them in a process that never imported their Python code."""
import os as _os

from tensorlet.saved_model.load import load
from tensorlet.saved_model.save import save

__all__ = ["save", "load", "contains_saved_model"]


def contains_saved_model(export_dir):
  """True if `export_dir` holds a tensorlet SavedModel manifest."""
  from tensorlet.saved_model import layout
  return _os.path.isfile(layout.manifest_path(_os.fspath(export_dir)))


from tensorlet._unsupported import getattr_for as _getattr_for  # noqa: E402
__getattr__ = _getattr_for("tf.saved_model", __name__)
