"""String ops. A string tensor holds an object ndarray of `bytes`; kernels map
Python bytes functions over its elements. None of these ops is differentiable.

Ops whose TensorFlow result is a RaggedTensor (split, unicode_decode,
bytes_split on non-scalars) are implemented for scalar inputs, where the
result is a dense 1-D tensor, and raise NotImplementedError otherwise.
"""
import builtins
import re

import numpy as np

from tensorlet import dtypes as _dt
from tensorlet.errors import invalid_argument
from tensorlet.ops import array_ops
from tensorlet.ops._common import BOOL, NUMERIC, as_int, as_sequence, as_str, norm_axis, reduced_shape, same_shape
from tensorlet.ops._common import name_scoped
from tensorlet.ops.registry import execute, op
from tensorlet.ops._regex import compile_pattern
from tensorlet.tensor_shape import TensorShape, broadcast_static
from tensorlet.tensor import Tensor, convert_to_tensor

_STR = frozenset({_dt.string})
_string = _dt.string
_UNITS = ("BYTE", "UTF8_CHAR")


def _map(fn, x, out=object):
  """`fn` applied to every element of `x`, as a new array of dtype `out`."""
  x = np.asarray(x, dtype=object)
  res = np.empty(x.shape, dtype=out)
  flat = res.reshape(-1)
  for i, v in enumerate(x.reshape(-1)):
    flat[i] = fn(v)
  return res


def _strings(x, name):
  t = convert_to_tensor(x) if not isinstance(x, Tensor) else x
  if t.dtype is not _string:
    raise TypeError(f"{name}: expected a string tensor, got {t.dtype.name}")
  return t


def _unit(unit, name):
  if unit not in _UNITS:
    raise ValueError(f"{name}: unit must be one of {list(_UNITS)}, got {unit!r}")
  return unit


def _broadcast_shape(op_name, out_dtype):
  def shape_fn(inputs, attrs):
    s = inputs[0].shape
    for t in inputs[1:]:
      try:
        s = broadcast_static(s, t.shape)
      except ValueError:
        raise ValueError(f"Input shapes do not match: {s} vs. {t.shape}") from None
    return [(s, out_dtype or inputs[0].dtype)]
  return shape_fn


def _broadcast(arrays, name):
  try:
    return np.broadcast_arrays(*[np.asarray(a, dtype=object if np.asarray(a).dtype.kind == "O"
                                            else None) for a in arrays])
  except ValueError:
    shapes = " vs. ".join(str(list(np.shape(a))) for a in arrays)
    raise invalid_argument(name, f"Input shapes do not match: {shapes}") from None


# ------------------------------------------------------------ join, length

@op("StringJoin", dtypes=_STR, shape=_broadcast_shape("StringJoin", None),
    differentiable=False)
def StringJoin(*inputs, separator):
  parts = _broadcast(inputs, "StringJoin")
  out = np.empty(parts[0].shape, dtype=object)
  flat = out.reshape(-1)
  cols = [p.reshape(-1) for p in parts]
  for i in range(flat.size):
    flat[i] = separator.join(c[i] for c in cols)
  return out


@name_scoped
def join(inputs, separator="", name=None):
  """Joins a list of string tensors elementwise (scalars broadcast).

  Example:
    >>> tf.strings.join(["a", tf.constant(["b", "c"])], separator="-").numpy()
    array([b'a-b', b'a-c'], dtype=object)
  """
  if isinstance(inputs, Tensor):
    raise TypeError("tf.strings.join expects a list of string tensors; use "
                    "tf.strings.reduce_join to join the elements of one tensor.")
  ts = [_strings(x, "join") for x in as_sequence(inputs, "StringJoin", "inputs")]
  if not ts:
    raise ValueError("tf.strings.join needs at least one input")
  return execute(StringJoin, ts, {"separator": _bytes(separator)})


def _bytes(s):
  return s.encode() if isinstance(s, str) else bytes(s)


def _utf8_len(b):
  return sum(1 for c in b if c & 0xC0 != 0x80)


@op("StringLength", dtypes=_STR, shape=lambda i, a: [(i[0].shape, _dt.int32)],
    differentiable=False)
def StringLength(input, *, unit):  # noqa: A002
  return _map(len if unit == "BYTE" else _utf8_len, input, np.int32)


