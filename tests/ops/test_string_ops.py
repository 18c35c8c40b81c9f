"""tf.strings: values, dtypes and shapes against Python's bytes functions; errors."""
import numpy as np
import pytest

import tensorlet as tf
from tensorlet.errors import InvalidArgumentError

S = tf.strings


def _b(t):
  return np.asarray(t).tolist()


def _check(t, expected, dtype=tf.string):
  assert t.dtype is dtype
  assert t.shape == list(np.shape(np.asarray(expected, dtype=object)))
  assert _b(t) == expected


def test_join():
  _check(S.join(["a", tf.constant(["b", "c"])], separator="-"), [b"a-b", b"a-c"])
  _check(S.join([tf.constant([["x"], ["y"]]), "1"]), [[b"x1"], [b"y1"]])
  _check(S.join(["a"]), b"a")


def test_add_on_strings():
  assert (tf.constant("a") + tf.constant("a")).numpy() == b"aa"


def test_length():
  _check(S.length(["ab", "", "héllo"]), [2, 0, 6], tf.int32)
  _check(S.length(["ab", "", "héllo"], unit="UTF8_CHAR"), [2, 0, 5], tf.int32)
  _check(S.length("abc"), 3, tf.int32)


def test_upper_lower_strip():
  _check(S.upper(["abé", "Q1"]), ["abé".encode()[:2].upper() + "é".encode(), b"Q1"])
  _check(S.upper("abé", encoding="utf-8"), "ABÉ".encode())
  _check(S.lower([["AbC"]]), [[b"abc"]])
  _check(S.strip(["  x y \n", "\tz"]), [b"x y", b"z"])


def test_substr():
  _check(S.substr("hello", 1, 3), b"ell")
  _check(S.substr(["hello", "world"], [0, -2], [2, 5]), [b"he", b"ld"])
  _check(S.substr("hello", 2, 100), b"llo")
  _check(S.substr("héllo", 1, 2, unit="UTF8_CHAR"), "él".encode())
  _check(S.substr(["ab", "cd"], 1, 1), [b"b", b"d"])


def test_split_scalar():
  _check(S.split("a b  c"), [b"a", b"b", b"c"])
  _check(S.split("a,,b", ","), [b"a", b"", b"b"])
  _check(S.split("a,b,c", ",", maxsplit=1), [b"a", b"b,c"])
  _check(S.split("a<>b", "<>"), [b"a", b"b"])


def test_to_number():
  t = S.to_number(["1.5", "-2", " 3e2 ", "inf"])
  assert t.dtype is tf.float32
  np.testing.assert_array_equal(t.numpy(), np.array([1.5, -2, 300, np.inf], np.float32))
  _check(S.to_number(["12", "-7"], tf.int64), [12, -7], tf.int64)
  assert S.to_number("0.25", out_type=tf.float64).numpy() == 0.25


def test_as_string():
  _check(S.as_string([1.5, 2.0]), [b"1.500000", b"2.000000"])
  _check(S.as_string([1.5, 2.0], precision=2), [b"1.50", b"2.00"])
  _check(S.as_string([3, 42], width=4, fill="0"), [b"0003", b"0042"])
  _check(S.as_string([3], width=3), [b"  3"])
  _check(S.as_string([True, False]), [b"true", b"false"])
  _check(S.as_string(1.5e10, scientific=True), b"1.500000e+10")
  _check(S.as_string(0.1, shortest=True), b"0.1")
  _check(S.as_string(tf.constant([1 + 2j], tf.complex64), precision=1), [b"(1.0,2.0)"])


def test_reduce_join():
  x = [["a", "b"], ["c", "d"]]
  _check(S.reduce_join(x), b"abcd")
  _check(S.reduce_join(x, axis=1, separator=","), [b"a,b", b"c,d"])
  _check(S.reduce_join(x, axis=0), [b"ac", b"bd"])
  _check(S.reduce_join(x, axis=-1, keepdims=True), [[b"ab"], [b"cd"]])
  _check(S.reduce_join(x, axis=[0, 1], separator="."), b"a.b.c.d")


def test_regex_full_match():
  t = S.regex_full_match(["ab1", "abc", "ab12"], r"ab\d")
  assert t.dtype is tf.bool and t.numpy().tolist() == [True, False, False]
  assert S.regex_full_match("aaa", "a+").numpy()


def test_regex_replace():
  _check(S.regex_replace("a1b22", r"\d+", "#"), b"a#b#")
  _check(S.regex_replace("a1b22", r"(\d+)", r"<\1>", replace_global=False), b"a<1>b22")
  _check(S.regex_replace(["ab", "b"], "b", r"\0\0"), [b"abb", b"bb"])
  _check(S.regex_replace("a.b", r"\.", r"\\"), b"a\\b")


