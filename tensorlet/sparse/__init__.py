"""tf.sparse: SparseTensor and its ops."""
from tensorlet.sparse.sparse_tensor import SparseTensor, SparseTensorSpec  # noqa: F401
from tensorlet.sparse.sparse_ops import (  # noqa: F401
    add, bincount, concat, expand_dims, fill_empty_rows, from_dense, mask, matmul, maximum,
    minimum, reduce_max, reduce_sum, reorder, reshape, retain, segment_mean, segment_sqrt_n,
    segment_sum, slice, sparse_dense_matmul, to_dense, to_indicator, transpose)
from tensorlet.sparse.sparse_cross import cross, cross_hashed  # noqa: F401


from tensorlet._unsupported import getattr_for as _getattr_for  # noqa: E402
__getattr__ = _getattr_for("tf.sparse", __name__)
