"""tf.train.Checkpoint: round trips, optimizer slots, deferred restore, status checks."""
import os

import numpy as np
import pytest

import tensorlet as tf
from ckpt_helpers import MLP, Dense, Momentum, train_step


def _data():
  rng = np.random.default_rng(0)
  return (tf.constant(rng.normal(size=(8, 3)).astype(np.float32)),
          tf.constant(rng.normal(size=(8, 1)).astype(np.float32)))


def _trained(steps=3):
  model, opt = MLP(), Momentum()
  x, y = _data()
  for _ in range(steps):
    train_step(model, opt, x, y)
  return model, opt


def test_variable_round_trip_save_and_write(tmp_path):
  x = tf.Variable(10.)
  ckpt = tf.train.Checkpoint(x=x)
  x.assign(2.)
  path = ckpt.save(str(tmp_path / "ckpt"))
  assert path == str(tmp_path / "ckpt-1") and int(ckpt.save_counter.numpy()) == 1
  x.assign(11.)
  ckpt.restore(tf.train.latest_checkpoint(str(tmp_path))).assert_consumed()
  assert x.numpy() == 2.0
  assert ckpt.save(str(tmp_path / "ckpt")) == str(tmp_path / "ckpt-2")
  # write(): exactly the prefix, no counter, no `checkpoint` state update.
  x.assign(5.)
  assert ckpt.write(str(tmp_path / "w")) == str(tmp_path / "w")
  assert tf.train.latest_checkpoint(str(tmp_path)) == str(tmp_path / "ckpt-2")
  x.assign(0.)
  tf.train.Checkpoint(x=x).restore(str(tmp_path / "w")).assert_consumed()
  assert x.numpy() == 5.0
  # read() does not create the save counter, so (as in TF) the saved one is unresolved.
  with pytest.raises(AssertionError, match="save_counter"):
    tf.train.Checkpoint(x=x).read(str(tmp_path / "w")).assert_consumed()


def test_all_dtypes_and_shapes_round_trip(tmp_path):
  values = {"f64": np.arange(6.).reshape(2, 3), "i32": np.array([1, -2], np.int32),
            "b": np.array([True, False]), "s": np.array([b"ab", b"", "\u00e9".encode()]),
            "scalar": np.float32(3.5), "empty": np.zeros((0, 4), np.float32),
            "c64": np.array([1 + 2j], np.complex64), "u8": np.array([255], np.uint8)}
  vs = {k: tf.Variable(v) for k, v in values.items()}
  tf.train.Checkpoint(**vs).write(str(tmp_path / "c"))
  fresh = {k: tf.Variable(tf.zeros_like(v)) for k, v in vs.items()}
  tf.train.Checkpoint(**fresh).read(str(tmp_path / "c")).assert_consumed()
  for k, v in values.items():
    got = fresh[k].numpy()
    assert got.dtype == np.asarray(v).dtype or k == "s"
    np.testing.assert_array_equal(got, v)


def test_module_and_optimizer_slots_round_trip(tmp_path):
  model, opt = _trained()
  path = tf.train.Checkpoint(model=model, optimizer=opt).save(str(tmp_path / "ckpt"))
  keys = dict(tf.train.list_variables(str(tmp_path)))
  assert keys["model/hidden/kernel/.ATTRIBUTES/VARIABLE_VALUE"] == [3, 4]
  assert keys["model/hidden/kernel/.OPTIMIZER_SLOT/optimizer/momentum/.ATTRIBUTES/"
              "VARIABLE_VALUE"] == [3, 4]
  assert keys["optimizer/iterations/.ATTRIBUTES/VARIABLE_VALUE"] == []
  # Restoring into existing objects (model built, slots created) assigns at once.
  model2, opt2 = _trained(steps=1)
  tf.train.Checkpoint(model=model2, optimizer=opt2).restore(path).assert_consumed()
  assert opt2.iterations.numpy() == 3
  for a, b in zip(model.trainable_variables, model2.trainable_variables):
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    np.testing.assert_array_equal(opt.slot(a).numpy(), opt2.slot(b).numpy())
  # And training continues identically from the restored state.
  x, y = _data()
  np.testing.assert_allclose(train_step(model, opt, x, y).numpy(),
                             train_step(model2, opt2, x, y).numpy(), rtol=1e-6)


