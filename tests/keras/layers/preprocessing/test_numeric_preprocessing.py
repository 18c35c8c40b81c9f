"""Normalization and Discretization: adapt over arrays and datasets against NumPy and
real Keras 2 (tf_reference.npz), given statistics, invert, axes, output modes,
gradients, configs, models, tf.function, Dataset.map and errors."""
import os

import numpy as np
import pytest

import tensorlet as tf
from tests.keras.layers.layer_helpers import check_config, check_layer_grads

L = tf.keras.layers
REF = np.load(os.path.join(os.path.dirname(__file__), "tf_reference.npz"))
AXES = [("last", -1), ("none", None), ("12", (1, 2)), ("1", 1)]


def _data(seed=0, shape=(40, 3, 4)):
  return np.random.RandomState(seed).normal(3.0, 2.0, shape).astype(np.float32)


# --------------------------------------------------------------- Normalization

@pytest.mark.parametrize("name,axis", AXES)
def test_normalization_adapt_dataset_matches_keras(name, axis):
  data = REF["norm_data"]
  layer = L.Normalization(axis=axis)
  layer.adapt(tf.data.Dataset.from_tensor_slices(data).batch(8))
  mean, var, count = layer.get_weights()
  np.testing.assert_allclose(mean, REF[f"norm_{name}_mean"], rtol=1e-5, atol=1e-6)
  np.testing.assert_allclose(var, REF[f"norm_{name}_var"], rtol=1e-5, atol=1e-6)
  assert count == data.size // max(mean.size, 1)
  np.testing.assert_allclose(layer(data[:4]).numpy(), REF[f"norm_{name}"], rtol=1e-4,
                             atol=1e-5)


@pytest.mark.parametrize("name,axis", AXES)
def test_normalization_adapt_arrays_numpy(name, axis):
  data = _data()
  keep = () if axis is None else tuple(np.atleast_1d(axis) % 3)
  red = tuple(d for d in range(3) if d not in keep)
  for batch_size in (None, 7):
    layer = L.Normalization(axis=axis)
    layer.adapt(data, batch_size=batch_size)
    d64 = data.astype(np.float64)
    mean = d64.mean(red, keepdims=True)
    std = d64.std(red, keepdims=True)
    np.testing.assert_allclose(layer.get_weights()[0], mean.squeeze(red), rtol=1e-5)
    np.testing.assert_allclose(layer.get_weights()[1], (std ** 2).squeeze(red), rtol=1e-4)
    np.testing.assert_allclose(layer(data).numpy(), (d64 - mean) / std, rtol=1e-4, atol=1e-4)
    traced = tf.function(layer)(data)
    np.testing.assert_allclose(traced.numpy(), (d64 - mean) / std, rtol=1e-4, atol=1e-4)


def test_normalization_adapt_unbatched_dataset_and_lists():
  rows = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 7.0]])
  for data in (tf.data.Dataset.from_tensor_slices(rows), rows.tolist(),
               tf.data.Dataset.from_tensor_slices(rows).batch(2)):
    layer = L.Normalization()
    layer.adapt(data)
    mean, var, count = layer.get_weights()
    np.testing.assert_allclose(mean, rows.mean(0), rtol=1e-6)
    np.testing.assert_allclose(var, rows.var(0), rtol=1e-6)
    assert count == 3
  with pytest.raises(ValueError, match="known shape"):  # as Keras 2: axis -1 of [None]
    L.Normalization().adapt(np.array([1.0, 2.0, 3.0]))


