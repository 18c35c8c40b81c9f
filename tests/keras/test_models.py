"""Sequential, subclassed and functional models: tracking, summary, weights I/O."""
import numpy as np
import pytest

import tensorlet as tf

L = tf.keras.layers


@pytest.fixture(autouse=True)
def _fresh_names():
  tf.keras.backend.clear_session()


SEQUENTIAL_SUMMARY = '''Model: "sequential"
_________________________________________________________________
 Layer (type)                Output Shape              Param #   
=================================================================
 dense (Dense)               (None, 10)                7850      
                                                                 
 dense_1 (Dense)             (None, 10)                110       
                                                                 
=================================================================
Total params: 7960 (31.09 KB)
Trainable params: 7960 (31.09 KB)
Non-trainable params: 0 (0.00 Byte)
_________________________________________________________________
'''


def test_sequential_with_input_shape_is_built_and_summarised_like_keras2(capsys):
  model = tf.keras.Sequential([L.Dense(10, input_shape=(784,)), L.Dense(10)])
  assert model.built and model.output_shape == (None, 10)
  model.summary()
  assert capsys.readouterr().out == SEQUENTIAL_SUMMARY


def test_summary_of_functional_and_subclassed_models():
  lines = []
  x = tf.keras.Input((4,))
  tf.keras.Model(x, L.Dense(2)(x)).summary(print_fn=lines.append)
  assert lines[0] == 'Model: "model"'
  assert lines[4].rstrip() == " input_1 (InputLayer)        [(None, 4)]               0"
  assert lines[6].rstrip() == " dense (Dense)               (None, 2)                 10"
  assert lines[-4] == "Total params: 10 (40.00 Byte)"

  class Net(tf.keras.Model):
    def __init__(self):
      super().__init__()
      self.d = L.Dense(3)
      self.bn = L.BatchNormalization()

    def call(self, x):
      return self.bn(self.d(x))

  net = Net()
  with pytest.raises(ValueError, match="has not yet been built"):
    net.summary()
  net(np.ones((2, 4), np.float32))
  lines = []
  net.summary(print_fn=lines.append)
  assert lines[4].rstrip() == " dense_1 (Dense)             multiple                  15"
  assert "Non-trainable params: 6 (24.00 Byte)" in lines
  assert "Trainable params: 21 (84.00 Byte)" in lines


def test_long_layer_names_wrap_like_keras2():
  m = tf.keras.Sequential([L.Conv2D(16, 3, input_shape=(28, 28, 1)),
                           L.GlobalAveragePooling2D(), L.Dense(10)])
  lines = []
  m.summary(print_fn=lines.append)
  # tf_keras 2.21's wrapping (one column of room before the next field).
  assert lines[6].rstrip() == " global_average_pooling2d (  (None, 16)                0"
  assert lines[7].rstrip() == " GlobalAveragePooling2D)"


def test_deferred_sequential_builds_on_first_call():
  model = tf.keras.Sequential([L.Conv2D(16, [3, 3], activation="relu"),
                               L.Conv2D(16, [3, 3], activation="relu"),
                               L.GlobalAveragePooling2D(), L.Dense(10)])
  assert not model.built
  with pytest.raises(ValueError):
    model.count_params()
  out = model(tf.zeros([1, 28, 28, 1]))
  assert out.shape == (1, 10) and model.built
  assert model.output_shape == (None, 10)
  assert model.count_params() == 160 + 2320 + 170
  assert len(model.trainable_variables) == 6


def test_subclassed_model_tracks_layers_and_plain_variables():
  class MNISTModel(tf.keras.Model):
    def __init__(self):
      super().__init__()
      self.dense1 = L.Dense(units=10)
      self.dense2 = L.Dense(units=10)

    def call(self, x):
      return self.dense2(self.dense2(self.dense1(x)))

  m = MNISTModel()
  assert m(np.ones((2, 5), np.float32)).shape == (2, 10)
  assert len(m.trainable_variables) == 4
  assert m.layers == [m.dense1, m.dense2]

  class Linear(tf.keras.Model):
    def __init__(self):
      super().__init__()
      self.W = tf.Variable(5., name="weight")
      self.B = tf.Variable(10., name="bias")

    def call(self, inputs):
      return inputs * self.W + self.B

  lin = Linear()
  np.testing.assert_allclose(lin(tf.constant([1., 2.])).numpy(), [15., 20.])
  assert [v.name for v in lin.trainable_variables] == ["weight:0", "bias:0"]


def test_trainable_flag_moves_weights_to_non_trainable():
  m = tf.keras.Sequential([L.Dense(2, input_shape=(3,)), L.Dense(1)])
  m.layers[0].trainable = False
  assert len(m.trainable_weights) == 2 and len(m.non_trainable_weights) == 2
  m.trainable = False
  assert m.trainable_weights == [] and len(m.weights) == 4


def test_functional_multiple_inputs_and_outputs():
  a = tf.keras.Input((3,), name="a")
  b = tf.keras.Input((2,), name="b")
  shared = L.Dense(4, activation="relu")
  ha, hb = shared(a), L.Dense(4)(b)
  out1 = L.Dense(1, name="out1")(ha)
  out2 = L.Dense(2, name="out2")(hb)
  model = tf.keras.Model(inputs=[a, b], outputs=[out1, out2])
  assert model.output_names == ["out1", "out2"]
  xa, xb = np.ones((5, 3), np.float32), np.ones((5, 2), np.float32)
  y1, y2 = model([xa, xb])
  assert y1.shape == (5, 1) and y2.shape == (5, 2)
  np.testing.assert_allclose(y1.numpy(), model.get_layer("out1")(shared(xa)).numpy(),
                             rtol=1e-6)
  assert [layer.name for layer in model.layers][:2] == ["a", "b"]
  with pytest.raises(ValueError, match="expects 2 input"):
    model(xa)
  f = tf.function(model)
  np.testing.assert_allclose(f([xa, xb])[1].numpy(), y2.numpy(), rtol=1e-6)


