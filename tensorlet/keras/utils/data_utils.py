"""tf.keras.utils.Sequence: a dataset of batches indexed by position.

fit/evaluate/predict take one in place of `x`: `len(seq)` batches per epoch,
`seq[i]` the i-th batch ((x,), (x, y) or (x, y, sample_weight)), and
`on_epoch_end()` after every epoch (Keras 2 semantics; workers and
multiprocessing are accepted and run in this process).
"""

__all__ = ["Sequence"]


class Sequence:
  """Base class: implement `__getitem__(index)` and `__len__()`; optionally
  `on_epoch_end()` (e.g. to reshuffle)."""

  def __init__(self, workers=1, use_multiprocessing=False, max_queue_size=10):
    self.workers = workers
    self.use_multiprocessing = use_multiprocessing
    self.max_queue_size = max_queue_size

  def __getitem__(self, index):
    raise NotImplementedError(f"{type(self).__name__} must implement __getitem__.")

  def __len__(self):
    raise NotImplementedError(f"{type(self).__name__} must implement __len__.")

  def on_epoch_end(self):
    """Called at the end of every epoch."""

  def __iter__(self):
    """Every batch, in order."""
    for i in range(len(self)):
      yield self[i]