def test_normalization_given_statistics_and_invert():
  data = REF["norm_data"]
  inv = L.Normalization(mean=[1.0, 2.0, 3.0, 4.0], variance=[1.0, 4.0, 9.0, 0.0], invert=True)
  np.testing.assert_allclose(inv(data[:2]).numpy(), REF["norm_invert"], rtol=1e-6)
  # zero variance divides by epsilon, as Keras 2 (max(sqrt(var), 1e-7))
  fwd = L.Normalization(mean=[1.0, 2.0, 3.0, 4.0], variance=[1.0, 4.0, 9.0, 0.0])
  y = fwd(data[:2]).numpy()
  np.testing.assert_allclose(y[..., :3], (data[:2, ..., :3] - [1, 2, 3]) / [1, 2, 3],
                             rtol=1e-5)
  np.testing.assert_allclose(inv(fwd(data[:2])).numpy()[..., :3], data[:2, ..., :3], rtol=1e-5)
  scalar = L.Normalization(mean=2.0, variance=4.0)
  np.testing.assert_allclose(scalar(np.array([[1, 2], [3, 4]])).numpy(),
                             [[-0.5, 0.0], [0.5, 1.0]])
  assert scalar(np.array([[1, 2]])).dtype == tf.float32
  assert not scalar.weights


def test_normalization_adapted_invert_round_trip_and_readapt():
  data = _data()
  norm = L.Normalization()
  norm.adapt(data)
  inv = L.Normalization(invert=True)
  inv.adapt(data)
  np.testing.assert_allclose(inv(norm(data)).numpy(), data, rtol=1e-4, atol=1e-4)
  assert norm.is_adapted
  norm.adapt(data * 10.0)  # a second adapt starts from scratch
  np.testing.assert_allclose(norm.get_weights()[0], (data * 10.0).reshape(-1, 4).mean(0),
                             rtol=1e-5)
  assert norm.get_weights()[2] == 120


def test_normalization_weights_names_and_model_save(tmp_path):
  data = _data()
  inp = L.Input((3, 4))
  norm = L.Normalization(axis=(1, 2))
  model = tf.keras.Model(inp, L.Dense(2)(L.Flatten()(norm(inp))))
  assert [w.name for w in norm.weights] == ["mean:0", "variance:0", "count:0"] or \
      [w.name.split("/")[-1] for w in norm.weights] == ["mean:0", "variance:0", "count:0"]
  assert not norm.trainable_weights and norm.weights[2].dtype == tf.int64
  norm.adapt(data)
  want = model.predict(data, verbose=0)
  path = str(tmp_path / "m.keras")
  model.save(path)
  loaded = tf.keras.models.load_model(path)
  np.testing.assert_allclose(loaded.predict(data, verbose=0), want, rtol=1e-5, atol=1e-6)
  fresh = tf.keras.Model.from_config(model.get_config())
  fresh.set_weights(model.get_weights())
  np.testing.assert_allclose(fresh.predict(data, verbose=0), want, rtol=1e-5, atol=1e-6)


def test_normalization_in_dataset_map_and_fit():
  data = _data(shape=(64, 4))
  norm = L.Normalization()
  norm.adapt(data)
  ds = tf.data.Dataset.from_tensor_slices(data).batch(16).map(norm)
  out = np.concatenate([b.numpy() for b in ds])
  np.testing.assert_allclose(out, norm(data).numpy(), rtol=1e-6)
  model = tf.keras.Sequential([L.Input((4,)), norm, L.Dense(1)])
  model.compile("adam", "mse")
  model.fit(data, data.sum(1, keepdims=True), epochs=2, verbose=0)
  assert norm.get_weights()[2] == 64  # training leaves the statistics alone


def test_normalization_gradient_and_config():
  check_layer_grads(L.Normalization(mean=[1.0, -2.0], variance=[4.0, 0.25], dtype="float64"),
                    np.random.RandomState(0).standard_normal((3, 2)))
  layer = L.Normalization(axis=None, dtype="float64")
  layer.adapt(np.random.RandomState(1).standard_normal((20, 3)))
  check_layer_grads(layer, np.random.RandomState(0).standard_normal((3, 3)))
  inv = L.Normalization(mean=np.array([1.0, -2.0]), variance=np.array([4.0, 0.25]),
                        invert=True, axis=(1,))
  clone = check_config(inv)
  assert clone.get_config()["mean"] == [1.0, -2.0]
  np.testing.assert_allclose(clone(np.ones((1, 2))).numpy(), inv(np.ones((1, 2))).numpy())
  check_config(L.Normalization(axis=None))


