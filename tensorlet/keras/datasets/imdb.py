"""tf.keras.datasets.imdb: 50000 movie reviews as word-id sequences with a
sentiment label (25000 train, 25000 test), from `~/.keras/datasets/imdb.npz`.

Ids are word ranks (1 = most frequent); loading shifts them by `index_from`
and prefixes `start_char`, keeping 0 for padding and `oov_char` for words past
`num_words` or before `skip_top`.
"""

import numpy as np

from tensorlet.keras.datasets import _sequences
from tensorlet.keras.datasets._download import dataset_file

__all__ = ["load_data", "get_word_index"]

ORIGIN = "https://storage.googleapis.com/tensorflow/tf-keras-datasets/"
SHA256 = "69664113be75683a8fe16e3ed0ab59fda8886cb3cd7ada244f7d9544e4676b9f"
WORD_INDEX_MD5 = "bfafd718b763782e994055a2d397834f"


def load_data(path="imdb.npz", num_words=None, skip_top=0, maxlen=None, seed=113,
              start_char=1, oov_char=2, index_from=3, cache_dir=None, **kwargs):
  """((x_train, y_train), (x_test, y_test)): object arrays of id lists and int labels.

  Args:
    num_words: keep the `num_words` most frequent words (others become `oov_char`).
    skip_top: also replace the `skip_top` most frequent words.
    maxlen: drop sequences of `maxlen` ids or more.
    seed: shuffling seed (train and test are each shuffled).
    start_char, oov_char, index_from: see the module docstring.
  """
  num_words = _sequences.legacy_kwargs(num_words, kwargs)
  path = dataset_file(path, ORIGIN + "imdb.npz", file_hash=SHA256, cache_dir=cache_dir)
  f = _sequences.load_sequences(path, ("x_train", "y_train", "x_test", "y_test"))
  x_train, labels_train, x_test, labels_test = (f[k] for k in ("x_train", "y_train",
                                                               "x_test", "y_test"))
  rng = np.random.RandomState(seed)
  x_train, labels_train = _sequences.shuffled(rng, x_train, labels_train)
  x_test, labels_test = _sequences.shuffled(rng, x_test, labels_test)
  x_train = _sequences.index_words(x_train, start_char, index_from)
  x_test = _sequences.index_words(x_test, start_char, index_from)
  if maxlen:
    x_train, labels_train = _sequences.remove_long_seq(maxlen, x_train, labels_train)
    x_test, labels_test = _sequences.remove_long_seq(maxlen, x_test, labels_test)
    if not x_train or not x_test:
      raise ValueError(f"After filtering for sequences shorter than maxlen={str(maxlen)}, no "
                       f"sequence was kept. Increase maxlen.")
  xs = _sequences.limit_words(x_train + x_test, num_words, skip_top, oov_char)
  labels = np.concatenate([labels_train, labels_test])
  idx = len(x_train)
  return ((_objects(xs[:idx]), labels[:idx]), (_objects(xs[idx:]), labels[idx:]))


def _objects(seqs):
  out = np.empty(len(seqs), dtype="object")
  out[:] = seqs
  return out


def get_word_index(path="imdb_word_index.json"):
  """{word: rank} (1 = most frequent), before the `index_from` shift."""
  return _sequences.load_word_index(path, ORIGIN + "imdb_word_index.json", WORD_INDEX_MD5)
