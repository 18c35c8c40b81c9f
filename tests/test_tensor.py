"""tf.Tensor semantics: dtype inference, printing, NumPy interop, Python
operators, Python protocols, TensorShape/TensorSpec/DType, tf.nest,
tf.debugging and tf.print."""
import collections
import copy
import pickle
import sys

import numpy as np
import pytest

import tensorlet as tf

IAE = tf.errors.InvalidArgumentError


# ------------------------------------------------------------ dtype inference

@pytest.mark.parametrize("value,dtype", [
    (1, tf.int32), (-7, tf.int32), (2**31 - 1, tf.int32), (2**31, tf.int64), (-2**31 - 1, tf.int64),
    ([1, 2**40], tf.int64), (1.5, tf.float32), ([1, 2.5], tf.float32), (True, tf.bool),
    ([True, False], tf.bool), ("a", tf.string), (b"a", tf.string), (["a", b"b"], tf.string),
    (1 + 2j, tf.complex128), ([1, 1j], tf.complex128), ([], tf.float32), ([[], []], tf.float32),
    (np.float64(1.0), tf.float64), (np.array([1, 2], np.int64), tf.int64),
    (np.array([1.0], np.float16), tf.float16), (np.uint8(3), tf.uint8), (np.bool_(True), tf.bool),
    (np.array(["a"]), tf.string), (np.array([1 + 1j], np.complex64), tf.complex64),
    (np.array([1], np.uint16), tf.uint16), (np.int8(-1), tf.int8),
])
def test_dtype_inference(value, dtype):
  t = tf.constant(value)
  assert t.dtype == dtype
  assert tf.convert_to_tensor(value).dtype == dtype
  assert t.shape == np.shape(value) or isinstance(value, (str, bytes))


def test_constant_with_dtype_and_shape():
  assert tf.constant(1, tf.float64).dtype == tf.float64
  assert tf.constant([1, 2], dtype="int64").dtype == tf.int64
  assert tf.constant(np.array([1.5, 2.5]), tf.float32).numpy().tolist() == [1.5, 2.5]
  t = tf.constant(7.0, shape=[2, 3])
  assert t.shape == (2, 3) and np.all(t.numpy() == 7)
  t = tf.constant([1, 2, 3, 4], shape=[2, 2])
  assert t.numpy().tolist() == [[1, 2], [3, 4]]
  t = tf.constant(tf.constant([1, 2]), dtype=tf.float32)
  assert t.dtype == tf.float32
  with pytest.raises(TypeError):
    tf.constant(1.5, tf.int32)
  # TF 2.21: Python ints wrap around to the dtype; past 64 bits is a ValueError.
  assert tf.constant(-1, tf.uint8).numpy() == 255
  assert tf.constant(300, tf.int8).numpy() == 44
  assert tf.constant([1, 2**40], tf.int32).numpy().tolist() == [1, 0]
  with pytest.raises(ValueError):
    tf.constant(2**64, tf.int64)


def test_convert_to_tensor():
  t = tf.constant([1.0])
  assert tf.convert_to_tensor(t) is t
  assert tf.convert_to_tensor(1, dtype_hint=tf.float32).dtype == tf.float32
  assert tf.convert_to_tensor(1.5, dtype_hint=tf.int32).dtype == tf.float32
  assert tf.convert_to_tensor([tf.constant(1.0), 2.0]).numpy().tolist() == [1.0, 2.0]
  assert tf.convert_to_tensor(np.array([1, 2], np.int64), tf.int64).dtype == tf.int64
  with pytest.raises(ValueError, match="requested dtype float32"):
    tf.convert_to_tensor(tf.constant(1), tf.float32)


def test_strings():
  s = tf.constant("a") + tf.constant("a")
  assert s.dtype == tf.string and s.numpy() == b"aa"
  assert (tf.constant("a") + "b").numpy() == b"ab"
  assert ("x" + tf.constant("y")).numpy() == b"xy"
  assert tf.constant("héllo").numpy() == "héllo".encode()
  v = tf.constant(["ab", "c"])
  assert v.numpy().tolist() == [b"ab", b"c"]
  assert isinstance(tf.constant("a").numpy(), bytes)
  assert (tf.constant(["a", "b"]) == "a").numpy().tolist() == [True, False]


# ------------------------------------------------------------------ printing

