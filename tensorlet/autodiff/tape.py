"""tf.GradientTape: records the ops that touch watched tensors, then runs the
shared reverse pass (backprop.py) over those records."""
import contextlib
import enum
import warnings

from tensorlet import _nest as nest
from tensorlet.autodiff.backprop import backprop, is_differentiable_dtype
from tensorlet.context import ctx
from tensorlet.tensor import Tensor, convert_to_tensor

__all__ = ["GradientTape", "UnconnectedGradients"]


class UnconnectedGradients(enum.Enum):
  NONE = "none"
  ZERO = "zero"


def _handle_of(x):
  h = getattr(x, "_handle", None)
  return h if h is not None else x


class GradientTape:
  """Records operations for automatic differentiation.

  Example:
    >>> x = tf.constant(3.0)
    >>> with tf.GradientTape() as g:
    ...   g.watch(x)
    ...   y = x * x
    >>> g.gradient(y, x).numpy()
    6.0
  """

  def __init__(self, persistent=False, watch_accessed_variables=True):
    self._persistent = persistent
    self._watch_accessed_variables = watch_accessed_variables
    self._clear()
    # NOTE: `_live` is TF's `self._tape is not None`: entering a tape that is not
    # live starts a fresh one; a non-persistent tape stops being live after its
    # one gradient (so it may be entered again and used afresh, as in TF).
    self._live = False
    self._recording = False

  def _clear(self):
    self._records = []
    self._watched = set()
    self._keep = []           # watched tensors stay alive so their ids stay unique
    self._variables = []

  # ------------------------------------------------------------ recording
  def __enter__(self):
    self._push()
    return self

  def __exit__(self, *exc):
    if self._recording:
      self._pop()
    return False

  def _push(self):
    if self._recording:
      raise ValueError("Tape is still recording, This can happen if you try to re-enter an "
                       "already-active tape.")
    if not self._live:
      self._clear()
      self._live = True
    self._recording = True
    ctx.tapes = ctx.tapes + (self,)

  def _pop(self):
    if not self._recording:
      raise ValueError("Tape is not recording.")
    self._recording = False
    ctx.tapes = tuple(t for t in ctx.tapes if t is not self)

  def watch(self, tensor):
    """Ensures `tensor` (a tensor, variable or nested structure of them) is traced."""
    for t in nest.flatten(tensor):
      if hasattr(t, "_handle"):
        self._watch_variable(t)
        continue
      if not isinstance(t, Tensor):
        raise ValueError(f"Passed in object {t!r} of type {type(t).__name__!r}, not tf.Tensor "
                         f"or tf.Variable or ExtensionType.")
      if not is_differentiable_dtype(t.dtype):
        warnings.warn(f"The dtype of the watched tensor must be floating (e.g. tf.float32), "
                      f"got {t.dtype!r}", stacklevel=2)
        continue
      if id(t) not in self._watched:
        self._watched.add(id(t))
        self._keep.append(t)

  def _watch_variable(self, v):
    h = v._handle
    if id(h) not in self._watched:
      self._watched.add(id(h))
      self._keep.append(h)
      self._variables.append(v)

  def watched_variables(self):
    return tuple(self._variables)

  @contextlib.contextmanager
  def stop_recording(self):
    """Temporarily stops recording operations on this tape (other tapes go on).

    Raises:
      RuntimeError: the tape was never entered (or its one gradient was taken).
      ValueError: the tape is not recording now.
    """
    if not self._live:
      raise RuntimeError("Trying to stop recording a tape which is not recording.")
    self._pop()
    try:
      yield
    finally:
      self._push()

  def reset(self):
    """Clears everything recorded and watched, as if the tape were exited and a
    new one entered.

    Raises:
      ValueError: the tape is not recording.
    """
    self._pop()
    self._live = False
    self._push()

  # ----------------------------------------------------------- gradients
  def _check_usable(self):
    if not self._live:
      raise RuntimeError("A non-persistent GradientTape can only be used to compute one set "
                         "of gradients (or jacobians)")
    if self._recording and not self._persistent:
      self._pop()  # NOTE: as TF: a non-persistent tape stops recording at its gradient.

  def _release(self):
    if not self._persistent:
      self._live = False
      variables = self._variables
      self._clear()
      self._variables = variables  # NOTE: as TF, watched_variables() still answers

  def _grad_ids(self, targets, seeds, sources):
    """Runs the reverse pass with this tape paused; returns grads by source id."""
    old = ctx.tapes
    ctx.tapes = tuple(t for t in old if t is not self)
    try:
      ids = [id(s) for s in sources]
      return backprop(self._records, list(zip(targets, seeds)), ids)
    finally:
      ctx.tapes = old

  def gradient(self, target, sources, output_gradients=None,
               unconnected_gradients=UnconnectedGradients.NONE):
    """Gradients of `target` (summed over a nested structure) w.r.t. `sources`.

    Raises:
      RuntimeError: called twice on a non-persistent tape.
      ValueError: an unknown `unconnected_gradients` value.
    """
    self._check_usable()
    unconnected = UnconnectedGradients(unconnected_gradients) \
        if not isinstance(unconnected_gradients, UnconnectedGradients) else unconnected_gradients
    flat_targets = [convert_to_tensor(t) if not isinstance(t, Tensor) and hasattr(t, "_handle")
                    else t for t in nest.flatten(target)]
    for t in flat_targets:
      if not isinstance(t, Tensor):
        raise TypeError(f"Target should be a tf.Tensor or tf.Variable, got {type(t).__name__}")
    flat_sources = nest.flatten(sources)
    for s in flat_sources:
      if not isinstance(s, Tensor) and not hasattr(s, "_handle"):
        raise TypeError(f"Source {s!r} should be a tf.Tensor or tf.Variable, got "
                        f"{type(s).__name__}")
    handles = [_handle_of(s) for s in flat_sources]
    if output_gradients is None:
      from tensorlet.ops.array_ops import ones_like
      old = ctx.tapes
      ctx.tapes = ()
      try:
        seeds = [ones_like(t) for t in flat_targets]
      finally:
        ctx.tapes = old
    else:
      flat_og = nest.flatten(output_gradients)
      if len(flat_og) != len(flat_targets):
        raise ValueError(f"output_gradients has {len(flat_og)} values for {len(flat_targets)} "
                         f"targets; it must have the same structure as target")
      seeds = [convert_to_tensor(g, dtype=t.dtype) if g is not None else None
               for g, t in zip(flat_og, flat_targets)]
    pairs = [(t, s) for t, s in zip(flat_targets, seeds) if s is not None]
    grads = self._grad_ids([p[0] for p in pairs], [p[1] for p in pairs], handles)
    self._release()
    out = []
    for s, h in zip(flat_sources, handles):
      g = grads.get(id(h))
      if g is None and unconnected is UnconnectedGradients.ZERO:
        from tensorlet.ops.array_ops import zeros_like
        g = zeros_like(s)
      out.append(g)
    return nest.pack_sequence_as(sources, out)

  def jacobian(self, target, sources, unconnected_gradients=UnconnectedGradients.NONE,
               parallel_iterations=None, experimental_use_pfor=True):
    """d target[i...] / d source[j...], shaped target.shape + source.shape."""
    from tensorlet.ops import array_ops
    self._check_usable()
    target = convert_to_tensor(target)
    flat_sources = nest.flatten(sources)
    handles = [_handle_of(s) for s in flat_sources]
    n = target.shape.num_elements()
    if n is None:
      raise ValueError("jacobian needs a target of known shape")
    rows = [[] for _ in flat_sources]
    found = [False] * len(flat_sources)
    for i in range(n):
      seed = array_ops.reshape(array_ops.one_hot(i, n, dtype=target.dtype), array_ops.shape(target))
      grads = self._grad_ids([target], [seed], handles)
      for k, (s, h) in enumerate(zip(flat_sources, handles)):
        g = grads.get(id(h))
        found[k] = found[k] or g is not None
        rows[k].append(g if g is not None else array_ops.zeros_like(s))
    self._release()
    out = []
    for k, s in enumerate(flat_sources):
      sshape = s.shape.as_list()
      if n == 0:
        j = array_ops.zeros(target.shape.as_list() + sshape, dtype=s.dtype)
      else:
        j = array_ops.reshape(array_ops.stack(rows[k]), target.shape.as_list() + sshape)
      if not found[k] and unconnected_gradients in (UnconnectedGradients.NONE, "none"):
        j = None
      out.append(j)
    return nest.pack_sequence_as(sources, out)

  def batch_jacobian(self, target, source, unconnected_gradients=UnconnectedGradients.NONE,
                     parallel_iterations=None, experimental_use_pfor=True):
    """Per-example jacobian: result[b, i..., j...] = d target[b, i...] / d source[b, j...]."""
    from tensorlet.ops import array_ops
    self._check_usable()
    target = convert_to_tensor(target)
    tshape = target.shape.as_list()
    sshape = source.shape.as_list()
    if tshape[0] != sshape[0]:
      raise ValueError(f"Need first dimension of target shape ({tshape}) and source shape "
                       f"({sshape}) to match.")
    b = tshape[0]
    m = 1
    for d in tshape[1:]:
      m *= d
    h = _handle_of(source)
    cols = []
    found = False
    for j in range(m):
      seed = array_ops.reshape(
          array_ops.tile(array_ops.reshape(array_ops.one_hot(j, m, dtype=target.dtype), [1, m]),
                         [b, 1]), tshape)
      g = self._grad_ids([target], [seed], [h]).get(id(h))
      found = found or g is not None
      cols.append(g if g is not None else array_ops.zeros(sshape, dtype=target.dtype))
    self._release()
    if not found and unconnected_gradients in (UnconnectedGradients.NONE, "none"):
      return None
    j = array_ops.stack(cols, axis=1)
    return array_ops.reshape(j, tshape + sshape[1:])

