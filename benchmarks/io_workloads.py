"""TFRecord input pipeline benchmark: 10,000 MNIST-sized tf.train.Examples
(784 float32 pixels + an int64 label) written to a temporary TFRecord file,
read through TFRecordDataset -> batch(128) -> map(parse_example) -> prefetch,
beside a hand-written reader (struct framing + CRC32C checks + protobuf
Example parsing + NumPy stacking) doing the same work in the same process.
Reports examples per second for both.

  python benchmarks/run.py -k tfrecord
"""
import os
import struct
import tempfile

import numpy as np

import tensorlet as tf
from harness import time_pair

N, BATCH = 10000, 128


def _write(path):
  rng = np.random.RandomState(0)
  images = rng.rand(N, 784).astype(np.float32)
  labels = rng.randint(0, 10, N)
  with tf.io.TFRecordWriter(path) as w:
    for img, lab in zip(images, labels):
      ex = tf.train.Example()
      f = ex.features.feature
      f["image"].float_list.value.extend(img.tolist())
      f["label"].int64_list.value.append(int(lab))
      w.write(ex.SerializeToString())
  return images, labels


def _hand_reader(path):
  """Batches of (images [b, 784] float32, labels [b] int64), the framing and
  CRCs checked by hand and each record parsed with the protobuf Example."""
  from tensorlet.io import crc32c as crc
  from tensorlet.formats.protos import messages
  example = messages()["Example"]
  masked = crc.masked_crc32c
  with open(path, "rb") as f:
    data = f.read()
  pos, imgs, labs, out = 0, [], [], []
  while pos < len(data):
    n, = struct.unpack_from("<Q", data, pos)
    if struct.unpack_from("<I", data, pos + 8)[0] != masked(data[pos:pos + 8]):
      raise ValueError("corrupted length")
    rec = data[pos + 12:pos + 12 + n]
    if struct.unpack_from("<I", data, pos + 12 + n)[0] != masked(rec):
      raise ValueError("corrupted record")
    pos += n + 16
    feats = example.FromString(rec).features.feature
    img = feats["image"].float_list.value
    imgs.append(np.fromiter(img, np.float32, len(img)))
    labs.append(feats["label"].int64_list.value[0])
    if len(imgs) == BATCH:
      out.append((np.stack(imgs), np.array(labs, np.int64)))
      imgs, labs = [], []
  if imgs:
    out.append((np.stack(imgs), np.array(labs, np.int64)))
  return out


def tfrecord_parse_example(repeat):
  """TFRecord of 10k MNIST-sized Examples: parse_example + batch + prefetch."""
  tmp = tempfile.mkdtemp(prefix="tl-bench-")
  path = os.path.join(tmp, "mnist.tfrecord")
  try:
    images, labels = _write(path)
    features = {"image": tf.io.FixedLenFeature([784], tf.float32),
                "label": tf.io.FixedLenFeature([], tf.int64)}
    ds = tf.data.TFRecordDataset(path).batch(BATCH).map(
        lambda s: tf.io.parse_example(s, features)).prefetch(tf.data.AUTOTUNE)

    def run_tl():
      return [b for b in ds]

    def run_np():
      return _hand_reader(path)
    got, want = run_tl(), run_np()
    np.testing.assert_array_equal(np.concatenate([b["image"].numpy() for b in got]), images)
    np.testing.assert_array_equal(np.concatenate([w[1] for w in want]), labels)
    tl, npy = time_pair(run_tl, run_np, max(3, repeat // 3), min_time=0.0, warmup=1)
    print(f"  examples/s: tensorlet {N / tl:,.0f}, hand-written reader {N / npy:,.0f}")
    yield ("TFRecord 10k Examples parse+batch", tl, npy, "ms", "<= 1.5x hand reader")
  finally:
    for name in os.listdir(tmp):
      os.remove(os.path.join(tmp, name))
    os.rmdir(tmp)
