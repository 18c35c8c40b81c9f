"""tf.image behaviour beyond the op table: argument checks with TF's error types,
random and stateless random forms, graphs with unknown sizes, boxes."""
import numpy as np
import pytest

import tensorlet as tf

IAE = tf.errors.InvalidArgumentError
rng = np.random.RandomState(0)
X = rng.rand(4, 5, 3).astype(np.float32)


# ------------------------------------------------------------- resize

@pytest.mark.parametrize("call,err,pattern", [
    (lambda: tf.image.resize(tf.zeros([4, 4]), [2, 2]), ValueError, "3 or 4 dimensions"),
    (lambda: tf.image.resize(X, [2, 2, 2]), ValueError, "1-D Tensor of 2 elements"),
    (lambda: tf.image.resize(X, [2.0, 2.0]), ValueError, "1-D int32 Tensor"),
    (lambda: tf.image.resize(X, [2, 2], method="foo"), ValueError, "not implemented: foo"),
    (lambda: tf.image.resize(X, [-1, 2]), IAE, "output dimensions must be positive"),
    (lambda: tf.image.resize(X, [0, 2]), IAE, "output dimensions must be positive"),
])
def test_resize_errors(call, err, pattern):
  with pytest.raises(err, match=pattern):
    call()


def test_resize_dtypes_follow_tf():
  u8 = (X * 255).astype(np.uint8)
  assert tf.image.resize(u8, [2, 2]).dtype == tf.float32
  assert tf.image.resize(X.astype(np.float64), [2, 2], "bicubic").dtype == tf.float32
  assert tf.image.resize(u8, [2, 2], "nearest").dtype == tf.uint8
  assert tf.image.resize(X.astype(np.float64), [2, 2], "nearest").dtype == tf.float64


def test_resize_same_size_bilinear_is_identity():
  np.testing.assert_allclose(tf.image.resize(X, [4, 5]).numpy(), X, rtol=1e-6)


def test_resize_preserve_aspect_ratio_fits_inside():
  assert tf.image.resize(tf.zeros([4, 6, 1]), [3, 3], preserve_aspect_ratio=True).shape == \
      [2, 3, 1]
  assert tf.image.resize(tf.zeros([4, 4, 1]), [2, 2], preserve_aspect_ratio=True).shape == \
      [2, 2, 1]


def test_resize_in_function_with_unknown_size():
  f = tf.function(lambda x, s: tf.image.resize(x, s),
                  input_signature=[tf.TensorSpec([None, None, None, 3]),
                                   tf.TensorSpec([2], tf.int32)])
  got = f(X[None], tf.constant([7, 2]))
  np.testing.assert_allclose(got.numpy(), tf.image.resize(X[None], [7, 2]).numpy(), rtol=1e-6)


def test_resize_gradient_of_area_is_none_as_tf():
  x = tf.constant(X)
  with tf.GradientTape() as tape:
    tape.watch(x)
    y = tf.reduce_sum(tf.image.resize(x, [2, 2], "area"))
  assert tape.gradient(y, x) is None


# ------------------------------------------------------- crops and pads

@pytest.mark.parametrize("call,pattern", [
    (lambda: tf.image.crop_to_bounding_box(X, -1, 0, 2, 2), "offset_height must be >= 0"),
    (lambda: tf.image.crop_to_bounding_box(X, 3, 0, 2, 2), "height must be >= target"),
    (lambda: tf.image.crop_to_bounding_box(X, 0, 0, 2, 0), "target_width must be > 0"),
    (lambda: tf.image.pad_to_bounding_box(X, 0, 0, 3, 5), "height must be <= target"),
    (lambda: tf.image.central_crop(X, 0.0), r"central_fraction must be within \(0, 1\]"),
    (lambda: tf.image.grayscale_to_rgb(X), "Last dimension of a grayscale image"),
    (lambda: tf.image.flip_left_right(tf.zeros([3, 3])), "3 or 4 dimensions"),
    (lambda: tf.image.random_hue(X, 0.6), r"max_delta must be <= 0.5"),
    (lambda: tf.image.random_contrast(X, 0.5, 0.2), "upper must be > lower"),
    (lambda: tf.image.random_brightness(X, -0.2), "max_delta must be non-negative"),
    (lambda: tf.image.total_variation(tf.zeros([3, 3])), "either 3 or 4-dimensional"),
    (lambda: tf.image.image_gradients(X), "expects a 4D tensor"),
])
def test_value_errors(call, pattern):
  with pytest.raises(ValueError, match=pattern):
    call()


