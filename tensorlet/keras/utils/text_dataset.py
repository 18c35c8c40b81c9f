"""tf.keras.utils.text_dataset_from_directory: a tf.data.Dataset of the `.txt` files
in class folders, as string tensors."""
from tensorlet.keras.utils import dataset_utils
from tensorlet.keras.utils.image_dataset import _generator_dataset

__all__ = ["text_dataset_from_directory"]


def text_dataset_from_directory(directory, labels="inferred", label_mode="int",
                                class_names=None, batch_size=32, max_length=None, shuffle=True,
                                seed=None, validation_split=None, subset=None,
                                follow_links=False):
  """Batches of (texts (string tensors of the file bytes, cut to `max_length` bytes),
  labels) from `directory/<class>/*.txt`; `.class_names` lists the classes."""
  def load(path):
    with open(path, "rb") as f:
      text = f.read()
    return text[:max_length] if max_length is not None else text

  def make(paths, labels):
    return _generator_dataset(paths, labels, load, (), "string")
  return dataset_utils.dataset_from_directory(
      directory, labels, label_mode, class_names, batch_size, shuffle, seed,
      validation_split, subset, follow_links, (".txt",), "text", make)
