"""tf.strings functions whose results are ragged: split, unicode_split,
unicode_decode, bytes_split (a scalar gives a dense vector, as in TF) and
ngrams. The scalar forms live in ops/string_ops.py."""
from tensorlet import dtypes as _dt
from tensorlet.ops import array_ops as A
from tensorlet.ops import math_ops as M
from tensorlet.ops import string_ops as S
from tensorlet.ops._common import as_sequence
from tensorlet.ops.ragged_string_ops import StringNGrams
from tensorlet.ops.registry import execute
from tensorlet.ragged.ragged_tensor import RaggedTensor
from tensorlet.tensor import Tensor, convert_to_tensor

__all__ = ["split", "unicode_split", "unicode_decode", "bytes_split", "ngrams"]


def _by_rows(x, scalar_fn, vector_fn, name):
  """scalar_fn for a scalar; vector_fn (a vector -> RaggedTensor) for each innermost
  vector of a tensor or ragged tensor, one ragged dimension added."""
  if isinstance(x, RaggedTensor):
    return x.with_flat_values(vector_fn(x.flat_values))
  t = S._strings(x, name)
  if t.shape.rank == 0:
    return scalar_fn(t)
  if t.shape.rank == 1:
    return vector_fn(t)
  out = vector_fn(A.reshape(t, [-1]))
  for d in reversed(t.shape.as_list()[1:]):
    out = RaggedTensor.from_uniform_row_length(out, d)
  return out


def split(input, sep=None, maxsplit=-1, name=None):  # noqa: A002
  """Splits strings on `sep` (runs of whitespace when None); a vector gives a RaggedTensor.

  Example:
    >>> tf.strings.split(["a b", "c"])
    <tf.RaggedTensor [[b'a', b'b'], [b'c']]>
  """
  def vector(v):
    sep_t = convert_to_tensor(b"" if sep is None else S._bytes(sep), _dt.string)
    idx, vals, shape = execute(S.StringSplitV2, [v, sep_t], {"maxsplit": int(maxsplit)})
    return RaggedTensor.from_value_rowids(vals, idx[:, 0], shape[0], validate=False)
  return _by_rows(input, lambda s: S.split(s, sep, maxsplit), vector, "split")


def unicode_decode(input, input_encoding, errors="replace", replacement_char=65533,  # noqa: A002
                   replace_control_characters=False, name=None):
  """The code points of each string; a vector gives a RaggedTensor of int32."""
  def vector(v):
    splits, chars = execute(S.UnicodeDecode, [v], {
        "input_encoding": S._encoding_name(input_encoding, "unicode_decode"),
        "errors": errors, "replacement_char": int(replacement_char)})
    return RaggedTensor.from_row_splits(chars, splits, validate=False)
  if errors not in ("strict", "replace", "ignore"):
    raise ValueError(f"errors must be 'strict', 'replace' or 'ignore', got {errors!r}")
  return _by_rows(input, lambda s: S.unicode_decode(s, input_encoding, errors,
                                                    replacement_char), vector,
                  "unicode_decode")


def unicode_split(input, input_encoding, errors="replace", replacement_char=65533,  # noqa: A002
                  name=None):
  """The characters of each string; a vector gives a RaggedTensor of strings."""
  def vector(v):
    cps = unicode_decode(v, input_encoding, errors, replacement_char)
    chars = S.unicode_encode(A.expand_dims(cps.values, -1), input_encoding)
    return cps.with_values(chars)
  return _by_rows(input, lambda s: S.unicode_split(s, input_encoding, errors,
                                                   replacement_char), vector,
                  "unicode_split")


def bytes_split(input, name=None):  # noqa: A002
  """The bytes of each string; a vector gives a RaggedTensor of 1-byte strings."""
  def vector(v):
    lens = M.cast(S.length(v), _dt.int64)
    rows = RaggedTensor.from_row_lengths(A.zeros(A.reshape(M.reduce_sum(lens), [1]),
                                                 _dt.int32), lens, validate=False)
    ids = rows.value_rowids()
    pos = M.subtract(A.range(rows.row_splits[-1], dtype=_dt.int64),
                     A.gather(rows.row_splits, ids))
    chars = S.substr(A.gather(v, ids), M.cast(pos, _dt.int32),
                     A.ones_like(M.cast(pos, _dt.int32)))
    return rows.with_values(chars)
  return _by_rows(input, S.bytes_split, vector, "bytes_split")


def ngrams(data, ngram_width, separator=" ", pad_values=None, padding_width=None,
           preserve_short_sequences=False, name=None):
  """The n-grams of the innermost rows of `data`, joined by `separator`."""
  widths = [ngram_width] if isinstance(ngram_width, int) else \
      as_sequence(ngram_width, "tf.strings.ngrams", "ngram_width")
  if any(not isinstance(w, int) or w <= 0 for w in widths):
    raise ValueError(f"ngram_width must be a positive int or list of them, got {ngram_width!r}")
  if pad_values is None:
    left = right = ""
    pad = 0
  else:
    left, right = (pad_values, pad_values) if isinstance(pad_values, (str, bytes)) \
        else tuple(pad_values)
    if padding_width is not None and padding_width <= 0:
      raise ValueError(f"padding_width must be positive, got {padding_width}")
    pad = -1 if padding_width is None else int(padding_width)
  attrs = {"separator": S._bytes(separator), "ngram_widths": tuple(widths),
           "left_pad": S._bytes(left), "right_pad": S._bytes(right), "pad_width": pad,
           "preserve_short_sequences": bool(preserve_short_sequences)}

  def rows(rt):
    vals, splits = execute(StringNGrams, [rt.values, rt.row_splits], attrs)
    return RaggedTensor.from_row_splits(vals, splits, validate=False)
  if isinstance(data, RaggedTensor):
    if isinstance(data.values, RaggedTensor):
      return data.with_values(ngrams(data.values, ngram_width, separator, pad_values,
                                     padding_width, preserve_short_sequences))
    return rows(data)
  t = data if isinstance(data, Tensor) else convert_to_tensor(data)
  if t.shape.rank == 1:
    return rows(RaggedTensor.from_tensor(A.expand_dims(t, 0))).values
  if t.shape.rank == 2:
    return rows(RaggedTensor.from_tensor(t)).to_tensor()
  raise ValueError(f"ngrams: data must be a vector, a matrix or a RaggedTensor, got shape "
                   f"{t.shape}")
