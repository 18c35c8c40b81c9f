"""What image_dataset_from_directory and text_dataset_from_directory share, as
Keras 2 does it: class folders indexed in sorted order, a seeded global shuffle of
the file list, the validation split taken from its end, labels as int32,
one-hot or binary float, and batches shuffled per epoch from a buffer."""
import os

import numpy as np

__all__ = ["dataset_from_directory", "check_validation_split_arg", "index_directory",
           "get_training_or_validation_split", "labels_to_arrays"]


def check_validation_split_arg(validation_split, subset, shuffle, seed):
  if validation_split and not 0 < validation_split < 1:
    raise ValueError(f"`validation_split` must be between 0 and 1, received: "
                     f"{validation_split}")
  if (validation_split or subset) and not (validation_split and subset):
    raise ValueError("If `subset` is set, `validation_split` must be set, and inversely.")
  if subset not in ("training", "validation", "both", None):
    raise ValueError(f'`subset` must be either "training", "validation" or "both", '
                     f'received: {subset}')
  if validation_split and shuffle and seed is None:
    raise ValueError("If using `validation_split` and shuffling the data, you must provide a "
                     "`seed` argument, to make sure that there is no overlap between the "
                     "training and validation subset.")


def _valid_files(directory, follow_links, formats):
  for root, _, files in sorted(os.walk(directory, followlinks=follow_links),
                               key=lambda entry: entry[0]):
    for fname in sorted(files):
      if fname.lower().endswith(formats):
        yield root, fname


def index_directory(directory, labels, formats, class_names=None, shuffle=True, seed=None,
                    follow_links=False):
  """(file paths, labels, class names); labels inferred from the class folders unless
  `labels` lists them (one per file, in the sorted order) or is None."""
  if not os.path.isdir(directory):
    raise ValueError(f"Could not find directory {directory}")
  if labels != "inferred":
    subdirs = [""]
    class_names = subdirs
  else:
    subdirs = [d for d in sorted(os.listdir(directory))
               if os.path.isdir(os.path.join(directory, d)) and not d.startswith(".")]
    if not class_names:
      class_names = subdirs
    elif set(class_names) != set(subdirs):
      raise ValueError(f"The `class_names` passed did not match the names of the "
                       f"subdirectories of the target directory. Expected: {subdirs}, but "
                       f"received: {class_names}")
  class_indices = dict(zip(class_names, range(len(class_names))))
  filenames, found = [], []
  for subdir in subdirs:
    path = os.path.join(directory, subdir)
    for root, fname in _valid_files(path, follow_links, formats):
      found.append(class_indices[subdir])
      filenames.append(os.path.join(subdir, os.path.relpath(os.path.join(root, fname), path)))
  if labels not in ("inferred", None):
    if len(labels) != len(filenames):
      raise ValueError(f"Expected the lengths of `labels` to match the number of files in the "
                       f"target directory. len(labels) is {len(labels)} while we found "
                       f"{len(filenames)} files in directory {directory}.")
    class_names = sorted(set(labels))
    labels = np.asarray(labels)
  else:
    labels = np.asarray(found, dtype="int32")
  print(f"Found {len(filenames)} files belonging to {len(class_names)} classes.")
  paths = [os.path.normpath(os.path.join(directory, f)) for f in filenames]
  if shuffle:
    if seed is None:
      seed = np.random.randint(1e6)
    np.random.RandomState(seed).shuffle(paths)
    np.random.RandomState(seed).shuffle(labels)
  return paths, labels, class_names


def get_training_or_validation_split(samples, labels, validation_split, subset):
  if not validation_split:
    return samples, labels
  n = int(validation_split * len(samples))
  if subset == "training":
    print(f"Using {len(samples) - n} files for training.")
    return samples[:-n], (labels[:-n] if labels is not None else None)
  if subset == "validation":
    print(f"Using {n} files for validation.")
    return samples[-n:], (labels[-n:] if labels is not None else None)
  raise ValueError(f'`subset` must be either "training" or "validation", received: {subset}')


def labels_to_arrays(labels, label_mode, num_classes):
  """Labels as Keras' label datasets hold them."""
  labels = np.asarray(labels)
  if label_mode == "binary":
    return labels.astype("float32")[:, None]
  if label_mode == "categorical":
    return np.eye(num_classes, dtype="float32")[labels.astype("int64")]
  return labels.astype("int32") if labels.dtype.kind in "iub" else labels


def _check_labels(labels, label_mode, class_names, kind):
  if labels not in ("inferred", None):
    if not isinstance(labels, (list, tuple)):
      raise ValueError(f"`labels` argument should be a list/tuple of integer labels, of the "
                       f"same size as the number of {kind} files in the target directory. If "
                       f"you wish to infer the labels from the subdirectory names in the "
                       f"target directory, pass `labels=\"inferred\"`. If you wish to get a "
                       f"dataset that only contains {kind}s (no labels), pass `labels=None`. "
                       f"Received: labels={labels}")
    if class_names:
      raise ValueError(f"You can only pass `class_names` if `labels=\"inferred\"`. Received: "
                       f"labels={labels}, and class_names={class_names}")
  if label_mode not in {"int", "categorical", "binary", None}:
    raise ValueError(f'`label_mode` argument must be one of "int", "categorical", "binary", '
                     f'or None. Received: label_mode={label_mode}')


def dataset_from_directory(directory, labels, label_mode, class_names, batch_size, shuffle,
                           seed, validation_split, subset, follow_links, formats, kind,
                           make_dataset):
  """The dataset (or [train, validation] for subset="both") of the files of
  `directory`; `make_dataset(paths, labels or None)` builds the unbatched one."""
  _check_labels(labels, label_mode, class_names, kind)
  if labels is None or label_mode is None:
    labels, label_mode = None, None
  check_validation_split_arg(validation_split, subset, shuffle, seed)
  if seed is None:
    seed = np.random.randint(1e6)
  paths, found, class_names = index_directory(directory, labels, formats, class_names,
                                              shuffle, seed, follow_links)
  if label_mode == "binary" and len(class_names) != 2:
    raise ValueError(f'When passing `label_mode="binary"`, there must be exactly 2 '
                     f'class_names. Received: class_names={class_names}')
  subsets = ["training", "validation"] if subset == "both" else [subset]
  out = []
  for which in subsets:
    part, part_labels = get_training_or_validation_split(paths, found, validation_split,
                                                         which)
    if not part:
      what = {"training": "training ", "validation": "validation "}.get(which, "") \
          if subset == "both" else ""
      raise ValueError(f"No {what}{kind} files found in directory {directory}. Allowed "
                       f"formats: {formats}")
    values = labels_to_arrays(part_labels, label_mode, len(class_names)) \
        if label_mode else None
    dataset = make_dataset(part, values)
    if batch_size is not None:
      if shuffle and which != "validation":
        dataset = dataset.shuffle(buffer_size=batch_size * 8, seed=seed)
      dataset = dataset.batch(batch_size)
    elif shuffle and which != "validation":
      dataset = dataset.shuffle(buffer_size=1024, seed=seed)
    dataset.class_names = class_names
    dataset.file_paths = part
    out.append(dataset)
  return out if subset == "both" else out[0]
