"""Keras 2 image preprocessing layers: values against real Keras 2 (tf_reference.npz,
made by make_tf_reference.py) and NumPy, training vs inference, seeds, statistics of
the random draws, gradients, configs, models, tf.function and Dataset.map."""
import json
import os

import numpy as np
import pytest

import tensorlet as tf
from tests.keras.layers.layer_helpers import check_config, check_layer_grads

L = tf.keras.layers
REF = np.load(os.path.join(os.path.dirname(__file__), "tf_reference.npz"))
IMG = REF["img"]  # [2, 5, 7, 3] in [0, 255)
METHODS = ["bilinear", "nearest", "bicubic", "area", "lanczos3", "lanczos5", "gaussian",
           "mitchellcubic"]
MODES = ["reflect", "wrap", "constant", "nearest"]


def _close(y, key, atol=2e-4):
  want = REF[key]
  assert y.shape == want.shape, (y.shape, want.shape)
  assert y.dtype == want.dtype
  np.testing.assert_allclose(np.asarray(y, np.float64), want, rtol=1e-5, atol=atol)


def _images(n=4, h=6, w=5, c=3, seed=0):
  return np.random.RandomState(seed).uniform(0, 255, (n, h, w, c)).astype(np.float32)


# ------------------------------------------------------------- vs real Keras 2

@pytest.mark.parametrize("method", METHODS)
def test_resizing_matches_keras(method):
  _close(L.Resizing(4, 3, interpolation=method)(IMG).numpy(), f"resize_{method}")
  layer = L.Resizing(4, 3, interpolation=method, crop_to_aspect_ratio=True)
  _close(layer(IMG).numpy(), f"resize_crop_{method}")
  _close(tf.function(layer)(IMG).numpy(), f"resize_crop_{method}")


@pytest.mark.parametrize("method", METHODS)
def test_upsampling2d_interpolations_match_keras(method):
  layer = L.UpSampling2D((2, 3), interpolation=method)
  _close(layer(IMG[:, :3, :4]).numpy(), f"upsampling_{method}")
  first = L.UpSampling2D((2, 3), data_format="channels_first", interpolation=method)
  y = first(np.transpose(IMG[:, :3, :4], [0, 3, 1, 2])).numpy()
  _close(np.transpose(y, [0, 2, 3, 1]), f"upsampling_{method}")
  assert layer.compute_output_shape((None, 3, 4, 3)).as_list() == [None, 6, 12, 3]


def test_upsampling2d_gradient_bicubic():
  # NOTE: tf.image.resize computes in float32 (as Keras 2); the layer is linear, so a
  # wide step keeps the finite difference exact up to float32 rounding.
  layer = L.UpSampling2D((2, 2), interpolation="bicubic", dtype="float64")
  check_layer_grads(layer, np.random.RandomState(0).standard_normal((1, 3, 4, 2)), eps=0.5,
                    rtol=1e-4)


@pytest.mark.parametrize("crop", [False, True])
@pytest.mark.parametrize("method", ["bilinear", "nearest", "area"])
def test_resizing_ragged_batch_of_different_sizes(crop, method):
  a, b = _images(1, 4, 6)[0], _images(1, 5, 3, seed=1)[0]
  rt = tf.RaggedTensor.from_nested_row_lengths(
      np.concatenate([a.reshape(-1, 3), b.reshape(-1, 3)]), [[4, 5], [6] * 4 + [3] * 5])
  layer = L.Resizing(3, 2, interpolation=method, crop_to_aspect_ratio=crop)
  want = np.concatenate([layer(a[None]).numpy(), layer(b[None]).numpy()])
  y = layer(rt)
  assert isinstance(y, tf.Tensor) and y.shape == (2, 3, 2, 3) and y.dtype == tf.float32
  np.testing.assert_allclose(y.numpy(), want, rtol=1e-6)
  np.testing.assert_allclose(tf.function(layer)(rt).numpy(), want, rtol=1e-6)


def test_resizing_crop_and_dtypes_match_keras():
  _close(L.Resizing(2, 6, crop_to_aspect_ratio=True)(IMG).numpy(), "resize_crop_wide")
  _close(L.Resizing(3, 9, interpolation="nearest")(IMG.astype(np.uint8)).numpy(),
         "resize_u8_nearest")
  _close(L.Rescaling(1 / 127.5, offset=-1)(IMG.astype(np.uint8)).numpy(), "rescaling")


