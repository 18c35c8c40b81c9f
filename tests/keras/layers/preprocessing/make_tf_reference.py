"""Writes tf_reference.npz: outputs of real Keras 2 (tf_keras 2.21) preprocessing layers
on fixed inputs, for test_image_preprocessing.py / test_numeric_preprocessing.py.

Run with the reference TensorFlow (never a dependency of tensorlet):
  TF_USE_LEGACY_KERAS=1 /work/tfref/bin/python tests/keras/layers/preprocessing/make_tf_reference.py
Random layers are run with degenerate factor ranges ((f, f)), which makes them
deterministic, so their geometry can be compared value by value.
"""
import os

import numpy as np
import tensorflow as tf

L = tf.keras.layers
rng = np.random.RandomState(0)
img = rng.uniform(0, 255, (2, 5, 7, 3)).astype(np.float32)
out = {"img": img}

for m in ["bilinear", "nearest", "bicubic", "area", "lanczos3", "lanczos5", "gaussian",
          "mitchellcubic"]:
  out[f"resize_{m}"] = L.Resizing(4, 3, interpolation=m)(img).numpy()
  out[f"resize_crop_{m}"] = L.Resizing(4, 3, interpolation=m, crop_to_aspect_ratio=True)(img).numpy()
  out[f"upsampling_{m}"] = L.UpSampling2D((2, 3), interpolation=m)(img[:, :3, :4]).numpy()
out["resize_crop_wide"] = L.Resizing(2, 6, crop_to_aspect_ratio=True)(img).numpy()
out["resize_u8_nearest"] = L.Resizing(3, 9, interpolation="nearest")(img.astype(np.uint8)).numpy()
out["center_crop"] = L.CenterCrop(3, 4)(img).numpy()
out["center_crop_up"] = L.CenterCrop(6, 4)(img).numpy()
out["random_crop_infer"] = L.RandomCrop(6, 4)(img, training=False).numpy()
out["rescaling"] = L.Rescaling(1 / 127.5, offset=-1)(img.astype(np.uint8)).numpy()

for mode in ["reflect", "wrap", "constant", "nearest"]:
  for interp in ["bilinear", "nearest"]:
    kw = dict(fill_mode=mode, interpolation=interp, fill_value=7.0)
    out[f"rotation_{mode}_{interp}"] = L.RandomRotation((0.1, 0.1), **kw)(img).numpy()
    out[f"zoom_{mode}_{interp}"] = L.RandomZoom((-0.3, -0.3), (0.4, 0.4), **kw)(img).numpy()
    out[f"translation_{mode}_{interp}"] = L.RandomTranslation((0.3, 0.3), (-0.45, -0.45),
                                                                **kw)(img).numpy()
out["zoom_same"] = L.RandomZoom((0.5, 0.5))(img).numpy()
out["brightness"] = L.RandomBrightness((0.2, 0.2))(img).numpy()
out["brightness_range"] = L.RandomBrightness((-0.3, -0.3), value_range=(0, 1))(img / 255.).numpy()
out["height"] = L.RandomHeight((0.5, 0.5))(img).numpy()
out["width"] = L.RandomWidth((-0.4, -0.4), interpolation="bicubic")(img).numpy()

data = rng.normal(3.0, 2.0, (50, 3, 4)).astype(np.float32)
out["norm_data"] = data
for name, axis in [("last", -1), ("none", None), ("12", (1, 2)), ("1", 1)]:
  n = L.Normalization(axis=axis)
  n.adapt(tf.data.Dataset.from_tensor_slices(data).batch(8))
  out[f"norm_{name}_mean"], out[f"norm_{name}_var"] = n.get_weights()[:2]
  out[f"norm_{name}"] = n(data[:4]).numpy()
out["norm_invert"] = L.Normalization(mean=[1.0, 2.0, 3.0, 4.0], variance=[1.0, 4.0, 9.0, 0.0],
                                     invert=True)(data[:2]).numpy()

values = rng.exponential(2.0, (600,)).astype(np.float32)
out["disc_values"] = values
for bins, eps in [(4, 0.01), (7, 0.05), (3, 0.001)]:
  d = L.Discretization(num_bins=bins, epsilon=eps)
  d.adapt(values, batch_size=64)
  out[f"disc_bounds_{bins}"] = np.array(d.bin_boundaries, np.float64)

np.savez_compressed(os.path.join(os.path.dirname(os.path.abspath(__file__)), "tf_reference.npz"),
                    **out)

# A Keras 2 .h5 model with adapted preprocessing layers (their statistics are weights).
feats = rng.normal(1.0, 3.0, (200, 3)).astype(np.float32)
norm = L.Normalization()
norm.adapt(feats)
disc = L.Discretization(num_bins=4)
disc.adapt(norm(feats).numpy())
inp = L.Input((3,))
model = tf.keras.Model(inp, disc(norm(inp)))
model.save(os.path.join(os.path.dirname(os.path.abspath(__file__)), "keras2_preprocessing.h5"))
np.savez_compressed(os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                 "keras2_preprocessing.npz"),
                    x=feats[:20], y=model.predict(feats[:20], verbose=0))

