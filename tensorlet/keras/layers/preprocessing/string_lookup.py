"""StringLookup: strings to integer indices through a vocabulary (Keras 2's)."""
import tensorlet as tf
from tensorlet.keras.layers.preprocessing.index_lookup import IndexLookup


class StringLookup(IndexLookup):
  """Maps strings to indices: 0 for the mask token (when set), then the OOV indices,
  then the vocabulary; `invert=True` maps indices back to strings.

  Example:
    >>> layer = tf.keras.layers.StringLookup(vocabulary=["a", "b", "c", "d"])
    >>> layer([["a", "c", "d"], ["d", "z", "b"]]).numpy()
    array([[1, 3, 4],
           [4, 0, 2]])
  """

  def __init__(self, max_tokens=None, num_oov_indices=1, mask_token=None, oov_token="[UNK]",
               vocabulary=None, idf_weights=None, encoding="utf-8", invert=False,
               output_mode="int", sparse=False, pad_to_max_tokens=False, **kwargs):
    if kwargs.get("dtype") in (tf.string, "string"):
      del kwargs["dtype"]
    kwargs.pop("vocabulary_dtype", None)
    self.encoding = encoding
    super().__init__(max_tokens=max_tokens, num_oov_indices=num_oov_indices,
                     mask_token=mask_token, oov_token=oov_token, vocabulary=vocabulary,
                     vocabulary_dtype=tf.string, idf_weights=idf_weights, invert=invert,
                     output_mode=output_mode, sparse=sparse,
                     pad_to_max_tokens=pad_to_max_tokens, **kwargs)

  def get_config(self):
    config = super().get_config()
    del config["vocabulary_dtype"]
    config["encoding"] = self.encoding
    return config
