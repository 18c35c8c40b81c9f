"""tf.keras.utils.get_file and Sequence.

`get_file` keeps downloads in Keras' cache, `<cache_dir>/<cache_subdir>/<fname>`
with cache_dir `$KERAS_HOME` or `~/.keras` (`/tmp/.keras` when that is not
writable). A cached file is used when it matches `file_hash` (or when no hash is
given); otherwise it is fetched from `origin` into a temporary file that only
replaces the cache entry once complete and checked. Archives are extracted
only inside the cache directory: members whose path or link target leaves it
are skipped with a warning.
"""
import hashlib
import os
import pathlib
import tarfile
import tempfile
import urllib.error
import urllib.parse
import urllib.request
import warnings
import zipfile

__all__ = ["get_file", "validate_file", "cache_path", "extract_archive", "Sequence"]


def _cache_base(cache_dir):
  base = os.path.expanduser(cache_dir or os.environ.get("KERAS_HOME") or
                            os.path.join("~", ".keras"))
  probe = base
  while not os.path.exists(probe) and os.path.dirname(probe) != probe:
    probe = os.path.dirname(probe)
  if not os.access(probe, os.W_OK):
    base = os.path.join(tempfile.gettempdir(), ".keras")  # NOTE: Keras' fallback
  return base


def cache_path(fname, cache_subdir="datasets", cache_dir=None):
  """Where `fname` lives in the cache (nothing is created)."""
  return os.path.join(_cache_base(cache_dir), cache_subdir, fname)


def _hasher(algorithm, file_hash=None):
  if algorithm == "sha256" or (algorithm == "auto" and file_hash is not None and
                               len(file_hash) == 64):
    return hashlib.sha256()
  if algorithm in ("md5", "auto"):
    return hashlib.md5()  # noqa: S324 - Keras' legacy checksums, not security
  raise ValueError(f"Unknown hash algorithm: {algorithm!r}; expected 'auto', 'sha256' or "
                   f"'md5'.")


def _hash_file(path, algorithm="sha256", file_hash=None, chunk_size=65535):
  h = _hasher(algorithm, file_hash)
  with open(path, "rb") as f:
    for chunk in iter(lambda: f.read(chunk_size), b""):
      h.update(chunk)
  return h.hexdigest()


def validate_file(fpath, file_hash, algorithm="auto", chunk_size=65535):
  """Whether the file's sha256 (64 hex digits) or md5 equals `file_hash`."""
  return _hash_file(fpath, algorithm, file_hash, chunk_size) == str(file_hash)


def _algorithm_name(algorithm, file_hash):
  if algorithm == "auto":
    return "sha256" if file_hash is not None and len(file_hash) == 64 else "md5"
  return algorithm


def _inside(path, base):
  path, base = os.path.realpath(path), os.path.realpath(base)
  return path == base or path.startswith(base + os.sep)


def _safe_tar_members(archive, dest):
  for member in archive.getmembers():
    target = os.path.join(dest, member.name)
    ok = _inside(target, dest) and not member.isdev()
    if ok and (member.issym() or member.islnk()):
      link_base = dest if member.islnk() else os.path.dirname(target)
      ok = _inside(os.path.join(link_base, member.linkname), dest)
    if ok:
      yield member
    else:
      warnings.warn(f"Skipping invalid path during archive extraction: '{member.name}'.",
                    stacklevel=4)


def _safe_zip_members(archive, dest):
  for name in archive.namelist():
    if _inside(os.path.join(dest, name), dest):
      yield name
    else:
      warnings.warn(f"Skipping invalid path during archive extraction: '{name}'.",
                    stacklevel=4)


def extract_archive(file_path, path=".", archive_format="auto"):
  """Extracts a tar (gz/bz2/xz) or zip archive into `path`; True if it was one.
  Members that would land outside `path` (`..`, absolute paths, links out) are
  skipped with a warning."""
  if archive_format is None:
    return False
  formats = ["tar", "zip"] if archive_format == "auto" else (
      [archive_format] if isinstance(archive_format, str) else list(archive_format))
  file_path, path = os.fspath(file_path), os.fspath(path)
  for kind in formats:
    if kind == "tar" and tarfile.is_tarfile(file_path):
      with tarfile.open(file_path) as archive:
        members = list(_safe_tar_members(archive, path))
        try:
          archive.extractall(path, members=members, filter="data")
        except TypeError:  # Python without extraction filters: members are checked above
          archive.extractall(path, members=members)
      return True
    if kind == "zip" and zipfile.is_zipfile(file_path):
      with zipfile.ZipFile(file_path) as archive:
        archive.extractall(path, members=list(_safe_zip_members(archive, path)))
      return True
    if kind not in ("tar", "zip"):
      raise ValueError(f"Unknown archive_format: {kind!r}; expected 'auto', 'tar' or 'zip'.")
  return False


