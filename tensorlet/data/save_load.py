"""Dataset.save / Dataset.load / Dataset.snapshot in tensorlet's own format.

A saved dataset is a directory:

  dataset_spec.json   {"spec": <element_spec as JSON>, "compression": .., "count": N}
  data.tfrecord       per element, one record per flat component: the
                      component as a serialized TensorProto (tf.io.serialize_tensor)

Nothing is pickled; loading parses JSON and TensorProtos only. The directory is
written beside its final name and moved in place when complete, so a reader
never sees half a dataset. (TensorFlow's own snapshot format is not read.)
"""
import hashlib
import json
import os
import shutil
import tempfile

import numpy as np

from tensorlet import _nest as nest
from tensorlet import dtypes as _dt
from tensorlet.data import structure
from tensorlet.data.dataset import DatasetV2
from tensorlet.errors import NotFoundError
from tensorlet.io import tfrecord
from tensorlet.tensor_shape import TensorShape
from tensorlet.tensor_spec import TensorSpec

__all__ = ["save", "load", "_SnapshotDataset", "spec_to_json", "spec_from_json"]

_SPEC_FILE = "dataset_spec.json"
_DATA_FILE = "data.tfrecord"


def spec_to_json(spec):
  if isinstance(spec, TensorSpec):
    return {"tensor": {"shape": None if spec.shape.rank is None else spec.shape.as_list(),
                       "dtype": spec.dtype.name}}
  if isinstance(spec, tuple) and hasattr(spec, "_fields"):
    return {"namedtuple": type(spec).__name__, "fields": list(spec._fields),
            "items": [spec_to_json(s) for s in spec]}
  if isinstance(spec, tuple):
    return {"tuple": [spec_to_json(s) for s in spec]}
  if isinstance(spec, dict):
    return {"dict": [[k, spec_to_json(spec[k])] for k in sorted(spec)]}
  raise TypeError(f"Dataset.save cannot save elements of type {spec!r}")


def spec_from_json(obj):
  if "tensor" in obj:
    t = obj["tensor"]
    return TensorSpec(TensorShape(t["shape"]), _dt.as_dtype(t["dtype"]))
  if "namedtuple" in obj:
    import collections
    cls = collections.namedtuple(obj["namedtuple"], obj["fields"])
    return cls(*[spec_from_json(s) for s in obj["items"]])
  if "tuple" in obj:
    return tuple(spec_from_json(s) for s in obj["tuple"])
  if "dict" in obj:
    return {k: spec_from_json(v) for k, v in obj["dict"]}
  raise ValueError(f"Unrecognized element spec in a saved dataset: {obj!r}")


def _serialize(value, dtype):
  from tensorlet.ops.parsing_ops import _tensor_proto
  return _tensor_proto(np.asarray(value, dtype=dtype._np), dtype).SerializeToString()


def _parse(data, dtype):
  from tensorlet.ops.parsing_ops import ParseTensor
  arr = ParseTensor.kernel(np.asarray(data, dtype=object), out_type=dtype)
  return arr if arr.ndim or dtype is _dt.string else arr[()]


def _write(path, items, spec, compression):
  """Writes flat elements `items` to the directory `path` (atomically)."""
  specs = structure.flatten(spec)
  path = os.fspath(path)
  parent = os.path.dirname(os.path.abspath(path))
  os.makedirs(parent, exist_ok=True)
  tmp = tempfile.mkdtemp(prefix=".tmp-", dir=parent)
  try:
    count = 0
    with tfrecord.TFRecordWriter(os.path.join(tmp, _DATA_FILE), compression or "") as w:
      for e in items:
        for v, s in zip(e, specs):
          w.write(_serialize(v, s.dtype))
        count += 1
    with open(os.path.join(tmp, _SPEC_FILE), "w") as f:
      json.dump({"spec": spec_to_json(spec), "compression": compression or "",
                 "count": count, "format": "tensorlet-dataset-1"}, f)
    if os.path.isdir(path):
      shutil.rmtree(path)
    os.replace(tmp, path)
  except BaseException:
    shutil.rmtree(tmp, ignore_errors=True)
    raise


