"""tf.keras.datasets.reuters: 11228 newswires as word-id sequences labelled with 46
topics, from `~/.keras/datasets/reuters.npz` (split into train and test here).
Ids are shifted as in `imdb`."""

import numpy as np

from tensorlet.keras.datasets import _sequences
from tensorlet.keras.datasets._download import dataset_file

__all__ = ["load_data", "get_word_index", "get_label_names"]

ORIGIN = "https://storage.googleapis.com/tensorflow/tf-keras-datasets/"
SHA256 = "d6586e694ee56d7a4e65172e12b3e987c03096cb01eab99753921ef915959916"
WORD_INDEX_MD5 = "4d44cc38712099c9e383dc6e5f11a921"
_LABELS = ("cocoa", "grain", "veg-oil", "earn", "acq", "wheat", "copper", "housing",
           "money-supply", "coffee", "sugar", "trade", "reserves", "ship", "cotton", "carcass",
           "crude", "nat-gas", "cpi", "money-fx", "interest", "gnp", "meal-feed", "alum",
           "oilseed", "gold", "tin", "strategic-metal", "livestock", "retail", "ipi",
           "iron-steel", "rubber", "heat", "jobs", "lei", "bop", "zinc", "orange", "pet-chem",
           "dlr", "gas", "silver", "wpi", "hog", "lead")


def load_data(path="reuters.npz", num_words=None, skip_top=0, maxlen=None, test_split=0.2,
              seed=113, start_char=1, oov_char=2, index_from=3, cache_dir=None, **kwargs):
  """((x_train, y_train), (x_test, y_test)): object arrays of id lists and topic ids;
  the last `test_split` of the shuffled wires are the test set."""
  num_words = _sequences.legacy_kwargs(num_words, kwargs)
  path = dataset_file(path, ORIGIN + "reuters.npz", file_hash=SHA256, cache_dir=cache_dir)
  f = _sequences.load_sequences(path, ("x", "y"))
  xs, labels = f["x"], f["y"]
  xs, labels = _sequences.shuffled(np.random.RandomState(seed), xs, labels)
  xs = _sequences.index_words(xs, start_char, index_from)
  if maxlen:
    xs, labels = _sequences.remove_long_seq(maxlen, xs, labels)
  xs = _sequences.limit_words(xs, num_words, skip_top, oov_char)
  idx = int(len(xs) * (1 - test_split))
  x_train, x_test = np.empty(idx, dtype="object"), np.empty(len(xs) - idx, dtype="object")
  x_train[:], x_test[:] = xs[:idx], xs[idx:]
  return (x_train, np.array(labels[:idx])), (x_test, np.array(labels[idx:]))


def get_word_index(path="reuters_word_index.json"):
  """{word: rank} (1 = most frequent), before the `index_from` shift."""
  return _sequences.load_word_index(path, ORIGIN + "reuters_word_index.json",
                                    WORD_INDEX_MD5)


def get_label_names():
  """The 46 topic names, by label id."""
  return _LABELS
