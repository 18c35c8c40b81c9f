"""Dataset.shuffle: a permutation per epoch, determinism with op and global
seeds, reshuffle_each_iteration, epochs under repeat, buffer locality and errors
(the properties TensorFlow 2.21 shows; its exact orders come from its own RNG)."""
import numpy as np
import pytest

import tensorlet as tf

R = tf.data.Dataset.range(8)


def _order(ds):
  return [int(x) for x in ds]


def test_each_epoch_is_a_permutation_and_seeded_epochs_differ():
  ds = R.shuffle(8, seed=3)
  e1, e2 = _order(ds), _order(ds)
  assert sorted(e1) == sorted(e2) == list(range(8))
  assert e1 != e2


def test_same_seed_same_sequence_of_epochs():
  a, b = R.shuffle(8, seed=3), R.shuffle(8, seed=3)
  assert [_order(a) for _ in range(3)] == [_order(b) for _ in range(3)]
  assert _order(R.shuffle(8, seed=4)) != _order(R.shuffle(8, seed=3))


def test_no_reshuffle_keeps_one_order():
  ds = R.shuffle(8, seed=3, reshuffle_each_iteration=False)
  assert _order(ds) == _order(ds) == _order(ds)
  unseeded = R.shuffle(8, reshuffle_each_iteration=False)
  assert _order(unseeded) == _order(unseeded)


def test_repeat_reshuffles_each_epoch_unless_told_not_to():
  ds = R.shuffle(8, seed=3)
  epochs = _order(R.shuffle(8, seed=3).repeat(2))
  assert epochs[:8] == _order(ds) and epochs[8:] == _order(ds)
  assert epochs[:8] != epochs[8:]
  fixed = _order(R.shuffle(8, seed=3, reshuffle_each_iteration=False).repeat(3))
  assert fixed[:8] == fixed[8:16] == fixed[16:]


def test_global_seed_makes_unseeded_shuffles_reproducible():
  tf.random.set_seed(5)
  g1, g2 = _order(R.shuffle(8)), _order(R.shuffle(8))
  tf.random.set_seed(5)
  h1, h2 = _order(R.shuffle(8)), _order(R.shuffle(8))
  assert (g1, g2) == (h1, h2) and g1 != g2
  tf.random.set_seed(5)
  assert _order(R.shuffle(8, seed=3)) == _order(R.shuffle(8, seed=3))


def test_interleaved_iterators_are_separate_epochs():
  ds = R.shuffle(8, seed=3)
  it1, it2 = iter(ds), iter(ds)
  a = [int(next(it1)) for _ in range(8)]
  b = [int(next(it2)) for _ in range(8)]
  assert sorted(a) == sorted(b) and a != b


def test_small_buffer_draws_only_from_the_buffer():
  assert _order(R.shuffle(1)) == list(range(8))
  tf.random.set_seed(0)
  for _ in range(5):
    order = _order(tf.data.Dataset.range(20).shuffle(2))
    assert order[0] in (0, 1) and sorted(order) == list(range(20))
    # with a 2-slot buffer, element i comes out no earlier than position i-1
    assert all(pos >= v - 1 for pos, v in enumerate(order))


def test_uniformity_over_many_epochs():
  counts = np.zeros((4, 4))
  ds = tf.data.Dataset.range(4).shuffle(4, seed=1)
  for _ in range(400):
    for pos, v in enumerate(_order(ds)):
      counts[pos, v] += 1
  assert counts.min() > 60 and counts.max() < 140  # 100 expected per cell


def test_streaming_buffer_smaller_than_input_is_a_permutation():
  x = np.arange(100)
  ds = tf.data.Dataset.from_tensor_slices(x).shuffle(10, seed=2).batch(7)
  got = np.concatenate(list(ds.as_numpy_iterator()))
  assert sorted(got.tolist()) == list(range(100)) and got.tolist() != list(range(100))


def test_shuffle_cardinality_repr_and_errors():
  assert int(R.shuffle(3).cardinality()) == 8
  assert repr(R.shuffle(2)).startswith("<_ShuffleDataset element_spec=")
  for size in (0, -1):
    with pytest.raises(tf.errors.InvalidArgumentError, match="buffer_size"):
      list(R.shuffle(size))


def _collect(ds):
  return ds.reduce(tf.zeros([0], tf.int64), lambda s, x: tf.concat([s, [x]], 0))


def test_shuffle_made_inside_tf_function_repeats_its_seeded_order():
  @tf.function
  def order(ds):
    return _collect(ds.shuffle(8, seed=1))
  a, b = order(R).numpy().tolist(), order(R).numpy().tolist()
  assert a == b and sorted(a) == list(range(8))


def test_shuffled_dataset_passed_to_tf_function_reshuffles_per_call():
  ds = R.shuffle(8, seed=1)
  order = tf.function(_collect)
  a, b = order(ds).numpy().tolist(), order(ds).numpy().tolist()
  assert a != b and sorted(a) == sorted(b) == list(range(8))
