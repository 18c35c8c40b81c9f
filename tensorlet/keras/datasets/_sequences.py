"""What imdb and reuters do to their word-id sequences, as Keras 2 does it."""
import json
import logging

import numpy as np

from tensorlet.keras.datasets import _safe_pickle
from tensorlet.keras.datasets._download import get_file

__all__ = ["legacy_kwargs", "load_sequences", "index_words", "remove_long_seq",
           "load_word_index"]


def legacy_kwargs(num_words, kwargs):
  if "nb_words" in kwargs:
    logging.warning("The `nb_words` argument in `load_data` has been renamed `num_words`.")
    num_words = kwargs.pop("nb_words")
  if kwargs:
    raise TypeError(f"Unrecognized keyword arguments: {str(kwargs)}.")
  return num_words


def load_sequences(path, keys):
  """The arrays `keys` of an .npz whose sequences are object arrays of id lists."""
  arrays = _safe_pickle.load_npz(path, keys)
  for key, value in arrays.items():
    if value.dtype == object:
      for seq in value:
        if not isinstance(seq, list) or not all(isinstance(w, (int, np.integer))
                                                for w in seq):
          raise ValueError(f"{path}[{key}] must hold lists of word ids.")
  return arrays


def remove_long_seq(maxlen, seq, label):
  """The sequences shorter than `maxlen`, with their labels."""
  new_seq, new_label = [], []
  for x, y in zip(seq, label):
    if len(x) < maxlen:
      new_seq.append(x)
      new_label.append(y)
  return new_seq, new_label


def index_words(xs, start_char, index_from):
  if start_char is not None:
    return [[start_char] + [w + index_from for w in x] for x in xs]
  if index_from:
    return [[w + index_from for w in x] for x in xs]
  return [list(x) for x in xs]


def limit_words(xs, num_words, skip_top, oov_char):
  if not num_words:
    num_words = max(max(x) for x in xs)
  if oov_char is not None:
    return [[w if skip_top <= w < num_words else oov_char for w in x] for x in xs]
  return [[w for w in x if skip_top <= w < num_words] for x in xs]


def load_word_index(path, origin, file_hash):
  path = get_file(path, origin=origin, file_hash=file_hash)
  try:
    with open(path, encoding="utf-8") as f:
      index = json.load(f)
  except (ValueError, UnicodeDecodeError) as e:
    raise ValueError(f"{path} is not a JSON word index: {e}") from None
  if not isinstance(index, dict):
    raise ValueError(f"{path} is not a JSON word index (a dict of word -> id).")
  return index


def shuffled(rng, *arrays):
  """The arrays permuted by one `rng.shuffle` of their indices (Keras' order)."""
  indices = np.arange(len(arrays[0]))
  rng.shuffle(indices)
  return tuple(a[indices] for a in arrays)