@pytest.mark.parametrize("make,err,msg", [
    (lambda: L.Normalization(mean=1.0), ValueError, "both `mean` and `variance`"),
    (lambda: L.Normalization(mean=tf.Variable([1.0]), variance=[1.0]), ValueError, "Variable"),
    (lambda: L.Normalization(axis=3)(np.ones((2, 3, 4))), ValueError, "range"),
    (lambda: L.Normalization(axis=1).build((None, None)), ValueError, "known shape"),
    (lambda: L.Normalization(mean=1.0, variance=1.0).adapt(np.ones((4, 2))), ValueError,
     "Cannot `adapt`"),
    (lambda: L.Normalization().update_state(np.ones((4, 2))), RuntimeError, "`build`"),
])
def test_normalization_errors(make, err, msg):
  with pytest.raises(err, match=msg):
    make()


def test_normalization_bad_shapes_change_nothing():
  layer = L.Normalization()
  layer.adapt(np.ones((5, 4)))
  with pytest.raises(tf.errors.InvalidArgumentError):
    layer(np.ones((2, 3)))
  layer.update_state(np.full((2, 4), 3.0))
  before = layer.get_weights()
  with pytest.raises(ValueError, match="incompatible shape"):
    layer.update_state(np.ones((5, 3)))
  for a, b in zip(layer.get_weights(), before):
    np.testing.assert_array_equal(a, b)


def test_adapt_inside_tf_function_is_an_error():
  layer = L.Normalization()

  @tf.function
  def f(x):
    layer.adapt(x)
    return x
  with pytest.raises(RuntimeError, match="adapt"):
    f(tf.ones([2, 2]))


# -------------------------------------------------------------- Discretization

def test_discretization_boundaries_numpy():
  x = np.random.RandomState(0).uniform(-2, 4, (5, 7)).astype(np.float32)
  bounds = [-1.0, 0.0, 0.5, 2.5]
  layer = L.Discretization(bin_boundaries=bounds)
  y = layer(x)
  assert y.dtype == tf.int64
  np.testing.assert_array_equal(y.numpy(), np.searchsorted(bounds, x, side="right"))
  np.testing.assert_array_equal(tf.function(layer)(x).numpy(), y.numpy())
  edges = np.array([-1.0, 0.0, 2.5, -5.0, 9.0], np.float32)
  np.testing.assert_array_equal(layer(edges).numpy(), [1, 2, 4, 0, 4])  # bounds go up
  np.testing.assert_array_equal(layer(np.array([0, 1, 3])).numpy(), [2, 3, 4])  # ints


@pytest.mark.parametrize("mode", ["one_hot", "multi_hot", "count"])
def test_discretization_output_modes(mode):
  bounds = [0.0, 1.0, 2.0]
  idx = lambda v: np.searchsorted(bounds, v, side="right")  # noqa: E731
  x = np.array([[-1.0, 0.5, 2.5, 2.7], [1.5, 1.5, 1.2, 0.0]], np.float32)
  layer = L.Discretization(bin_boundaries=bounds, output_mode=mode)
  y = layer(x if mode != "one_hot" else x[0]).numpy()
  assert y.dtype == np.float32
  if mode == "one_hot":
    np.testing.assert_array_equal(y, np.eye(4)[idx(x[0])])
    np.testing.assert_array_equal(layer(x[:, :1]).numpy(), np.eye(4)[idx(x[:, 0])])
  else:
    counts = np.stack([np.bincount(idx(r), minlength=4) for r in x]).astype(np.float32)
    np.testing.assert_array_equal(y, counts if mode == "count" else np.minimum(counts, 1))
    np.testing.assert_array_equal(layer(x[0]).numpy(), y[0])
  assert layer.compute_output_shape((2, 4)).as_list() == ([2, 4, 4] if mode == "one_hot"
                                                          else [2, 4])
  sparse = L.Discretization(bin_boundaries=bounds, output_mode=mode, sparse=True)
  s = sparse(x if mode != "one_hot" else x[0])
  assert isinstance(s, tf.SparseTensor)
  np.testing.assert_array_equal(tf.sparse.to_dense(s).numpy(), y)