def test_deferred_restore_of_variables_and_slots_created_later(tmp_path):
  model, opt = _trained()
  path = tf.train.Checkpoint(model=model, optimizer=opt).save(str(tmp_path / "ckpt"))
  model2, opt2 = MLP(), Momentum()
  status = tf.train.Checkpoint(model=model2, optimizer=opt2).restore(path)
  assert opt2.iterations.numpy() == 3       # existing variables: restored now
  status.assert_existing_objects_matched()  # nothing existing is left unmatched
  with pytest.raises(AssertionError, match="kernel"):
    status.assert_consumed()                # weights and slots are still pending
  x, _ = _data()
  model2(x)                                 # build(): weights created -> restored
  for a, b in zip(model.trainable_variables, model2.trainable_variables):
    np.testing.assert_array_equal(a.numpy(), b.numpy())
  with pytest.raises(AssertionError, match="OPTIMIZER_SLOT"):
    status.assert_consumed()
  opt2.learning_rate, opt2.beta = 0.0, 1.0  # a no-op step that creates the slots
  opt2.apply_gradients([(tf.zeros_like(v), v) for v in model2.trainable_variables])
  for a, b in zip(model.trainable_variables, model2.trainable_variables):
    np.testing.assert_array_equal(opt.slot(a).numpy(), opt2.slot(b).numpy())
  status.assert_consumed()
  assert not hasattr(model2.hidden, "_tl_pending_restore")


def test_deferred_restore_into_a_variable_created_in_tf_function(tmp_path):
  d = Dense(2)
  d(tf.ones([1, 3]))
  path = tf.train.Checkpoint(d=d).write(str(tmp_path / "c"))
  d2 = Dense(2)
  tf.train.Checkpoint(d=d2).read(path)
  out = tf.function(lambda x: d2(x))(tf.ones([1, 3]))
  np.testing.assert_allclose(out.numpy(), d(tf.ones([1, 3])).numpy(), rtol=1e-6)


def test_shared_variable_is_saved_once(tmp_path):
  v = tf.Variable([1., 2.])
  ckpt = tf.train.Checkpoint(a=v, b=[v], c={"k": v})
  ckpt.write(str(tmp_path / "c"))
  assert [k for k, _ in tf.train.list_variables(str(tmp_path / "c"))] == [
      "_CHECKPOINTABLE_OBJECT_GRAPH", "a/.ATTRIBUTES/VARIABLE_VALUE"]
  w = tf.Variable([0., 0.])
  tf.train.Checkpoint(a=w, b=[w], c={"k": w}).read(str(tmp_path / "c")).assert_consumed()
  np.testing.assert_array_equal(w.numpy(), [1., 2.])


def test_assert_consumed_failures(tmp_path):
  a, b = tf.Variable(1.), tf.Variable(2.)
  path = tf.train.Checkpoint(a=a, b=b).write(str(tmp_path / "c"))
  # A checkpointed value with no Python object.
  status = tf.train.Checkpoint(a=tf.Variable(0.)).read(path)
  with pytest.raises(AssertionError, match="Unresolved objects.*b "):
    status.assert_consumed()
  status.assert_existing_objects_matched()
  status.expect_partial()
  # A Python variable with no value in the checkpoint.
  status = tf.train.Checkpoint(a=tf.Variable(0.), b=tf.Variable(0.),
                               extra=tf.Variable(0.)).read(path)
  with pytest.raises(AssertionError, match="extra"):
    status.assert_existing_objects_matched()
  with pytest.raises(AssertionError, match="extra"):
    status.assert_consumed()
  # Nothing matched at all.
  status = tf.train.Checkpoint(other=tf.Variable(0.)).read(path)
  with pytest.raises(AssertionError, match="Nothing except the root"):
    status.assert_nontrivial_match()
  # restore(None): the first run of a program, nothing to restore.
  status = tf.train.Checkpoint(a=a).restore(None)
  with pytest.raises(AssertionError, match="No checkpoint"):
    status.assert_consumed()


