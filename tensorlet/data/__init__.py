"""tf.data: input pipelines as Python iterators (re-exports only; see dataset.py)."""
import types as _types

from tensorlet.data.dataset import (AUTOTUNE, INFINITE_CARDINALITY,  # noqa: F401
                                    UNKNOWN_CARDINALITY, Dataset, DatasetSpec, DatasetV2,
                                    Options)
from tensorlet.data.iterators import OwnedIterator as Iterator  # noqa: F401
from tensorlet.data import sources as _sources  # noqa: F401 - registers the source classes
from tensorlet.data import transformations as _transformations  # noqa: F401
from tensorlet.data.readers import FixedLengthRecordDatasetV2 as FixedLengthRecordDataset  # noqa: F401,E501
from tensorlet.data.readers import TextLineDatasetV2 as TextLineDataset  # noqa: F401
from tensorlet.data.readers import TFRecordDatasetV2 as TFRecordDataset  # noqa: F401


def _cardinality(dataset):
  """tf.data.experimental.cardinality(dataset): `dataset.cardinality()`."""
  return dataset.cardinality()


def _assert_cardinality(expected_cardinality):
  """A transformation that checks the number of elements while iterating."""
  from tensorlet.data.transformations import _AssertCardinalityDataset
  return lambda ds: _AssertCardinalityDataset(ds, expected_cardinality)


experimental = _types.SimpleNamespace(
    AUTOTUNE=AUTOTUNE, INFINITE_CARDINALITY=INFINITE_CARDINALITY,
    UNKNOWN_CARDINALITY=UNKNOWN_CARDINALITY, cardinality=_cardinality,
    assert_cardinality=_assert_cardinality, DatasetSpec=DatasetSpec)
