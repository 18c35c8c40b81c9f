"""Self-referencing structures raise a clear error instead of hanging or
overflowing the stack."""
import pytest

import tensorlet as tf


def _selfref_list():
  a = []
  a.append(a)
  return a


def _selfref_dict():
  d = {}
  d["x"] = [1, d]
  return d


@pytest.mark.parametrize("make", [_selfref_list, _selfref_dict])
def test_nest_flatten_of_a_structure_that_contains_itself_is_value_error(make):
  with pytest.raises(ValueError, match="contains itself"):
    tf.nest.flatten(make())


def test_shared_but_acyclic_substructures_still_flatten():
  x = [1, 2]
  assert tf.nest.flatten([x, (x, {"k": x})]) == [1, 2, 1, 2, 1, 2]


@pytest.mark.parametrize("fn", [tf.convert_to_tensor, tf.constant, lambda a: tf.concat(a, 0),
                                tf.stack, tf.add_n, tf.print])
def test_ops_given_a_self_referencing_list_raise_value_error(fn):
  with pytest.raises(ValueError):
    fn(_selfref_list())


def test_tf_function_given_a_self_referencing_argument_raises_value_error():
  with pytest.raises(ValueError, match="contains itself"):
    tf.function(lambda x: x)(_selfref_list())
