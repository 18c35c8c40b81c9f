"""tf.map_fn, tf.scan, tf.foldl, tf.foldr and tf.vectorized_map.

Each is one tf.while_loop over the elements' first dimension (so inside
tf.function it is one While node, not an unrolled loop, and it differentiates
through the loop's gradient), with results collected in TensorArrays.
Composite elements (ragged rows) are read with `elems[i]`; a RaggedTensorSpec
in fn_output_signature collects ragged results from their row lengths and
flat values. vectorized_map runs fn once on the whole batch when every op fn
uses has a batch rule, and otherwise falls back to map_fn with a warning.
"""
import warnings

from tensorlet import _nest as nest
from tensorlet import dtypes as _dt
from tensorlet.composite_tensor import CompositeTensor, TypeSpec
from tensorlet.errors import OutOfRangeError
from tensorlet.ops.registry import constant_value
from tensorlet.ops import array_ops as A
from tensorlet.ops import math_ops as M
from tensorlet.graph.control_flow import while_loop
from tensorlet.ops.tensor_array_ops import TensorArray
from tensorlet.tensor import Tensor, convert_to_tensor
from tensorlet.tensor_spec import TensorSpec

__all__ = ["map_fn", "scan", "foldl", "foldr", "vectorized_map"]


def _as_elems(elems, fn_name):
  flat = nest.flatten(elems)
  if not flat:
    raise ValueError(f"{fn_name}: elems must contain at least one tensor")
  flat = [x if isinstance(x, (Tensor, CompositeTensor)) else convert_to_tensor(x)
          for x in flat]
  for x in flat:
    if x.shape.rank == 0:
      raise ValueError(f"{fn_name}: elements in elems must be 1+ dimensional Tensors, not "
                       f"scalars")
  return flat


def _length(flat, fn_name):
  """The number of elements (the shared first dimension), as a scalar int32 tensor."""
  static = [x.shape[0] for x in flat if x.shape.rank is not None and x.shape[0] is not None]
  if len(set(static)) > 1:
    raise ValueError(f"{fn_name}: all elems must have the same first dimension, got "
                     f"{sorted(set(static))}")
  first = flat[0]
  if static:
    return convert_to_tensor(static[0], _dt.int32)
  if isinstance(first, CompositeTensor):
    return M.cast(first.nrows(), _dt.int32)
  return A.shape(first)[0]


def _leaf_spec(s):
  """A signature leaf as a spec: dtypes become TensorSpec(None, dtype)."""
  if isinstance(s, (TensorSpec, TypeSpec)):
    return s
  return TensorSpec(None, _dt.as_dtype(s))


def _elem_spec(x):
  if isinstance(x, CompositeTensor):
    return x._type_spec._map_fn_row_spec()
  return TensorSpec(x.shape[1:] if x.shape.rank is not None else None, x.dtype)


def _value_spec(v):
  if isinstance(v, CompositeTensor):
    return v._type_spec
  if isinstance(v, Tensor):
    return TensorSpec(v.shape, v.dtype)
  return type(v).__name__


def _mismatch(spec, value):
  """TF's error for a fn result that does not fit fn_output_signature."""
  return ValueError(f"Error in map_fn:\n  Expected `fn` to return a:\n    {spec!r}\n  But it "
                    f"returned a:\n    {_value_spec(value)!r}\n    (value={value!r})\n  To fix, "
                    f"update the `fn_output_signature` (or `dtype`) argument to `map_fn`.")


