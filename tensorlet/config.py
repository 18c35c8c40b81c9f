"""tf.config: devices, threads, graph optimizer options and execution switches.

tensorlet runs every kernel with NumPy on the CPU. Virtual CPUs configured
with `set_logical_device_configuration` are names ops may be placed on (all
run on the same CPU, as TF's virtual CPUs share one host). Intra-op threads
are the BLAS threads NumPy uses, set through threadpoolctl (the optional
extra `tensorlet[threads]`).
"""
import collections

from tensorlet import context as _context
from tensorlet.context import ctx as _ctx


class PhysicalDevice(collections.namedtuple("PhysicalDevice", ["name", "device_type"])):
  """A physical device: tensorlet has one, the CPU."""


class LogicalDevice(collections.namedtuple("LogicalDevice", ["name", "device_type"])):
  """A device ops may be placed on (`/device:CPU:i`)."""


class LogicalDeviceConfiguration(collections.namedtuple(
    "LogicalDeviceConfiguration",
    ["memory_limit", "experimental_priority", "experimental_device_ordinal"])):
  """Configuration of one virtual device (CPUs accept no memory limit)."""

  def __new__(cls, memory_limit=None, experimental_priority=None,
              experimental_device_ordinal=None):
    return super().__new__(cls, memory_limit, experimental_priority,
                           experimental_device_ordinal)


_CPU = PhysicalDevice("/physical_device:CPU:0", "CPU")
_virtual = {}  # physical device -> list of LogicalDeviceConfiguration


def list_physical_devices(device_type=None):
  """Only the CPU: tensorlet runs its kernels with NumPy."""
  if device_type is None or device_type.upper() == "CPU":
    return [_CPU]
  return []


def list_logical_devices(device_type=None):
  """The CPU, or the virtual CPUs configured on it."""
  if device_type is None or device_type.upper() == "CPU":
    n = _context.logical_cpu_count()
    return [LogicalDevice(f"/device:CPU:{i}", "CPU") for i in range(n)]
  return []


def _check_device(device):
  if not isinstance(device, PhysicalDevice):
    raise ValueError(f"Unrecognized device: {device!r}")
  if device != _CPU:
    raise ValueError(f"Unrecognized device: {device!r}")


def set_logical_device_configuration(device, logical_devices):
  """Splits the CPU into len(logical_devices) virtual CPUs (None: back to one)."""
  _check_device(device)
  if logical_devices is None:
    _virtual.pop(device, None)
    _context.set_logical_cpu_count(1)
    return
  configs = list(logical_devices)
  for c in configs:
    if not isinstance(c, LogicalDeviceConfiguration):
      raise ValueError(f"logical_devices must be LogicalDeviceConfiguration objects, got {c!r}")
    if c.memory_limit is not None:
      raise ValueError("Setting memory limit on CPU virtual devices is currently not supported")
    if c.experimental_priority is not None:
      raise ValueError("Setting experimental_priority on CPU virtual devices is currently not "
                       "supported")
  if not configs:
    raise ValueError("logical_devices must list at least one LogicalDeviceConfiguration")
  _virtual[device] = configs
  _context.set_logical_cpu_count(len(configs))


def get_logical_device_configuration(device):
  _check_device(device)
  return _virtual.get(device)


def get_visible_devices(device_type=None):
  return list_physical_devices(device_type)


def set_visible_devices(devices, device_type=None):
  """The CPU cannot be hidden; other device types have no devices to show."""
  devs = list(devices) if isinstance(devices, (list, tuple)) else [devices]
  for d in devs:
    if d != _CPU:
      raise ValueError(f"Unrecognized device: {d!r}")
  if (device_type is None or device_type.upper() == "CPU") and not devs:
    raise ValueError("CPU must always be visible: tensorlet runs every op on it")


def set_soft_device_placement(enabled):
  """When False, ops placed on a device that does not exist raise instead of using the CPU."""
  _context.set_soft_placement(bool(enabled))


def get_soft_device_placement():
  return _context.soft_placement()


def get_device_details(device):
  _check_device(device)
  return {}


def run_functions_eagerly(run_eagerly):
  """When True, tf.function runs its Python function eagerly instead of a graph."""
  _ctx.run_functions_eagerly = bool(run_eagerly)


def functions_run_eagerly():
  return _ctx.run_functions_eagerly


experimental_run_functions_eagerly = run_functions_eagerly
experimental_functions_run_eagerly = functions_run_eagerly


