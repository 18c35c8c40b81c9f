"""MirroredStrategy (one replica per local device, mirrored variables) and
OneDeviceStrategy (one replica, plain variables)."""
from tensorlet.distribute.distribute_lib import Strategy, StrategyExtended

__all__ = ["MirroredStrategy", "MirroredExtended", "OneDeviceStrategy"]


def _local_devices():
  # NOTE: as TF without GPUs: one replica per logical CPU (virtual CPUs included).
  from tensorlet.context import logical_cpu_count
  return [f"/device:CPU:{i}" for i in range(logical_cpu_count())]


def _check_devices(devices):
  from tensorlet.context import _device_parts, _exists
  out = []
  for d in devices:
    name = getattr(d, "name", d)
    if not isinstance(name, str):
      raise ValueError(f"devices must be device names, got {d!r}")
    kind, idx = _device_parts(name)
    if not _exists(kind, idx):
      raise ValueError(f"Device {name!r} is not a logical device of this process; "
                       f"tf.config.list_logical_devices() lists them (virtual CPUs come "
                       f"from tf.config.set_logical_device_configuration)")
    out.append(name)
  if len(set(out)) != len(out):
    raise ValueError(f"No duplicates allowed in `devices` argument: {list(devices)}")
  if not out:
    raise ValueError("Got an empty `devices` list. Please make sure the `devices` you pass "
                     "in is not empty.")
  return out


class MirroredExtended(StrategyExtended):
  """MirroredStrategy's machinery; `collectives` is the cross-worker hook (see
  collectives.py): None means this process alone."""

  def __init__(self, container_strategy, devices=None, collectives=None):
    devices = _local_devices() if devices is None else _check_devices(devices)
    super().__init__(container_strategy, devices, collectives, distribute_variables=True)


class MirroredStrategy(Strategy):
  """Synchronous data parallelism over the local devices (e.g. virtual CPUs).

  Args:
    devices: device names, one replica each (default: the first CPU; GPUs are not
      available in tensorlet).
    cross_device_ops: accepted for compatibility; reductions are exact sums in NumPy.
    collectives: (tensorlet) the worker group for multi-worker training; see
      tensorlet/distribute/collectives.py.
  """

  def __init__(self, devices=None, cross_device_ops=None, *, collectives=None):
    from tensorlet.distribute.cross_device_ops import CrossDeviceOps
    if cross_device_ops is not None and not isinstance(cross_device_ops, CrossDeviceOps):
      raise ValueError(f"cross_device_ops must be a tf.distribute.CrossDeviceOps, got "
                       f"{cross_device_ops!r}")
    super().__init__(MirroredExtended(self, devices, collectives))


class OneDeviceStrategy(Strategy):
  """Everything on one device: one replica, plain variables."""

  def __init__(self, device):
    super().__init__(StrategyExtended(self, _check_devices([device])))
