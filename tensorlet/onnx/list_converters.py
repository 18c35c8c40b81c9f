"""TensorList (tf.TensorArray, the Keras RNN loop's inputs and outputs) ops as ONNX
tensor sequences, so a While loop over them exports as a Loop carrying sequences.

A reserved list is a sequence of as many empty tensors, each write replaces one
(erase, then insert at the same place). A read of a slot never written, which TF
answers with zeros, reads the empty tensor here; stacking such a list fails in the
runtime. Growing a list past its reserved size (dynamic_size) has no converter.
"""
import numpy as np

__all__ = ["LIST_CONVERTERS", "LIST_LIMITS"]


def _elem(s, name, op):
  s.b.seq_types[name] = op.attrs["element_dtype"] if "element_dtype" in op.attrs else \
      op.inputs[0].dtype
  return [name]


def _i64(s, name):
  return s.node("Cast", [name], to=s.b.onnx_type_of(np.int64))[0]


def _reserve(s, op, ins):
  n = s.node("Unsqueeze", [_i64(s, ins[0]), s.b.constant(np.array([0], np.int64), "axes")])[0]
  shape = s.node("Concat", [n, s.b.constant(np.array([0], np.int64), "zero")], axis=0)[0]
  empty = s.node("ConstantOfShape", [shape], value=s.b.onnx.numpy_helper.from_array(
      np.zeros([1], op.attrs["element_dtype"]._np)))[0]
  return _elem(s, s.node("SplitToSequence", [empty], axis=0, keepdims=0)[0], op)


def _from_tensor(s, op, ins):
  return _elem(s, s.node("SplitToSequence", ins[:1], axis=0, keepdims=0)[0], op)


def _set_item(s, op, ins):
  i = _i64(s, ins[1])
  rest = s.node("SequenceErase", [ins[0], i])[0]
  return _elem(s, s.node("SequenceInsert", [rest, ins[2], i])[0], op)


def _get_item(s, op, ins):
  return s.node("SequenceAt", [ins[0], ins[1]])


def _stack(s, op, ins):
  return s.node("ConcatFromSequence", ins[:1], axis=0, new_axis=1)


def _length(s, op, ins):
  return s.node("Cast", s.node("SequenceLength", ins[:1]), to=s.b.onnx_type_of(np.int32))


def _set_limit(op):
  return "dynamic_size (a list that grows)" if op.attrs.get("dynamic_size") else None


LIST_CONVERTERS = {
    "TensorListReserve": _reserve, "TensorListFromTensor": _from_tensor,
    "TensorListSetItem": _set_item, "TensorListGetItem": _get_item,
    "TensorListStack": _stack, "TensorListLength": _length}
LIST_LIMITS = {"TensorListSetItem": _set_limit}
