"""`model.summary()`: Keras 2's table of layers, output shapes and parameter counts."""
import numpy as np

__all__ = ["print_summary", "count_params"]


def _size(w):
  # NOTE: an unknown dimension (a Discretization summary's width) counts as 0, as in Keras.
  return int(np.prod([d or 0 for d in w.shape.as_list()], dtype=np.int64))


def count_params(weights):
  """Scalars in `weights`, each variable counted once."""
  seen, total = set(), 0
  for w in weights:
    if id(w) not in seen:
      seen.add(id(w))
      total += _size(w)
  return total


def _memory(weights):
  seen, total = set(), 0
  for w in weights:
    if id(w) not in seen:
      seen.add(id(w))
      total += _size(w) * w.dtype.size
  return total


def _readable(size):
  units = ["Byte", "KB", "MB", "GB", "TB", "PB"]
  i = 0
  while size >= 1024 and i < len(units) - 1:
    size /= 1024
    i += 1
  return f"{size:.2f} {units[i]}"


def _row(fields, positions, print_fn):
  """One table row; long fields wrap onto further lines as Keras wraps them."""
  left = [str(f) for f in fields]
  while any(left):
    line = ""
    for col, text in enumerate(left):
      start = positions[col - 1] if col else 0
      space = 2 if col != len(positions) - 1 else 0
      cutoff = positions[col] - start - space
      if col != len(positions) - 1:
        cutoff -= 1  # as Keras: one column of room so the next field starts aligned
      fit = text[:cutoff]
      breaks = [fit.find(b) + len(b) for b in ("),", "},", "],", "',") if fit.find(b) >= 0]
      if breaks:
        cutoff = min(breaks)
        fit = fit[:cutoff]
      if col == 0:
        line += " "
      line += fit + " " * space
      left[col] = text[cutoff:]
      line += " " * (positions[col] - len(line))
    print_fn(line)


def _output_shape(layer):
  try:
    return layer.output_shape
  except AttributeError:
    return "multiple"


def _connections(layer, relevant):
  out = []
  for node in layer._inbound_nodes:
    if relevant is not None and id(node) not in relevant:
      continue
    for t in node.keras_inputs:
      src, index, tensor_index = t._keras_history
      out.append(f"{src.name}[{index}][{tensor_index}]")
  return out


def print_summary(model, line_length=None, positions=None, print_fn=None):
  """Prints (or passes to `print_fn` line by line) the model's summary table."""
  print_fn = print_fn or print
  nodes = getattr(model, "_tl_nodes", None)
  sequential_like = nodes is None or getattr(model, "_tl_is_sequential", False) or all(
      len(n.keras_inputs) <= 1 for n in nodes) and all(
      len(layer._inbound_nodes) <= 1 for layer in model.layers)
  if sequential_like:
    line_length = line_length or 65
    positions = positions or [0.45, 0.85, 1.0]
    header = ["Layer (type)", "Output Shape", "Param #"]
  else:
    line_length = line_length or 98
    positions = positions or [0.3, 0.6, 0.70, 1.0]
    header = ["Layer (type)", "Output Shape", "Param #", "Connected to"]
  if positions[-1] <= 1:
    positions = [int(line_length * p) for p in positions]
  relevant = None if nodes is None else {id(n) for n in nodes}
  print_fn(f'Model: "{model.name}"')
  print_fn("_" * line_length)
  _row(header, positions, print_fn)
  print_fn("=" * line_length)
  for layer in model.layers:
    fields = [f"{layer.name} ({type(layer).__name__})", _output_shape(layer),
              layer.count_params() if layer.built else 0]
    if sequential_like:
      _row(fields, positions, print_fn)
    else:
      # Keras 2 prints the list itself, wrapped after each entry.
      _row(fields + [str(_connections(layer, relevant))], positions, print_fn)
    print_fn(" " * line_length)
  print_fn("=" * line_length)
  trainable = model.trainable_weights
  frozen = model.non_trainable_weights
  n_train, n_frozen = count_params(trainable), count_params(frozen)
  m_train, m_frozen = _memory(trainable), _memory(frozen)
  print_fn(f"Total params: {n_train + n_frozen} ({_readable(m_train + m_frozen)})")
  print_fn(f"Trainable params: {n_train} ({_readable(m_train)})")
  print_fn(f"Non-trainable params: {n_frozen} ({_readable(m_frozen)})")
  print_fn("_" * line_length)
