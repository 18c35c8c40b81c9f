"""tf.one_hot, tf.tuple and tf.strings.ngrams reject bad arguments with TF's
exception types naming them (found by tests/fuzz/fuzz_api.py)."""
import pytest

import tensorlet as tf


def test_one_hot_on_and_off_values_are_scalars():
  with pytest.raises(tf.errors.InvalidArgumentError, match="on_value must be a scalar"):
    tf.one_hot([0, 1], 2, on_value=[])
  with pytest.raises(tf.errors.InvalidArgumentError, match="off_value must be a scalar"):
    tf.one_hot([0, 1], 2, off_value=tf.zeros([0]))


def test_tuple_takes_a_list():
  with pytest.raises(TypeError, match="tensors"):
    tf.tuple(None)
  assert tf.tuple([tf.constant(1)])[0].numpy() == 1


def test_ngram_width_is_an_int_or_a_list():
  with pytest.raises(TypeError, match="ngram_width"):
    tf.strings.ngrams(tf.constant(["a", "b"]), 1.5)
