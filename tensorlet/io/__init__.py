"""tf.io: files, TFRecords, tf.train.Example parsing and byte codecs.

File formats are TensorFlow's (TFRecord framing with masked CRC32C, Example
and TensorProto wire format), so files move both ways between tensorlet and
TensorFlow.
"""
import numpy as np

from tensorlet import dtypes as _dt
from tensorlet.io import gfile  # noqa: F401
from tensorlet.io.parsing import (FixedLenFeature, FixedLenSequenceFeature,  # noqa: F401
                                  RaggedFeature, SparseTensorValue, VarLenFeature, parse_example,
                                  parse_sequence_example, parse_single_example,
                                  parse_single_sequence_example)
from tensorlet.io.tfrecord import (TFRecordCompressionType, TFRecordOptions,  # noqa: F401
                                   TFRecordWriter)
from tensorlet.ops import io_ops, parsing_ops
from tensorlet.ops._common import as_int, as_sequence
from tensorlet.tensor import Tensor, convert_to_tensor

__all__ = ["read_file", "write_file", "matching_files", "decode_raw", "decode_csv",
           "encode_base64", "decode_base64", "serialize_tensor", "parse_tensor",
           "TFRecordWriter", "TFRecordOptions", "FixedLenFeature", "VarLenFeature",
           "FixedLenSequenceFeature", "RaggedFeature", "parse_example", "parse_single_example",
           "parse_single_sequence_example", "gfile"]


def _strings(x, what):
  if hasattr(x, "__fspath__"):
    x = x.__fspath__()
  t = x if isinstance(x, Tensor) else convert_to_tensor(x, _dt.string)
  if t.dtype is not _dt.string:
    raise TypeError(f"`{what}` must be a string tensor, got {t.dtype.name}")
  return t


def read_file(filename, name=None):
  """The whole contents of a file as a string scalar (NotFoundError if missing)."""
  return io_ops.ReadFile(_strings(filename, "filename"), name=name)


def write_file(filename, contents, name=None):
  """Writes `contents` to `filename` (atomically), creating missing directories."""
  return io_ops.WriteFile(_strings(filename, "filename"), _strings(contents, "contents"),
                          name=name)


def matching_files(pattern, name=None):
  """The file names matching a glob `pattern` (or a list of them), sorted per pattern."""
  return io_ops.MatchingFiles(_strings(pattern, "pattern"), name=name)


_RAW_TYPES = frozenset(["float16", "float32", "float64", "int32", "uint16", "uint8", "int16",
                        "int8", "int64", "complex64", "complex128", "bool", "uint32",
                        "uint64"])


def decode_raw(input_bytes, out_type, little_endian=True, fixed_length=None, name=None):
  """Reinterprets the bytes of each string as numbers of `out_type` (a new last axis)."""
  out_type = _dt.as_dtype(out_type)
  if out_type.name not in _RAW_TYPES:
    from tensorlet.errors import InvalidArgumentError
    raise InvalidArgumentError(None, None, f"Value for attr 'out_type' of {out_type.name} is "
                               f"not in the list of allowed values [Op:DecodeRaw]")
  return io_ops.DecodeRaw(_strings(input_bytes, "input_bytes"), out_type=out_type,
                          little_endian=bool(little_endian),
                          fixed_length=None if fixed_length is None else int(fixed_length),
                          name=name)


_CSV_TYPES = (_dt.float32, _dt.float64, _dt.int32, _dt.int64, _dt.string)


def decode_csv(records, record_defaults, field_delim=",", use_quote_delim=True, na_value="",
               select_cols=None, name=None):
  """Splits CSV records into one tensor per column, typed like `record_defaults`
  (a default of one value fills empty fields; an empty one makes the column
  required)."""
  defaults = []
  for d in as_sequence(record_defaults, "DecodeCSV", "record_defaults"):
    t = d if isinstance(d, Tensor) else convert_to_tensor(d)
    if t.dtype not in _CSV_TYPES:
      from tensorlet.errors import InvalidArgumentError
      raise InvalidArgumentError(None, None, f"Value for attr 'OUT_TYPE' of {t.dtype.name} is "
                                 f"not in the list of allowed values: float, double, int32, "
                                 f"int64, string [Op:DecodeCSV]")
    defaults.append(t)
  if select_cols is not None:
    select_cols = [as_int(c, "DecodeCSV", "select_cols")
                   for c in as_sequence(select_cols, "DecodeCSV", "select_cols")]
    if len(select_cols) != len(defaults):
      raise ValueError("Length of select_cols and record_defaults do not match.")
    if any(b <= a for a, b in zip(select_cols, select_cols[1:])) or \
        (select_cols and select_cols[0] < 0):
      raise ValueError("select_cols is not strictly increasing.")
  outs = io_ops.DecodeCSV(_strings(records, "records"), *defaults,
                          OUT_TYPE=tuple(t.dtype for t in defaults),
                          field_delim=field_delim, use_quote_delim=bool(use_quote_delim),
                          na_value=na_value, select_cols=tuple(select_cols or ()), name=name)
  return list(outs) if isinstance(outs, (tuple, list)) else [outs]


def encode_base64(input, pad=False, name=None):  # noqa: A002 - TF's argument name
  """Web-safe base64 ('-', '_') of each string; '=' padding only when `pad`."""
  return io_ops.EncodeBase64(_strings(input, "input"), pad=bool(pad), name=name)


def decode_base64(input, name=None):  # noqa: A002
  """Decodes web-safe base64 strings (padding optional)."""
  return io_ops.DecodeBase64(_strings(input, "input"), name=name)


def serialize_tensor(tensor, name=None):
  """A string scalar holding `tensor` as a TensorFlow TensorProto."""
  t = tensor if isinstance(tensor, Tensor) else convert_to_tensor(tensor)
  return parsing_ops.SerializeTensor(t, T=t.dtype, name=name)


def parse_tensor(serialized, out_type, name=None):
  """The tensor of a serialized TensorProto; InvalidArgumentError if its dtype differs."""
  return parsing_ops.ParseTensor(_strings(serialized, "serialized"),
                                 out_type=_dt.as_dtype(out_type), name=name)


# TF exports the image codecs under tf.io too (tf.io.decode_image is tf.image.decode_image).
_IMAGE_CODECS = frozenset(["decode_and_crop_jpeg", "decode_bmp", "decode_gif", "decode_image",
                           "decode_jpeg", "decode_png", "encode_jpeg", "encode_png",
                           "extract_jpeg_shape", "is_jpeg"])


def __getattr__(name):
  if name in _IMAGE_CODECS:
    from tensorlet.image import codecs
    return getattr(codecs, name)
  from tensorlet._unsupported import missing
  raise missing("tf.io", name, __name__)


del np
