"""Saving and restoring an iterator's position with tf.train.Checkpoint.

A checkpoint stores, as one string variable, how many elements the iterator
has given and the epoch counters of the datasets that draw random numbers
(shuffle, random, sampling, rejection_resample) as they were when the
iterator was made. Restoring sets those counters back, starts a new pass and
skips that many elements: the next element is the one that followed at save
time, also after a seeded (or unseeded) shuffle. The pipeline must be built
the same way as when saved. Skipping re-runs the work of the skipped elements
(map functions included), so restoring late in a long epoch costs that work.
"""
import json

import numpy as np

from tensorlet.errors import InvalidArgumentError
from tensorlet.variables import Variable

__all__ = ["capture", "StateVariable"]


def _walk(dataset):
  """The datasets of a pipeline, depth first, in a fixed order."""
  out, stack, seen = [], [dataset], set()
  while stack:
    d = stack.pop()
    if id(d) in seen:
      continue
    seen.add(id(d))
    out.append(d)
    stack.extend(reversed(getattr(d, "_inputs", []) or []))
  return out


def capture(dataset):
  """{position: epoch counter} of the pipeline's random datasets."""
  return {i: d._epoch for i, d in enumerate(_walk(dataset)) if hasattr(d, "_epoch")}


def _apply(dataset, saved):
  nodes = _walk(dataset)
  for i, epoch in saved.items():
    i = int(i)
    if i >= len(nodes) or not hasattr(nodes[i], "_epoch"):
      raise InvalidArgumentError(None, None, "The checkpointed iterator state does not match "
                                 "this input pipeline; build the dataset as when it was saved.")
    nodes[i]._epoch = int(epoch)


def encode(state):
  return json.dumps({"count": state.count, "epochs": state.saved_state,
                     "format": "tensorlet-iterator-1"})


def restore(state, text):
  """Moves IteratorState `state` to the position recorded in `text`."""
  try:
    data = json.loads(text)
    count, epochs = int(data["count"]), dict(data["epochs"])
  except (ValueError, KeyError, TypeError):
    raise InvalidArgumentError(None, None, "Could not parse the checkpointed iterator "
                               "state.") from None
  _apply(state.dataset, epochs)
  state.saved_state = capture(state.dataset)
  it = state.dataset._flat_iter()
  for k in range(count):
    if next(it, None) is None:
      raise InvalidArgumentError(None, None, f"The checkpointed iterator had given {count} "
                                 f"elements, but the dataset now has only {k}.")
  state.it, state.count = it, count


class StateVariable(Variable):
  """The string variable through which a checkpoint saves and restores an
  iterator: `refresh()` writes the position before a save; a restore's
  `assign` moves the iterator."""

  def __init__(self, state):
    super().__init__(np.asarray(encode(state).encode(), dtype=object), trainable=False,
                     name="iterator_state")
    self._tl_state = state
    self._tl_restoring = False

  def refresh(self):
    self._tl_restoring = True
    try:
      super().assign(encode(self._tl_state).encode())
    finally:
      self._tl_restoring = False

  def assign(self, value, use_locking=None, name=None, read_value=True):
    out = super().assign(value, use_locking, name, read_value)
    if not self._tl_restoring:
      v = np.asarray(self.numpy(), dtype=object)[()]
      restore(self._tl_state, v.decode() if isinstance(v, bytes) else str(v))
    return out
