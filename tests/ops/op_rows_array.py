"""Op-table rows for array ops' run-time variants: tf.slice / tf.tile / tf.repeat with
arguments known only when the graph runs (Slice, TileGrad, RepeatIndices), EnsureShape,
and PreventGradient."""
import numpy as np
from op_table import F32_64, REAL, args, case, same

import tensorlet as tf
from tensorlet.ops import array_ops


def _zero(x):
  """0 (int32) computed from `x`'s data, so a traced graph cannot fold it to a constant."""
  return tf.cast(tf.reduce_any(tf.not_equal(x, x)), tf.int32)


case("slice/runtime_begin",
     lambda x: tf.slice(x, tf.stack([_zero(x) + 1, _zero(x)]), tf.stack([2, _zero(x) + 2])),
     lambda x: x[1:3, 0:2], args([3, 4]), REAL, order=2)
case("tile/runtime_multiples", lambda x: tf.tile(x, tf.stack([_zero(x) + 2, _zero(x) + 1])),
     lambda x: np.tile(x, [2, 1]), args([2, 3]), REAL, order=2)
case("repeat/unknown_dim", lambda x: tf.repeat(x, [2], axis=0),
     lambda x: np.repeat(x, 2, axis=0), args([3, 2]), REAL)
case("ensure_shape", lambda x: tf.ensure_shape(x, [2, None]) * 2, same(lambda x: x * 2),
     args([2, 3]), F32_64)
case("raw.PreventGradient", lambda x: array_ops.PreventGradient(x, message="no"),
     lambda x: x, args([2, 3]), REAL, grad=False)

