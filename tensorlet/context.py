"""The one execution context: eager or graph-building, active tapes, scopes.

`execute` (ops/registry.py) is the only reader on the hot path: it looks at
`ctx.graph` (None while executing eagerly) and `ctx.tapes` (the tapes that
are recording now). Everything else here changes those two fields or keeps
scope bookkeeping.
"""
import threading

__all__ = ["ctx", "executing_eagerly", "inside_function", "device", "name_scope", "init_scope",
           "control_dependencies"]


class _Context(threading.local):

  def __init__(self):
    self.graph = None            # FuncGraph being built, or None when eager
    self.tapes = ()              # tuple of recording GradientTapes, outermost first
    self.device = ""             # current tf.device string
    self.scope = ""              # current name scope, "a/b/" form
    self.run_functions_eagerly = False
    self.variable_watchers = ()  # custom_gradient's collectors of accessed variables
    self.variable_creator = None  # tf.function's first-trace-only rule hooks in here
    self.lifted = 0              # init_scopes entered from inside a trace


ctx = _Context()


def executing_eagerly():
  """True unless a graph (a `tf.function` trace) is being built."""
  return ctx.graph is None


def inside_function():
  """True while a tf.function is traced, also inside its tf.init_scope (as TF)."""
  return ctx.graph is not None or ctx.lifted > 0


class init_scope:
  """tf.init_scope(): runs its body eagerly, lifted out of the graph being traced.

  Ops run now (their results are eager tensors the trace captures as constants),
  variables are created once, no gradient tape records and no control dependency
  of the trace applies (as TF's scope). The device scope stays, as TF 2.21's.
  """

  def __enter__(self):
    self._saved = (ctx.graph, ctx.tapes, ctx.lifted)
    if ctx.graph is not None:
      ctx.lifted += 1
    ctx.graph, ctx.tapes = None, ()
    return None

  def __exit__(self, *exc):
    ctx.graph, ctx.tapes, ctx.lifted = self._saved
    return False


class control_dependencies:
  """tf.control_dependencies(control_inputs): ops built inside run after these.

  In a graph, each op created in the block takes the ops of `control_inputs`
  (tensors or operations of that graph) as control inputs, so they run, and run
  first, even when nothing uses their outputs; `None` clears the enclosing
  blocks' dependencies. Executing eagerly everything already ran: the block does
  nothing, except that callables among `control_inputs` are called (as TF).
  """

  def __init__(self, control_inputs):
    self._inputs = control_inputs

  def __enter__(self):
    g = self._graph = ctx.graph
    if g is None:
      for c in self._inputs or ():
        if callable(c):
          c()
      return None
    self._saved = g.control_dependencies_push(self._inputs)
    return None

  def __exit__(self, *exc):
    if self._graph is not None:
      self._graph.control_dependencies_pop(self._saved)
    return False


_DEVICE_PREFIX = "/job:localhost/replica:0/task:0/device:"

# Process-wide settings of tf.config (devices, placement, graph passes).
_settings = {"logical_cpus": 1, "soft_placement": True, "disabled_passes": frozenset()}


def logical_cpu_count():
  return _settings["logical_cpus"]


def set_logical_cpu_count(n):
  _settings["logical_cpus"] = int(n)


def soft_placement():
  return _settings["soft_placement"]


def set_soft_placement(enabled):
  _settings["soft_placement"] = bool(enabled)


def disabled_passes():
  """Names of graph passes tf.config.optimizer switched off."""
  return _settings["disabled_passes"]


def set_disabled_passes(names):
  _settings["disabled_passes"] = frozenset(names)


def _device_parts(spec):
  s = spec.strip().lstrip("/")
  parts = [p for p in s.split("/") if p and not p.startswith(("job:", "replica:", "task:"))]
  dev = parts[-1] if parts else "CPU:0"
  if dev.startswith("device:"):
    dev = dev[len("device:"):]
  kind, _, idx = dev.partition(":")
  return kind.upper(), idx or "0"


def _exists(kind, idx):
  return kind == "CPU" and idx.isdigit() and int(idx) < logical_cpu_count()


def canonical_device(spec):
  """'/cpu:0', 'gpu:1', '/device:CPU:0' -> TF's full name of the device that runs the op.

  Devices that do not exist fall back to CPU:0 (TF's soft placement).
  """
  if not spec:
    return _DEVICE_PREFIX + "CPU:0"
  kind, idx = _device_parts(spec)
  if not _exists(kind, idx):
    return _DEVICE_PREFIX + "CPU:0"
  return f"{_DEVICE_PREFIX}{kind}:{idx}"


class device:
  """tf.device(name): a scope that places ops. Only the CPU runs kernels today."""

  def __init__(self, device_name):
    if device_name is not None and not isinstance(device_name, str):
      if callable(device_name):
        raise RuntimeError("tf.device does not support functions when eager execution is enabled.")
      raise TypeError(f"tf.device expects a string, got {type(device_name).__name__}")
    self._name = device_name or ""

  def __enter__(self):
    if self._name and not soft_placement():
      kind, idx = _device_parts(self._name)
      if not _exists(kind, idx):
        from tensorlet.errors import InvalidArgumentError
        cpus = ", ".join(f"{_DEVICE_PREFIX}CPU:{i}" for i in range(logical_cpu_count()))
        raise InvalidArgumentError(
            None, None, f"Could not satisfy device specification '{_DEVICE_PREFIX}{kind}:"
            f"{idx}'. enable_soft_placement=0. Supported device types [CPU]. All available "
            f"devices [{cpus}].")
    self._old = ctx.device
    ctx.device = self._name
    return self

  def __exit__(self, *exc):
    ctx.device = self._old
    return False


class name_scope:
  """tf.name_scope(name): prefixes op names built in graphs; a no-op eagerly."""

  def __init__(self, name, *args, **kwargs):
    if name is not None and not isinstance(name, str):
      raise ValueError(f"name for name_scope must be a string, got {name!r}")
    self._name = name

  def __enter__(self):
    self._old = ctx.scope
    if self._name is None or self._name == "":
      ctx.scope = ""
    elif self._name.endswith("/"):
      ctx.scope = self._name
    else:
      g = ctx.graph
      base = self._name
      if g is not None:
        base = g.unique_name(ctx.scope + self._name)
      else:
        base = ctx.scope + self._name
      ctx.scope = base + "/"
    return ctx.scope

  def __exit__(self, *exc):
    ctx.scope = self._old
    return False
