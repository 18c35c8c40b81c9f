"""Gigantic sizes raise TF's errors before anything wraps round or is allocated:
ResourceExhaustedError where the memory is not there, InvalidArgumentError past
2**63 - 1 elements (never a silently empty result)."""
import pytest

import tensorlet as tf

BIG = 2 ** 40

OOM = {
    "zeros": lambda: tf.zeros([BIG]),
    "ones": lambda: tf.ones([BIG]),
    "fill": lambda: tf.fill([BIG], 1.0),
    "tile": lambda: tf.tile(tf.ones([2]), [BIG]),
    "one_hot": lambda: tf.one_hot([1], BIG),
    "range": lambda: tf.range(BIG),
    "sequence_mask": lambda: tf.sequence_mask([BIG]),
    "random_uniform": lambda: tf.random.uniform([BIG]),
    "random_normal": lambda: tf.random.normal([2 ** 20, 2 ** 20]),
    "eye": lambda: tf.eye(2 ** 30),
}


@pytest.mark.parametrize("name", sorted(OOM))
def test_gigantic_allocation_is_resource_exhausted(name):
  with pytest.raises(tf.errors.ResourceExhaustedError, match="OOM when allocating"):
    OOM[name]()


def test_gigantic_allocation_in_a_graph_is_resource_exhausted():
  f = tf.function(lambda n: tf.zeros([n]))
  with pytest.raises(tf.errors.ResourceExhaustedError):
    f(tf.constant(BIG, tf.int64))


def test_large_python_dims_are_int64_not_wrapped():
  # An int32 cast of 2**40 is 0: the shape must stay 2**40 (and fail to allocate).
  with pytest.raises(tf.errors.ResourceExhaustedError, match=str(BIG)):
    tf.zeros([BIG, 1])


def test_more_than_int64_elements_is_invalid_argument():
  with pytest.raises(tf.errors.InvalidArgumentError, match=r"more than 2\*\*63 - 1 elements"):
    tf.zeros([2 ** 62, 2 ** 4])


def test_dimension_beyond_int64_is_value_error():
  with pytest.raises(ValueError, match="out-of-range integer"):
    tf.zeros([2 ** 64])
