"""CSV sources: tf.data.experimental.CsvDataset and make_csv_dataset.

Fields are split and converted by the same code as tf.io.decode_csv
(ops/io_ops.py): quotes, delimiter, na_value, defaults for empty fields.
make_csv_dataset reads the header for column names, infers column types
from the first rows (int32, int64, float32, then string) and returns
batches of (OrderedDict of columns, label).
"""
import collections

import numpy as np

from tensorlet import dtypes as _dt
from tensorlet.data.dataset import UNKNOWN_CARDINALITY
from tensorlet.data.readers import _as_str, _compression, _FileDataset, TextLineDatasetV2
from tensorlet.errors import InvalidArgumentError
from tensorlet.io import tfrecord
from tensorlet.ops import io_ops
from tensorlet.tensor import Tensor, convert_to_tensor
from tensorlet.tensor_spec import TensorSpec

__all__ = ["CsvDatasetV2", "make_csv_dataset"]

_TYPES = (_dt.float32, _dt.float64, _dt.int32, _dt.int64, _dt.string)


def _default(d):
  """(dtype, default array: empty when the column is required)."""
  if isinstance(d, _dt.DType) or (isinstance(d, type) and d in (int, float, str)):
    dtype = _dt.as_dtype(d)
    return dtype, np.zeros([0], object if dtype is _dt.string else dtype._np)
  t = d if isinstance(d, Tensor) else convert_to_tensor(d)
  if t.dtype not in _TYPES:
    raise TypeError(f"Unsupported record default type {t.dtype.name}; use float32, float64, "
                    f"int32, int64 or string.")
  from tensorlet.ops.registry import constant_value
  v = constant_value(t)
  if v is None:
    raise ValueError("`record_defaults` must be known when the dataset is built")
  return t.dtype, np.asarray(v).reshape(-1)


class CsvDatasetV2(_FileDataset):
  """Records of CSV files as tuples of scalars typed like `record_defaults`."""

  _op_name = "CSVDatasetV2"

  def __init__(self, filenames, record_defaults, compression_type=None, buffer_size=None,
               header=False, field_delim=",", use_quote_delim=True, na_value="",
               select_cols=None, exclude_cols=None, name=None):
    if select_cols is not None and exclude_cols is not None:
      raise ValueError("Either select_cols or exclude_cols should be set, not both.")
    self._defaults = [_default(d) for d in record_defaults]
    self._header = bool(header)
    self._delim, self._quote, self._na = field_delim, bool(use_quote_delim), na_value
    self._select = None if select_cols is None else [int(c) for c in select_cols]
    self._exclude = None if exclude_cols is None else set(int(c) for c in exclude_cols)
    if self._select is not None:
      if len(self._select) != len(self._defaults):
        raise ValueError("Length of select_cols and record_defaults do not match.")
      if any(b <= a for a, b in zip(self._select, self._select[1:])):
        raise ValueError("select_cols is not strictly increasing.")
    spec = tuple(TensorSpec([], d) for d, _ in self._defaults)
    self._compress = tfrecord.compression_type_string(compression_type)
    self._init_files(filenames, [_compression(compression_type)], None, spec)

  def _read_file(self, path, compression):
    lines = TextLineDatasetV2._read_file(path, compression, 0)
    if self._header:
      next(lines, None)
    for r, line in enumerate(lines):
      fields = io_ops._split_csv(line, self._delim, self._quote, r)
      if self._select is not None:
        if self._select and self._select[-1] >= len(fields):
          raise InvalidArgumentError(None, None, f"Expect {len(self._defaults)} fields but "
                                     f"have {len(fields)} in record")
        fields = [fields[c] for c in self._select]
      elif self._exclude is not None:
        fields = [f for c, f in enumerate(fields) if c not in self._exclude]
      if len(fields) != len(self._defaults):
        raise InvalidArgumentError(None, None, f"Expect {len(self._defaults)} fields but have "
                                   f"{len(fields)} in record")
      out = []
      for c, (text, (dtype, default)) in enumerate(zip(fields, self._defaults)):
        if text == b"" or (self._na and text == self._na.encode()):
          if default.size == 0:
            raise InvalidArgumentError(None, None, f"Field {c} is required but missing in "
                                       f"record!")
          v = default[0]
        else:
          try:
            v = io_ops._convert_field(text, dtype, c, r)
          except InvalidArgumentError:
            name = {"float32": "float", "float64": "double"}.get(dtype.name, dtype.name)
            raise InvalidArgumentError(None, None, f"Field {c} in record is not a valid "
                                       f"{name}: {text.decode('utf-8', 'replace')}") from None
        out.append(np.asarray(v, dtype=object) if dtype is _dt.string else
                   dtype._np.type(v))
      yield out

  def _flat_iter(self):
    from tensorlet.data.interleave import interleave_iters
    comp = self._params_values()[1]
    return interleave_iters(self._names(), lambda p: self._read_file(p, comp), 1, 1)

  def _cardinality(self):
    return UNKNOWN_CARDINALITY


