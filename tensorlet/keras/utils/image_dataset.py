"""tf.keras.utils.image_dataset_from_directory: a tf.data.Dataset of the images in
class folders (decoded with Pillow, the optional extra `tensorlet[image]`)."""
import numpy as np

from tensorlet.keras.utils import dataset_utils, image_utils

__all__ = ["image_dataset_from_directory", "ALLOWLIST_FORMATS"]

ALLOWLIST_FORMATS = (".bmp", ".gif", ".jpeg", ".jpg", ".png")
_CHANNELS = {"rgb": 3, "rgba": 4, "grayscale": 1}


def image_dataset_from_directory(directory, labels="inferred", label_mode="int",
                                 class_names=None, color_mode="rgb", batch_size=32,
                                 image_size=(256, 256), shuffle=True, seed=None,
                                 validation_split=None, subset=None, interpolation="bilinear",
                                 follow_links=False, crop_to_aspect_ratio=False, **kwargs):
  """Batches of (images float32 (batch, h, w, channels), labels) from
  `directory/<class>/*.png|jpg|...` (labels int32, one-hot float32 with
  label_mode="categorical", float32 (batch, 1) with "binary"); `.class_names` lists
  the classes. `subset="both"` returns [training, validation]."""
  if "smart_resize" in kwargs:
    crop_to_aspect_ratio = kwargs.pop("smart_resize")
  if kwargs:
    raise TypeError(f"Unknown keywords argument(s): {tuple(kwargs.keys())}")
  if color_mode not in _CHANNELS:
    raise ValueError(f'`color_mode` must be one of {{"rgb", "rgba", "grayscale"}}. '
                     f'Received: color_mode={color_mode}')
  if interpolation not in ("bilinear", "nearest"):
    raise NotImplementedError(f"interpolation={interpolation!r} is not implemented by "
                              f"tensorlet; use 'bilinear' or 'nearest'.")
  image_utils.require_pillow()
  size = (int(image_size[0]), int(image_size[1]))
  channels = _CHANNELS[color_mode]

  # As tf.image.resize: nearest-neighbour keeps the decoded uint8 pixels.
  dtype = "uint8" if interpolation == "nearest" else "float32"

  def load(path):
    x = _decode(path, color_mode)
    if crop_to_aspect_ratio:
      x = image_utils.smart_resize(x, size, interpolation)
    else:
      x = image_utils.resize(x, size, interpolation)
    return x.astype(dtype)

  def make(paths, labels):
    return _generator_dataset(paths, labels, load, (size[0], size[1], channels), dtype)
  return dataset_utils.dataset_from_directory(
      directory, labels, label_mode, class_names, batch_size, shuffle, seed,
      validation_split, subset, follow_links, ALLOWLIST_FORMATS, "image", make)


def _decode(path, color_mode):
  """The pixels as uint8 (h, w, channels). NOTE: colour to grayscale is Pillow's
  (ITU-R 601 weights, rounded); TF's PNG decoder can differ by one level."""
  x = np.asarray(image_utils.load_img(path, color_mode=color_mode))
  return x[:, :, None] if x.ndim == 2 else x


def _generator_dataset(paths, labels, load, shape, dtype):
  """A dataset reading each file when iterated (the files are not all held in memory)."""
  from tensorlet import data
  from tensorlet.tensor_spec import TensorSpec
  spec = TensorSpec(shape, dtype)
  if labels is None:
    def gen():
      for p in paths:
        yield load(p)
    return data.Dataset.from_generator(gen, output_signature=spec)
  labels = np.asarray(labels)
  label_spec = TensorSpec(labels.shape[1:], labels.dtype.name)

  def gen_pairs():
    for p, y in zip(paths, labels):
      yield load(p), y
  return data.Dataset.from_generator(gen_pairs, output_signature=(spec, label_spec))