def test_pad_and_crop_with_unknown_dims_in_function():
  f = tf.function(lambda x: tf.image.resize_with_crop_or_pad(x, 3, 8),
                  input_signature=[tf.TensorSpec([None, None, 3])])
  np.testing.assert_array_equal(f(X).numpy(), tf.image.resize_with_crop_or_pad(X, 3, 8).numpy())
  g = tf.function(lambda x: tf.image.central_crop(x, 0.5),
                  input_signature=[tf.TensorSpec([None, None, 3])])
  np.testing.assert_array_equal(g(X).numpy(), X[1:3, 1:4])


def test_resize_with_pad_keeps_aspect_and_centres():
  out = tf.image.resize_with_pad(tf.ones([2, 4, 1]), 4, 4).numpy()[..., 0]
  np.testing.assert_array_equal(out, [[0, 0, 0, 0], [1, 1, 1, 1], [1, 1, 1, 1], [0, 0, 0, 0]])


def test_rot90_with_a_runtime_k():
  f = tf.function(lambda x, k: tf.image.rot90(x, k),
                  input_signature=[tf.TensorSpec([3, 3, 1]), tf.TensorSpec([], tf.int32)])
  x = np.arange(9, dtype=np.float32).reshape(3, 3, 1)
  for k in range(-1, 5):
    np.testing.assert_array_equal(f(x, tf.constant(k)).numpy(), np.rot90(x, k, (0, 1)))


# ----------------------------------------------------- random forms

def test_random_flip_is_seeded_and_flips_about_half_the_batch():
  batch = np.arange(64 * 2 * 3, dtype=np.float32).reshape(64, 2, 3, 1)
  tf.random.set_seed(5)
  a = tf.image.random_flip_left_right(batch, seed=1).numpy()
  tf.random.set_seed(5)
  b = tf.image.random_flip_left_right(batch, seed=1).numpy()
  np.testing.assert_array_equal(a, b)
  flipped = [np.array_equal(a[i], batch[i, :, ::-1]) for i in range(64)]
  kept = [np.array_equal(a[i], batch[i]) for i in range(64)]
  assert all(f or k for f, k in zip(flipped, kept))
  assert 16 < sum(flipped) < 48


def test_stateless_forms_depend_only_on_seed():
  x = (X * 255).astype(np.uint8)
  for fn in [lambda s: tf.image.stateless_random_flip_up_down(X[None].repeat(8, 0), s),
             lambda s: tf.image.stateless_random_brightness(X, 0.3, s),
             lambda s: tf.image.stateless_random_contrast(x, 0.2, 1.8, s),
             lambda s: tf.image.stateless_random_saturation(X, 0.2, 1.8, s),
             lambda s: tf.image.stateless_random_hue(X, 0.4, s),
             lambda s: tf.image.stateless_random_crop(X, [2, 3, 3], s)]:
    np.testing.assert_array_equal(fn([1, 2]).numpy(), fn([1, 2]).numpy())
  outs = {tf.image.stateless_random_brightness(X, 0.3, [i, 0]).numpy().tobytes()
          for i in range(5)}
  assert len(outs) > 1


def test_random_crop_is_a_window():
  out = tf.image.random_crop(X, [2, 3, 3], seed=3).numpy()
  assert out.shape == (2, 3, 3)
  hits = [(i, j) for i in range(3) for j in range(3) if np.array_equal(X[i:i + 2, j:j + 3], out)]
  assert hits
  with pytest.raises(IAE, match="Need value.shape >= size"):
    tf.image.random_crop(X, [5, 5, 3])


def test_random_brightness_stays_in_range():
  tf.random.set_seed(0)
  for _ in range(5):
    d = tf.image.random_brightness(X, 0.2).numpy() - X
    assert np.allclose(d, d.flat[0], atol=1e-6) and abs(d.flat[0]) <= 0.2


# ----------------------------------------------------- colour checks

def test_colour_errors_have_tf_types():
  with pytest.raises(IAE, match="not in the list of allowed values"):
    tf.image.rgb_to_hsv(tf.zeros([2, 2, 3], tf.int32))
  with pytest.raises(tf.errors.FailedPreconditionError, match="must have 3 channels"):
    tf.image.rgb_to_hsv(tf.zeros([2, 2, 4]))
  with pytest.raises(AttributeError, match="floating point or integer"):
    tf.image.convert_image_dtype(tf.constant([True]), tf.float32)


def test_hsv_round_trip_and_saturation_zero_is_gray():
  hsv = tf.image.rgb_to_hsv(X)
  np.testing.assert_allclose(tf.image.hsv_to_rgb(hsv).numpy(), X, atol=1e-6)
  gray = tf.image.adjust_saturation(X, 0.0).numpy()
  np.testing.assert_allclose(gray, np.repeat(X.max(-1, keepdims=True), 3, -1), atol=1e-6)


def test_adjust_hue_full_turn_is_identity():
  np.testing.assert_allclose(tf.image.adjust_hue(X, 1.0).numpy(), X, atol=1e-5)


