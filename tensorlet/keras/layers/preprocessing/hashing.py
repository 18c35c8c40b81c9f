"""Hashing: values (strings or integers) into `num_bins` bins, bit-exact with Keras 2
(FarmHash64 without a salt, SipHash-2-4 keyed by the salt with one)."""
import tensorlet as tf
from tensorlet.keras import backend
from tensorlet.keras.engine.base_layer import Layer
from tensorlet.keras.layers.preprocessing import encoding
from tensorlet.ragged.ragged_tensor import RaggedTensor
from tensorlet.sparse.sparse_tensor import SparseTensor

_MODES = (encoding.INT, encoding.ONE_HOT, encoding.MULTI_HOT, encoding.COUNT)


class Hashing(Layer):
  """Hashes each value into one of `num_bins` bins (bin 0 reserved for `mask_value`).

  Integers are hashed through their decimal string, as in Keras 2.

  Example:
    >>> layer = tf.keras.layers.Hashing(num_bins=3)
    >>> layer([["A"], ["B"], ["C"], ["D"], ["E"]]).numpy().ravel()
    array([1, 0, 1, 1, 2])
  """

  _tl_convert_inputs = False

  def __init__(self, num_bins, mask_value=None, salt=None, output_mode="int", sparse=False,
               **kwargs):
    if num_bins is None or num_bins <= 0:
      raise ValueError(f"The `num_bins` for `Hashing` cannot be `None` or non-positive values. "
                       f"Received: num_bins={num_bins}.")
    if kwargs.get("dtype") is None:
      kwargs["dtype"] = tf.int64 if output_mode == encoding.INT else backend.floatx()
    elif output_mode == encoding.INT and not tf.as_dtype(kwargs["dtype"]).is_integer:
      kwargs["dtype"] = tf.int64
    super().__init__(**kwargs)
    self._tl_autocast = False
    encoding.validate_mode(output_mode, _MODES, type(self).__name__)
    if sparse and output_mode == encoding.INT:
      raise ValueError(f'`sparse` may only be true if `output_mode` is `"one_hot"`, '
                       f'`"multi_hot"`, or `"count"`. Received: sparse={sparse} and '
                       f'output_mode={output_mode}')
    self.num_bins = num_bins
    self.mask_value = mask_value
    self.strong_hash = salt is not None
    self.output_mode = output_mode
    self.sparse = sparse
    self.salt = None
    if salt is not None:
      if isinstance(salt, (tuple, list)) and len(salt) == 2:
        self.salt = list(salt)
      elif isinstance(salt, int) and not isinstance(salt, bool):
        self.salt = [salt, salt]
      else:
        raise ValueError(f"The `salt` argument for `Hashing` can only be a tuple of size 2 "
                         f"integers, or a single integer. Received: salt={salt}.")

  def call(self, inputs):
    inputs = encoding.ensure_tensor(inputs)
    if isinstance(inputs, SparseTensor):
      bins = SparseTensor(inputs.indices, self._hash_values_to_bins(inputs.values),
                          inputs.dense_shape)
    elif isinstance(inputs, RaggedTensor):
      bins = inputs.with_flat_values(self._hash_values_to_bins(inputs.flat_values))
    else:
      bins = self._hash_values_to_bins(inputs)
    return encoding.encode_categorical_inputs(bins, output_mode=self.output_mode,
                                              depth=self.num_bins, sparse=self.sparse,
                                              dtype=self.compute_dtype)

  def _hash_values_to_bins(self, values):
    bins = self.num_bins
    mask = None
    if self.mask_value is not None and bins > 1:
      bins -= 1
      mask = tf.equal(values, tf.constant(self.mask_value, values.dtype))
    if values.dtype.is_integer:
      values = tf.strings.as_string(values)
    if self.strong_hash:
      values = tf.strings.to_hash_bucket_strong(values, bins, key=self.salt)
    else:
      values = tf.strings.to_hash_bucket_fast(values, bins)
    if mask is not None:
      values = tf.where(mask, tf.zeros_like(values), values + 1)
    return values

  def compute_output_shape(self, input_shape):
    return tf.TensorShape(input_shape) if self.output_mode == encoding.INT else \
        encoding.output_shape(tf.TensorShape(input_shape).as_list(), self.output_mode,
                              self.num_bins)

  def get_config(self):
    config = super().get_config()
    config.update({"num_bins": self.num_bins, "salt": self.salt, "mask_value": self.mask_value,
                   "output_mode": self.output_mode, "sparse": self.sparse})
    return config
