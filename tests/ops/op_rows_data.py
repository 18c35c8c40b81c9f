"""Op-table rows of the tf.data iterator, reduction and optional ops (MakeIterator,
IteratorGetNext(AsOptional), ReduceDataset, DatasetCardinality, DatasetToSingleElement,
Optional*): a dataset of x's rows consumed inside the row, eagerly and traced."""
import numpy as np
from op_table import F32_64, args, case, same

import tensorlet as tf


def _iterate(x):
  it = iter(tf.data.Dataset.from_tensor_slices(x))
  first = it.get_next()
  second = it.get_next_as_optional()
  return [first, second.get_value(), tf.cast(second.has_value(), x.dtype)]


case("data.iterator", _iterate, lambda x: [x[0], x[1], np.array(1, x.dtype)], args([3, 2]),
     F32_64, grad=False)
case("data.reduce", lambda x: tf.data.Dataset.from_tensor_slices(x).reduce(
    tf.zeros_like(x[0]), lambda s, e: s + e * e), same(lambda x: (x * x).sum(0)),
    args([4, 2]), F32_64, grad=False)
case("data.cardinality", lambda x: tf.data.Dataset.from_tensor_slices(x).repeat(3).cardinality(),
     lambda x: np.array(3 * len(x), np.int64), args([4, 2]), F32_64, grad=False)
case("data.get_single_element", lambda x: tf.data.Dataset.from_tensor_slices(x).take(1)
     .get_single_element(), lambda x: x[0], args([4, 2]), F32_64, grad=False)


def _optionals(x):
  full = tf.experimental.Optional.from_value(x)
  empty = tf.experimental.Optional.empty(tf.TensorSpec(x.shape, x.dtype))
  return [full.get_value() * 2, tf.stack([full.has_value(), empty.has_value()])]


case("data.Optional", _optionals, lambda x: [x * 2, np.array([True, False])], args([3]),
     F32_64, grad=False)