@name_scoped
def length(input, unit="BYTE", name=None):  # noqa: A002
  """Length of each string in bytes or in UTF-8 characters (int32).

  Example:
    >>> tf.strings.length(["ab", "é"], unit="UTF8_CHAR").numpy()
    array([2, 1], dtype=int32)
  """
  return execute(StringLength, [_strings(input, "length")], {"unit": _unit(unit, "length")})


# ----------------------------------------------------- case and whitespace

def _unicode_map(fn):
  return lambda b: fn(b.decode("utf-8", "surrogateescape")).encode("utf-8", "surrogateescape")


@op("StringUpper", dtypes=_STR, shape=same_shape, differentiable=False)
def StringUpper(input, *, encoding):  # noqa: A002
  return _map(bytes.upper if not encoding else _unicode_map(str.upper), input)


@op("StringLower", dtypes=_STR, shape=same_shape, differentiable=False)
def StringLower(input, *, encoding):  # noqa: A002
  return _map(bytes.lower if not encoding else _unicode_map(str.lower), input)


@op("StringStrip", dtypes=_STR, shape=same_shape, differentiable=False)
def StringStrip(input):  # noqa: A002
  return _map(bytes.strip, input)


def _encoding(encoding):
  if encoding not in ("", "utf-8", "UTF-8", "utf8"):
    raise ValueError(f"encoding must be '' (ASCII) or 'utf-8', got {encoding!r}")
  return encoding


@name_scoped
def upper(input, encoding="", name=None):  # noqa: A002
  """Upper-cases ASCII letters (all letters with encoding='utf-8')."""
  return execute(StringUpper, [_strings(input, "upper")], {"encoding": _encoding(encoding)})


@name_scoped
def lower(input, encoding="", name=None):  # noqa: A002
  """Lower-cases ASCII letters (all letters with encoding='utf-8')."""
  return execute(StringLower, [_strings(input, "lower")], {"encoding": _encoding(encoding)})


@name_scoped
def strip(input, name=None):  # noqa: A002
  """Removes leading and trailing whitespace."""
  return execute(StringStrip, [_strings(input, "strip")], {})


# ----------------------------------------------------------------- substr

def _decode_utf8(b, name):
  try:
    return b.decode("utf-8")
  except UnicodeDecodeError:
    raise invalid_argument(name, f"Invalid UTF-8 string: {b!r}") from None


@op("Substr", type_inputs=(1, 2), dtypes=_dt.INTS, differentiable=False,
    shape=_broadcast_shape("Substr", _string))
def Substr(input, pos, len, *, unit):  # noqa: A002
  s, p, n = _broadcast([input, pos, len], "Substr")
  out = np.empty(s.shape, dtype=object)
  flat = out.reshape(-1)
  for i, (b, start, size) in enumerate(zip(s.reshape(-1), p.reshape(-1), n.reshape(-1))):
    text = b if unit == "BYTE" else _decode_utf8(b, "Substr")
    total = builtins.len(text)
    start, size = int(start), int(size)
    if start > total or start < -total:
      raise invalid_argument("Substr", f"pos {start} out of range for string b'"
                             f"{b.decode('utf-8', 'replace')}' at index {i}")
    if start < 0:
      start += total
    piece = text[start:] if size < 0 else text[start:start + size]
    flat[i] = piece if unit == "BYTE" else piece.encode("utf-8")
  return out


@name_scoped
def substr(input, pos, len, unit="BYTE", name=None):  # noqa: A002
  """The substring of each string starting at `pos` with `len` bytes or characters.

  Negative `pos` counts from the end; a `len` past the end takes the rest.

  Raises:
    InvalidArgumentError: `pos` is outside a string.

  Example:
    >>> tf.strings.substr("hello", 1, 3).numpy()
    b'ell'
  """
  x = _strings(input, "substr")
  p = pos if isinstance(pos, Tensor) else convert_to_tensor(pos)
  n = len if isinstance(len, Tensor) else convert_to_tensor(len, p.dtype)
  return execute(Substr, [x, p, n], {"unit": _unit(unit, "substr")})


# ----------------------------------------------------------------- split

def _split_shape(inputs, attrs):
  return [(TensorShape([None, 2]), _dt.int64), (TensorShape([None]), _string),
          (TensorShape([2]), _dt.int64)]


