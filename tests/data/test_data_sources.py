"""tf.data sources against NumPy/Python references: values, dtypes, shapes,
element_spec, repr, cardinality and TF's errors."""
import numpy as np
import pytest

import tensorlet as tf


def _np_list(ds):
  return list(ds.as_numpy_iterator())


def _assert_element(t, value, dtype, shape):
  assert isinstance(t, tf.Tensor)
  assert t.dtype == dtype and t.shape == tf.TensorShape(shape)
  np.testing.assert_array_equal(t.numpy(), value)


# ------------------------------------------------------------ from_tensor_slices

def test_slices_of_python_list_become_a_tensor():
  ds = tf.data.Dataset.from_tensor_slices([1, 2, 3])
  assert repr(ds) == ("<_TensorSliceDataset element_spec=TensorSpec(shape=(), "
                      "dtype=tf.int32, name=None)>")
  elems = list(ds)
  for t, v in zip(elems, [1, 2, 3]):
    _assert_element(t, v, tf.int32, [])
  assert len(ds) == 3 and int(ds.cardinality()) == 3
  assert ds.cardinality().dtype == tf.int64


def test_slices_of_nested_list_is_one_component():
  ds = tf.data.Dataset.from_tensor_slices([[1.0, 2.0], [3.0, 4.0]])
  assert ds.element_spec == tf.TensorSpec([2], tf.float32)
  np.testing.assert_array_equal(np.stack(_np_list(ds)), [[1, 2], [3, 4]])


def test_slices_tuple_of_numpy_and_tensor():
  x = np.arange(12, dtype=np.float64).reshape(4, 3)
  y = tf.constant([0, 1, 0, 1], dtype=tf.int64)
  ds = tf.data.Dataset.from_tensor_slices((x, y))
  assert ds.element_spec == (tf.TensorSpec([3], tf.float64), tf.TensorSpec([], tf.int64))
  got = list(ds)
  assert len(got) == 4
  for i, (a, b) in enumerate(got):
    _assert_element(a, x[i], tf.float64, [3])
    _assert_element(b, y.numpy()[i], tf.int64, [])


def test_slices_dict_and_strings():
  ds = tf.data.Dataset.from_tensor_slices({"b": ["x", "yz"], "a": np.array([1, 2], np.uint8)})
  assert ds.element_spec == {"a": tf.TensorSpec([], tf.uint8), "b": tf.TensorSpec([], tf.string)}
  assert _np_list(ds) == [{"a": 1, "b": b"x"}, {"a": 2, "b": b"yz"}]
  first = next(iter(ds))
  assert first["b"].numpy() == b"x" and first["b"].dtype == tf.string


def test_slices_nested_tuple_in_dict():
  ds = tf.data.Dataset.from_tensor_slices({"p": ([1, 2], [3.0, 4.0])})
  assert ds.element_spec == {"p": (tf.TensorSpec([], tf.int32), tf.TensorSpec([], tf.float32))}
  assert _np_list(ds)[1] == {"p": (2, 4.0)}


def test_slices_mismatched_first_dimension():
  with pytest.raises(ValueError, match="Dimensions 3 and 2 are not compatible"):
    tf.data.Dataset.from_tensor_slices(([1, 2, 3], [1, 2]))


def test_slices_of_scalar():
  with pytest.raises(ValueError, match="rank >= 1"):
    tf.data.Dataset.from_tensor_slices(1)


def test_slices_of_variable():
  v = tf.Variable([1.0, 2.0])
  assert _np_list(tf.data.Dataset.from_tensor_slices(v)) == [1.0, 2.0]


# ------------------------------------------------------------------- from_tensors

def test_from_tensors_is_one_element():
  ds = tf.data.Dataset.from_tensors(([1, 2, 3], "a"))
  assert repr(ds) == ("<_TensorDataset element_spec=(TensorSpec(shape=(3,), dtype=tf.int32, "
                      "name=None), TensorSpec(shape=(), dtype=tf.string, name=None))>")
  (a, b), = list(ds)
  _assert_element(a, [1, 2, 3], tf.int32, [3])
  assert b.numpy() == b"a"
  assert int(ds.cardinality()) == 1


