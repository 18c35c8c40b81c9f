"""tf.distribute.experimental."""
import importlib as _importlib

from tensorlet import _unsupported
from tensorlet.distribute.cross_device_ops import (  # noqa: F401
    CommunicationImplementation, CommunicationOptions)
from tensorlet.distribute.input_lib import ValueContext  # noqa: F401

CollectiveCommunication = CommunicationImplementation

_missing = _unsupported.getattr_for("tf.distribute.experimental", __name__)


_FROM_MULTI_WORKER = {"MultiWorkerMirroredStrategy": "_ExperimentalMultiWorkerMirroredStrategy"}


def __getattr__(name):
  if name in _FROM_MULTI_WORKER:
    try:
      m = _importlib.import_module("tensorlet.distribute.multi_worker_mirrored_strategy")
    except ModuleNotFoundError as e:
      if e.name != "tensorlet.distribute.multi_worker_mirrored_strategy":
        raise
      return _missing(name)
    return getattr(m, _FROM_MULTI_WORKER[name])
  return _missing(name)
