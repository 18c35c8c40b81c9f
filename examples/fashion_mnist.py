"""Keras' basic classification tutorial (Fashion-MNIST), run unchanged on tensorlet.

  python examples/fashion_mnist.py [--epochs N]

It reads the real Fashion-MNIST files when they are in Keras' cache
(~/.keras/datasets/fashion-mnist/, or $KERAS_HOME/datasets/fashion-mnist/, as
`tf.keras.datasets.fashion_mnist.load_data()` leaves them). Without them (and
since this machine may have no network) it writes generated stand-ins in the
same format to a temporary cache and says so: 28x28 images whose class decides
which band of pixels is bright, so the model has something to learn.
After training, the model is saved as `.keras` and loaded back, as a program
keeping its model would.
"""
import argparse
import gzip
import os
import shutil
import sys
import tempfile

import numpy as np

import tensorlet as tf

FILES = ("train-labels-idx1-ubyte.gz", "train-images-idx3-ubyte.gz",
         "t10k-labels-idx1-ubyte.gz", "t10k-images-idx3-ubyte.gz")


def real_files_cached():
  from tensorlet.keras.utils.data_utils import cache_path
  folder = os.path.join("datasets", "fashion-mnist")
  return all(os.path.exists(cache_path(name, folder)) for name in FILES)


def write_stand_ins(cache_dir):
  _write(cache_dir)


def _write(cache_dir, n_train=6000, n_test=1000, seed=0):
  """Fashion-MNIST-format files of generated images in `cache_dir/datasets/...`."""
  rng = np.random.default_rng(seed)
  folder = os.path.join(cache_dir, "datasets", "fashion-mnist")
  os.makedirs(folder, exist_ok=True)

  def images(labels):
    x = rng.integers(0, 90, (len(labels), 28, 28))
    for i, label in enumerate(labels):  # class k lights rows 2k+4 .. 2k+7
      x[i, 2 * label + 4:2 * label + 8, 3:25] += 150
    return x.astype(np.uint8)

  def write(name, array, magic):
    header = magic.to_bytes(4, "big") + b"".join(
        int(n).to_bytes(4, "big") for n in array.shape)
    with gzip.open(os.path.join(folder, name), "wb") as f:
      f.write(header + array.tobytes())
  for prefix, n in (("train", n_train), ("t10k", n_test)):
    labels = rng.integers(0, 10, n).astype(np.uint8)
    write(f"{prefix}-labels-idx1-ubyte.gz", labels, 2049)
    write(f"{prefix}-images-idx3-ubyte.gz", images(labels), 2051)


def main(argv=None):
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("--epochs", type=int, default=10)
  args = parser.parse_args(argv)
  tf.keras.utils.set_random_seed(0)
  scratch = tempfile.mkdtemp(prefix="fashion_mnist_")
  saved_home = os.environ.get("KERAS_HOME")
  try:
    if real_files_cached():
      print("Data: the real Fashion-MNIST files from the Keras cache.")
    else:
      write_stand_ins(scratch)
      os.environ["KERAS_HOME"] = scratch
      print("Data: GENERATED STAND-INS (the real Fashion-MNIST files are not in the Keras "
            "cache); accuracies say nothing about the real data set.")
    return tutorial(args.epochs, scratch)
  finally:
    shutil.rmtree(scratch, ignore_errors=True)
    if saved_home is None:
      os.environ.pop("KERAS_HOME", None)
    else:
      os.environ["KERAS_HOME"] = saved_home


def tutorial(epochs, scratch):
  # ---- the tutorial, as Keras writes it ----
  fashion_mnist = tf.keras.datasets.fashion_mnist
  (train_images, train_labels), (test_images, test_labels) = fashion_mnist.load_data()
  class_names = ["T-shirt/top", "Trouser", "Pullover", "Dress", "Coat",
                 "Sandal", "Shirt", "Sneaker", "Bag", "Ankle boot"]
  print("train_images.shape:", train_images.shape, " test_images.shape:", test_images.shape)

  train_images = train_images / 255.0
  test_images = test_images / 255.0

  model = tf.keras.Sequential([
      tf.keras.layers.Flatten(input_shape=(28, 28)),
      tf.keras.layers.Dense(128, activation="relu"),
      tf.keras.layers.Dense(10)
  ])
  model.compile(optimizer="adam",
                loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                metrics=["accuracy"])
  model.fit(train_images, train_labels, epochs=epochs)

  test_loss, test_acc = model.evaluate(test_images, test_labels, verbose=2)
  print("\nTest accuracy:", test_acc)

  # NOTE: the tutorial's Softmax layer, where this build has it.
  softmax = tf.keras.layers.Softmax() if hasattr(tf.keras.layers, "Softmax") else \
      tf.keras.layers.Activation("softmax")
  probability_model = tf.keras.Sequential([model, softmax])
  predictions = probability_model.predict(test_images)
  print("First test image: predicted", class_names[int(np.argmax(predictions[0]))],
        "- label", class_names[int(test_labels[0])])

  # ---- keeping the model ----
  path = os.path.join(scratch, "classifier.keras")
  model.save(path)
  restored = tf.keras.models.load_model(path)
  same = np.allclose(restored.predict(test_images, verbose=0),
                     model.predict(test_images, verbose=0), rtol=1e-5, atol=1e-6)
  print(f"Saved as {os.path.basename(path)} and loaded back: same predictions: {same}")
  return 0 if same else 1


if __name__ == "__main__":
  sys.exit(main())