def test_crops_match_keras():
  _close(L.CenterCrop(3, 4)(IMG).numpy(), "center_crop")
  _close(L.CenterCrop(6, 4)(IMG).numpy(), "center_crop_up")
  _close(L.RandomCrop(6, 4, seed=1)(IMG, training=False).numpy(), "random_crop_infer")
  _close(L.RandomCrop(6, 4, seed=1)(IMG, training=True).numpy(), "random_crop_infer")


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("interp", ["bilinear", "nearest"])
def test_fixed_factor_transforms_match_keras(mode, interp):
  """A (f, f) factor range makes the random layers deterministic: the geometry
  (matrices, fill modes, interpolation) then equals Keras 2's value by value."""
  kw = dict(fill_mode=mode, interpolation=interp, fill_value=7.0)
  _close(L.RandomRotation((0.1, 0.1), **kw)(IMG).numpy(), f"rotation_{mode}_{interp}")
  _close(L.RandomZoom((-0.3, -0.3), (0.4, 0.4), **kw)(IMG).numpy(), f"zoom_{mode}_{interp}")
  _close(L.RandomTranslation((0.3, 0.3), (-0.45, -0.45), **kw)(IMG).numpy(),
         f"translation_{mode}_{interp}")


@pytest.mark.parametrize("make", [
    lambda: L.RandomRotation((0.1, 0.1)), lambda: L.RandomZoom((0.3, 0.3), (-0.2, -0.2)),
    lambda: L.RandomTranslation((0.2, 0.2), (0.1, 0.1), fill_mode="wrap"),
    lambda: L.RandomBrightness((0.1, 0.1)), lambda: L.RandomHeight((0.5, 0.5)),
    lambda: L.RandomWidth((0.5, 0.5)), lambda: L.Resizing(3, 4, crop_to_aspect_ratio=True),
    lambda: L.CenterCrop(3, 4), lambda: L.RandomCrop(3, 4, seed=1)])
def test_single_images_as_batches_of_one(make):
  layer = make()
  y = layer(IMG[0])
  assert y.shape.rank == 3
  if not isinstance(layer, L.RandomCrop):
    np.testing.assert_allclose(y.numpy(), layer(IMG[:1]).numpy()[0], atol=1e-4)


def test_fixed_factor_other_layers_match_keras():
  _close(L.RandomZoom((0.5, 0.5))(IMG).numpy(), "zoom_same")
  _close(L.RandomBrightness((0.2, 0.2))(IMG).numpy(), "brightness")
  _close(L.RandomBrightness((-0.3, -0.3), value_range=(0, 1))(IMG / 255.).numpy(),
         "brightness_range", atol=1e-6)
  _close(L.RandomHeight((0.5, 0.5))(IMG).numpy(), "height")
  _close(L.RandomWidth((-0.4, -0.4), interpolation="bicubic")(IMG).numpy(), "width")


# ------------------------------------------------------------ NumPy references

def test_rescaling_center_crop_numpy():
  x = _images()
  y = L.Rescaling(0.5, offset=2.0)(x)
  np.testing.assert_allclose(y.numpy(), x * 0.5 + 2.0, rtol=1e-6)
  assert L.Rescaling(2.0)(x.astype(np.int32)).dtype == tf.float32
  np.testing.assert_array_equal(L.CenterCrop(3, 2)(x).numpy(), x[:, 1:4, 1:3])
  np.testing.assert_array_equal(L.CenterCrop(4, 4)(x[0]).numpy(), x[0, 1:5, 0:4])
  assert L.CenterCrop(4, 4)(x.astype(np.uint8)).dtype == tf.float32


def test_transform_fixed_rotation_is_exact_for_quarter_turn():
  """factor 0.25 = +90 degrees: a square image rotated exactly, as np.rot90 does."""
  x = _images(2, 5, 5, 1)
  y = L.RandomRotation((0.25, 0.25), interpolation="nearest")(x).numpy()
  np.testing.assert_allclose(y, np.rot90(x, 1, axes=(1, 2)), atol=1e-4)


