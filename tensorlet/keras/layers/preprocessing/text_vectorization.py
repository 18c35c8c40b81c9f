"""TextVectorization: strings -> standardized -> split -> n-grams -> vocabulary indices
or bag-of-words vectors (Keras 2's), on the tf.strings ops and a StringLookup."""
import numpy as np

import tensorlet as tf
from tensorlet.keras.layers.preprocessing import encoding
from tensorlet.keras.layers.preprocessing.base import PreprocessingLayer
from tensorlet.keras.layers.preprocessing.string_lookup import StringLookup
from tensorlet.ragged.ragged_tensor import RaggedTensor

LOWER_AND_STRIP_PUNCTUATION = "lower_and_strip_punctuation"
STRIP_PUNCTUATION = "strip_punctuation"
LOWER = "lower"
WHITESPACE = "whitespace"
CHARACTER = "character"
INT, MULTI_HOT, COUNT, TF_IDF = encoding.INT, encoding.MULTI_HOT, encoding.COUNT, \
    encoding.TF_IDF
# ASCII punctuation, as Keras strips it.
DEFAULT_STRIP_REGEX = r'[!"#$%&()\*\+,-\./:;<=>?@\[\\\]^_`{|}~\']'


def _check_choice(value, allowed, arg_name, allow_callables=True):
  encoding.validate_mode(value, allowed, "TextVectorization", arg_name, allow_none=True,
                         allow_callables=allow_callables)


def _serialize_callable(fn):
  # A custom standardize/split function is saved by its registered name.
  if callable(fn):
    from tensorlet.keras.saving.serialization_lib import serialize_keras_object
    return serialize_keras_object(fn)
  return fn