def test_str_and_repr_match_tf():
  assert str(tf.constant([4, 1])) == "tf.Tensor([4 1], shape=(2,), dtype=int32)"
  assert repr(tf.constant(1.0)) == "<tf.Tensor: shape=(), dtype=float32, numpy=1.0>"
  assert str(tf.constant(1.0)) == "tf.Tensor(1.0, shape=(), dtype=float32)"
  assert repr(tf.constant([1, 2])) == \
      "<tf.Tensor: shape=(2,), dtype=int32, numpy=array([1, 2], dtype=int32)>"
  assert repr(tf.constant([1.0, 2.0])) == \
      "<tf.Tensor: shape=(2,), dtype=float32, numpy=array([1., 2.], dtype=float32)>"
  assert repr(tf.constant([1.0], tf.float64)) == \
      "<tf.Tensor: shape=(1,), dtype=float64, numpy=array([1.])>"
  assert str(tf.constant([True, False])) == "tf.Tensor([ True False], shape=(2,), dtype=bool)"
  assert str(tf.constant("a")) == "tf.Tensor(b'a', shape=(), dtype=string)"
  assert repr(tf.constant("a")) == "<tf.Tensor: shape=(), dtype=string, numpy=b'a'>"
  assert str(tf.constant(["a", "b"])) == "tf.Tensor([b'a' b'b'], shape=(2,), dtype=string)"
  assert repr(tf.constant(["a"])) == \
      "<tf.Tensor: shape=(1,), dtype=string, numpy=array([b'a'], dtype=object)>"
  assert repr(tf.constant(3)) == "<tf.Tensor: shape=(), dtype=int32, numpy=3>"
  assert repr(tf.constant(True)) == "<tf.Tensor: shape=(), dtype=bool, numpy=True>"
  assert str(tf.zeros([0])) == "tf.Tensor([], shape=(0,), dtype=float32)"


def test_multiline_2d():
  t = tf.constant([[1, 2], [3, 4]])
  assert str(t) == "tf.Tensor(\n[[1 2]\n [3 4]], shape=(2, 2), dtype=int32)"
  assert repr(t) == ("<tf.Tensor: shape=(2, 2), dtype=int32, numpy=\n"
                     "array([[1, 2],\n       [3, 4]], dtype=int32)>")
  f = tf.constant([[1.0, 2.5], [3.0, 4.0]])
  assert str(f) == "tf.Tensor(\n[[1.  2.5]\n [3.  4. ]], shape=(2, 2), dtype=float32)"


def test_print_builtin(capsys):
  print(tf.constant([4, 1]))
  assert capsys.readouterr().out == "tf.Tensor([4 1], shape=(2,), dtype=int32)\n"


def test_large_tensor_is_summarized():
  s = str(tf.range(2000))
  assert "..." in s and s.endswith("shape=(2000,), dtype=int32)")


def test_format():
  assert "{}".format(tf.constant([1, 2])) == "[1 2]"
  assert "{:.3f}".format(tf.constant(1.0)) == "1.000"
  assert f"{tf.constant(3)}" == "3"
  assert f"{tf.constant(2.5, tf.float64):>6}" == "   2.5"
  assert "{}".format(tf.constant("a")) == "b'a'"
  assert "{:d}".format(tf.constant(7)) == "7"


# ------------------------------------------------------------- NumPy interop

def test_numpy_interop():
  a, b = tf.constant([1, 2]), tf.constant([3, 4])
  r = np.multiply(a, b)
  assert isinstance(r, np.ndarray) and r.tolist() == [3, 8]
  assert np.asarray(a).dtype == np.int32
  assert np.array(a, dtype=np.float64).dtype == np.float64
  assert a.__array__().tolist() == [1, 2]
  assert np.sum(a) == 3
  assert isinstance(tf.constant(1.0).numpy(), np.float32)
  assert isinstance(tf.constant([1.0]).numpy(), np.ndarray)
  np.testing.assert_array_equal(np.concatenate([a, b]), [1, 2, 3, 4])


def test_numpy_on_the_left():
  for r in (np.array([1, 2], np.int32) + tf.constant([1, 2]),
            np.array([1, 2], np.int32) * tf.constant([1, 2])):
    assert isinstance(r, tf.Tensor)
  r = np.array([[1.0, 2.0]], np.float32) @ tf.constant([[1.0], [1.0]])
  assert isinstance(r, tf.Tensor) and r.numpy().tolist() == [[3.0]]
  r = np.float64(2.0) - tf.constant(1.0)
  assert isinstance(r, tf.Tensor) and r.dtype == tf.float32
  r = tf.constant([1.0]) * np.float64(2.0)  # NumPy scalars take the tensor's dtype
  assert r.dtype == tf.float32 and r.numpy().tolist() == [2.0]
  r = tf.constant([1.0]) + np.array([1, 2])
  assert r.dtype == tf.float32 and r.numpy().tolist() == [2.0, 3.0]


# ------------------------------------------------------------ operators

