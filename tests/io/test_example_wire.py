"""The wire-format Example reader (tensorlet/io/example_wire.py) against the
protobuf runtime on every encoding protobuf allows: packed and unpacked
lists, repeated and merged fields, oneof switches, duplicate map keys,
unknown fields; and malformed bytes raise InvalidArgumentError in parsing."""
import struct

import numpy as np
import pytest

import tensorlet as tf
from tensorlet.formats import example_wire as wire


def _varint(v):
  v &= (1 << 64) - 1
  out = bytearray()
  while True:
    b = v & 0x7F
    v >>= 7
    if v:
      out.append(b | 0x80)
    else:
      out.append(b)
      return bytes(out)


def _field(number, wt, payload):
  tag = _varint(number << 3 | wt)
  if wt == 2:
    return tag + _varint(len(payload)) + payload
  return tag + payload


def _entry(key, feature):
  return _field(1, 2, _field(1, 2, key.encode()) + _field(2, 2, feature))


def _example(*entries, extra=b""):
  return _field(1, 2, b"".join(entries)) + extra


def _proto_values(record):
  ex = tf.train.Example.FromString(record)
  out = {}
  for k, f in ex.features.feature.items():
    kind = f.WhichOneof("kind")
    out[k] = (kind, None if kind is None else list(getattr(f, kind).value))
  return out


def _wire_values(record):
  out = {}
  for k, ref in wire.example_features(record).items():
    kind, vals = wire.feature_values(ref)
    out[k] = (kind, None if kind is None else vals.tolist())
  return out


FLOATS = [1.5, -2.25, 3.0e10]
INTS = [0, 1, -1, 300, 2 ** 62, -2 ** 63]

CASES = {
    "unpacked floats": _entry("f", _field(2, 2, b"".join(
        _field(1, 5, struct.pack("<f", x)) for x in FLOATS))),
    "unpacked ints": _entry("i", _field(3, 2, b"".join(_field(1, 0, _varint(x)) for x in INTS))),
    "packed ints": _entry("i", _field(3, 2, _field(1, 2, b"".join(_varint(x) for x in INTS)))),
    "long packed ints": _entry("i", _field(3, 2, _field(1, 2, b"".join(
        _varint(x) for x in INTS * 10)))),
    "packed then unpacked": _entry("f", _field(2, 2, _field(1, 2, struct.pack("<2f", 1, 2)) +
                                                _field(1, 5, struct.pack("<f", 3)))),
    "list repeated (merged)": _entry("b", _field(1, 2, _field(1, 2, b"x")) +
                                     _field(1, 2, _field(1, 2, b"yz"))),
    "oneof switch": _entry("s", _field(2, 2, _field(1, 2, struct.pack("<f", 1))) +
                           _field(3, 2, _field(1, 2, _varint(7)))),
    "duplicate key": _entry("d", _field(3, 2, _field(1, 2, _varint(1)))) +
                     _entry("d", _field(3, 2, _field(1, 2, _varint(2)))),
    "empty feature": _entry("e", b""),
    "unknown fields": _entry("u", _field(9, 0, _varint(5)) + _field(3, 2, _field(
        7, 2, b"junk") + _field(1, 2, _varint(4)))),
    "value split in two": _field(1, 2, _field(1, 2, _field(1, 2, b"v") + _field(
        2, 2, _field(1, 2, _field(1, 2, b"a"))) + _field(2, 2, _field(1, 2, _field(1, 2, b"b"))))),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_wire_reader_matches_protobuf(name):
  body = CASES[name]
  record = body if name == "value split in two" else _example(body)
  assert _wire_values(record) == _proto_values(record)


def test_two_features_fields_merge_and_unknown_top_level_fields():
  record = _example(_entry("a", _field(3, 2, _field(1, 2, _varint(1))))) + \
      _field(5, 0, _varint(9)) + _example(_entry("b", _field(1, 2, _field(1, 2, b"q"))))
  assert _wire_values(record) == _proto_values(record) == {
      "a": ("int64_list", [1]), "b": ("bytes_list", [b"q"])}


def test_writer_output_round_trips_through_parse():
  rng = np.random.RandomState(0)
  for _ in range(20):
    ex = tf.train.Example()
    f = ex.features.feature
    f["x"].float_list.value.extend(rng.randn(rng.randint(0, 50)).astype(np.float32).tolist())
    f["y"].int64_list.value.extend(rng.randint(-2 ** 40, 2 ** 40, rng.randint(0, 50)).tolist())
    rec = ex.SerializeToString()
    assert _wire_values(rec) == _proto_values(rec)


@pytest.mark.parametrize("data", [
    b"\x0a\x05\x0a\x03",                      # truncated
    b"\x0a\x02\x0a\xff",                      # length past the end
    _example(_entry("i", _field(3, 2, _field(1, 2, b"\xff")))),  # truncated varint
    _example(_entry("f", _field(2, 2, _field(1, 2, b"\x00\x00\x80")))),  # 3-byte float list
    b"\x0b\x00",                               # group wire type
    _example(_field(1, 2, _field(1, 2, b"\xff\xfe") + _field(2, 2, b""))),  # bad UTF-8 key
])
def test_malformed_bytes_raise_invalid_argument(data):
  with pytest.raises(tf.errors.InvalidArgumentError):
    tf.io.parse_single_example(data, {"i": tf.io.VarLenFeature(tf.int64),
                                      "f": tf.io.VarLenFeature(tf.float32)})