def test_translation_integer_shift_constant_fill():
  x = _images(1, 4, 5, 1)
  # height 0.5 of 4 rows -> down by 2, width -0.2 of 5 columns -> left by 1
  y = L.RandomTranslation((0.5, 0.5), (-0.2, -0.2), fill_mode="constant", fill_value=-1.0,
                          interpolation="nearest")(x).numpy()
  want = np.full_like(x, -1.0)
  want[:, 2:, :4] = x[:, :2, 1:]
  np.testing.assert_allclose(y, want, atol=1e-4)


def test_random_crop_is_a_window_and_shared_by_the_batch():
  x = _images(3, 8, 7, 2)
  y = L.RandomCrop(5, 4, seed=7)(x).numpy()
  hits = [(i, j) for i in range(4) for j in range(4)
          if np.array_equal(x[:, i:i + 5, j:j + 4], y)]
  assert len(hits) == 1
  offsets = {tuple(np.argwhere([[np.array_equal(x[:, i:i + 5, j:j + 4], L.RandomCrop(
      5, 4, seed=s)(x).numpy()) for j in range(4)] for i in range(4)])[0]) for s in range(12)}
  assert len(offsets) > 3  # seeds move the window


def test_flip_is_identity_or_mirror_per_image():
  x = _images(64, 3, 4, 1)
  y = L.RandomFlip("horizontal", seed=5)(x).numpy()
  same = [np.array_equal(a, b) for a, b in zip(y, x)]
  mirrored = [np.array_equal(a, b[:, ::-1]) for a, b in zip(y, x)]
  assert all(s or m for s, m in zip(same, mirrored))
  assert 16 < sum(mirrored) < 48
  y = L.RandomFlip("vertical", seed=5)(x).numpy()
  assert all(np.array_equal(a, b) or np.array_equal(a, b[::-1]) for a, b in zip(y, x))
  y = L.RandomFlip(seed=2)(x).numpy()
  kinds = {next(k for k, f in enumerate([lambda b: b, lambda b: b[:, ::-1],
                                         lambda b: b[::-1], lambda b: b[::-1, ::-1]])
                if np.array_equal(a, f(b))) for a, b in zip(y, x)}
  assert kinds == {0, 1, 2, 3}


def test_contrast_one_factor_per_batch_and_clipped():
  x = _images(3, 6, 5, 3)
  layer = L.RandomContrast((0.3, 0.6), seed=4)
  for _ in range(5):
    y = layer(x).numpy().astype(np.float64)
    mean = x.mean(axis=(1, 2), keepdims=True)
    inside = (y > 0) & (y < 255) & (np.abs(x - mean) > 1)
    f = ((y - mean) / (x - mean))[inside]
    assert np.ptp(f) < 1e-3 and 0.7 - 1e-4 <= f.mean() <= 1.6 + 1e-4
    assert y.min() >= 0 and y.max() <= 255


def test_brightness_delta_per_image_within_range():
  x = np.full((200, 2, 2, 1), 100.0, np.float32)
  y = L.RandomBrightness((-0.1, 0.3), seed=3)(x).numpy()
  delta = (y - x)[:, 0, 0, 0] / 255.0
  assert np.all(np.ptp((y - x).reshape(200, -1), axis=1) < 1e-4)  # one delta per image
  assert -0.1 - 1e-6 <= delta.min() and delta.max() <= 0.3 + 1e-6
  assert abs(delta.mean() - 0.1) < 0.03
  assert L.RandomBrightness(0.9, seed=1)(np.full((50, 1, 1, 1), 250.0)).numpy().max() == 255.0


def test_rotation_angles_are_uniform_in_range():
  """A single bright point rotated about the centre: its angle is the drawn angle."""
  n, size = 300, 41
  x = np.zeros((n, size, size, 1), np.float32)
  x[:, 20, 35] = 1.0  # 15 pixels right of the centre
  y = L.RandomRotation((-0.1, 0.1), seed=11, fill_mode="constant")(x).numpy()[..., 0]
  yy, xx = np.mgrid[:size, :size]
  cy = (y * yy).sum((1, 2)) / y.sum((1, 2)) - 20
  cx = (y * xx).sum((1, 2)) / y.sum((1, 2)) - 20
  angles = np.arctan2(-cy, cx) / (2 * np.pi)  # counter-clockwise on screen
  assert np.abs(angles).max() <= 0.1 + 0.01
  assert abs(angles.mean()) < 0.015 and 0.05 < angles.std() < 0.065  # U(-.1, .1): std .0577


