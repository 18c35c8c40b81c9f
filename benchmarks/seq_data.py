"""Shapes and seeded inputs of the sequence training steps (NumPy only, so real
TensorFlow's reference script can share them)."""
import numpy as np

VOCAB, EMB, UNITS, BATCH, STEPS = 10000, 64, 64, 32, 100
D_MODEL, HEADS, FF, T_SEQ = 64, 4, 256, 64


def lstm_data(seed=0):
  rng = np.random.RandomState(seed)
  ids = rng.randint(1, VOCAB, size=(BATCH, STEPS)).astype(np.int32)
  y = rng.randint(0, 2, size=(BATCH, 1)).astype(np.float32)
  return ids, y


def transformer_data(seed=0):
  rng = np.random.RandomState(seed)
  x = rng.standard_normal((BATCH, T_SEQ, D_MODEL)).astype(np.float32)
  y = rng.standard_normal((BATCH, T_SEQ, D_MODEL)).astype(np.float32)
  return x, y
