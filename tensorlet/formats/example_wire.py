"""Reading tf.train.Example / SequenceExample bytes straight from the protobuf
wire format, into NumPy arrays.

Parsing ops use this instead of building message objects: a packed float
list becomes one `np.frombuffer`, packed int64 varints are decoded with NumPy
in one pass, so a 784-float feature costs microseconds, not one Python float
per value. Every encoding protobuf allows is read (packed and unpacked
repeated fields, fields repeated or out of order, unknown fields skipped,
later map entries and oneof members winning, repeated sub-messages merged);
malformed bytes raise `WireError`. Only plain bytes are read: nothing in the
data can run code. No protobuf runtime is needed.
"""
import numpy as np

__all__ = ["WireError", "example_features", "sequence_example", "feature_values"]


class WireError(ValueError):
  """The bytes are not a valid message of the expected type."""


def _varint(buf, pos, end):
  result = shift = 0
  while True:
    if pos >= end:
      raise WireError("truncated varint")
    b = buf[pos]
    pos += 1
    result |= (b & 0x7F) << shift
    if b < 0x80:
      return result, pos
    shift += 7
    if shift >= 70:
      raise WireError("varint too long")


def _fields(buf, start, end):
  """(field number, wire type, value) of each field in buf[start:end]; value is
  an int for varints, (start, end) offsets for length-delimited fields and
  fixed-width fields."""
  pos = start
  while pos < end:
    tag, pos = _varint(buf, pos, end)
    number, wt = tag >> 3, tag & 7
    if number == 0:
      raise WireError("field number 0")
    if wt == 0:
      v, pos = _varint(buf, pos, end)
      yield number, wt, v
    elif wt == 2:
      n, pos = _varint(buf, pos, end)
      if pos + n > end:
        raise WireError("truncated length-delimited field")
      yield number, wt, (pos, pos + n)
      pos += n
    elif wt == 5:
      if pos + 4 > end:
        raise WireError("truncated fixed32")
      yield number, wt, (pos, pos + 4)
      pos += 4
    elif wt == 1:
      if pos + 8 > end:
        raise WireError("truncated fixed64")
      yield number, wt, (pos, pos + 8)
      pos += 8
    else:
      raise WireError(f"unsupported wire type {wt}")


def _map_entries(buf, start, end, wanted, out):
  """Map<string, message> entries of a Features / FeatureLists message into
  `out` (key -> list of (start, end) chunks of the value message; later
  entries for a key replace earlier ones)."""
  for number, wt, v in _fields(buf, start, end):
    if number != 1:
      continue
    if wt != 2:
      raise WireError("map entry is not length-delimited")
    key, chunks = b"", []
    for n2, wt2, v2 in _fields(buf, v[0], v[1]):
      if n2 == 1:
        if wt2 != 2:
          raise WireError("map key is not a string")
        key = bytes(buf[v2[0]:v2[1]])
      elif n2 == 2:
        if wt2 != 2:
          raise WireError("map value is not a message")
        chunks.append(v2)
    try:
      name = key.decode("utf-8")
    except UnicodeDecodeError:
      raise WireError("map key is not valid UTF-8") from None
    if wanted is None or name in wanted:
      out[name] = (buf, chunks)


def example_features(record, wanted=None):
  """{feature name: Feature reference} of a serialized Example (only the names
  in `wanted`, when given)."""
  buf = memoryview(record)
  out = {}
  for number, wt, v in _fields(buf, 0, len(buf)):
    if number == 1:
      if wt != 2:
        raise WireError("Example.features is not a message")
      _map_entries(buf, v[0], v[1], wanted, out)
  return out


def sequence_example(record, context_wanted, lists_wanted):
  """({name: Feature ref} of the context, {name: [Feature refs]} of the feature
  lists) of a serialized SequenceExample."""
  buf = memoryview(record)
  context, lists = {}, {}
  for number, wt, v in _fields(buf, 0, len(buf)):
    if number in (1, 2) and wt != 2:
      raise WireError("SequenceExample field is not a message")
    if number == 1:
      _map_entries(buf, v[0], v[1], context_wanted, context)
    elif number == 2:
      _map_entries(buf, v[0], v[1], lists_wanted, lists)
  steps = {}
  for name, (b, chunks) in lists.items():
    feats = []
    for s, e in chunks:
      for number, wt, v in _fields(b, s, e):
        if number == 1:
          if wt != 2:
            raise WireError("FeatureList.feature is not a message")
          feats.append((b, [v]))
    steps[name] = feats
  return context, steps