def test_zoom_and_size_factors_in_range():
  x = _images(1, 20, 10, 1)
  heights = {L.RandomHeight((-0.5, 0.5), seed=s)(x).shape[1] for s in range(30)}
  assert min(heights) >= 10 and max(heights) <= 30 and len(heights) > 5
  widths = {L.RandomWidth(0.4, seed=s)(x).shape[2] for s in range(30)}
  assert min(widths) >= 6 and max(widths) <= 14 and len(widths) > 3


# --------------------------------------------------- training, seeds, tracing

RANDOM = [lambda: L.RandomFlip(seed=1), lambda: L.RandomRotation(0.2, seed=1),
          lambda: L.RandomZoom(0.3, seed=1), lambda: L.RandomTranslation(0.2, 0.3, seed=1),
          lambda: L.RandomContrast(0.5, seed=1), lambda: L.RandomBrightness(0.3, seed=1),
          lambda: L.RandomHeight(0.4, seed=1), lambda: L.RandomWidth(0.4, seed=1),
          lambda: L.RandomCrop(4, 3, seed=1)]


@pytest.mark.parametrize("make", RANDOM)
def test_inference_is_identity_and_seeds_repeat(make):
  x = _images()
  layer = make()
  if isinstance(layer, L.RandomCrop):
    np.testing.assert_allclose(layer(x, training=False).numpy(),
                               L.Resizing(4, 3, crop_to_aspect_ratio=True)(x).numpy(),
                               atol=1e-4)
  else:
    np.testing.assert_array_equal(layer(x, training=False).numpy(), x)
  a, b = make()(x).numpy(), make()(x).numpy()
  np.testing.assert_array_equal(a, b)  # same seed, same draws
  seq = [layer(x, training=True).numpy() for _ in range(4)]
  assert any(s.shape != seq[0].shape or not np.array_equal(s, seq[0]) for s in seq[1:])


def test_set_random_seed_makes_unseeded_layers_repeat():
  x = _images()
  outs = []
  for _ in range(2):
    tf.keras.utils.set_random_seed(3)
    outs.append(L.RandomRotation(0.2)(x).numpy())
  np.testing.assert_array_equal(outs[0], outs[1])
  assert not np.array_equal(L.RandomRotation(0.2)(x).numpy(), outs[0])


@pytest.mark.parametrize("make", RANDOM)
def test_random_layers_in_tf_function_and_dataset_map(make):
  x = _images()
  layer = make()
  f = tf.function(lambda im: layer(im, training=True))
  outs = [f(x).numpy() for _ in range(4)]
  assert any(o.shape != outs[0].shape or not np.array_equal(o, outs[0]) for o in outs[1:])
  g = tf.function(lambda im, t: layer(im, training=t))
  if not isinstance(layer, L.RandomCrop):
    np.testing.assert_array_equal(g(x, tf.constant(False)).numpy(), x)
  ds = tf.data.Dataset.from_tensor_slices(x).batch(2).map(lambda b: layer(b, training=True))
  batches = [b.numpy() for b in ds]
  assert len(batches) == 2 and batches[0].shape[0] == 2 and batches[0].dtype == np.float32


def test_models_augment_only_when_training():
  x = _images(8, 6, 6, 3)
  inp = L.Input((6, 6, 3))
  h = L.RandomFlip(seed=3)(inp)
  h = L.RandomRotation(0.1, seed=3)(h)
  h = L.Rescaling(1 / 255.0)(h)
  out = L.Dense(2)(L.Flatten()(L.CenterCrop(4, 4)(h)))
  model = tf.keras.Model(inp, out)
  ref = L.Dense(2)
  p1, p2 = model.predict(x, verbose=0), model.predict(x, verbose=0)
  np.testing.assert_array_equal(p1, p2)
  dense = model.layers[-1]
  k, b = dense.get_weights()
  np.testing.assert_allclose(p1, (x[:, 1:5, 1:5] / 255.0).reshape(8, -1) @ k + b, rtol=1e-4,
                             atol=1e-5)
  assert not np.allclose(model(x, training=True).numpy(), p1)
  model.compile("sgd", "mse")
  hist = model.fit(x, np.zeros((8, 2), np.float32), epochs=2, verbose=0)
  assert len(hist.history["loss"]) == 2
  del ref


