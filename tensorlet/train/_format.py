"""The checkpoint files: `<prefix>.index` (JSON: the object graph and the
dtype/shape of every saved tensor) and `<prefix>.data-00000-of-00001` (an
.npz archive of plain arrays).

Nothing here uses pickle: arrays are written with `np.savez` and read with
`allow_pickle=False`; string tensors are stored as one uint8 buffer plus an
int64 array of lengths. Files are written to a temporary file in the target
directory and moved into place with `os.replace`, data first and index last,
so a crash never leaves a half-written checkpoint under the final name. The
index records the data file's size and SHA-256, so a truncated, corrupted or
mismatched data file is reported as `DataLossError` before any value is used.
Reading validates the whole index and every array before returning.
"""
import hashlib
import io
import json
import os
import tempfile
import zipfile

import numpy as np

from tensorlet import dtypes as _dt
from tensorlet.errors import DataLossError, InvalidArgumentError, NotFoundError

__all__ = ["FORMAT", "VERSION", "OBJECT_GRAPH_KEY", "data_path", "index_path",
           "write_checkpoint", "read_checkpoint", "atomic_write"]

FORMAT = "tensorlet-checkpoint"
VERSION = 1
# NOTE: TF lists its object graph under this key; list_variables shows it too.
OBJECT_GRAPH_KEY = "_CHECKPOINTABLE_OBJECT_GRAPH"
_SAVABLE = frozenset(d for d in _dt.ALL if d not in (_dt.resource, _dt.variant))
_TOP_KEYS = {"format", "version", "data", "nodes", "tensors"}
_NODE_KEYS = {"type", "children", "variable", "slots"}


def index_path(prefix):
  return prefix + ".index"


def data_path(prefix):
  return prefix + ".data-00000-of-00001"


def atomic_write(path, payload):
  """Writes bytes to `path` through a temporary file in the same directory."""
  d = os.path.dirname(path) or "."
  fd, tmp = tempfile.mkstemp(dir=d, prefix=".tmp-" + os.path.basename(path) + "-")
  try:
    with os.fdopen(fd, "wb") as f:
      f.write(payload)
      f.flush()
      os.fsync(f.fileno())
    os.replace(tmp, path)
  except BaseException:
    try:
      os.unlink(tmp)
    except OSError:
      pass
    raise


def _encode(key, value, dtype, entry, arrays):
  if dtype is _dt.string:
    flat = [x.encode("utf-8") if isinstance(x, str) else bytes(x)
            for x in np.asarray(value, dtype=object).reshape(-1)]
    arrays[entry] = np.array([len(b) for b in flat], dtype=np.int64)
    arrays[entry + "_bytes"] = np.frombuffer(b"".join(flat), dtype=np.uint8)
  else:
    arrays[entry] = np.array(value, dtype=dtype._np, order="C")


def write_checkpoint(prefix, nodes, tensors):
  """Writes a checkpoint.

  Args:
    prefix: path prefix; its directory is created if needed.
    nodes: list of node dicts (see `_check_nodes` for the fields).
    tensors: {key: (value, DType)}.
  """
  d = os.path.dirname(prefix)
  if d:
    os.makedirs(d, exist_ok=True)
  arrays, meta = {}, {}
  for i, key in enumerate(sorted(tensors)):
    value, dtype = tensors[key]
    entry = f"t{i}"
    _encode(key, value, dtype, entry, arrays)
    meta[key] = {"dtype": dtype.name, "shape": [int(s) for s in np.shape(value)],
                 "entry": entry}
  buf = io.BytesIO()
  np.savez(buf, **arrays)
  payload = buf.getvalue()
  index = {"format": FORMAT, "version": VERSION,
           "data": {"size": len(payload), "sha256": hashlib.sha256(payload).hexdigest()},
           "nodes": nodes, "tensors": meta}
  atomic_write(data_path(prefix), payload)
  atomic_write(index_path(prefix), json.dumps(index, indent=1, sort_keys=True).encode())


class Reader:
  """A validated checkpoint: its nodes, tensor metadata and values."""

  def __init__(self, prefix, nodes, meta, values):
    self.prefix = prefix
    self.nodes = nodes
    self.meta = meta        # key -> (DType, shape tuple)
    self.values = values    # key -> np.ndarray (object arrays of bytes for strings)
    self.paths = _node_paths(nodes)

  def object_graph_json(self):
    return json.dumps({"nodes": self.nodes}, sort_keys=True).encode()


