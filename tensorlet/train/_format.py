"""The checkpoint files: `<prefix>.index` (JSON: the object graph and the
dtype/shape of every saved tensor) and `<prefix>.data-00000-of-00001` (an
.npz archive of plain arrays).

Nothing here uses pickle: arrays are written with `np.savez` and read with
`allow_pickle=False`; string tensors are stored as one uint8 buffer plus an
int64 array of lengths. A save is atomic as a pair (see `_atomic`): a crash
at any moment leaves the previous checkpoint or the new one readable. The
index records the data file's size and SHA-256 and its own checksum (over the
object graph and tensor table), so a truncated, corrupted, edited or
mismatched file is reported as `DataLossError` before any value is used.
Reading checks declared sizes against the files and limits before allocating,
and validates the whole index and every array before returning.
"""
import hashlib
import io
import json
import os
import shutil
import zipfile

import numpy as np

from tensorlet import dtypes as _dt
from tensorlet.errors import DataLossError, InvalidArgumentError, NotFoundError
from tensorlet.train import _atomic
from tensorlet.train._atomic import atomic_write

__all__ = ["FORMAT", "VERSION", "OBJECT_GRAPH_KEY", "data_path", "index_path",
           "write_checkpoint", "read_checkpoint", "atomic_write"]

FORMAT = "tensorlet-checkpoint"
# Version 2 adds the index's own checksum ("checksum"); version 1 files still read.
VERSION = 2
# NOTE: an index is JSON metadata; anything larger is not one of ours, and is
# refused before it is read into memory.
MAX_INDEX_BYTES = 256 << 20
# NOTE: TF lists its object graph under this key; list_variables shows it too.
OBJECT_GRAPH_KEY = "_CHECKPOINTABLE_OBJECT_GRAPH"
_SAVABLE = frozenset(d for d in _dt.ALL if d not in (_dt.resource, _dt.variant))
_TOP_KEYS = {"format", "version", "data", "nodes", "tensors", "checksum"}
_NODE_KEYS = {"type", "children", "variable", "slots"}


def index_path(prefix):
  return prefix + ".index"


def data_path(prefix):
  return prefix + ".data-00000-of-00001"


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
  index["checksum"] = _index_checksum(index)
  _replace_pair(prefix, payload, json.dumps(index, indent=1, sort_keys=True).encode())


def _index_checksum(index):
  body = {k: v for k, v in index.items() if k != "checksum"}
  return hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()


def _replace_pair(prefix, payload, index_bytes):
  """Replaces data then index; until the new index is in place the old data
  stays reachable as `<data>.prev` (see _atomic's docstring)."""
  dpath, ipath = data_path(prefix), index_path(prefix)
  prev = _atomic.prev_path(dpath)
  _atomic.remove_temporaries(dpath)
  _atomic.remove_temporaries(ipath)
  if os.path.exists(prev):
    # A save died between the two replaces: the index on disk belongs to
    # `prev`. Make the old pair whole again before replacing anything.
    if os.path.exists(dpath) and os.path.samefile(prev, dpath):
      os.unlink(prev)   # killed right after linking: nothing was replaced yet
    elif os.path.exists(ipath) and _matches(prev, ipath):
      os.replace(prev, dpath)
    else:
      os.unlink(prev)
  if os.path.exists(dpath) and os.path.exists(ipath):
    try:
      os.link(dpath, prev)
    except (OSError, AttributeError):    # no hard links here: a copy does the same
      shutil.copyfile(dpath, prev)
  try:
    atomic_write(dpath, payload)
  except BaseException:
    _unlink(prev)
    raise
  try:
    atomic_write(ipath, index_bytes)
  except BaseException:
    if os.path.exists(prev):    # an error, not a kill: put the old pair back now
      os.replace(prev, dpath)
    raise
  _unlink(prev)


def _unlink(path):
  try:
    os.unlink(path)
  except FileNotFoundError:
    pass


def _matches(dpath, ipath):
  """Whether the data file at `dpath` is the one the index at `ipath` describes."""
  try:
    with open(ipath, "rb") as f:
      data = json.loads(f.read(MAX_INDEX_BYTES + 1).decode("utf-8")).get("data")
    return os.path.getsize(dpath) == data["size"] and _sha256_file(dpath) == data["sha256"]
  except (OSError, ValueError, TypeError, KeyError, AttributeError, RecursionError):
    return False


