"""tf.keras.preprocessing.image: loading images and converting them to arrays."""
from tensorlet.keras.utils.image_utils import (array_to_img, img_to_array,  # noqa: F401
                                               load_img, save_img, smart_resize)

__all__ = ["load_img", "save_img", "img_to_array", "array_to_img", "smart_resize"]