# get_config() of layers built from the same arguments (keras2_configs.json).
import json  # noqa: E402

CONFIG_CASES = {
    "Rescaling": dict(scale=0.5, offset=1.0),
    "Resizing": dict(height=3, width=4, interpolation="bicubic", crop_to_aspect_ratio=True),
    "CenterCrop": dict(height=2, width=3),
    "RandomCrop": dict(height=2, width=3, seed=4),
    "RandomFlip": dict(mode="vertical", seed=1),
    "RandomTranslation": dict(height_factor=(-0.1, 0.2), width_factor=0.3, fill_mode="wrap",
                              interpolation="nearest", seed=2, fill_value=3.0),
    "RandomRotation": dict(factor=(-0.2, 0.1), fill_mode="constant", fill_value=1.0),
    "RandomZoom": dict(height_factor=0.2, width_factor=(-0.1, 0.3)),
    "RandomContrast": dict(factor=(0.1, 0.4)),
    "RandomBrightness": dict(factor=0.3, value_range=(-1, 1), seed=9),
    "RandomHeight": dict(factor=0.2, interpolation="area"),
    "RandomWidth": dict(factor=(-0.3, 0.1), seed=3),
    "Normalization": dict(axis=(1, 2), mean=[1.0, 2.0], variance=[3.0, 4.0], invert=True),
    "Discretization": dict(num_bins=4, epsilon=0.02, output_mode="count", sparse=True),
    "UpSampling2D": dict(size=(2, 3), interpolation="lanczos5"),
}
configs = {}
for cls, kwargs in CONFIG_CASES.items():
  config = getattr(L, cls)(**kwargs).get_config()
  config.pop("name")
  configs[cls] = json.loads(json.dumps(config, default=list))
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "keras2_configs.json"),
          "w") as f:
  json.dump({"cases": CONFIG_CASES, "configs": configs}, f, indent=1, sort_keys=True,
            default=list)

# A Keras 2 .keras model with augmentation layers (identity at inference) and resizing.
tf.keras.utils.set_random_seed(0)
aug = tf.keras.Sequential([
    L.Input((10, 7, 3)), L.RandomFlip(seed=1), L.RandomRotation(0.1, fill_mode="constant"),
    L.RandomZoom(0.2, 0.1), L.RandomTranslation(0.1, 0.2), L.RandomContrast(0.3),
    L.RandomBrightness(0.2), L.Resizing(6, 6, interpolation="bicubic"), L.CenterCrop(4, 4),
    L.Rescaling(1 / 255.0), L.UpSampling2D(2, interpolation="bilinear"), L.Flatten(),
    L.Dense(3)])
aug.save(os.path.join(os.path.dirname(os.path.abspath(__file__)), "keras2_augment.keras"))
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "keras2_augment.npz"),
          "wb") as f:
  np.savez_compressed(f, x=img.repeat(2, axis=1), y=aug.predict(img.repeat(2, axis=1),
                                                                 verbose=0))

# model.summary() of every layer here, with explicit names (keras2_summary.json).
SUMMARY_LAYERS = [["RandomFlip", {}], ["RandomRotation", {"factor": 0.2}],
                  ["RandomZoom", {"height_factor": 0.1}],
                  ["RandomTranslation", {"height_factor": 0.1, "width_factor": 0.1}],
                  ["RandomContrast", {"factor": 0.1}], ["RandomBrightness", {"factor": 0.1}],
                  ["RandomHeight", {"factor": 0.2}], ["RandomWidth", {"factor": 0.2}],
                  ["Resizing", {"height": 4, "width": 4}],
                  ["RandomCrop", {"height": 3, "width": 3}],
                  ["CenterCrop", {"height": 2, "width": 2}], ["Rescaling", {"scale": 2.0}],
                  ["Normalization", {}], ["UpSampling2D", {"interpolation": "bicubic"}],
                  ["Flatten", {}], ["Discretization", {"num_bins": 3}]]
layers = [getattr(L, c)(name=f"l{i}_{c.lower()}", **kw) for i, (c, kw) in enumerate(SUMMARY_LAYERS)]
layers[12].adapt(np.ones((4, 8, 8, 3)))
layers[15].adapt(np.arange(10.0))
lines = []
tf.keras.Sequential([L.Input((8, 8, 3))] + layers, name="augment").summary(
    line_length=100, print_fn=lines.append)
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "keras2_summary.json"),
          "w") as f:
  json.dump({"layers": SUMMARY_LAYERS, "lines": lines}, f, indent=1)
