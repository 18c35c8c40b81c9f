"""Bad input: every op answers with TF's exception type and a message naming
the op or the argument, and never lets a raw NumPy exception through."""
import linecache
import re

import numpy as np
import pytest

import tensorlet as tf
from op_table import CASES

IAE = tf.errors.InvalidArgumentError
TF_TYPES = (tf.errors.OpError, TypeError, ValueError)


def assert_clean(exc):
  """`exc` is a TF-typed exception raised by tensorlet's own code, not NumPy's."""
  assert isinstance(exc, TF_TYPES), f"{type(exc).__name__}: {exc}"
  assert type(exc).__module__ in ("builtins", "tensorlet.errors"), \
      f"raw {type(exc).__module__}.{type(exc).__name__}: {exc}"
  tb = exc.__traceback__
  while tb.tb_next is not None:
    tb = tb.tb_next
  fname = tb.tb_frame.f_code.co_filename
  assert "/numpy/" not in fname, f"raised inside NumPy ({fname}): {exc}"
  line = linecache.getline(fname, tb.tb_lineno)
  # The innermost frame is a `raise` (ours), not a call whose C code raised.
  assert "raise" in line or "tensorlet" not in fname, \
      f"raised by a call at {fname}:{tb.tb_lineno} `{line.strip()}`: {exc}"


def check(fn, exc_type, pattern):
  with pytest.raises(exc_type) as info:
    fn()
  assert type(info.value) is exc_type, f"{type(info.value).__name__}: {info.value}"
  assert re.search(pattern, str(info.value)), f"{pattern!r} not in {str(info.value)!r}"
  assert_clean(info.value)
  return info.value


x23 = tf.ones([2, 3])
i23 = tf.ones([2, 3], tf.int32)

