"""tensorlet: TensorFlow 2's programming model on NumPy. Use as `import tensorlet as tf`.

This module only re-exports; the implementation lives in the submodules.
Rarely used namespaces (nn, random, linalg, strings, keras, data, ...) load
on first access to keep `import tensorlet` fast.
"""
import importlib as _importlib

from tensorlet import _allocator
_allocator.tune()

from tensorlet import dtypes
from tensorlet import errors
from tensorlet.dtypes import (DType, as_dtype, bool, complex64, complex128, double,  # noqa: A004
                              float16, float32, float64, half, int8, int16, int32, int64,
                              resource, string, uint8, uint16, uint32, uint64, variant)
from tensorlet.tensor_shape import TensorShape
from tensorlet.tensor import Tensor, constant, convert_to_tensor, newaxis
from tensorlet.tensor import is_tensor  # noqa: F401
from tensorlet.tensor_spec import TensorSpec
from tensorlet.context import device, executing_eagerly, name_scope
from tensorlet.context import init_scope  # noqa: F401
from tensorlet.context import control_dependencies, inside_function  # noqa: F401
from tensorlet.ops import overloads as _overloads  # noqa: F401 - binds Tensor operators
from tensorlet.ops.math_ops import (  # noqa: F401
    abs, acos, add, add_n, argmax, argmin, asin, atan, cast, ceil, cos, cosh, cumsum, divide,
    equal, exp, floor, floordiv, greater, greater_equal, less, less_equal, log, logical_and,
    logical_not, logical_or, matmul, maximum, minimum, multiply, negative, not_equal, pow,
    realdiv, reduce_all, reduce_any, reduce_logsumexp, reduce_max, reduce_mean, reduce_min,
    reduce_prod, reduce_std, reduce_sum, reduce_variance, round, rsqrt, saturate_cast,
    sigmoid, sign, sin, sinh, sqrt, square, squared_difference, subtract, tan, tanh, truediv,
    truncatediv)
from tensorlet.ops.math_ops import floormod as mod  # noqa: F401
from tensorlet.ops.math_ops import complex, imag, real, truncatemod  # noqa: F401,A004
from tensorlet.ops.array_ops import (  # noqa: F401
    guarantee_const, histogram_fixed_width, reverse_sequence, searchsorted,
    tensor_scatter_nd_max, tensor_scatter_nd_min, unique_with_counts, unravel_index)
from tensorlet.ops.array_ops import (  # noqa: F401
    argsort, boolean_mask, broadcast_dynamic_shape, broadcast_static_shape, broadcast_to,
    concat, ensure_shape, expand_dims, eye, fill, gather, gather_nd, identity, linspace,
    meshgrid, one_hot, ones, ones_like, pad, range, rank, repeat, reshape, reverse, roll,
    scatter_nd, sequence_mask, shape, shape_n, size, slice, sort, split, squeeze, stack,
    stop_gradient, strided_slice, tensor_scatter_nd_add, tensor_scatter_nd_sub,
    tensor_scatter_nd_update, tile, transpose, unique, unstack, where, zeros, zeros_like)
from tensorlet.variables import Variable, VariableAggregation, VariableSynchronization
from tensorlet.module import Module
from tensorlet.autodiff.tape import GradientTape, UnconnectedGradients
from tensorlet.autodiff.custom_gradient import custom_gradient
from tensorlet.ops import graph_ops as _graph_ops  # noqa: F401 - Const, Placeholder
from tensorlet import nest, types  # noqa: F401
from tensorlet.ops import dispatch as _dispatch
_dispatch.install(globals())  # public functions dispatch on Keras symbolic tensors

from tensorlet.version import VERSION as __version__  # noqa: E402

