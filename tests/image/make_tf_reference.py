"""Writes tf_reference.npz: real TensorFlow's tf.image and tf.signal outputs on fixed
seeded inputs, which test_tf_reference.py compares tensorlet against.

Run with a TensorFlow install (not a tensorlet dependency):
  TF_CPP_MIN_LOG_LEVEL=3 /work/tfref/bin/python tests/image/make_tf_reference.py
"""
import os

import numpy as np

METHODS = ["bilinear", "nearest", "bicubic", "area", "lanczos3", "lanczos5", "gaussian",
           "mitchellcubic"]
SIZES = [(4, 3), (11, 13)]


def inputs():
  rng = np.random.RandomState(1234)
  return {"x": rng.rand(2, 7, 9, 3).astype(np.float32),
          "u8": rng.randint(0, 256, (2, 5, 6, 3)).astype(np.uint8),
          "big": rng.rand(1, 16, 18, 2).astype(np.float32),
          "sig": rng.randn(2, 200).astype(np.float32),
          "large": rng.rand(2, 180, 177, 3).astype(np.float32)}


def outputs(tf, v):
  """The same calls, for TF here and for tensorlet in the test."""
  x, u8, big, sig = (tf.constant(v[k]) for k in ("x", "u8", "big", "sig"))
  u8_flipped = tf.constant(v["u8"][::-1].copy())
  out = {}
  for m in METHODS:
    for h, w in SIZES:
      for aa in (False, True):
        out[f"resize/{m}/{h}x{w}/{aa}"] = tf.image.resize(x, [h, w], m, antialias=aa)
  out["resize/u8"] = tf.image.resize(u8, [3, 8])
  out["resize/aspect"] = tf.image.resize(x, [5, 5], preserve_aspect_ratio=True)
  out["resize_with_pad"] = tf.image.resize_with_pad(x, 10, 5)
  out["adjust_saturation"] = tf.image.adjust_saturation(u8, 1.7)
  out["adjust_hue"] = tf.image.adjust_hue(x, 0.37)
  out["adjust_contrast"] = tf.image.adjust_contrast(u8, 0.6)
  out["adjust_brightness"] = tf.image.adjust_brightness(u8, -0.1)
  out["adjust_gamma"] = tf.image.adjust_gamma(u8, 1.8, 0.9)
  out["rgb_to_hsv"] = tf.image.rgb_to_hsv(x)
  out["grayscale"] = tf.image.rgb_to_grayscale(u8)
  out["standardize"] = tf.image.per_image_standardization(u8)
  out["psnr"] = tf.image.psnr(u8, u8_flipped, 255)
  out["ssim"] = tf.image.ssim(big, big ** 1.5, 1.0)
  out["ssim/u8"] = tf.image.ssim(u8, u8_flipped, 255, filter_size=3)
  out["sobel"] = tf.image.sobel_edges(x)
  out["stft"] = tf.signal.stft(sig, 32, 8, pad_end=True)
  out["inverse_stft"] = tf.signal.inverse_stft(tf.signal.stft(sig, 32, 8), 32, 8)
  out["mel"] = tf.signal.linear_to_mel_weight_matrix(16, 17, 16000, 50.0, 7000.0)
  out["mfcc"] = tf.signal.mfccs_from_log_mel_spectrograms(tf.math.log(
      tf.abs(tf.signal.stft(sig, 32, 8)) @ out["mel"] + 1e-6))
  out["crop_and_resize"] = tf.image.crop_and_resize(
      x, [[0.1, 0.2, 0.8, 0.9], [-0.2, 0.3, 0.5, 1.3], [0.6, 0.6, 0.1, 0.2]], [0, 1, 1], [4, 5],
      extrapolation_value=-1.0)
  large = tf.constant(v["large"])
  out["ssim_multiscale"] = tf.image.ssim_multiscale(large, large * 0.7 + 0.1, 1.0)
  out["kaiser_window"] = tf.signal.kaiser_window(9, 5.0)
  out["kaiser_bessel_derived_window"] = tf.signal.kaiser_bessel_derived_window(10, 4.0)
  out["vorbis_window"] = tf.signal.vorbis_window(8)
  out["mdct"] = tf.signal.mdct(sig, 16, norm="ortho", pad_end=True)
  out["inverse_mdct"] = tf.signal.inverse_mdct(tf.signal.mdct(sig, 16))
  return {k: np.asarray(t) for k, t in out.items()}


if __name__ == "__main__":
  import tensorflow as tf
  here = os.path.dirname(os.path.abspath(__file__))
  np.savez_compressed(os.path.join(here, "tf_reference.npz"), **outputs(tf, inputs()))
