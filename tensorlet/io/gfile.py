"""tf.io.gfile: TensorFlow's file API over the local file system.

Errors are TensorFlow's types (NotFoundError, AlreadyExistsError,
PermissionDeniedError, FailedPreconditionError); paths may be str, bytes or
path-like. Only local paths are served: a URL scheme other than file://
raises UnimplementedError.
"""
import collections
import glob as _glob
import os
import shutil

from tensorlet import errors
from tensorlet.formats.file_errors import os_error

__all__ = ["GFile", "exists", "glob", "isdir", "listdir", "makedirs", "mkdir", "remove",
           "rename", "copy", "rmtree", "stat", "walk", "join", "get_registered_schemes"]


def _p(path):
  path = os.fsdecode(os.fspath(path))
  if path.startswith("file://"):
    return path[len("file://"):]
  scheme = path.split("://", 1)[0] if "://" in path else ""
  if scheme and "/" not in scheme:
    raise errors.UnimplementedError(None, None, f"File system scheme '{scheme}' not "
                                    f"implemented (file: '{path}')")
  return path


def _call(fn, path, *args):
  try:
    return fn(*args)
  except OSError as e:
    raise os_error(e, path) from None


def get_registered_schemes():
  return ["", "file"]


def join(path, *paths):
  return os.path.join(path, *paths)


def exists(path):
  """True if the path exists (file or directory)."""
  return os.path.exists(_p(path))


def isdir(path):
  return os.path.isdir(_p(path))


def glob(pattern):
  """The paths matching `pattern` (a string or a list of them)."""
  pats = [pattern] if isinstance(pattern, (str, bytes, os.PathLike)) else list(pattern)
  out = []
  for p in pats:
    out += sorted(_glob.glob(_p(p)))
  return out


def listdir(path):
  """The names in a directory (NotFoundError if it does not exist)."""
  p = _p(path)
  if not os.path.isdir(p):
    raise errors.NotFoundError(None, None, f"Could not find directory {p}")
  return sorted(_call(os.listdir, p, p))


def makedirs(path):
  """Makes a directory and its missing parents; an existing directory is fine."""
  p = _p(path)
  if os.path.isfile(p):
    raise errors.FailedPreconditionError(None, None, f"{p} is not a directory")
  _call(os.makedirs, p, p, 0o777, True)


def mkdir(path):
  """Makes one directory (AlreadyExistsError if it exists)."""
  p = _p(path)
  _call(os.mkdir, p, p)


def remove(path):
  """Deletes a file (NotFoundError if missing)."""
  p = _p(path)
  if os.path.isdir(p):
    raise errors.FailedPreconditionError(None, None, f"{p} is a directory")
  _call(os.remove, p, p)


def _check_target(dst, overwrite):
  if not overwrite and os.path.exists(dst):
    raise errors.AlreadyExistsError(None, None, f"file already exists")


def rename(src, dst, overwrite=False):
  """Moves `src` to `dst` (AlreadyExistsError if `dst` exists and not `overwrite`)."""
  s, d = _p(src), _p(dst)
  if not os.path.exists(s):
    raise errors.NotFoundError(None, None, f"{s}; No such file or directory")
  _check_target(d, overwrite)
  _call(os.replace, s, s, d)


def copy(src, dst, overwrite=False):
  """Copies a file (AlreadyExistsError if `dst` exists and not `overwrite`)."""
  s, d = _p(src), _p(dst)
  if not os.path.exists(s):
    raise errors.NotFoundError(None, None, f"{s}; No such file or directory")
  _check_target(d, overwrite)
  tmp = f"{d}.tmp{os.getpid()}"
  _call(shutil.copyfile, s, s, tmp)
  os.replace(tmp, d)


def rmtree(path):
  """Deletes a directory and everything under it (NotFoundError if missing)."""
  p = _p(path)
  if not os.path.exists(p):
    raise errors.NotFoundError(None, None, f"{p}; No such file or directory")
  if not os.path.isdir(p):
    raise errors.FailedPreconditionError(None, None, f"{p} is not a directory")
  _call(shutil.rmtree, p, p)


FileStatistics = collections.namedtuple("FileStatistics",
                                        ["length", "mtime_nsec", "is_directory"])


def stat(path):
  """FileStatistics(length, mtime_nsec, is_directory) of a path."""
  p = _p(path)
  st = _call(os.stat, p, p)
  return FileStatistics(st.st_size, st.st_mtime_ns, os.path.isdir(p))


def walk(top, topdown=True, onerror=None):
  """(dirname, subdirectory names, file names) for every directory under `top`;
  nothing for a missing `top`."""
  top = _p(top)
  if not os.path.isdir(top):
    return
  for dirpath, dirnames, filenames in os.walk(top, topdown=topdown, onerror=onerror):
    dirnames.sort()
    yield dirpath, list(dirnames), sorted(filenames)


class GFile:
  """A file object (tf.io.gfile.GFile): modes 'r', 'w', 'a' and their 'b' forms.

  Text modes read and write str (UTF-8), binary modes bytes. The file opens on
  first use; reading a missing file raises NotFoundError.
  """

  def __init__(self, name, mode="r"):
    if mode not in ("r", "rb", "w", "wb", "a", "ab", "r+", "rb+", "w+", "wb+", "a+", "ab+"):
      raise errors.InvalidArgumentError(None, None, f"mode is not 'r' or 'w' or 'a': {mode}")
    self._name = _p(name)
    self._mode = mode
    self._f = None

  @property
  def name(self):
    return self._name

  @property
  def mode(self):
    return self._mode

  def _file(self):
    if self._f is None:
      mode = self._mode if "b" in self._mode else self._mode + "b"
      mode = mode.replace("b+", "+b") if "+" in mode else mode
      self._f = _call(open, self._name, self._name, mode)
    return self._f

  def _out(self, data):
    return data if "b" in self._mode else data.decode("utf-8")

  def _check_read(self):
    if "r" not in self._mode and "+" not in self._mode:
      raise errors.PermissionDeniedError(None, None, "File isn't open for reading")

  def _check_write(self):
    if self._mode.startswith("r") and "+" not in self._mode:
      raise errors.PermissionDeniedError(None, None, "File isn't open for writing")

  def size(self):
    return stat(self._name).length

  def read(self, n=-1):
    self._check_read()
    return self._out(_call(self._file().read, self._name, n))

  def readline(self):
    self._check_read()
    return self._out(self._file().readline())

  def readlines(self):
    self._check_read()
    return [self._out(x) for x in self._file().readlines()]

  def __iter__(self):
    return self

  def __next__(self):
    line = self.readline()
    if not line:
      raise StopIteration
    return line

  next = __next__

  def write(self, data):
    self._check_write()
    if isinstance(data, str):
      data = data.encode("utf-8")
    _call(self._file().write, self._name, bytes(data))

  def seek(self, offset=None, whence=0, position=None):
    if position is not None:
      offset = position
    self._file().seek(offset, whence)

  def tell(self):
    return self._file().tell()

  def seekable(self):
    return True

  def flush(self):
    if self._f is not None:
      self._f.flush()

  def close(self):
    if self._f is not None:
      self._f.close()
      self._f = None

  def __enter__(self):
    return self

  def __exit__(self, *exc):
    self.close()
