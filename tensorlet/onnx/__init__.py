"""tensorlet.onnx: export a traced function (or a model's traced call) as an ONNX
model. Needs the optional `onnx` package (`pip install tensorlet[onnx]`).

    model = tensorlet.onnx.export(module.__call__, "model.onnx", opset=17)

Variables become initializers holding their current values; tf.cond becomes
If and tf.while_loop Loop (TensorArrays in it: ONNX sequences). Keras LSTM and
GRU layers that run as one op become ONNX's LSTM and GRU operators (masks and
Bidirectional too); SimpleRNN and other recurrent layers export as a Loop. Ops without an ONNX form (CONVERTERS lists those
that have one) are all reported, with their source lines, before anything is
written.
"""
from tensorlet.onnx.export import export, supported_ops, unsupported_ops

__all__ = ["export", "supported_ops", "unsupported_ops"]


from tensorlet._unsupported import getattr_for as _getattr_for  # noqa: E402
__getattr__ = _getattr_for("tensorlet.onnx", __name__)
