"""A tf.Variable works wherever a tensor does (TF 2.21): every op-table row is run
with each tensor input replaced by a Variable holding the same value, eagerly
and inside tf.function (variables as arguments), and must give the tensor
inputs' result; gradients reach the variables."""
import numpy as np
import pytest

import tensorlet as tf
from op_table import CASES

ROWS = [pytest.param(c, np.dtype(c.dtypes[0]), id=c.name) for c in CASES]


def _flat(out):
  return [t.numpy() for t in tf.nest.flatten(out)]


def _same(a, b):
  assert len(a) == len(b)
  for x, y in zip(a, b):
    assert np.shape(x) == np.shape(y)
    if np.asarray(x).dtype.kind in "fc":
      np.testing.assert_allclose(x, y, rtol=1e-6, atol=1e-6, equal_nan=True)
    else:
      np.testing.assert_array_equal(x, y)


@pytest.mark.parametrize("case,dt", ROWS)
def test_variables_as_op_inputs(case, dt):
  xs = case.inputs(np.random.RandomState(0), dt)
  want = _flat(case.fn(*[tf.constant(x) for x in xs]))
  vs = [tf.Variable(x) for x in xs]
  _same(_flat(case.fn(*vs)), want)
  _same(_flat(tf.function(case.fn)(*vs)), want)


GRAD = [pytest.param(c, id=c.name) for c in CASES if c.grad]


@pytest.mark.parametrize("case", GRAD)
def test_gradients_reach_variable_inputs(case):
  xs = case.inputs(np.random.RandomState(0), np.dtype(np.float64))
  ts = [tf.constant(x) for x in xs]
  with tf.GradientTape() as t:
    t.watch(ts)
    y = sum(tf.reduce_sum(o) for o in tf.nest.flatten(case.fn(*ts)) if o.dtype.is_floating)
  want = t.gradient(y, ts)
  vs = [tf.Variable(x) for x in xs]
  with tf.GradientTape() as t:
    y = sum(tf.reduce_sum(o) for o in tf.nest.flatten(case.fn(*vs)) if o.dtype.is_floating)
  got = t.gradient(y, vs)
  for g, w in zip(got, want):
    assert (g is None) == (w is None)
    if g is not None:
      np.testing.assert_allclose(tf.convert_to_tensor(g).numpy(),
                                 tf.convert_to_tensor(w).numpy(), rtol=1e-9, atol=1e-9)