def test_discretization_ragged_and_sparse_inputs():
  """Values as Keras 2 gives them (checked against tf_keras 2.21)."""
  rt = tf.ragged.constant([[-1.0, 0.5, 0.7], [2.0]])
  st = tf.SparseTensor([[0, 1], [1, 0], [1, 2]], [0.5, 3.0, 3.5], [2, 3])
  layer = L.Discretization(bin_boundaries=[0.0, 1.0])
  out = layer(rt)
  assert isinstance(out, tf.RaggedTensor) and out.dtype == tf.int64
  assert out.to_list() == [[0, 1, 1], [2]]
  out = layer(st)
  assert isinstance(out, tf.SparseTensor) and out.dtype == tf.int64
  assert tf.sparse.to_dense(out).numpy().tolist() == [[0, 1, 0], [2, 0, 2]]
  count = L.Discretization(bin_boundaries=[0.0, 1.0], output_mode="count")
  np.testing.assert_array_equal(count(rt).numpy(), [[1, 2, 0], [0, 0, 1]])
  np.testing.assert_array_equal(count(st).numpy(), [[0, 1, 0], [0, 0, 2]])
  multi = L.Discretization(bin_boundaries=[0.0, 1.0], output_mode="multi_hot")
  np.testing.assert_array_equal(multi(rt).numpy(), [[1, 1, 0], [0, 0, 1]])


@pytest.mark.parametrize("bins,eps", [(4, 0.01), (7, 0.05), (3, 0.001)])
def test_discretization_adapt_matches_keras(bins, eps):
  values = REF["disc_values"]
  layer = L.Discretization(num_bins=bins, epsilon=eps)
  layer.adapt(values, batch_size=64)
  np.testing.assert_allclose(layer.bin_boundaries, REF[f"disc_bounds_{bins}"], rtol=1e-6)
  assert len(layer.bin_boundaries) == bins - 1
  # the boundaries are quantiles: about 1/bins of the data in each bucket
  counts = np.bincount(layer(values).numpy(), minlength=bins) / values.size
  np.testing.assert_allclose(counts, 1.0 / bins, atol=max(eps, 1.0 / 64) * 2)


def test_discretization_adapt_dataset_and_reset():
  values = np.random.RandomState(3).uniform(0, 10, (1000, 1)).astype(np.float32)
  layer = L.Discretization(num_bins=5)
  layer.adapt(tf.data.Dataset.from_tensor_slices(values).batch(100))
  np.testing.assert_allclose(layer.bin_boundaries, [2, 4, 6, 8], atol=0.3)
  layer.adapt(values + 100.0)
  np.testing.assert_allclose(layer.bin_boundaries, [102, 104, 106, 108], atol=0.3)


def test_discretization_in_models_and_dataset_map():
  layer = L.Discretization(bin_boundaries=[0.0, 1.0], output_mode="one_hot")
  inp = L.Input(shape=())
  model = tf.keras.Model(inp, layer(inp))
  x = np.array([-1.0, 0.5, 3.0], np.float32)
  np.testing.assert_array_equal(model.predict(x, verbose=0), np.eye(3))
  assert model.output_shape == (None, 3)
  seq = tf.keras.Sequential([L.Input((4, 2)), L.Discretization(bin_boundaries=[0.0])])
  assert seq.output_shape == (None, 4, 2)
  clone = tf.keras.Model.from_config(model.get_config())
  np.testing.assert_array_equal(clone(x).numpy(), np.eye(3))
  ids = L.Discretization(bin_boundaries=[0.0, 1.0])
  ds = tf.data.Dataset.from_tensor_slices(x).map(ids)
  assert [int(v) for v in ds] == [0, 1, 2]


