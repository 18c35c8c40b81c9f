"""Bad arguments to tf.sparse functions raise TF's exception types naming the
function (found by tests/fuzz/fuzz_api.py)."""
import pytest

import tensorlet as tf


def _sp():
  return tf.sparse.from_dense(tf.constant([[1.0, 0.0], [0.0, 2.0]]))


def test_concat_takes_a_list_and_one_axis():
  assert tf.sparse.concat(-1, [_sp(), _sp()]).dense_shape.numpy().tolist() == [2, 4]
  with pytest.raises(TypeError, match="sp_inputs"):
    tf.sparse.concat(0, 3)
  with pytest.raises(ValueError, match="at least one"):
    tf.sparse.concat(0, [])
  with pytest.raises(tf.errors.InvalidArgumentError):
    tf.sparse.concat(5, [_sp()])


def test_add_and_matmul_need_a_sparse_operand():
  with pytest.raises(TypeError, match="tf.add"):
    tf.sparse.add(tf.constant([1.0]), tf.constant([1.0]))
  with pytest.raises(TypeError, match="SparseTensor"):
    tf.sparse.sparse_dense_matmul(tf.constant([[1.0]]), tf.constant([[1.0]]))
  with pytest.raises(TypeError, match="SparseTensor"):
    tf.sparse.matmul(1.0, 2.0)
