import numpy as np
import pytest

from tensorlet.distribute.collectives import (Collectives, LocalCollectives, check_op,
                                              pack_by_dtype, unpack)


def test_pack_fuses_one_buffer_per_dtype_and_unpacks_in_order():
  arrays = [np.ones((2, 3), np.float32), np.arange(3), np.full(2, 7, np.float32),
            np.float64(2.5)]
  buffers, layout = pack_by_dtype(arrays)
  assert sorted(buffers) == sorted({a.dtype.str for a in map(np.asarray, arrays)})
  assert buffers[np.dtype(np.float32).str].shape == (8,)
  back = unpack(buffers, layout)
  for a, b in zip(arrays, back):
    assert b.dtype == np.asarray(a).dtype and b.shape == np.shape(a)
    np.testing.assert_array_equal(a, b)


def test_local_collectives_are_identities_of_size_one():
  c = LocalCollectives()
  assert (c.rank, c.size, c.is_chief) == (0, 1, True)
  x = np.arange(4.0)
  (y,) = c.all_reduce([x], "mean")
  np.testing.assert_array_equal(x, y)
  y[0] = 9.0
  assert x[0] == 0.0  # results never alias the inputs
  np.testing.assert_array_equal(c.broadcast([x])[0], x)
  np.testing.assert_array_equal(c.all_gather(x), x)
  c.barrier()
  c.close()
  c.close()


def test_bad_reduce_op_and_root_raise_value_error():
  with pytest.raises(ValueError, match="op must be one of"):
    LocalCollectives().all_reduce([np.ones(2)], "prod")
  with pytest.raises(ValueError, match="root"):
    LocalCollectives().broadcast([np.ones(2)], root=1)
  assert check_op("SUM") == "sum"


def test_base_class_is_abstract():
  with pytest.raises(NotImplementedError):
    Collectives().all_reduce([np.ones(1)])
