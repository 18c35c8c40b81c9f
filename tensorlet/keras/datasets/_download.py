"""The data sets' access to Keras' file cache (`tf.keras.utils.get_file`)."""
import urllib.error  # noqa: F401 - tests stand in for the network through urllib.request
import urllib.request  # noqa: F401

from tensorlet.keras.utils.data_utils import cache_path, get_file

__all__ = ["get_file", "cache_path", "dataset_file"]


def dataset_file(fname, origin, cache_dir=None, **kwargs):
  """`get_file` for a data set: `cache_dir` (~ expanded) is created first, as Keras'
  loaders do."""
  import os
  if cache_dir:
    cache_dir = os.path.expanduser(cache_dir)
    os.makedirs(cache_dir, exist_ok=True)
  return get_file(fname, origin=origin, cache_dir=cache_dir, **kwargs)
