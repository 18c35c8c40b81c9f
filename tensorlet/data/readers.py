"""File sources: TFRecordDataset, TextLineDataset, FixedLengthRecordDataset.

Each reads the files named by a string scalar or vector (or a dataset of
file names) in order; `num_parallel_reads` interleaves records of that many
files (block length 1, deterministic), as TensorFlow's parallel interleave
orders them, each file read ahead in its own thread. Files are opened when iterated: a missing file raises
NotFoundError from `next()`, a bad record DataLossError.
"""
import numpy as np

from tensorlet import dtypes as _dt
from tensorlet.data import structure
from tensorlet.data.dataset import UNKNOWN_CARDINALITY, DatasetV2, _int64
from tensorlet.data.interleave import interleave_iters
from tensorlet.errors import DataLossError, InvalidArgumentError
from tensorlet.io import tfrecord
from tensorlet.tensor import Tensor, convert_to_tensor
from tensorlet.tensor_spec import TensorSpec

__all__ = ["TFRecordDatasetV2", "TextLineDatasetV2", "FixedLengthRecordDatasetV2"]

_STRING = TensorSpec([], _dt.string)




def _filenames(filenames):
  """A string tensor (scalar or vector) of file names, or a dataset of them."""
  if isinstance(filenames, DatasetV2):
    spec = filenames.element_spec
    if not isinstance(spec, TensorSpec) or spec.dtype is not _dt.string:
      raise TypeError("The `filenames` argument must contain `tf.string` elements. Got a "
                      f"dataset of {spec}.")
    if spec.shape.rank not in (0, None):
      raise TypeError(f"The `filenames` argument must contain `tf.string` elements of shape "
                      f"[] (i.e. scalars). Got a dataset of {spec}.")
    return filenames, None
  if hasattr(filenames, "__fspath__"):
    filenames = filenames.__fspath__()
  if isinstance(filenames, (list, tuple)):
    filenames = [f.__fspath__() if hasattr(f, "__fspath__") else f for f in filenames]
    if not filenames:
      filenames = np.zeros([0], dtype=object)
  t = filenames if isinstance(filenames, Tensor) else convert_to_tensor(filenames)
  if t.dtype is not _dt.string:
    raise TypeError(f"The `filenames` argument must contain `tf.string` elements. Got "
                    f"`{t.dtype!r}` elements.")
  if t.shape.rank not in (0, 1, None):
    raise TypeError(f"The `filenames` argument must contain `tf.string` elements of shape "
                    f"[] (i.e. scalars). Got a tensor of shape {t.shape}.")
  return None, t


def _compression(value):
  if isinstance(value, Tensor):
    return value
  return convert_to_tensor(tfrecord.compression_type_string(value), _dt.string)


def _as_str(v):
  v = v[()] if isinstance(v, np.ndarray) else v
  return v.decode() if isinstance(v, bytes) else str(v)


class _FileDataset(DatasetV2):
  """What the file readers share: file names, parallel reads, the per-file reader."""

  _default_buffer = 256 * 1024

  def _init_files(self, filenames, params, num_parallel_reads, spec=_STRING):
    ds, names = _filenames(filenames)
    self._has_ds = ds is not None
    if num_parallel_reads is not None and not isinstance(num_parallel_reads, Tensor) and \
        num_parallel_reads != -1 and num_parallel_reads <= 0:
      raise InvalidArgumentError(None, None, "`cycle_length` must be > 0 "
                                 "[Op:LegacyParallelInterleaveDatasetV2]")
    self._parallel = num_parallel_reads
    cycle = _int64(1 if num_parallel_reads is None else num_parallel_reads,
                   "num_parallel_reads")
    inputs = [ds] if ds is not None else []
    tensors = ([] if ds is not None else [names]) + [cycle] + params
    self._setup(inputs, tensors, spec)

  def _names(self):
    if self._has_ds:
      return (_as_str(e[0]) for e in self._inputs[0]._flat_iter())
    names = np.asarray(self._values[0], dtype=object)
    return (_as_str(n) for n in names.reshape(-1))

  def _params_values(self):
    return self._values[0 if self._has_ds else 1:]

  def _flat_iter(self):
    vals = self._params_values()
    cycle = int(vals[0])
    if cycle == -1:
      import os
      cycle = os.cpu_count() or 1
    args = vals[1:]
    read = self._read_file
    records = interleave_iters(self._names(), lambda path: read(path, *args), cycle, 1,
                               parallel=cycle > 1)
    for r in records:
      yield [np.asarray(r, dtype=object)]

  def _cardinality(self):
    return UNKNOWN_CARDINALITY


