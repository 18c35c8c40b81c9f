"""Bad constructor arguments of Keras layers raise TypeError/ValueError naming the
argument, not AttributeError/IndexError/RecursionError (found by
tests/fuzz/fuzz_api.py)."""
import pytest

import tensorlet as tf

L = tf.keras.layers


def _selfref():
  a = [1]
  a.append(a)
  return a


@pytest.mark.parametrize("make", [
    lambda: L.MaxPool2D(data_format=3), lambda: L.Flatten(data_format=[1]),
    lambda: L.UpSampling2D(data_format=1.5), lambda: L.Cropping3D(data_format=object()),
])
def test_data_format_that_is_not_a_string(make):
  with pytest.raises(ValueError, match="data_format"):
    make()


def test_interpolation_that_is_not_a_string():
  with pytest.raises(NotImplementedError, match="interpolation"):
    L.Resizing(2, 2, interpolation=3)


def test_a_self_referencing_list_attribute_does_not_recurse():
  layer = L.LayerNormalization(center=_selfref())   # stored; tracking walks it once
  assert layer.center[1] is layer.center


@pytest.mark.parametrize("make, arg", [
    (lambda: L.Permute(1.5), "dims"), (lambda: L.Reshape(object()), "target_shape"),
    (lambda: L.InputLayer(input_shape=1.5), "input_shape"),
    (lambda: L.InputLayer(batch_input_shape=1.5), "batch_input_shape"),
    (lambda: L.InputLayer(type_spec=[1]), "type_spec"),
    (lambda: L.Normalization(axis=1.5), "axis"), (lambda: L.StackedRNNCells(3), "cells"),
    (lambda: L.Dense([2 ** 40]), "units"),
])
def test_shape_like_arguments_of_the_wrong_type(make, arg):
  with pytest.raises(TypeError, match=arg):
    make()


@pytest.mark.parametrize("make", [
    lambda: L.RandomRotation([[0]]), lambda: L.RandomRotation([]),
    lambda: L.RandomContrast([0.1]), lambda: L.RandomWidth([0.1, 0.2, 0.3]),
])
def test_factor_pairs_of_the_wrong_length(make):
  with pytest.raises(ValueError, match="factor"):
    make()


def test_good_shape_arguments_still_work():
  assert L.Reshape((3, -1)).target_shape == (3, -1)
  assert L.Reshape(tf.TensorShape([2, 3])).target_shape == (2, 3)
  assert L.Permute([2, 1]).dims == (2, 1)
  assert L.InputLayer(input_shape=(None, 3)).output.shape.as_list() == [None, None, 3]
  assert L.Dense(2.0).units == 2
