"""Merge layers (Add ... Dot) and their functional forms: values vs NumPy, broadcasting,
masks, gradients, configs and Keras 2's errors."""
import numpy as np
import pytest

import tensorlet as tf
from tests.keras.layers.layer_helpers import check_config, check_layer_grads, check_values, rand

L = tf.keras.layers

_ELEMWISE = [
    (L.Add, lambda xs: xs[0] + xs[1] + xs[2]),
    (L.Multiply, lambda xs: xs[0] * xs[1] * xs[2]),
    (L.Average, lambda xs: (xs[0] + xs[1] + xs[2]) / 3),
    (L.Maximum, lambda xs: np.maximum(np.maximum(xs[0], xs[1]), xs[2])),
    (L.Minimum, lambda xs: np.minimum(np.minimum(xs[0], xs[1]), xs[2])),
]


@pytest.mark.parametrize("cls,ref", _ELEMWISE, ids=[c.__name__ for c, _ in _ELEMWISE])
def test_elementwise_merges_match_numpy_with_gradients_and_config(cls, ref):
  xs = [rand(2, 3, seed=i).astype(np.float32) for i in range(3)]
  check_values(cls(), xs, ref(xs))
  check_layer_grads(cls(dtype="float64"), [rand(2, 3, seed=i) for i in range(3)])
  layer = check_config(cls(name="m"))
  assert layer.get_config() == {"name": "m", "trainable": True, "dtype": "float32"}


def test_subtract_takes_exactly_two_inputs():
  a, b = rand(2, 3).astype(np.float32), rand(2, 3, seed=1).astype(np.float32)
  check_values(L.Subtract(), [a, b], a - b)
  check_layer_grads(L.Subtract(dtype="float64"), [rand(2, 3), rand(2, 3, seed=1)])
  with pytest.raises(ValueError, match="exactly 2 inputs"):
    L.Subtract()([a, a, a])


def test_merge_broadcasts_lower_rank_inputs_after_the_batch_axis():
  a = rand(2, 3).astype(np.float32)
  b = rand(2, 1, 3, seed=1).astype(np.float32)
  y = L.Add()([a, b])
  assert y.shape == (2, 1, 3)
  np.testing.assert_allclose(y.numpy(), a[:, None, :] + b, rtol=1e-6)
  y = L.Multiply()([rand(2, 1, 3).astype(np.float32), rand(2, 2, 3).astype(np.float32)])
  assert y.shape == (2, 2, 3)


def test_merge_errors_match_keras2():
  a, b = tf.keras.Input((3,)), tf.keras.Input((4,))
  with pytest.raises(ValueError, match="should be called on a list of inputs"):
    L.Add()(a)
  with pytest.raises(ValueError, match="incompatible shapes"):
    L.Add()([a, b])
  with pytest.raises(ValueError, match="different batch sizes"):
    L.Add()([np.ones((2, 3), "f"), np.ones((3, 3), "f")])
  with pytest.raises(ValueError, match="matching shapes except for the concatenation axis"):
    L.Concatenate()([a, tf.keras.Input((3, 5))])
  with pytest.raises(ValueError, match="Incompatible input shapes"):
    L.Dot(axes=1)([a, b])
  with pytest.raises(ValueError, match="should contain two elements"):
    L.Dot(axes=(1, 2, 3))
  with pytest.raises(TypeError, match="list or an int"):
    L.Dot(axes="x")


def test_concatenate_axis_values_shape_and_config():
  a, b = rand(2, 3, 4).astype(np.float32), rand(2, 5, 4, seed=1).astype(np.float32)
  check_values(L.Concatenate(axis=1), [a, b], np.concatenate([a, b], 1))
  assert L.Concatenate(axis=1).compute_output_shape([(None, 3, 4), (None, 5, 4)]) == \
      tf.TensorShape([None, 8, 4])
  layer = check_config(L.Concatenate(axis=1, name="cat"))
  assert layer.get_config()["axis"] == 1
  check_layer_grads(L.Concatenate(dtype="float64"), [rand(2, 3), rand(2, 2, seed=1)])
  x = tf.keras.Input((3, 5))
  assert L.Concatenate(axis=1)([x, x]).shape.as_list() == [None, 6, 5]