@op("StringSplitV2", dtypes=_STR, num_outputs=3, shape=_split_shape, differentiable=False)
def StringSplitV2(input, sep, *, maxsplit):  # noqa: A002
  if np.ndim(input) != 1:
    raise invalid_argument("StringSplitV2", f"input must be a vector, got shape: "
                           f"{list(np.shape(input))}")
  sep = np.asarray(sep, dtype=object)[()]
  rows = [b.split(sep or None, maxsplit) for b in input]
  idx = [[r, j] for r, parts in enumerate(rows) for j in range(len(parts))]
  vals = np.empty(len(idx), dtype=object)
  vals[:] = [p for parts in rows for p in parts]
  width = max([len(p) for p in rows], default=0)
  return (np.array(idx, np.int64).reshape(-1, 2), vals,
          np.array([len(rows), width], np.int64))


def _ragged(fn_name, x):
  return NotImplementedError(
      f"tf.strings.{fn_name} of a rank-{x.shape.rank} tensor returns a RaggedTensor in "
      f"TensorFlow, which tensorlet does not implement; call it on scalars (each gives a "
      f"dense 1-D tensor).")


@name_scoped
def split(input, sep=None, maxsplit=-1, name=None):  # noqa: A002
  """Splits a scalar string on `sep` (on runs of whitespace when None) into a 1-D tensor.

  Raises:
    NotImplementedError: for non-scalar inputs (TF returns a RaggedTensor).

  Example:
    >>> tf.strings.split("a b  c").numpy()
    array([b'a', b'b', b'c'], dtype=object)
  """
  x = _strings(input, "split")
  if x.shape.rank != 0:
    raise _ragged("split", x)
  sep_t = convert_to_tensor(b"" if sep is None else _bytes(sep), _string)
  return execute(StringSplitV2, [array_ops.reshape(x, [1]), sep_t],
                 {"maxsplit": as_int(maxsplit, "StringSplit", "maxsplit")})[1]


# ------------------------------------------------------------ conversions

_INT_RE = re.compile(rb"\s*[+-]?\d+\s*")


def _parse(b, out):
  bad = invalid_argument("StringToNumber", f"StringToNumberOp could not correctly convert "
                         f"string: {b.decode('utf-8', 'replace')}")
  if out.kind in "iu":
    if not _INT_RE.fullmatch(b):
      raise bad
    v = int(b)
    info = np.iinfo(out)
    if not info.min <= v <= info.max:
      raise bad
    return v
  if b"_" in b:
    raise bad
  try:
    return float(b)
  except ValueError:
    raise bad from None


@op("StringToNumber", dtypes=_STR, shape=lambda i, a: [(i[0].shape, a["out_type"])],
    differentiable=False)
def StringToNumber(input, *, out_type):  # noqa: A002
  out = out_type._np
  vals = _map(lambda b: _parse(b, out), input)
  return vals.astype(out)


_TO_NUMBER_TYPES = (_dt.float32, _dt.float64, _dt.int32, _dt.int64)


@name_scoped
def to_number(input, out_type=_dt.float32, name=None):  # noqa: A002
  """Parses each string as a number of `out_type` (float32 by default).

  Raises:
    InvalidArgumentError: a string is not a number of that type.

  Example:
    >>> tf.strings.to_number(["1.5", "-2"]).numpy()
    array([ 1.5, -2. ], dtype=float32)
  """
  out_type = _dt.as_dtype(out_type)
  if out_type not in _TO_NUMBER_TYPES:
    raise TypeError(f"Value passed to parameter 'out_type' has DataType {out_type.name} not in "
                    f"list of allowed values: float32, float64, int32, int64")
  return execute(StringToNumber, [_strings(input, "to_number")], {"out_type": out_type})


string_to_number = to_number


def _as_string_format(dtype, precision, scientific, shortest, width, fill):
  inexact = dtype.is_floating or dtype.is_complex
  if (scientific or shortest) and not inexact:
    raise ValueError(f"scientific and shortest format not supported for datatype "
                     f"{dtype.name}")
  if precision > -1 and not inexact:
    raise ValueError(f"precision not supported for datatype {dtype.name}")
  if scientific and shortest:
    raise ValueError("Cannot select both scientific and shortest notation")
  fill = as_str(fill, "AsString", "fill")
  if len(fill) > 1:
    raise ValueError("Fill string must be one or fewer characters")
  if fill and fill not in " +-0#":
    raise ValueError(f'Fill argument not supported: "{fill}"')
  spec = "%" + fill + (str(width) if width > -1 else "") + \
      (f".{precision}" if precision > -1 else "")
  if not inexact:
    return spec + "d"
  spec += "g" if shortest else ("e" if scientific else "f")
  return f"({spec},{spec})" if dtype.is_complex else spec