def save(dataset, path, compression=None, shard_func=None, checkpoint_args=None):
  """Writes every element of `dataset` under the directory `path`."""
  if shard_func is not None or checkpoint_args is not None:
    raise NotImplementedError("Dataset.save(shard_func=..., checkpoint_args=...) is not "
                              "implemented in tensorlet; all elements go to one file.")
  tfrecord.compression_type_string(compression)
  for s in nest.flatten(dataset.element_spec):
    if not isinstance(s, TensorSpec):
      raise TypeError(f"Dataset.save cannot save elements of type {s!r}")
  _write(path, dataset._flat_iter(), dataset.element_spec, compression)


def _read_meta(path):
  meta_path = os.path.join(os.fspath(path), _SPEC_FILE)
  if not os.path.exists(meta_path):
    raise NotFoundError(None, None, f"Could not find metadata file [{meta_path}]: no dataset "
                        f"saved by tensorlet's Dataset.save at {path}")
  with open(meta_path) as f:
    return json.load(f)


def _read(path, meta, specs):
  recs = tfrecord.read_records(os.path.join(os.fspath(path), _DATA_FILE), meta["compression"])
  while True:
    e = []
    for s in specs:
      r = next(recs, None)
      if r is None:
        return
      e.append(_parse(r, s.dtype))
    yield e


class _LoadDataset(DatasetV2):
  _op_name = "LoadDataset"

  def __init__(self, path, element_spec):
    self._path = os.fspath(path)
    self._meta = _read_meta(self._path)
    saved = spec_from_json(self._meta["spec"])
    if element_spec is not None:
      try:
        nest.assert_same_structure(saved, element_spec, check_types=False)
        ok = all(a.dtype is b.dtype for a, b in zip(nest.flatten(saved),
                                                    nest.flatten(element_spec)))
      except (TypeError, ValueError):
        ok = False
      if not ok:
        raise ValueError(f"The `element_spec` {element_spec} does not match the saved "
                         f"dataset's {saved}")
      saved = element_spec
    self._setup([], [], saved)

  def _flat_iter(self):
    return _read(self._path, self._meta, structure.flatten(self._element_spec))

  def _cardinality(self):
    return int(self._meta["count"])


def load(path, element_spec=None, compression=None, reader_func=None):
  """The dataset saved at `path` by Dataset.save."""
  if reader_func is not None:
    raise NotImplementedError("Dataset.load(reader_func=...) is not implemented in tensorlet.")
  return _LoadDataset(path, element_spec)


def _fingerprint(dataset):
  """A hash of the pipeline: dataset types, parameter values and element specs."""
  h = hashlib.sha256()

  def visit(d):
    h.update(type(d).__name__.encode())
    h.update(repr(d.element_spec).encode())
    for v in getattr(d, "_values", None) or []:
      arr = np.asarray(v)
      h.update(repr(arr.tolist() if arr.dtype.kind != "O" or arr.size < 64 else
                    arr.shape).encode())
    fn = getattr(d, "_fn", None)
    if fn is not None:
      h.update(str(fn.graph).encode() if hasattr(fn, "graph") else b"")
    for i in getattr(d, "_inputs", []):
      visit(i)
  visit(dataset)
  return h.hexdigest()[:16]


class _SnapshotDataset(DatasetV2):
  """The input's elements; the first complete pass is written under `path`
  (one directory per pipeline fingerprint) and later passes read it."""

  _op_name = "SnapshotDatasetV2"
  _repr_name = "_MapDataset"

  def __init__(self, input_ds, path, compression="AUTO"):
    self._dir = os.fspath(path)
    self._compression = "" if compression in (None, "", "AUTO", "NONE") else compression
    tfrecord.compression_type_string(self._compression)
    self._setup([input_ds], [], input_ds.element_spec)

  def _target(self):
    return os.path.join(self._dir, _fingerprint(self._inputs[0]))

  def _flat_iter(self):
    target = self._target()
    if os.path.exists(os.path.join(target, _SPEC_FILE)):
      meta = _read_meta(target)
      yield from _read(target, meta, structure.flatten(self._element_spec))
      return
    items = []
    for e in self._inputs[0]._flat_iter():
      items.append(e)
      yield e
    _write(target, items, self._element_spec, self._compression)

  def _cardinality(self):
    return self._inputs[0]._cardinality()