def test_model_config_round_trip_and_save(tmp_path):
  inp = L.Input((6, 6, 3))
  h = L.RandomZoom(0.1, 0.2, fill_mode="constant", seed=5)(inp)
  h = L.Resizing(4, 4, interpolation="bicubic", crop_to_aspect_ratio=True)(h)
  model = tf.keras.Model(inp, L.RandomContrast(0.2)(h))
  clone = tf.keras.Model.from_config(model.get_config())
  x = _images(2, 6, 6, 3)
  np.testing.assert_allclose(clone.predict(x, verbose=0), model.predict(x, verbose=0))
  path = str(tmp_path / "m.keras")
  model.save(path)
  loaded = tf.keras.models.load_model(path)
  assert [type(layer).__name__ for layer in loaded.layers] == \
      ["InputLayer", "RandomZoom", "Resizing", "RandomContrast"]
  np.testing.assert_allclose(loaded.predict(x, verbose=0), model.predict(x, verbose=0))


def test_keras2_file_with_augmentation_layers_loads_and_trains():
  here = os.path.dirname(__file__)
  model = tf.keras.models.load_model(os.path.join(here, "keras2_augment.keras"))
  ref = np.load(os.path.join(here, "keras2_augment.npz"))
  assert [type(layer).__name__ for layer in model.layers][:6] == [
      "RandomFlip", "RandomRotation", "RandomZoom", "RandomTranslation", "RandomContrast",
      "RandomBrightness"]
  np.testing.assert_allclose(model.predict(ref["x"], verbose=0), ref["y"], rtol=1e-5,
                             atol=1e-5)
  model.compile("sgd", "mse")
  loss = model.fit(ref["x"], ref["y"] + 1.0, epochs=1, verbose=0).history["loss"]
  assert np.isfinite(loss).all()


@pytest.mark.parametrize("make", [
    lambda: L.CenterCrop(4, 4), lambda: L.Resizing(3, 5, crop_to_aspect_ratio=True),
    lambda: L.RandomCrop(4, 4, seed=2), lambda: L.RandomRotation(0.2, seed=1),
    lambda: L.RandomWidth(0.3, seed=1), lambda: L.CenterCrop(9, 4)])
def test_unknown_image_sizes_in_tf_function(make):
  layer = make()
  f = tf.function(lambda im: layer(im, training=True),
                  input_signature=[tf.TensorSpec([None, None, None, 3])])
  for x in (_images(2, 8, 6), _images(3, 5, 7)):
    y = f(x)
    assert y.shape[0] == x.shape[0]
    if isinstance(layer, (L.CenterCrop, L.RandomCrop, L.Resizing)):
      eager = layer(x, training=True) if not isinstance(layer, L.RandomCrop) else None
      if eager is not None:
        np.testing.assert_allclose(y.numpy(), eager.numpy(), atol=1e-4)


# ------------------------------------------------------------------- gradients

@pytest.mark.parametrize("make", [
    lambda: L.Rescaling(0.5, 1.0, dtype="float64"),
    lambda: L.CenterCrop(3, 3, dtype="float64"),
    lambda: L.RandomRotation((0.07, 0.07), dtype="float64"),
    lambda: L.RandomZoom((0.2, 0.2), fill_mode="wrap", dtype="float64"),
    lambda: L.RandomTranslation((0.3, 0.3), (0.1, 0.1), fill_mode="nearest",
                                dtype="float64"),
    lambda: L.RandomBrightness((0.1, 0.1), value_range=(-100, 100), dtype="float64")])
def test_gradients(make):
  layer = make()
  x = np.random.RandomState(0).standard_normal((2, 5, 4, 2))
  check_layer_grads(layer, x)


@pytest.mark.parametrize("make", [
    lambda: L.Resizing(3, 4, dtype="float64"),
    lambda: L.Resizing(3, 2, interpolation="lanczos3", crop_to_aspect_ratio=True,
                       dtype="float64"),
    lambda: L.RandomHeight((0.4, 0.4), dtype="float64")])
