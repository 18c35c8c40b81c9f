"""Parsing tf.train.Example / SequenceExample protos into tensors, and
TensorProto serialization (tf.io.serialize_tensor / parse_tensor).

One op parses a batch of Examples (ParseExampleV2) and one a single
SequenceExample (ParseSingleSequenceExample); the public functions in
tensorlet/io/parsing.py turn feature configs into their attributes and sparse
outputs into SparseTensors. Kernels decode with the protobuf messages of
tensorlet/io/protos.py (no code from the bytes runs); a record that is not a
valid message, a missing required feature, a wrong type or size raise
InvalidArgumentError as TensorFlow's parsers do.
"""
import numpy as np

from tensorlet import dtypes as _dt
from tensorlet.errors import InvalidArgumentError
from tensorlet.ops.registry import op
from tensorlet.tensor_shape import TensorShape

__all__ = ["ParseExampleV2", "ParseSingleSequenceExample", "SerializeTensor", "ParseTensor"]

_KIND = {_dt.float32: "float_list", _dt.int64: "int64_list", _dt.string: "bytes_list"}
_TYPE_NAME = {"float_list": "float", "int64_list": "int64", "bytes_list": "string"}
_I64 = _dt.int64


def _messages():
  from tensorlet.formats import protos
  return protos.messages()


def _decode(cls, data, what, op_name):
  from google.protobuf.message import DecodeError
  try:
    return cls.FromString(data)
  except (DecodeError, RuntimeError, ValueError) as e:
    raise _unparsable(what, data, e, op_name) from None


def _unparsable(what, data, err, op_name):
  return InvalidArgumentError(None, None, f"Could not parse {what} input, value: "
                              f"'{bytes(data)[:64]!r}' ({err}) [Op:{op_name}]")


def _where(key, index, batched):
  return f"Name: <unknown>, Key: {key}, Index: {index}." if batched else f"Key: {key}."


def _empty(dtype):
  return np.zeros(0, dtype=object if dtype is _dt.string else dtype._np)


def _values(ref, key, dtype, index, batched, op_name):
  """The values of a Feature (a wire reference) as a NumPy array of `dtype`."""
  from tensorlet.formats.example_wire import WireError, feature_values
  try:
    kind, vals = feature_values(ref)
  except WireError as e:
    raise InvalidArgumentError(None, None, f"{_where(key, index, batched)}  Could not parse "
                               f"the feature: {e} [Op:{op_name}]") from None
  if kind is None:
    return _empty(dtype)
  want = _KIND[dtype]
  if kind != want:
    raise InvalidArgumentError(None, None, f"{_where(key, index, batched)}  Data types don't "
                               f"match. Data type: {_TYPE_NAME[kind]} but expected type: "
                               f"{_TYPE_NAME[want]} [Op:{op_name}]")
  return vals


def _required(key, dtype, index, batched, op_name):
  where = "Name: <unknown>, " if batched else ""
  return InvalidArgumentError(None, None, f"{where}Feature: {key} (data type: "
                              f"{_TYPE_NAME[_KIND[dtype]]}) is required but could not be "
                              f"found. [Op:{op_name}]")


def _dense(vals, key, dtype, shape, default, index, batched, op_name, size=None):
  if size is None:
    size = int(np.prod(shape)) if shape else 1
  if vals is None:
    if default.size == 0 and size != 0:
      raise _required(key, dtype, index, batched, op_name)
    return np.broadcast_to(default, shape)
  if vals.size != size:
    raise InvalidArgumentError(None, None, f"{_where(key, index, batched)}  Number of "
                               f"{_TYPE_NAME[_KIND[dtype]]} values != expected.  Values size: "
                               f"{vals.size} but output shape: {list(shape)} [Op:{op_name}]")
  return vals.reshape(shape)


