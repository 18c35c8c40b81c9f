"""File and byte-codec ops of tf.io: ReadFile, WriteFile, MatchingFiles,
DecodeRaw, DecodeCSV, EncodeBase64, DecodeBase64. None is differentiable.

Base64 is the web-safe alphabet ('-' and '_'), padding optional on input and
off by default on output, as TensorFlow's.
"""
import base64
import binascii
import csv
import glob
import os

import numpy as np

from tensorlet import dtypes as _dt
from tensorlet.errors import InvalidArgumentError
from tensorlet.ops._common import same_shape
from tensorlet.ops.registry import op
from tensorlet.tensor_shape import TensorShape

__all__ = ["ReadFile", "WriteFile", "MatchingFiles", "DecodeRaw", "DecodeCSV",
           "EncodeBase64", "DecodeBase64"]

_STR = frozenset({_dt.string})


def _path(x):
  v = np.asarray(x, dtype=object)[()] if not isinstance(x, (bytes, str)) else x
  return os.fsdecode(v)


def _scalar_string(inputs, attrs):
  return [(TensorShape([]), _dt.string)]


@op("ReadFile", dtypes=_STR, shape=_scalar_string, differentiable=False, stateful=True)
def ReadFile(filename):
  from tensorlet.formats.file_errors import os_error
  path = _path(filename)
  try:
    with open(path, "rb") as f:
      data = f.read()
  except OSError as e:
    err = os_error(e, path)
    raise type(err)(None, None, f"{err.message} [Op:ReadFile]") from None
  return np.asarray(data, dtype=object)


@op("WriteFile", dtypes=_STR, shape=lambda i, a: [], num_outputs=0, differentiable=False,
    stateful=True)
def WriteFile(filename, contents):
  """Writes atomically (a temporary file, then os.replace); makes missing directories."""
  from tensorlet.formats.file_errors import os_error
  path = _path(filename)
  data = np.asarray(contents, dtype=object)[()]
  try:
    parent = os.path.dirname(path)
    if parent:
      os.makedirs(parent, exist_ok=True)
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "wb") as f:
      f.write(bytes(data))
    os.replace(tmp, path)
  except OSError as e:
    err = os_error(e, path)
    raise type(err)(None, None, f"{err.message} [Op:WriteFile]") from None
  return ()


@op("MatchingFiles", dtypes=_STR, shape=lambda i, a: [(TensorShape([None]), _dt.string)],
    differentiable=False, stateful=True)
def MatchingFiles(pattern):
  pats = [os.fsdecode(p) for p in np.reshape(np.asarray(pattern, dtype=object), [-1])]
  found = []
  for p in pats:
    found += sorted(glob.glob(p))
  out = np.empty(len(found), dtype=object)
  out[:] = [os.fsencode(f) for f in found]
  return out


# --------------------------------------------------------------- DecodeRaw

def _decode_raw_shape(inputs, attrs):
  s = inputs[0].shape
  return [(s.concatenate([None]) if s.rank is not None else TensorShape(None),
           attrs["out_type"])]


@op("DecodeRaw", dtypes=_STR, shape=_decode_raw_shape, differentiable=False)
def DecodeRaw(bytes_, *, out_type, little_endian, fixed_length):
  dt = np.dtype(out_type._np).newbyteorder("<" if little_endian else ">")
  size = dt.itemsize
  arr = np.asarray(bytes_, dtype=object)
  flat = [bytes(b) for b in arr.reshape(-1)]
  if fixed_length is not None:
    if fixed_length % size:
      raise InvalidArgumentError(None, None, f"fixed_length ({fixed_length}) must be a "
                                 f"multiple of the size of out_type ({size}) [Op:DecodeRaw]")
    flat = [b[:fixed_length].ljust(fixed_length, b"\0") for b in flat]
    width = fixed_length // size
  else:
    width = len(flat[0]) // size if flat else 0
    for i, b in enumerate(flat):
      if len(b) % size:
        raise InvalidArgumentError(None, None, f"Input to DecodeRaw has length {len(b)} that "
                                   f"is not a multiple of {size}, the size of "
                                   f"{out_type.name} [Op:DecodeRaw]")
      if len(b) != len(flat[0]):
        raise InvalidArgumentError(None, None, f"DecodeRaw requires input strings to all be "
                                   f"the same size, but element {i} has size {len(b)} != "
                                   f"{len(flat[0])} [Op:DecodeRaw]")
  out = np.frombuffer(b"".join(flat), dtype=dt).astype(out_type._np)
  return out.reshape(arr.shape + (width,))


# --------------------------------------------------------------- DecodeCSV