def test_keras2_h5_with_adapted_layers_loads():
  here = os.path.dirname(__file__)
  model = tf.keras.models.load_model(os.path.join(here, "keras2_preprocessing.h5"))
  ref = np.load(os.path.join(here, "keras2_preprocessing.npz"))
  np.testing.assert_array_equal(model.predict(ref["x"], verbose=0), ref["y"])
  disc = model.layers[-1]
  assert len(disc.bin_boundaries) == 3 and disc.weights[0].shape.as_list() == [2, None]


@pytest.mark.parametrize("ext", ["keras", "h5"])
def test_adapted_discretization_saves_and_loads(tmp_path, ext):
  disc = L.Discretization(num_bins=4)
  disc.adapt(np.random.RandomState(0).uniform(0, 1, (500,)))
  summary = disc.get_weights()[0]
  assert summary.shape[0] == 2 and summary.shape[1] > 0
  inp = L.Input(shape=())
  model = tf.keras.Model(inp, disc(inp))
  x = np.array([0.1, 0.4, 0.6, 0.9], np.float32)
  np.testing.assert_array_equal(model.predict(x, verbose=0), [0, 1, 2, 3])
  path = str(tmp_path / f"m.{ext}")
  model.save(path)
  loaded = tf.keras.models.load_model(path)
  np.testing.assert_array_equal(loaded.predict(x, verbose=0), [0, 1, 2, 3])
  assert loaded.layers[-1].bin_boundaries == disc.bin_boundaries
  fresh = L.Discretization(num_bins=4)
  fresh.build((None,))
  assert fresh(x).numpy().tolist() == [0, 0, 0, 0]  # not adapted: one bucket
  fresh.set_weights([summary])
  assert fresh(x).numpy().tolist() == [0, 1, 2, 3]
  assert L.Discretization(bin_boundaries=[])(x).numpy().tolist() == [0, 0, 0, 0]


def test_discretization_config_round_trip():
  for layer in (L.Discretization(bin_boundaries=[0.0, 1.5], output_mode="count"),
                L.Discretization(num_bins=4, epsilon=0.02, output_mode="multi_hot",
                                 sparse=True),
                L.Discretization(bins=[1.0, 2.0])):
    check_config(layer)
  assert L.Discretization(bins=3).num_bins == 3
  assert L.Discretization(bin_boundaries=[1.0], dtype="float32").compute_dtype == "int64"
  assert L.Discretization(bin_boundaries=[1.0], output_mode="count").compute_dtype == "float32"


@pytest.mark.parametrize("make,err,msg", [
    (lambda: L.Discretization(output_mode="tf_idf"), ValueError, "output_mode"),
    (lambda: L.Discretization(bin_boundaries=[0.0], sparse=True), ValueError, "sparse"),
    (lambda: L.Discretization(num_bins=-1), ValueError, "num_bins"),
    (lambda: L.Discretization(num_bins=2, bin_boundaries=[0.0]), ValueError, "Both"),
    (lambda: L.Discretization(bin_boundaries=[0.0]).adapt(np.ones(4)), ValueError,
     "Cannot adapt"),
    (lambda: L.Discretization(bin_boundaries=[0.0])(np.array(["a"])),
     tf.errors.InvalidArgumentError, "numbers"),
    (lambda: L.Discretization(bin_boundaries=[0.0], output_mode="multi_hot")(
        np.ones((1, 2, 2))), ValueError, "maximum supported output rank is 2"),
])
def test_discretization_errors(make, err, msg):
  with pytest.raises(err, match=msg):
    make()


def test_exported_names():
  ep = tf.keras.layers.experimental.preprocessing
  assert ep.Normalization is L.Normalization and ep.Discretization is L.Discretization
