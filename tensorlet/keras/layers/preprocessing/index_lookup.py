"""IndexLookup: the shared machinery of StringLookup and IntegerLookup (Keras 2's).

Index layout: [mask token (output_mode "int" only)] + [OOV token] * num_oov_indices
+ vocabulary. The vocabulary lives in a (non-trainable, untracked) variable that the
VocabularyLookup op reads, so traced functions see later `adapt`/`set_vocabulary`.
`adapt` counts tokens in Python (and document counts for tf_idf); `finalize_state`
keeps the most frequent (ties: the larger token first, as Keras' lexsort does).
"""
import collections
import os

import numpy as np

import tensorlet as tf
from tensorlet.errors import FailedPreconditionError
from tensorlet.keras import backend
from tensorlet.keras.layers.preprocessing import encoding
from tensorlet.keras.layers.preprocessing.base import PreprocessingLayer
from tensorlet.ops.lookup_ops import vocabulary_lookup
from tensorlet.ragged.ragged_tensor import RaggedTensor
from tensorlet.sparse.sparse_tensor import SparseTensor

INT, ONE_HOT, MULTI_HOT, COUNT, TF_IDF = (encoding.INT, encoding.ONE_HOT, encoding.MULTI_HOT,
                                          encoding.COUNT, encoding.TF_IDF)
_MODES = (INT, ONE_HOT, MULTI_HOT, COUNT, TF_IDF)


def _read_vocabulary_file(path, is_string):
  with open(path, "rb") as f:
    lines = f.read().split(b"\n")
  if lines and lines[-1] == b"":
    lines.pop()
  lines = [ln[:-1] if ln.endswith(b"\r") else ln for ln in lines]
  return np.array(lines, dtype=object) if is_string else np.array([int(x) for x in lines],
                                                                  np.int64)


