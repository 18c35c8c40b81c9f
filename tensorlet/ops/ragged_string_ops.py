"""String ops whose results are ragged, as kernels over (values, row_splits)."""
import numpy as np

from tensorlet import dtypes as _dt
from tensorlet.errors import InvalidArgumentError
from tensorlet.ops.registry import op
from tensorlet.tensor_shape import TensorShape

__all__ = ["StringNGrams"]


def _ngrams_shape(inputs, attrs):
  return [(TensorShape([None]), _dt.string), (TensorShape([None]), inputs[1].dtype)]


@op("StringNGrams", dtypes=frozenset({_dt.string}), type_inputs=(0,), num_outputs=2,
    shape=_ngrams_shape, differentiable=False)
def StringNGrams(data, data_splits, *, separator, ngram_widths, left_pad, right_pad,
                 pad_width, preserve_short_sequences):
  """The n-grams of each row of `data` (rows given by `data_splits`), joined by
  `separator`; rows are padded with `pad_width` pads each side (-1: width - 1)."""
  splits = np.asarray(data_splits)
  if splits.ndim != 1 or splits.size == 0 or splits[0] != 0 or np.any(np.diff(splits) < 0) \
      or splits[-1] != np.size(data):
    raise InvalidArgumentError(None, None, f"Invalid split values: {splits.tolist()} for "
                               f"{np.size(data)} values [Op:StringNGrams]")
  out, out_splits = [], [0]
  for r in range(splits.size - 1):
    row = list(data[splits[r]:splits[r + 1]])
    for w in ngram_widths:
      pad = w - 1 if pad_width < 0 else pad_width
      toks = [left_pad] * pad + row + [right_pad] * pad
      out.extend(separator.join(toks[i:i + w]) for i in range(len(toks) - w + 1))
    if preserve_short_sequences and row and len(out) == out_splits[-1]:
      w = max(ngram_widths)
      pad = w - 1 if pad_width < 0 else pad_width
      out.append(separator.join([left_pad] * pad + row + [right_pad] * pad))
    out_splits.append(len(out))
  vals = np.empty(len(out), dtype=object)
  vals[:] = out
  return vals, np.asarray(out_splits, splits.dtype)