_KINDS = {1: "bytes_list", 2: "float_list", 3: "int64_list"}


def _kind_chunks(ref):
  """(kind, [(start, end) of the list message chunks]) of a Feature reference."""
  buf, chunks = ref
  kind, parts = None, []
  for s, e in chunks:
    for number, wt, v in _fields(buf, s, e):
      k = _KINDS.get(number)
      if k is None:
        continue
      if wt != 2:
        raise WireError("Feature list is not a message")
      if k != kind:
        kind, parts = k, []
      parts.append(v)
  return kind, parts


def _varints(data):
  """The int64 values of concatenated varints (NumPy for long runs)."""
  if len(data) <= 40:
    vals, pos, end = [], 0, len(data)
    while pos < end:
      v, pos = _varint(data, pos, end)
      vals.append(v)
    return np.array(vals, np.uint64).view(np.int64)
  b = np.frombuffer(data, np.uint8)
  if b.size == 0:
    return np.zeros(0, np.int64)
  last = (b & 0x80) == 0
  if not last[-1]:
    raise WireError("truncated packed varint")
  ends = np.flatnonzero(last)
  starts = np.concatenate([[0], ends[:-1] + 1])
  if (ends - starts).max() >= 10:
    raise WireError("varint too long")
  group = np.repeat(np.arange(ends.size), ends - starts + 1)
  shift = ((np.arange(b.size) - starts[group]) * 7).astype(np.uint64)
  vals = np.add.reduceat((b & 0x7F).astype(np.uint64) << shift, starts)
  return vals.view(np.int64)


def feature_values(ref):
  """(kind, values) of a Feature: kind is 'float_list', 'int64_list',
  'bytes_list' or None (an empty Feature); values a float32 / int64 / object
  array."""
  fast = _packed_fast_path(ref)
  if fast is not None:
    return fast
  kind, parts = _kind_chunks(ref)
  buf = ref[0]
  if kind is None:
    return None, None
  if kind == "bytes_list":
    vals = []
    for s, e in parts:
      for number, wt, v in _fields(buf, s, e):
        if number == 1:
          if wt != 2:
            raise WireError("BytesList.value is not bytes")
          vals.append(bytes(buf[v[0]:v[1]]))
    out = np.empty(len(vals), dtype=object)
    out[:] = vals
    return kind, out
  pieces = []
  for s, e in parts:
    for number, wt, v in _fields(buf, s, e):
      if number != 1:
        continue
      if kind == "float_list":
        if wt == 2 and (v[1] - v[0]) % 4:
          raise WireError("packed float list length is not a multiple of 4")
        if wt not in (2, 5):
          raise WireError("FloatList.value has the wrong wire type")
        pieces.append(np.frombuffer(buf[v[0]:v[1]], "<f4"))
      else:
        if wt == 0:
          pieces.append(np.array([v], np.uint64).view(np.int64))
        elif wt == 2:
          pieces.append(_varints(buf[v[0]:v[1]]))
        else:
          raise WireError("Int64List.value has the wrong wire type")
  dtype = np.float32 if kind == "float_list" else np.int64
  if not pieces:
    return kind, np.zeros(0, dtype)
  out = pieces[0] if len(pieces) == 1 else np.concatenate(pieces)
  return kind, out.astype(dtype, copy=False)


def _packed_fast_path(ref):
  """The values of a Feature holding exactly one packed float or int64 list (what
  every writer emits), read without the general field walk; None otherwise."""
  buf, chunks = ref
  if len(chunks) != 1:
    return None
  s, e = chunks[0]
  if e - s < 2 or buf[s] not in (0x12, 0x1A):
    return None
  n, p = _varint(buf, s + 1, e)
  if p + n != e or n == 0:
    return None
  if buf[p] != 0x0A:
    return None
  m, q = _varint(buf, p + 1, e)
  if q + m != e:
    return None
  if buf[s] == 0x12:
    if m % 4:
      return None
    return "float_list", np.frombuffer(buf[q:e], "<f4")
  return "int64_list", _varints(buf[q:e])