def test_gradients_of_float32_resizes(make):
  # NOTE: these resize in float32 whatever the layer dtype (Keras 2 does); they are
  # linear, so a wide step keeps the finite difference exact up to float32 rounding.
  layer = make()
  x = np.random.RandomState(0).standard_normal((2, 5, 4, 2))
  check_layer_grads(layer, x, eps=0.5, rtol=1e-4)


def test_random_flip_and_contrast_gradients_with_fixed_draws():
  x = np.random.RandomState(0).standard_normal((6, 4, 3, 2))
  r = np.random.RandomState(1).standard_normal(x.shape)
  for layer in (L.RandomFlip(seed=4, dtype="float64"),
                L.RandomContrast(0.5, seed=4, dtype="float64")):
    layer(x)
    state = layer._random_generator.state.numpy()

    def f(v, layer=layer, state=state):
      layer._random_generator.reset(state)
      return layer(v)
    t = tf.constant(x)
    with tf.GradientTape() as tape:
      tape.watch(t)
      loss = tf.reduce_sum(f(t) * r)
    g = tape.gradient(loss, t).numpy()
    d = np.random.RandomState(2).standard_normal(x.shape)
    eps = 1e-5
    numeric = (np.sum(f(x + eps * d).numpy() * r) - np.sum(f(x - eps * d).numpy() * r)) / (
        2 * eps)
    np.testing.assert_allclose(np.sum(g * d), numeric, rtol=1e-6)


# ------------------------------------------------------- configs and errors

@pytest.mark.parametrize("layer", [
    L.Rescaling(0.5, offset=1.0), L.Resizing(3, 4, "bicubic", crop_to_aspect_ratio=True),
    L.CenterCrop(2, 3), L.RandomCrop(2, 3, seed=4), L.RandomFlip("vertical", seed=1),
    L.RandomTranslation((-0.1, 0.2), 0.3, "wrap", "nearest", seed=2, fill_value=3.0),
    L.RandomRotation((-0.2, 0.1), fill_mode="constant", fill_value=1.0),
    L.RandomZoom(0.2, (-0.1, 0.3), interpolation="nearest"), L.RandomContrast((0.1, 0.4)),
    L.RandomBrightness(0.3, value_range=(-1, 1), seed=9), L.RandomHeight(0.2, "area"),
    L.RandomWidth((-0.3, 0.1), seed=3)])
def test_config_round_trip(layer):
  config = check_config(layer)
  assert config.name == layer.name


def test_config_keys_as_keras():
  assert L.RandomRotation(0.1).get_config().keys() >= {
      "name", "trainable", "dtype", "rng_type", "factor", "fill_mode", "fill_value",
      "interpolation", "seed"}
  assert L.RandomBrightness(0.1).get_config()["factor"] == [-0.1, 0.1]
  assert L.RandomBrightness(0.1).get_config()["value_range"] == [0, 255]
  assert L.RandomHeight(0.2).compute_output_shape((None, 8, 8, 3)).as_list() == \
      [None, None, 8, 3]
  assert L.RandomWidth(0.2).compute_output_shape((None, 8, 8, 3)).as_list() == \
      [None, 8, None, 3]
  assert L.CenterCrop(2, 3).compute_output_shape((None, 8, 8, 3)).as_list() == [None, 2, 3, 3]