def test_ssim_identical_is_one_and_index_map_shape():
  y = rng.rand(2, 16, 16, 1).astype(np.float32)
  np.testing.assert_allclose(tf.image.ssim(y, y, 1.0).numpy(), [1, 1], rtol=1e-6)
  m = tf.image.ssim(y, y * 0.5, 1.0, return_index_map=True)
  assert m.shape == [2, 6, 6]
  with pytest.raises(IAE):
    tf.image.ssim(tf.zeros([4, 4, 1]), tf.zeros([4, 4, 1]), 1.0)


def test_psnr_identical_is_inf():
  assert np.isinf(tf.image.psnr(X, X, 1.0).numpy())


# ------------------------------------------------------------- boxes

def test_nms_errors_and_thresholds():
  boxes = np.array([[0, 0, 1, 1], [0, 0.1, 1, 1.1], [0, -0.1, 1, 0.9], [0, 10, 1, 11],
                    [0, 10.1, 1, 11.1], [0, 100, 1, 101]], np.float32)
  scores = np.array([0.9, 0.75, 0.6, 0.95, 0.5, 0.3], np.float32)
  np.testing.assert_array_equal(tf.image.non_max_suppression(boxes, scores, 3, 0.5), [3, 0, 5])
  np.testing.assert_array_equal(
      tf.image.non_max_suppression(boxes, scores, 3, 0.5, score_threshold=0.4), [3, 0])
  idx, sc = tf.image.non_max_suppression_with_scores(boxes, scores, 2)
  np.testing.assert_allclose(sc.numpy(), [0.95, 0.9])
  idx, n = tf.image.non_max_suppression_padded(boxes, scores, 5, 0.5,
                                               pad_to_max_output_size=True)
  np.testing.assert_array_equal(idx, [3, 0, 5, 0, 0])
  assert int(n) == 3
  with pytest.raises(IAE, match="iou_threshold must be in"):
    tf.image.non_max_suppression(boxes, scores, 2, 1.5)
  with pytest.raises(IAE, match="boxes must be 2-D"):
    tf.image.non_max_suppression(tf.zeros([3]), tf.zeros([3]), 2)
  with pytest.raises(ValueError, match="boxes must be 2-D"):
    tf.function(lambda b, s: tf.image.non_max_suppression(b, s, 2))(tf.zeros([3]),
                                                                      tf.zeros([3]))
  with pytest.raises(NotImplementedError, match="Soft-NMS"):
    tf.image.non_max_suppression_with_scores(boxes, scores, 2, soft_nms_sigma=0.5)


def test_draw_bounding_boxes_skips_inverted_and_outside_boxes():
  img = np.zeros([1, 5, 5, 3], np.float32)
  boxes = np.array([[[0.6, 0.6, 0.2, 0.9], [1.5, 1.5, 2.0, 2.0]]], np.float32)
  out = tf.image.draw_bounding_boxes(img, boxes, [[1.0, 0.0, 0.0, 1.0]]).numpy()
  np.testing.assert_array_equal(out, img)
  with pytest.raises(IAE):
    tf.image.draw_bounding_boxes(tf.zeros([5, 5, 3]), boxes, None)


def test_extract_patches_bad_sizes():
  with pytest.raises(IAE, match="ksizes"):
    tf.image.extract_patches(tf.zeros([1, 4, 4, 1]), [1, 2, 2], [1, 1, 1, 1], [1, 1, 1, 1],
                             "VALID")
  with pytest.raises(IAE, match="padding"):
    tf.image.extract_patches(tf.zeros([1, 4, 4, 1]), [1, 2, 2, 1], [1, 1, 1, 1], [1, 1, 1, 1],
                             "FULL")


def test_crop_and_resize_errors():
  im = tf.zeros([2, 4, 4, 1])
  with pytest.raises(IAE, match="box_index has values outside"):
    tf.image.crop_and_resize(im, [[0.0, 0.0, 1.0, 1.0]], [2], [2, 2])
  with pytest.raises(IAE, match="crop dimensions must be positive"):
    tf.image.crop_and_resize(im, [[0.0, 0.0, 1.0, 1.0]], [0], [0, 2])
  with pytest.raises(ValueError, match="method"):
    tf.image.crop_and_resize(im, [[0.0, 0.0, 1.0, 1.0]], [0], [2, 2], method="bicubic")
  out = tf.image.crop_and_resize(im + 1, [[0.0, 0.0, 1.0, 1.0]], [1], [3, 2])
  np.testing.assert_array_equal(out.numpy(), np.ones([1, 3, 2, 1]))


def test_ssim_multiscale_identical_is_one():
  y = rng.rand(1, 180, 180, 1).astype(np.float32)
  np.testing.assert_allclose(tf.image.ssim_multiscale(y, y, 1.0).numpy(), [1.0], rtol=1e-5)
