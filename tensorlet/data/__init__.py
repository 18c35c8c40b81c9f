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


def _transformation(name):
  def make(*args, **kwargs):
    return lambda ds: getattr(ds, name)(*args, **kwargs)
  make.__name__ = name
  make.__doc__ = f"tf.data.experimental.{name}: `dataset.apply(...)` form of Dataset.{name}."
  return make


def _ignore_errors(log_warning=False):
  return lambda ds: ds.ignore_errors(log_warning)


from tensorlet.data import csv_dataset as _csv  # noqa: E402
from tensorlet.data import sampling as _sampling  # noqa: E402
from tensorlet.data.options import AutoShardPolicy as _AutoShardPolicy  # noqa: E402
from tensorlet.data.optional import Optional as _Optional, OptionalSpec as _OptionalSpec  # noqa: E402,E501

experimental = _types.SimpleNamespace(
    AUTOTUNE=AUTOTUNE, INFINITE_CARDINALITY=INFINITE_CARDINALITY,
    UNKNOWN_CARDINALITY=UNKNOWN_CARDINALITY, cardinality=_cardinality,
    assert_cardinality=_assert_cardinality, DatasetSpec=DatasetSpec,
    sample_from_datasets=_sampling.sample_from_datasets,
    choose_from_datasets=_sampling.choose_from_datasets,
    CsvDataset=_csv.CsvDatasetV2, make_csv_dataset=_csv.make_csv_dataset,
    ignore_errors=_ignore_errors, scan=_transformation("scan"),
    unique=_transformation("unique"), group_by_window=_transformation("group_by_window"),
    bucket_by_sequence_length=_transformation("bucket_by_sequence_length"),
    rejection_resample=_transformation("rejection_resample"),
    snapshot=_transformation("snapshot"), Optional=_Optional, OptionalSpec=_OptionalSpec,
    get_next_as_optional=lambda iterator: iterator.get_next_as_optional(),
    Counter=_sampling.counter,
    save=lambda dataset, path, compression=None, shard_func=None: dataset.save(
        path, compression, shard_func),
    load=Dataset.load, AutoShardPolicy=_AutoShardPolicy)


from tensorlet._unsupported import getattr_for as _getattr_for  # noqa: E402
__getattr__ = _getattr_for("tf.data", __name__)