def _sha256_file(path):
  h = hashlib.sha256()
  with open(path, "rb") as f:
    for block in iter(lambda: f.read(1 << 20), b""):
      h.update(block)
  return h.hexdigest()


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
  if os.path.getsize(ipath) > MAX_INDEX_BYTES:
    raise _loss(prefix, f"{ipath} is {os.path.getsize(ipath)} bytes, too large for a "
                f"tensorlet checkpoint index (at most {MAX_INDEX_BYTES})")
  with open(ipath, "rb") as f:
    raw = f.read()
  try:
    index = json.loads(raw.decode("utf-8"))
  except (UnicodeDecodeError, ValueError):
    raise _loss(prefix, f"{ipath} is not a tensorlet checkpoint index (not JSON; a "
                "TensorFlow checkpoint or another file cannot be read by tensorlet)") from None
  except RecursionError:
    raise _loss(prefix, f"{ipath} is nested too deeply to be a checkpoint index") from None
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
  if version >= 2 and index.get("checksum") != _index_checksum(index):
    raise _loss(prefix, f"{ipath} is corrupted or was edited (index checksum mismatch)")
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
  size = data["size"]
  if not isinstance(size, int) or isinstance(size, bool) or size < 0:
    raise _loss(prefix, f"bad data size {size!r} in the index")
  dpath = data_path(prefix)
  prev = _atomic.prev_path(dpath)
  if os.path.isfile(prev) and os.path.getsize(prev) == size and (
      not os.path.isfile(dpath) or os.path.getsize(dpath) != size or
      _sha256_file(dpath) != data["sha256"]):
    dpath = prev    # a save died between its two replaces: the old pair is here
  if not os.path.isfile(dpath):
    raise NotFoundError(None, None, f"Checkpoint {prefix!r} is incomplete: its data file "
                        f"{dpath} does not exist.")
  actual = os.path.getsize(dpath)
  if actual != size:
    raise _loss(prefix, f"data file {dpath} has {actual} bytes, the index expects "
                f"{size} (truncated, or written by another save)")
  with open(dpath, "rb") as f:
    payload = f.read()
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


def _member(prefix, npz, key, name, dtype, shape):
  """Reads array `name` after checking its stored header against what the index
  declares, so a crafted header cannot make NumPy allocate before a check."""
  try:
    info = npz.zip.getinfo(name + ".npy")
  except KeyError:
    raise _loss(prefix, f"{key!r} is missing from the data file") from None
  if info.compress_type != zipfile.ZIP_STORED:
    raise _loss(prefix, f"{key!r} is stored compressed; tensorlet never writes that")
  with npz.zip.open(info) as f:
    version = np.lib.format.read_magic(f)
    if version == (1, 0):
      hshape, fortran, hdtype = np.lib.format.read_array_header_1_0(f)
    elif version == (2, 0):
      hshape, fortran, hdtype = np.lib.format.read_array_header_2_0(f)
    else:
      raise _loss(prefix, f"{key!r} has an unknown array format {version}")
  if hdtype != dtype or tuple(hshape) != tuple(shape) or fortran:
    raise _loss(prefix, f"{key!r} is stored as {hdtype}{list(hshape)}, the index says "
                f"{np.dtype(dtype)}{list(shape)}")
  if info.file_size < int(np.prod(shape, dtype=object)) * np.dtype(dtype).itemsize:
    raise _loss(prefix, f"{key!r} is shorter in the data file than its shape says")
  return npz[name]


def _decode(prefix, npz, names, key, entry, dtype, shape):
  count = int(np.prod(shape, dtype=object))
  if dtype is _dt.string:
    lengths = _member(prefix, npz, key, entry, np.int64, (count,))
    if (lengths < 0).any():
      raise _loss(prefix, f"the stored strings of {key!r} do not match the index")
    buf = _member(prefix, npz, key, entry + "_bytes", np.uint8, (int(lengths.sum()),))
    raw = buf.tobytes()
    ends = np.cumsum(lengths)
    items = [raw[e - n:e] for e, n in zip(ends.tolist(), lengths.tolist())]
    out = np.empty(count, dtype=object)
    out[:] = items
    return out.reshape(shape)
  return _member(prefix, npz, key, entry, dtype._np, shape)


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
