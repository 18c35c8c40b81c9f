"""tf.config: virtual CPUs, soft placement, BLAS threads, optimizer options."""
import numpy as np
import pytest

import tensorlet as tf
from tensorlet import context

CPU = tf.config.list_physical_devices("CPU")[0]


@pytest.fixture(autouse=True)
def _restore():
  yield
  tf.config.set_logical_device_configuration(CPU, None)
  tf.config.set_soft_device_placement(True)
  tf.config.optimizer._options.clear()
  tf.config.optimizer.set_experimental_options({})
  tf.config.threading.set_intra_op_parallelism_threads(0)


def test_devices():
  assert CPU == tf.config.PhysicalDevice("/physical_device:CPU:0", "CPU")
  assert tf.config.list_physical_devices("GPU") == []
  assert tf.config.list_logical_devices() == [tf.config.LogicalDevice("/device:CPU:0", "CPU")]
  assert tf.config.get_visible_devices() == [CPU]
  tf.config.set_visible_devices([CPU])
  tf.config.set_visible_devices([], "GPU")
  with pytest.raises(ValueError):
    tf.config.set_visible_devices([], "CPU")


def test_virtual_cpus_can_be_placed_on():
  assert tf.config.get_logical_device_configuration(CPU) is None
  tf.config.set_logical_device_configuration(CPU, [tf.config.LogicalDeviceConfiguration()] * 3)
  names = [d.name for d in tf.config.list_logical_devices("CPU")]
  assert names == ["/device:CPU:0", "/device:CPU:1", "/device:CPU:2"]
  assert len(tf.config.get_logical_device_configuration(CPU)) == 3
  # NOTE: an eager tensor records the device scope it was made in (tensor.py)
  with tf.device("/CPU:2"):
    assert (tf.constant(1.0) + 1).device.endswith("device:CPU:2")
  with tf.device("/CPU:7"):  # soft placement: a device that does not exist runs on CPU:0
    assert (tf.constant(1.0) + 1).device.endswith("device:CPU:0")
  assert tf.config.experimental.VirtualDeviceConfiguration is \
      tf.config.LogicalDeviceConfiguration
  tf.config.experimental.set_virtual_device_configuration(
      CPU, [tf.config.experimental.VirtualDeviceConfiguration()] * 2)
  assert len(tf.config.list_logical_devices()) == 2
  with pytest.raises(ValueError, match="memory limit on CPU"):
    tf.config.set_logical_device_configuration(
        CPU, [tf.config.LogicalDeviceConfiguration(memory_limit=100)])


def test_soft_placement_off_rejects_missing_devices():
  assert tf.config.get_soft_device_placement() is True
  with tf.device("/GPU:0"):
    assert (tf.constant(1.0) + 1).device.endswith("CPU:0")
  tf.config.set_soft_device_placement(False)
  with pytest.raises(tf.errors.InvalidArgumentError, match="Could not satisfy device"):
    with tf.device("/GPU:0"):
      pass
  with tf.device("/CPU:0"):
    pass


def test_intra_op_threads_set_blas_threads():
  threadpoolctl = pytest.importorskip("threadpoolctl")

  def blas():
    return {i["num_threads"] for i in threadpoolctl.threadpool_info()
            if i["user_api"] == "blas"}
  before = blas()
  tf.config.threading.set_intra_op_parallelism_threads(1)
  assert tf.config.threading.get_intra_op_parallelism_threads() == 1
  assert blas() == {1}
  a = np.random.RandomState(0).rand(50, 50)
  np.testing.assert_allclose(tf.matmul(a, a).numpy(), a @ a)
  tf.config.threading.set_intra_op_parallelism_threads(0)
  assert blas() == before
  tf.config.threading.set_inter_op_parallelism_threads(4)
  assert tf.config.threading.get_inter_op_parallelism_threads() == 4
  tf.config.threading.set_inter_op_parallelism_threads(0)
  with pytest.raises(ValueError):
    tf.config.threading.set_intra_op_parallelism_threads(-1)
  with pytest.raises(TypeError):
    tf.config.threading.set_intra_op_parallelism_threads(1.5)


def test_optimizer_options_switch_graph_passes():
  assert tf.config.optimizer.get_experimental_options() == {
      "disable_model_pruning": False, "disable_meta_optimizer": False}

  tf.config.optimizer.set_experimental_options({"constant_folding": False})
  assert tf.config.optimizer.get_experimental_options()["constant_folding"] is False
  assert "fold_constants" in context.disabled_passes()
  tf.config.optimizer.set_experimental_options({"constant_folding": True,
                                                "arithmetic_optimization": False})
  assert context.disabled_passes() == {"simplify", "cse"}
  tf.config.optimizer.set_experimental_options({"arithmetic_optimization": True,
                                                "disable_meta_optimizer": True})
  assert context.disabled_passes() == {"prune", "fold_constants", "cse", "simplify"}

  @tf.function
  def g(x):
    return x * 1.0 + 0.0 + tf.constant(2.0) * tf.constant(3.0)
  np.testing.assert_allclose(g(tf.constant([1.0, 2.0])).numpy(), [7.0, 8.0])
  with pytest.raises(TypeError):
    tf.config.optimizer.set_experimental_options({"constant_folding": "yes"})


def test_optimizer_passes_really_change_the_executed_graph():
  from tensorlet.graph import passes
  seen = []
  real = passes.fold_constants

  def spy(*a):
    seen.append(1)
    return real(*a)
  pipeline = list(passes.PIPELINE)
  passes.PIPELINE[:] = [spy if p is real else p for p in pipeline]
  spy.__name__ = "fold_constants"
  try:
    tf.config.optimizer.set_experimental_options({"constant_folding": False})
    tf.function(lambda x: x + tf.constant(1.0) * 2.0)(tf.constant(1.0))
    assert not seen
    tf.config.optimizer.set_experimental_options({"constant_folding": True})
    tf.function(lambda x: x + tf.constant(1.0) * 2.0)(tf.constant(1.0))
    assert seen
  finally:
    passes.PIPELINE[:] = pipeline


def test_determinism_and_memory_growth():
  tf.config.experimental.enable_op_determinism()
  assert tf.config.experimental.is_op_determinism_enabled()
  tf.config.experimental.set_memory_growth(CPU, True)
  assert tf.config.experimental.get_memory_growth(CPU) is False
  with pytest.raises(ValueError):
    tf.config.experimental.set_memory_growth("GPU:0", True)