def test_arithmetic_operators():
  a, b = tf.constant([7, -7]), tf.constant([2, 2])
  assert (a + b).numpy().tolist() == [9, -5]
  assert (a - 1).numpy().tolist() == [6, -8]
  assert (2 * a).dtype == tf.int32
  assert (a // b).numpy().tolist() == [3, -4]
  assert (a % b).numpy().tolist() == [1, 1]
  assert (a % -3).numpy().tolist() == [-2, -1]
  assert (b ** 3).numpy().tolist() == [8, 8]
  assert (2 ** b).numpy().tolist() == [4, 4]
  assert (-a).numpy().tolist() == [-7, 7]
  assert (+a).numpy().tolist() == [7, -7]
  assert abs(a).numpy().tolist() == [7, 7]
  x = tf.constant([1.5, -2.0])
  assert (x // 1).numpy().tolist() == [1.0, -2.0]
  assert (x % 1).numpy().tolist() == [0.5, 0.0]
  assert (x ** 2).numpy().tolist() == [2.25, 4.0]
  assert (x * 2).dtype == tf.float32 and (x + 1).dtype == tf.float32
  assert (tf.constant(2, tf.int64) * 3).dtype == tf.int64
  assert (tf.constant(2.0, tf.float16) + 1.5).dtype == tf.float16


def test_truediv_on_ints_is_float64_like_tf():
  r = tf.constant(3) / tf.constant(2)
  assert r.dtype == tf.float64 and r.numpy() == 1.5
  assert (tf.constant(3) / 2).dtype == tf.float64
  assert (3 / tf.constant(2)).numpy() == 1.5
  assert (tf.constant(3, tf.int64) / 2).dtype == tf.float64
  assert (tf.constant(3, tf.int16) / tf.constant(2, tf.int16)).dtype == tf.float32
  assert (tf.constant(3, tf.uint8) / tf.constant(2, tf.uint8)).dtype == tf.float32
  assert (tf.constant(3.0) / 2).dtype == tf.float32
  assert (tf.constant([1.0]) / 0).numpy()[0] == np.inf


def test_no_implicit_promotion():
  with pytest.raises(TypeError, match="Cannot convert 1.5 to EagerTensor of dtype int32"):
    tf.constant(1) * 1.5
  with pytest.raises(IAE, match="expected to be a int32 tensor but is a float tensor"):
    tf.constant(1) + tf.constant(1.5)
  with pytest.raises(IAE, match="expected to be a float tensor but is a double tensor"):
    tf.constant(1.0) + tf.constant(1.0, tf.float64)
  assert (tf.constant(1, tf.uint8) + 300).numpy() == 45  # TF 2.21 wraps Python ints


def test_matmul_operator():
  a = tf.constant([[1, 2]])
  assert (a @ tf.constant([[1], [2]])).numpy().tolist() == [[5]]
  assert ([[1, 2]] @ tf.constant([[1], [2]])).numpy().tolist() == [[5]]


def test_comparison_operators():
  a = tf.constant([1, 2, 3])
  assert (a < 2).numpy().tolist() == [True, False, False]
  assert (a <= 2).numpy().tolist() == [True, True, False]
  assert (a > 2).numpy().tolist() == [False, False, True]
  assert (a >= 2).numpy().tolist() == [False, True, True]
  assert (2 < a).numpy().tolist() == [False, False, True]
  assert (a < 2).dtype == tf.bool


def test_equality_is_elementwise():
  a = tf.constant([1, 2])
  r = a == tf.constant([1, 3])
  assert isinstance(r, tf.Tensor) and r.numpy().tolist() == [True, False]
  assert (a != tf.constant([1, 3])).numpy().tolist() == [False, True]
  assert (a == 1).numpy().tolist() == [True, False]
  assert (1 == a).numpy().tolist() == [True, False]
  r = a == tf.constant([1, 2, 3])  # incompatible shapes: a scalar False, no error
  assert r.shape == () and not bool(r)
  assert bool(a != tf.constant([1, 2, 3]))
  assert (a == None) is False  # noqa: E711
  assert (a != None) is True  # noqa: E711
  assert a.__eq__(None) is False
  x = tf.constant(1.0)
  assert bool(x == x) and bool(x == 1.0)
  with pytest.raises(IAE):
    tf.constant(1) == tf.constant(1.0)  # noqa: B015 - TF raises here too


def test_bitwise_and_logical_operators():
  t, f = tf.constant([True, True]), tf.constant([True, False])
  assert (t & f).numpy().tolist() == [True, False]
  assert (t | f).numpy().tolist() == [True, True]
  assert (t ^ f).numpy().tolist() == [False, True]
  assert (~f).numpy().tolist() == [False, True]
  assert (f & True).numpy().tolist() == [True, False]
  assert (True & f).numpy().tolist() == [True, False]
  a, b = tf.constant([12, 10]), tf.constant([10, 6])
  assert (a & b).numpy().tolist() == [8, 2]
  assert (a | b).numpy().tolist() == [14, 14]
  assert (a ^ b).numpy().tolist() == [6, 12]
  assert (~a).numpy().tolist() == [-13, -11]
  assert (~tf.constant([0], tf.uint8)).numpy().tolist() == [255]
  with pytest.raises(IAE):
    tf.constant([1.0]) & tf.constant([1.0])


def test_indexing():
  x = tf.reshape(tf.range(24), [2, 3, 4])
  n = np.arange(24).reshape(2, 3, 4)
  for key in [0, -1, (1, 2), (slice(None), 1), (Ellipsis, 2), (None, 0), (0, None, 1),
              (slice(None, None, -1),), (0, slice(3, 0, -2)), (Ellipsis, tf.newaxis),
              (slice(1, None), Ellipsis, slice(None, 2))]:
    np.testing.assert_array_equal(x[key].numpy(), n[key])
  assert x[tf.constant(1), 0, 0].numpy() == 12
  assert x[1, 0, 0].shape == ()


def test_indexing_with_traced_indices():
  x = tf.reshape(tf.range(12.0), [3, 4])
  assert tf.function(lambda x, i: x[i])(x, tf.constant(1)).numpy().tolist() == [4, 5, 6, 7]
  r = tf.function(lambda x, i, j: x[i:j, ::-1])(x, tf.constant(0), tf.constant(2))
  np.testing.assert_array_equal(r.numpy(), np.arange(12.0).reshape(3, 4)[0:2, ::-1])
  assert tf.function(lambda x, i: x[..., i])(x, tf.constant(-1)).numpy().tolist() == [3, 7, 11]
  sig = [tf.TensorSpec([None, None]), tf.TensorSpec([], tf.int32)]
  assert tf.function(lambda x, i: x[i, 1:], input_signature=sig)(
      x, tf.constant(2)).numpy().tolist() == [9, 10, 11]

  @tf.function
  def grad(x, i):
    with tf.GradientTape() as tape:
      tape.watch(x)
      y = tf.reduce_sum(x[i:, 1] * 2.0)
    return tape.gradient(y, x)
  np.testing.assert_array_equal(grad(x, tf.constant(1)).numpy(),
                                [[0, 0, 0, 0], [0, 2, 0, 0], [0, 2, 0, 0]])
  with pytest.raises(IAE, match="slice index 5 of dimension 0 out of bounds"):
    tf.function(lambda x, i: x[i])(x, tf.constant(5))


# ------------------------------------------------------- Python protocols

def test_unhashable_and_ref():
  t = tf.constant(1)
  with pytest.raises(TypeError, match="Tensor is unhashable. Instead, use tensor.ref"):
    hash(t)
  with pytest.raises(TypeError):
    {t: 1}  # noqa: B018
  d = {t.ref(): "x"}
  assert d[t.ref()] == "x"
  assert t.ref().deref() is t
  assert t.ref() == t.ref() and t.ref() != tf.constant(1).ref()
  assert t.experimental_ref().deref() is t


def test_len_iter_bool_int_float():
  t = tf.constant([[1, 2], [3, 4], [5, 6]])
  assert len(t) == 3
  rows = list(t)
  assert len(rows) == 3 and all(isinstance(r, tf.Tensor) for r in rows)
  assert rows[1].numpy().tolist() == [3, 4]
  a, b = tf.constant([1, 2])
  assert int(a) == 1 and int(b) == 2
  with pytest.raises(TypeError, match="Scalar tensor has no `len\\(\\)`"):
    len(tf.constant(1))
  with pytest.raises(TypeError, match="Cannot iterate over a scalar tensor"):
    iter(tf.constant(1))
  assert bool(tf.constant(1)) and not bool(tf.constant(0.0)) and not bool(tf.constant(False))
  with pytest.raises(ValueError, match="truth value of an array with more than one element"):
    bool(tf.constant([1, 2]))
  assert int(tf.constant(3)) == 3 and int(tf.constant(2.7)) == 2
  assert float(tf.constant(2.5)) == 2.5 and float(tf.constant(2)) == 2.0
  assert complex(tf.constant(1 + 2j)) == 1 + 2j
  assert list(range(tf.constant(3))) == [0, 1, 2]
  assert [10, 20, 30][tf.constant(1)] == 20
  with pytest.raises(TypeError):
    [1, 2][tf.constant(1.0)]  # noqa: B018
  assert 2 in tf.constant([1, 2])


def test_attributes():
  t = tf.constant([[1.0, 2.0, 3.0]])
  assert t.shape == tf.TensorShape([1, 3]) and t.shape == (1, 3) and t.shape == [1, 3]
  assert t.get_shape() == t.shape
  assert t.ndim == 2 and tf.constant(1).ndim == 0
  assert t.dtype == tf.float32 and t.dtype is tf.float32
  assert t.device.endswith("CPU:0")
  assert isinstance(t, tf.Tensor)
  assert t.shape.as_list() == [1, 3] and t.shape.rank == 2
  with pytest.raises(AttributeError):
    t.name  # noqa: B018 - undefined in eager mode, as in TF
  with pytest.raises(AttributeError):
    t.op  # noqa: B018


def test_copy_and_pickle():
  t = tf.constant([1.0, 2.0])
  assert copy.copy(t) is t
  d = copy.deepcopy(t)
  assert d is not t and d.numpy().tolist() == [1.0, 2.0] and d.dtype == tf.float32
  for v in (t, tf.constant("s"), tf.constant(3, tf.int64), tf.constant([[True]])):
    r = pickle.loads(pickle.dumps(v))
    assert r.dtype == v.dtype and r.shape == v.shape
    np.testing.assert_array_equal(r.numpy(), v.numpy())


# ------------------------------------------------------------- TensorShape

def test_tensor_shape_str_repr():
  assert str(tf.TensorShape([None, 3])) == "(None, 3)"
  assert repr(tf.TensorShape([None, 3])) == "TensorShape([None, 3])"
  assert str(tf.TensorShape([2])) == "(2,)"
  assert str(tf.TensorShape([])) == "()"
  assert repr(tf.TensorShape([])) == "TensorShape([])"
  assert str(tf.TensorShape(None)) == "<unknown>"
  assert repr(tf.TensorShape(None)) == "TensorShape(None)"


def test_tensor_shape_behaviour():
  s = tf.TensorShape([2, None, 3])
  assert s.rank == 3 and s.ndims == 3 and len(s) == 3
  assert s[0] == 2 and s[1] is None and s[-1] == 3
  assert s[1:] == tf.TensorShape([None, 3])
  assert s.as_list() == [2, None, 3] and s.dims == [2, None, 3]
  assert list(s) == [2, None, 3]
  assert not s.is_fully_defined() and s.num_elements() is None
  assert tf.TensorShape([2, 3]).num_elements() == 6
  assert tf.TensorShape([]).num_elements() == 1
  assert tf.TensorShape(None).rank is None
  with pytest.raises(ValueError):
    tf.TensorShape(None).as_list()
  with pytest.raises(ValueError):
    len(tf.TensorShape(None))
  assert tf.TensorShape([2, 3]) == [2, 3] and tf.TensorShape([2, 3]) != [3, 2]
  assert tf.TensorShape([None]) == tf.TensorShape([None])
  assert hash(tf.TensorShape([1, 2])) == hash(tf.TensorShape([1, 2]))
  assert tf.TensorShape([2]).concatenate([3, None]) == tf.TensorShape([2, 3, None])
  assert tf.TensorShape(5) == tf.TensorShape([5])
  assert tf.TensorShape(tf.TensorShape([1])) == [1]
  assert tf.TensorShape([1, 2]).with_rank(2) == [1, 2]
  with pytest.raises(ValueError):
    tf.TensorShape([1, 2]).with_rank(3)
  with pytest.raises(ValueError):
    tf.TensorShape([None]).assert_is_fully_defined()


def test_tensor_shape_compatibility_and_merge():
  s = tf.TensorShape([None, 3])
  assert s.is_compatible_with([2, 3]) and s.is_compatible_with(tf.TensorShape(None))
  assert not s.is_compatible_with([2, 4]) and not s.is_compatible_with([3])
  assert tf.TensorShape(None).is_compatible_with([1, 2, 3])
  assert s.merge_with([2, None]) == tf.TensorShape([2, 3])
  assert tf.TensorShape(None).merge_with(s) == s
  with pytest.raises(ValueError, match=r"Shapes \(None, 3\) and \(2, 4\) are not compatible"):
    s.merge_with([2, 4])
  with pytest.raises(ValueError, match="are incompatible"):
    s.assert_is_compatible_with([1])
  assert tf.TensorShape([1, 2]).most_specific_compatible_shape([1, 3]) == \
      tf.TensorShape([1, None])
  assert tf.TensorShape([1, 2]).most_specific_compatible_shape([1]) == tf.TensorShape(None)


def test_tensor_set_shape():
  t = tf.constant([[1, 2]])
  t.set_shape([None, 2])
  with pytest.raises(ValueError, match="not compatible"):
    t.set_shape([2, 2])


# --------------------------------------------------------------- TensorSpec

def test_tensor_spec():
  s = tf.TensorSpec([None, 3], tf.float32)
  assert repr(s) == "TensorSpec(shape=(None, 3), dtype=tf.float32, name=None)"
  assert repr(tf.TensorSpec([], tf.int32, name="x")) == \
      "TensorSpec(shape=(), dtype=tf.int32, name='x')"
  assert s.shape == tf.TensorShape([None, 3]) and s.dtype == tf.float32 and s.name is None
  assert s.is_compatible_with(tf.ones([5, 3]))
  assert not s.is_compatible_with(tf.ones([5, 2]))
  assert not s.is_compatible_with(tf.ones([5, 3], tf.float64))
  assert s.is_compatible_with(tf.TensorSpec([2, 3]))
  assert tf.TensorSpec([2, 3]).is_subtype_of(s) and not s.is_subtype_of(tf.TensorSpec([2, 3]))
  assert tf.TensorSpec.from_tensor(tf.constant([1, 2])) == tf.TensorSpec([2], tf.int32)
  assert s == tf.TensorSpec([None, 3]) and s != tf.TensorSpec([None, 3], tf.int32)
  assert hash(s) == hash(tf.TensorSpec([None, 3]))
  assert tf.TensorSpec([1, 2]).most_specific_common_supertype([tf.TensorSpec([1, 3])]) == \
      tf.TensorSpec([1, None])
  assert tf.TensorSpec(None).shape.rank is None


# ------------------------------------------------------------------- dtypes

def test_dtype_properties():
  assert tf.float32.is_floating and not tf.float32.is_integer
  assert tf.int32.is_integer and not tf.int32.is_unsigned and tf.uint8.is_unsigned
  assert tf.complex64.is_complex and tf.complex64.real_dtype == tf.float32
  assert tf.complex128.real_dtype == tf.float64 and tf.float32.real_dtype == tf.float32
  assert tf.bool.is_bool and not tf.string.is_numeric and tf.int8.is_numeric
  assert tf.int32.max == 2**31 - 1 and tf.int32.min == -2**31
  assert tf.uint8.max == 255 and tf.int8.min == -128
  assert tf.float16.max == 65504.0 and tf.float32.min == -np.finfo(np.float32).max
  assert tf.float64.size == 8 and tf.int16.size == 2
  assert tf.float32.as_numpy_dtype is np.float32
  assert tf.float32.name == "float32" and tf.string.name == "string"
  assert repr(tf.float32) == "tf.float32" and str(tf.float32) == "<dtype: 'float32'>"
  assert tf.float32.base_dtype is tf.float32
  assert tf.half is tf.float16 and tf.double is tf.float64


def test_as_dtype_and_equality():
  assert tf.as_dtype("float32") is tf.float32
  assert tf.as_dtype(np.float64) is tf.float64
  assert tf.as_dtype(np.dtype("int16")) is tf.int16
  assert tf.as_dtype(float) is tf.float32 and tf.as_dtype(int) is tf.int32
  assert tf.as_dtype(bool) is tf.bool and tf.as_dtype(str) is tf.string
  assert tf.as_dtype(tf.int64) is tf.int64
  assert tf.float32 == np.float32 and tf.float32 == "float32" and tf.float32 != tf.float64
  assert tf.float32 != None  # noqa: E711
  assert tf.dtypes.float32 is tf.float32 and tf.dtypes.as_dtype("bool") is tf.bool
  assert len({tf.float32, tf.as_dtype("float32")}) == 1
  assert pickle.loads(pickle.dumps(tf.int64)) is tf.int64
  with pytest.raises(TypeError, match="Cannot convert value 'nope' to a TensorFlow DType"):
    tf.as_dtype("nope")
  with pytest.raises(TypeError):
    tf.string.max  # noqa: B018


# ------------------------------------------------------------------ tf.nest

def test_nest():
  s = {"b": 1, "a": [2, (3, 4)]}
  assert tf.nest.flatten(s) == [2, 3, 4, 1]
  assert tf.nest.flatten(None) == [None] and tf.nest.flatten(5) == [5]
  assert tf.nest.pack_sequence_as(s, [10, 20, 30, 40]) == {"b": 40, "a": [10, (20, 30)]}
  assert tf.nest.map_structure(lambda x: x * 2, s) == {"b": 2, "a": [4, (6, 8)]}
  assert tf.nest.map_structure(lambda x, y: x + y, [1, (2,)], [3, (4,)]) == [4, (6,)]
  assert tf.nest.is_nested([1]) and tf.nest.is_nested({}) and not tf.nest.is_nested("ab")
  assert not tf.nest.is_nested(tf.constant([1, 2]))
  P = collections.namedtuple("P", ["x", "y"])
  p = tf.nest.map_structure(lambda v: v + 1, P(1, [2]))
  assert isinstance(p, P) and p == P(2, [3])
  t = tf.constant(1)
  assert tf.nest.flatten([t, {"k": t}])[1] is t
  tf.nest.assert_same_structure([1, (2, 3)], [4, (5, 6)])
  with pytest.raises(ValueError):
    tf.nest.assert_same_structure([1, 2], [1, 2, 3])
  with pytest.raises(TypeError):
    tf.nest.assert_same_structure([1, 2], (1, 2))
  with pytest.raises(ValueError):
    tf.nest.assert_same_structure({"a": 1}, {"b": 1})
  with pytest.raises(ValueError, match="Could not pack sequence"):
    tf.nest.pack_sequence_as([1, 2], [1])
  assert tf.nest.map_structure(lambda v: v, [1, (2,)], check_types=False) == [1, (2,)]
  assert tf.nest.flatten_with_paths({"a": [1, 2]}) == [(("a", 0), 1), (("a", 1), 2)]


# ---------------------------------------------------------------- debugging

def test_debugging_asserts_pass_quietly():
  one, two = tf.constant(1), tf.constant(2)
  tf.debugging.assert_equal(one, one)
  tf.debugging.assert_less(one, two)
  tf.debugging.assert_less_equal(one, one)
  tf.debugging.assert_greater(two, one)
  tf.debugging.assert_greater_equal(two, two)
  tf.debugging.assert_none_equal(one, two)
  tf.debugging.assert_positive(two)
  tf.debugging.assert_non_negative(tf.constant(0))
  tf.debugging.assert_negative(tf.constant(-1.0))
  tf.debugging.assert_non_positive(tf.constant(0.0))
  tf.debugging.assert_near(tf.constant(1.0), tf.constant(1.0 + 1e-7))
  tf.debugging.assert_rank(tf.ones([2, 3]), 2)
  tf.debugging.assert_type(one, tf.int32)
  tf.debugging.assert_shapes([(tf.ones([2, 3]), ("N", 3)), (tf.ones([2]), ("N",))])
  tf.debugging.Assert(True, ["never shown"])
  x = tf.constant([1.0, 2.0])
  assert tf.debugging.check_numerics(x, "ok").numpy().tolist() == [1.0, 2.0]


@pytest.mark.parametrize("call,exc,pattern", [
    (lambda: tf.debugging.assert_equal(tf.constant([1, 2]), tf.constant([1, 3])), IAE,
     "Condition x == y did not hold"),
    (lambda: tf.debugging.assert_equal(tf.constant(1), tf.constant(2), message="custom"), IAE,
     "custom"),
    (lambda: tf.debugging.assert_less(tf.constant(2), tf.constant(1)), IAE,
     "Condition x < y did not hold"),
    (lambda: tf.debugging.assert_greater(tf.constant(1.0), tf.constant(1.0)), IAE,
     "Condition x > y did not hold"),
    (lambda: tf.debugging.assert_positive(tf.constant([1, 0])), IAE, "did not hold"),
    (lambda: tf.debugging.assert_near(tf.constant(1.0), tf.constant(1.1)), IAE,
     "not equal to tolerance"),
    (lambda: tf.debugging.assert_equal(tf.constant([1, 2]), tf.constant([1, 2, 3])), ValueError,
     "incompatible|Shapes"),
    (lambda: tf.debugging.assert_rank(tf.constant([1]), 2), ValueError,
     "Tensor must have rank 2"),
    (lambda: tf.debugging.assert_type(tf.constant(1), tf.float32), TypeError, "float32"),
    (lambda: tf.debugging.assert_shapes([(tf.ones([2, 3]), ("N", 4))]), ValueError, "."),
    (lambda: tf.debugging.assert_shapes([(tf.ones([2]), ("N",)), (tf.ones([3]), ("N",))]),
     ValueError, "."),
    (lambda: tf.debugging.Assert(False, ["the message", tf.constant(7)]), IAE, "the message"),
    (lambda: tf.debugging.Assert(tf.constant([True, False]), ["all must hold"]), IAE,
     "all must hold"),
    (lambda: tf.debugging.check_numerics(tf.constant([1.0, np.nan]), "bad value"), IAE,
     "bad value : Tensor had NaN values"),
    (lambda: tf.debugging.check_numerics(tf.constant([np.inf]), "big"), IAE,
     "big : Tensor had Inf values"),
    (lambda: tf.debugging.check_numerics(tf.constant([1]), "ints"), IAE, "int32"),
    (lambda: tf.debugging.assert_all_finite(tf.constant([np.inf]), "nope"), IAE, "nope"),
], ids=lambda v: "" if callable(v) or isinstance(v, (type, str)) else str(v))
def test_debugging_failures(call, exc, pattern):
  with pytest.raises(exc, match=pattern) as info:
    call()
  assert type(info.value) is exc


def test_check_numerics_passes_gradient():
  x = tf.constant([1.0, 2.0])
  with tf.GradientTape() as tape:
    tape.watch(x)
    y = tf.reduce_sum(tf.debugging.check_numerics(x * x, "m"))
  assert tape.gradient(y, x).numpy().tolist() == [2.0, 4.0]


# ---------------------------------------------------------------- tf.print

def test_print_goes_to_stderr_by_default(capsys):
  tf.print(tf.constant([1, 2, 3]))
  out = capsys.readouterr()
  assert out.err == "[1 2 3]\n" and out.out == ""


def test_print_to_stdout(capsys):
  tf.print("x:", 1, tf.constant(2.5), output_stream=sys.stdout)
  assert capsys.readouterr().out == "x: 1 2.5\n"
  tf.print(tf.constant([1.5, 2.0]), output_stream=sys.stdout)
  assert capsys.readouterr().out == "[1.5 2]\n"
  tf.print(tf.constant([[1, 2], [3, 4]]), output_stream=sys.stdout)
  assert capsys.readouterr().out == "[[1 2]\n [3 4]]\n"
  tf.print(tf.constant("hi"), tf.constant(["a", "b"]), output_stream=sys.stdout)
  assert capsys.readouterr().out == "hi [a b]\n"
  tf.print(tf.constant(7), output_stream=sys.stdout, sep=",", end="!\n")
  assert capsys.readouterr().out == "7!\n"
  tf.print(1, 2, output_stream=sys.stdout, sep=",")
  assert capsys.readouterr().out == "1,2\n"
  tf.print({"a": tf.constant(1), "b": [tf.constant(2)]}, output_stream=sys.stdout)
  assert capsys.readouterr().out == "{'a': 1, 'b': [2]}\n"
  tf.print(tf.constant(3.0), output_stream=sys.stdout)
  assert capsys.readouterr().out == "3\n"


def test_print_structures_quote_python_values(capsys):
  tf.print([tf.constant(2), "s"], output_stream=sys.stdout)
  assert capsys.readouterr().out == "[2, 's']\n"
  tf.print("top", ["s", 1, 2.5, None, b"b"], ("t",), output_stream=sys.stdout)
  assert capsys.readouterr().out == "top ['s', 1, 2.5, None, b'b'] ('t',)\n"


def test_print_summarize_elides(capsys):
  tf.print(tf.range(10), output_stream=sys.stdout)
  assert capsys.readouterr().out == "[0 1 2 ... 7 8 9]\n"
  tf.print(tf.range(10), summarize=2, output_stream=sys.stdout)
  assert capsys.readouterr().out == "[0 1 ... 8 9]\n"
  tf.print(tf.range(10), summarize=-1, output_stream=sys.stdout)
  assert capsys.readouterr().out == "[0 1 2 3 4 5 6 7 8 9]\n"
  tf.print(tf.range(6), output_stream=sys.stdout)
  assert capsys.readouterr().out == "[0 1 2 3 4 5]\n"
  tf.print(tf.reshape(tf.range(16), [4, 4]), summarize=1, output_stream=sys.stdout)
  assert capsys.readouterr().out == "[[0 ... 3]\n ...\n [12 ... 15]]\n"


def test_print_inside_function_runs_every_call(capsys):
  @tf.function
  def f(x):
    tf.print("x =", x, output_stream=sys.stdout)
    return x + 1
  f(tf.constant(1))
  f(tf.constant(2))
  assert capsys.readouterr().out == "x = 1\nx = 2\n"


@pytest.mark.parametrize("graph", [False, True])
def test_creation_ops_take_a_scalar_shape(graph):
  def make(n):
    return tf.zeros(n), tf.ones(n, tf.int32), tf.fill(n, 2.5)
  fn = tf.function(make) if graph else make
  z, o, f = fn(tf.constant(3)) if graph else fn(3)
  assert z.shape == (3,) and o.shape == (3,) and f.shape == (3,)
  np.testing.assert_array_equal(z.numpy(), np.zeros(3, np.float32))
  np.testing.assert_array_equal(o.numpy(), np.ones(3, np.int32))
  np.testing.assert_array_equal(f.numpy(), np.full(3, 2.5, np.float32))
  with pytest.raises(tf.errors.InvalidArgumentError):
    tf.zeros(-1)
