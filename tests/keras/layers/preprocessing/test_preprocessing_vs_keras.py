"""The categorical and text preprocessing layers against real tf_keras 2.21 outputs
(preprocessing_tf.json, written by make_preprocessing_fixture.py from
preprocessing_cases.py), eagerly and inside tf.function."""
import json
import os

import numpy as np
import pytest

import tensorlet as tf
from tests.keras.layers.preprocessing.preprocessing_cases import CASES

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)),
                       "preprocessing_tf.json")) as f:
  KERAS = json.load(f)


def _input(x):
  if isinstance(x, dict) and "tuple" in x:
    return tuple(tf.constant(v) for v in x["tuple"])
  if isinstance(x, dict):
    return tf.ragged.constant(x["ragged"])
  return tf.constant(x)


def _plain(v):
  return v.decode() if isinstance(v, bytes) else v


def _check(got, want):
  assert got.dtype.name == want["dtype"]
  if "sparse" in want:
    assert isinstance(got, tf.SparseTensor)
    idx, vals, shape = want["sparse"]
    np.testing.assert_array_equal(got.indices.numpy().reshape(-1, len(shape)),
                                  np.array(idx).reshape(-1, len(shape)))
    np.testing.assert_allclose(got.values.numpy(), vals, rtol=1e-6)
    assert got.dense_shape.numpy().tolist() == shape
  elif "ragged" in want:
    assert isinstance(got, tf.RaggedTensor)
    assert tf.nest.map_structure(_plain, got.to_list()) == want["ragged"]
  else:
    value = got.numpy()
    if value.dtype == object:
      assert np.vectorize(_plain, otypes=[object])(value).tolist() == want["value"]
    else:
      np.testing.assert_allclose(value, np.array(want["value"]), rtol=1e-6)
      assert value.shape == np.shape(want["value"])


def _layer(cls, kwargs, adapt):
  kw = dict(kwargs)
  if isinstance(kw.get("ngrams"), list):
    kw["ngrams"] = tuple(kw["ngrams"])
  layer = getattr(tf.keras.layers, cls)(**kw)
  if adapt is not None:
    layer.adapt(tf.constant(adapt))
  return layer


@pytest.mark.parametrize("name,cls,kwargs,adapt,inputs", CASES, ids=[c[0] for c in CASES])
def test_matches_keras(name, cls, kwargs, adapt, inputs):
  want = KERAS[name]
  layer = _layer(cls, kwargs, adapt)
  if "vocabulary" in want:
    assert layer.get_vocabulary() == want["vocabulary"]
  if "idf_weights" in want:
    np.testing.assert_allclose(layer.idf_weights.numpy(), want["idf_weights"], rtol=1e-6)
  traced = tf.function(lambda x: layer(x))
  for x, out in zip(inputs, want["outputs"]):
    _check(layer(_input(x)), out)
    _check(traced(_input(x)), out)
