import numpy as np
import pytest

import tensorlet as tf
from tensorlet.distribute.collectives import Collectives


@pytest.fixture
def two_cpus():
  """Two virtual CPUs for the test, one CPU again afterwards."""
  cpu = tf.config.list_physical_devices("CPU")[0]
  tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
  yield ["/cpu:0", "/cpu:1"]
  tf.config.set_logical_device_configuration(cpu, None)


class FakeWorkers(Collectives):
  """Worker `rank` of `size` in one process: the other workers are taken to hold the
  same values as this one (so a sum is size times the value); every call is recorded."""

  def __init__(self, rank=0, size=2):
    self.rank, self.size = rank, size
    self.calls = []

  def all_reduce(self, arrays, op="sum"):
    self.calls.append(("all_reduce", [np.array(a) for a in arrays], op))
    return [np.asarray(a) * self.size if op == "sum" else np.array(a) for a in arrays]

  def broadcast(self, arrays, root=0):
    self.calls.append(("broadcast", len(arrays), root))
    return [np.array(a) for a in arrays]

  def all_gather(self, array, axis=0):
    self.calls.append(("all_gather", np.shape(array), axis))
    return np.concatenate([array] * self.size, axis)

  def barrier(self):
    self.calls.append(("barrier",))


@pytest.fixture
def fake_workers():
  return FakeWorkers


@pytest.fixture(autouse=True)
def _forget_fake_workers():
  """A fake multi-worker strategy names this process's worker; later tests run alone."""
  yield
  from tensorlet.distribute import _state
  _state.worker_group = None