def _loss(prefix, problem):
  return DataLossError(None, None, f"Checkpoint {prefix!r} is not readable: {problem}")


def _not_found(prefix):
  hint = ""
  for suffix in (".index", ".data-00000-of-00001"):
    if prefix.endswith(suffix) and os.path.exists(prefix):
      hint = (f" Pass the checkpoint prefix {prefix[:-len(suffix)]!r}, without the "
              f"{suffix!r} suffix.")
  if os.path.isdir(prefix):
    hint = (" This is a directory; pass a checkpoint prefix such as "
            "tf.train.latest_checkpoint(directory) returns.")
  return NotFoundError(None, None, f"Unsuccessful TensorSliceReader constructor: Failed to "
                       f"find any matching files for {prefix}.{hint}")


def read_checkpoint(prefix):
  """Reads and fully validates the checkpoint at `prefix`; returns a Reader."""
  ipath = index_path(prefix)
  if not os.path.isfile(ipath):
    raise _not_found(prefix)
  with open(ipath, "rb") as f:
    raw = f.read()
  try:
    index = json.loads(raw.decode("utf-8"))
  except (UnicodeDecodeError, ValueError):
    raise _loss(prefix, f"{ipath} is not a tensorlet checkpoint index (not JSON; a "
                "TensorFlow checkpoint or another file cannot be read by tensorlet)") from None
  if not isinstance(index, dict) or index.get("format") != FORMAT:
    raise _loss(prefix, f"{ipath} is not a tensorlet checkpoint index (no "
                f"\"format\": {FORMAT!r} field)")
  version = index.get("version")
  if not isinstance(version, int) or isinstance(version, bool) or version < 1:
    raise _loss(prefix, f"bad format version {version!r} in {ipath}")
  if version > VERSION:
    raise InvalidArgumentError(
        None, None, f"Checkpoint {prefix!r} has format version {version}, newer than the "
        f"version this tensorlet reads ({VERSION}); upgrade tensorlet to read it.")
  extra = set(index) - _TOP_KEYS
  if extra:
    raise _loss(prefix, f"unexpected field(s) {sorted(extra)} in {ipath}")
  nodes = _check_nodes(prefix, index.get("nodes"))
  meta = _check_tensors(prefix, index.get("tensors"), nodes)
  values = _read_data(prefix, index.get("data"), meta, index["tensors"])
  return Reader(prefix, nodes, meta, values)


def _check_nodes(prefix, nodes):
  """Node fields: "type" (str), "children" ({name: node id}), "variable" (tensor key),
  "slots" ([[primary node id, slot name, slot node id], ...])."""
  if not isinstance(nodes, list) or not nodes:
    raise _loss(prefix, "the index has no object graph (\"nodes\")")
  n = len(nodes)

  def node_id(x, where):
    if not isinstance(x, int) or isinstance(x, bool) or not 0 <= x < n:
      raise _loss(prefix, f"{where} refers to node {x!r}, which does not exist")
    return x
  for i, node in enumerate(nodes):
    if not isinstance(node, dict):
      raise _loss(prefix, f"node {i} is not an object")
    extra = set(node) - _NODE_KEYS
    if extra:
      raise _loss(prefix, f"node {i} has unexpected field(s) {sorted(extra)}")
    if not isinstance(node.get("type", ""), str):
      raise _loss(prefix, f"node {i} has a bad type")
    children = node.get("children", {})
    if not isinstance(children, dict):
      raise _loss(prefix, f"node {i} has bad children")
    for name, c in children.items():
      node_id(c, f"child {name!r} of node {i}")
    if "variable" in node and not isinstance(node["variable"], str):
      raise _loss(prefix, f"node {i} has a bad variable key")
    for s in node.get("slots", []):
      if not (isinstance(s, list) and len(s) == 3 and isinstance(s[1], str)):
        raise _loss(prefix, f"node {i} has a bad slot entry {s!r}")
      node_id(s[0], f"a slot of node {i}")
      node_id(s[2], f"a slot of node {i}")
  return nodes