def _sequence_rows(vals, key, dtype, shape, index, batched, op_name):
  size = int(np.prod(shape)) if shape else 1
  if vals is None:
    return np.zeros([0] + list(shape), dtype=object if dtype is _dt.string else dtype._np)
  if size == 0 or vals.size % size:
    raise InvalidArgumentError(None, None, f"{_where(key, index, batched)}  Number of values "
                               f"is not a multiple of stride length. Saw {vals.size} values "
                               f"but output shape is: {list(shape)} [Op:{op_name}]")
  return vals.reshape([vals.size // size] + list(shape))


def _pad_rows(rows, shape, dtype, default):
  """[batch, max rows] + shape, short ones padded with `default` (a scalar)."""
  n = max((len(r) for r in rows), default=0)
  out = np.empty([len(rows), n] + list(shape), dtype=object if dtype is _dt.string else
                 dtype._np)
  out[...] = default
  for i, r in enumerate(rows):
    out[i, :len(r)] = r
  return out


def _sparse(value_lists, dtype, batched):
  """(indices, values, dense_shape) of per-example value arrays."""
  lens = np.array([len(v) for v in value_lists], dtype=np.int64)
  total = int(lens.sum())
  width = int(lens.max()) if len(lens) else 0
  rows = np.repeat(np.arange(len(lens), dtype=np.int64), lens)
  starts = np.repeat(np.cumsum(lens) - lens, lens)
  cols = np.arange(total, dtype=np.int64) - starts
  if dtype is _dt.string:
    values = np.empty(total, dtype=object)
    if total:
      values[:] = [x for v in value_lists for x in v]
  else:
    values = np.concatenate(value_lists).astype(dtype._np) if total else \
        np.zeros(0, dtype._np)
  if batched:
    return np.stack([rows, cols], axis=1), values, np.array([len(lens), width], np.int64)
  return cols.reshape(-1, 1), values, np.array([width], np.int64)


def _lookup(fmap, key):
  return fmap[key] if key in fmap else None


# ------------------------------------------------------------- ParseExampleV2

def _parse_shape(inputs, attrs):
  batch = inputs[0].shape
  lead = [] if not attrs["batched"] else \
      [batch[0] if batch.rank else None]
  rank = 2 if attrs["batched"] else 1
  out = []
  for t in attrs["sparse_types"]:
    out.append((TensorShape([None, rank]), _I64))
  for t in attrs["sparse_types"]:
    out.append((TensorShape([None]), t))
  for _ in attrs["sparse_types"]:
    out.append((TensorShape([rank]), _I64))
  for t, s, seq in zip(attrs["dense_types"], attrs["dense_shapes"], attrs["dense_seq"]):
    out.append((TensorShape(lead + ([None] if seq else []) + list(s)), t))
  return out


@op("ParseExampleV2", type_inputs=(), dtypes=None, num_outputs=None, differentiable=False,
    shape=_parse_shape)
def ParseExampleV2(serialized, *dense_defaults, sparse_keys, sparse_types, dense_keys,
                   dense_types, dense_shapes, dense_seq, batched):
  """Examples in `serialized` (1-D, or a scalar when not `batched`) -> sparse
  indices, values, shapes (one per sparse key) then dense values."""
  from tensorlet.formats.example_wire import WireError, example_features
  name = "ParseExampleV2"
  records = np.reshape(np.asarray(serialized, dtype=object), [-1])
  wanted = set(sparse_keys) | set(dense_keys)
  fmaps = []
  for r in records:
    try:
      fmaps.append(example_features(r, wanted))
    except WireError as e:
      raise _unparsable("example", r, e, name) from None
  sparse_out = []
  for key, dtype in zip(sparse_keys, sparse_types):
    lists = []
    for i, fm in enumerate(fmaps):
      f = fm.get(key)
      lists.append(_empty(dtype) if f is None else _values(f, key, dtype, i, batched, name))
    sparse_out.append(_sparse(lists, dtype, batched))
  dense_out = []
  for key, dtype, shape, seq, default in zip(dense_keys, dense_types, dense_shapes, dense_seq,
                                             dense_defaults):
    parts = []
    size = int(np.prod(shape)) if shape else 1
    default = np.asarray(default)
    for i, fm in enumerate(fmaps):
      f = fm.get(key)
      vals = None if f is None else _values(f, key, dtype, i, batched, name)
      if seq:
        parts.append(_sequence_rows(vals, key, dtype, shape, i, batched, name))
      else:
        parts.append(_dense(vals, key, dtype, shape, default, i, batched, name, size))
    if seq:
      pad = np.asarray(default).reshape(-1)[0] if np.size(default) else \
          (b"" if dtype is _dt.string else 0)
      arr = _pad_rows(parts, shape, dtype, pad)
    else:
      arr = np.stack(parts) if parts else \
          np.zeros([0] + list(shape), object if dtype is _dt.string else dtype._np)
    dense_out.append(arr if batched else arr[0])
  return tuple([s[0] for s in sparse_out] + [s[1] for s in sparse_out] +
               [s[2] for s in sparse_out] + dense_out)


# ------------------------------------------------- ParseSingleSequenceExample

def _seq_shape(inputs, attrs):
  out = []
  for group in ("context", "feature_list"):
    st = attrs[group + "_sparse_types"]
    out += [(TensorShape([None, 1 if group == "context" else 2]), _I64) for _ in st]
    out += [(TensorShape([None]), t) for t in st]
    out += [(TensorShape([1 if group == "context" else 2]), _I64) for _ in st]
    for t, s in zip(attrs[group + "_dense_types"], attrs[group + "_dense_shapes"]):
      out.append((TensorShape(([] if group == "context" else [None]) + list(s)), t))
  return out


@op("ParseSingleSequenceExample", type_inputs=(), dtypes=None, num_outputs=None,
    differentiable=False, shape=_seq_shape)
def ParseSingleSequenceExample(serialized, *defaults, context_sparse_keys,
                               context_sparse_types, context_dense_keys, context_dense_types,
                               context_dense_shapes, feature_list_sparse_keys,
                               feature_list_sparse_types, feature_list_dense_keys,
                               feature_list_dense_types, feature_list_dense_shapes,
                               feature_list_dense_missing):
  """Context features (like one Example's) then feature lists: a dense
  feature list is [time] + shape, a sparse one has (time, index) indices."""
  from tensorlet.formats.example_wire import WireError, sequence_example
  name = "ParseSequenceExampleV2"
  data = np.asarray(serialized, dtype=object)[()]
  try:
    ctx_map, lists = sequence_example(
        data, set(context_sparse_keys) | set(context_dense_keys),
        set(feature_list_sparse_keys) | set(feature_list_dense_keys))
  except WireError as e:
    raise _unparsable("sequence example", data, e, name) from None
  cdefaults = defaults[:len(context_dense_keys)]
  fdefaults = defaults[len(context_dense_keys):]
  out = []
  sp = [_sparse([_empty(t) if _lookup(ctx_map, k) is None
                 else _values(ctx_map[k], k, t, 0, False, name)], t, False)
        for k, t in zip(context_sparse_keys, context_sparse_types)]
  out += [s[0] for s in sp] + [s[1] for s in sp] + [s[2] for s in sp]
  for k, t, s, d in zip(context_dense_keys, context_dense_types, context_dense_shapes,
                        cdefaults):
    f = _lookup(ctx_map, k)
    out.append(_dense(None if f is None else _values(f, k, t, 0, False, name), k, t, s,
                      np.asarray(d), 0, False, name))
  sp = []
  for k, t in zip(feature_list_sparse_keys, feature_list_sparse_types):
    fl = _lookup(lists, k)
    steps = [] if fl is None else [_values(f, k, t, j, False, name) for j, f in
                                   enumerate(fl)]
    ind, vals, shape = _sparse(steps, t, True)
    sp.append((ind, vals, shape))
  out += [s[0] for s in sp] + [s[1] for s in sp] + [s[2] for s in sp]
  for k, t, s, d, allow_missing in zip(feature_list_dense_keys, feature_list_dense_types,
                                       feature_list_dense_shapes, fdefaults,
                                       feature_list_dense_missing):
    fl = _lookup(lists, k)
    if fl is None:
      if not allow_missing:
        raise InvalidArgumentError(None, None, f"Name: <unknown>, Feature list '{k}' is "
                                   f"required but could not be found.  Did you mean to "
                                   f"include it in feature_list_dense_missing_assumed_empty "
                                   f"or feature_list_dense_defaults? [Op:{name}]")
      out.append(np.zeros([0] + list(s), object if t is _dt.string else t._np))
      continue
    rows = [_dense(_values(f, k, t, j, False, name), k, t, s, np.asarray(d), j, False, name)
            for j, f in enumerate(fl)]
    out.append(np.stack(rows) if rows else
               np.zeros([0] + list(s), object if t is _dt.string else t._np))
  return tuple(out)


# ------------------------------------------------------ tensor serialization

def _tensor_proto(arr, dtype):
  msgs = _messages()
  proto = msgs["TensorProto"](dtype=dtype.as_datatype_enum)
  proto.tensor_shape.SetInParent()
  for d in arr.shape:
    proto.tensor_shape.dim.add(size=d)
  if dtype is _dt.string:
    proto.string_val.extend([bytes(x) for x in arr.reshape(-1)])
  else:
    proto.tensor_content = np.ascontiguousarray(arr, dtype=arr.dtype.newbyteorder("<")) \
        .tobytes()
  return proto


@op("SerializeTensor", type_inputs=(), dtypes=None, differentiable=False,
    shape=lambda i, a: [(TensorShape([]), _dt.string)])
def SerializeTensor(tensor, *, T):
  return np.asarray(_tensor_proto(np.asarray(tensor), T).SerializeToString(), dtype=object)


def _parse_tensor_shape(inputs, attrs):
  return [(TensorShape(None), attrs["out_type"])]


_VAL_FIELDS = {"float32": "float_val", "float64": "double_val", "int32": "int_val",
               "int16": "int_val", "int8": "int_val", "uint8": "int_val", "uint16": "int_val",
               "int64": "int64_val", "bool": "bool_val", "complex64": "scomplex_val",
               "complex128": "dcomplex_val", "float16": "half_val", "bfloat16": "half_val",
               "uint32": "uint32_val", "uint64": "uint64_val"}


@op("ParseTensor", type_inputs=(), dtypes=None, differentiable=False,
    shape=_parse_tensor_shape)
def ParseTensor(serialized, *, out_type):
  data = np.asarray(serialized, dtype=object)
  if data.ndim:
    raise InvalidArgumentError(None, None, f"Expected `serialized` to be a scalar, got shape: "
                               f"{list(data.shape)} [Op:ParseTensor]")
  proto = _decode(_messages()["TensorProto"], data[()], "tensor", "ParseTensor")
  stored = _by_enum().get(proto.dtype)
  if stored is not out_type:
    raise InvalidArgumentError(None, None, f"Type mismatch between parsed tensor "
                               f"({stored.name if stored else proto.dtype}) and dtype "
                               f"({out_type.name}) [Op:ParseTensor]")
  shape = [d.size for d in proto.tensor_shape.dim]
  if any(d < 0 for d in shape):
    raise InvalidArgumentError(None, None, "Could not parse `serialized` as TensorProto: a "
                               "negative dimension [Op:ParseTensor]")
  n = int(np.prod(shape)) if shape else 1
  if out_type is _dt.string:
    vals = list(proto.string_val)
    arr = np.empty(n, dtype=object)
    if len(vals) == n:
      arr[:] = vals
    elif len(vals) == 1:
      arr[:] = vals[0]
    elif n:
      raise _bad_count(len(vals), n)
    return arr.reshape(shape)
  npt = out_type._np
  if proto.tensor_content:
    raw = proto.tensor_content
    if len(raw) != n * np.dtype(npt).itemsize:
      raise _bad_count(len(raw) // max(np.dtype(npt).itemsize, 1), n)
    return np.frombuffer(raw, dtype=np.dtype(npt).newbyteorder("<")).astype(npt) \
        .reshape(shape)
  field = _VAL_FIELDS.get(out_type.name)
  vals = list(getattr(proto, field)) if field else []
  if out_type.is_complex:
    vals = np.asarray(vals, dtype=np.float64)
    vals = vals[0::2] + 1j * vals[1::2]
  if out_type.name in ("float16", "bfloat16"):
    vals = np.asarray(vals, dtype=np.uint16).view(npt)
  vals = np.asarray(vals).astype(npt)
  if vals.size == n:
    return vals.reshape(shape)
  if vals.size and vals.size < n:
    # NOTE: TF's compact form repeats the last value to fill the tensor.
    return np.concatenate([vals, np.full(n - vals.size, vals[-1], npt)]).reshape(shape)
  if n == 0:
    return np.zeros(shape, npt)
  if vals.size == 0:
    return np.zeros(shape, npt)
  raise _bad_count(vals.size, n)


def _by_enum():
  return {d._enum: d for d in vars(_dt).values() if isinstance(d, _dt.DType)}


def _bad_count(got, want):
  return InvalidArgumentError(None, None, f"Could not parse `serialized` as TensorProto: "
                              f"{got} values for {want} elements [Op:ParseTensor]")
