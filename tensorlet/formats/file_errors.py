"""OSError -> TensorFlow's error types, as its file system layer reports them."""
import errno

from tensorlet import errors

__all__ = ["os_error"]


def os_error(e, path):
  """The tf.errors exception for an OSError on `path`."""
  what = e.strerror or str(e)
  if isinstance(e, FileNotFoundError) or e.errno == errno.ENOENT:
    return errors.NotFoundError(None, None, f"{path}; No such file or directory")
  if isinstance(e, PermissionError):
    return errors.PermissionDeniedError(None, None, f"{path}; Permission denied")
  if isinstance(e, FileExistsError):
    return errors.AlreadyExistsError(None, None, f"{path}; File exists")
  if isinstance(e, (IsADirectoryError, NotADirectoryError)):
    return errors.FailedPreconditionError(None, None, f"{path}; {what}")
  return errors.UnknownError(None, None, f"{path}; {what}")
