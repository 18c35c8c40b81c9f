"""Keras' file cache: `~/.keras/datasets/<name>` ($KERAS_HOME replaces ~/.keras),
downloaded from its origin only when missing."""
import hashlib
import os
import tempfile
import urllib.error
import urllib.request

__all__ = ["get_file", "cache_path"]


def cache_path(fname, cache_subdir="datasets", cache_dir=None):
  """Where `fname` lives in the cache (the directory is not created)."""
  base = os.path.expanduser(cache_dir or os.environ.get("KERAS_HOME") or "~/.keras")
  if os.path.isdir(base) and not os.access(base, os.W_OK):
    base = os.path.join(tempfile.gettempdir(), ".keras")  # NOTE: Keras' fallback
  return os.path.join(base, cache_subdir, fname)


def _sha256(path):
  h = hashlib.sha256()
  with open(path, "rb") as f:
    for chunk in iter(lambda: f.read(1 << 20), b""):
      h.update(chunk)
  return h.hexdigest()


def get_file(fname, origin, file_hash=None, cache_subdir="datasets", cache_dir=None):
  """The cached path of `fname`, downloading `origin` first if the file is missing.

  A download whose sha256 differs from `file_hash` is discarded (ValueError);
  a file already in the cache is used as it is.
  """
  path = cache_path(fname, cache_subdir, cache_dir)
  if os.path.exists(path):
    return path
  os.makedirs(os.path.dirname(path), exist_ok=True)
  print(f"Downloading data from {origin}")
  fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), suffix=".part")
  try:
    with os.fdopen(fd, "wb") as out:
      try:
        with urllib.request.urlopen(origin) as resp:  # noqa: S310 - Keras' fixed https URL
          for chunk in iter(lambda: resp.read(1 << 20), b""):
            out.write(chunk)
      except urllib.error.HTTPError as e:
        raise Exception(f"URL fetch failure on {origin}: {e.code} -- {e.msg}") from None
      except urllib.error.URLError as e:
        raise Exception(f"URL fetch failure on {origin}: {getattr(e, 'errno', None)} -- "
                        f"{e.reason}") from None
    if file_hash is not None and _sha256(tmp) != file_hash:
      raise ValueError(f"Incomplete or corrupted file detected. The sha256 file hash does not "
                       f"match the provided value of {file_hash}.")
    os.replace(tmp, path)
  finally:
    if os.path.exists(tmp):
      os.remove(tmp)
  return path
