"""tensorlet.ops.dispatch: one wrapper per public function, canonical API names, lookup,
and dispatchers asked only when the function itself fails."""
import pytest

import tensorlet as tf
from tensorlet.ops import dispatch


def test_one_wrapper_per_function_in_every_namespace():
  assert tf.add is tf.math.add
  assert tf.sigmoid is tf.math.sigmoid is tf.nn.sigmoid
  assert tf.matmul is tf.linalg.matmul
  assert tf.concat.__wrapped__.__module__ == "tensorlet.ops.array_ops"


@pytest.mark.parametrize("fn,name", [
    (lambda: tf.add, "math.add"), (lambda: tf.matmul, "linalg.matmul"),
    (lambda: tf.nn.relu, "nn.relu"), (lambda: tf.concat, "concat"),
    (lambda: tf.cast, "cast"), (lambda: tf.reduce_sum, "math.reduce_sum"),
    (lambda: tf.einsum, "einsum"), (lambda: tf.nn.softmax, "nn.softmax"),
])
def test_api_names_are_tf_canonical(fn, name):
  assert dispatch.api_name(fn()) == name
  assert dispatch.lookup(name) is fn()


def test_lookup_accepts_v1_and_other_namespace_names():
  assert dispatch.lookup("compat.v1.transpose") is tf.transpose
  assert dispatch.lookup("dtypes.cast") is tf.cast
  with pytest.raises(ValueError, match="Unknown TensorFlow API symbol"):
    dispatch.lookup("math.not_there")
  assert dispatch.api_name(print) is None


class _Symbol:
  def _as_tensor(self):
    raise TypeError("no value")


def test_type_handlers_take_failed_calls_with_their_values_only():
  calls = []

  def handler(api_fn, args, kwargs):
    calls.append(dispatch.api_name(api_fn))
    return "handled"
  dispatch.register_type(_Symbol, handler)
  try:
    assert tf.math.add(_Symbol(), 1.0) == "handled"
    assert tf.concat([tf.ones([2]), _Symbol()], 0) == "handled"  # found inside a list
    assert calls == ["math.add", "concat"]
    assert float(tf.math.add(1.0, 2.0)) == 3.0 and calls == ["math.add", "concat"]
    with pytest.raises(tf.errors.InvalidArgumentError):
      tf.concat([tf.ones([2, 2]), tf.ones([3, 3])], 0)
  finally:
    dispatch.unregister_type(_Symbol, handler)
  assert _Symbol not in dispatch._TYPES


def test_implementations_for_a_function_come_before_type_handlers():
  dispatch.register_type(_Symbol, lambda api, args, kwargs: "by handler")
  handler = dispatch._HANDLERS[-1][1]
  dispatch.dispatch_for(tf.reshape)(_Symbol)(lambda tensor, shape, name=None: "by impl")
  try:
    assert tf.reshape(_Symbol(), [2]) == "by impl"
    assert tf.transpose(_Symbol()) == "by handler"
  finally:
    dispatch._IMPLS[tf.reshape._tl_dispatch].pop()
    dispatch.unregister_type(_Symbol, handler)


def test_public_functions_are_wrapped_once():
  # the op module's dispatching function is the public one: one frame, one registry
  from tensorlet.ops import array_ops
  assert tf.concat is array_ops.concat
  assert not hasattr(tf.concat._tl_dispatch, "_tl_dispatch")