@pytest.mark.parametrize("make,err,msg", [
    (lambda: L.RandomFlip("diagonal"), ValueError, "unknown mode"),
    (lambda: L.RandomRotation(0.1, fill_mode="mirror"), NotImplementedError, "fill_mode"),
    (lambda: L.RandomZoom(0.1, interpolation="bicubic"), NotImplementedError, "interpolation"),
    (lambda: L.RandomRotation((0.3, 0.1)), ValueError, "factor"),
    (lambda: L.RandomTranslation(1.5, 0.1), ValueError, "height_factor"),
    (lambda: L.RandomTranslation(0.1, (0.2, -0.2)), ValueError, "width_factor"),
    (lambda: L.RandomZoom(1.2), ValueError, "height_factor"),
    (lambda: L.RandomZoom(0.1, (-1.5, 0.0)), ValueError, "width_factor"),
    (lambda: L.RandomContrast(-0.1), ValueError, "factor"),
    (lambda: L.RandomContrast((1.5, 0.1)), ValueError, "factor"),
    (lambda: L.RandomBrightness(1.5), ValueError, "factor"),
    (lambda: L.RandomBrightness((0.1, 0.2, 0.3)), ValueError, "factor"),
    (lambda: L.RandomBrightness("x"), ValueError, "factor"),
    (lambda: L.RandomBrightness(0.1, value_range=(0, 1, 2)), ValueError, "value_range"),
    (lambda: L.RandomHeight((0.3, 0.1)), ValueError, "upper bound"),
    (lambda: L.RandomWidth((-1.5, 0.2)), ValueError, "larger than -1"),
    (lambda: L.RandomHeight(0.1, interpolation="cubic"), NotImplementedError, "interpolation"),
    (lambda: L.Resizing(2, 2, interpolation="linear"), NotImplementedError, "interpolation"),
    (lambda: L.RandomFlip()({"images": np.ones((1, 2, 2, 1))}), ValueError, "dict"),
    (lambda: L.RandomBrightness(0.1)(np.ones((2, 2))), ValueError, "rank 3 or 4"),
    # bad inputs: the error types real Keras 2 raises
    (lambda: L.CenterCrop(0, 2)(np.ones((1, 4, 4, 1))), ValueError, "target_height"),
    (lambda: L.RandomFlip()(np.ones((2, 2))), ValueError, "rank 3"),
    (lambda: L.RandomRotation(0.1)(np.ones((2, 2))), tf.errors.InvalidArgumentError, "rank 3"),
    (lambda: L.RandomZoom(0.1)(np.ones((1, 2, 2, 2, 1))), tf.errors.InvalidArgumentError,
     "rank 3"),
    (lambda: L.RandomHeight(0.1)(np.ones((2, 2))), tf.errors.InvalidArgumentError, "rank 3"),
    (lambda: L.RandomCrop(1, 1)(np.ones((2, 2))), tf.errors.InvalidArgumentError, "rank 3"),
    (lambda: L.RandomContrast(0.1)(np.ones((2, 2))), tf.errors.InvalidArgumentError, ""),
    (lambda: L.Resizing(-1, 2)(np.ones((1, 4, 4, 1))), tf.errors.InvalidArgumentError, ""),
    (lambda: L.Resizing(2, 2)(np.ones((2, 2))), ValueError, "dimensions"),
])
def test_bad_arguments(make, err, msg):
  with pytest.raises(err, match=msg):
    make()


def test_exported_names():
  ep = tf.keras.layers.experimental.preprocessing
  for name in ["Rescaling", "Resizing", "CenterCrop", "RandomCrop", "RandomFlip",
               "RandomTranslation", "RandomRotation", "RandomZoom", "RandomContrast",
               "RandomHeight", "RandomWidth"]:
    assert getattr(ep, name) is getattr(L, name)
  assert L.RandomBrightness.__name__ == "RandomBrightness"
  with pytest.raises(AttributeError):
    ep.RandomBrightness  # noqa: B018 - Keras 2 has it in keras.layers only


with open(os.path.join(os.path.dirname(__file__), "keras2_configs.json")) as _f:
  _CONFIGS = json.load(_f)


@pytest.mark.parametrize("cls", sorted(_CONFIGS["cases"]))
def test_get_config_equals_keras2(cls):
  """get_config() of the same constructor arguments as real Keras 2 (keras2_configs.json,
  written by make_tf_reference.py)."""
  config = getattr(L, cls)(**_CONFIGS["cases"][cls]).get_config()
  config.pop("name")
  assert json.loads(json.dumps(config, default=list)) == _CONFIGS["configs"][cls]


def test_summary_equals_keras2():
  """model.summary() of all the layers here, line for line as real Keras 2 prints it
  (keras2_summary.json, written by make_tf_reference.py)."""
  with open(os.path.join(os.path.dirname(__file__), "keras2_summary.json")) as f:
    ref = json.load(f)
  layers = [getattr(L, c)(name=f"l{i}_{c.lower()}", **kw) for i, (c, kw) in
            enumerate(ref["layers"])]
  layers[12].adapt(np.ones((4, 8, 8, 3)))
  layers[15].adapt(np.arange(10.0))
  lines = []
  tf.keras.Sequential([L.Input((8, 8, 3))] + layers, name="augment").summary(
      line_length=100, print_fn=lines.append)
  assert lines == ref["lines"]
