"""Op-table rows of tensorlet/ops/string_ops.py against Python's bytes/str methods:
as_string, join/reduce_join, length, lower/upper, strip, split, to_number, substr,
regex match/replace, format, unicode decode/encode (eager and traced; no gradients)."""
import re

import numpy as np
from op_table import F32_64, args, case, fixed, s_

import tensorlet as tf


def _obj(fn):
  """Elementwise `fn` over an object array of bytes, keeping object dtype."""
  return lambda x: np.vectorize(fn, otypes=[object])(x) if x.size else x.astype(object)


def _utf8(*words):
  return fixed(np.array([w.encode("utf-8") for w in words], dtype=object))


_WORDS = fixed(np.array([[b"  Hello ", b"wOrLd"], [b"", b"a b  c"]], dtype=object))
_NUMS = fixed(np.array([b"1.5", b"-2", b"3e2", b"0.25"], dtype=object))

case("strings.as_string/float", lambda x: tf.strings.as_string(x, precision=3),
     _obj(lambda v: b"%.3f" % v), args([2, 3]), F32_64, grad=False)
case("strings.as_string/int", tf.strings.as_string, _obj(lambda v: b"%d" % v),
     args([4]), (np.int32, np.int64), grad=False)
case("strings.join", lambda a, b: tf.strings.join([a, b], separator="-"),
     lambda a, b: _obj(lambda v: v)(np.char.add(np.char.add(a.astype(bytes), b"-"),
                                                b.astype(bytes))).astype(object),
     args([2, 3], [2, 3]), [s_], grad=False)
case("strings.reduce_join", lambda x: tf.strings.reduce_join(x, axis=1, separator=","),
     lambda x: np.array([b",".join(r) for r in x], dtype=object), args([2, 3]), [s_],
     grad=False)
case("strings.length", tf.strings.length,
     lambda x: np.vectorize(len, otypes=[np.int32])(x), _WORDS, [s_], grad=False)
case("strings.length/utf8", lambda x: tf.strings.length(x, unit="UTF8_CHAR"),
     lambda x: np.vectorize(lambda v: len(v.decode()), otypes=[np.int32])(x),
     _utf8("h\u00e9", "\u20ac1", ""),
     [s_], grad=False)
case("strings.lower", tf.strings.lower, _obj(bytes.lower), _WORDS, [s_], grad=False)
case("strings.upper", tf.strings.upper, _obj(bytes.upper), _WORDS, [s_], grad=False)
case("strings.strip", tf.strings.strip, _obj(bytes.strip), _WORDS, [s_], grad=False)
case("strings.split", lambda x: tf.strings.split(x).flat_values,
     lambda x: np.array([w for v in x for w in v.split()], dtype=object),
     fixed(np.array([b"a b  c", b" d", b""], dtype=object)), [s_], grad=False)
case("strings.split/sep", lambda x: tf.strings.split(x, sep=b",").to_tensor(),
     lambda x: np.array([[b"a", b"", b"b"], [b"c", b"", b""]], dtype=object),
     fixed(np.array([b"a,,b", b"c"], dtype=object)), [s_], grad=False)
case("strings.to_number", tf.strings.to_number,
     lambda x: np.array([float(v) for v in x], np.float32), _NUMS, [s_], grad=False)
case("strings.to_number/float64", lambda x: tf.strings.to_number(x, tf.float64),
     lambda x: np.array([float(v) for v in x]), _NUMS, [s_], grad=False)
case("strings.substr", lambda x: tf.strings.substr(x, 1, 3),
     _obj(lambda v: v[1:4]), fixed(np.array([b"hello", b"ab", b"xyzw"], dtype=object)),
     [s_], grad=False)
case("strings.regex_full_match", lambda x: tf.strings.regex_full_match(x, r"[a-z]+\d?"),
     lambda x: np.vectorize(lambda v: re.fullmatch(rb"[a-z]+\d?", v) is not None,
                            otypes=[bool])(x),
     fixed(np.array([b"abc", b"ab1", b"A1", b"", b"x12"], dtype=object)), [s_], grad=False)
case("strings.regex_replace", lambda x: tf.strings.regex_replace(x, r"[aeiou]", "_"),
     _obj(lambda v: re.sub(rb"[aeiou]", b"_", v)), _WORDS, [s_], grad=False)
case("strings.regex_replace/first", lambda x: tf.strings.regex_replace(
    x, r"o", "0", replace_global=False), _obj(lambda v: re.sub(rb"o", b"0", v, count=1)),
    fixed(np.array([b"foo", b"bar", b"oo o"], dtype=object)), [s_], grad=False)
# NOTE: a scalar string's .numpy() is bytes (as TF), so the row reshapes it to [1].
case("strings.format", lambda x: tf.reshape(tf.strings.format("v={} w={}", (x, x)), [1]),
     lambda x: np.array([b"v=%s w=%s" % ((str(x.tolist()).replace(",", "").encode(),) * 2)],
                        dtype=object), fixed(np.array([1, 2, 3])), [np.int32], grad=False)
case("strings.unicode_decode", lambda x: tf.strings.unicode_decode(x, "UTF-8").flat_values,
     lambda x: np.array([ord(c) for v in x for c in v.decode()], np.int32),
     _utf8("h\u00e9", "\u20ac", "ab"),
     [s_], grad=False)
case("strings.unicode_encode", lambda x: tf.strings.unicode_encode(x, "UTF-8"),
     lambda x: np.array(["".join(map(chr, r)).encode()
                         for r in x], dtype=object),
     fixed(np.array([[104, 233], [8364, 97]])), [np.int32], grad=False)
