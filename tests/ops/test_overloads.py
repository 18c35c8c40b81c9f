"""Python-number mixing rules of the tensor operators, as TF 2.21 (each expected
value, dtype and exception type below was read from real TF 2.21 eagerly; the
traced column runs the same expression inside tf.function)."""
import numpy as np
import pytest

import tensorlet as tf

IAE = tf.errors.InvalidArgumentError
X = tf.zeros([2, 3])


def _shape():
  return tf.shape(X)  # int32 [2, 3]


# (expression on s = tf.shape(x) = [2, 3], expected value or exception type)
EAGER = [
    ("s * 2", lambda s: s * 2, ("int32", [4, 6])),
    ("s * 2.0", lambda s: s * 2.0, TypeError),          # a Python float never becomes int
    ("2.5 * s", lambda s: 2.5 * s, TypeError),
    ("s + 0.5", lambda s: s + 0.5, IAE),                # `+` converts with a dtype hint
    ("s + 2.0", lambda s: s + 2.0, IAE),
    ("2.0 + s", lambda s: 2.0 + s, TypeError),          # reflected: strict
    ("s + [1.5]", lambda s: s + [1.5], IAE),
    ("s + [1]", lambda s: s + [1], ("int32", [3, 4])),
    ("s / 2", lambda s: s / 2, ("float64", [1.0, 1.5])),
    ("s / 2.0", lambda s: s / 2.0, TypeError),          # "`x` and `y` must have the same dtype"
    ("s // 2", lambda s: s // 2, ("int32", [1, 1])),
    ("s ** 2", lambda s: s ** 2, ("int32", [4, 9])),
    ("s ** 0.5", lambda s: s ** 0.5, TypeError),
    ("s - 2.0", lambda s: s - 2.0, TypeError),
    ("s % 2.0", lambda s: s % 2.0, TypeError),
    ("s < 2.5", lambda s: s < 2.5, TypeError),
    ("s == 2.0", lambda s: s == 2.0, TypeError),
    ("s == 2", lambda s: s == 2, ("bool", [True, False])),
    ("s + np.float32(1.5)", lambda s: s + np.float32(1.5), ("int32", [3, 4])),  # NumPy: cast
    ("s * np.array([1.5])", lambda s: s * np.array([1.5]), ("int32", [2, 3])),
    ("s + np.int64(1)", lambda s: s + np.int64(1), ("int32", [3, 4])),
    ("s < np.float32(2.5)", lambda s: s < np.float32(2.5), ("bool", [False, False])),
    ("s + 2**40", lambda s: s + 2**40, ("int32", [2, 3])),  # Python ints wrap around
    ("s * 2**31", lambda s: s * 2**31, ("int32", [0, -2**31])),
    ("s + True", lambda s: s + True, ("int32", [3, 4])),
    ("s + None", lambda s: s + None, ValueError),
    ("None * s", lambda s: None * s, ValueError),
    ("s + 'a'", lambda s: s + "a", IAE),
    ("s + 1j", lambda s: s + 1j, IAE),
    ("s & 2.0", lambda s: s & 2.0, TypeError),
    ("s & 2", lambda s: s & 2, ("int32", [2, 2])),
    ("s + tf.shape(x, int64)", lambda s: s + tf.shape(X, out_type=tf.int64), IAE),
]


def _check(fn, expected):
  if isinstance(expected, tuple):
    r = fn()
    assert r.dtype.name == expected[0]
    assert np.asarray(r).tolist() == expected[1]
  else:
    with pytest.raises(expected) as info:
      fn()
    assert type(info.value) is expected or issubclass(type(info.value), expected)


@pytest.mark.parametrize("expr,fn,expected", EAGER, ids=[e[0] for e in EAGER])
def test_shape_result_mixing_eager(expr, fn, expected):
  _check(lambda: fn(_shape()), expected)


def test_specific_messages():
  s = _shape()
  with pytest.raises(TypeError, match="Cannot convert 2.0 to EagerTensor of dtype int32"):
    s * 2.0
  with pytest.raises(IAE, match="expected to be a int32 tensor but is a float tensor"):
    s + 0.5
  with pytest.raises(TypeError, match=r"`x` and `y` must have the same dtype, got tf.int32 != "
                     r"tf.float32"):
    s / 2.0
  with pytest.raises(ValueError, match=r"Attempt to convert a value \(None\)"):
    s - None


def test_cached_int_scalar_does_not_serve_a_float():
  # 2 == 2.0 as dict keys: the int scalar cache must not turn `t * 2.0` into `t * 2`.
  s = _shape()
  assert (s * 2).numpy().tolist() == [4, 6]
  with pytest.raises(TypeError):
    s * 2.0


def test_rank_and_size_results():
  r, n = tf.rank(X), tf.size(X)
  assert r.dtype == tf.int32 and r.shape == () and r.numpy() == 2
  assert n.dtype == tf.int32 and n.numpy() == 6
  assert type(r.numpy()) is np.int32  # a NumPy scalar, as TF's numpy() of a 0-d tensor
  assert tf.size(X, out_type=tf.int64).dtype == tf.int64
  assert (n / 2).dtype == tf.float64 and (n / 2).numpy() == 3.0
  assert (r + 1).numpy() == 3
  with pytest.raises(TypeError):
    r * 2.0
  with pytest.raises(IAE):
    n + 0.5
  with pytest.raises(TypeError):
    tf.cast(n, tf.float32) / n
  # Python-side uses: index, range, math
  assert [1, 2, 3, 4][r] == 3
  assert list(range(n)) == list(range(6))
  assert float(n) == 6.0


def test_float_tensor_takes_python_ints_and_numpy():
  t = tf.constant([3.0, 4.0])
  assert (t + 2).dtype == tf.float32
  assert (t * np.float64(2.5)).dtype == tf.float32
  assert (t + np.array([1])).numpy().tolist() == [4.0, 5.0]
  with pytest.raises(TypeError):
    1j + t


def test_traced_mixing():
  @tf.function
  def ok(x):
    s = tf.shape(x)
    return s * 2, tf.rank(x) + 1, tf.size(x) / 2, tf.cast(s, tf.float32) * 0.5

  a, b, c, d = ok(X)
  assert a.numpy().tolist() == [4, 6] and b.numpy() == 3
  assert c.dtype == tf.float64 and c.numpy() == 3.0
  assert d.numpy().tolist() == [1.0, 1.5]

  # In graphs TF raises TypeError for both (the op's input check while building).
  with pytest.raises(TypeError, match="Expected int32 passed to parameter 'y' of op 'Mul', "
                     "got 2.5 of type 'float'"):
    tf.function(lambda x: tf.shape(x) * 2.5)(X)
  with pytest.raises(TypeError, match="Input 'y' of 'AddV2' Op has type float32 that does not "
                     "match type int32 of argument 'x'"):
    tf.function(lambda x: tf.size(x) + 0.5)(X)


def test_python_int_conversion_wraps():
  assert tf.constant(-1, tf.uint8).numpy() == 255
  assert tf.convert_to_tensor(2**31, tf.int32).numpy() == -2**31
  assert (tf.constant(1, tf.int8) + 1000).numpy() == -23
  with pytest.raises(ValueError, match="out-of-range integer"):
    tf.constant(2**64)
  with pytest.raises(TypeError):
    tf.constant(True, tf.uint8)   # as TF: True converts to int32, not to uint8
  assert tf.constant(True, tf.int32).numpy() == 1


def test_float_floormod_zero_takes_the_sign_of_x():
  x = tf.constant([3.0, -3.0, 3.0, -3.0, 2.5, -2.5])
  y = tf.constant([-1.0, 1.0, 1.0, -1.0, -1.0, 1.0])
  r = (x % y).numpy()
  assert r.tolist() == [0.0, -0.0, 0.0, -0.0, -0.5, 0.5]
  assert np.signbit(r).tolist() == [False, True, False, True, True, False]  # as TF 2.21
