"""Tensor-list gradients carry hints (Variant.written: the few written slots; clean: no
Variant zeros inside) so a loop's gradient adds a one-slot list to its accumulator
without scanning every slot: the sums equal those of the scanning path."""
import numpy as np
import pytest

import tensorlet as tf
from tensorlet.ops import tensor_array_ops as ta
from tensorlet.ops.control_flow_ops import Variant
from tensorlet.tensor_shape import TensorShape

KW = dict(dynamic_size=True, element_dtype=tf.float32, element_shape=TensorShape([2]))


def _plain(v):
  """The same list without hints (the scanning path)."""
  return Variant(v.value)


def _dense(items):
  return [None if x is None or isinstance(x, Variant) else np.asarray(x) for x in items]


def _same(a, b):
  a, b = _dense(a.value), _dense(b.value)
  assert len(a) == len(b)
  for x, y in zip(a, b):
    assert (x is None) == (y is None)
    if x is not None:
      np.testing.assert_allclose(x, y, rtol=1e-6)  # the order of the additions may differ


@pytest.mark.parametrize("seed", range(20))
def test_hinted_sums_equal_scanning_sums(seed):
  rng = np.random.RandomState(seed)
  lists = []
  for _ in range(rng.randint(2, 5)):
    n = rng.randint(0, 40)
    v = ta.TensorListReserve.kernel(np.int32(n), element_dtype=tf.float32,
                                    element_shape=TensorShape([2]))
    for _ in range(rng.randint(0, 25)):
      i = rng.randint(0, n + 3)
      v = ta.TensorListSetItem.kernel(v, np.int32(i), rng.rand(2).astype(np.float32), **KW)
    if rng.rand() < 0.3 and v.value:  # a Variant zero in a slot (a nested list's gradient)
      items = list(v.value)
      items[rng.randint(len(items))] = Variant(None)
      v = Variant(tuple(items))
    if rng.rand() < 0.3:
      v = ta.VariantAddN.kernel(v, ta.VariantZerosLike.kernel(v))
    lists.append(v)
  got = ta.VariantAddN.kernel(*lists)
  want = ta.VariantAddN.kernel(*map(_plain, lists))
  _same(got, want)
  assert got.clean
  if got.written is not None:
    assert sorted(got.written) == [i for i, x in enumerate(got.value) if x is not None]


def test_hints_follow_writes():
  v = ta.VariantZerosLike.kernel(Variant((None,) * 30))
  assert v.written == () and v.clean
  a = np.ones(2, np.float32)
  v = ta.TensorListSetItem.kernel(v, np.int32(3), a, **KW)
  v = ta.TensorListSetItem.kernel(v, np.int32(3), a, **KW)  # rewritten: once in `written`
  v = ta.TensorListSetItem.kernel(v, np.int32(35), a, **KW)  # grows the list
  assert v.written == (3, 35) and len(v.value) == 36
  for i in range(20):
    v = ta.TensorListSetItem.kernel(v, np.int32(i + 10), a, **KW)
  assert v.written is None  # too many to list: scanned when summed
  acc = ta.VariantZerosLike.kernel(v)
  for i in range(30):
    one = ta.TensorListSetItem.kernel(ta.VariantZerosLike.kernel(v), np.int32(i % 7), a, **KW)
    acc = ta.VariantAddN.kernel(acc, one)
  assert sorted(acc.written) == list(range(7))
  np.testing.assert_array_equal(acc.value[0], [5.0, 5.0])
  np.testing.assert_array_equal(acc.value[6], [4.0, 4.0])


def test_set_item_shape_check_still_raises():
  v = ta.VariantZerosLike.kernel(Variant((None,) * 3))
  with pytest.raises(tf.errors.InvalidArgumentError, match="incompatible"):
    ta.TensorListSetItem.kernel(v, np.int32(0), np.ones(3, np.float32), **KW)
  with pytest.raises(tf.errors.InvalidArgumentError, match="incompatible"):
    ta.TensorListSetItem.kernel(v, np.int32(0), np.ones((2, 1), np.float32), **KW)


def test_loop_gradient_through_a_tensor_array_read():
  x = np.random.RandomState(0).rand(30, 3).astype(np.float32)

  @tf.function
  def f(x):
    with tf.GradientTape() as t:
      t.watch(x)
      xs = tf.TensorArray(tf.float32, size=30).unstack(x)
      _, s = tf.while_loop(lambda i, s: i < 30,
                           lambda i, s: (i + 1, s * 0.9 + tf.sin(xs.read(i))), (0, tf.zeros(3)))
      y = tf.reduce_sum(s)
    return t.gradient(y, x)
  want = np.cos(x) * (0.9 ** np.arange(29, -1, -1))[:, None]
  np.testing.assert_allclose(f(tf.constant(x)).numpy(), want, rtol=1e-5)
