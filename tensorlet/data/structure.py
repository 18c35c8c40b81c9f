"""Dataset elements: nested structures of tensors and their TensorSpecs.

tf.data nests only tuples (namedtuples too) and dicts; a Python list is one
value (converted to a tensor), as in TensorFlow. Inside a dataset an element
travels flat: a list of NumPy values, one per component, in `tf.nest` order
(dict keys sorted).
"""
import collections.abc as _abc

import numpy as np

from tensorlet import _nest as nest
from tensorlet import dtypes as _dt
from tensorlet.tensor_shape import TensorShape
from tensorlet.tensor import EagerTensor, Tensor, convert_to_tensor
from tensorlet.tensor_spec import TensorSpec

__all__ = ["normalize", "spec_of", "flatten", "pack", "batch_spec", "unbatch_spec",
           "to_eager", "to_numpy", "compatible_spec", "check_same_structure"]


def _is_structure(x):
  return isinstance(x, (tuple, _abc.Mapping)) and not isinstance(x, (str, bytes))


def normalize(value, what="element"):
  """Converts the leaves of `value` to tensors; tuples and dicts stay structure."""
  if isinstance(value, Tensor) or is_composite_value(value):
    return value
  if isinstance(value, tuple):
    items = [normalize(v, what) for v in value]
    return type(value)(*items) if hasattr(value, "_fields") else tuple(items)
  if isinstance(value, _abc.Mapping):
    return {k: normalize(v, what) for k, v in value.items()}
  if hasattr(value, "_as_tensor"):
    return value._as_tensor()
  # TF raises ValueError for None, ragged lists and unconvertible objects here (from
  # convert_to_tensor); a conversion's TypeError stays a TypeError.
  if value is None:
    raise ValueError(f"tf.data does not support None as a {what} component")
  try:
    return convert_to_tensor(value)
  except (TypeError, ValueError) as e:
    raise type(e)(f"Could not convert the {what} component {value!r} to a tensor: "
                  f"{e}") from None


def flatten(structure):
  return nest.flatten(structure)


def pack(structure, flat):
  return nest.pack_sequence_as(structure, list(flat))


def spec_of(t):
  if is_composite_value(t):
    return t._type_spec
  return TensorSpec(t.shape, t.dtype)


def batch_spec(spec, batch_size):
  if is_composite_spec(spec):
    from tensorlet.data import composite_batching
    return composite_batching.batch_spec(spec, batch_size)
  return TensorSpec(TensorShape([batch_size]).concatenate(spec.shape), spec.dtype)


def unbatch_spec(spec, what="Unbatching"):
  if is_composite_spec(spec):
    from tensorlet.data import composite_batching
    return composite_batching.unbatch_spec(spec, what)
  if spec.shape.rank == 0:
    raise ValueError(f"{what} a tensor is only supported for rank >= 1")
  return TensorSpec(spec.shape[1:], spec.dtype)


def compatible_spec(a, b):
  """The most specific spec both `a` and `b` fit (same dtype required), or None."""
  if a.dtype is not b.dtype:
    return None
  return TensorSpec(a.shape.most_specific_compatible_shape(b.shape), a.dtype)


def check_same_structure(a, b, what):
  try:
    nest.assert_same_structure(a, b, check_types=False)
  except (TypeError, ValueError):
    raise TypeError(f"{what}: {a} vs. {b}") from None


def to_numpy(value, dtype):
  """The NumPy value an element component holds (0-d: NumPy scalar, strings: ndarray)."""
  if dtype is _dt.string:
    return np.asarray(value, dtype=object)
  return value


def _is_dataset_spec(spec):
  from tensorlet.data.dataset import DatasetSpec
  return isinstance(spec, DatasetSpec)


# ----------------------------------------------------- slots and components
#
# An element's flat form has one slot per leaf of its element_spec. A tensor
# slot holds an array, a dataset slot a Variant, and a composite slot (a
# SparseTensor, RaggedTensor, Optional ... whose spec has `_component_specs`,
# `_to_components` and `_from_components`) a tuple of its component arrays.
# Graphs see components: a slot expands to one tensor per component.

def is_composite_spec(spec):
  return not isinstance(spec, TensorSpec) and hasattr(type(spec), "_component_specs") \
      and hasattr(spec, "_from_components")


def is_composite_value(value):
  spec = getattr(value, "_type_spec", None)
  return not isinstance(value, Tensor) and spec is not None and not callable(spec) and \
      is_composite_spec(spec)


