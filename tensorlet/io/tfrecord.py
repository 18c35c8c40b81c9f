"""TFRecord files: records framed as

    uint64 length (little endian) | uint32 masked_crc32c(length bytes)
    data (length bytes)           | uint32 masked_crc32c(data)

optionally inside one ZLIB or GZIP stream (TFRecordOptions). Readers check
both CRCs and raise DataLossError on a truncated or corrupted record, as
TensorFlow's RecordReader does.
"""
import os
import struct
import zlib

from tensorlet.errors import DataLossError
from tensorlet.io import crc32c as _crc
from tensorlet.formats.file_errors import os_error

__all__ = ["TFRecordOptions", "TFRecordWriter", "TFRecordCompressionType", "read_records",
           "compression_type_string", "encode_record"]

_LEN = struct.Struct("<Q")
_U32 = struct.Struct("<I")


class TFRecordCompressionType:
  """tf.compat.v1.io.TFRecordCompressionType's values."""
  NONE = 0
  ZLIB = 1
  GZIP = 2


_BY_ENUM = {0: "", 1: "ZLIB", 2: "GZIP"}


def compression_type_string(value):
  """'' | 'ZLIB' | 'GZIP' from a string, None, an enum value or TFRecordOptions."""
  if value is None:
    return ""
  if isinstance(value, TFRecordOptions):
    return compression_type_string(value.compression_type)
  if isinstance(value, bytes):
    value = value.decode()
  if isinstance(value, int) and not isinstance(value, bool) and value in _BY_ENUM:
    return _BY_ENUM[value]
  if isinstance(value, str) and value in ("", "ZLIB", "GZIP"):
    return value
  raise ValueError(f'Not a valid compression_type: "{value}"')


class TFRecordOptions:
  """How a TFRecord file is compressed (tf.io.TFRecordOptions).

  Args:
    compression_type: "GZIP", "ZLIB", "" or None (no compression).
    compression_level: 0-9, or -1/None for zlib's default.
    mem_level, window_bits, compression_strategy: zlib's deflate parameters
      (TF's defaults: 9, 15, 0).
    flush_mode: the zlib flush mode of `TFRecordWriter.flush()` (TF's default:
      Z_PARTIAL_FLUSH).
  Buffer sizes and compression_method are kept and have no effect on the bytes
  written.
  """

  compression_type_map = {TFRecordCompressionType.ZLIB: "ZLIB",
                          TFRecordCompressionType.GZIP: "GZIP",
                          TFRecordCompressionType.NONE: ""}

  def __init__(self, compression_type=None, flush_mode=None, input_buffer_size=None,
               output_buffer_size=None, window_bits=None, compression_level=None,
               compression_method=None, mem_level=None, compression_strategy=None):
    compression_type_string(compression_type)
    self.compression_type = compression_type
    self.flush_mode = flush_mode
    self.input_buffer_size = input_buffer_size
    self.output_buffer_size = output_buffer_size
    self.window_bits = window_bits
    self.compression_level = compression_level
    self.compression_method = compression_method
    self.mem_level = mem_level
    self.compression_strategy = compression_strategy

  @classmethod
  def get_compression_type_string(cls, options):
    return compression_type_string(options)

  def _compressor(self):
    kind = compression_type_string(self.compression_type)
    if not kind:
      return None
    bits = self.window_bits or zlib.MAX_WBITS
    level = -1 if self.compression_level is None else self.compression_level
    return zlib.compressobj(level, zlib.DEFLATED, bits + 16 if kind == "GZIP" else bits,
                            self.mem_level or 9, self.compression_strategy or 0)


def encode_record(data):
  """The framed bytes of one record."""
  n = _LEN.pack(len(data))
  return b"".join((n, _U32.pack(_crc.masked_crc32c(n)), data,
                   _U32.pack(_crc.masked_crc32c(data))))


def _as_record(record):
  if isinstance(record, str):
    return record.encode("utf-8")
  if isinstance(record, (bytes, bytearray, memoryview)):
    return bytes(record)
  if hasattr(record, "numpy") and getattr(record, "dtype", None) is not None and \
      record.dtype.name == "string":
    v = record.numpy()
    if isinstance(v, bytes):
      return v
  raise TypeError(f"TFRecordWriter.write() expects a bytes (or str) record, got "
                  f"{type(record).__name__}")


