"""Composite values as dataset elements: Optionals, window datasets and any
value whose spec follows the composite protocol (`_component_specs`,
`_to_components`, `_from_components`; SparseTensor and RaggedTensor do),
through map/filter, eager and graph iteration, reduce and for loops."""
import numpy as np
import pytest

import tensorlet as tf
from tensorlet.data.optional import OptionalSpec
from tensorlet.types import TraceType


class Pair:
  """A composite of two tensors (stands in for SparseTensor's protocol)."""

  def __init__(self, a, b):
    self.a, self.b = a, b

  @property
  def _type_spec(self):
    return PairSpec(tf.TensorSpec(self.a.shape, self.a.dtype),
                    tf.TensorSpec(self.b.shape, self.b.dtype))


class PairSpec(TraceType):
  def __init__(self, sa, sb):
    self.sa, self.sb = sa, sb

  @property
  def _component_specs(self):
    return [self.sa, self.sb]

  def _to_components(self, value):
    return [value.a, value.b]

  def _from_components(self, tensors):
    a, b = tensors
    return Pair(a, b)

  def is_subtype_of(self, other):
    return self == other

  def most_specific_common_supertype(self, others):
    return self if all(o == self for o in others) else None

  def __eq__(self, other):
    return type(other) is PairSpec and (self.sa, self.sb) == (other.sa, other.sb)

  def __hash__(self):
    return hash((self.sa, self.sb))


def _pairs():
  return tf.data.Dataset.range(4).map(lambda x: Pair(x, tf.cast(x, tf.float32) * 0.5))


def test_composite_elements_through_map_and_filter():
  ds = _pairs()
  assert ds.element_spec == PairSpec(tf.TensorSpec([], tf.int64),
                                     tf.TensorSpec([], tf.float32))
  got = [(int(p.a), float(p.b)) for p in ds]
  assert got == [(0, 0.0), (1, 0.5), (2, 1.0), (3, 1.5)]
  odd = ds.filter(lambda p: p.a % 2 == 1).map(lambda p: p.b * 2)
  assert [float(x) for x in odd] == [1.0, 3.0]
  assert int(ds.cardinality()) == 4
  mixed = ds.map(lambda p: (p.a, Pair(p.b, p.a)))
  assert [(int(a), float(p.a), int(p.b)) for a, p in mixed] == \
      [(i, i * 0.5, i) for i in range(4)]


def test_composite_elements_in_tf_function():
  ds = _pairs()

  @tf.function
  def total():
    s = tf.constant(0.0)
    for p in ds:
      s += p.b + tf.cast(p.a, tf.float32)
    return s
  assert float(total()) == pytest.approx(9.0)
  assert float(ds.reduce(0.0, lambda s, p: s + p.b)) == pytest.approx(3.0)
  it = iter(ds)

  @tf.function
  def step(iterator):
    return next(iterator).a
  assert [int(step(it)) for _ in range(3)] == [0, 1, 2]
  single = _pairs().take(1).get_single_element()
  assert int(single.a) == 0


def test_optional_elements():
  ds = tf.data.Dataset.range(3).map(lambda x: tf.experimental.Optional.from_value(x * 2))
  assert ds.element_spec == OptionalSpec(tf.TensorSpec([], tf.int64))
  assert [int(o.get_value()) for o in ds] == [0, 2, 4]
  assert [bool(o.has_value()) for o in ds] == [True] * 3


def test_batching_user_composites_says_it_is_not_implemented():
  # sparse and ragged elements batch (test_composite_batching.py); other composites do not
  with pytest.raises(NotImplementedError, match="Batching"):
    _pairs().batch(2)
  with pytest.raises(TypeError, match="padded_batch"):
    _pairs().padded_batch(2)


def test_sparse_results_of_parsing_flow_through_datasets():
  ex = tf.train.Example()
  ex.features.feature["v"].int64_list.value.extend([1, 2, 3])
  rec = ex.SerializeToString()
  ds = tf.data.Dataset.from_tensors(rec).repeat(2).map(
      lambda s: tf.io.parse_single_example(s, {"v": tf.io.VarLenFeature(tf.int64)})["v"])
  vals = [np.asarray(sp.values).tolist() for sp in ds]
  assert vals == [[1, 2, 3], [1, 2, 3]]