def _check_tensors(prefix, tensors, nodes):
  if not isinstance(tensors, dict):
    raise _loss(prefix, "the index has no tensor table")
  meta = {}
  entries = set()
  for key, t in tensors.items():
    if not isinstance(t, dict) or set(t) != {"dtype", "shape", "entry"}:
      raise _loss(prefix, f"bad tensor entry for {key!r}")
    dtype = _dt._BY_NAME.get(t["dtype"]) if isinstance(t["dtype"], str) else None
    if dtype not in _SAVABLE:
      raise _loss(prefix, f"unknown dtype {t['dtype']!r} for {key!r}")
    shape = t["shape"]
    if not isinstance(shape, list) or not all(
        isinstance(s, int) and not isinstance(s, bool) and s >= 0 for s in shape):
      raise _loss(prefix, f"bad shape {shape!r} for {key!r}")
    e = t["entry"]
    if not isinstance(e, str) or not e or e in entries:
      raise _loss(prefix, f"bad data entry {e!r} for {key!r}")
    entries.add(e)
    meta[key] = (dtype, tuple(shape))
  for i, node in enumerate(nodes):
    key = node.get("variable")
    if key is not None and key not in meta:
      raise _loss(prefix, f"variable {key!r} (node {i}) has no entry in the tensor table")
  return meta


def _read_data(prefix, data, meta, tensors):
  if not isinstance(data, dict) or set(data) != {"size", "sha256"}:
    raise _loss(prefix, "the index does not describe its data file")
  dpath = data_path(prefix)
  if not os.path.isfile(dpath):
    raise NotFoundError(None, None, f"Checkpoint {prefix!r} is incomplete: its data file "
                        f"{dpath} does not exist.")
  with open(dpath, "rb") as f:
    payload = f.read()
  if len(payload) != data["size"]:
    raise _loss(prefix, f"data file {dpath} has {len(payload)} bytes, the index expects "
                f"{data['size']} (truncated, or written by another save)")
  if hashlib.sha256(payload).hexdigest() != data["sha256"]:
    raise _loss(prefix, f"data file {dpath} is corrupted (checksum mismatch)")
  values = {}
  try:
    with np.load(io.BytesIO(payload), allow_pickle=False) as npz:
      names = set(npz.files)
      for key, (dtype, shape) in meta.items():
        entry = tensors[key]["entry"]
        values[key] = _decode(prefix, npz, names, key, entry, dtype, shape)
  except (ValueError, OSError, EOFError, zipfile.BadZipFile) as e:
    raise _loss(prefix, f"data file {dpath} cannot be decoded: {e}") from None
  return values


def _decode(prefix, npz, names, key, entry, dtype, shape):
  count = int(np.prod(shape, dtype=np.int64))
  if dtype is _dt.string:
    if entry not in names or entry + "_bytes" not in names:
      raise _loss(prefix, f"{key!r} is missing from the data file")
    lengths, buf = npz[entry], npz[entry + "_bytes"]
    if lengths.dtype != np.int64 or lengths.shape != (count,) or buf.dtype != np.uint8 or \
        buf.ndim != 1 or (lengths < 0).any() or int(lengths.sum()) != buf.size:
      raise _loss(prefix, f"the stored strings of {key!r} do not match the index")
    raw = buf.tobytes()
    ends = np.cumsum(lengths)
    items = [raw[e - n:e] for e, n in zip(ends.tolist(), lengths.tolist())]
    out = np.empty(count, dtype=object)
    out[:] = items
    return out.reshape(shape)
  if entry not in names:
    raise _loss(prefix, f"{key!r} is missing from the data file")
  a = npz[entry]
  if a.dtype != dtype._np or a.shape != shape:
    raise _loss(prefix, f"{key!r} is stored as {a.dtype}{list(a.shape)}, the index says "
                f"{dtype.name}{list(shape)}")
  return a


def _node_paths(nodes):
  """A readable path per node ("model/dense/kernel"), breadth first from the root;
  slot variables as "<variable>/.OPTIMIZER_SLOT/<optimizer>/<slot>"."""
  paths = {0: ""}
  queue = [0]
  while queue:
    nxt = []
    for i in queue:
      for name, c in nodes[i].get("children", {}).items():
        if c not in paths:
          paths[c] = f"{paths[i]}/{name}" if paths[i] else name
          nxt.append(c)
    queue = nxt
  for i, node in enumerate(nodes):
    for p, slot, s in node.get("slots", []):
      if s not in paths:
        paths[s] = f"{paths.get(p, '?')}/.OPTIMIZER_SLOT/{paths.get(i) or '(root)'}/{slot}"
  return [paths.get(i, f"<node {i}>") for i in range(len(nodes))]
