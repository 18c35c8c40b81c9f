"""Keras 2's preprocessing layers; also tf.keras.layers.experimental.preprocessing."""
from tensorlet.keras.layers.preprocessing.base import PreprocessingLayer  # noqa: F401
from tensorlet.keras.layers.preprocessing.normalization import Normalization  # noqa: F401
from tensorlet.keras.layers.preprocessing.discretization import Discretization  # noqa: F401
from tensorlet.keras.layers.preprocessing.image_preprocessing import (  # noqa: F401
    CenterCrop, RandomContrast, RandomCrop, RandomFlip, RandomHeight, RandomRotation,
    RandomTranslation, RandomWidth, RandomZoom, Rescaling, Resizing)
from tensorlet.keras.layers.preprocessing.category_encoding import CategoryEncoding  # noqa: F401
from tensorlet.keras.layers.preprocessing.hashed_crossing import HashedCrossing  # noqa: F401
from tensorlet.keras.layers.preprocessing.hashing import Hashing  # noqa: F401
from tensorlet.keras.layers.preprocessing.integer_lookup import IntegerLookup  # noqa: F401
from tensorlet.keras.layers.preprocessing.string_lookup import StringLookup  # noqa: F401
from tensorlet.keras.layers.preprocessing.text_vectorization import (  # noqa: F401
    TextVectorization)

from tensorlet._unsupported import getattr_for as _getattr_for  # noqa: E402
__getattr__ = _getattr_for("tf.keras.layers.experimental.preprocessing", __name__)