@op("AsString", dtypes=NUMERIC | BOOL, shape=lambda i, a: [(i[0].shape, _string)],
    differentiable=False)
def AsString(input, *, fmt):  # noqa: A002
  if input.dtype == np.bool_:
    return _map(lambda v: b"true" if v else b"false", input)
  if input.dtype.kind == "c":
    return _map(lambda v: (fmt % (v.real, v.imag)).encode(), input)
  return _map(lambda v: (fmt % v).encode(), input)


@name_scoped
def as_string(input, precision=-1, scientific=False, shortest=False, width=-1, fill="",  # noqa: A002
              name=None):
  """Formats numbers (and bools) as strings, printf style (floats as "%f").

  Raises:
    InvalidArgumentError: conflicting or unsupported formatting options.

  Example:
    >>> tf.strings.as_string([1.5, 2.0], precision=2).numpy()
    array([b'1.50', b'2.00'], dtype=object)
  """
  x = convert_to_tensor(input)
  try:
    fmt = _as_string_format(x.dtype, as_int(precision, "AsString", "precision"), bool(scientific), bool(shortest),
                            as_int(width, "AsString", "width"), fill)
  except ValueError as e:
    raise invalid_argument("AsString", str(e)) from None
  return execute(AsString, [x], {"fmt": fmt})


# ----------------------------------------------------------- reduce_join

@op("ReduceJoin", dtypes=_STR, differentiable=False,
    shape=lambda i, a: [(reduced_shape(i[0].shape, a["axis"], a["keep_dims"]), _string)])
def ReduceJoin(inputs, *, axis, keep_dims, separator):
  x = np.asarray(inputs, dtype=object)
  axes = tuple(range(x.ndim)) if axis is None else axis
  rest = [d for d in range(x.ndim) if d not in axes]
  moved = np.transpose(x, rest + list(axes))
  lead = [x.shape[d] for d in rest]
  flat = moved.reshape(lead + [-1])
  out = np.empty(lead, dtype=object)
  out_flat = out.reshape(-1)
  rows = flat.reshape(-1, flat.shape[-1])
  for i in range(out_flat.size):
    out_flat[i] = separator.join(rows[i])
  if keep_dims:
    out = out.reshape([1 if d in axes else x.shape[d] for d in range(x.ndim)])
  return out


@name_scoped
def reduce_join(inputs, axis=None, keepdims=False, separator="", name=None):
  """Joins the strings of `inputs` along `axis` (all axes when None).

  Example:
    >>> tf.strings.reduce_join([["a", "b"], ["c", "d"]], axis=1, separator=",").numpy()
    array([b'a,b', b'c,d'], dtype=object)
  """
  x = _strings(inputs, "reduce_join")
  ax = norm_axis(axis, x.shape.rank, "ReduceJoin")
  return execute(ReduceJoin, [x], {"axis": ax, "keep_dims": bool(keepdims),
                                   "separator": _bytes(separator)})


# ---------------------------------------------------------------- regex

def _scalar_bytes(v):
  return np.asarray(v, dtype=object).reshape(-1)[0] if np.size(v) == 1 else None


@op("RegexFullMatch", dtypes=_STR, shape=lambda i, a: [(i[0].shape, _dt.bool)],
    differentiable=False)
def RegexFullMatch(input, pattern):  # noqa: A002
  rx = compile_pattern(_scalar_bytes(pattern), "RegexFullMatch")
  return _map(lambda b: rx.fullmatch(b) is not None, input, np.bool_)


@name_scoped
def regex_full_match(input, pattern, name=None):  # noqa: A002
  """True where the whole string matches the regular expression `pattern`.

  Example:
    >>> tf.strings.regex_full_match(["ab1", "abc"], r"ab\\d").numpy()
    array([ True, False])
  """
  return execute(RegexFullMatch, [_strings(input, "regex_full_match"),
                                  _strings(pattern, "regex_full_match")], {})


