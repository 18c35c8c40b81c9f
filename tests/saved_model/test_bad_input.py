"""Bad input to tf.saved_model and Keras model saving: TF 2.21's exception types,
messages naming the problem, and nothing written or half-loaded on failure."""
import os

import numpy as np
import pytest

import tensorlet as tf
from bad_input_check import check

keras = tf.keras


class M(tf.Module):

  def __init__(self):
    super().__init__()
    self.v = tf.Variable(1.0)

  @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
  def f(self, x):
    return x * self.v


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
  path = str(tmp_path_factory.mktemp("sm") / "s")
  tf.saved_model.save(M(), path, signatures=None)
  return path


def save_to(p, obj=None, **kw):
  return tf.saved_model.save(M() if obj is None else obj, str(p / "s"), **kw)


SAVE = [
    ("object_int", lambda p: save_to(p, 3), ValueError, "Expected an object of type `Trackable`"),
    ("path_none", lambda p: tf.saved_model.save(M(), None), TypeError,
     "`export_dir` must be a path .*got None"),
    # TF: FailedPreconditionError; this was a raw FileExistsError after tracing.
    ("path_is_file", lambda p: tf.saved_model.save(M(), str(p / "f")),
     tf.errors.FailedPreconditionError, "is not a directory"),
    ("signatures_int", lambda p: save_to(p, signatures=3), ValueError,
     "must be a tf.function or a ConcreteFunction, got 3"),
    ("signature_without_input_signature",
     lambda p: save_to(p, signatures=tf.function(lambda x: x)), ValueError,
     "no input_signature"),
    # TF: AttributeError ("'int' object has no attribute 'replace'").
    ("signature_name_int", lambda p: (lambda m: save_to(p, m, signatures={3: m.f}))(M()),
     ValueError, "Signature names must be strings, got 3"),
    # TF: AssertionError; a RuntimeError names what to do instead.
    ("save_in_function", lambda p: tf.function(lambda: save_to(p))(), RuntimeError,
     "must be called eagerly"),
    ("keras_unbuilt", lambda p: keras.Sequential([keras.layers.Dense(1)]).save(str(p / "k")),
     ValueError, "has not been built yet"),
]


def load_from(p, name):
  return tf.saved_model.load(str(p / name))


LOAD = [
    ("missing", lambda p: load_from(p, "nope"), OSError, "SavedModel file does not exist at"),
    ("a_file", lambda p: load_from(p, "f"), OSError, "SavedModel file does not exist at"),
    ("empty_dir", lambda p: load_from(p, "e"), OSError, "no saved_model.json"),
    ("keras_missing", lambda p: keras.models.load_model(str(p / "nope")), OSError,
     "No file or directory found at"),
]


@pytest.mark.parametrize("call, exc, pattern", [c[1:] for c in SAVE + LOAD],
                         ids=[c[0] for c in SAVE + LOAD])
def test_bad_input(tmp_path, call, exc, pattern):
  (tmp_path / "f").write_text("x")
  (tmp_path / "e").mkdir()
  check(lambda: call(tmp_path), exc, pattern)
  if call in [c[1] for c in SAVE]:
    assert not os.path.exists(tmp_path / "s"), "a failed save left a directory behind"


def test_missing_savedmodel_is_also_a_not_found_error(tmp_path):
  # TF raises OSError; tensorlet's error is an OSError and a tf.errors.NotFoundError.
  with pytest.raises(tf.errors.NotFoundError):
    tf.saved_model.load(str(tmp_path / "nope"))


@pytest.mark.parametrize("args", [
    (tf.ones([2, 2]),), (tf.ones([2], tf.int32),), ("abc",), (None,),
    (tf.ones([2]), tf.ones([2])),
], ids=["shape", "dtype", "string", "none", "too_many"])
def test_loaded_function_rejects_arguments(saved, args):
  # TF 2.21: TypeError ("Binding inputs to tf.function failed"); earlier TF versions a
  # ValueError, which the error also is.
  fn = tf.saved_model.load(saved).f
  err = check(lambda: fn(*args), TypeError, "Could not find matching concrete function")
  assert isinstance(err, ValueError)


def test_loaded_signature_bad_keyword(tmp_path):
  m = M()
  tf.saved_model.save(m, str(tmp_path / "s"), signatures=m.f)
  sig = tf.saved_model.load(str(tmp_path / "s")).signatures["serving_default"]
  check(lambda: sig(y=tf.ones([2])), TypeError, "missing required argument: 'x'")


def test_keras_model_load_of_plain_module(saved):
  # TF returns a bare _UserObject here; tensorlet says to use tf.saved_model.load.
  check(lambda: keras.models.load_model(saved), ValueError,
        "not saved from a Keras model; load it with tf.saved_model.load")


def test_loaded_keras_model_wrong_input(tmp_path):
  model = keras.Sequential([keras.layers.Dense(1, input_shape=(2,))])
  model.save(str(tmp_path / "k"))
  loaded = keras.models.load_model(str(tmp_path / "k"))
  # As Keras: the loaded model is a Sequential again, checking its input spec.
  check(lambda: loaded(np.ones((1, 3), "float32")), ValueError,
        "is incompatible with the layer")
