"""Saving so that a crash at any moment loses nothing.

Three shapes of save, each visible all at once or not at all:
- one file: written to a temporary name beside it, fsynced, `os.replace`d;
- a checkpoint (index + data file under fixed, TF-compatible names): the new
  data file replaces the old one first and the index last, and the old data
  stays reachable as `<data>.prev` until the new index is in place, so a kill
  between the two replaces leaves the old index with its old data; readers look
  there when the data file does not match the index (`previous_data`);
- a directory (a SavedModel): built completely under a temporary name beside
  it and exchanged with the old one in one `renameat2(RENAME_EXCHANGE)` where
  the kernel offers it, else with two renames that a later load repairs
  (`recover_directory`).
Temporary files of killed saves carry a recognisable name and are removed by
the next save of the same target.
"""
import ctypes
import glob
import os
import shutil
import tempfile

__all__ = ["atomic_write", "tmp_prefix", "remove_temporaries", "fsync_dir",
           "prev_path", "exchange_directory", "recover_directory", "staging_dir"]


def tmp_prefix(path):
  return ".tmp-" + os.path.basename(path) + "-"


def fsync_dir(d):
  """Makes the directory entries of `d` (renames, creations) durable."""
  try:
    fd = os.open(d or ".", os.O_RDONLY)
  except OSError:
    return
  try:
    os.fsync(fd)
  except OSError:
    pass  # NOTE: some file systems refuse fsync on directories; the rename stands.
  finally:
    os.close(fd)


def atomic_write(path, payload):
  """Writes bytes to `path` through a temporary file in the same directory."""
  d = os.path.dirname(path) or "."
  fd, tmp = tempfile.mkstemp(dir=d, prefix=tmp_prefix(path))
  try:
    with os.fdopen(fd, "wb") as f:
      f.write(payload)
      f.flush()
      os.fsync(f.fileno())
    os.replace(tmp, path)
  except BaseException:
    try:
      os.unlink(tmp)
    except OSError:
      pass
    raise
  fsync_dir(d)


def remove_temporaries(path):
  """Removes what killed saves of `path` left behind."""
  d = os.path.dirname(path) or "."
  for p in glob.glob(os.path.join(glob.escape(d), glob.escape(tmp_prefix(path)) + "*")):
    try:
      if os.path.isdir(p) and not os.path.islink(p):
        shutil.rmtree(p, ignore_errors=True)
      else:
        os.unlink(p)
    except OSError:
      pass


def prev_path(data_path):
  return data_path + ".prev"


# ------------------------------------------------------------- directories

_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


def _renameat2():
  try:
    fn = ctypes.CDLL(None, use_errno=True).renameat2
  except (OSError, AttributeError):
    return None
  fn.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p,
                 ctypes.c_uint]
  fn.restype = ctypes.c_int
  return fn


def staging_dir(path):
  """A fresh temporary directory beside `path` to build its new version in."""
  parent = os.path.dirname(os.path.abspath(path))
  os.makedirs(parent, exist_ok=True)
  return tempfile.mkdtemp(dir=parent, prefix=tmp_prefix(path))


def _old_name(path):
  return os.path.join(os.path.dirname(os.path.abspath(path)),
                      ".old-" + os.path.basename(os.path.abspath(path)))


def exchange_directory(staged, path):
  """Makes the complete directory `staged` visible as `path` and removes the
  previous `path` (if any)."""
  path = os.path.abspath(path)
  parent = os.path.dirname(path)
  fsync_dir(staged)
  if not os.path.exists(path):
    os.rename(staged, path)
    fsync_dir(parent)
    return
  fn = _renameat2()
  if fn is not None and fn(_AT_FDCWD, os.fsencode(staged), _AT_FDCWD, os.fsencode(path),
                           _RENAME_EXCHANGE) == 0:
    fsync_dir(parent)
    shutil.rmtree(staged, ignore_errors=True)   # now holds the old version
    return
  # NOTE: no atomic exchange here (old kernel, other OS, some file systems):
  # between these two renames `path` is missing and `recover_directory` brings
  # the old version back on the next load or save.
  old = _old_name(path)
  shutil.rmtree(old, ignore_errors=True)
  os.rename(path, old)
  os.rename(staged, path)
  fsync_dir(parent)
  shutil.rmtree(old, ignore_errors=True)


def recover_directory(path):
  """Puts back the previous version of `path` if a save died between the two
  renames of `exchange_directory`'s fallback."""
  path = os.path.abspath(path)
  old = _old_name(path)
  if not os.path.exists(path) and os.path.isdir(old):
    os.rename(old, path)