# ------------------------------------------------------------------------- range

@pytest.mark.parametrize("args", [(5,), (2, 5), (1, 10, 3), (10, 1, -2), (5, 2), (0,)])
def test_range_matches_python(args):
  ds = tf.data.Dataset.range(*args)
  assert ds.element_spec == tf.TensorSpec([], tf.int64)
  got = _np_list(ds)
  assert got == list(range(*args))
  assert all(type(x) is np.int64 for x in got)
  assert int(ds.cardinality()) == len(range(*args))


def test_range_output_type_and_repr():
  ds = tf.data.Dataset.range(3, output_type=tf.int32)
  assert repr(ds) == ("<_RangeDataset element_spec=TensorSpec(shape=(), dtype=tf.int32, "
                      "name=None)>")
  assert [t.dtype for t in ds] == [tf.int32] * 3


def test_range_errors():
  with pytest.raises(tf.errors.InvalidArgumentError, match="step must be a non-zero integer"):
    tf.data.Dataset.range(0, 5, 0)
  with pytest.raises(ValueError, match="between 1 and 3"):
    tf.data.Dataset.range()
  with pytest.raises(TypeError):
    tf.data.Dataset.range(1.5)


# ------------------------------------------------------------------ from_generator

def test_generator_types_only_has_unknown_shapes():
  ds = tf.data.Dataset.from_generator(lambda: [(1, 1)] * 2, (tf.int32, tf.int32))
  assert repr(ds) == ("<_FlatMapDataset element_spec=(TensorSpec(shape=<unknown>, "
                      "dtype=tf.int32, name=None), TensorSpec(shape=<unknown>, dtype=tf.int32, "
                      "name=None))>")
  assert _np_list(ds) == [(1, 1), (1, 1)]
  assert int(ds.cardinality()) == tf.data.UNKNOWN_CARDINALITY == -2
  with pytest.raises(TypeError, match="length is unknown"):
    len(ds)


def test_generator_is_called_anew_per_iteration():
  calls = []

  def gen():
    calls.append(1)
    for i in range(3):
      yield i, np.full([i], i, np.float32)
  ds = tf.data.Dataset.from_generator(gen, output_signature=(
      tf.TensorSpec([], tf.int64), tf.TensorSpec([None], tf.float32)))
  assert ds.element_spec[1] == tf.TensorSpec([None], tf.float32)
  first = list(ds)
  second = list(ds)
  assert len(calls) == 2
  for a, b in zip(first, second):
    np.testing.assert_array_equal(a[1].numpy(), b[1].numpy())
  assert first[2][1].shape == tf.TensorShape([2]) and first[2][0].dtype == tf.int64


def test_generator_shapes_and_args():
  def gen(n, s):
    for i in range(int(n)):
      yield {"x": [i, i], "s": s}
  ds = tf.data.Dataset.from_generator(gen, output_types={"x": tf.float32, "s": tf.string},
                                      output_shapes={"x": [2], "s": []},
                                      args=(3, "hi"))
  assert ds.element_spec == {"s": tf.TensorSpec([], tf.string),
                             "x": tf.TensorSpec([2], tf.float32)}
  got = _np_list(ds)
  assert len(got) == 3 and got[2]["s"] == b"hi"
  np.testing.assert_array_equal(got[2]["x"], [2.0, 2.0])
  assert got[2]["x"].dtype == np.float32


def test_generator_single_output_shape():
  ds = tf.data.Dataset.from_generator(lambda: iter([[1, 2], [3, 4]]), tf.int64, (2,))
  assert ds.element_spec == tf.TensorSpec([2], tf.int64)
  assert [t.numpy().tolist() for t in ds] == [[1, 2], [3, 4]]