_LAZY = {
    "nn": "tensorlet.nn",
    "random": "tensorlet.random",
    "linalg": "tensorlet.linalg",
    "strings": "tensorlet.strings",
    "test": "tensorlet.test_util",
    "autograph": "tensorlet.autograph",
    "train": "tensorlet.train",
    "summary": "tensorlet.summary",
    "data": "tensorlet.data",
    "io": "tensorlet.io",
    "experimental": "tensorlet.experimental",
    "keras": "tensorlet.keras",
    "saved_model": "tensorlet.saved_model",
    "onnx": "tensorlet.onnx",
    "ragged": "tensorlet.ragged",
    "sparse": "tensorlet.sparse",
    "sets": "tensorlet.sparse.sets",
    "signal": "tensorlet.signal",
    "image": "tensorlet.image",
    "compat": "tensorlet.compat",
    "distribute": "tensorlet.distribute",
    "math": "tensorlet.math",
    "config": "tensorlet.config",
    "debugging": "tensorlet.debugging",
}
# tf.function and the graph classes load on first use: most of import time is compiling
# modules, and a program's first @tf.function needs them only then.
_PLAIN_LAZY = {
    "function": ("tensorlet.polymorphic_function.polymorphic", "function"),
    "Function": ("tensorlet.polymorphic_function.polymorphic", "Function"),
    "Graph": ("tensorlet.graph.graph", "Graph"),
    "Operation": ("tensorlet.graph.graph", "Operation"),
    "py_function": ("tensorlet.ops.script_ops", "py_function"),
    "numpy_function": ("tensorlet.ops.script_ops", "numpy_function"),
}
_LAZY_ATTRS = {
    "clip_by_value": ("tensorlet.ops.clip_ops", "clip_by_value"),
    "clip_by_norm": ("tensorlet.ops.clip_ops", "clip_by_norm"),
    "clip_by_global_norm": ("tensorlet.ops.clip_ops", "clip_by_global_norm"),
    "einsum": ("tensorlet.ops.linalg_ops", "einsum"),
    "tensordot": ("tensorlet.ops.linalg_ops", "tensordot"),
    "norm": ("tensorlet.ops.linalg_ops", "norm"),
    "random_normal_initializer": ("tensorlet.ops.random_ops", "random_normal_initializer"),
    "RaggedTensor": ("tensorlet.ragged", "RaggedTensor"),
    "RaggedTensorSpec": ("tensorlet.ragged", "RaggedTensorSpec"),
    "SparseTensor": ("tensorlet.sparse", "SparseTensor"),
    "SparseTensorSpec": ("tensorlet.sparse", "SparseTensorSpec"),
    "IndexedSlices": ("tensorlet.indexed_slices", "IndexedSlices"),
    "IndexedSlicesSpec": ("tensorlet.indexed_slices", "IndexedSlicesSpec"),
    "map_fn": ("tensorlet.graph.functional", "map_fn"),
    "scan": ("tensorlet.graph.functional", "scan"),
    "foldl": ("tensorlet.graph.functional", "foldl"),
    "foldr": ("tensorlet.graph.functional", "foldr"),
    "vectorized_map": ("tensorlet.graph.functional", "vectorized_map"),
    "type_spec_from_value": ("tensorlet.composite_tensor", "type_spec_from_value"),
    "no_op": ("tensorlet.ops.group_ops", "no_op"),
    "group": ("tensorlet.ops.group_ops", "group"),
    "tuple": ("tensorlet.ops.group_ops", "tuple"),
    "print": ("tensorlet.ops.logging_ops", "print_"),
    "Assert": ("tensorlet.ops.logging_ops", "Assert_"),
    "assert_equal": ("tensorlet.ops.logging_ops", "assert_equal"),
    "assert_greater": ("tensorlet.ops.logging_ops", "assert_greater"),
    "assert_less": ("tensorlet.ops.logging_ops", "assert_less"),
    "assert_rank": ("tensorlet.ops.logging_ops", "assert_rank"),
    "TensorArray": ("tensorlet.ops.tensor_array_ops", "TensorArray"),
    "cond": ("tensorlet.graph.control_flow", "cond"),
    "case": ("tensorlet.graph.control_flow", "case"),
    "switch_case": ("tensorlet.graph.control_flow", "switch_case"),
    "while_loop": ("tensorlet.graph.control_flow", "while_loop"),
}


def __getattr__(name):
  module = _LAZY.get(name)
  if module is not None:
    m = _importlib.import_module(module)
    globals()[name] = m
    return m
  target = _PLAIN_LAZY.get(name)
  if target is not None:
    v = globals()[name] = getattr(_importlib.import_module(target[0]), target[1])
    return v
  target = _LAZY_ATTRS.get(name)
  if target is not None:
    v = getattr(_importlib.import_module(target[0]), target[1])
    v = _dispatch.add_dispatch_support(v, name) if callable(v) and not isinstance(v, type) \
        and not (v.__module__ or "").startswith(_dispatch.SKIP_MODULES) else v
    globals()[name] = v
    return v
  from tensorlet._unsupported import missing
  raise missing("tf", name, __name__)
