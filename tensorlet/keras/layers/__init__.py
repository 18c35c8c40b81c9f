"""tf.keras.layers: the Layer base class and the built-in layers."""
from tensorlet.keras.engine.base_layer import InputSpec, Layer
from tensorlet.keras.engine.input_layer import Input, InputLayer
from tensorlet.keras.layers.convolutional import (Conv1D, Conv2D, Conv3D,  # noqa: F401
                                                  Convolution1D, Convolution2D, Convolution3D)
from tensorlet.keras.layers.conv_transpose import (Conv1DTranspose,  # noqa: F401
                                                   Conv2DTranspose, Conv3DTranspose,
                                                   Convolution1DTranspose,
                                                   Convolution2DTranspose,
                                                   Convolution3DTranspose)
from tensorlet.keras.layers.conv_depthwise import (DepthwiseConv2D,  # noqa: F401
                                                   SeparableConv1D, SeparableConv2D,
                                                   SeparableConvolution1D,
                                                   SeparableConvolution2D)
from tensorlet.keras.layers.reshaping import (Cropping1D, Cropping2D, Permute,  # noqa: F401
                                              RepeatVector, UpSampling1D, UpSampling2D,
                                              ZeroPadding1D, ZeroPadding2D)
from tensorlet.keras.layers.masking import Masking  # noqa: F401
from tensorlet.keras.layers.reshaping import Cropping3D, UpSampling3D, ZeroPadding3D  # noqa: F401
from tensorlet.keras.layers.pooling import (AveragePooling3D, AvgPool3D,  # noqa: F401
                                            GlobalAveragePooling3D, GlobalAvgPool3D,
                                            GlobalMaxPool3D, GlobalMaxPooling3D, MaxPool3D,
                                            MaxPooling3D)
from tensorlet.keras.layers.layer_normalization import (GroupNormalization,  # noqa: F401
                                                        LayerNormalization, UnitNormalization)
from tensorlet.keras.layers.regularization import (ActivityRegularization,  # noqa: F401
                                                   AlphaDropout, GaussianDropout, GaussianNoise,
                                                   SpatialDropout1D, SpatialDropout2D)
from tensorlet.keras.layers.pooling import (AveragePooling1D, AvgPool1D,  # noqa: F401
                                            GlobalAveragePooling1D, GlobalAvgPool1D,
                                            GlobalMaxPool1D, GlobalMaxPooling1D, MaxPool1D,
                                            MaxPooling1D)
from tensorlet.keras.layers.core import Activation, Dense, Dropout, Embedding, Flatten, Reshape
from tensorlet.keras.layers.normalization import BatchNormalization
from tensorlet.keras.layers.merging import (Add, Average, Concatenate, Dot, Maximum,  # noqa: F401
                                            Minimum, Multiply, Subtract, add, average,
                                            concatenate, dot, maximum, minimum, multiply,
                                            subtract)
from tensorlet.keras.layers.activation import (ELU, LeakyReLU, PReLU, ReLU,  # noqa: F401
                                               Softmax, ThresholdedReLU)
from tensorlet.keras.layers.lambda_layer import Lambda  # noqa: F401
from tensorlet.keras.layers.tf_op_layer import SlicingOpLambda, TFOpLambda  # noqa: F401
from tensorlet.keras.layers.attention import AdditiveAttention, Attention, MultiHeadAttention
from tensorlet.keras.layers.recurrent import RNN, StackedRNNCells
from tensorlet.keras.layers.recurrent_cells import (GRU, LSTM, GRUCell, LSTMCell, SimpleRNN,
                                                    SimpleRNNCell)
from tensorlet.keras.layers.recurrent_wrappers import Bidirectional, TimeDistributed
from tensorlet.keras.layers.pooling import (AveragePooling2D, AvgPool2D, GlobalAveragePooling2D,
                                            GlobalAvgPool2D, GlobalMaxPool2D,
                                            GlobalMaxPooling2D, MaxPool2D, MaxPooling2D)
from tensorlet.keras.layers import experimental  # noqa: F401
from tensorlet.keras.layers.preprocessing import (CategoryEncoding, HashedCrossing,  # noqa: F401,E501
                                                  Hashing, IntegerLookup, StringLookup,
                                                  TextVectorization)
from tensorlet.keras.layers.preprocessing.normalization import Normalization  # noqa: F401
from tensorlet.keras.layers.preprocessing.discretization import Discretization  # noqa: F401
from tensorlet.keras.layers.preprocessing.image_preprocessing import (  # noqa: F401
    CenterCrop, RandomBrightness, RandomContrast, RandomCrop, RandomFlip, RandomHeight,
    RandomRotation, RandomTranslation, RandomWidth, RandomZoom, Rescaling, Resizing)



__all__ = ["Layer", "InputSpec", "Input", "InputLayer", "Dense", "Activation", "Dropout",
           "Flatten", "Reshape", "Embedding", "Conv2D", "Convolution2D", "MaxPooling2D",
           "MaxPool2D", "AveragePooling2D", "AvgPool2D", "GlobalAveragePooling2D",
           "GlobalAvgPool2D", "GlobalMaxPooling2D", "GlobalMaxPool2D", "BatchNormalization"]
__all__ += ["RNN", "StackedRNNCells", "SimpleRNN", "LSTM", "GRU", "SimpleRNNCell", "LSTMCell",
            "GRUCell", "Bidirectional", "TimeDistributed", "Attention", "AdditiveAttention",
            "MultiHeadAttention"]


from tensorlet._unsupported import getattr_for as _getattr_for  # noqa: E402
__getattr__ = _getattr_for("tf.keras.layers", __name__)
