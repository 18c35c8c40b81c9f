"""Op-table rows of file, image-codec, summary and parsing ops: tf.io.write_file /
read_file / matching_files in a temporary folder, PNG round trips (exact) and JPEG
round trips (within JPEG's error on a smooth image), tf.summary writes, and
tf.io.parse_single_sequence_example of a SequenceExample built with tf.train."""
import atexit
import os
import shutil
import tempfile

import numpy as np
from op_table import F32_64, args, case, fixed, s_

import tensorlet as tf

_DIR = tempfile.mkdtemp(prefix="op_rows_files_")
atexit.register(shutil.rmtree, _DIR, True)


def _write_read(x):
  path = os.path.join(_DIR, "t.txt")
  text = tf.strings.reduce_join(x, separator="|")
  tf.io.write_file(path, text)
  return tf.reshape(tf.io.read_file(path), [1])


case("io.write_file+read_file", _write_read, lambda x: np.array([b"|".join(x)], dtype=object),
     args([4]), [s_], grad=False)


def _match(x):
  for name in ("b.dat", "a.dat", "c.txt"):
    tf.io.write_file(os.path.join(_DIR, "m", name), x)
  return tf.io.matching_files(os.path.join(_DIR, "m", "*.dat"))


case("io.matching_files", _match,
     lambda x: np.array([os.path.join(_DIR, "m", n).encode() for n in ("a.dat", "b.dat")],
                        dtype=object), fixed(np.array(b"data", dtype=object)), [s_],
     grad=False)


def _png(x):
  return tf.io.decode_image(tf.io.encode_png(x), channels=3)


case("io.encode_png+decode_image", _png, lambda x: x, args([4, 5, 3], hi=250),
     [np.uint8], grad=False)


def _smooth(rng, dt):
  i, j = np.meshgrid(np.arange(16), np.arange(16), indexing="ij")
  return [np.stack([i * 8, j * 8, (i + j) * 4], -1).astype(dt)]


case("io.encode_jpeg+decode_image", lambda x: tf.cast(tf.io.decode_image(
    tf.io.encode_jpeg(x, quality=95), channels=3), tf.float32),
    lambda x: x.astype(np.float32), _smooth, [np.uint8], grad=False, atol=12)

_WRITER = tf.summary.create_file_writer(os.path.join(_DIR, "logs"))


def _summary(x):
  with _WRITER.as_default():
    wrote = tf.summary.scalar("total", tf.reduce_sum(x), step=1)
  _WRITER.flush()
  return tf.stack([wrote, tf.reduce_all(tf.math.is_finite(x))])


case("summary.scalar+flush", _summary, lambda x: np.array([True, True]), args([3]),
     F32_64, grad=False)


def _sequence_example():
  f = tf.train
  ex = f.SequenceExample(
      context=f.Features(feature={"id": f.Feature(int64_list=f.Int64List(value=[7]))}),
      feature_lists=f.FeatureLists(feature_list={"v": f.FeatureList(feature=[
          f.Feature(float_list=f.FloatList(value=[1.0, 2.0])),
          f.Feature(float_list=f.FloatList(value=[3.0, 4.0]))])}))
  return np.array(ex.SerializeToString(), dtype=object)


def _parse(x):
  ctx, seq = tf.io.parse_single_sequence_example(
      x[0], {"id": tf.io.FixedLenFeature([], tf.int64)},
      {"v": tf.io.FixedLenSequenceFeature([2], tf.float32)})
  return [tf.reshape(ctx["id"], [1]), seq["v"]]


case("io.parse_single_sequence_example", _parse,
     lambda x: [np.array([7]), np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)],
     lambda rng, dt: [np.array([_sequence_example()[()]], dtype=object)], [s_], grad=False)
