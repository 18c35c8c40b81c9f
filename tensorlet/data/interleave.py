"""Dataset.interleave: TensorFlow's interleave order over the datasets a
function makes from each input element (also the order TFRecordDataset's
`num_parallel_reads` gives)."""
import os

from tensorlet.data.dataset import AUTOTUNE, UNKNOWN_CARDINALITY, DatasetV2, _int64
from tensorlet.data.function import StructuredFunction
from tensorlet.errors import InvalidArgumentError

__all__ = ["interleave_iters", "_InterleaveDataset"]


def interleave_iters(inputs, make_iter, cycle_length, block_length, parallel=False):
  """TensorFlow's interleave order over the iterators `make_iter(x)` of `inputs`.

  Up to `cycle_length` iterators are open; each gives `block_length` elements
  in turn. An exhausted slot moves on to the next slot and is refilled from
  `inputs` when the cycle comes back to it. With `parallel`, each open
  iterator runs ahead in its own thread (the order stays the same).
  """
  if parallel:
    from tensorlet.data import threads
    make_one = make_iter

    def make_iter(x):
      return threads.prefetched(lambda: make_one(x), 2 * block_length)
  inputs = iter(inputs)
  slots = [None] * cycle_length
  cycle = block = 0
  open_ = 0
  end_of_input = False
  while not end_of_input or open_:
    it = slots[cycle]
    if it is not None:
      x = next(it, _END)
      if x is not _END:
        block += 1
        if block == block_length:
          block, cycle = 0, (cycle + 1) % cycle_length
        yield x
        continue
      slots[cycle] = None
      open_ -= 1
      block, cycle = 0, (cycle + 1) % cycle_length
    elif not end_of_input:
      x = next(inputs, _END)
      if x is _END:
        end_of_input = True
      else:
        slots[cycle] = iter(make_iter(x))
        open_ += 1
    else:
      block, cycle = 0, (cycle + 1) % cycle_length


_END = object()


def _positive(value, name, op_name):
  if value is not None and not hasattr(value, "dtype") and value != AUTOTUNE and value <= 0:
    raise InvalidArgumentError(None, None, f"{name} must be greater than zero. "
                               f"[Op:{op_name}]")


class _InterleaveDataset(DatasetV2):
  """Elements of `map_func(x)` for each input x, `cycle_length` datasets at a
  time, `block_length` elements from each in turn.

  With num_parallel_calls each open dataset is read ahead in its own thread;
  the order is the same (deterministic=False does not reorder).
  """

  _op_name = "InterleaveDataset"

  def __init__(self, input_ds, map_func, cycle_length, block_length, num_parallel_calls,
               deterministic):
    op_name = "InterleaveDataset" if num_parallel_calls is None else \
        "ParallelInterleaveDatasetV4"
    self._parallel = num_parallel_calls is not None
    if self._parallel:
      self._repr_name = "_ParallelInterleaveDataset"
    _positive(cycle_length, "cycle_length", op_name)
    _positive(block_length, "block_length", op_name)
    _positive(num_parallel_calls, "num_parallel_calls", op_name)
    self._fn = StructuredFunction(map_func, input_ds.element_spec, "Dataset.interleave")
    out = self._fn.structure
    if not isinstance(out, DatasetV2):
      raise TypeError(f"The `map_func` argument must return a `Dataset` object. Got "
                      f"{type(out)}.")
    cycle = _int64(AUTOTUNE if cycle_length is None else cycle_length, "cycle_length")
    block = _int64(1 if block_length is None else block_length, "block_length")
    self._setup([input_ds], [cycle, block] + self._fn.captures, out.element_spec)

  def _validate(self):
    cycle, block = (int(v) for v in self._values[:2])
    if cycle != AUTOTUNE and cycle <= 0:
      raise InvalidArgumentError(None, None, "cycle_length must be greater than zero. "
                                 "[Op:InterleaveDataset]")
    if block <= 0:
      raise InvalidArgumentError(None, None, "block_length must be greater than zero. "
                                 "[Op:InterleaveDataset]")

  def _flat_iter(self):
    cycle, block = (int(v) for v in self._values[:2])
    if cycle == AUTOTUNE:
      cycle = os.cpu_count() or 1
    call, caps = self._fn.callable, self._values[2:]
    return interleave_iters(self._inputs[0]._flat_iter(),
                            lambda e: call(*e, *caps)[0].value._flat_iter(), cycle, block,
                            parallel=self._parallel)

  def _cardinality(self):
    return UNKNOWN_CARDINALITY