class _Collector:
  """TensorArrays that gather one output leaf per iteration and build the result
  (a composite spec says how a value is written as tensors and rebuilt)."""

  def __init__(self, spec, n, infer_shape):
    self.spec = spec
    self.composite = isinstance(spec, TypeSpec)
    if self.composite:
      self.tas = [TensorArray(dt, size=n, element_shape=shape, infer_shape=shape is not None)
                  for dt, shape in spec._map_fn_part_dtypes()]
    else:
      self.tas = [TensorArray(spec.dtype, size=n, infer_shape=infer_shape,
                              element_shape=spec.shape if spec.shape.rank is not None
                              else None)]

  def write(self, tas, i, value):
    spec = self.spec
    if not self.composite:
      if isinstance(value, CompositeTensor):
        raise _mismatch(spec, value)
      v = value if isinstance(value, Tensor) else convert_to_tensor(value, spec.dtype)
      return [tas[0].write(i, v)]
    try:
      parts = spec._map_fn_encode(value, i)
    except TypeError:
      raise _mismatch(spec, value) from None
    return [ta.write(i, p) for ta, p in zip(tas, parts)]

  def result(self, tas):
    if not self.composite:
      return tas[0].stack()
    return self.spec._map_fn_decode(tas)


def _check_fn(fn, api):
  if not callable(fn):
    raise TypeError(f"tf.{api}: `fn` must be callable, got {fn!r:.80}")


def map_fn(fn, elems, dtype=None, parallel_iterations=None, back_prop=True,
           swap_memory=False, infer_shape=True, name=None, fn_output_signature=None):
  """Stacks fn(x) over the elements x of `elems` (unstacked along their first axis).

  Example:
    >>> tf.map_fn(lambda x: x * x, tf.constant([1, 2, 3])).numpy()
    array([1, 4, 9], dtype=int32)
  """
  if not callable(fn):
    raise TypeError(f"fn must be callable, got {fn!r}")
  if fn_output_signature is None:
    fn_output_signature = dtype
  flat = _as_elems(elems, "map_fn")
  n = _length(flat, "map_fn")
  if fn_output_signature is None:
    # as TF: the elements' dtypes, shapes left to the results (no result: no shape)
    sig = nest.pack_sequence_as(elems, [
        _elem_spec(x) if isinstance(x, CompositeTensor) else TensorSpec(None, x.dtype)
        for x in flat])
  else:
    sig = nest.map_structure(_leaf_spec, fn_output_signature)
  sig_flat = nest.flatten(sig)
  collectors = [_Collector(s, n, infer_shape) for s in sig_flat]
  sizes = [len(c.tas) for c in collectors]

  readers = [_rows(e) for e in flat]

  def body(i, *tas):
    x = nest.pack_sequence_as(elems, [r(i) for r in readers])
    out = fn(x)
    try:
      nest.assert_same_structure(sig, out, check_types=False)
    except (TypeError, ValueError):
      raise ValueError(f"map_fn: the structure of fn's result {out!r} does not match "
                       f"fn_output_signature {sig!r}") from None
    new, pos = [], 0
    for c, k, v in zip(collectors, sizes, nest.flatten(out)):
      new += c.write(list(tas[pos:pos + k]), i, v)
      pos += k
    return [i + 1] + new

  init = [convert_to_tensor(0)] + [ta for c in collectors for ta in c.tas]
  out = while_loop(lambda i, *_: M.less(i, n), body, init,
                   parallel_iterations=parallel_iterations or 10)
  results, pos = [], 1
  for c, k in zip(collectors, sizes):
    results.append(c.result(list(out[pos:pos + k])))
    pos += k
  return nest.pack_sequence_as(sig, results)


def _rows(e):
  """A function of the row index giving that row of `e`."""
  if isinstance(e, CompositeTensor):
    return e._map_fn_rows()
  return e.__getitem__


