"""Errors raised while tracing or running a tf.function, shown as TF shows them.

An error raised in the user's code while tensorlet traces it gets TF's
"in user code:" block (the user's file:line chain and source lines, then the
original message), and the traceback loses tensorlet's own frames. Setting the
environment variable TENSORLET_TRACEBACK=full keeps every frame (the message
still gets its user-code block), as TF's tf.debugging.disable_traceback_filtering.
"""
import functools
import linecache
import os
import types

import numpy as np

__all__ = ["prepared", "user_block", "filtering_enabled", "filter_traceback", "filter_methods"]

_INTERNAL = (os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep,
             os.path.dirname(os.path.abspath(np.__file__)) + os.sep, "<frozen ")


def filtering_enabled():
  return os.environ.get("TENSORLET_TRACEBACK", "").lower() != "full"


def _internal(filename):
  return filename.startswith(_INTERNAL)


def _frames(tb):
  while tb is not None:
    yield tb
    tb = tb.tb_next


def _user_block(e, frames):
  """The user frames called from tensorlet (the traced function and what it calls)."""
  seen_internal, user = False, []
  for tb in frames:
    code = tb.tb_frame.f_code
    if _internal(code.co_filename):
      seen_internal = True
    elif seen_internal:
      user.append((code.co_filename, tb.tb_lineno, code.co_name))
  if not user:
    return None
  lines = ["in user code:", ""]
  for filename, lineno, name in user:
    lines.append(f'    File "{filename}", line {lineno}, in {name}  *')
    src = linecache.getline(filename, lineno).strip()
    if src:
      lines.append(f"        {src}")
  # TF indents every line of a message of several lines under the frames
  message = f"{type(e).__name__}: {_message(e)}".replace("\n", "\n    ")
  lines += ["", f"    {message}", ""]
  return "\n".join(lines)


def user_block(e):
  """TF's "in user code:" text for `e` (the user frames its traceback holds under
  tensorlet's), or None where it passed through no user frame."""
  return _user_block(e, list(_frames(e.__traceback__)))


def _message(e):
  return e.message if hasattr(e, "_message") else str(e)


def _rewrite(e, text):
  """Puts `text` in place of the message of `e` (same object and type); False
  where the exception's message is not a plain string argument."""
  if hasattr(e, "_message"):  # tf.errors.OpError
    e._message = text
    e.args = (text,)
    return True
  if type(e).__str__ is not BaseException.__str__ or len(e.args) != 1 or \
      not isinstance(e.args[0], str) or isinstance(e, KeyError):
    return False
  e.args = (text,)
  return True


def _filtered(tb):
  keep = [t for t in _frames(tb) if not _internal(t.tb_frame.f_code.co_filename)]
  out = None
  for t in reversed(keep):
    out = types.TracebackType(out, t.tb_frame, t.tb_lasti, t.tb_lineno)
  return out


def prepared(e):
  """`e` (caught at a tf.function's entry) with TF's user-code message and,
  unless TENSORLET_TRACEBACK=full, without tensorlet's frames: `raise prepared(e)`."""
  if not getattr(e, "_tl_user_code", False):
    e._tl_user_code = True
    frames = list(_frames(e.__traceback__))
    block = _user_block(e, frames)
    if block is not None:
      _rewrite(e, block)
  if filtering_enabled():
    return e.with_traceback(_filtered(e.__traceback__))
  return e


def filter_traceback(fn):
  """Decorates a public entry point (Dataset.map, Model.fit, ...) so an error
  that `prepared` marked loses the tensorlet frames it gathered on the way out,
  as TF's and Keras' public APIs filter theirs."""
  @functools.wraps(fn)
  def entry(*args, **kwargs):
    try:
      return fn(*args, **kwargs)
    except Exception as e:
      if getattr(e, "_tl_user_code", False) and filtering_enabled():
        raise e.with_traceback(_filtered(e.__traceback__))
      raise
  return entry


def filter_methods(cls, names):
  """Applies filter_traceback to the methods `names` of `cls`."""
  for n in names:
    setattr(cls, n, filter_traceback(cls.__dict__[n]))
