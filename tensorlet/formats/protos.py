"""TensorFlow's Example and Tensor protocol buffers as real protobuf messages.

The messages (tensorflow.Example, Features, Feature, BytesList, FloatList,
Int64List, FeatureList(s), SequenceExample, TensorProto, TensorShapeProto)
are built from a FileDescriptorProto written here with the field numbers of
TensorFlow's example.proto, feature.proto, tensor.proto and
tensor_shape.proto, so their wire format is TensorFlow's. They live in a
private descriptor pool: importing TensorFlow (or tensorboard's protos) next to
tensorlet registers the same full names in the default pool without a clash.

NOTE: tensorboard ships TensorProto but no example_pb2/feature_pb2, so the
descriptors are built here; only the `protobuf` runtime is needed (the
`io` extra; tensorboard already pulls it in), and only for these message
classes and serialize_tensor/parse_tensor: tf.io.parse_* read Example bytes
without it (example_wire.py). Parsing bytes with protobuf never runs code
from them.
"""
__all__ = ["messages", "Example", "require"]

_MESSAGES = None


def require(what="tf.train.Example"):
  """The protobuf runtime, or an ImportError that says how to get it."""
  try:
    from google.protobuf import descriptor_pb2, descriptor_pool  # noqa: F401
  except ImportError:
    raise ImportError(f"{what} needs the protobuf package: pip install 'tensorlet[io]' "
                      f"(or pip install protobuf)") from None


# (message, [(name, number, label, type, type_name, packed, oneof)])
_OPT, _REP = 1, 3
_DOUBLE, _FLOAT, _INT64, _INT32, _BOOL, _STRING, _MESSAGE, _BYTES, _ENUM = \
    1, 2, 3, 5, 8, 9, 11, 12, 14
_UINT32 = 13

_LAYOUT = [
    ("BytesList", [("value", 1, _REP, _BYTES, None, False, None)]),
    ("FloatList", [("value", 1, _REP, _FLOAT, None, True, None)]),
    ("Int64List", [("value", 1, _REP, _INT64, None, True, None)]),
    ("Feature", [("bytes_list", 1, _OPT, _MESSAGE, ".tensorflow.BytesList", False, 0),
                 ("float_list", 2, _OPT, _MESSAGE, ".tensorflow.FloatList", False, 0),
                 ("int64_list", 3, _OPT, _MESSAGE, ".tensorflow.Int64List", False, 0)]),
    ("Features", [("feature", 1, _REP, _MESSAGE, ".tensorflow.Features.FeatureEntry", False,
                   None)]),
    ("FeatureList", [("feature", 1, _REP, _MESSAGE, ".tensorflow.Feature", False, None)]),
    ("FeatureLists", [("feature_list", 1, _REP, _MESSAGE,
                       ".tensorflow.FeatureLists.FeatureListEntry", False, None)]),
    ("Example", [("features", 1, _OPT, _MESSAGE, ".tensorflow.Features", False, None)]),
    ("SequenceExample", [("context", 1, _OPT, _MESSAGE, ".tensorflow.Features", False, None),
                         ("feature_lists", 2, _OPT, _MESSAGE, ".tensorflow.FeatureLists",
                          False, None)]),
    ("TensorShapeProto", [("dim", 2, _REP, _MESSAGE, ".tensorflow.TensorShapeProto.Dim",
                           False, None),
                          ("unknown_rank", 3, _OPT, _BOOL, None, False, None)]),
    ("TensorProto", [("dtype", 1, _OPT, _INT32, None, False, None),
                     ("tensor_shape", 2, _OPT, _MESSAGE, ".tensorflow.TensorShapeProto",
                      False, None),
                     ("version_number", 3, _OPT, _INT32, None, False, None),
                     ("tensor_content", 4, _OPT, _BYTES, None, False, None),
                     ("float_val", 5, _REP, _FLOAT, None, True, None),
                     ("double_val", 6, _REP, _DOUBLE, None, True, None),
                     ("int_val", 7, _REP, _INT32, None, True, None),
                     ("string_val", 8, _REP, _BYTES, None, False, None),
                     ("scomplex_val", 9, _REP, _FLOAT, None, True, None),
                     ("int64_val", 10, _REP, _INT64, None, True, None),
                     ("bool_val", 11, _REP, _BOOL, None, True, None),
                     ("dcomplex_val", 12, _REP, _DOUBLE, None, True, None),
                     ("half_val", 13, _REP, _INT32, None, True, None),
                     ("uint32_val", 16, _REP, _UINT32, None, True, None),
                     ("uint64_val", 17, _REP, 4, None, True, None)]),
]
# Map entries (key string -> message) and the shape dimension.
_NESTED = {
    "Features": [("FeatureEntry", [("key", 1, _OPT, _STRING, None, False, None),
                                   ("value", 2, _OPT, _MESSAGE, ".tensorflow.Feature", False,
                                    None)], True)],
    "FeatureLists": [("FeatureListEntry", [("key", 1, _OPT, _STRING, None, False, None),
                                           ("value", 2, _OPT, _MESSAGE,
                                            ".tensorflow.FeatureList", False, None)], True)],
    "TensorShapeProto": [("Dim", [("size", 1, _OPT, _INT64, None, False, None),
                                  ("name", 2, _OPT, _STRING, None, False, None)], False)],
}


def _fill(msg, fields):
  for name, number, label, ftype, type_name, packed, oneof in fields:
    f = msg.field.add(name=name, number=number, label=label, type=ftype)
    if type_name:
      f.type_name = type_name
    if packed:
      f.options.packed = True
    if oneof is not None:
      f.oneof_index = oneof


def _build():
  from google.protobuf import descriptor_pb2, descriptor_pool
  try:
    from google.protobuf.message_factory import GetMessageClass
  except ImportError:  # protobuf < 4.21
    from google.protobuf import message_factory
    GetMessageClass = message_factory.MessageFactory().GetPrototype  # noqa: N806
  fdp = descriptor_pb2.FileDescriptorProto(name="tensorlet/io/example.proto",
                                           package="tensorflow", syntax="proto3")
  for name, fields in _LAYOUT:
    msg = fdp.message_type.add(name=name)
    for nested, nfields, is_map in _NESTED.get(name, ()):
      sub = msg.nested_type.add(name=nested)
      _fill(sub, nfields)
      if is_map:
        sub.options.map_entry = True
    if name == "Feature":
      msg.oneof_decl.add(name="kind")
    _fill(msg, fields)
  pool = descriptor_pool.DescriptorPool()
  fd = pool.Add(fdp) if hasattr(pool, "Add") else None
  del fd
  file_desc = pool.FindFileByName(fdp.name)
  return {name: GetMessageClass(file_desc.message_types_by_name[name]) for name, _ in _LAYOUT}


def messages():
  """{name: message class}, built on first use."""
  global _MESSAGES
  if _MESSAGES is None:
    require()
    _MESSAGES = _build()
  return _MESSAGES


def __getattr__(name):
  if name in dict(_LAYOUT):
    return messages()[name]
  raise AttributeError(f"module 'tensorlet.formats.protos' has no attribute '{name}'")