@pytest.mark.parametrize("axes,s1,s2", [(1, (2, 3), (2, 3)), ((2, 1), (2, 3, 4), (2, 4, 5)),
                                        ((1, 2), (2, 4, 5), (2, 3, 4)), (-1, (2, 3, 4), (2, 5, 4)),
                                        (1, (2, 3), (2, 3, 5))])
def test_dot_matches_numpy_batch_dot(axes, s1, s2):
  x1, x2 = rand(*s1).astype(np.float32), rand(*s2, seed=1).astype(np.float32)
  a1, a2 = (axes, axes) if isinstance(axes, int) else axes
  a1, a2 = a1 % len(s1), a2 % len(s2)
  want = np.stack([np.tensordot(x1[i], x2[i], [[a1 - 1], [a2 - 1]]) for i in range(2)])
  if want.ndim == 1:
    want = want[:, None]
  check_values(L.Dot(axes=axes), [x1, x2], want, rtol=1e-5, atol=1e-5)
  check_layer_grads(L.Dot(axes=axes, dtype="float64"), [rand(*s1), rand(*s2, seed=1)])
  assert tuple(L.Dot(axes=axes).compute_output_shape([(None,) + s1[1:], (None,) + s2[1:]])) \
      == (None,) + want.shape[1:]


def test_dot_normalize_is_cosine_similarity():
  x = np.arange(6, dtype="f").reshape(2, 3)
  y = np.arange(6, 12, dtype="f").reshape(2, 3)
  want = np.sum(x * y, 1) / np.linalg.norm(x, axis=1) / np.linalg.norm(y, axis=1)
  check_values(L.Dot(axes=1, normalize=True), [x, y], want[:, None])
  assert check_config(L.Dot(axes=(1, 2), normalize=True)).get_config()["axes"] == (1, 2)


def test_functional_forms_make_layers():
  a, b = tf.keras.Input((3,)), tf.keras.Input((3,))
  outs = [L.add([a, b]), L.subtract([a, b]), L.multiply([a, b]), L.average([a, b]),
          L.maximum([a, b]), L.minimum([a, b]), L.concatenate([a, b]), L.dot([a, b], axes=1)]
  kinds = [type(o._keras_history[0]).__name__ for o in outs]
  assert kinds == ["Add", "Subtract", "Multiply", "Average", "Maximum", "Minimum",
                   "Concatenate", "Dot"]
  model = tf.keras.Model([a, b], outs)
  x, y = rand(2, 3).astype("f"), rand(2, 3, seed=1).astype("f")
  got = model([x, y])
  for g, want in zip(got, [x + y, x - y, x * y, (x + y) / 2, np.maximum(x, y),
                           np.minimum(x, y), np.concatenate([x, y], 1),
                           np.sum(x * y, 1, keepdims=True)]):
    np.testing.assert_allclose(g.numpy(), want, rtol=1e-5, atol=1e-6)


def test_merge_masks_are_combined():
  ids = np.array([[1, 2, 0, 0]])
  emb = L.Embedding(5, 2, mask_zero=True)
  e = emb(ids)
  m = L.Add()([e, e])._keras_mask
  np.testing.assert_array_equal(m.numpy(), [[True, True, False, False]])
  c = L.Concatenate()([e, e])._keras_mask
  np.testing.assert_array_equal(c.numpy(), [[True, True, False, False]])
  i = tf.keras.Input((4,))
  out = L.Concatenate()([emb(i), emb(i)])
  assert out._keras_mask is not None and out._keras_mask.dtype == tf.bool