def slot_specs(spec):
  """The graph TensorSpecs of one slot of `spec`."""
  if _is_dataset_spec(spec):
    return [TensorSpec([], _dt.variant)]
  if is_composite_spec(spec):
    return list(spec._component_specs)
  return [spec]


def graph_specs(flat_specs):
  """The TensorSpecs of the components of flat slots, in order."""
  return [c for s in flat_specs for c in slot_specs(s)]


def has_components(flat_specs):
  """True if some slot is not one plain tensor (so slots and components differ)."""
  return any(is_composite_spec(s) for s in flat_specs)


def to_components(flat_specs, values):
  """Graph (or eager) values of slots -> their component tensors."""
  out = []
  for s, v in zip(flat_specs, values):
    if _is_dataset_spec(s):
      out.append(v._variant_tensor())
    elif is_composite_spec(s):
      out.extend(s._to_components(v))
    else:
      out.append(v)
  return out


def from_components(flat_specs, tensors):
  """Component tensors -> the values of slots (datasets and composites rebuilt)."""
  from tensorlet.data.dataset import _VariantDataset
  out, pos = [], 0
  for s in flat_specs:
    n = len(slot_specs(s))
    part = list(tensors[pos:pos + n])
    pos += n
    if _is_dataset_spec(s):
      out.append(_VariantDataset(part[0], s.element_spec))
    elif is_composite_spec(s):
      out.append(s._from_components(part))
    else:
      out.append(part[0])
  return out


def expand_slots(flat_specs, values):
  """Run-time slot values -> component values (composite tuples spread out)."""
  out = []
  for s, v in zip(flat_specs, values):
    if is_composite_spec(s):
      out.extend(v)
    else:
      out.append(v)
  return out


def group_slots(flat_specs, components):
  """Run-time component values -> slot values (composites as tuples)."""
  out, pos = [], 0
  for s in flat_specs:
    if is_composite_spec(s):
      n = len(s._component_specs)
      out.append(tuple(components[pos:pos + n]))
      pos += n
    else:
      out.append(components[pos])
      pos += 1
  return out


def check_dense(flat_specs, what):
  """TF's TypeError for transformations (padded_batch) that take only tensor elements."""
  for s in flat_specs:
    if is_composite_spec(s):
      raise TypeError(f"`{what}` is only supported for datasets that produce tensor elements "
                      f"but type spec of elements in the input dataset is not a subclass of "
                      f"TensorSpec: `{s!r}`.")


def to_eager(value, dtype):
  """An EagerTensor from a component value (ndarray or NumPy scalar of `dtype`);
  a dataset component (its `dtype` is a DatasetSpec) is the dataset itself."""
  if not isinstance(dtype, _dt.DType):
    if is_composite_spec(dtype):
      comps = [to_eager(c, cs.dtype) for c, cs in zip(value, dtype._component_specs)]
      return dtype._from_components(comps)
    return value.value
  if isinstance(value, np.ndarray):
    if value.ndim == 0 and dtype is not _dt.string:
      value = value[()]
  elif dtype is _dt.string:
    value = np.asarray(value, dtype=object)
  elif not isinstance(value, np.generic):
    value = np.asarray(value, dtype=dtype._np)[()]
  return EagerTensor(value, dtype)


def flat_dtypes(spec):
  return [s if _is_dataset_spec(s) or is_composite_spec(s) else s.dtype
          for s in flatten(spec)]


def packer(spec):
  """A function from a flat list of components to the element structure of `spec`.

  NOTE: a single tensor and a flat tuple (the usual `(x, y)`) skip tf.nest,
  whose generic packing costs more than the rest of producing a batch.
  """
  if not _is_structure(spec):
    return lambda flat: flat[0]
  if type(spec) is tuple and not any(_is_structure(s) for s in spec):
    return tuple
  return lambda flat: pack(spec, flat)


def eager_element(spec, flat_values, dtypes=None, pack_fn=None):
  """The element structure of EagerTensors for flat component values."""
  dtypes = dtypes or flat_dtypes(spec)
  return (pack_fn or packer(spec))([to_eager(v, d) for v, d in zip(flat_values, dtypes)])


def numpy_element(spec, flat_values, dtypes=None, pack_fn=None):
  """The element structure of NumPy values (as_numpy_iterator: strings as bytes)."""
  out = [v[()] if isinstance(v, np.ndarray) and v.ndim == 0 else v for v in flat_values]
  return (pack_fn or packer(spec))(out)


def describe(spec):
  """Text of an element_spec as TF prints it."""
  return repr(spec)
