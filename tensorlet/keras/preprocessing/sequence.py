"""tf.keras.preprocessing.sequence: pad_sequences and timeseries windows."""
from tensorlet.keras.utils.sequence_utils import pad_sequences  # noqa: F401
from tensorlet.keras.utils.timeseries_dataset import \
    timeseries_dataset_from_array  # noqa: F401

__all__ = ["pad_sequences", "timeseries_dataset_from_array"]
