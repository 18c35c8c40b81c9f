"""Op-table rows of the tf.io codec and parsing ops (ops/io_ops.py,
ops/parsing_ops.py): numerics eagerly and traced. None is differentiable."""
import base64

import numpy as np

import tensorlet as tf
from op_table import case, fixed, s_

_RAW = np.array([np.array([1, -2], np.int32).tobytes(), np.array([3, 4], np.int32).tobytes()],
                dtype=object)
case("decode_raw", lambda x: tf.io.decode_raw(x, tf.int32),
     lambda x: np.stack([np.frombuffer(b, np.int32) for b in x]), fixed(_RAW), [s_],
     grad=False)
case("decode_raw/big_endian", lambda x: tf.io.decode_raw(x, tf.uint16, little_endian=False),
     lambda x: np.stack([np.frombuffer(b, ">u2").astype(np.uint16) for b in x]),
     fixed(_RAW), [s_], grad=False)

_B64 = np.array([b"", b"a", b"hello?>", bytes(range(40))], dtype=object)
case("encode_base64", tf.io.encode_base64,
     lambda x: np.array([base64.urlsafe_b64encode(b).rstrip(b"=") for b in x], dtype=object),
     fixed(_B64), [s_], grad=False)
case("decode_base64", tf.io.decode_base64,
     lambda x: np.array([base64.urlsafe_b64decode(b + b"=" * (-len(b) % 4)) for b in x],
                        dtype=object),
     fixed(np.array([base64.urlsafe_b64encode(b).rstrip(b"=") for b in _B64], dtype=object)),
     [s_], grad=False)

_CSV = np.array([b"1,2.5,a", b"3,,b", b"-4,1e3,"], dtype=object)
case("decode_csv", lambda x: tf.io.decode_csv(x, [[0], [1.0], ["z"]]),
     lambda x: [np.array([1, 3, -4], np.int32), np.array([2.5, 1.0, 1000.0], np.float32),
                np.array([b"a", b"b", b"z"], dtype=object)], fixed(_CSV), [s_], grad=False)


def _example(i):
  ex = tf.train.Example()
  ex.features.feature["v"].float_list.value.extend([i, i + 0.5])
  ex.features.feature["k"].int64_list.value.append(i * 10)
  return ex.SerializeToString()


_EXAMPLES = np.array([_example(i) for i in range(3)], dtype=object)
case("parse_example", lambda x: (lambda d: [d["k"], d["v"]])(tf.io.parse_example(x, {
    "k": tf.io.FixedLenFeature([], tf.int64), "v": tf.io.FixedLenFeature([2], tf.float32)})),
     lambda x: [np.array([0, 10, 20], np.int64),
                np.array([[0, 0.5], [1, 1.5], [2, 2.5]], np.float32)],
     fixed(_EXAMPLES), [s_], grad=False)
case("serialize_parse_tensor",
     lambda x: tf.io.parse_tensor(tf.io.serialize_tensor(x), x.dtype), lambda x: x,
     fixed(np.arange(6).reshape(2, 3)), [np.float32, np.int64, np.uint8, np.complex64],
     grad=False)