def _download(origin, fpath, progress):
  """Fetches `origin` into a temporary file beside `fpath`; returns its path."""
  directory = os.path.dirname(fpath)
  fd, tmp = tempfile.mkstemp(dir=directory, prefix=".tmp-" + os.path.basename(fpath))
  bar = None
  try:
    with os.fdopen(fd, "wb") as out:
      try:
        with urllib.request.urlopen(origin) as resp:  # noqa: S310 - the caller's URL
          total = getattr(resp, "headers", {}).get("Content-Length") if progress else None
          if progress:
            from tensorlet.keras.utils.progbar import Progbar
            bar = Progbar(int(total) if total else None)
          done = 0
          for chunk in iter(lambda: resp.read(1 << 16), b""):
            out.write(chunk)
            done += len(chunk)
            if bar is not None:
              bar.update(done)
          if bar is not None and bar.target is None:
            bar.update(done, finalize=True)
      except urllib.error.HTTPError as e:
        raise Exception(f"URL fetch failure on {origin}: {e.code} -- {e.msg}") from None
      except urllib.error.URLError as e:
        raise Exception(f"URL fetch failure on {origin}: {getattr(e, 'errno', None)} -- "
                        f"{e.reason}") from None
    return tmp
  except BaseException:
    if os.path.exists(tmp):
      os.remove(tmp)
    raise


def get_file(fname=None, origin=None, untar=False, md5_hash=None, file_hash=None,
             cache_subdir="datasets", hash_algorithm="auto", extract=False,
             archive_format="auto", cache_dir=None, progress=True):
  """The path of `fname` in Keras' cache, downloaded from `origin` if missing or if it
  does not match `file_hash`.

  Args:
    fname: file name in the cache (default: the last part of `origin`'s path).
    origin: the URL to fetch.
    untar: deprecated: `fname` is a `.tar.gz` extracted beside it; returns the
      extracted path.
    md5_hash: deprecated, use `file_hash`.
    file_hash: expected sha256 (64 hex digits) or md5 of the file.
    cache_subdir: folder under the cache directory (an absolute path is used as is).
    hash_algorithm: 'auto', 'sha256' or 'md5'.
    extract: extract the file (tar/zip, per `archive_format`) beside it.
    cache_dir: the cache directory (default `$KERAS_HOME` or `~/.keras`).
    progress: show a progress bar while downloading.
  Raises:
    ValueError: no origin, no file name, or a download that does not match
      `file_hash`.
    Exception: 'URL fetch failure on <origin>: ...' when the download fails.
  """
  if origin is None:
    raise ValueError('Please specify the "origin" argument (URL of the file to download).')
  if md5_hash is not None and file_hash is None:
    file_hash, hash_algorithm = md5_hash, "md5"
  datadir = os.path.join(_cache_base(cache_dir), cache_subdir)
  os.makedirs(datadir, exist_ok=True)
  fname = os.fspath(fname) if fname is not None else None
  if not fname:
    fname = os.path.basename(urllib.parse.urlsplit(origin).path)
    if not fname:
      raise ValueError(f"Can't parse the file name from the origin provided: '{origin}'."
                       f"Please specify the `fname` as the input param.")
  if untar:
    if fname.endswith(".tar.gz"):
      fname = str(pathlib.Path(fname).with_suffix("").with_suffix(""))
    untar_fpath = os.path.join(datadir, fname)
    fpath = untar_fpath + ".tar.gz"
  else:
    fpath = os.path.join(datadir, fname)
  if not _inside(fpath, datadir):
    raise ValueError(f"`fname` must name a file inside the cache directory {datadir}; got "
                     f"{fname!r}.")
  algorithm = _algorithm_name(hash_algorithm, file_hash)
  download = not os.path.exists(fpath)
  if not download and file_hash is not None and not validate_file(fpath, file_hash,
                                                                  hash_algorithm):
    print(f"A local file was found, but it seems to be incomplete or outdated because the "
          f"{algorithm} file hash does not match the original value of {file_hash} so we "
          f"will re-download the data.")
    download = True
  if download:
    print(f"Downloading data from {origin}")
    tmp = _download(origin, fpath, progress)
    try:
      if file_hash is not None and not validate_file(tmp, file_hash, hash_algorithm):
        raise ValueError(f"Incomplete or corrupted file detected. The {algorithm} file hash "
                         f"does not match the provided value of {file_hash}.")
      os.replace(tmp, fpath)
    finally:
      if os.path.exists(tmp):
        os.remove(tmp)
  if untar:
    if not os.path.exists(untar_fpath):
      extract_archive(fpath, datadir, archive_format="tar")
    return untar_fpath
  if extract:
    extract_archive(fpath, datadir, archive_format)
  return fpath


class Sequence:
  """Base class of datasets that index batches: `__getitem__(i)` returns batch `i`
  and `__len__` the number of batches; `on_epoch_end` runs after each epoch
  (shuffle there). `fit`/`evaluate`/`predict` accept one as `x`.

  Example:
    >>> class Batches(tf.keras.utils.Sequence):
    ...   def __init__(self, x, y, batch_size):
    ...     self.x, self.y, self.batch_size = x, y, batch_size
    ...   def __len__(self):
    ...     return -(-len(self.x) // self.batch_size)
    ...   def __getitem__(self, i):
    ...     s = slice(i * self.batch_size, (i + 1) * self.batch_size)
    ...     return self.x[s], self.y[s]

  `workers`, `use_multiprocessing` and `max_queue_size` are accepted as Keras 2
  does; batches are produced in this process.
  """

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
    for i in range(len(self)):
      yield self[i]
