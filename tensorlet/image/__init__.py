"""tf.image: resizing, crops, flips, colour, quality measures, boxes, codecs."""
from tensorlet.image.boxes import (  # noqa: F401
    crop_and_resize, draw_bounding_boxes, non_max_suppression, non_max_suppression_padded,
    non_max_suppression_with_scores)
from tensorlet.image.codecs import (  # noqa: F401
    adjust_jpeg_quality, combined_non_max_suppression, decode_and_crop_jpeg, decode_bmp,
    decode_gif, decode_image, decode_jpeg, decode_png, encode_jpeg, encode_png, extract_glimpse,
    extract_jpeg_shape, generate_bounding_box_proposals, is_jpeg, random_jpeg_quality,
    sample_distorted_bounding_box, stateless_random_jpeg_quality,
    stateless_sample_distorted_bounding_box)
from tensorlet.image.color import (  # noqa: F401
    adjust_brightness, adjust_contrast, adjust_gamma, adjust_hue, adjust_saturation,
    convert_image_dtype, grayscale_to_rgb, hsv_to_rgb, per_image_standardization,
    random_brightness, random_contrast, random_hue, random_saturation, rgb_to_grayscale,
    rgb_to_hsv, rgb_to_yiq, rgb_to_yuv, stateless_random_brightness, stateless_random_contrast,
    stateless_random_hue, stateless_random_saturation, yiq_to_rgb, yuv_to_rgb)
from tensorlet.image.quality import (  # noqa: F401
    image_gradients, psnr, sobel_edges, ssim, ssim_multiscale, total_variation)
from tensorlet.image.resizing import (  # noqa: F401
    ResizeMethod, central_crop, crop_to_bounding_box, extract_patches, flip_left_right,
    flip_up_down, pad_to_bounding_box, random_crop, random_flip_left_right,
    random_flip_up_down, resize, resize_with_crop_or_pad, resize_with_pad, rot90,
    stateless_random_crop, stateless_random_flip_left_right, stateless_random_flip_up_down,
    transpose)


from tensorlet._unsupported import getattr_for as _getattr_for  # noqa: E402
__getattr__ = _getattr_for("tf.image", __name__)