class _CompressedFileDataset(_FileDataset):
  """Readers taking (filenames, compression_type, buffer_size, num_parallel_reads)."""

  def __init__(self, filenames, compression_type=None, buffer_size=None,
               num_parallel_reads=None, name=None):
    bs = _int64(self._default_buffer if buffer_size is None else buffer_size, "buffer_size")
    self._init_files(filenames, [_compression(compression_type), bs], num_parallel_reads)

  def _validate(self):
    vals = self._params_values()
    tfrecord.compression_type_string(_as_str(vals[1]))
    if int(vals[2]) < 0:
      raise InvalidArgumentError(None, None, f"`buffer_size` must be >= 0 (0 == no "
                                 f"buffering) [Op:{self._op_name}]")


class TFRecordDatasetV2(_CompressedFileDataset):
  """The records of TFRecord files (tf.data.TFRecordDataset).

  Args:
    filenames: a string or list of strings (or a string tensor / dataset of them).
    compression_type: "", "ZLIB" or "GZIP".
    buffer_size: read buffer in bytes (0 or None: 256 KiB).
    num_parallel_reads: interleave records of this many files at once.
  """

  _op_name = "TFRecordDataset"

  @staticmethod
  def _read_file(path, compression, buffer_size):
    return tfrecord.read_records(path, _as_str(compression), int(buffer_size) or 256 * 1024)


class TextLineDatasetV2(_CompressedFileDataset):
  """The lines of text files, without their line endings (\\n or \\r\\n)."""

  _op_name = "TextLineDataset"

  @staticmethod
  def _read_file(path, compression, buffer_size):
    f = tfrecord.open_stream(path, _as_str(compression), int(buffer_size) or 256 * 1024)
    try:
      rest = b""
      while True:
        chunk = f.read(1 << 16)
        if not chunk:
          break
        lines = (rest + chunk).split(b"\n")
        rest = lines.pop()
        for line in lines:
          yield line[:-1] if line.endswith(b"\r") else line
      if rest:
        yield rest[:-1] if rest.endswith(b"\r") else rest
    finally:
      f.close()


class FixedLengthRecordDatasetV2(_FileDataset):
  """Records of `record_bytes` bytes each, after `header_bytes` and before
  `footer_bytes` of every file."""

  _op_name = "FixedLengthRecordDatasetV2"

  def __init__(self, filenames, record_bytes, header_bytes=None, footer_bytes=None,
               buffer_size=None, compression_type=None, num_parallel_reads=None, name=None):
    params = [_int64(record_bytes, "record_bytes"),
              _int64(0 if header_bytes is None else header_bytes, "header_bytes"),
              _int64(0 if footer_bytes is None else footer_bytes, "footer_bytes"),
              _int64(self._default_buffer if buffer_size is None else buffer_size,
                     "buffer_size"), _compression(compression_type)]
    self._init_files(filenames, params, num_parallel_reads)

  def _validate(self):
    vals = self._params_values()
    rb, hb, fb = (int(v) for v in vals[1:4])
    if rb <= 0:
      raise InvalidArgumentError(None, None, f"record_bytes must be greater than zero, got "
                                 f"{rb} [Op:FixedLengthRecordDatasetV2]")
    if hb < 0 or fb < 0:
      raise InvalidArgumentError(None, None, "header_bytes and footer_bytes must be >= 0 "
                                 "[Op:FixedLengthRecordDatasetV2]")

  @staticmethod
  def _read_file(path, record_bytes, header_bytes, footer_bytes, buffer_size, compression):
    rb, hb, fb = int(record_bytes), int(header_bytes), int(footer_bytes)
    f = tfrecord.open_stream(path, _as_str(compression), int(buffer_size) or 256 * 1024)
    try:
      data = f.read(-1) if not _as_str(compression) else _read_all(f)
    finally:
      f.close()
    body = data[hb:len(data) - fb if fb else len(data)]
    n = len(body) // rb
    if len(body) % rb:
      raise DataLossError(None, None, f"Excluding the header ({hb} bytes) and footer ({fb} "
                          f"bytes), input file \"{path}\" has body length {len(body)} bytes, "
                          f"which is not an exact multiple of the record length ({rb} "
                          f"bytes).")
    for i in range(n):
      yield body[i * rb:(i + 1) * rb]


def _read_all(f):
  parts = []
  while True:
    chunk = f.read(1 << 20)
    if not chunk:
      return b"".join(parts)
    parts.append(chunk)
