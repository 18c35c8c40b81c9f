"""A two-input functional Keras model: token ids through an LSTM, a small image through a
convolution, joined by Concatenate. It trains on synthetic data whose label needs both
inputs, saves its weights, rebuilds the model from code, reloads the weights and checks
that the predictions match.

    python examples/two_input_model.py [--epochs N] [--out DIR]
"""
import argparse
import os
import tempfile

import numpy as np

import tensorlet as tf

L = tf.keras.layers
VOCAB, STEPS, SIDE = 50, 12, 8

def make_data(n, seed=0):
  """Label 1 when the sentence holds token 7 and the image's top half is the brighter."""
  rng = np.random.default_rng(seed)
  ids = rng.integers(1, VOCAB, size=(n, STEPS)).astype(np.int32)
  has7 = rng.random(n) < 0.5
  ids[has7, rng.integers(0, STEPS, size=has7.sum())] = 7
  ids[~has7] = np.where(ids[~has7] == 7, 8, ids[~has7])
  images = rng.random((n, SIDE, SIDE, 1)).astype(np.float32)
  top = rng.random(n) < 0.5
  images[top, :SIDE // 2] += 0.5
  images[~top, SIDE // 2:] += 0.5
  y = (has7 & top).astype(np.float32)[:, None]
  return (ids, images), y


def build_model():
  text = tf.keras.Input((STEPS,), dtype="int32", name="text")
  image = tf.keras.Input((SIDE, SIDE, 1), name="image")
  t = L.Embedding(VOCAB, 16)(text)
  t = L.LSTM(16)(t)
  i = L.Conv2D(8, 3, activation="relu")(image)
  i = L.MaxPooling2D()(i)
  i = L.Dense(16, activation="relu")(L.Flatten()(i))
  joined = L.Concatenate()([t, i])
  out = L.Dense(1, activation="sigmoid")(L.Dense(16, activation="relu")(joined))
  return tf.keras.Model([text, image], out, name="two_input")


def main(argv=None):
  p = argparse.ArgumentParser(description=__doc__)
  p.add_argument("--epochs", type=int, default=8)
  p.add_argument("--out", default=None, help="directory for the saved files (default: temp)")
  args = p.parse_args(argv)
  tf.keras.utils.set_random_seed(0)
  (ids, images), y = make_data(512)
  (tids, timages), ty = make_data(128, seed=1)

  model = build_model()
  model.compile(optimizer=tf.keras.optimizers.Adam(0.01), loss="binary_crossentropy",
                metrics=["accuracy"])
  hist = model.fit([ids, images], y, epochs=args.epochs, batch_size=32, verbose=0)
  loss, acc = model.evaluate([tids, timages], ty, verbose=0)
  print(f"trained {args.epochs} epochs: loss {hist.history['loss'][0]:.3f} -> "
        f"{hist.history['loss'][-1]:.3f}; held-out accuracy {acc:.3f}")

  out = args.out or tempfile.mkdtemp(prefix="two_input_")
  weights = os.path.join(out, "weights", "ckpt")
  model.save_weights(weights)
  before = model.predict([tids, timages], verbose=0)

  fresh = build_model()
  fresh.load_weights(weights)
  after = fresh.predict([tids, timages], verbose=0)
  same = np.allclose(before, after, rtol=1e-6, atol=1e-7)
  print(f"weights reloaded into a new model: predictions match = {same} "
        f"(max difference {np.abs(before - after).max():.2e})")
  if not same:
    raise SystemExit("reloaded predictions differ")
  return acc, same


if __name__ == "__main__":
  main()