class TextVectorization(PreprocessingLayer):
  """Turns strings into sequences of token indices or into token-count vectors.

  Example:
    >>> layer = tf.keras.layers.TextVectorization(output_sequence_length=4)
    >>> layer.adapt(["The cat sat.", "The dog!"])
    >>> layer.get_vocabulary()
    ['', '[UNK]', 'the', 'sat', 'dog', 'cat']
    >>> layer(["the cat ran"]).numpy()
    array([[2, 5, 1, 0]])
  """

  _tl_adapt_eagerly = True
  _tl_convert_inputs = False

  def __init__(self, max_tokens=None, standardize=LOWER_AND_STRIP_PUNCTUATION,
               split=WHITESPACE, ngrams=None, output_mode=INT, output_sequence_length=None,
               pad_to_max_tokens=False, vocabulary=None, idf_weights=None, sparse=False,
               ragged=False, encoding="utf-8", **kwargs):
    if "dtype" in kwargs and kwargs["dtype"] not in (tf.string, "string", None):
      raise ValueError(f"`TextVectorization` may only have a dtype of string. Received dtype: "
                       f"{kwargs['dtype']}.")
    kwargs["dtype"] = tf.string
    _check_choice(standardize, (LOWER_AND_STRIP_PUNCTUATION, LOWER, STRIP_PUNCTUATION),
                  "standardize")
    _check_choice(split, (WHITESPACE, CHARACTER), "split")
    if output_mode == "binary":
      output_mode = MULTI_HOT
    if output_mode == "tf-idf":
      output_mode = TF_IDF
    _check_choice(output_mode, (INT, COUNT, MULTI_HOT, TF_IDF), "output_mode",
                  allow_callables=False)
    if not (ngrams is None or (isinstance(ngrams, int) and ngrams < 2 ** 31) or
            (isinstance(ngrams, tuple) and all(isinstance(i, int) for i in ngrams))):
      raise ValueError(f"`ngrams` must be None, an integer, or a tuple of integers. "
                       f"Received: ngrams={ngrams}")
    if output_mode == INT and not (isinstance(output_sequence_length, int) or
                                   output_sequence_length is None):
      raise ValueError(f"`output_sequence_length` must be either None or an integer when "
                       f"`output_mode` is 'int'. Received: "
                       f"output_sequence_length={output_sequence_length}")
    if output_mode != INT and output_sequence_length is not None:
      raise ValueError(f"`output_sequence_length` must not be set if `output_mode` is not "
                       f"'int'. Received output_sequence_length={output_sequence_length}.")
    if ragged and output_mode != INT:
      raise ValueError(f"`ragged` must not be true if `output_mode` is `'int'`. Received: "
                       f"ragged={ragged} and output_mode={output_mode}")
    if ragged and output_sequence_length is not None:
      raise ValueError(f"`output_sequence_length` must not be set if ragged is True. "
                       f"Received: ragged={ragged} and "
                       f"output_sequence_length={output_sequence_length}")
    self._max_tokens = max_tokens
    self._standardize = standardize
    self._split = split
    self._ngrams_arg = ngrams
    self._ngrams = tuple(range(1, ngrams + 1)) if isinstance(ngrams, int) else ngrams
    self._ragged = ragged
    self._output_mode = output_mode
    self._output_sequence_length = output_sequence_length
    self._encoding = encoding
    self._has_input_vocabulary = kwargs.pop("has_input_vocabulary", vocabulary is not None)
    vocabulary_size = kwargs.pop("vocabulary_size", None)
    super().__init__(**kwargs)
    self._tl_autocast = False
    self._lookup_layer = StringLookup(
        max_tokens=max_tokens, vocabulary=vocabulary, idf_weights=idf_weights,
        pad_to_max_tokens=pad_to_max_tokens, mask_token="",
        output_mode=output_mode if output_mode is not None else INT, sparse=sparse,
        has_input_vocabulary=self._has_input_vocabulary, encoding=encoding,
        vocabulary_size=vocabulary_size)

  def compute_output_shape(self, input_shape):
    input_shape = tuple(tf.TensorShape(input_shape).as_list())
    if self._output_mode == INT:
      return tf.TensorShape([input_shape[0], self._output_sequence_length])
    if self._split is None:
      if len(input_shape) <= 1:
        input_shape = input_shape + (1,)
    else:
      input_shape = input_shape + (None,)
    return self._lookup_layer.compute_output_shape(input_shape)

  # ------------------------------------------------------------ vocabulary
  def update_state(self, data):
    self._lookup_layer.update_state(self._preprocess(data))

  def finalize_state(self):
    self._lookup_layer.finalize_state()

  def reset_state(self):
    self._lookup_layer.reset_state()

  def get_vocabulary(self, include_special_tokens=True):
    """The vocabulary, '' (the mask) and '[UNK]' first unless left out."""
    return self._lookup_layer.get_vocabulary(include_special_tokens)

  def vocabulary_size(self):
    return self._lookup_layer.vocabulary_size()

  def set_vocabulary(self, vocabulary, idf_weights=None):
    self._lookup_layer.set_vocabulary(vocabulary, idf_weights=idf_weights)

  # ------------------------------------------------------------------ call
  def _preprocess(self, inputs):
    inputs = encoding.ensure_tensor(inputs, dtype=tf.string)
    if self._standardize in (LOWER, LOWER_AND_STRIP_PUNCTUATION):
      inputs = tf.strings.lower(inputs)
    if self._standardize in (STRIP_PUNCTUATION, LOWER_AND_STRIP_PUNCTUATION):
      inputs = tf.strings.regex_replace(inputs, DEFAULT_STRIP_REGEX, "")
    if callable(self._standardize):
      inputs = self._standardize(inputs)
    if self._split is not None:
      # Squeeze before splitting: cheaper on the dense tensor than on the ragged result.
      if inputs.shape.rank > 1:
        if inputs.shape[-1] != 1:
          raise ValueError(f"When using `TextVectorization` to tokenize strings, the input "
                           f"rank must be 1 or the last shape dimension must be 1. Received: "
                           f"inputs.shape={inputs.shape} with rank={inputs.shape.rank}")
        inputs = tf.squeeze(inputs, axis=-1)
      if self._split == WHITESPACE:
        inputs = tf.strings.split(inputs)
      elif self._split == CHARACTER:
        inputs = tf.strings.unicode_split(inputs, "UTF-8")
      else:
        inputs = self._split(inputs)
    if self._ngrams is not None:
      inputs = tf.strings.ngrams(inputs, ngram_width=self._ngrams, separator=" ")
    return inputs

  def call(self, inputs):
    if isinstance(inputs, (list, tuple, np.ndarray)):
      inputs = tf.convert_to_tensor(inputs)
    inputs = self._preprocess(inputs)
    if self._output_mode is None:
      return inputs
    lookup_data = self._lookup_layer(inputs)
    if self._output_mode != INT or self._ragged:
      return lookup_data
    length = self._output_sequence_length
    rank = lookup_data.shape.rank
    if isinstance(lookup_data, RaggedTensor):
      # Padded to the longest row, then cut or padded to `output_sequence_length`.
      lookup_data = lookup_data.to_tensor(default_value=0)
      lookup_data.set_shape([None] * rank)
    if length is not None:
      lookup_data = lookup_data[(slice(None),) * (rank - 1) + (slice(None, length),)]
      shape = tf.shape(lookup_data)
      # Zeros up to `length` (the padding is only known when the function runs).
      zeros = tf.zeros(tf.concat([shape[:-1], [length - shape[-1]]], 0), lookup_data.dtype)
      lookup_data = tf.concat([lookup_data, zeros], -1)
      lookup_data.set_shape([None] * (rank - 1) + [length])
    return lookup_data

  # ------------------------------------------------------------- saving
  def get_config(self):
    config = super().get_config()
    config.update({
        "max_tokens": self._lookup_layer.max_tokens,
        "standardize": _serialize_callable(self._standardize),
        "split": _serialize_callable(self._split), "ngrams": self._ngrams_arg, "output_mode": self._output_mode,
        "output_sequence_length": self._output_sequence_length,
        "pad_to_max_tokens": self._lookup_layer.pad_to_max_tokens,
        "sparse": self._lookup_layer.sparse, "ragged": self._ragged,
        "vocabulary": encoding.listify(self._lookup_layer.input_vocabulary),
        "idf_weights": encoding.listify(self._lookup_layer.input_idf_weights),
        "encoding": self._encoding, "vocabulary_size": self.vocabulary_size()})
    return config

  @classmethod
  def from_config(cls, config):
    from tensorlet.keras.saving.serialization_lib import deserialize_keras_object
    config = dict(config)
    for key in ("standardize", "split"):
      if isinstance(config.get(key), dict):
        config[key] = deserialize_keras_object(config[key])
    if isinstance(config.get("ngrams"), list):
      config["ngrams"] = tuple(config["ngrams"])
    return cls(**config)

  def save_own_variables(self, store):
    self._lookup_layer.save_own_variables(store)

  def load_own_variables(self, store):
    self._lookup_layer.load_own_variables(store)

  def save_assets(self, dir_path):
    self._lookup_layer.save_assets(dir_path)

  def load_assets(self, dir_path):
    self._lookup_layer.load_assets(dir_path)
