"""Keras 2's Discretization layer: bucket indices of numbers by `bin_boundaries`, or
by `num_bins` quantiles learnt with `adapt` (an epsilon-approximate quantile
summary, merged batch by batch as Keras 2 does)."""
import numpy as np

from tensorlet import dtypes as _dt
from tensorlet.errors import InvalidArgumentError
from tensorlet.keras import backend
from tensorlet.keras.layers.preprocessing.base import PreprocessingLayer
from tensorlet.keras.layers.preprocessing.encoding import (encode_categorical_inputs, listify,
                                                         output_shape)
from tensorlet.ops import array_ops as _a
from tensorlet.ops import math_ops as _m
from tensorlet.ops.sort_ops import searchsorted
from tensorlet.tensor import convert_to_tensor
from tensorlet.tensor_shape import TensorShape

__all__ = ["Discretization"]

_MODES = ("int", "one_hot", "multi_hot", "count")


def summarize(values, epsilon):
  """A [2, n] summary (sorted sample values, weights) of one batch."""
  v = np.sort(np.asarray(values, np.float32).reshape(-1))
  step_f = np.float32(v.size) / np.float32(1.0 / epsilon)
  increment = int(step_f)
  step = max(increment, 1)
  bounds = v[increment::step]
  return np.stack([bounds, np.full(bounds.shape, np.float32(step))]).astype(np.float32)


def compress(summary, epsilon):
  """The summary resampled to about 1 / epsilon points of equal weight."""
  if summary.shape[1] * epsilon < 1:
    return summary
  percents = epsilon + np.arange(0.0, 1.0, epsilon)
  cum = summary[1].cumsum()
  cum_pct = cum / cum[-1]
  bins = np.interp(percents, cum_pct, summary[0])
  cum = np.interp(percents, cum_pct, cum)
  weights = cum - np.concatenate((np.array([0]), cum[:-1]))
  return np.stack((bins, weights)).astype(np.float32)


def merge_summaries(prev, nxt, epsilon):
  merged = np.concatenate((prev, nxt), axis=1)
  merged = merged[:, np.argsort(merged[0], kind="stable")]
  return compress(merged, epsilon)