def _infer_type(values, na_value):
  """int32, int64, float32 or string: the narrowest type every value fits."""
  kinds = _dt.int32
  for v in values:
    if v == "" or v == na_value:
      continue
    if kinds in (_dt.int32, _dt.int64):
      try:
        n = int(v)
        if kinds is _dt.int32 and not -2 ** 31 <= n < 2 ** 31:
          kinds = _dt.int64
        continue
      except ValueError:
        kinds = _dt.float32
    if kinds is _dt.float32:
      try:
        float(v)
        continue
      except ValueError:
        return _dt.string
  return kinds


def _rows(path, delim, quote, compression, n):
  lines = TextLineDatasetV2._read_file(path, compression, 0)
  out = []
  for r, line in enumerate(lines):
    if r >= n:
      break
    out.append([f.decode("utf-8") for f in io_ops._split_csv(line, delim, quote, r)])
  return out


def make_csv_dataset(file_pattern, batch_size, column_names=None, column_defaults=None,
                     label_name=None, select_columns=None, field_delim=",",
                     use_quote_delim=True, na_value="", header=True, num_epochs=None,
                     shuffle=True, shuffle_buffer_size=10000, shuffle_seed=None,
                     prefetch_buffer_size=None, num_parallel_reads=None, sloppy=None,
                     num_rows_for_inference=100, compression_type=None, ignore_errors=False,
                     encoding="utf-8"):
  """Batches of (OrderedDict of column tensors, label) from CSV files.

  Column names come from the header (or `column_names`), types from
  `column_defaults` or inferred from the first `num_rows_for_inference` rows.
  """
  from tensorlet.data.dataset import DatasetV2
  from tensorlet.io import matching_files
  files = [_as_str(f) for f in matching_files(file_pattern).numpy()]
  if not files:
    raise ValueError(f"No files match `file_pattern` {file_pattern}.")
  comp = tfrecord.compression_type_string(compression_type)
  first = _rows(files[0], field_delim, use_quote_delim, comp,
                1 + (num_rows_for_inference if column_defaults is None else 0))
  if column_names is None:
    if not header:
      raise ValueError("Expected `column_names` or `header` to be set.")
    column_names = first[0] if first else []
  column_names = list(column_names)
  if len(set(column_names)) != len(column_names):
    raise ValueError("Column names must be unique.")
  if select_columns is not None:
    idx = []
    for c in select_columns:
      if isinstance(c, int):
        idx.append(c)
      elif c in column_names:
        idx.append(column_names.index(c))
      else:
        raise ValueError(f"Column {c} specified in `select_columns` must be of one of the "
                         f"columns: {dict.fromkeys(column_names).keys()}.")
    idx = sorted(idx)
  else:
    idx = list(range(len(column_names)))
  names = [column_names[i] for i in idx]
  if label_name is not None and label_name not in names:
    raise ValueError(f"`label_name` provided must be one of the columns: {names}. Received: "
                     f"{label_name}.")
  if column_defaults is None:
    data = first[1:] if header else first
    defaults = []
    for i in idx:
      dtype = _infer_type([r[i] for r in data if i < len(r)], na_value)
      defaults.append(np.zeros([1], object if dtype is _dt.string else dtype._np)
                      if dtype is not _dt.string else np.array([b""], dtype=object))
  else:
    if len(column_defaults) != len(idx):
      raise ValueError("The number of `column_defaults` must match the number of columns.")
    defaults = list(column_defaults)
  dataset = DatasetV2.from_tensor_slices(files)
  if shuffle:
    dataset = dataset.shuffle(len(files), seed=shuffle_seed)

  def read(filename):
    return CsvDatasetV2(filename, defaults, compression_type=comp, header=header,
                        field_delim=field_delim, use_quote_delim=use_quote_delim,
                        na_value=na_value, select_cols=idx if select_columns else None)
  dataset = dataset.interleave(read, cycle_length=num_parallel_reads or 1, block_length=1)
  if ignore_errors:
    dataset = dataset.ignore_errors()
  if num_epochs != 1:
    dataset = dataset.repeat(num_epochs)
  if shuffle:
    dataset = dataset.shuffle(shuffle_buffer_size, seed=shuffle_seed)
  dataset = dataset.batch(batch_size)

  def to_dict(*cols):
    feats = collections.OrderedDict(zip(names, cols))
    if label_name is None:
      return feats
    label = feats.pop(label_name)
    return feats, label
  dataset = dataset.map(to_dict)
  return dataset.prefetch(-1 if prefetch_buffer_size is None else prefetch_buffer_size)
