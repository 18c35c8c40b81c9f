"""tf.image and tf.signal against real TensorFlow's outputs on the same inputs
(tf_reference.npz, written by make_tf_reference.py with TF 2.21)."""
import os

import numpy as np
import pytest

import tensorlet as tf
from make_tf_reference import inputs, outputs

_REF = np.load(os.path.join(os.path.dirname(__file__), "tf_reference.npz"))
_OURS = {}


def _ours():
  if not _OURS:
    _OURS.update(outputs(tf, inputs()))
  return _OURS


@pytest.mark.parametrize("key", sorted(_REF.files))
def test_matches_tensorflow(key):
  got, want = _ours()[key], _REF[key]
  assert got.dtype == want.dtype, (got.dtype, want.dtype)
  assert got.shape == want.shape, (got.shape, want.shape)
  if want.dtype.kind in "fc":
    # float32 kernels summing in a different order: a few ulps, more after log()
    tol = 2e-4 if key.startswith(("mfcc", "inverse_stft", "stft", "ssim")) else 2e-5
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol)
  else:
    assert np.abs(got.astype(np.int64) - want.astype(np.int64)).max() <= 1, key
