"""Seed 004 (eager execution guide): the MNIST input pipeline
`from_tensor_slices((images, labels)).shuffle(1000).batch(32)` and its loops
(`dataset.take(1)`, `enumerate(dataset.take(400))` printing a dot every 10
batches), on synthetic MNIST-shaped data (tests never download) whose label
can be read back from the image, so shuffled batches are checked pairwise."""
import numpy as np

import tensorlet as tf


def _mnist_like(n=12800):
  rng = np.random.RandomState(0)
  labels = rng.randint(0, 10, n).astype(np.uint8)
  images = np.broadcast_to((labels * 25)[:, None, None], (n, 28, 28)).astype(np.uint8)
  return images, labels


def _dataset():
  mnist_images, mnist_labels = _mnist_like()
  dataset = tf.data.Dataset.from_tensor_slices(
    (tf.cast(mnist_images[...,tf.newaxis]/255, tf.float32),
     tf.cast(mnist_labels,tf.int64)))
  dataset = dataset.shuffle(1000).batch(32)
  return dataset


def _label_of(images):
  return np.round(images.numpy()[:, 0, 0, 0] * 255 / 25).astype(np.int64)


def test_pipeline_spec_and_cardinality():
  dataset = _dataset()
  assert repr(dataset) == (
      "<_BatchDataset element_spec=(TensorSpec(shape=(None, 28, 28, 1), dtype=tf.float32, "
      "name=None), TensorSpec(shape=(None,), dtype=tf.int64, name=None))>")
  assert int(dataset.cardinality()) == 400


def test_take_one_batch(capsys):
  dataset = _dataset()
  for images,labels in dataset.take(1):
    print(images.shape, images.dtype, labels.shape, labels.dtype)
  assert capsys.readouterr().out == "(32, 28, 28, 1) <dtype: 'float32'> (32,) <dtype: 'int64'>\n"
  np.testing.assert_array_equal(_label_of(images), labels.numpy())


def test_training_loop_prints_a_dot_every_ten_batches(capsys):
  dataset = _dataset()
  seen = []
  for (batch, (images, labels)) in enumerate(dataset.take(400)):
    if batch % 10 == 0:
      print('.', end='')
    np.testing.assert_array_equal(_label_of(images), labels.numpy())
    seen.append(labels.numpy())
  assert capsys.readouterr().out == "." * 40
  assert batch == 399
  counts = np.bincount(np.concatenate(seen), minlength=10)
  np.testing.assert_array_equal(counts, np.bincount(_mnist_like()[1], minlength=10))
  first_labels = np.concatenate(seen)[:1000]
  assert not np.array_equal(first_labels, _mnist_like()[1][:1000])  # shuffled
