"""tf.keras.utils.pad_sequences (also keras.preprocessing.sequence.pad_sequences)."""
import numpy as np

__all__ = ["pad_sequences"]


def pad_sequences(sequences, maxlen=None, dtype="int32", padding="pre", truncating="pre",
                  value=0.0):
  """A (num_samples, maxlen, ...) array of the sequences, cut and padded.

  Args:
    sequences: a list of sequences (lists or arrays; items may be arrays of one shape).
    maxlen: the length of every row (default: the longest sequence).
    dtype: the array's dtype (`object` for variable-length strings).
    padding: 'pre' or 'post': where `value` fills short sequences.
    truncating: 'pre' or 'post': which end of long sequences is cut.
    value: the padding value.
  Raises:
    ValueError: a non-iterable item, items of different shapes, a string `value` for
      a non-string dtype, or an unknown `padding`/`truncating`.
  """
  if not hasattr(sequences, "__len__"):
    raise ValueError("`sequences` must be iterable.")
  num_samples = len(sequences)
  lengths, sample_shape, found = [], (), False
  for x in sequences:
    try:
      lengths.append(len(x))
    except TypeError as e:
      raise ValueError(f"`sequences` must be a list of iterables. Found non-iterable: "
                       f"{str(x)}") from e
    if not found and len(x):
      sample_shape = np.asarray(x).shape[1:]
      found = True
  if maxlen is None:
    maxlen = int(np.max(lengths)) if lengths else 0
  is_str = np.issubdtype(np.dtype(dtype), np.str_) if dtype is not object else False
  if isinstance(value, str) and dtype is not object and not is_str:
    raise ValueError(f"`dtype` {dtype} is not compatible with `value`'s type: {type(value)}\n"
                     f"You should set `dtype=object` for variable length strings.")
  if truncating not in ("pre", "post"):
    raise ValueError(f'Truncating type "{truncating}" not understood')
  if padding not in ("pre", "post"):
    raise ValueError(f'Padding type "{padding}" not understood')
  x = np.full((num_samples, maxlen) + sample_shape, value, dtype=dtype)
  if maxlen == 0:
    return x
  for idx, s in enumerate(sequences):
    if not len(s):
      continue
    trunc = np.asarray(s[-maxlen:] if truncating == "pre" else s[:maxlen], dtype=dtype)
    if trunc.shape[1:] != sample_shape:
      raise ValueError(f"Shape of sample {trunc.shape[1:]} of sequence at position {idx} is "
                       f"different from expected shape {sample_shape}")
    if padding == "post":
      x[idx, :len(trunc)] = trunc
    else:
      x[idx, -len(trunc):] = trunc
  return x