def _scan(fn, elems, initializer, reverse, collect, fn_name):
  flat = _as_elems(elems, fn_name)
  for e in flat:
    if isinstance(e, CompositeTensor):  # as TF's, which unstacks dense elems only
      raise ValueError(f"tf.{fn_name}: elems must be tensors, got a {type(e).__name__} "
                       f"(tf.map_fn iterates over the rows of composite tensors)")
  n = _length(flat, fn_name)
  readers = [_rows(e) for e in flat]
  if initializer is None:
    nv = constant_value(n)
    if nv is not None and int(nv) == 0:  # the first element is the initial accumulator
      raise OutOfRangeError(None, None, "Tried to read from index 0 but array size is: 0")
    first = M.subtract(n, 1) if reverse else convert_to_tensor(0)
    acc0 = nest.pack_sequence_as(elems, [r(first) for r in readers])
    start, count = (M.subtract(n, 2), M.subtract(n, 1)) if reverse else \
        (convert_to_tensor(1), M.subtract(n, 1))
  else:
    acc0 = nest.map_structure(lambda a: a if isinstance(a, Tensor) else convert_to_tensor(a),
                              initializer)
    start, count = (M.subtract(n, 1) if reverse else convert_to_tensor(0)), n
  acc_flat = nest.flatten(acc0)
  step = -1 if reverse else 1
  tas = [TensorArray(a.dtype, size=n, element_shape=a.shape) for a in acc_flat] if collect \
      else []
  if collect and initializer is None:
    tas = [ta.write(start - step, a) for ta, a in zip(tas, acc_flat)]

  def body(k, i, acc, *tas):
    x = nest.pack_sequence_as(elems, [r(i) for r in readers])
    new = fn(nest.pack_sequence_as(acc0, list(acc)), x)
    try:
      nest.assert_same_structure(acc0, new, check_types=False)
    except (TypeError, ValueError):
      raise ValueError(f"{fn_name}: fn must return a structure like the accumulator "
                       f"{acc0!r}, got {new!r}") from None
    new_flat = [v if isinstance(v, Tensor) else convert_to_tensor(v, a.dtype)
                for v, a in zip(nest.flatten(new), acc_flat)]
    tas = [ta.write(i, v) for ta, v in zip(tas, new_flat)]
    return [k + 1, i + step, new_flat] + tas

  out = while_loop(lambda k, *_: M.less(k, count), body,
                   [convert_to_tensor(0), start, acc_flat] + tas,
                   shape_invariants=None)
  if collect:
    return nest.pack_sequence_as(acc0, [ta.stack() for ta in out[3:]])
  return nest.pack_sequence_as(acc0, list(out[2]))


def scan(fn, elems, initializer=None, parallel_iterations=10, back_prop=True,
         swap_memory=False, infer_shape=True, reverse=False, name=None):
  """Stacks the successive accumulators acc = fn(acc, x) over the elements of `elems`
  (without `initializer`, the first element is the first accumulator)."""
  _check_fn(fn, "scan")
  return _scan(fn, elems, initializer, reverse, True, "scan")


def foldl(fn, elems, initializer=None, parallel_iterations=10, back_prop=True,
          swap_memory=False, name=None):
  """The last accumulator of acc = fn(acc, x) over `elems`, first to last."""
  _check_fn(fn, "foldl")
  return _scan(fn, elems, initializer, False, False, "foldl")


def foldr(fn, elems, initializer=None, parallel_iterations=10, back_prop=True,
          swap_memory=False, name=None):
  """The last accumulator of acc = fn(acc, x) over `elems`, last to first."""
  _check_fn(fn, "foldr")
  return _scan(fn, elems, initializer, True, False, "foldr")


def vectorized_map(fn, elems, fallback_to_while_loop=True, warn=True):
  """fn applied to each element of `elems`, computed for the whole batch at once when
  every op fn uses has a batch rule (ops/batching.py); otherwise a map_fn loop (with a
  warning when `warn`)."""
  from tensorlet.graph import batching
  _check_fn(fn, "vectorized_map")
  flat = _as_elems(elems, "vectorized_map")
  if not any(isinstance(x, CompositeTensor) for x in flat):
    try:
      return batching.vectorize(fn, elems, flat)
    except batching.NoBatchRule as e:
      if not fallback_to_while_loop:
        raise ValueError(f"vectorized_map: {e}; set fallback_to_while_loop=True to loop "
                         f"instead") from None
      if warn:
        warnings.warn(f"vectorized_map: {e}; falling back to a while loop (map_fn)",
                      RuntimeWarning, stacklevel=2)
  return map_fn(fn, elems, fn_output_signature=_probe_signature(fn, elems, flat))


def _probe_signature(fn, elems, flat):
  """fn's output signature, from tracing it on one element's spec."""
  from tensorlet.graph import batching
  return batching.output_signature(fn, elems, [_elem_spec(x) for x in flat])
