"""IntegerLookup: integer values to contiguous indices through a vocabulary (Keras 2's)."""
from tensorlet.ops._common import as_int
import tensorlet as tf
from tensorlet.keras.layers.preprocessing.index_lookup import IndexLookup


class IntegerLookup(IndexLookup):
  """Maps integers to indices: 0 for the mask token (when set), then the OOV indices
  (values hashed by `value % num_oov_indices` when there are several), then the
  vocabulary; `invert=True` maps indices back to values.

  Example:
    >>> layer = tf.keras.layers.IntegerLookup(vocabulary=[12, 36, 1138, 42])
    >>> layer([[12, 1138, 42], [42, 1000, 36]]).numpy()
    array([[1, 3, 4],
           [4, 0, 2]])
  """

  def __init__(self, max_tokens=None, num_oov_indices=1, mask_token=None, oov_token=-1,
               vocabulary=None, vocabulary_dtype="int64", idf_weights=None, invert=False,
               output_mode="int", sparse=False, pad_to_max_tokens=False, **kwargs):
    if not tf.as_dtype(vocabulary_dtype).is_integer:
      raise ValueError(f"`vocabulary_dtype` must be an integer dtype. "
                       f"Received: {vocabulary_dtype}")
    if output_mode != "int" and kwargs.get("dtype") in (tf.int64, "int64"):
      del kwargs["dtype"]
    # Keras 1-era names.
    max_tokens = kwargs.pop("max_values", max_tokens)
    mask_token = kwargs.pop("mask_value", mask_token)
    oov_token = kwargs.pop("oov_value", oov_token)
    if max_tokens is not None and max_tokens <= 1:
      raise ValueError(f"If `max_tokens` is set for `IntegerLookup`, it must be greater than "
                       f"1. Received: max_tokens={max_tokens}.")
    if num_oov_indices < 0:
      raise ValueError(f"The value of `num_oov_indices` argument for `IntegerLookup` must >= "
                       f"0. Received num_oov_indices={num_oov_indices}.")
    mask_token = None if mask_token is None else as_int(mask_token, "IntegerLookup", "mask_token")
    oov_token = None if oov_token is None else as_int(oov_token, "IntegerLookup", "oov_token")
    super().__init__(max_tokens=max_tokens, num_oov_indices=num_oov_indices,
                     mask_token=mask_token, oov_token=oov_token, vocabulary=vocabulary,
                     vocabulary_dtype=vocabulary_dtype, idf_weights=idf_weights, invert=invert,
                     output_mode=output_mode, sparse=sparse,
                     pad_to_max_tokens=pad_to_max_tokens, **kwargs)