class Discretization(PreprocessingLayer):
  """Maps numbers to bucket indices: `bin_boundaries` [b0, b1, ...] give buckets
  (-inf, b0), [b0, b1), ..., [bn, inf); or `num_bins` buckets of equal mass learnt
  by `adapt` (to within `epsilon`). `output_mode` encodes the indices as int,
  one_hot, multi_hot or count.

  Example:
    >>> layer = tf.keras.layers.Discretization(bin_boundaries=[0., 1., 2.])
    >>> layer(np.array([[-1.5, 1.0, 3.4, 0.5]])).numpy()
    array([[0, 2, 3, 1]])
  """

  _tl_adapt_eagerly = True

  def __init__(self, bin_boundaries=None, num_bins=None, epsilon=0.01, output_mode="int",
               sparse=False, **kwargs):
    if "bins" in kwargs:  # Keras 2's deprecated argument
      bins = kwargs.pop("bins")
      if isinstance(bins, int) and num_bins is None:
        num_bins = bins
      elif bin_boundaries is None:
        bin_boundaries = bins
    if kwargs.get("dtype") is None:
      kwargs["dtype"] = _dt.int64 if output_mode == "int" else backend.floatx()
    elif output_mode == "int" and not _dt.as_dtype(kwargs["dtype"]).is_integer:
      kwargs["dtype"] = _dt.int64
    super().__init__(**kwargs)
    if output_mode not in _MODES:
      raise ValueError(f"Unknown value for `output_mode`. Allowed values are: {list(_MODES)}. "
                       f"Received: {output_mode}")
    if sparse and output_mode == "int":
      raise ValueError(f"`sparse` may only be true if `output_mode` is `'one_hot'`, "
                       f"`'multi_hot'`, or `'count'`. Received: sparse={sparse} and "
                       f"output_mode={output_mode}")
    if num_bins is not None and num_bins < 0:
      raise ValueError(f"`num_bins` must be greater than or equal to 0. You passed "
                       f"`num_bins={num_bins}`")
    if num_bins is not None and bin_boundaries is not None:
      raise ValueError(f"Both `num_bins` and `bin_boundaries` should not be set. You passed "
                       f"`num_bins={num_bins}` and `bin_boundaries={bin_boundaries}`")
    bin_boundaries = listify(bin_boundaries)
    self.input_bin_boundaries = bin_boundaries
    self.bin_boundaries = bin_boundaries if bin_boundaries is not None else []
    self.num_bins = num_bins
    self.epsilon = epsilon
    self.output_mode = output_mode
    self.sparse = sparse
    self._tl_summary_seen = None

  def build(self, input_shape):
    super().build(input_shape)
    if self.input_bin_boundaries is not None:
      return
    # The quantile summary [values; weights], a weight of unknown width as in Keras 2,
    # so saved models keep what adapt learnt.
    self.summary = self.add_weight(name="summary", shape=(2, None), dtype=_dt.float32,
                                   initializer=lambda shape, dtype: np.zeros((2, 0),
                                                                             np.float32),
                                   trainable=False)

  def update_state(self, data):
    if self.input_bin_boundaries is not None:
      raise ValueError(f"Cannot adapt a Discretization layer that has been initialized with "
                       f"`bin_boundaries`, use `num_bins` instead. You passed "
                       f"`bin_boundaries={self.input_bin_boundaries}`.")
    if not self.built:
      raise RuntimeError("`build` must be called before `update_state`.")
    values = convert_to_tensor(data).numpy()
    self.summary.assign(merge_summaries(summarize(values, self.epsilon), self.summary.numpy(),
                                        self.epsilon))

  def finalize_state(self):
    if self.input_bin_boundaries is not None or not self.built:
      return
    summary = self.summary.numpy()
    self._tl_summary_seen = summary
    if summary.shape[1] == 0:
      self.bin_boundaries = []
      return
    if self.num_bins is None:
      raise ValueError("Discretization needs `num_bins` to be fit by `adapt`.")
    bounds = compress(summary, 1.0 / self.num_bins)[0, :-1]
    self.bin_boundaries = [float(b) for b in bounds]

  def reset_state(self):
    if self.input_bin_boundaries is not None or not self.built:
      return
    self.summary.assign(np.zeros((2, 0), np.float32))

  def call(self, inputs):
    if self.input_bin_boundaries is None and self.built and (
        self._tl_summary_seen is None or
        not np.array_equal(self.summary.numpy(), self._tl_summary_seen)):
      self.finalize_state()  # weights were loaded or set since the last adapt
    from tensorlet.ragged.ragged_tensor import RaggedTensor
    from tensorlet.sparse.sparse_tensor import SparseTensor
    as_int = self.output_mode == "int"
    cast = (lambda v: _m.cast(v, self.compute_dtype)) if as_int else (lambda v: v)
    if isinstance(inputs, RaggedTensor):
      indices = inputs.with_flat_values(cast(self._bucketize(inputs.flat_values)))
      if as_int:
        return indices
    elif isinstance(inputs, SparseTensor):
      indices = SparseTensor(inputs.indices, cast(self._bucketize(inputs.values)),
                             inputs.dense_shape)
      if as_int:
        return indices
    else:
      indices = self._bucketize(convert_to_tensor(inputs))
    return encode_categorical_inputs(indices, self.output_mode, len(self.bin_boundaries) + 1,
                                     self.compute_dtype, self.sparse)

  def _bucketize(self, x):
    """The index of the bucket of each value: how many boundaries are <= it (int32)."""
    if not (x.dtype.is_floating or x.dtype.is_integer):
      raise InvalidArgumentError(None, None, f"Discretization needs numbers to bucketize, "
                                 f"got a {x.dtype.name} tensor [Op:Bucketize]")
    if x.dtype not in (_dt.float32, _dt.float64, _dt.int32, _dt.int64):
      x = _m.cast(x, _dt.float32)
    if not self.bin_boundaries:
      return _a.zeros_like(x, _dt.int32)
    # NOTE: the boundaries are float32, as TF's Bucketize attribute holds them.
    bounds = np.asarray(self.bin_boundaries, np.float32).astype(np.float64).reshape(1, -1)
    flat = _a.reshape(_m.cast(x, _dt.float64), [1, -1])
    out = searchsorted(convert_to_tensor(bounds), flat, side="right")
    dims = x.shape.as_list()
    if None not in dims:
      return _a.reshape(out, dims)
    out = _a.reshape(out, _a.shape(x))
    out.set_shape(x.shape)
    return out

  def compute_output_shape(self, input_shape):
    return output_shape(TensorShape(input_shape).as_list(), self.output_mode,
                        len(self.bin_boundaries) + 1)

  def get_config(self):
    config = super().get_config()
    config.update({"bin_boundaries": self.input_bin_boundaries, "num_bins": self.num_bins,
                   "epsilon": self.epsilon, "output_mode": self.output_mode,
                   "sparse": self.sparse})
    return config
