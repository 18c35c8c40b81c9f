"""Bad input to tf.data: each case raises the exception type TF 2.21 raises, with a
message naming the argument or transformation."""
import numpy as np
import pytest

import tensorlet as tf
from bad_input_check import check

D = tf.data.Dataset
IAE = tf.errors.InvalidArgumentError
ds = D.range(10)

CASES = [
    ("slices_ragged", lambda: D.from_tensor_slices([[1, 2], [3]]), ValueError,
     "from_tensor_slices component .*non-rectangular"),
    ("slices_none", lambda: D.from_tensor_slices(None), ValueError,
     "does not support None as a from_tensor_slices component"),
    ("slices_object", lambda: D.from_tensor_slices(object()), ValueError,
     "Could not convert the from_tensor_slices component"),
    ("slices_mismatched_lengths", lambda: D.from_tensor_slices((np.ones(3), np.ones(4))),
     ValueError, "Dimensions 3 and 4 are not compatible"),
    ("slices_scalar", lambda: D.from_tensor_slices(1), ValueError,
     "only supported for rank >= 1"),
    # TF: an InvalidArgumentError from the TensorDataset op's attr check.
    ("from_tensors_none", lambda: D.from_tensors(None), ValueError,
     "does not support None as a from_tensors component"),
    ("range_no_args", lambda: D.range(), ValueError, "length of `args` should be between 1"),
    ("range_str", lambda: D.range("a"), TypeError, "`stop` must be an integer"),
    ("range_step_0", lambda: list(D.range(0, 10, 0)), IAE, "step must be a non-zero integer"),
    ("batch_0", lambda: list(ds.batch(0)), IAE, "batch_size must be greater than zero"),
    ("batch_negative", lambda: list(ds.batch(-1)), IAE, "batch_size must be greater than"),
    ("batch_float", lambda: ds.batch(2.5), TypeError, "`batch_size` must be an integer"),
    ("batch_none", lambda: ds.batch(None), ValueError, "`batch_size` .*got None"),
    ("batch_float_tensor", lambda: ds.batch(tf.constant(2.0)), ValueError,
     "`batch_size` must be an integer, got a float32 tensor"),
    ("batch_vector", lambda: ds.batch(tf.constant([2, 3])), ValueError,
     "`batch_size` must be a scalar"),
    ("padded_batch_shape_too_small",
     lambda: list(D.from_tensor_slices([[1, 2], [3, 4]]).padded_batch(2, padded_shapes=[1])),
     ValueError, r"padded shape \(1,\) is not compatible with the shape \(2,\)"),
    ("shuffle_0", lambda: list(ds.shuffle(0)), IAE, "buffer_size must be greater than zero"),
    ("shuffle_none", lambda: ds.shuffle(None), ValueError, "`buffer_size` .*got None"),
    ("shuffle_float", lambda: ds.shuffle(2.5), TypeError, "`buffer_size` must be an integer"),
    ("repeat_str", lambda: ds.repeat("a"), TypeError, "`count` must be an integer"),
    ("take_float", lambda: ds.take(1.5), TypeError, "`count` must be an integer"),
    ("shard_index_out_of_range", lambda: list(ds.shard(2, 5)), IAE,
     "Index must be between 0 and 1"),
    ("shard_0", lambda: list(ds.shard(0, 0)), IAE, "Number of shards must be greater than"),
    ("map_not_callable", lambda: ds.map(3), ValueError, "`Dataset.map` expects a callable"),
    ("filter_not_callable", lambda: ds.filter(3), ValueError, "expects a callable, got 3"),
    ("map_returns_none", lambda: list(ds.map(lambda x: None)), IAE, "returned None"),
    ("map_returns_object", lambda: ds.map(lambda x: object()), TypeError,
     "Dataset.map returned .*which is not a tensor"),
    ("filter_not_bool", lambda: ds.filter(lambda x: x), ValueError,
     "`predicate` must return a `tf.bool` scalar tensor"),
    ("flat_map_not_dataset", lambda: ds.flat_map(lambda x: x), TypeError,
     "must return a `Dataset` object"),
    # TF: an AttributeError ('int' object has no attribute 'element_spec').
    ("concatenate_not_dataset", lambda: ds.concatenate(3), TypeError,
     "`dataset` must be a `tf.data.Dataset`, got int"),
    ("concatenate_other_dtype", lambda: ds.concatenate(D.from_tensor_slices([1.0, 2.0])),
     TypeError, "Incompatible dataset elements"),
    ("reduce_state_dtype", lambda: ds.reduce(0.0, lambda s, x: s + x), TypeError,
     "AddV2.*int64.*float32"),
    ("single_element_of_many", lambda: ds.get_single_element(), IAE, "more than one element"),
    ("single_element_of_none", lambda: ds.take(0).get_single_element(), IAE,
     "Dataset was empty"),
    ("from_generator_no_signature", lambda: D.from_generator(lambda: iter([1])), TypeError,
     "`output_signature` argument or the `output_types`"),
    ("from_generator_bad_value",
     lambda: list(D.from_generator(lambda: iter(["a"]), output_types=tf.int32)), IAE,
     "could not be converted to the expected type"),
    ("unbatch_scalars", lambda: ds.unbatch(), ValueError, "only supported for rank >= 1"),
    # TF: a NotFoundError from the iterator; this was a raw FileNotFoundError.
    ("cache_missing_dir", lambda: list(ds.cache("/nonexistent-dir/a/b")),
     tf.errors.NotFoundError, "cannot write the cache file.*directory does not exist"),
    # TF: an AttributeError ('int' object has no attribute '_to_proto').
    ("with_options_int", lambda: ds.with_options(3), TypeError,
     "with_options expects a tf.data.Options"),
    ("len_infinite", lambda: len(ds.repeat()), TypeError, "The dataset is infinite"),
]


@pytest.mark.parametrize("call, exc, pattern", [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_bad_input(call, exc, pattern):
  check(call, exc, pattern)


def test_exhausted_iterator_raises_stop_iteration():
  it = iter(ds.take(1))
  next(it)
  with pytest.raises(StopIteration):
    next(it)