def test_functional_disconnected_graph_raises():
  a = tf.keras.Input((3,))
  b = tf.keras.Input((3,))
  with pytest.raises(ValueError, match="Graph disconnected"):
    tf.keras.Model(a, L.Dense(1)(b))


def test_keras_tensor_repr_and_wrong_shape_at_build():
  x = tf.keras.Input((4,))
  assert repr(x) == "<KerasTensor: shape=(None, 4) dtype=float32 (created by layer 'input_1')>"
  d = L.Dense(2)
  d(x)
  with pytest.raises(ValueError, match="expected axis -1 of input shape to have value 4"):
    d(tf.keras.Input((5,)))


def test_save_weights_load_weights_round_trip(tmp_path):
  def make():
    return tf.keras.Sequential([L.Dense(4, input_shape=(3,)), L.BatchNormalization(),
                                L.Dense(2)])
  m1, m2 = make(), make()
  x = np.random.RandomState(0).standard_normal((5, 3)).astype(np.float32)
  m1(x, training=True)  # moves the BatchNormalization statistics
  path = str(tmp_path / "ckpt" / "weights")
  m1.save_weights(path)
  assert tf.train.latest_checkpoint(str(tmp_path / "ckpt")) == path
  assert not np.allclose(m2(x).numpy(), m1(x).numpy())
  m2.load_weights(path).assert_consumed()
  for a, b in zip(m1.get_weights(), m2.get_weights()):
    np.testing.assert_array_equal(a, b)
  np.testing.assert_array_equal(m2(x).numpy(), m1(x).numpy())


def test_load_weights_into_unbuilt_subclassed_model_restores_on_build(tmp_path):
  class Net(tf.keras.Model):
    def __init__(self):
      super().__init__()
      self.d = L.Dense(2)

    def call(self, x):
      return self.d(x)
  x = np.ones((1, 3), np.float32)
  m1 = Net()
  m1(x)
  m1.save_weights(str(tmp_path / "w"))
  m2 = Net()
  m2.load_weights(str(tmp_path / "w"))
  np.testing.assert_array_equal(m2(x).numpy(), m1(x).numpy())


def test_h5_paths_without_h5py_name_the_extra(tmp_path, monkeypatch):
  import sys
  m = tf.keras.Sequential([L.Dense(1, input_shape=(2,))])
  monkeypatch.setitem(sys.modules, "h5py", None)  # as if h5py were not installed
  for call in (lambda: m.save_weights(str(tmp_path / "w.h5")),
               lambda: m.save_weights(str(tmp_path / "w.weights.h5")),
               lambda: m.save(str(tmp_path / "m.keras")),
               lambda: m.save(str(tmp_path / "m.h5"))):
    with pytest.raises(ImportError, match=r"tensorlet\[h5\]"):
      call()
  assert not list(tmp_path.iterdir())


def test_set_and_get_weights_validate():
  d = L.Dense(2)
  d(np.ones((1, 3), np.float32))
  with pytest.raises(ValueError, match="weight list of length 1"):
    d.set_weights([np.zeros((3, 2))])
  with pytest.raises(ValueError, match="not compatible"):
    d.set_weights([np.zeros((2, 2)), np.zeros(2)])
  d.set_weights([np.ones((3, 2)), np.zeros(2)])
  np.testing.assert_array_equal(d(np.ones((1, 3), np.float32)).numpy(), [[3., 3.]])


def test_fit_evaluate_predict_before_compile_raise_runtime_error():
  m = tf.keras.Sequential([L.Dense(1, input_shape=(2,))])
  x = np.ones((4, 2), np.float32)
  with pytest.raises(RuntimeError, match="You must compile your model"):
    m.fit(x, x[:, :1])
  with pytest.raises(RuntimeError, match="You must compile your model"):
    m.evaluate(x, x[:, :1])


def test_sequential_rejects_duplicate_names_and_non_layers():
  d = L.Dense(1, name="same")
  with pytest.raises(ValueError, match="unique names"):
    tf.keras.Sequential([d, L.Dense(1, name="same")])
  with pytest.raises(TypeError, match="instance of class Layer"):
    tf.keras.Sequential([lambda x: x])


def test_sequential_starting_from_input_and_pop():
  m = tf.keras.Sequential([tf.keras.Input((3,)), L.Dense(4), L.Dense(2)])
  assert m.output_shape == (None, 2) and len(m.layers) == 2
  m.pop()
  assert m.output_shape == (None, 4)


def test_functional_inputs_fed_by_name_and_conformed_as_keras2():
  """A dict feeds a model built on a list of Inputs by their names; a missing or extra
  trailing dimension of 1 is added or dropped (Keras 2's _conform_to_reference_input)."""
  a = tf.keras.Input((1,), name="a")
  b = tf.keras.Input((2,), name="b", dtype="int64")
  model = tf.keras.Model([a, b], tf.keras.layers.Concatenate()([a, tf.cast(b, "float32")]))
  out = model({"b": np.array([[3, 4]]), "a": np.array([1.0]), "extra": np.zeros(1)})
  np.testing.assert_array_equal(out.numpy(), [[1.0, 3.0, 4.0]])
  out = model([np.array([[[2.0]]]).reshape(1, 1), np.array([[[5], [6]]]).reshape(1, 2, 1)])
  np.testing.assert_array_equal(out.numpy(), [[2.0, 5.0, 6.0]])
