"""tf.keras.layers: the Layer base class and the built-in layers."""
from tensorlet.keras.engine.base_layer import InputSpec, Layer
from tensorlet.keras.engine.input_layer import Input, InputLayer
from tensorlet.keras.layers.convolutional import Conv2D
from tensorlet.keras.layers.core import Activation, Dense, Dropout, Embedding, Flatten, Reshape
from tensorlet.keras.layers.normalization import BatchNormalization
from tensorlet.keras.layers.attention import AdditiveAttention, Attention, MultiHeadAttention
from tensorlet.keras.layers.recurrent import RNN, StackedRNNCells
from tensorlet.keras.layers.recurrent_cells import (GRU, LSTM, GRUCell, LSTMCell, SimpleRNN,
                                                    SimpleRNNCell)
from tensorlet.keras.layers.recurrent_wrappers import Bidirectional, TimeDistributed
from tensorlet.keras.layers.pooling import (AveragePooling2D, AvgPool2D, GlobalAveragePooling2D,
                                            GlobalAvgPool2D, GlobalMaxPool2D,
                                            GlobalMaxPooling2D, MaxPool2D, MaxPooling2D)

Convolution2D = Conv2D

__all__ = ["Layer", "InputSpec", "Input", "InputLayer", "Dense", "Activation", "Dropout",
           "Flatten", "Reshape", "Embedding", "Conv2D", "Convolution2D", "MaxPooling2D",
           "MaxPool2D", "AveragePooling2D", "AvgPool2D", "GlobalAveragePooling2D",
           "GlobalAvgPool2D", "GlobalMaxPooling2D", "GlobalMaxPool2D", "BatchNormalization"]
__all__ += ["RNN", "StackedRNNCells", "SimpleRNN", "LSTM", "GRU", "SimpleRNNCell", "LSTMCell",
            "GRUCell", "Bidirectional", "TimeDistributed", "Attention", "AdditiveAttention",
            "MultiHeadAttention"]
