"""An exception raised by a layer's `call` comes back as tf_keras 2.21 raises it:
same type, "Exception encountered when calling layer ..." with the original
message and the call arguments, added by the innermost failing layer only.
The expected texts were printed by tf_keras 2.21."""
import numpy as np
import pytest

import tensorlet as tf

X = tf.ones([2, 3])


class _Raises(tf.keras.layers.Layer):
  def __init__(self, error=lambda: ValueError("boom"), **kwargs):
    super().__init__(**kwargs)
    self.error = error

  def call(self, x, training=None, mask=None):
    raise self.error()  # a new exception each call (no traceback pile-up)


def test_message_type_and_chain_as_tf_keras():
  with pytest.raises(ValueError) as info:
    _Raises(name="b")(X, training=True)
  e = info.value
  assert str(e) == (
      "Exception encountered when calling layer 'b' (type _Raises).\n\nboom\n\n"
      "Call arguments received by layer 'b' (type _Raises):\n"
      "  • x=tf.Tensor(shape=(2, 3), dtype=float32)\n  • training=True\n  • mask=None")
  assert e._keras_call_info_injected is True
  assert e.__cause__ is None and e.__suppress_context__


def test_numpy_input_and_positional_training():
  with pytest.raises(ValueError, match=r"x=tf.Tensor\(shape=\(2, 3\), dtype=float32\)\n"
                                       r"  • training=5\n  • mask=None$"):
    _Raises(name="p")(np.ones([2, 3]), 5)


@pytest.mark.parametrize("error, kind, original", [
    (lambda: TypeError("t"), TypeError, "t"), (lambda: KeyError("k"), KeyError, "k"),
    (lambda: NotImplementedError("n"), NotImplementedError, "n"),
    (ValueError, ValueError, ""),
])
def test_the_type_is_kept(error, kind, original):
  with pytest.raises(kind) as info:
    _Raises(error, name="r")(X)
  assert type(info.value) is kind
  assert info.value.args[0].startswith(
      f"Exception encountered when calling layer 'r' (type _Raises).\n\n{original}\n\n")


class _Custom(Exception):
  def __init__(self, message, code):
    super().__init__(message)
    self.code = code


def test_a_type_that_takes_more_than_a_message_becomes_runtime_error():
  with pytest.raises(RuntimeError, match="layer 'c' .*\n\nc\n\n") as info:
    _Raises(lambda: _Custom("c", 2), name="c")(X)
  assert type(info.value) is RuntimeError


class _Reshapes(tf.keras.layers.Layer):
  def call(self, x):
    return tf.reshape(x, [7])


def test_op_errors_keep_type_and_code():
  with pytest.raises(tf.errors.InvalidArgumentError) as info:
    _Reshapes(name="ie")(X)
  e = info.value
  assert e.error_code == tf.errors.INVALID_ARGUMENT
  assert e.message == str(e) and str(e).startswith(
      "Exception encountered when calling layer 'ie' (type _Reshapes).\n\n"
      "Input to reshape is a tensor with 6 values, but the requested shape has 7")
  with pytest.raises(tf.errors.InvalidArgumentError, match="layer 'reshape_layer'"):
    tf.keras.layers.Reshape((7,), name="reshape_layer")(X)


class _Outer(tf.keras.layers.Layer):
  def __init__(self, **kwargs):
    super().__init__(**kwargs)
    self.inner = _Raises(name="inner")

  def call(self, x):
    return self.inner(x)


def test_only_the_innermost_layer_adds_its_context():
  for outer in (_Outer(name="outer"), tf.keras.Sequential([_Raises(name="inner")])):
    with pytest.raises(ValueError) as info:
      outer(X)
    text = str(info.value)
    assert text.count("Exception encountered") == 1
    assert "layer 'inner' (type _Raises)" in text and "outer" not in text


class _Model(tf.keras.Model):
  def __init__(self):
    super().__init__(name="m")
    self.d = tf.keras.layers.Dense(2)

  def call(self, x):
    self.d(x)
    raise ValueError("model")


def test_a_subclassed_model_is_a_layer_here():
  with pytest.raises(ValueError, match=r"^Exception encountered when calling layer 'm' "
                                       r"\(type _Model\)\.\n\nmodel\n\n"):
    _Model()(X)


