"""tf.keras.datasets: loaders for standard data sets kept in Keras' cache."""
from tensorlet.keras.datasets import mnist

__all__ = ["mnist"]