def _rewrite_parts(rewrite):
  """RE2 rewrite text -> list of bytes literals and group numbers (\\0 .. \\9)."""
  parts, i, lit = [], 0, b""
  while i < len(rewrite):
    c = rewrite[i:i + 1]
    if c == b"\\":
      nxt = rewrite[i + 1:i + 2]
      if nxt.isdigit():
        parts += [lit, int(nxt)]
        lit = b""
      elif nxt == b"\\":
        lit += b"\\"
      else:
        raise invalid_argument("RegexReplace", f"Invalid rewrite pattern: "
                               f"{rewrite.decode('utf-8', 'replace')}")
      i += 2
    else:
      lit += c
      i += 1
  return parts + [lit]


@op("RegexReplace", dtypes=_STR, shape=same_shape, differentiable=False)
def RegexReplace(input, pattern, rewrite, *, replace_global):  # noqa: A002
  rx = compile_pattern(_scalar_bytes(pattern), "RegexReplace")
  parts = _rewrite_parts(_scalar_bytes(rewrite))
  for p in parts:
    if isinstance(p, int) and p > rx.groups:
      raise invalid_argument("RegexReplace", f"Rewrite schema requests {p} matches, but the "
                             f"regexp only has {rx.groups} parenthesized subexpressions")

  def repl(m):
    return b"".join(p if isinstance(p, bytes) else (m.group(p) or b"") for p in parts)
  count = 0 if replace_global else 1
  return _map(lambda b: rx.sub(repl, b, count=count), input)


@name_scoped
def regex_replace(input, pattern, rewrite, replace_global=True, name=None):  # noqa: A002
  """Replaces matches of `pattern` with `rewrite` (\\1 .. \\9 name groups, \\0 the match).

  Example:
    >>> tf.strings.regex_replace("a1b22", r"\\d+", "#").numpy()
    b'a#b#'
  """
  return execute(RegexReplace, [_strings(input, "regex_replace"),
                                _strings(pattern, "regex_replace"),
                                _strings(rewrite, "regex_replace")],
                 {"replace_global": bool(replace_global)})


# ---------------------------------------------------------------- format

@op("StringFormat", type_inputs=(), differentiable=False,
    shape=lambda i, a: [(TensorShape([]), _string)])
def StringFormat(*inputs, template, placeholder, summarize):
  from tensorlet.ops.logging_ops import format_tensor
  pieces = template.split(placeholder)
  if len(pieces) - 1 != len(inputs):
    raise invalid_argument("StringFormat", f"num placeholders in template and num inputs must "
                           f"match: {len(pieces) - 1} vs. {len(inputs)}")
  out = pieces[0]
  for v, piece in zip(inputs, pieces[1:]):
    out += format_tensor(v, summarize) + piece
  return np.asarray(out.encode("utf-8"), dtype=object)


@name_scoped
def format(template, inputs, placeholder="{}", summarize=3, name=None):  # noqa: A001
  """Formats `template`, replacing each `placeholder` by the next input tensor's text.

  Example:
    >>> tf.strings.format("x={} y={}", [1, tf.constant([1.5, 2.0])]).numpy()
    b'x=1 y=[1.5 2]'
  """
  if isinstance(inputs, (list, tuple)):
    ts = [convert_to_tensor(x) for x in inputs]
  else:
    ts = [convert_to_tensor(inputs)]
  return execute(StringFormat, ts, {"template": str(template), "placeholder": str(placeholder),
                                    "summarize": as_int(summarize, "StringFormat", "summarize")})


# --------------------------------------------------------------- unicode

def _decode_shape(inputs, attrs):
  return [(TensorShape([None]), _dt.int64), (TensorShape([None]), _dt.int32)]


@op("UnicodeDecode", dtypes=_STR, num_outputs=2, shape=_decode_shape, differentiable=False)
def UnicodeDecode(input, *, input_encoding, errors, replacement_char):  # noqa: A002
  splits, chars = [0], []
  for b in np.asarray(input, dtype=object).reshape(-1):
    try:
      text = b.decode(input_encoding)
    except UnicodeDecodeError as e:
      if errors == "strict":
        raise invalid_argument("UnicodeDecode", f"Invalid formatting on input string: "
                               f"{e}") from None
      text = b.decode(input_encoding, "replace" if errors == "replace" else "ignore")
      if errors == "replace" and replacement_char != 0xFFFD:
        text = text.replace("\ufffd", chr(replacement_char))
    chars.extend(ord(ch) for ch in text)
    splits.append(len(chars))
  return np.array(splits, np.int64), np.array(chars, np.int32)