def test_format():
  _check(S.format("x={} y={}", [1, tf.constant([1.5, 2.0])]), b"x=1 y=[1.5 2]")
  _check(S.format("{}", tf.range(10)), b"[0 1 2 ... 7 8 9]")
  _check(S.format("{}", tf.range(10), summarize=-1), b"[0 1 2 3 4 5 6 7 8 9]")
  _check(S.format("v: %", [tf.constant("s")], placeholder="%"), b"v: s")
  _check(S.format("no inputs", []), b"no inputs")


def test_unicode_and_bytes_split():
  _check(S.unicode_decode("héllo", "UTF-8"), [104, 233, 108, 108, 111], tf.int32)
  _check(S.unicode_encode([104, 105], "UTF-8"), b"hi")
  _check(S.unicode_encode([[104, 105], [233, 33]], "UTF-8"), [b"hi", "é!".encode()])
  _check(S.unicode_split("hé", "UTF-8"), [b"h", "é".encode()])
  _check(S.bytes_split("abc"), [b"a", b"b", b"c"])
  _check(S.unicode_decode(b"a\xffb", "UTF-8"), [97, 0xFFFD, 98], tf.int32)


def test_string_ops_in_function():
  @tf.function
  def f(x):
    return S.join([S.upper(x), S.as_string(S.length(x))], separator=":")

  _check(f(tf.constant(["ab", "d"])), [b"AB:2", b"D:1"])
  _check(f(tf.constant(["xyz"])), [b"XYZ:3"])


# --------------------------------------------------------------- errors

def test_to_number_bad_string():
  with pytest.raises(InvalidArgumentError,
                     match="StringToNumberOp could not correctly convert string: abc"):
    S.to_number(["1", "abc"])
  for bad, dt in [("1.5", tf.int32), ("1_0", tf.float32), ("99999999999", tf.int32), ("", tf.int64)]:
    with pytest.raises(InvalidArgumentError):
      S.to_number(bad, dt)


def test_to_number_bad_out_type():
  with pytest.raises(TypeError):
    S.to_number("1", out_type=tf.bool)


def test_non_string_input():
  with pytest.raises(TypeError, match="string"):
    S.length([1, 2])
  with pytest.raises(InvalidArgumentError, match="StringJoin"):
    S.join([tf.constant(["a", "b"]), tf.constant(["a", "b", "c"])])


def test_substr_out_of_range():
  with pytest.raises(InvalidArgumentError, match="pos 5 out of range.*Substr"):
    S.substr("abc", 5, 1)
  with pytest.raises(InvalidArgumentError, match="out of range"):
    S.substr(["abc", "a"], -2, 1)


def test_split_non_scalar_is_ragged():
  assert S.split(["a b", "c"]).to_list() == [[b"a", b"b"], [b"c"]]
  assert S.unicode_decode(["ab"], "UTF-8").to_list() == [[97, 98]]
  assert S.bytes_split(["ab"]).to_list() == [[b"a", b"b"]]


def test_as_string_bad_options():
  with pytest.raises(InvalidArgumentError, match="both scientific and shortest"):
    S.as_string(1.0, scientific=True, shortest=True)
  with pytest.raises(InvalidArgumentError, match="precision not supported"):
    S.as_string(1, precision=2)
  with pytest.raises(InvalidArgumentError, match="one or fewer"):
    S.as_string(1, fill="ab")
  with pytest.raises(InvalidArgumentError, match="AsString"):
    S.as_string("text")


def test_regex_errors():
  with pytest.raises(InvalidArgumentError, match="Invalid pattern"):
    S.regex_full_match("a", "(")
  with pytest.raises(InvalidArgumentError, match="Rewrite schema requests 2"):
    S.regex_replace("a", "(a)", r"\2")
  with pytest.raises(InvalidArgumentError, match="Invalid rewrite"):
    S.regex_replace("a", "a", r"\n")


def test_format_placeholder_count():
  with pytest.raises(InvalidArgumentError, match="num placeholders in template and num inputs "
                     "must match: 2 vs. 1"):
    S.format("{} {}", [1])


def test_bad_unit_and_axis():
  with pytest.raises(ValueError, match="unit"):
    S.length("a", unit="CHAR")
  with pytest.raises(InvalidArgumentError):
    S.reduce_join([["a"]], axis=2)
  with pytest.raises(InvalidArgumentError, match="Invalid code point"):
    S.unicode_encode([0x110000], "UTF-8", errors="strict")
