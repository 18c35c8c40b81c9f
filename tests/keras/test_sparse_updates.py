"""Keras 2 optimizers (current and legacy), LossScaleOptimizer and Embedding models
under fit, given IndexedSlices gradients: values against real tf_keras
(fixtures/sparse_updates.npz, written by fixtures/make_sparse_updates.py)."""
import os
import sys

import numpy as np
import pytest

import tensorlet as tf

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")
sys.path.insert(0, HERE)
import sparse_update_cases  # noqa: E402

REF = np.load(os.path.join(HERE, "sparse_updates.npz"))


@pytest.fixture(scope="module")
def optimizer_results():
  return sparse_update_cases.run_optimizers(tf)


@pytest.mark.parametrize("name", [k for k in REF.files
                                  if not k.startswith(("fit_", "loss_scale"))])
def test_optimizer_matches_tf_keras(optimizer_results, name):
  np.testing.assert_allclose(optimizer_results[name], REF[name], rtol=1e-5, atol=1e-5)


def test_loss_scale_optimizer_matches_tf_keras():
  got = sparse_update_cases.run_loss_scale(tf)["loss_scale"]
  np.testing.assert_allclose(got, REF["loss_scale"], rtol=1e-5, atol=1e-6)


def test_embedding_fit_matches_tf_keras():
  got = sparse_update_cases.run_embedding_fit(tf)
  for k, v in got.items():
    np.testing.assert_allclose(v, REF[k], rtol=1e-4, atol=1e-5, err_msg=k)


def test_embedding_gradient_is_indexed_slices():
  layer = tf.keras.layers.Embedding(10, 4)
  x = tf.constant([[1, 2, 2]])
  with tf.GradientTape() as t:
    y = tf.reduce_sum(layer(x))
  (g,) = t.gradient(y, layer.trainable_weights)
  assert isinstance(g, tf.IndexedSlices)
  np.testing.assert_array_equal(g.indices.numpy(), [1, 2, 2])
  np.testing.assert_array_equal(g.dense_shape.numpy(), [10, 4])


def test_sgd_changes_only_the_gathered_rows_in_a_graph():
  emb = tf.Variable(np.ones((5, 2), np.float32))
  opt = tf.keras.optimizers.legacy.SGD(0.5, momentum=0.5)

  @tf.function
  def step(ids):
    with tf.GradientTape() as t:
      loss = tf.reduce_sum(tf.gather(emb, ids))
    g = t.gradient(loss, emb)
    opt.apply_gradients([(g, emb)])
    return g
  assert isinstance(step(tf.constant([0, 3, 3])), tf.IndexedSlices)
  step(tf.constant([1]))
  # legacy momentum: the velocity of rows 0 and 3 is not applied again at step 2
  np.testing.assert_allclose(emb.numpy(), [[0.5] * 2, [0.5] * 2, [1] * 2, [0] * 2, [1] * 2])
