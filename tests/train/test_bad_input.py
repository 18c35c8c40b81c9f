"""Bad input to tf.train checkpoints: TF's exception types (or a clearer TypeError where
TF leaks an accident), and a failed restore or save leaves variables and the save
counter as they were."""
import numpy as np
import pytest

import tensorlet as tf
from bad_input_check import check


def ckpt():
  return tf.train.Checkpoint(v=tf.Variable([1.0, 2.0]))


def written(tmp_path):
  return ckpt().write(str(tmp_path / "c"))


def manager(tmp_path, **kw):
  return tf.train.CheckpointManager(ckpt(), str(tmp_path), max_to_keep=kw.pop("keep", 1), **kw)


def junk(tmp_path):
  (tmp_path / "c.index").write_text("junk")
  (tmp_path / "c.data-00000-of-00001").write_text("junk")
  return str(tmp_path / "c")


CASES = [
    ("kwarg_not_trackable", lambda p: tf.train.Checkpoint(a=3), ValueError,
     "expecting a trackable object.*got 3"),
    ("kwarg_none", lambda p: tf.train.Checkpoint(a=None), ValueError,
     "expecting a trackable object.*got None"),
    # TF: ValueError from converting None (write) or a file named "None-1" in the working
    # directory (save); a path that is not a string is a TypeError here.
    ("write_none_path", lambda p: ckpt().write(None), TypeError,
     "`file_prefix` must be a string path, got None"),
    ("save_int_path", lambda p: ckpt().save(3), TypeError,
     "`file_prefix` must be a string path, got 3"),
    ("read_missing", lambda p: ckpt().read(str(p / "nope")), tf.errors.NotFoundError,
     "Failed to find any matching files"),
    ("restore_directory", lambda p: ckpt().restore(str(p)), tf.errors.NotFoundError,
     "This is a directory"),
    ("restore_junk", lambda p: ckpt().restore(junk(p)), tf.errors.DataLossError,
     "not a tensorlet checkpoint index"),
    ("restore_other_shape",
     lambda p: tf.train.Checkpoint(v=tf.Variable([1.0, 2.0, 3.0])).read(written(p)),
     ValueError, r"incompatible tensor with shape \(2,\) .* variable with shape \(3,\)"),
    ("restore_other_dtype",
     lambda p: tf.train.Checkpoint(v=tf.Variable([1, 2])).read(written(p)),
     tf.errors.InvalidArgumentError, "expected dtype int32 does not equal original dtype"),
    ("other_architecture_consumed",
     lambda p: tf.train.Checkpoint(w=tf.Variable([1.0, 2.0])).read(written(p))
     .assert_consumed(), AssertionError, "Unresolved objects in checkpoint"),
    ("other_architecture_nontrivial",
     lambda p: tf.train.Checkpoint(w=tf.Variable([1.0, 2.0])).read(written(p))
     .assert_nontrivial_match(), AssertionError, "Nothing except the root object matched"),
    ("latest_checkpoint_none", lambda p: tf.train.latest_checkpoint(None), TypeError,
     "`checkpoint_dir` must be a string path"),
    ("manager_not_checkpoint",
     lambda p: tf.train.CheckpointManager(3, str(p), max_to_keep=1), TypeError,
     "expects a tf.train.Checkpoint, got 3"),
    ("manager_max_to_keep_negative", lambda p: manager(p, keep=-1), ValueError,
     "positive integer or `None` for `max_to_keep`, got -1"),
    ("manager_max_to_keep_str", lambda p: manager(p, keep="a"), TypeError,
     "`max_to_keep` must be an integer or None, got 'a'"),
    ("manager_directory_none",
     lambda p: tf.train.CheckpointManager(ckpt(), None, max_to_keep=1), TypeError,
     "`directory` must be a string path"),
    ("manager_interval_without_step", lambda p: manager(p, checkpoint_interval=5), ValueError,
     "`step_counter` should be passed"),
    # TF: AttributeError ("'str' object has no attribute 'numpy'"); 1.5 used to be
    # truncated to ckpt-1 here.
    ("manager_number_str", lambda p: manager(p).save(checkpoint_number="a"), TypeError,
     "`checkpoint_number` must be an integer, got 'a'"),
    ("manager_number_float", lambda p: manager(p).save(checkpoint_number=1.5), TypeError,
     "`checkpoint_number` must be an integer, got 1.5"),
    ("load_checkpoint_missing", lambda p: tf.train.load_checkpoint(str(p / "nope")),
     tf.errors.NotFoundError, "Failed to find any matching files"),
    ("load_variable_missing_key", lambda p: tf.train.load_variable(written(p), "nope"),
     tf.errors.NotFoundError, "Key nope not found in checkpoint"),
    ("get_tensor_int_key", lambda p: tf.train.load_checkpoint(written(p)).get_tensor(3),
     TypeError, "the key must be a string, got 3"),
    ("restore_in_function",
     lambda p: (lambda c, path: tf.function(lambda: c.restore(path))())(ckpt(), written(p)),
     RuntimeError, "must be called eagerly"),
]


@pytest.mark.parametrize("call, exc, pattern", [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_bad_input(tmp_path, call, exc, pattern):
  check(lambda: call(tmp_path), exc, pattern)


def test_failed_restore_changes_no_variable(tmp_path):
  # `a` matches the checkpoint, `b` does not: nothing is assigned, not even `a`.
  src = tf.train.Checkpoint(a=tf.Variable([5.0, 6.0]), b=tf.Variable([7.0, 8.0]))
  path = src.write(str(tmp_path / "c"))
  a, b = tf.Variable([1.0, 2.0]), tf.Variable([1.0, 2.0, 3.0])
  with pytest.raises(ValueError, match="incompatible tensor"):
    tf.train.Checkpoint(a=a, b=b).read(path)
  assert np.array_equal(a.numpy(), [1.0, 2.0]) and np.array_equal(b.numpy(), [1.0, 2.0, 3.0])


def test_failed_manager_save_keeps_counter(tmp_path):
  m = manager(tmp_path)
  with pytest.raises(TypeError):
    m.save(checkpoint_number="a")
  assert int(m.checkpoint.save_counter.numpy()) == 0 and m.latest_checkpoint is None
  assert m.save().endswith("ckpt-1")
