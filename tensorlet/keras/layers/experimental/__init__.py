"""tf.keras.layers.experimental: Keras 2's older home of the preprocessing layers."""
from tensorlet.keras.layers import preprocessing  # noqa: F401

from tensorlet._unsupported import getattr_for as _getattr_for  # noqa: E402
__getattr__ = _getattr_for("tf.keras.layers.experimental", __name__)
