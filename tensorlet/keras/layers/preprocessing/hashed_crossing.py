"""HashedCrossing: the cross of several categorical features hashed into `num_bins`
bins with tf.sparse.cross_hashed, as Keras 2."""
import tensorlet as tf
from tensorlet.keras import backend
from tensorlet.keras.engine.base_layer import Layer
from tensorlet.keras.layers.preprocessing import encoding
from tensorlet.ragged.ragged_tensor import RaggedTensor
from tensorlet.sparse.sparse_tensor import SparseTensor


class HashedCrossing(Layer):
  """Hashes the combination of one value of each input (shape `[]`, `[batch]` or
  `[batch, 1]`; strings or integers) into a bin.

  Example:
    >>> layer = tf.keras.layers.HashedCrossing(num_bins=5)
    >>> layer((tf.constant([1, 2]), tf.constant(["a", "b"]))).numpy()
    array([0, 4])
  """

  _tl_convert_inputs = False

  def __init__(self, num_bins, output_mode="int", sparse=False, **kwargs):
    if kwargs.get("dtype") is None:
      kwargs["dtype"] = tf.int64 if output_mode == encoding.INT else backend.floatx()
    super().__init__(**kwargs)
    self._tl_autocast = False
    if output_mode == encoding.INT and not tf.as_dtype(self.compute_dtype).is_integer:
      raise ValueError(f"When `output_mode='int'`, `dtype` should be an integer type. "
                       f"Received: dtype={kwargs['dtype']}")
    encoding.validate_mode(output_mode, (encoding.INT, encoding.ONE_HOT), type(self).__name__)
    self.num_bins = num_bins
    self.output_mode = output_mode
    self.sparse = sparse

  def call(self, inputs):
    self._check_at_least_two_inputs(inputs)
    inputs = [encoding.ensure_tensor(x) for x in inputs]
    self._check_input_shape_and_type(inputs)
    crossed = tf.sparse.cross_hashed([tf.reshape(x, [-1, 1]) for x in inputs], self.num_bins)
    bins = tf.reshape(crossed.values, tf.shape(inputs[0]))  # one cross per row
    bins.set_shape(inputs[0].shape)
    return encoding.encode_categorical_inputs(bins, output_mode=self.output_mode,
                                              depth=self.num_bins, sparse=self.sparse,
                                              dtype=self.compute_dtype)

  def compute_output_shape(self, input_shapes):
    self._check_at_least_two_inputs(input_shapes)
    return encoding.output_shape(tf.TensorShape(input_shapes[0]).as_list(), self.output_mode,
                                 self.num_bins)

  def get_config(self):
    config = super().get_config()
    config.update({"num_bins": self.num_bins, "output_mode": self.output_mode,
                   "sparse": self.sparse})
    return config

  def _check_at_least_two_inputs(self, inputs):
    if not isinstance(inputs, (list, tuple)):
      raise ValueError(f"`HashedCrossing` should be called on a list or tuple of inputs. "
                       f"Received: inputs={inputs}")
    if len(inputs) < 2:
      raise ValueError(f"`HashedCrossing` should be called on at least two inputs. "
                       f"Received: inputs={inputs}")

  def _check_input_shape_and_type(self, inputs):
    first = inputs[0].shape.as_list()
    rank = len(first)
    if rank > 2 or (rank == 2 and first[-1] != 1):
      raise ValueError(f"All `HashedCrossing` inputs should have shape `[]`, `[batch_size]` "
                       f"or `[batch_size, 1]`. Received: inputs={inputs}")
    if not all(x.shape.as_list() == first for x in inputs[1:]):
      raise ValueError(f"All `HashedCrossing` inputs should have equal shape. "
                       f"Received: inputs={inputs}")
    if any(isinstance(x, (RaggedTensor, SparseTensor)) for x in inputs):
      raise ValueError(f"All `HashedCrossing` inputs should be dense tensors. "
                       f"Received: inputs={inputs}")
    if not all(x.dtype.is_integer or x.dtype == tf.string for x in inputs):
      raise ValueError(f"All `HashedCrossing` inputs should have an integer or string dtype. "
                       f"Received: inputs={inputs}")