class experimental:  # noqa: N801 - TF's namespace
  """tf.config.experimental."""
  VirtualDeviceConfiguration = LogicalDeviceConfiguration
  set_virtual_device_configuration = staticmethod(set_logical_device_configuration)
  get_virtual_device_configuration = staticmethod(get_logical_device_configuration)
  list_physical_devices = staticmethod(list_physical_devices)
  list_logical_devices = staticmethod(list_logical_devices)
  get_visible_devices = staticmethod(get_visible_devices)
  set_visible_devices = staticmethod(set_visible_devices)
  get_device_details = staticmethod(get_device_details)
  _determinism = False

  @staticmethod
  def set_memory_growth(device, enable):
    """Memory growth concerns GPUs; the CPU accepts and ignores it, as TF's does."""
    _check_device(device)

  @staticmethod
  def get_memory_growth(device):
    _check_device(device)
    return False

  @staticmethod
  def enable_op_determinism():
    """tensorlet's kernels are deterministic already: same inputs, same results."""
    experimental._determinism = True

  @staticmethod
  def is_op_determinism_enabled():
    return experimental._determinism


class threading:  # noqa: N801 - TF's namespace
  """Thread counts: intra-op threads are NumPy's BLAS threads.

  0 (the default) lets tensorlet decide per op from its size and the load of the
  machine (tensorlet/ops/_blas_threads.py); n > 0 gives every op n threads. tensorlet
  runs independent ops one after another, so the inter-op count is recorded for its
  getter but starts no threads.
  """
  _inter = 0
  _intra = 0

  @staticmethod
  def set_inter_op_parallelism_threads(num_threads):
    threading._inter = _thread_count(num_threads)

  @staticmethod
  def get_inter_op_parallelism_threads():
    return threading._inter

  @staticmethod
  def set_intra_op_parallelism_threads(num_threads):
    n = _thread_count(num_threads)
    try:
      import threadpoolctl  # noqa: F401
    except ImportError:
      raise ImportError("tf.config.threading.set_intra_op_parallelism_threads sets NumPy's "
                        "BLAS threads through threadpoolctl: pip install "
                        "'tensorlet[threads]'") from None
    from tensorlet.ops import _blas_threads
    _blas_threads.set_fixed(n)
    threading._intra = n

  @staticmethod
  def get_intra_op_parallelism_threads():
    return threading._intra


def _thread_count(n):
  if isinstance(n, bool) or not isinstance(n, int) and not hasattr(n, "__index__"):
    raise TypeError(f"num_threads must be an integer, got {n!r}")
  n = int(n)
  if n < 0:
    raise ValueError(f"num_threads must be >= 0, got {n}")
  return n


# ------------------------------------------------------------- optimizer

# TF's Grappler option names; those tensorlet's graph passes implement map to
# them (see tensorlet/graph/passes.py); the rest are accepted and recorded.
_PASS_OPTIONS = ("constant_folding", "arithmetic_optimization", "dependency_optimization",
                 "common_subgraph_elimination")
_BOOL_OPTIONS = _PASS_OPTIONS + (
    "layout_optimizer", "shape_optimization", "remapping", "loop_optimization",
    "function_optimization", "debug_stripper", "disable_model_pruning",
    "scoped_allocator_optimization", "pin_to_host_optimization", "implementation_selector",
    "auto_mixed_precision", "disable_meta_optimizer", "auto_parallel")


class optimizer:  # noqa: N801 - TF's namespace
  """Graph optimizer options: constant_folding, arithmetic_optimization (x*1, x+0 ...),
  common_subgraph_elimination, dependency_optimization and disable_model_pruning switch
  tensorlet's graph passes; disable_meta_optimizer turns them all off."""
  _options = {}
  _jit = False

  @staticmethod
  def set_experimental_options(options):
    if not isinstance(options, dict):
      raise TypeError(f"options must be a dict, got {type(options).__name__}")
    for k, v in options.items():
      if k in _BOOL_OPTIONS and not isinstance(v, bool):
        raise TypeError(f"option {k!r} must be a bool, got {v!r}")
    optimizer._options.update(options)
    _ctx_set_passes()

  @staticmethod
  def get_experimental_options():
    out = {k: v for k, v in optimizer._options.items()}
    out.setdefault("disable_model_pruning", False)
    out.setdefault("disable_meta_optimizer", False)
    return out

  @staticmethod
  def set_jit(enabled):
    """XLA does not exist here; tensorlet's graphs are always compiled to Python."""
    optimizer._jit = enabled

  @staticmethod
  def get_jit():
    return "" if not optimizer._jit else ("autoclustering" if optimizer._jit is True else
                                          str(optimizer._jit))


def _ctx_set_passes():
  o = optimizer._options
  off = set()
  if o.get("disable_meta_optimizer"):
    off = {"prune", "fold_constants", "cse", "simplify"}
  if o.get("constant_folding") is False:
    off.add("fold_constants")
  if o.get("arithmetic_optimization") is False:
    off.add("simplify")
  if o.get("common_subgraph_elimination") is False or \
      o.get("arithmetic_optimization") is False:
    off.add("cse")
  if o.get("dependency_optimization") is False or o.get("disable_model_pruning"):
    off.add("prune")
  _context.set_disabled_passes(off)


from tensorlet._unsupported import getattr_for as _getattr_for  # noqa: E402
__getattr__ = _getattr_for("tf.config", __name__)
