"""tf.ragged: ragged tensors (rows of different lengths) and their ops.

Importing this package registers the ragged implementations of the dense
public functions (tf.concat, tf.reduce_sum, tf.math.*, ...; ops/dispatch.py).
"""
from tensorlet.ragged.ragged_tensor import RaggedTensor, RaggedTensorSpec  # noqa: F401
from tensorlet.ragged import ragged_math  # noqa: F401 - registers elementwise ops, reductions
from tensorlet.ragged import ragged_array_ops  # noqa: F401 - registers tf.shape/size/rank/...
from tensorlet.ragged import ragged_dispatch  # noqa: F401 - tf.strings.*, tf.nn.softmax, ... of ragged
from tensorlet.ragged import ragged_shape_ops  # noqa: F401 - tf.ones/zeros/fill/broadcast_to(shape)
from tensorlet.ragged.ragged_ops import (  # noqa: F401
    boolean_mask, constant, map_flat_values, range, row_splits_to_segment_ids,
    segment_ids_to_row_splits, stack)
from tensorlet.ragged.ragged_cross import cross, cross_hashed  # noqa: F401


from tensorlet._unsupported import getattr_for as _getattr_for  # noqa: E402
__getattr__ = _getattr_for("tf.ragged", __name__)
