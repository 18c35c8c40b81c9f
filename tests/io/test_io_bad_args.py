"""Bad arguments to tf.io parsing functions raise TypeError naming the argument
(found by tests/fuzz/fuzz_api.py)."""
import pytest

import tensorlet as tf


def test_decode_csv_lists():
  with pytest.raises(TypeError, match="record_defaults"):
    tf.io.decode_csv(["1"], record_defaults=True)
  with pytest.raises(TypeError, match="select_cols"):
    tf.io.decode_csv(["1"], record_defaults=[[0]], select_cols=object())
  assert tf.io.decode_csv(["1,2"], record_defaults=[[0]], select_cols=[1])[0].numpy() == [2]


@pytest.mark.parametrize("call, arg", [
    (lambda: tf.io.parse_single_example(tf.constant(b""), features=1.5), "features"),
    (lambda: tf.io.parse_example(tf.constant([b""]), features=[2 ** 40]), "features"),
    (lambda: tf.io.parse_single_sequence_example(tf.constant(b""), context_features=3),
     "context_features"),
    (lambda: tf.io.parse_single_sequence_example(tf.constant(b""), sequence_features=True),
     "sequence_features"),
])
def test_feature_maps_must_be_dicts(call, arg):
  with pytest.raises(TypeError, match=arg):
    call()