class _VarArgs(tf.keras.layers.Layer):
  def call(self, inputs, *args, **kwargs):
    raise ValueError("va")


def test_argument_summary_formats():
  with pytest.raises(ValueError) as info:
    _VarArgs(name="va")([X, X], 3, foo="s")
  assert str(info.value).endswith(
      "Call arguments received by layer 'va' (type _VarArgs):\n"
      "  • inputs=['tf.Tensor(shape=(2, 3), dtype=float32)', "
      "'tf.Tensor(shape=(2, 3), dtype=float32)']\n"
      "  • args=('3',)\n  • kwargs={'foo': \"'s'\"}")
  with pytest.raises(ValueError) as info:
    _VarArgs(name="vb")({"a": X, "b": 3})
  assert "  • inputs={'a': 'tf.Tensor(shape=(2, 3), dtype=float32)', " \
         "'b': 'tf.Tensor(shape=(), dtype=int32)'}\n  • args=<class 'inspect._empty'>" \
         in str(info.value)


class _Identity(tf.keras.layers.Layer):
  def call(self, x):
    return x


@pytest.mark.parametrize("value, dtype", [(5, tf.int32), (1.5, tf.float32), (2 ** 40, tf.int64)])
def test_python_numbers_convert_as_tf(value, dtype):
  assert _Identity()(value).dtype == dtype


class _BadBuild(tf.keras.layers.Layer):
  def build(self, input_shape):
    raise ValueError("in build")

  def call(self, x):
    return x


def test_build_and_input_checks_are_not_wrapped():
  with pytest.raises(ValueError) as info:
    _BadBuild()(X)
  assert str(info.value) == "in build"
  with pytest.raises(ValueError, match="^Input 0 of layer \"dense\" is incompatible"):
    tf.keras.layers.Dense(3, name="dense")(tf.ones([2]))
  with pytest.raises(ValueError, match="^A merge layer should be called on a list"):
    tf.keras.layers.Add()(X)


def test_functional_construction_quotes_the_name_and_shows_user_code():
  with pytest.raises(ValueError) as info:
    _Raises(name="s")(tf.keras.Input((3,)))
  text = str(info.value)
  assert text.startswith("Exception encountered when calling layer \"s\" (type _Raises).\n\n"
                         "in user code:\n\n")
  assert f'File "{__file__}"' in text and "    ValueError: boom\n" in text
  assert text.endswith("Call arguments received by layer \"s\" (type _Raises):\n"
                       "  • x=tf.Tensor(shape=(None, 3), dtype=float32)\n"
                       "  • training=None\n  • mask=None")


def test_inside_tf_function():
  @tf.function
  def f():
    return _Raises(name="g")(X)

  with pytest.raises(ValueError) as info:
    f()
  text = str(info.value)
  assert text.startswith("in user code:\n\n")
  # the layer's message of several lines is indented under the frames, as TF prints it
  assert "    ValueError: Exception encountered when calling layer 'g' (type _Raises).\n" \
         "    \n    in user code:\n" in text
  assert "  • x=tf.Tensor(shape=(2, 3), dtype=float32)\n" in text


def test_fit_reports_the_failing_layer():
  model = tf.keras.Sequential([tf.keras.layers.Dense(2), _Raises(name="bb")])
  model.compile("sgd", "mse")
  with pytest.raises(ValueError) as info:
    model.fit(np.ones((4, 3)), np.ones((4, 2)), verbose=0)
  text = str(info.value)
  assert text.startswith("in user code:") and text.count("raise self.error()") == 2
  assert "    ValueError: Exception encountered when calling layer 'bb' (type _Raises).\n" in text
  assert "      • x=tf.Tensor(shape=(None, 2), dtype=float32)\n" in text


class _EagerOnly(tf.keras.layers.Layer):
  def call(self, x):
    return tf.constant(x.numpy() * 2)


def test_a_sequential_that_cannot_be_traced_runs_layer_by_layer():
  model = tf.keras.Sequential([tf.keras.layers.Dense(2, kernel_initializer="ones"),
                               _EagerOnly()])
  assert model(tf.ones([2, 3])).numpy().tolist() == [[6.0, 6.0], [6.0, 6.0]]
  assert model.built and model.inputs is None and len(model.weights) == 2
  assert model(tf.ones([1, 3])).numpy().tolist() == [[6.0, 6.0]]
