"""Bad arguments to tf.signal functions raise TF's exception types (found by
tests/fuzz/fuzz_api.py)."""
import pytest

import tensorlet as tf


def test_inverse_mdct_needs_frames():
  with pytest.raises(ValueError, match="rank at least 2"):
    tf.signal.inverse_mdct(tf.zeros([0]))