def test_mismatches_raise_and_change_nothing(tmp_path):
  path = tf.train.Checkpoint(a=tf.Variable([1., 2.]), b=tf.Variable(3.)).write(
      str(tmp_path / "c"))
  a, b = tf.Variable([0., 0., 0.]), tf.Variable(0.)
  with pytest.raises(ValueError, match="incompatible tensor with shape"):
    tf.train.Checkpoint(a=a, b=b).read(path)
  assert b.numpy() == 0.0           # validated before anything was assigned
  with pytest.raises(tf.errors.InvalidArgumentError, match="expected dtype int32"):
    tf.train.Checkpoint(b=tf.Variable(0)).read(path)
  with pytest.raises(ValueError, match="the checkpoint holds a Variable"):
    tf.train.Checkpoint(b=tf.Module()).read(path)


def test_bad_arguments():
  with pytest.raises(ValueError, match="trackable"):
    tf.train.Checkpoint(x=3)
  with pytest.raises(ValueError, match="root"):
    tf.train.Checkpoint(root=object())
  with pytest.raises(ValueError, match="save_counter"):
    tf.train.Checkpoint(save_counter=tf.Variable(1))
  with pytest.raises(TypeError, match="file_prefix"):
    tf.train.Checkpoint(a=tf.Variable(1.)).save(3)


def test_save_inside_tf_function_is_refused(tmp_path):
  ckpt = tf.train.Checkpoint(a=tf.Variable(1.))

  @tf.function
  def f():
    ckpt.write(str(tmp_path / "c"))
    return 1
  with pytest.raises(RuntimeError, match="eagerly"):
    f()


def test_missing_checkpoint_is_not_found(tmp_path):
  ckpt = tf.train.Checkpoint(a=tf.Variable(1.))
  with pytest.raises(tf.errors.NotFoundError, match="Failed to find any matching files"):
    ckpt.restore(str(tmp_path / "nope"))
  path = ckpt.write(str(tmp_path / "c"))
  with pytest.raises(tf.errors.NotFoundError, match="without the '.index' suffix"):
    ckpt.restore(path + ".index")
  with pytest.raises(tf.errors.NotFoundError, match="directory"):
    ckpt.restore(str(tmp_path))
  os.remove(path + ".data-00000-of-00001")
  with pytest.raises(tf.errors.NotFoundError, match="incomplete"):
    ckpt.restore(path)
  assert tf.train.latest_checkpoint(str(tmp_path / "empty")) is None


def test_checkpoint_reader_and_load_variable(tmp_path):
  v = tf.Variable([[1., 2.]])
  ckpt = tf.train.Checkpoint(v=v)
  ckpt.save(str(tmp_path / "ckpt"))
  key = "v/.ATTRIBUTES/VARIABLE_VALUE"
  np.testing.assert_array_equal(tf.train.load_variable(str(tmp_path), key), [[1., 2.]])
  reader = tf.train.load_checkpoint(str(tmp_path))
  assert reader.has_tensor(key) and reader.get_variable_to_dtype_map()[key] == tf.float32
  assert reader.get_tensor("save_counter/.ATTRIBUTES/VARIABLE_VALUE") == 1
  with pytest.raises(tf.errors.NotFoundError, match="Key nope not found"):
    reader.get_tensor("nope")
  with pytest.raises(ValueError, match="Couldn't find 'checkpoint' file"):
    tf.train.load_checkpoint(str(tmp_path / "void")) if os.makedirs(
        tmp_path / "void") is None else None