# (id, call, exception type, regex the message must match)
ERRORS = [
    # dtype rules
    ("add_int_float", lambda: tf.constant(1) + tf.constant(1.5), IAE,
     r"cannot compute AddV2 as input #1\(zero-based\) was expected to be a int32 tensor but "
     r"is a float tensor"),
    ("add_fn_int_float", lambda: tf.add(tf.constant([1]), tf.constant([1.5])), IAE, "AddV2"),
    ("mul_float_double", lambda: tf.constant(1.0) * tf.constant(1.0, tf.float64), IAE,
     r"Mul as input #1\(zero-based\) was expected to be a float tensor but is a double"),
    ("int_times_python_float", lambda: tf.constant(1) * 1.5, TypeError,
     "Cannot convert 1.5 to EagerTensor of dtype int32"),
    ("python_float_times_int", lambda: 1.5 * tf.constant(1), TypeError,
     "Cannot convert 1.5 to EagerTensor of dtype int32"),
    ("exp_int32", lambda: tf.exp(tf.constant(1)), IAE,
     r"Value for attr 'T' of int32 is not in the list of allowed values.*\[Op:Exp\]"),
    ("sqrt_int", lambda: tf.sqrt(tf.constant([4])), IAE, r"\[Op:Sqrt\]"),
    ("log_bool", lambda: tf.math.log(tf.constant(True)), IAE, r"\[Op:Log\]"),
    ("sum_bool", lambda: tf.reduce_sum(tf.constant([True])), IAE, r"\[Op:Sum\]"),
    ("mean_string", lambda: tf.reduce_mean(tf.constant(["a"])), IAE, r"\[Op:Mean\]"),
    ("any_float", lambda: tf.reduce_any(tf.constant([1.0])), IAE, r"\[Op:Any\]"),
    ("logical_and_int", lambda: tf.logical_and(tf.constant(1), tf.constant(0)), IAE,
     "LogicalAnd"),
    ("sub_string", lambda: tf.constant("a") - tf.constant("b"), IAE, "Sub"),
    ("string_plus_int", lambda: tf.constant("a") + 1, tf.errors.InvalidArgumentError,
     "expected to be a string tensor but is a int32 tensor"),
    ("matmul_int_float", lambda: tf.matmul(i23, tf.ones([3, 2])), IAE, "MatMul"),
    ("maximum_complex", lambda: tf.maximum(tf.constant(1j), tf.constant(2j)), IAE, "Maximum"),
    ("variance_int", lambda: tf.math.reduce_variance(tf.constant([1, 2])), TypeError,
     "Input must be either real or complex"),
    ("std_int", lambda: tf.math.reduce_std(tf.constant([1, 2])), TypeError,
     "Input must be either real or complex"),
    ("cast_string_to_int", lambda: tf.cast(tf.constant("1"), tf.int32),
     tf.errors.UnimplementedError, "Cast string to int32 is not supported"),
    ("cast_bad_dtype", lambda: tf.cast(x23, "floot32"), TypeError,
     "Cannot convert value 'floot32' to a TensorFlow DType"),
    ("concat_dtypes", lambda: tf.concat([x23, i23], 0), IAE,
     r"ConcatV2 as input #1\(zero-based\) was expected to be a float tensor but is a int32"),
    ("add_n_dtypes", lambda: tf.add_n([x23, i23]), IAE, "AddN"),
    ("where_dtypes", lambda: tf.where([True], tf.constant([1.0]), tf.constant([1])), IAE,
     "SelectV2"),
    ("where_cond_float", lambda: tf.where(tf.constant([1.0]), x23[0, :1], x23[0, :1]), IAE,
     "condition"),
    ("gather_float_indices", lambda: tf.gather(x23, tf.constant([0.0])), IAE,
     r"Tindices.*float.*\[Op:GatherV2\]"),
    ("one_hot_float_indices", lambda: tf.one_hot(tf.constant([1.0]), 3), IAE,
     r"TI.*float.*\[Op:OneHot\]"),
    ("one_hot_dtype_mismatch", lambda: tf.one_hot([1], 3, on_value=1.0, dtype=tf.int32),
     TypeError, "on_value"),
    ("int_div_zero", lambda: tf.constant(1) // tf.constant(0), IAE, "Integer division by zero"),
    ("int_mod_zero", lambda: tf.constant([3]) % tf.constant([0]), IAE,
     "Integer division by zero"),
    ("truncatediv_zero", lambda: tf.math.truncatediv(tf.constant(3), tf.constant(0)), IAE,
     "Integer division by zero"),
    ("int_pow_negative", lambda: tf.pow(tf.constant(2), tf.constant(-1)), IAE,
     "Integers to negative integer powers are not allowed"),
    ("truediv_mixed", lambda: tf.math.truediv(tf.constant(1), tf.constant(1.0)), TypeError,
     "x and y must have the same dtype"),

    # shapes
    ("matmul_incompatible", lambda: tf.matmul(tf.ones([2, 3]), tf.ones([4, 5])), IAE,
     r"Matrix size-incompatible: In\[0\]: \[2,3\], In\[1\]: \[4,5\]"),
    ("matmul_op_incompatible", lambda: tf.ones([2, 3]) @ tf.ones([2, 3]), IAE,
     "Matrix size-incompatible"),
    ("matmul_rank1", lambda: tf.matmul(tf.ones([3]), tf.ones([3])), IAE, r"In\[0\]"),
    ("matmul_batch", lambda: tf.matmul(tf.ones([2, 2, 3]), tf.ones([3, 3, 4])), IAE,
     r"Incompatible shapes|batch dimensions"),
    ("add_broadcast", lambda: x23 + tf.ones([4]), IAE,
     r"Incompatible shapes: \[2,3\] vs. \[4\] \[Op:AddV2\]"),
    ("equal_broadcast", lambda: tf.equal(x23, tf.ones([4])), IAE, "Incompatible shapes"),
    ("reshape_size", lambda: tf.reshape(x23, [4]), IAE,
     r"Input to reshape is a tensor with 6 values, but the requested shape has 4"),
    ("reshape_infer", lambda: tf.reshape(x23, [-1, 4]), IAE,
     r"Input to reshape is a tensor with 6 values, but the requested shape requires a "
     r"multiple of 4"),
    ("reshape_two_unknown", lambda: tf.reshape(x23, [-1, -1]), IAE,
     "Only one input size may be -1"),
    ("concat_rank", lambda: tf.concat([x23, tf.ones([2])], 0), IAE,
     r"Ranks of all input tensors should match: shape\[0\] = \[2,3\] vs. shape\[1\] = \[2\]"),
    ("concat_dims", lambda: tf.concat([x23, tf.ones([2, 2])], 0), IAE,
     r"Dimension 1 in both shapes must be equal"),
    ("concat_empty", lambda: tf.concat([], 0), ValueError, "concat"),
    ("stack_shapes", lambda: tf.stack([tf.ones([2]), tf.ones([3])]), IAE,
     r"Shapes of all inputs must match: values\[0\].shape = \[2\] != values\[1\].shape = \[3\]"),
    ("add_n_shapes", lambda: tf.add_n([x23, tf.ones([3])]), IAE, "AddN"),
    ("add_n_empty", lambda: tf.add_n([]), ValueError, "inputs must be"),
    ("tile_multiples", lambda: tf.tile(x23, [2]), IAE,
     "Expected multiples argument to be a vector of length 2 but got length 1"),
    ("tile_negative", lambda: tf.tile(x23, [1, -1]), IAE, "Tile"),
    ("pad_paddings_rank", lambda: tf.pad(x23, [[1, 1]]), IAE, "paddings"),
    ("pad_negative", lambda: tf.pad(x23, [[1, -1], [0, 0]]), IAE, "paddings|Paddings"),
    ("pad_reflect_too_big", lambda: tf.pad(x23, [[2, 0], [0, 0]], mode="REFLECT"), IAE,
     "paddings must be less than the dimension size"),
    ("pad_symmetric_too_big", lambda: tf.pad(x23, [[3, 0], [0, 0]], mode="SYMMETRIC"), IAE,
     "paddings must be less than or equal to the dimension size"),
    ("pad_mode", lambda: tf.pad(x23, [[1, 1], [1, 1]], mode="WRAP"), ValueError, "mode"),
    ("split_uneven", lambda: tf.split(tf.ones([5]), 2), IAE,
     r"Number of ways to split should evenly divide the split dimension"),
    ("split_sizes", lambda: tf.split(tf.ones([5]), [2, 2]), IAE,
     "Determined shape must either match input shape along split_dim"),
    ("split_zero", lambda: tf.split(tf.ones([4]), 0), IAE, "split"),
    ("unstack_scalar", lambda: tf.unstack(tf.constant(1.0)), ValueError, "rank at least 1"),
    ("unstack_num", lambda: tf.unstack(x23, num=3), IAE, "unpack|Unpack"),
    ("slice_bounds", lambda: tf.slice(x23, [0, 1], [2, 5]), IAE, r"Expected size\[1\]"),
    ("slice_rank", lambda: tf.slice(x23, [0], [1]), IAE,
     "Expected begin and size arguments to be 1-D tensors of size 2"),
    ("broadcast_to", lambda: tf.broadcast_to(x23, [4, 3]), IAE,
     r"Incompatible shapes|Unable to broadcast"),
    ("squeeze_not_one", lambda: tf.squeeze(x23, axis=0), IAE,
     r"Can not squeeze dim\[0\], expected a dimension of 1, got 2"),
    ("transpose_perm_size", lambda: tf.transpose(x23, [1, 0, 2]), IAE,
     "transpose expects a vector of size 2"),
    ("transpose_perm_dup", lambda: tf.transpose(x23, [0, 0]), IAE, "permutation"),
    ("boolean_mask_shape", lambda: tf.boolean_mask(tf.ones([3]), [True, False]), ValueError,
     r"Shapes \(3,\) and \(2,\) are incompatible"),
    ("boolean_mask_scalar", lambda: tf.boolean_mask(tf.ones([3]), True), ValueError,
     "mask cannot be scalar"),
    ("where_one_branch", lambda: tf.where([True], x=tf.ones([1])), ValueError,
     "x and y must both be non-None or both be None"),
    ("where_shapes", lambda: tf.where([True, False], tf.ones([3]), tf.ones([3])), IAE,
     "broadcastable"),
    ("ensure_shape", lambda: tf.ensure_shape(x23, [3, 2]), IAE,
     r"Shape of tensor .* is not compatible with expected shape"),
    ("unique_2d", lambda: tf.unique(x23), IAE, "unique expects a 1D vector"),
    ("top_k_big", lambda: tf.math.top_k(tf.ones([3]), 5), IAE,
     "input must have at least k columns. Had 3, needed 5"),
    ("top_k_negative", lambda: tf.math.top_k(tf.ones([3]), -1), IAE, "Need k >= 0"),
    ("top_k_scalar", lambda: tf.math.top_k(tf.constant(1.0)), IAE, "input must be >= 1-D"),
    ("sort_direction", lambda: tf.sort(tf.ones([3]), direction="UP"), ValueError, "direction"),
    ("gather_nd_index_depth", lambda: tf.gather_nd(x23, [[0, 0, 0]]), IAE,
     "index innermost dimension length must be <= params rank"),
    ("scatter_nd_shape", lambda: tf.scatter_nd([[0], [1]], tf.ones([3]), [4]), IAE,
     "ScatterNd"),
    ("fill_negative", lambda: tf.fill([-1, 2], 1.0), IAE, "Fill"),
    ("fill_nonscalar", lambda: tf.fill([2], [1.0, 2.0]), IAE, "value must be a scalar"),
    ("zeros_negative", lambda: tf.zeros([-2]), IAE, "Fill|Dimension"),
    ("range_delta_zero", lambda: tf.range(0, 5, 0), IAE, r"Requires delta != 0"),
    ("range_wrong_way", lambda: tf.range(5, 1, 1), IAE,
     "Requires start <= limit when delta > 0: 5/1"),
    ("range_wrong_way_negative", lambda: tf.range(1, 5, -1), IAE,
     "Requires start >= limit when delta < 0: 1/5"),
    ("range_vector", lambda: tf.range([1, 2]), IAE, "must be a scalar"),
    ("one_hot_negative_depth", lambda: tf.one_hot([1], -1), IAE, "depth must be non-negative"),
    ("argmax_empty", lambda: tf.argmax(tf.ones([0])), IAE, "Reduction axis 0 is empty"),
    ("bincount_negative", lambda: tf.math.bincount(tf.constant([-1])), IAE,
     "Input arr must be non-negative"),

    ("segment_id_range", lambda: tf.math.unsorted_segment_sum(tf.ones([3]), [0, 3, 1], 3),
     IAE, r"segment_ids\[1\] = 3 is out of range \[0, 3\)"),
    ("segment_ids_prefix", lambda: tf.math.unsorted_segment_sum(tf.ones([3]), [0, 1], 2), IAE,
     "must be a prefix of data.shape"),
    ("segment_float_ids", lambda: tf.math.unsorted_segment_sum(tf.ones([2]), [0.0, 1.0], 2),
     IAE, "Tindices"),
    ("segment_not_sorted", lambda: tf.math.segment_sum(tf.ones([3]), [1, 0, 2]), IAE,
     "segment ids are not increasing"),
    ("searchsorted_side", lambda: tf.searchsorted([1, 2], [1], side="middle"), ValueError,
     "side"),
    ("searchsorted_leading", lambda: tf.searchsorted(tf.ones([2, 3]), tf.ones([3, 1])), IAE,
     "Leading dim_size of both tensors must match"),
    ("unravel_range", lambda: tf.unravel_index([12], [3, 4]), IAE, "index out of bounds"),
    ("reverse_sequence_lengths", lambda: tf.reverse_sequence(tf.ones([2, 3]), [4, 1],
                                                              seq_axis=1, batch_axis=0),
     IAE, "seq_lengths"),
    ("reverse_sequence_axes", lambda: tf.reverse_sequence(tf.ones([2, 3]), [1, 1], seq_axis=0,
                                                           batch_axis=0), IAE,
     "seq_axis and batch_axis must differ"),
    ("confusion_matrix_bound", lambda: tf.math.confusion_matrix([0, 3], [0, 1], num_classes=2),
     IAE, "labels` out of bound"),
    ("truncatemod_zero", lambda: tf.truncatemod(tf.constant(3), tf.constant(0)), IAE,
     "Integer division by zero"),
    ("split_sizes_float", lambda: tf.split(tf.ones([4]), [1.0, 3.0]), IAE,
     "size_splits must be a 1-D integer tensor"),

    # axes out of range
    ("sum_axis", lambda: tf.reduce_sum(x23, axis=2), IAE,
     r"Invalid reduction dimension \(2 for input with 2 dimension\(s\)"),
    ("mean_axis_negative", lambda: tf.reduce_mean(x23, axis=-3), IAE,
     "Invalid reduction dimension"),
    ("max_axis_list", lambda: tf.reduce_max(x23, axis=[0, 5]), IAE,
     "Invalid reduction dimension"),
    ("logsumexp_axis", lambda: tf.reduce_logsumexp(x23, axis=2), IAE,
     "Invalid reduction dimension"),
    ("argmax_axis", lambda: tf.argmax(x23, axis=2), IAE, r"\[-2, 2\).*2"),
    ("cumsum_axis", lambda: tf.math.cumsum(x23, axis=2), IAE, r"\[-2, 2\).*2"),
    ("concat_axis", lambda: tf.concat([x23, x23], 2), IAE, r"\[-2, 2\).*2"),
    ("stack_axis", lambda: tf.stack([x23, x23], axis=3), ValueError,
     r"axis.*3.*not in range \[-3, 3\)"),
    ("unstack_axis", lambda: tf.unstack(x23, axis=2), ValueError,
     r"axis.*2.*not in range \[-2, 2\)"),
    ("split_axis", lambda: tf.split(x23, 3, axis=2), IAE, r"\[-2, 2\).*2"),
    ("gather_axis", lambda: tf.gather(x23, [0], axis=2), IAE, r"\[-2, 2\).*2"),
    ("gather_batch_dims", lambda: tf.gather(x23, [[0]], batch_dims=3), IAE, "batch_dims"),
    ("gather_batch_dims_axis", lambda: tf.gather(x23, [[0], [1]], axis=0, batch_dims=1), IAE,
     r"batch_dims \(1\) must be less than or equal to axis \(0\)"),
    ("expand_dims_axis", lambda: tf.expand_dims(x23, 3), IAE,
     "Tried to expand dim index 3 for tensor with 2 dimensions"),
    ("squeeze_axis", lambda: tf.squeeze(x23, axis=2), IAE,
     "Tried to squeeze dim index 2 for tensor with 2 dimensions"),
    ("reverse_axis", lambda: tf.reverse(x23, [2]), IAE,
     r"'axis'\[0\] = 2 is out of valid range \[-2, 2\)"),
    ("one_hot_axis", lambda: tf.one_hot([1], 3, axis=3), IAE, "Expected axis to be -1 or"),
    ("sort_axis", lambda: tf.sort(x23, axis=2), IAE, r"\[-2, 2\).*2"),
    ("roll_axis", lambda: tf.roll(x23, 1, axis=2), IAE, r"\[-2, 2\).*2"),
    ("roll_sizes", lambda: tf.roll(x23, [1, 1], axis=0), IAE,
     "shift and axis must have the same size"),
    ("repeat_sizes", lambda: tf.repeat(x23, [1, 2], axis=1), IAE, "repeats"),
    ("concat_scalars", lambda: tf.concat([tf.constant(1.0), tf.constant(2.0)], 0), IAE,
     "Can't concatenate scalars"),
    ("sum_scalar_axis", lambda: tf.reduce_sum(tf.constant(1.0), axis=0), IAE,
     "Invalid reduction dimension"),
    ("repeat_axis", lambda: tf.repeat(x23, 2, axis=3), IAE, r"\[-2, 2\).*3"),

    # indices out of range
    ("gather_index", lambda: tf.gather(x23, [5]), IAE, r"indices\[0\] = 5 is not in \[0, 2\)"),
    ("gather_negative", lambda: tf.gather(x23, [0, -1]), IAE,
     r"indices\[1\] = -1 is not in \[0, 2\)"),
    ("gather_axis1_index", lambda: tf.gather(x23, [[0, 3]], axis=1), IAE,
     r"indices\[0,1\] = 3 is not in \[0, 3\)"),
    ("gather_nd_index", lambda: tf.gather_nd(x23, [[0, 0], [2, 0]]), IAE,
     r"indices\[1\] = \[2, 0\] does not index into param shape \[2,3\]"),
    ("scatter_nd_index", lambda: tf.scatter_nd([[4]], tf.ones([1]), [4]), IAE,
     r"indices\[0\] = \[4\] does not index into shape \[4\]"),
    ("tensor_scatter_index", lambda: tf.tensor_scatter_nd_update(tf.ones([3]), [[3]], [1.0]),
     IAE, r"indices\[0\] = \[3\] does not index into shape \[3\]"),
    ("tensor_scatter_add_index", lambda: tf.tensor_scatter_nd_add(tf.ones([3]), [[-1]], [1.0]),
     IAE, r"indices\[0\] = \[-1\] does not index into shape \[3\]"),
    ("getitem_index", lambda: tf.ones([3])[5], IAE,
     r"slice index 5 of dimension 0 out of bounds"),
    ("getitem_negative", lambda: tf.ones([3])[-4], IAE,
     r"slice index -4 of dimension 0 out of bounds"),
    ("getitem_too_many", lambda: tf.ones([3])[1, 2], IAE, r"Index out of range|dims"),
    ("getitem_scalar", lambda: tf.constant(1.0)[0], IAE, r"Index out of range|dims"),
    ("getitem_float", lambda: tf.ones([3])[1.5], TypeError,
     r"Only integers, slices \(`:`\), ellipsis \(`...`\), tf.newaxis \(`None`\) and scalar "
     r"tf.int32/tf.int64 tensors are valid indices, got 1.5"),
    ("getitem_list", lambda: tf.ones([3])[[0, 1]], TypeError, "valid indices"),
    ("getitem_float_tensor", lambda: tf.ones([3])[tf.constant(1.0)], TypeError,
     "valid indices"),
    ("getitem_step_zero", lambda: tf.ones([3])[::0], ValueError, "slice step cannot be zero"),

    # conversion
    ("constant_ragged", lambda: tf.constant([[1, 2], [3]]), ValueError,
     "Can't convert non-rectangular Python sequence to Tensor"),
    ("constant_object", lambda: tf.constant(object()), ValueError,
     r"Attempt to convert a value .* with an unsupported type"),
    ("constant_none", lambda: tf.constant(None), ValueError, "unsupported type"),
    ("constant_float_as_int", lambda: tf.constant(1.5, tf.int32), TypeError,
     "Cannot convert 1.5 to EagerTensor of dtype int32"),
    ("constant_int_overflow", lambda: tf.constant(2**64, tf.int64), ValueError,
     "out-of-range integer"),
    ("constant_shape", lambda: tf.constant([1, 2, 3], shape=[2, 2]), TypeError,
     "Eager execution of tf.constant with unsupported shape"),
    ("constant_bad_dtype", lambda: tf.constant(1, "int33"), TypeError,
     "Cannot convert value 'int33' to a TensorFlow DType"),
    ("convert_dtype", lambda: tf.convert_to_tensor(tf.constant(1), tf.float32), ValueError,
     "Tensor conversion requested dtype float32 for Tensor with dtype int32"),
    ("constant_mixed_str", lambda: tf.constant([1, "a"]), (TypeError, ValueError), "."),
]


@pytest.mark.parametrize("fn,exc_type,pattern", [pytest.param(f, e, p, id=n)
                                                 for n, f, e, p in ERRORS])
def test_error(fn, exc_type, pattern):
  if isinstance(exc_type, tuple):
    with pytest.raises(exc_type) as info:
      fn()
    assert_clean(info.value)
  else:
    check(fn, exc_type, pattern)


def test_error_message_names_op_in_tf_style():
  e = check(lambda: tf.matmul(tf.ones([2, 3]), tf.ones([4, 5])), IAE, "Matrix")
  assert str(e).endswith("[Op:MatMul]")
  assert e.error_code == tf.errors.INVALID_ARGUMENT
  assert isinstance(e, tf.errors.OpError)
  assert e.message == str(e)


def test_errors_do_not_corrupt_inputs():
  t = tf.constant([1.0, 2.0, 3.0])
  with pytest.raises(IAE):
    tf.tensor_scatter_nd_update(t, [[0], [5]], [9.0, 9.0])
  np.testing.assert_array_equal(t.numpy(), [1, 2, 3])


def test_bool_of_tensor():
  with pytest.raises(ValueError, match="truth value of an array with more than one element"):
    bool(tf.constant([1, 2]))
  with pytest.raises(TypeError):
    len(tf.constant(1))
  with pytest.raises(TypeError, match="unhashable"):
    {tf.constant(1): 1}
  with pytest.raises(TypeError, match="scalar tensor"):
    iter(tf.constant(1))


# ------------------------------------------- no raw NumPy error from any op

def _bad_inputs(case, rng):
  """Variants of a row's inputs that are wrong in dtype, rank or size."""
  base = case.inputs(rng, case.dtypes[0])
  if not base:
    return []
  return [
      [np.zeros(np.shape(a), bool) for a in base],
      [np.full(np.shape(a), b"x", dtype=object) for a in base],
      [rand.astype(np.float32) for rand in [rng.rand(5) for _ in base]],
      [rng.rand(2, 2, 2, 2).astype(np.float32) for _ in base],
      [np.zeros([0, 3], np.float32) for _ in base],
      [np.float32(1.5) for _ in base],
      [rng.rand(*([3] if k % 2 else [2, 2])).astype(np.float32) for k in range(len(base))],
      [np.ones([2, 3], np.float32 if k % 2 else np.int32) for k in range(len(base))],
      [np.ones([1, 1, 1], np.float64) for _ in base],
  ] + ([[np.asarray(a).astype(np.int64) for a in base]]
        if all(np.asarray(a).dtype.kind != "O" for a in base) else [])


@pytest.mark.parametrize("case", [pytest.param(c, id=c.name) for c in CASES])
def test_no_raw_numpy_errors(case):
  """Each row, fed wrongly typed or shaped inputs, runs or raises a clean TF error."""
  rng = np.random.RandomState(0)
  for xs in _bad_inputs(case, rng):
    try:
      case.fn(*[tf.constant(x) for x in xs])
    except Exception as e:  # noqa: BLE001 - the point is to inspect it
      tb = e.__traceback__
      while tb.tb_next is not None:
        tb = tb.tb_next
      if tb.tb_frame.f_code.co_filename.endswith("op_table.py"):
        continue  # the row's own code (e.g. `unstack(x)[1]` of an empty list)
      if isinstance(e, AttributeError) and "floating point or integer" in str(e):
        continue  # TF's own type for tf.image functions given bool or string images
      assert_clean(e)


def test_reshape_of_a_partly_known_shape_checks_divisibility():
  # TF 2.21's shape function: the known input dims (3) must divide the target (7)
  @tf.function(input_signature=[tf.TensorSpec([None, 3])])
  def bad(x):
    return tf.reshape(x, [7])
  with pytest.raises(ValueError, match="Dimension size must be evenly divisible by 3 but is 7"):
    bad.get_concrete_function()

  @tf.function(input_signature=[tf.TensorSpec([None, 3])])
  def good(x):
    return tf.reshape(x, [6])
  assert good.get_concrete_function().structured_outputs.shape.as_list() == [6]
