"""CategoryEncoding: integer ids in [0, num_tokens) as one-hot, multi-hot or count vectors."""
import tensorlet as tf
from tensorlet.keras import backend
from tensorlet.keras.engine.base_layer import Layer
from tensorlet.keras.layers.preprocessing import encoding
from tensorlet.sparse.sparse_tensor import SparseTensor

_MODES = (encoding.COUNT, encoding.ONE_HOT, encoding.MULTI_HOT)


class CategoryEncoding(Layer):
  """Encodes integer features as vectors of length `num_tokens`, as Keras 2's.

  Example:
    >>> layer = tf.keras.layers.CategoryEncoding(num_tokens=4, output_mode="count")
    >>> layer([[0, 1, 1], [3, 3, 2]]).numpy()
    array([[1., 2., 0., 0.],
           [0., 0., 1., 2.]], dtype=float32)
  """

  _tl_convert_inputs = False

  def __init__(self, num_tokens=None, output_mode="multi_hot", sparse=False, **kwargs):
    if "max_tokens" in kwargs:  # the old name
      num_tokens = kwargs.pop("max_tokens")
    if kwargs.get("dtype") is None:
      kwargs["dtype"] = backend.floatx()
    super().__init__(**kwargs)
    if output_mode == "binary":
      output_mode = encoding.MULTI_HOT
    encoding.validate_mode(output_mode, _MODES, "CategoryEncoding")
    if num_tokens is None:
      raise ValueError("num_tokens must be set to use this layer. If the number of tokens is "
                       "not known beforehand, use the IntegerLookup layer instead.")
    if num_tokens < 1:
      raise ValueError(f"`num_tokens` must be >= 1. Received: num_tokens={num_tokens}.")
    self.num_tokens = num_tokens
    self.output_mode = output_mode
    self.sparse = sparse

  def compute_output_shape(self, input_shape):
    return encoding.output_shape(tf.TensorShape(input_shape).as_list(), self.output_mode,
                                 self.num_tokens)

  def get_config(self):
    config = super().get_config()
    config.update({"num_tokens": self.num_tokens, "output_mode": self.output_mode,
                   "sparse": self.sparse})
    return config

  def call(self, inputs, count_weights=None):
    inputs = encoding.ensure_tensor(inputs)
    if count_weights is not None:
      if self.output_mode != encoding.COUNT:
        raise ValueError("`count_weights` is not used when `output_mode` is not `'count'`. "
                         "Received `count_weights={count_weights}`.")
      count_weights = encoding.ensure_tensor(count_weights, self.compute_dtype)
    values = inputs.values if isinstance(inputs, (SparseTensor, tf.RaggedTensor)) else inputs
    depth = self.num_tokens
    in_range = tf.logical_and(
        tf.reduce_all(values < tf.cast(depth, values.dtype)),
        tf.reduce_all(values >= tf.cast(0, values.dtype)))
    # NOTE: a stateful op: traced functions run it in program order without a
    # control dependency.
    tf.debugging.Assert(in_range, [f"Input values must be in the range 0 <= values < "
                                   f"num_tokens with num_tokens={depth}"])
    return encoding.encode_categorical_inputs(
        inputs, output_mode=self.output_mode, depth=depth, dtype=self.compute_dtype,
        sparse=self.sparse, count_weights=count_weights)