class TFRecordWriter:
  """Writes records to a TFRecord file (tf.io.TFRecordWriter).

  Example:
    >>> with tf.io.TFRecordWriter("data.tfrecord") as w:
    ...   w.write(b"record")
    >>> [r.numpy() for r in tf.data.TFRecordDataset("data.tfrecord")]
    [b'record']
  """

  def __init__(self, path, options=None):
    if options is None or isinstance(options, (str, bytes, int)):
      options = TFRecordOptions(options)
    elif not isinstance(options, TFRecordOptions):
      raise TypeError(f"`options` must be a tf.io.TFRecordOptions or a compression type "
                      f"string, got {options!r}")
    self._path = os.fsdecode(os.fspath(path))
    self._zip = options._compressor()
    self._flush_mode = zlib.Z_PARTIAL_FLUSH if options.flush_mode is None else \
        int(options.flush_mode)
    try:
      self._file = open(self._path, "wb")
    except OSError as e:
      raise os_error(e, self._path) from None

  def write(self, record):
    """Appends one record (bytes, or a str encoded as UTF-8)."""
    self._check_open()
    data = encode_record(_as_record(record))
    self._file.write(self._zip.compress(data) if self._zip else data)

  def flush(self):
    self._check_open()
    if self._zip:
      # NOTE: TF's ZlibOutputBuffer flushes with Z_PARTIAL_FLUSH unless told otherwise.
      self._file.write(self._zip.flush(self._flush_mode))
    self._file.flush()

  def close(self):
    if self._file is None:
      return
    if self._zip:
      self._file.write(self._zip.flush(zlib.Z_FINISH))
    self._file.close()
    self._file = None

  def _check_open(self):
    if self._file is None:
      from tensorlet.errors import FailedPreconditionError
      raise FailedPreconditionError(None, None, f"The TFRecordWriter of {self._path} is "
                                    f"closed.")

  def __enter__(self):
    return self

  def __exit__(self, *exc):
    self.close()

  def __del__(self):
    try:
      self.close()
    except Exception:  # NOTE: nothing to report to at interpreter teardown
      pass


# ------------------------------------------------------------------ reading

class _Inflater:
  """read(n) over a ZLIB or GZIP stream (concatenated GZIP members too)."""

  def __init__(self, f, kind, chunk):
    self._f = f
    self._wbits = zlib.MAX_WBITS + (16 if kind == "GZIP" else 0)
    self._d = zlib.decompressobj(self._wbits)
    self._buf = bytearray()
    self._chunk = max(chunk, 1 << 14)

  def _fill(self, n):
    while len(self._buf) < n:
      raw = self._d.unconsumed_tail or self._f.read(self._chunk)
      if not raw:
        return
      try:
        self._buf += self._d.decompress(raw, max(n - len(self._buf), 1 << 16))
        if self._d.eof and self._d.unused_data:
          rest = self._d.unused_data
          self._d = zlib.decompressobj(self._wbits)
          self._buf += self._d.decompress(rest)
      except zlib.error as e:
        msg = str(e).split(": ", 1)[-1]
        raise DataLossError(None, None, f"inflate() failed with error -3: {msg}") from None

  def read(self, n):
    self._fill(n)
    out = bytes(self._buf[:n])
    del self._buf[:n]
    return out

  def close(self):
    self._f.close()


def open_stream(path, compression="", buffer_size=256 * 1024):
  """A file object (`read(n)`, `close()`) for `path`, decompressed as asked."""
  path = os.fsdecode(path)
  try:
    f = open(path, "rb", buffering=max(int(buffer_size), 1 << 12))
  except OSError as e:
    raise os_error(e, path) from None
  kind = compression_type_string(compression)
  return _Inflater(f, kind, buffer_size) if kind else f


def read_records(path, compression="", buffer_size=256 * 1024):
  """Yields the records of a TFRecord file as bytes, checking both CRCs."""
  f = open_stream(path, compression, buffer_size)
  masked = _crc.masked_crc32c
  offset = 0
  try:
    while True:
      head = f.read(12)
      if not head:
        return
      if len(head) < 12:
        raise DataLossError(None, None, f"truncated record at {offset}' failed with Read less "
                            f"bytes than requested")
      n, = _LEN.unpack_from(head)
      if _U32.unpack_from(head, 8)[0] != masked(head[:8]):
        hint = " (Is this even a TFRecord file?)" if offset == 0 else ""
        raise DataLossError(None, None, f"corrupted record at {offset}{hint}")
      body = f.read(n + 4)
      if len(body) < n + 4:
        raise DataLossError(None, None, f"truncated record at {offset}' failed with Read less "
                            f"bytes than requested")
      data = body[:n]
      if _U32.unpack_from(body, n)[0] != masked(data):
        raise DataLossError(None, None, f"corrupted record at {offset + 12}")
      offset += n + 16
      yield data
  finally:
    f.close()
