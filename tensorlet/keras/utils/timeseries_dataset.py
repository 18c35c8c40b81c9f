"""tf.keras.utils.timeseries_dataset_from_array: sliding windows over an array."""
import numpy as np

__all__ = ["timeseries_dataset_from_array"]


def _check(data, start_index, end_index, sampling_rate, sequence_stride):
  n = len(data)
  if start_index:
    if start_index < 0:
      raise ValueError(f"`start_index` must be 0 or greater. Received: "
                       f"start_index={start_index}")
    if start_index >= n:
      raise ValueError(f"`start_index` must be lower than the length of the data. Received: "
                       f"start_index={start_index}, for data of length {n}")
  if end_index:
    if start_index and end_index <= start_index:
      raise ValueError(f"`end_index` must be higher than `start_index`. Received: "
                       f"start_index={start_index}, and end_index={end_index} ")
    if end_index >= n:
      raise ValueError(f"`end_index` must be lower than the length of the data. Received: "
                       f"end_index={end_index}, for data of length {n}")
    if end_index <= 0:
      raise ValueError(f"`end_index` must be higher than 0. Received: end_index={end_index}")
  for value, what in ((sampling_rate, "sampling_rate"), (sequence_stride, "sequence_stride")):
    if value <= 0:
      raise ValueError(f"`{what}` must be higher than 0. Received: {what}={value}")
    if value >= n:
      raise ValueError(f"`{what}` must be lower than the length of the data. Received: "
                       f"{what}={value}, for data of length {n}")


def timeseries_dataset_from_array(data, targets, sequence_length, sequence_stride=1,
                                  sampling_rate=1, batch_size=128, shuffle=False, seed=None,
                                  start_index=None, end_index=None):
  """A dataset of windows `data[s : s + sequence_length * sampling_rate : sampling_rate]`
  for start offsets s = 0, sequence_stride, ... (relative to `start_index`), each with
  `targets[start_index + s]` when targets are given; batched by `batch_size`."""
  from tensorlet import data as tf_data
  from tensorlet.ops import array_ops, math_ops
  _check(data, start_index, end_index, sampling_rate, sequence_stride)
  start_index = start_index or 0
  end_index = end_index or len(data)
  num_seqs = end_index - start_index - (sequence_length - 1) * sampling_rate
  if targets is not None:
    num_seqs = min(num_seqs, len(targets))
  index_dtype = "int32" if num_seqs < 2147483647 else "int64"
  starts = np.arange(0, max(num_seqs, 0), sequence_stride, dtype=index_dtype)
  if shuffle:
    if seed is None:
      seed = np.random.randint(1e6)
    np.random.RandomState(seed).shuffle(starts)
  window = np.asarray(data)[start_index:end_index]
  offsets = (np.arange(sequence_length) * sampling_rate).astype(index_dtype)

  def gather_window(start):
    return array_ops.gather(window, math_ops.add(start, offsets))
  dataset = tf_data.Dataset.from_tensor_slices(starts).map(gather_window)
  if targets is not None:
    target_window = np.asarray(targets)[start_index:end_index]
    target_ds = tf_data.Dataset.from_tensor_slices(starts).map(
        lambda start: array_ops.gather(target_window, start))
    dataset = tf_data.Dataset.zip((dataset, target_ds))
  if batch_size is not None:
    if shuffle:
      dataset = dataset.shuffle(buffer_size=batch_size * 8, seed=seed)
    dataset = dataset.batch(batch_size)
  elif shuffle:
    dataset = dataset.shuffle(buffer_size=1024, seed=seed)
  return dataset
