"""tf.nn: the public neural-network namespace (re-exports only)."""
from tensorlet.math import in_top_k  # noqa: F401
from tensorlet.ops.array_ops import top_k  # noqa: F401
from tensorlet.ops.conv_ops import (  # noqa: F401
    avg_pool, avg_pool1d, avg_pool2d, conv1d, conv2d, conv2d_transpose, convolution,
    depthwise_conv2d, max_pool, max_pool1d, max_pool2d, separable_conv2d)
from tensorlet.ops.conv_extra_ops import conv1d_transpose, conv3d, conv3d_transpose  # noqa: F401
from tensorlet.ops.math_ops import l2_normalize, sigmoid, tanh  # noqa: F401
from tensorlet.ops.nn_ops import (  # noqa: F401
    batch_normalization, bias_add, compute_average_loss, crelu, dropout, elu, embedding_lookup,
    gelu, l2_loss, leaky_relu, log_poisson_loss, log_softmax, moments, relu, relu6,
    scale_regularization_loss, selu, sigmoid_cross_entropy_with_logits, silu, softmax,
    softmax_cross_entropy_with_logits, softplus, softsign, sparse_softmax_cross_entropy_with_logits,
    swish, weighted_cross_entropy_with_logits, weighted_moments, zero_fraction)

from tensorlet.ops import dispatch as _dispatch  # noqa: E402
_dispatch.install(globals(), "nn")


from tensorlet._unsupported import getattr_for as _getattr_for  # noqa: E402
_missing = _getattr_for("tf.nn", __name__)
# Names whose modules load on first use (the sparse package is not needed before).
_LAZY = {"embedding_lookup_sparse": "tensorlet.sparse.embedding_ops",
         "safe_embedding_lookup_sparse": "tensorlet.sparse.embedding_ops"}


def __getattr__(name):
  module = _LAZY.get(name)
  if module is None:
    return _missing(name)
  import importlib
  value = globals()[name] = _dispatch.add_dispatch_support(
      getattr(importlib.import_module(module), name), f"nn.{name}")
  return value