def test_generator_values_checked_against_signature():
  bad_shape = tf.data.Dataset.from_generator(lambda: [[1, 2, 3]], tf.int32, [2])
  with pytest.raises(tf.errors.InvalidArgumentError,
                     match=r"yielded an element of shape \(3,\) where an element of shape "
                           r"\(2,\) was expected"):
    list(bad_shape)
  bad_type = tf.data.Dataset.from_generator(lambda: ["a"], tf.int32)
  with pytest.raises(tf.errors.InvalidArgumentError, match="could not be converted to the "
                     "expected type. The expected type was int32"):
    list(bad_type)
  bad_structure = tf.data.Dataset.from_generator(lambda: [1], (tf.int32, tf.int32))
  with pytest.raises(tf.errors.InvalidArgumentError, match="did not match the expected "
                     "structure"):
    list(bad_structure)


def test_generator_argument_errors():
  with pytest.raises(TypeError, match="must be a Python callable"):
    tf.data.Dataset.from_generator([1, 2], tf.int32)
  with pytest.raises(TypeError, match="either the `output_signature` argument or the "
                     "`output_types`"):
    tf.data.Dataset.from_generator(lambda: [1])
  with pytest.raises(TypeError, match="can not be used together"):
    tf.data.Dataset.from_generator(lambda: [1], tf.int32,
                                   output_signature=tf.TensorSpec([], tf.int32))


# -------------------------------------------------------------- iteration protocol

def test_iterator_protocol_and_numpy_iterator():
  ds = tf.data.Dataset.range(2)
  it = iter(ds)
  assert repr(it).startswith("<OwnedIterator")
  assert int(next(it)) == 0 and int(it.get_next()) == 1
  with pytest.raises(StopIteration):
    next(it)
  it = iter(ds)
  list(it)
  with pytest.raises(tf.errors.OutOfRangeError):
    it.get_next()
  assert list(ds.as_numpy_iterator()) == [0, 1]


def test_get_single_element():
  assert int(tf.data.Dataset.from_tensors(7).get_single_element()) == 7
  with pytest.raises(tf.errors.InvalidArgumentError, match="more than one element"):
    tf.data.Dataset.range(2).get_single_element()
  with pytest.raises(tf.errors.InvalidArgumentError, match="empty"):
    tf.data.Dataset.range(0).get_single_element()


def test_public_constants():
  assert tf.data.AUTOTUNE == tf.data.experimental.AUTOTUNE == -1
  assert tf.data.INFINITE_CARDINALITY == -1 and tf.data.UNKNOWN_CARDINALITY == -2
  ds = tf.data.Dataset.range(3)
  assert int(tf.data.experimental.cardinality(ds)) == 3
  assert isinstance(ds, tf.data.Dataset) and bool(tf.data.Dataset.range(0))


def test_generator_errors_surface_as_unknown_error():
  ds = tf.data.Dataset.from_generator(lambda: (1 / 0 for _ in range(2)),
                                      output_signature=tf.TensorSpec([], tf.float32))
  with pytest.raises(tf.errors.UnknownError, match="ZeroDivisionError"):
    list(ds)


def test_generator_signature_conversions_and_dict_elements():
  G = tf.data.Dataset.from_generator
  assert _np_list(G(lambda: iter([1.5]), output_signature=tf.TensorSpec([], tf.int32))) == [1]
  got = _np_list(G(lambda: iter([1]), output_signature=tf.TensorSpec([], tf.float32)))
  assert got == [1.0] and got[0].dtype == np.float32
  sig = {"a": tf.TensorSpec([], tf.int64), "b": tf.TensorSpec([], tf.string)}
  assert _np_list(G(lambda: iter([{"a": 1, "b": "x"}]), output_signature=sig)) == [
      {"a": 1, "b": b"x"}]
  ragged = G(lambda: iter([(1, [1.0, 2.0]), (2, [3.0])]),
             output_signature=(tf.TensorSpec([], tf.int32), tf.TensorSpec([None], tf.float32)))
  (ids, vals), = _np_list(ragged.padded_batch(2))
  assert ids.tolist() == [1, 2] and vals.tolist() == [[1.0, 2.0], [3.0, 0.0]]
  with pytest.raises(TypeError, match="tf.TypeSpec"):
    G(lambda: iter([1]), output_signature=(tf.int32, tf.float32))
