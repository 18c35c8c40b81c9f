"""Reading the pickles some Keras data files hold, without running code from them.

CIFAR batches are Python 2 pickles of dicts of NumPy arrays, lists and bytes;
imdb.npz and reuters.npz hold object arrays (pickled lists of word ids). The
unpickler here resolves exactly the globals those files name (NumPy's array
reconstruction, ndarray and dtype) and refuses every other global, so a
crafted file cannot call anything else.
"""
import io
import pickle
import zipfile

import numpy as np

__all__ = ["loads", "load_npz"]

_RECONSTRUCT = np.empty(0).__reduce__()[0]  # numpy's own _reconstruct


class _Unpickler(pickle.Unpickler):

  def __init__(self, file, what, allow_object, **kwargs):
    super().__init__(file, **kwargs)
    self._what = what
    self._allow_object = allow_object

  def find_class(self, module, name):
    if name == "_reconstruct" and module in ("numpy.core.multiarray",
                                             "numpy._core.multiarray"):
      return self._reconstruct
    if (module, name) == ("numpy", "ndarray"):
      return np.ndarray
    if (module, name) == ("numpy", "dtype"):
      return self._dtype
    raise pickle.UnpicklingError(f"{self._what}: refusing to load '{module}.{name}': the file "
                                 f"names code or classes a data file of this kind never "
                                 f"holds.")

  def _reconstruct(self, subtype, shape, dtype):
    if subtype is not np.ndarray:
      raise pickle.UnpicklingError(f"{self._what}: only plain NumPy arrays may be loaded.")
    return _RECONSTRUCT(subtype, shape, self._dtype(dtype))

  def _dtype(self, obj, align=False, copy=False):
    dtype = np.dtype(obj, bool(align), bool(copy)) if not isinstance(obj, np.dtype) else obj
    if dtype.hasobject and not self._allow_object:
      raise pickle.UnpicklingError(f"{self._what}: object arrays are not expected here.")
    return dtype


def loads(data, what, allow_object=False, encoding="bytes"):
  """Unpickles `data` allowing only NumPy arrays and plain Python values."""
  try:
    return _Unpickler(io.BytesIO(data), what, allow_object, encoding=encoding).load()
  except pickle.UnpicklingError:
    raise
  except (EOFError, ValueError, TypeError, AttributeError, IndexError, KeyError) as e:
    raise ValueError(f"{what} is not a readable data file: {e}") from None


def _object_array(fp, what):
  version = np.lib.format.read_magic(fp)
  if version == (1, 0):
    shape, fortran, dtype = np.lib.format.read_array_header_1_0(fp)
  else:
    shape, fortran, dtype = np.lib.format.read_array_header_2_0(fp)
  if not dtype.hasobject:
    fp.seek(0)
    return np.lib.format.read_array(fp, allow_pickle=False)
  arr = loads(fp.read(), what, allow_object=True, encoding="latin1")
  if not isinstance(arr, np.ndarray) or arr.shape != tuple(shape):
    raise ValueError(f"{what}: the stored array does not match its header.")
  return arr


def load_npz(path, keys):
  """{key: array} of the `.npy` members `keys` of the .npz at `path`; object arrays
  (lists of ids) go through the restricted unpickler."""
  if not zipfile.is_zipfile(path):
    raise ValueError(f"{path} is not an .npz file (a zip archive of .npy arrays).")
  out = {}
  with zipfile.ZipFile(path) as z:
    names = set(z.namelist())
    missing = [k for k in keys if k + ".npy" not in names]
    if missing:
      raise ValueError(f"{path} lacks {', '.join(missing)}.")
    for key in keys:
      with z.open(key + ".npy") as member:
        out[key] = _object_array(io.BytesIO(member.read()), f"{path}[{key}]")
  return out