def _csv_shape(inputs, attrs):
  return [(inputs[0].shape, t) for t in attrs["OUT_TYPE"]]


def _convert_field(text, dtype, col, rec):
  try:
    if dtype is _dt.string:
      return text
    s = text.decode("utf-8")
    if dtype.is_integer:
      if s.strip() != s or not s:
        raise ValueError
      v = int(s, 10)
      info = np.iinfo(dtype._np)
      if not info.min <= v <= info.max:
        raise ValueError
      return v
    if s.strip() != s or not s:
      raise ValueError
    return float(s)
  except (ValueError, UnicodeDecodeError):
    name = {"float32": "float", "float64": "double"}.get(dtype.name, dtype.name)
    raise InvalidArgumentError(None, None, f"Field {col} in record {rec} is not a valid "
                               f"{name}: {text.decode('utf-8', 'replace')} "
                               f"[Op:DecodeCSV]") from None


def _split_csv(record, delim, quote, rec):
  text = record.decode("utf-8", "surrogateescape")
  if not quote:
    return [f.encode("utf-8", "surrogateescape") for f in text.split(delim)]
  try:
    rows = list(csv.reader([text], delimiter=delim, quotechar='"', strict=True))
  except csv.Error:
    raise InvalidArgumentError(None, None, f"Quoted field has to end with quote followed by "
                               f"delim or end in record {rec} [Op:DecodeCSV]") from None
  fields = rows[0] if rows else [""]
  return [f.encode("utf-8", "surrogateescape") for f in fields]


@op("DecodeCSV", type_inputs=(), dtypes=None, num_outputs=None, differentiable=False,
    shape=_csv_shape)
def DecodeCSV(records, *record_defaults, OUT_TYPE, field_delim, use_quote_delim, na_value,
              select_cols):
  arr = np.asarray(records, dtype=object)
  flat = arr.reshape(-1)
  ncols = len(OUT_TYPE)
  outs = [np.empty(flat.size, dtype=object if t is _dt.string else t._np) for t in OUT_TYPE]
  for r, record in enumerate(flat):
    fields = _split_csv(bytes(record), field_delim, use_quote_delim, r)
    if select_cols:
      if max(select_cols) >= len(fields):
        raise InvalidArgumentError(None, None, f"Expect {ncols} fields but have "
                                   f"{len(fields)} in record {r} [Op:DecodeCSV]")
      fields = [fields[c] for c in select_cols]
    elif len(fields) != ncols:
      raise InvalidArgumentError(None, None, f"Expect {ncols} fields but have {len(fields)} "
                                 f"in record {r} [Op:DecodeCSV]")
    for c, (text, dtype, default) in enumerate(zip(fields, OUT_TYPE, record_defaults)):
      if text == b"" or (na_value and text == na_value.encode()):
        if np.size(default) == 0:
          raise InvalidArgumentError(None, None, f"Field {c} is required but missing in "
                                     f"record {r}! [Op:DecodeCSV]")
        outs[c][r] = np.asarray(default).reshape(-1)[0]
      else:
        outs[c][r] = _convert_field(text, dtype, c, r)
  return tuple(o.reshape(arr.shape) for o in outs)


# ------------------------------------------------------------------ base64

@op("EncodeBase64", dtypes=_STR, shape=same_shape, differentiable=False)
def EncodeBase64(input, *, pad):  # noqa: A002 - TF's argument name
  arr = np.asarray(input, dtype=object)
  out = np.empty(arr.shape, dtype=object)
  flat = out.reshape(-1)
  for i, b in enumerate(arr.reshape(-1)):
    enc = base64.urlsafe_b64encode(bytes(b))
    flat[i] = enc if pad else enc.rstrip(b"=")
  return out


_B64 = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")


@op("DecodeBase64", dtypes=_STR, shape=same_shape, differentiable=False)
def DecodeBase64(input):  # noqa: A002
  arr = np.asarray(input, dtype=object)
  out = np.empty(arr.shape, dtype=object)
  flat = out.reshape(-1)
  for i, b in enumerate(arr.reshape(-1)):
    s = bytes(b).rstrip(b"=")
    if len(s) % 4 == 1:
      raise InvalidArgumentError(None, None, "Base64 string length cannot be 1 modulo 4. "
                                 "[Op:DecodeBase64]")
    if not _B64.issuperset(s):
      raise InvalidArgumentError(None, None, "Invalid character found in base64. "
                                 "[Op:DecodeBase64]")
    try:
      flat[i] = base64.urlsafe_b64decode(s + b"=" * (-len(s) % 4))
    except binascii.Error:
      raise InvalidArgumentError(None, None, "Invalid character found in base64. "
                                 "[Op:DecodeBase64]") from None
  return out
