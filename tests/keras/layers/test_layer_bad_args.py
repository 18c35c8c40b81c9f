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


@pytest.mark.parametrize("make, arg", [
    (lambda: L.IntegerLookup(oov_token=[1]), "oov_token"),
    (lambda: L.IntegerLookup(mask_token=1 + 2j), "mask_token"),
    (lambda: L.UpSampling1D(None), "size"),
    (lambda: L.Embedding(2, 2, input_length=1.5), "input_length"),
    (lambda: L.StringLookup(vocabulary=2 ** 70), "vocabulary"),
    (lambda: L.StringLookup(vocabulary=[2 ** 40]), "vocabulary"),   # not bytes(2 ** 40)
    (lambda: L.IntegerLookup(vocabulary=[2 ** 70]), "vocabulary"),
])
def test_lookup_and_size_arguments(make, arg):
  with pytest.raises(TypeError, match=arg):
    make()


def test_huge_ngrams():
  with pytest.raises(ValueError, match="ngrams"):
    L.TextVectorization(ngrams=2 ** 70)


@pytest.mark.parametrize("layer, inputs", [
    (lambda: L.Embedding(2, 2), "abc"), (lambda: L.Reshape((3,)), None),
    (lambda: L.LayerNormalization(), [[0.0]]), (lambda: L.Add(), [[1.0, 2.0], [3.0]]),
    (lambda: L.Embedding(2, 2), [2 ** 40]), (lambda: L.Masking(), []),
])
def test_calls_on_inputs_that_are_not_tensors(layer, inputs):
  with pytest.raises(TypeError):
    layer()(inputs)


def test_image_layers_need_an_image_rank():
  with pytest.raises(ValueError, match="rank 3"):
    L.CenterCrop(2, 2)(1.5)
