"""tensorlet.onnx: export a traced function (or a model's traced call) as an ONNX
model. Needs the optional `onnx` package (`pip install tensorlet[onnx]`).

    model = tensorlet.onnx.export(module.__call__, "model.onnx", opset=17)

Variables become initializers holding their current values; tf.cond becomes
If and tf.while_loop Loop. Ops without an ONNX form (CONVERTERS lists those
that have one) are all reported, with their source lines, before anything is
written.
"""
from tensorlet.onnx.export import export, supported_ops, unsupported_ops

__all__ = ["export", "supported_ops", "unsupported_ops"]
