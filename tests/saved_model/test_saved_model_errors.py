"""Bad directories give clear TF errors; what cannot leave Python is reported at save."""
import json
import os

import numpy as np
import pytest

import tensorlet as tf
from tensorlet.errors import DataLossError, InvalidArgumentError, NotFoundError


class Small(tf.Module):
  def __init__(self):
    super().__init__()
    self.w = tf.Variable([[1.0, 2.0], [3.0, 4.0]])

  @tf.function(input_signature=[tf.TensorSpec([None, 2], tf.float32)])
  def __call__(self, x):
    return tf.matmul(x, self.w) + tf.constant([0.5, -0.5])


@pytest.fixture
def saved(tmp_path):
  d = tmp_path / "m"
  tf.saved_model.save(Small(), str(d))
  return d


def _edit_json(path, fn):
  data = json.loads(path.read_text())
  fn(data)
  path.write_text(json.dumps(data))


def _clean(excinfo):
  """The error is raised by the loader itself, not chained from an internal failure."""
  e = excinfo.value
  assert e.__cause__ is None and (e.__context__ is None or e.__suppress_context__)


def test_truncated_variable_file(saved):
  data = saved / "variables" / "variables.data-00000-of-00001"
  data.write_bytes(data.read_bytes()[:40])
  with pytest.raises(DataLossError, match="truncated") as e:
    tf.saved_model.load(str(saved))
  _clean(e)


def test_graph_json_with_an_unknown_op(saved):
  def rename(g):
    for f in g["concrete_functions"].values():
      for n in f["graph"]["nodes"]:
        if n["op"] == "MatMul":
          n["op"] = "FancyMatMul"
  _edit_json(saved / "graphs.json", rename)
  with pytest.raises(NotFoundError, match="'FancyMatMul'.*not registered") as e:
    tf.saved_model.load(str(saved))
  _clean(e)


def test_manifest_from_a_future_version(saved):
  _edit_json(saved / "saved_model.json", lambda m: m.update(version=99))
  with pytest.raises(InvalidArgumentError, match="format version 99.*newer") as e:
    tf.saved_model.load(str(saved))
  _clean(e)


def test_graph_json_with_a_dangling_input(saved):
  def dangle(g):
    for f in g["concrete_functions"].values():
      f["graph"]["nodes"][-1]["in"] = [[999, 0]]
  _edit_json(saved / "graphs.json", dangle)
  with pytest.raises(DataLossError, match="bad tensor reference") as e:
    tf.saved_model.load(str(saved))
  _clean(e)


def test_graph_json_missing_a_field(saved):
  _edit_json(saved / "graphs.json", lambda g: g.pop("concrete_functions"))
  with pytest.raises(DataLossError, match="concrete_functions") as e:
    tf.saved_model.load(str(saved))
  _clean(e)


def test_truncated_graph_json(saved):
  p = saved / "graphs.json"
  p.write_bytes(p.read_bytes()[:100])
  with pytest.raises(DataLossError, match="not valid JSON"):
    tf.saved_model.load(str(saved))


def test_not_a_manifest(saved):
  (saved / "saved_model.json").write_text('{"format": "something-else"}')
  with pytest.raises(DataLossError, match="not a tensorlet SavedModel manifest"):
    tf.saved_model.load(str(saved))


def test_missing_directory_and_files(tmp_path, saved):
  with pytest.raises(NotFoundError, match="does not exist"):
    tf.saved_model.load(str(tmp_path / "nowhere"))
  with pytest.raises(NotFoundError, match="no saved_model.json"):
    tf.saved_model.load(str(tmp_path))
  os.remove(saved / "constants" / "constants.data-00000-of-00001")
  with pytest.raises(NotFoundError, match="does not exist"):
    tf.saved_model.load(str(saved))


def test_py_function_is_reported_with_its_line_and_nothing_is_written(tmp_path):
  class P(tf.Module):
    @tf.function(input_signature=[tf.TensorSpec([], tf.float32)])
    def f(self, x):
      return tf.py_function(lambda a: a * 2, [x], tf.float32)  # the reported line
  line = [i for i, s in enumerate(open(__file__), 1) if "# the reported line" in s][0]
  with pytest.raises(ValueError, match="tf.py_function") as e:
    tf.saved_model.save(P(), str(tmp_path / "p"))
  assert f"{os.path.basename(__file__)}:{line}" in str(e.value)
  assert not (tmp_path / "p").exists()


def test_untracked_variable_is_reported(tmp_path):
  hidden = tf.Variable(3.0, name="hidden")

  class U(tf.Module):
    @tf.function(input_signature=[tf.TensorSpec([], tf.float32)])
    def f(self, x):
      return x * hidden
  with pytest.raises(ValueError, match="variable 'hidden:0'.*does not track"):
    tf.saved_model.save(U(), str(tmp_path / "u"))


def test_save_rejects_non_trackables_and_bad_signatures(tmp_path):
  with pytest.raises(ValueError, match="Trackable"):
    tf.saved_model.save(object(), str(tmp_path / "a"))
  m = Small()
  f = tf.function(lambda x: x + 1.0)
  with pytest.raises(ValueError, match="no input_signature"):
    tf.saved_model.save(m, str(tmp_path / "b"), signatures=f)
  g = tf.function(lambda x, k: x * k)
  cf = g.get_concrete_function(tf.TensorSpec([], tf.float32), 2)
  with pytest.raises(ValueError, match="tensors only"):
    tf.saved_model.save(m, str(tmp_path / "c"), signatures={"s": cf})
  with pytest.raises(ValueError, match="must be a tf.function or a ConcreteFunction"):
    tf.saved_model.save(m, str(tmp_path / "d"), signatures={"s": 3})

  @tf.function
  def inside():
    tf.saved_model.save(m, str(tmp_path / "e"))
  with pytest.raises(RuntimeError, match="eagerly"):
    inside()


def test_calls_that_fit_no_saved_trace(saved):
  m = tf.saved_model.load(str(saved))
  with pytest.raises(ValueError, match="Could not find matching concrete function"):
    m(tf.constant([[1, 2]]))
  with pytest.raises(TypeError, match="keyword arguments only"):
    m.signatures["serving_default"](tf.constant([[1.0, 2.0]]))
  with pytest.raises(ValueError, match="no saved trace"):
    m.__call__.get_concrete_function(tf.TensorSpec([None, 3], tf.float32))
  m2 = tf.saved_model.load(str(saved))
  del m2.__dict__["__call__"]
  with pytest.raises(TypeError, match="not callable"):
    m2(np.ones([1, 2], np.float32))
