"""Image codecs against Pillow: PNG/JPEG/GIF/BMP decoding and encoding, channel
conversion, 16-bit PNG, bad bytes, graphs, and the error without Pillow."""
import io
import sys

import numpy as np
import pytest

import tensorlet as tf

PIL = pytest.importorskip("PIL.Image")
IAE = tf.errors.InvalidArgumentError
rng = np.random.RandomState(0)
RGB = rng.randint(0, 256, (6, 7, 3)).astype(np.uint8)


def _pil_bytes(a, fmt, **kw):
  buf = io.BytesIO()
  PIL.fromarray(a).save(buf, format=fmt, **kw)
  return buf.getvalue()


def _pil_decode(data, mode=None):
  img = PIL.open(io.BytesIO(data))
  return np.asarray(img.convert(mode) if mode else img)


def test_png_round_trip_all_channel_counts():
  for c in (1, 2, 3, 4):
    a = rng.randint(0, 256, (5, 4, c)).astype(np.uint8)
    data = tf.image.encode_png(a).numpy()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    np.testing.assert_array_equal(tf.image.decode_png(data).numpy(), a)
    np.testing.assert_array_equal(_pil_decode(data).reshape(a.shape), a)


def test_decode_png_written_by_pillow_with_channel_conversion():
  data = _pil_bytes(RGB, "PNG")
  np.testing.assert_array_equal(tf.image.decode_png(data).numpy(), RGB)
  np.testing.assert_array_equal(tf.image.decode_png(data, channels=1).numpy()[..., 0],
                                _pil_decode(data, "L"))
  rgba = tf.image.decode_png(data, channels=4).numpy()
  np.testing.assert_array_equal(rgba[..., :3], RGB)
  assert (rgba[..., 3] == 255).all()


def test_png_16_bit():
  a = rng.randint(0, 65536, (3, 4, 1)).astype(np.uint16)
  data = tf.image.encode_png(a).numpy()
  got = tf.image.decode_png(data, dtype=tf.uint16)
  assert got.dtype == tf.uint16
  np.testing.assert_array_equal(got.numpy(), a)
  np.testing.assert_array_equal(tf.image.decode_png(data).numpy(), (a >> 8).astype(np.uint8))


def test_jpeg_matches_pillow():
  data = tf.image.encode_jpeg(RGB, quality=90).numpy()
  assert data[:3] == b"\xff\xd8\xff"
  assert bool(tf.image.is_jpeg(data))
  np.testing.assert_array_equal(tf.image.decode_jpeg(data).numpy(), _pil_decode(data, "RGB"))
  pil_data = _pil_bytes(RGB, "JPEG", quality=80)
  np.testing.assert_array_equal(tf.image.decode_jpeg(pil_data).numpy(),
                                _pil_decode(pil_data, "RGB"))
  gray = tf.image.decode_jpeg(pil_data, channels=1).numpy()
  assert gray.shape == (6, 7, 1)
  smooth = np.broadcast_to(np.linspace(0, 255, 16)[:, None, None], (16, 16, 3)).astype(np.uint8)
  back = tf.image.decode_jpeg(tf.image.encode_jpeg(smooth, quality=95)).numpy()
  assert np.abs(back.astype(int) - smooth).max() <= 8  # lossy, but close to the source


def test_decode_image_formats_and_dtype():
  bmp = _pil_bytes(RGB, "BMP")
  np.testing.assert_array_equal(tf.image.decode_image(bmp).numpy(), RGB)
  np.testing.assert_array_equal(tf.image.decode_bmp(bmp).numpy(), RGB)
  f = tf.image.decode_image(_pil_bytes(RGB, "PNG"), dtype=tf.float32)
  assert f.dtype == tf.float32
  np.testing.assert_allclose(f.numpy(), RGB / 255.0, rtol=1e-6)
  frames = [PIL.fromarray(RGB), PIL.fromarray(RGB[::-1].copy())]
  buf = io.BytesIO()
  frames[0].save(buf, format="GIF", save_all=True, append_images=frames[1:])
  gif = buf.getvalue()
  anim = tf.image.decode_image(gif)
  assert anim.shape == [2, 6, 7, 3]
  assert tf.image.decode_gif(gif).shape == [2, 6, 7, 3]
  assert tf.image.decode_image(gif, expand_animations=False).shape == [6, 7, 3]


def test_decode_in_a_function():
  data = tf.image.encode_png(RGB)
  f = tf.function(lambda s: tf.image.decode_png(s, channels=3))
  out = f(data)
  np.testing.assert_array_equal(out.numpy(), RGB)


def test_bad_bytes_and_bad_images():
  with pytest.raises(IAE, match="Unknown image file format"):
    tf.image.decode_png(b"notanimage")
  with pytest.raises(IAE, match="Unknown image file format"):
    tf.image.decode_image(b"notanimage")
  with pytest.raises(IAE, match="Invalid PNG data"):
    tf.image.decode_png(tf.image.encode_png(RGB).numpy()[:40])
  with pytest.raises(IAE, match="allowed values"):
    tf.image.encode_png(tf.zeros([2, 2, 3]))
  with pytest.raises(IAE, match="3-dimensional"):
    tf.image.encode_png(tf.zeros([2, 2], tf.uint8))
  with pytest.raises(IAE, match="quality"):
    tf.image.encode_jpeg(RGB, quality=101)
  with pytest.raises(TypeError):
    tf.image.decode_png(tf.constant([1, 2]))


def test_without_pillow_the_error_names_the_extra(monkeypatch):
  monkeypatch.setitem(sys.modules, "PIL", None)
  with pytest.raises(ImportError, match=r"tensorlet\[image\]"):
    tf.image.encode_png(RGB)
  with pytest.raises(ImportError, match=r"pip install 'tensorlet\[image\]'"):
    tf.image.decode_png(b"\x89PNG\r\n\x1a\n" + b"0" * 20)


def test_jpeg_quality_and_shape_helpers():
  q50 = tf.image.adjust_jpeg_quality(RGB, 50).numpy()
  np.testing.assert_array_equal(q50, _pil_decode(_pil_bytes(RGB, "JPEG", quality=50), "RGB"))
  f = tf.image.adjust_jpeg_quality(RGB / 255.0, 95)
  assert f.dtype == tf.float64 and f.shape == [6, 7, 3]
  data = tf.image.encode_jpeg(RGB)
  np.testing.assert_array_equal(tf.image.extract_jpeg_shape(data), [6, 7, 3])
  np.testing.assert_array_equal(tf.image.decode_and_crop_jpeg(data, [1, 2, 3, 4]).numpy(),
                                tf.image.decode_jpeg(data).numpy()[1:4, 2:6])
  assert tf.image.stateless_random_jpeg_quality(RGB, 20, 80, [1, 2]).shape == [6, 7, 3]
  with pytest.raises(ValueError, match="must be less than"):
    tf.image.random_jpeg_quality(RGB, 80, 20)
  with pytest.raises(IAE, match="Invalid JPEG"):
    tf.image.extract_jpeg_shape(tf.image.encode_png(RGB))


@pytest.mark.parametrize("name", ["sample_distorted_bounding_box", "extract_glimpse",
                                  "combined_non_max_suppression",
                                  "generate_bounding_box_proposals"])
def test_unimplemented_names_say_so(name):
  with pytest.raises(NotImplementedError, match=f"tf.image.{name} is not implemented"):
    getattr(tf.image, name)(tf.zeros([1, 4, 4, 1]))
