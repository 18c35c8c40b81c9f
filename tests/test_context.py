"""tf.is_tensor, tf.init_scope, tf.errors classes and tensor devices, as TF 2.21 does."""
import numpy as np
import pytest

import tensorlet as tf


def test_is_tensor_matches_tf():
  # NOTE: values from TF 2.21: tensors, variables, sparse and ragged are tensors;
  # NumPy values, Python numbers, datasets, specs and TensorArrays are not.
  assert tf.is_tensor(tf.constant(1)) is True
  assert tf.is_tensor(tf.Variable(1.0)) is True
  assert tf.is_tensor(tf.SparseTensor([[0]], [1.0], [2])) is True
  assert tf.is_tensor(tf.ragged.constant([[1], []])) is True
  for x in (np.array(1), np.float32(1), 1, [1.0], tf.TensorSpec([1]),
            tf.data.Dataset.range(3), tf.TensorArray(tf.float32, 1)):
    assert tf.is_tensor(x) is False, x
  seen = []

  @tf.function
  def f(x):
    seen.append(tf.is_tensor(x))
    return x
  f(tf.constant(1))
  assert seen == [True]


def test_init_scope_lifts_ops_and_variables_out_of_the_trace():
  vs, inside = [], []

  @tf.function
  def f(x):
    with tf.init_scope():
      inside.append(tf.executing_eagerly())
      if not vs:
        vs.append(tf.Variable(2.0))
      k = tf.constant(3.0) * 2
      inside.append(k.numpy())
    assert not tf.executing_eagerly()
    return x * vs[0] + k
  out = f(tf.constant(1.0))
  assert out.dtype == tf.float32 and out.numpy() == 8.0
  assert inside[:2] == [True, 6.0]
  assert f(tf.constant(2.0)).numpy() == 10.0
  with tf.init_scope():
    assert tf.executing_eagerly()


def test_init_scope_pauses_the_tape():
  x = tf.Variable(2.0)
  with tf.GradientTape(persistent=True) as t:
    with tf.init_scope():
      y = x * x
    z = x * 3
  assert t.gradient(y, x) is None
  assert t.gradient(z, x).numpy() == 3.0


def test_error_classes_as_tf():
  names = ["AbortedError", "AlreadyExistsError", "CancelledError", "DataLossError",
           "DeadlineExceededError", "FailedPreconditionError", "InternalError",
           "InvalidArgumentError", "NotFoundError", "OpError", "OperatorNotAllowedInGraphError",
           "OutOfRangeError", "PermissionDeniedError", "ResourceExhaustedError",
           "UnauthenticatedError", "UnavailableError", "UnimplementedError", "UnknownError"]
  for n in names:
    assert isinstance(getattr(tf.errors, n), type), n
  # NOTE: as TF: OperatorNotAllowedInGraphError is a TypeError, not an OpError.
  e = tf.errors.OperatorNotAllowedInGraphError("msg")
  assert isinstance(e, TypeError) and not isinstance(e, tf.errors.OpError)
  assert str(e) == "msg" and e.args == ("msg",)
  assert tf.errors.InvalidArgumentError(None, None, "m").error_code == tf.errors.INVALID_ARGUMENT


def test_bool_of_symbolic_tensor_raises_operator_not_allowed():
  f = tf.function(lambda x: bool(x), autograph=False)
  with pytest.raises(tf.errors.OperatorNotAllowedInGraphError, match="Python `bool`"):
    f(tf.constant(True))


def test_device_is_recorded_where_the_tensor_was_made():
  with tf.device("/GPU:0"):  # no GPU: soft placement runs it on the CPU, as TF
    a = tf.constant(1.0)
    b = a + 1
    assert b.device == "/job:localhost/replica:0/task:0/device:CPU:0"
  assert a.device == b.device == "/job:localhost/replica:0/task:0/device:CPU:0"
  assert not any(d.device_type == "GPU" for d in tf.config.list_physical_devices())
  tf.config.set_logical_device_configuration(
      tf.config.list_physical_devices("CPU")[0], [tf.config.LogicalDeviceConfiguration()] * 2)
  try:
    with tf.device("/CPU:1"):
      c = tf.constant(1.0) * 2
    assert c.device.endswith("device:CPU:1")  # kept after the scope ends
    assert (c + 1).device.endswith("device:CPU:0")
  finally:
    tf.config.set_logical_device_configuration(
        tf.config.list_physical_devices("CPU")[0], [tf.config.LogicalDeviceConfiguration()])


def test_missing_names_say_they_are_not_implemented():
  for get, where in [(lambda: tf.not_a_thing, "tf.not_a_thing"),
                     (lambda: tf.math.not_a_thing, "tf.math.not_a_thing"),
                     (lambda: tf.nn.not_a_thing, "tf.nn.not_a_thing"),
                     (lambda: tf.keras.not_a_thing, "tf.keras.not_a_thing"),
                     (lambda: tf.keras.layers.NotALayer, "tf.keras.layers.NotALayer"),
                     (lambda: tf.io.not_a_thing, "tf.io.not_a_thing"),
                     (lambda: tf.train.not_a_thing, "tf.train.not_a_thing"),
                     (lambda: tf.keras.utils.not_a_thing, "tf.keras.utils.not_a_thing")]:
    with pytest.raises(AttributeError, match=f"{where} is not implemented in tensorlet"):
      get()
  assert not hasattr(tf.nn, "not_a_thing") and getattr(tf.math, "nope", 5) == 5
  assert hasattr(tf.nn, "relu")


@pytest.mark.parametrize("name,instead", [("lite", "saved_model.save"), ("estimator", "Model.fit"),
                                          ("tpu", "TPU strategy"),
                                          ("xla", "jit_compile")])
def test_left_out_namespaces_say_what_to_use(name, instead):
  with pytest.raises(AttributeError, match=f"tf.{name} is not implemented in tensorlet") as e:
    getattr(tf, name)
  assert instead in str(e.value)


def test_compat_v1_is_an_attribute_error_naming_the_tf2_way():
  with pytest.raises(AttributeError, match="tf.compat.v1.Session is not implemented.*TF2"):
    tf.compat.v1.Session
  assert not hasattr(tf.compat.v1, "placeholder")


def test_iterating_a_symbolic_tensor_raises_operator_not_allowed():
  @tf.function
  def unpack(x):
    a, b = x
    return a + b
  with pytest.raises(tf.errors.OperatorNotAllowedInGraphError, match="Iterating over a symbolic"):
    unpack(tf.constant([1., 2.]))

  @tf.function
  def loop(x):  # NOTE: AutoGraph converts the loop, so this one runs, as in TF
    s = 0.
    for i in x:
      s += i
    return s
  assert loop(tf.constant([1., 2.])).numpy() == 3.0