class IndexLookup(PreprocessingLayer):
  """Maps tokens to indices (or back, with `invert`) through a vocabulary."""

  _tl_adapt_eagerly = True
  _tl_convert_inputs = False

  def __init__(self, max_tokens, num_oov_indices, mask_token, oov_token, vocabulary_dtype,
               vocabulary=None, idf_weights=None, invert=False, output_mode="int",
               sparse=False, pad_to_max_tokens=False, **kwargs):
    if max_tokens is not None and max_tokens <= 1:
      raise ValueError(f"If set, `max_tokens` must be greater than 1. "
                       f"Received: max_tokens={max_tokens}")
    if pad_to_max_tokens and max_tokens is None:
      raise ValueError(f"If pad_to_max_tokens is True, must set `max_tokens`. "
                       f"Received: max_tokens={max_tokens}")
    if num_oov_indices < 0:
      raise ValueError(f"`num_oov_indices` must be greater than or equal to 0. "
                       f"Received: num_oov_indices={num_oov_indices}")
    if output_mode == "binary":
      output_mode = MULTI_HOT
    if output_mode == "tf-idf":
      output_mode = TF_IDF
    encoding.validate_mode(output_mode, _MODES, type(self).__name__)
    if invert and output_mode != INT:
      raise ValueError(f"`output_mode` must be `'int'` when `invert` is true. "
                       f"Received: output_mode={output_mode}")
    if sparse and output_mode == INT:
      raise ValueError(f"`sparse` may only be true if `output_mode` is `'one_hot'`, "
                       f"`'multi_hot'`, `'count'` or `'tf_idf'`. Received: sparse={sparse} "
                       f"and output_mode={output_mode}")
    if idf_weights is not None and output_mode != TF_IDF:
      raise ValueError(f"`idf_weights` should only be set if `output_mode` is `'tf_idf'`. "
                       f"Received: idf_weights={idf_weights} and output_mode={output_mode}")
    self.invert = invert
    self.max_tokens = max_tokens
    self.num_oov_indices = num_oov_indices
    self.mask_token = mask_token
    self.oov_token = oov_token
    self.output_mode = output_mode
    self.sparse = sparse
    self.pad_to_max_tokens = pad_to_max_tokens
    self.vocabulary_dtype = tf.as_dtype(vocabulary_dtype).name
    self._frozen_vocab_size = kwargs.pop("vocabulary_size", None)
    self.input_vocabulary = vocabulary
    self.input_idf_weights = idf_weights
    self._has_input_vocabulary = kwargs.pop("has_input_vocabulary", vocabulary is not None)
    kwargs.pop("has_static_table", None)
    if kwargs.get("dtype") is None:
      kwargs["dtype"] = tf.int64 if output_mode == INT else backend.floatx()
    super().__init__(**kwargs)
    self._tl_autocast = False
    if output_mode == INT and not tf.as_dtype(self.compute_dtype).is_integer:
      raise ValueError(f"When `output_mode='int'`, `dtype` should be an integer type. "
                       f"Received: dtype={kwargs['dtype']}")
    self._vocab_dt = tf.as_dtype(self.vocabulary_dtype)
    self._key_dtype = tf.as_dtype(self.compute_dtype) if invert else self._vocab_dt
    self._value_dtype = self._vocab_dt if invert else \
        (tf.as_dtype(self.compute_dtype) if output_mode == INT else tf.int64)
    if invert:
      self._default_value = oov_token
    else:
      self._default_value = self._oov_start_index() if num_oov_indices == 1 else -1
    # The table: tokens at indices token_start, token_start + 1, ...; it travels with
    # checkpoints and SavedModels (not a Keras weight: `weights` stays as Keras 2's).
    self._tl_table_set = False
    self._tl_tokens = tf.Variable(self._empty_tokens(), shape=tf.TensorShape([None]),
                                  trainable=False, name="vocabulary")
    if output_mode == TF_IDF:
      self.idf_weights = tf.Variable([0] * self._token_start_index(), shape=(None,),
                                     dtype=self.compute_dtype, trainable=False)
    self._tl_counts = collections.Counter()
    self._tl_doc_counts = collections.Counter()
    self._tl_num_documents = 0
    if vocabulary is not None:
      self.set_vocabulary(vocabulary, idf_weights)

  # ---------------------------------------------------------------- helpers
  def _is_string(self):
    return self._vocab_dt == tf.string

  def _empty_tokens(self):
    return np.array([], dtype=object if self._is_string() else self._vocab_dt.as_numpy_dtype)

  def _oov_start_index(self):
    return 1 if self.mask_token is not None and self.output_mode == INT else 0

  def _token_start_index(self):
    return self._oov_start_index() + self.num_oov_indices

  def _as_tokens(self, values):
    """Vocabulary values as a 1-D array of the key type (bytes for strings)."""
    if isinstance(values, tf.Tensor):
      values = values.numpy()
    kind = "strings" if self._is_string() else "integers"
    if not isinstance(values, (list, tuple, np.ndarray)):
      raise TypeError(f"{type(self).__name__}: the vocabulary must be a list, array or tensor "
                      f"of {kind} (or a file path), got {values!r:.80}")
    try:
      if self._is_string():
        flat = np.asarray(values, dtype=object).reshape(-1).tolist()
        if not all(isinstance(v, (str, bytes)) for v in flat):
          raise TypeError
        return np.array([v.encode("utf-8") if isinstance(v, str) else v for v in flat],
                        dtype=object)
      return np.asarray(values).reshape(-1).astype(self._vocab_dt.as_numpy_dtype)
    except (TypeError, ValueError, OverflowError):
      raise TypeError(f"{type(self).__name__}: the vocabulary must hold {kind}, got "
                      f"{values!r:.80}") from None

  def _special(self, token):
    if token is None:
      return None
    return self._as_tokens([token])[0]

  def _token_out(self, value):
    if self._is_string():
      return value.decode("utf-8", "replace") if isinstance(value, bytes) else value
    return value

  # ------------------------------------------------------------ vocabulary
  def vocabulary_size(self):
    """The size of the vocabulary, mask and OOV indices included."""
    n = len(self._tl_tokens.numpy())
    return n + self._token_start_index()

  def vocab_size(self):
    return self.vocabulary_size()

  def get_vocabulary(self, include_special_tokens=True):
    """The vocabulary as a list; with the special tokens, a token's position is its index."""
    # As Keras: table entries as NumPy scalars (np.str_, np.int64), string specials as str.
    table = self._tl_tokens.numpy()
    if self._is_string():
      tokens = [np.str_(self._token_out(t)) for t in table.tolist()]
    else:
      tokens = list(table.astype(np.int64))
    if not include_special_tokens:
      return tokens
    special = (lambda t: t) if self._is_string() else \
        (lambda t: None if t is None else np.int64(t))
    vocab = [special(self.oov_token)] * self._token_start_index() + tokens
    if self.mask_token is not None and self.output_mode == INT:
      vocab[0] = special(self.mask_token)
    return vocab

  def set_vocabulary(self, vocabulary, idf_weights=None):
    """Sets the vocabulary (an array or a path to a one-token-per-line file) and, for
    tf_idf, the inverse document frequency of each token."""
    if self.output_mode == TF_IDF:
      if idf_weights is None:
        raise ValueError("`idf_weights` must be set if output_mode is TF_IDF")
    elif idf_weights is not None:
      raise ValueError(f"`idf_weights` should only be set if output_mode is `'tf_idf'`. "
                       f"Received: output_mode={self.output_mode} and "
                       f"idf_weights={idf_weights}")
    if isinstance(vocabulary, str):
      if not os.path.exists(vocabulary):
        raise ValueError(f"Vocabulary file {vocabulary} does not exist.")
      if self.output_mode == TF_IDF:
        raise ValueError("output_mode `'tf_idf'` does not support loading a vocabulary from "
                         "file.")
      tokens = _read_vocabulary_file(vocabulary, self._is_string())
      self._ensure_vocab_size_unchanged(self._token_start_index() + len(tokens))
      self._set_table(tokens)
      self._record_vocabulary_size()
      return
    if not tf.executing_eagerly() and (isinstance(vocabulary, tf.Tensor) or
                                       isinstance(idf_weights, tf.Tensor)):
      raise RuntimeError(f"Cannot set a tensor vocabulary on {type(self).__name__} layer "
                         f"{self.name} when not executing eagerly. Create this layer or call "
                         f"`set_vocabulary` outside of any `tf.function`s and with eager "
                         f"execution enabled.")
    vocabulary = self._as_tokens(vocabulary)
    if isinstance(idf_weights, tf.Tensor):
      idf_weights = idf_weights.numpy()
    elif isinstance(idf_weights, (list, tuple)):
      idf_weights = np.array(idf_weights)
    if vocabulary.size == 0:
      raise ValueError(f"Cannot set an empty vocabulary, you passed {vocabulary}.")
    oov_start, token_start = self._oov_start_index(), self._token_start_index()
    mask, oov = self._special(self.mask_token), self._special(self.oov_token)
    special = [mask] * oov_start + [oov] * self.num_oov_indices
    found_special = len(vocabulary) >= token_start and \
        vocabulary[:token_start].tolist() == special
    tokens = vocabulary[token_start:] if found_special else vocabulary
    repeated = [t for t, c in collections.Counter(tokens.tolist()).items() if c > 1]
    if repeated:
      raise ValueError(f"The passed vocabulary has at least one repeated term. Please "
                       f"uniquify your dataset. The repeated terms are "
                       f"{[self._token_out(t) for t in repeated]}")
    listed = tokens.tolist()
    if mask is not None and mask in listed:
      raise ValueError(f"Found reserved mask token at unexpected location in `vocabulary`. "
                       f"Note that passed `vocabulary` does not need to include the OOV and "
                       f"mask tokens. Either remove all mask and OOV tokens, or include them "
                       f"only at the start of the vocabulary in precisely this order: "
                       f"{[self._token_out(t) for t in special]}. Received: "
                       f"mask_token={self.mask_token} at vocabulary index "
                       f"{token_start * found_special + listed.index(mask)}")
    if oov is not None and self.invert and oov in listed:
      raise ValueError(f"Found reserved OOV token at unexpected location in `vocabulary`. "
                       f"Note that passed `vocabulary` does not need to include the OOV and "
                       f"mask tokens. Either remove all mask and OOV tokens, or include them "
                       f"only at the start of the vocabulary in precisely this order: "
                       f"{[self._token_out(t) for t in special]}. Received: "
                       f"oov_token={self.oov_token} at vocabulary index "
                       f"{token_start * found_special + listed.index(oov)}")
    new_size = token_start + len(tokens)
    if self.max_tokens is not None and new_size > self.max_tokens:
      raise ValueError(f"Attempted to set a vocabulary larger than the maximum vocab size. "
                       f"Passed vocab size is {new_size}, max vocab size is "
                       f"{self.max_tokens}.")
    if self.output_mode == TF_IDF and idf_weights is not False:
      if len(vocabulary) != len(idf_weights):
        raise ValueError(f"`idf_weights` must be the same length as vocabulary. "
                         f"len(idf_weights) is {len(idf_weights)}, len(vocabulary) is "
                         f"{len(vocabulary)}")
      idf_weights = np.asarray(idf_weights)
      if idf_weights.ndim != 1:
        raise ValueError(f"TF-IDF data must be a 1-index array, but received "
                         f"{type(idf_weights)}")
    # Checked before the table changes: a failed update changes nothing.
    self._ensure_vocab_size_unchanged(new_size)
    self._set_table(tokens)
    self._record_vocabulary_size()
    if self.output_mode == TF_IDF and idf_weights is not False:
      front, front_value = (0, 0.0) if found_special else (token_start,
                                                            np.average(idf_weights))
      back = self.max_tokens - front - len(idf_weights) \
          if self.pad_to_max_tokens and self.max_tokens is not None else 0
      weights = np.pad(idf_weights.astype(np.float64), (front, back), "constant",
                       constant_values=(front_value, 0.0))
      self.idf_weights.assign(weights.astype(tf.as_dtype(self.compute_dtype).as_numpy_dtype))

  def _set_table(self, tokens):
    tokens = np.asarray(tokens, dtype=object if self._is_string()
                        else self._vocab_dt.as_numpy_dtype)
    self._tl_table_set = True
    self._tl_tokens.assign(tokens)

  def _record_vocabulary_size(self):
    self._ensure_vocab_size_unchanged()
    self._frozen_vocab_size = self.vocabulary_size()

  def _ensure_known_vocab_size(self):
    if self.output_mode == INT or self.pad_to_max_tokens:
      return
    if self._frozen_vocab_size is None:
      raise RuntimeError(f"When using `output_mode={self.output_mode}` and "
                         f"`pad_to_max_tokens=False`, you must set the layer's vocabulary "
                         f"before calling it. Either pass a `vocabulary` argument to the layer, "
                         f"or call `adapt` with some sample data.")

  def _ensure_vocab_size_unchanged(self, new_size=None):
    if self.output_mode == INT or self.pad_to_max_tokens:
      return
    new_size = self.vocabulary_size() if new_size is None else new_size
    if self._frozen_vocab_size is not None and new_size != self._frozen_vocab_size:
      raise RuntimeError(f"When using `output_mode={self.output_mode}` and "
                         f"`pad_to_max_tokens=False`, the vocabulary size cannot be changed "
                         f"after the layer is called. Old vocab size is "
                         f"{self._frozen_vocab_size}, new vocab size is {new_size}")

  # ----------------------------------------------------------------- adapt
  def update_state(self, data):
    if self._has_input_vocabulary:
      raise ValueError(f"Cannot adapt {type(self).__name__} layer after setting a static "
                       f"vocabulary via init argument or `set_vocabulary`.")
    data = encoding.ensure_tensor(data, dtype=self._vocab_dt)
    docs = None
    if isinstance(data, SparseTensor):
      flat = data.values.numpy()
    elif isinstance(data, RaggedTensor):
      flat = data.flat_values.numpy()
    else:
      arr = data.numpy()
      flat = arr.reshape(-1)
      docs = arr.reshape(1, -1) if arr.ndim < 2 else arr
    self._tl_counts.update(flat.tolist())
    if self.output_mode == TF_IDF:
      documents = self._documents(data, flat, docs)
      self._tl_num_documents += len(documents)
      for r in documents:
        self._tl_doc_counts.update(set(r.tolist()))

  @staticmethod
  def _documents(data, flat, docs):
    """The tokens of each document (row) of an adapt batch."""
    if isinstance(data, SparseTensor):
      rows = data.indices.numpy()[:, 0]
      return [flat[rows == i] for i in range(int(data.dense_shape.numpy()[0]))]
    if isinstance(data, RaggedTensor):
      splits = [s.numpy() for s in data.nested_row_splits]
      lo, hi = splits[0][:-1], splits[0][1:]
      for inner in splits[1:]:
        lo, hi = inner[lo], inner[hi]
      return [flat[a:b] for a, b in zip(lo.tolist(), hi.tolist())]
    return list(docs)

  def finalize_state(self):
    if self._has_input_vocabulary or not self._tl_counts:
      self._record_vocabulary_size()
      return
    counts = self._tl_counts
    for special in (self.mask_token, self.oov_token):
      if special is not None:
        counts.pop(self._special(special), None)
    ranked = sorted(counts.items(), key=lambda kv: (kv[1], kv[0]), reverse=True)
    if self.max_tokens:
      ranked = ranked[:self.max_tokens - self._token_start_index()]
    tokens = [t for t, _ in ranked]
    self._ensure_vocab_size_unchanged(self._token_start_index() + len(tokens))
    self._set_table(tokens)
    if self.output_mode == TF_IDF:
      docs = np.array([self._tl_doc_counts.get(t, 0) for t in tokens], np.float64)
      dt = tf.as_dtype(self.compute_dtype).as_numpy_dtype
      idf = np.log(1 + self._tl_num_documents / (1 + docs)).astype(dt)
      mean = np.mean(idf, dtype=dt) if idf.size else dt(0)
      idf = np.concatenate([np.full(self._token_start_index(), mean, dt), idf])
      if self.pad_to_max_tokens and self.max_tokens is not None:
        idf = np.pad(idf, (0, self.max_tokens - idf.size))
      self.idf_weights.assign(idf)
    self.reset_state()
    self._record_vocabulary_size()

  def reset_state(self):
    if self._has_input_vocabulary:
      return
    self._tl_counts = collections.Counter()
    self._tl_doc_counts = collections.Counter()
    self._tl_num_documents = 0

  # ------------------------------------------------------------------ call
  def call(self, inputs):
    self._ensure_known_vocab_size()
    inputs = encoding.ensure_tensor(inputs, dtype=self._key_dtype)
    original_rank = inputs.shape.rank
    if original_rank == 0:
      inputs = tf.expand_dims(inputs, -1)
    if isinstance(inputs, SparseTensor):
      lookups = SparseTensor(inputs.indices, self._lookup_dense(inputs.values),
                             inputs.dense_shape)
    elif isinstance(inputs, RaggedTensor):
      lookups = inputs.with_flat_values(self._lookup_dense(inputs.flat_values))
    else:
      lookups = self._lookup_dense(inputs)
    if self.output_mode == INT:
      if original_rank == 0:
        lookups = tf.squeeze(lookups, -1)
      return lookups
    depth = self.max_tokens if self.pad_to_max_tokens else self._frozen_vocab_size
    idf = self.idf_weights if self.output_mode == TF_IDF else None
    return encoding.encode_categorical_inputs(lookups, output_mode=self.output_mode,
                                              depth=depth, dtype=self.compute_dtype,
                                              sparse=self.sparse, idf_weights=idf)

  def _lookup_dense(self, inputs):
    if not self._tl_table_set and tf.executing_eagerly() and \
        not self._tl_tokens.numpy().size:
      # Traced (a model rebuilt before its vocabulary loads), the table is read when run.
      raise FailedPreconditionError(None, None, "Table not initialized.")
    tokens = self._tl_tokens.value()
    if self.invert:
      return self._invert(inputs, tokens)
    lookups = vocabulary_lookup(inputs, tokens, offset=self._token_start_index(),
                                default=self._default_value,
                                strict=self.num_oov_indices == 0)
    if self.mask_token is not None:
      mask_value = 0 if self.output_mode == INT else np.iinfo(np.int64).max
      lookups = tf.where(tf.equal(inputs, tf.constant(self._special(self.mask_token),
                                                      inputs.dtype)),
                         tf.constant(mask_value, tf.int64), lookups)
    if self.num_oov_indices > 1:
      if inputs.dtype.is_integer:
        oov = tf.math.floormod(tf.cast(inputs, tf.int64), self.num_oov_indices)
      else:
        oov = tf.strings.to_hash_bucket_fast(inputs, num_buckets=self.num_oov_indices)
      oov = oov + self._oov_start_index()
      lookups = tf.where(tf.equal(lookups, -1), oov, lookups)
    return tf.cast(lookups, self._value_dtype)

  def _invert(self, ids, tokens):
    ids = tf.cast(ids, tf.int64)
    n = tf.size(tokens, out_type=tf.int64)
    pos = ids - self._token_start_index()
    valid = tf.logical_and(pos >= 0, pos < n)
    oov = tf.constant([self._special(self.oov_token)], self._vocab_dt)
    out = tf.gather(tf.concat([tokens, oov], 0), tf.where(valid, pos, n))
    if self.mask_token is not None:
      out = tf.where(tf.equal(ids, 0), tf.constant(self._special(self.mask_token),
                                                   self._vocab_dt), out)
    return out

  def _tl_checkpoint_children(self):
    return super()._tl_checkpoint_children() + [("_vocabulary", self._tl_tokens)]

  def compute_output_shape(self, input_shape):
    if self.output_mode == INT:
      return tf.TensorShape(input_shape)
    depth = self.max_tokens if self.pad_to_max_tokens else self._frozen_vocab_size
    return tf.TensorShape([tf.TensorShape(input_shape)[0], depth])

  # -------------------------------------------------------------- saving
  def get_config(self):
    config = super().get_config()
    config.update({
        "invert": self.invert, "max_tokens": self.max_tokens,
        "num_oov_indices": self.num_oov_indices, "oov_token": self.oov_token,
        "mask_token": self.mask_token, "output_mode": self.output_mode,
        "sparse": self.sparse, "pad_to_max_tokens": self.pad_to_max_tokens,
        "vocabulary_dtype": self.vocabulary_dtype,
        "idf_weights": encoding.listify(self.input_idf_weights),
        "vocabulary": encoding.listify(self.input_vocabulary),
        "vocabulary_size": self._frozen_vocab_size})
    return config

  def save_own_variables(self, store):
    if self.output_mode == TF_IDF:
      store["idf_weights"] = self.idf_weights.numpy()

  def load_own_variables(self, store):
    if self.output_mode == TF_IDF:
      self.idf_weights.assign(store["idf_weights"])

  def save_assets(self, dir_path):
    if self.input_vocabulary:
      return
    vocabulary = self.get_vocabulary(include_special_tokens=True)
    with open(os.path.join(dir_path, "vocabulary.txt"), "w", encoding="utf-8") as f:
      f.write("\n".join(str(w) for w in vocabulary))

  def load_assets(self, dir_path):
    if self.input_vocabulary:
      return
    with open(os.path.join(dir_path, "vocabulary.txt"), encoding="utf-8") as f:
      lines = f.read().split("\n")
    values = lines if self._is_string() else [int(x) for x in lines]
    if self.output_mode == TF_IDF:
      self.set_vocabulary(values, idf_weights=False)
    else:
      self.set_vocabulary(values)