def _encoding_name(encoding, fn):
  enc = as_str(encoding, fn, "encoding").upper().replace("_", "-")
  if enc not in ("UTF-8", "UTF-16-BE", "UTF-32-BE"):
    raise ValueError(f"{fn}: unsupported encoding {encoding!r} (UTF-8, UTF-16-BE, UTF-32-BE)")
  return enc.lower()


@name_scoped
def unicode_decode(input, input_encoding, errors="replace", replacement_char=65533,  # noqa: A002
                   replace_control_characters=False, name=None):
  """The code points (int32, 1-D) of a scalar string.

  Raises:
    NotImplementedError: for non-scalar inputs (TF returns a RaggedTensor).
  """
  x = _strings(input, "unicode_decode")
  if x.shape.rank != 0:
    raise _ragged("unicode_decode", x)
  if errors not in ("strict", "replace", "ignore"):
    raise ValueError(f"errors must be 'strict', 'replace' or 'ignore', got {errors!r}")
  return execute(UnicodeDecode, [x], {"input_encoding": _encoding_name(input_encoding,
                                                                       "unicode_decode"),
                                      "errors": errors,
                                      "replacement_char": as_int(replacement_char, "UnicodeDecode", "replacement_char")})[1]


@op("UnicodeEncode", dtypes=frozenset({_dt.int32}), differentiable=False,
    shape=lambda i, a: [(TensorShape(i[0].shape.as_list()[:-1]) if i[0].shape.rank
                         else TensorShape(None), _string)])
def UnicodeEncode(input, *, output_encoding, errors, replacement_char):  # noqa: A002
  def enc(row):
    out = []
    for c in row:
      if not 0 <= c <= 0x10FFFF or 0xD800 <= c <= 0xDFFF:
        if errors == "strict":
          raise invalid_argument("UnicodeEncode", f"Invalid code point: {int(c)}")
        if errors == "ignore":
          continue
        c = replacement_char
      out.append(chr(c))
    return "".join(out).encode(output_encoding)
  x = np.asarray(input)
  rows = x.reshape(-1, x.shape[-1]) if x.shape[-1] else np.zeros((x.size, 0), np.int32)
  res = np.empty(rows.shape[0], dtype=object)
  for i, r in enumerate(rows):
    res[i] = enc(r)
  return res.reshape(x.shape[:-1])


@name_scoped
def unicode_encode(input, output_encoding, errors="replace", replacement_char=65533,  # noqa: A002
                   name=None):
  """Encodes int32 code points along the last axis into strings.

  Example:
    >>> tf.strings.unicode_encode([104, 105], "UTF-8").numpy()
    b'hi'
  """
  x = convert_to_tensor(input, _dt.int32) if not isinstance(input, Tensor) else input
  if x.shape.rank == 0:
    raise ValueError("unicode_encode: input must have rank >= 1")
  return execute(UnicodeEncode, [x], {"output_encoding": _encoding_name(output_encoding,
                                                                        "unicode_encode"),
                                      "errors": errors,
                                      "replacement_char": as_int(replacement_char, "UnicodeTranscode", "replacement_char")})


@name_scoped
def unicode_split(input, input_encoding, errors="replace", replacement_char=65533,  # noqa: A002
                  name=None):
  """The characters of a scalar string as a 1-D string tensor."""
  cps = unicode_decode(input, input_encoding, errors, replacement_char)
  return unicode_encode(array_ops.expand_dims(cps, -1), input_encoding)


@name_scoped
def bytes_split(input, name=None):  # noqa: A002
  """The bytes of a scalar string as a 1-D string tensor.

  Raises:
    NotImplementedError: for non-scalar inputs (TF returns a RaggedTensor).
  """
  x = _strings(input, "bytes_split")
  if x.shape.rank != 0:
    raise _ragged("bytes_split", x)
  n = length(x)
  return substr(array_ops.fill(array_ops.expand_dims(n, 0), x), array_ops.range(n),
                array_ops.ones_like(array_ops.range(n)))
