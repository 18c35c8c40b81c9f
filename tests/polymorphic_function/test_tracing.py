"""tf.function tracing rules: what traces, what reuses a trace, and what a trace
looks like (concrete functions, signatures, graphs), asserted by trace counts."""
import dataclasses
import gc
import re
import warnings

import numpy as np
import pytest

import tensorlet as tf


def counted(fn=None, **kwargs):
  """tf.function over `fn` that also records the Python-side trace events."""
  def deco(f):
    log = []

    def body(*args, **kw):
      log.append((args, kw))
      return f(*args, **kw)
    body.__name__ = f.__name__
    tfn = tf.function(body, **kwargs)
    tfn.log = log
    return tfn
  return deco(fn) if fn is not None else deco


def traces(f):
  return f.experimental_get_tracing_count()


# ----------------------------------------------------------------- tensors

def test_tensors_trace_by_dtype_and_shape():
  f = counted(lambda x: x + x)
  f(tf.constant(1))
  f(tf.constant(2))
  assert traces(f) == 1 and len(f.log) == 1
  f(tf.constant(1.0))
  assert traces(f) == 2
  f(tf.constant([1.0]))
  f(tf.constant([2.0]))
  assert traces(f) == 3
  f(tf.constant([[1.0]]))
  assert traces(f) == 4 and len(f.log) == 4


def test_dtype_and_shape_distinct_traces_exact_count():
  f = tf.function(lambda x: x * 2)
  for v in [tf.constant(1), tf.constant(1.0), tf.constant([1.0]), tf.constant(5),
            tf.constant(7.0), tf.constant([3.0])]:
    f(v)
  assert traces(f) == 3


def test_known_shape_is_subtype_of_unknown_and_most_specific_wins():
  f = counted(lambda x: tf.reduce_sum(x))
  # A [3, None] trace first, then a [None, None] one (a [3, None] call after
  # [None, None] would just dispatch to it, so the specific one must come first).
  cf3 = f.get_concrete_function(tf.TensorSpec([3, None], tf.float32))
  cfn = f.get_concrete_function(tf.TensorSpec([None, None], tf.float32))
  assert cf3 is not cfn and traces(f) == 2
  assert f.get_concrete_function(tf.ones([3, 5])) is cf3
  assert f.get_concrete_function(tf.ones([4, 5])) is cfn
  assert f(tf.ones([3, 7])).numpy() == 21.0
  assert f(tf.ones([4, 2])).numpy() == 8.0
  assert traces(f) == 2
  # A different rank matches neither.
  f(tf.ones([2]))
  assert traces(f) == 3


def test_exact_shape_then_unknown_shape_dispatch():
  f = counted(lambda x: x + 1)
  f(tf.ones([3]))                                         # trace [3]
  cfn = f.get_concrete_function(tf.TensorSpec([None], tf.float32))  # trace [None]
  assert traces(f) == 2
  n = len(f.log)
  assert f(tf.ones([3])).shape == [3]
  assert f.get_concrete_function(tf.ones([3])) is not cfn
  assert f.get_concrete_function(tf.ones([4])) is cfn
  np.testing.assert_array_equal(f(tf.ones([4])).numpy(), [2, 2, 2, 2])
  assert traces(f) == 2 and len(f.log) == n


def test_unknown_rank_accepts_any_rank():
  f = tf.function(lambda x: x * 2)
  f.get_concrete_function(tf.TensorSpec(None, tf.float32))
  f(tf.ones([2, 3]))
  f(tf.constant(1.0))
  f(tf.ones([1, 1, 1]))
  assert traces(f) == 1


def test_numpy_arrays_trace_like_tensors():
  f = tf.function(lambda x: x * 2)
  r = f(np.ones(3))
  f(np.zeros(3))
  assert traces(f) == 1
  assert r.dtype == tf.float64 and r.numpy().tolist() == [2.0, 2.0, 2.0]
  f(np.ones(3, np.float32))
  assert traces(f) == 2


# --------------------------------------------------------------- variables

def test_variables_of_one_spec_share_a_trace():
  # TF 2.21: same dtype/shape/trainable -> one trace, writing the variable passed.
  f = counted(lambda v: v.assign_add(1.0))
  a, b = tf.Variable(1.0), tf.Variable(1.0)
  f(a)
  f(a)
  assert traces(f) == 1 and a.numpy() == 3.0
  f(b)
  assert traces(f) == 1 and b.numpy() == 2.0 and a.numpy() == 3.0
  f(a)
  assert traces(f) == 1 and a.numpy() == 4.0 and b.numpy() == 2.0
  f(tf.Variable(1.0, trainable=False))
  f(tf.Variable(1.0, dtype=tf.float64))
  f(tf.Variable(1.0, dtype=tf.float16))
  assert traces(f) == 4


# ------------------------------------------------------- Python primitives

def test_python_primitives_trace_by_value():
  @counted
  def f(x):
    if x is True:
      return tf.constant(2)
    return tf.constant(1)
  f(1)
  f(1)
  assert traces(f) == 1
  f(2)
  assert traces(f) == 2
  f(1.0)          # 1.0 == 1, but a float is another value's type
  assert traces(f) == 3
  f(True)         # True == 1 too: still its own trace
  assert traces(f) == 4
  assert f(True).numpy() == 2 and f(1).numpy() == 1
  assert traces(f) == 4


def test_python_strings_and_none():
  @tf.function
  def f(x, mode):
    if mode == "double":
      return x * 2
    return x
  assert f(tf.constant(3), "double").numpy() == 6
  assert f(tf.constant(3), "same").numpy() == 3
  assert f(tf.constant(4), "double").numpy() == 8
  assert traces(f) == 2
  @tf.function
  def g(x, y=None):
    return x if y is None else x + y
  g(tf.constant(1))
  g(tf.constant(1), None)
  assert traces(g) == 1


# -------------------------------------------------------------- containers

def test_lists_and_tuples_trace_by_element_types():
  f = counted(lambda xs: tf.add_n(list(xs)))
  assert f([tf.constant(1.0), tf.constant(2.0)]).numpy() == 3.0
  assert f([tf.constant(5.0), tf.constant(6.0)]).numpy() == 11.0
  assert traces(f) == 1
  f([tf.constant(1.0), tf.constant(2.0), tf.constant(3.0)])   # length
  assert traces(f) == 2
  f((tf.constant(1.0), tf.constant(2.0)))                      # tuple vs list
  assert traces(f) == 3
  f([tf.constant([1.0]), tf.constant([2.0])])                  # element shape
  assert traces(f) == 4


def test_python_values_inside_lists_are_literals():
  f = counted(lambda xs: tf.constant(xs[0] + xs[1]))
  f([1, 2])
  f([1, 2])
  assert traces(f) == 1
  assert f([2, 1]).numpy() == 3          # [2, 1] is another type than [1, 2]
  assert traces(f) == 2


def test_dicts_trace_by_key_to_type_order_insensitive():
  f = counted(lambda d: d["a"] * d["b"])
  assert f({"a": tf.constant(2.0), "b": tf.constant(3.0)}).numpy() == 6.0
  assert f({"b": tf.constant(4.0), "a": tf.constant(5.0)}).numpy() == 20.0
  assert traces(f) == 1
  f({"a": tf.constant(2), "b": tf.constant(3)})
  assert traces(f) == 2
  f({"a": tf.constant(2.0), "b": tf.constant(3.0), "c": 1})
  assert traces(f) == 3
  g = counted(lambda d: tf.constant(d[1] + d[3]))
  g({1: 2, 3: 4})
  g({3: 4, 1: 2})
  assert traces(g) == 1


def test_namedtuples():
  import collections
  P = collections.namedtuple("P", ["x", "y"])
  f = tf.function(lambda p: p.x - p.y)
  assert f(P(tf.constant(5.0), tf.constant(2.0))).numpy() == 3.0
  assert f(P(tf.constant(1.0), tf.constant(2.0))).numpy() == -1.0
  assert traces(f) == 1


# ------------------------------------------------------------ tracing protocol
# (seed 002's Fruit example itself is in tests/seeds/test_seed002_function.py)

class Bucket(tf.types.experimental.TraceType):
  """The trace type of a Batch: its size bucket; Bucket(None) accepts any size."""

  def __init__(self, size):
    self.size = size

  def is_subtype_of(self, other):
    return type(other) is Bucket and other.size in (None, self.size)

  def most_specific_common_supertype(self, others):
    return self if all(self == o for o in others) else Bucket(None)

  def placeholder_value(self, placeholder_context=None):
    return self

  def __eq__(self, other):
    return type(other) is Bucket and other.size == self.size

  def __hash__(self):
    return hash(self.size)


class Batch:
  def __init__(self, size):
    self.size = size

  def __tf_tracing_type__(self, context):
    return Bucket(self.size)


def test_tracing_protocol_types_decide_reuse():
  f = tf.function(lambda x, batch: x * 2)
  x = tf.constant(1.0)
  f(x, Batch(3))
  f(x, Batch(3))           # another object, an equal trace type: reused
  assert traces(f) == 1
  f(x, Batch(4))
  assert traces(f) == 2


def test_tracing_protocol_subtypes_and_supertypes():
  f = tf.function(lambda x, batch: x * 2, reduce_retracing=True)
  x = tf.constant(1.0)
  f(x, Batch(3))
  f(x, Batch(4))           # generalised with most_specific_common_supertype
  assert traces(f) == 2
  f(x, Batch(5))           # Bucket(5) is a subtype of Bucket(None): dispatched
  f(x, Batch(3))           # the exact Bucket(3) trace still wins
  assert traces(f) == 2


# ----------------------------------------------------------- other objects

def test_hashable_objects_trace_by_equality():
  @dataclasses.dataclass(frozen=True)
  class Cfg:
    scale: float
  f = tf.function(lambda x, cfg: x * cfg.scale)
  assert f(tf.constant(1.0), Cfg(2.0)).numpy() == 2.0
  assert f(tf.constant(2.0), Cfg(2.0)).numpy() == 4.0   # equal: reused
  assert traces(f) == 1
  assert f(tf.constant(1.0), Cfg(3.0)).numpy() == 3.0
  assert traces(f) == 2


def test_unhashable_objects_trace_by_identity_never_by_reused_id():
  @dataclasses.dataclass
  class Cfg:          # eq=True without frozen: unhashable
    scale: float
  f = tf.function(lambda x, cfg: x * cfg.scale)
  keep = Cfg(10.0)
  assert f(tf.constant(1.0), keep).numpy() == 10.0
  keep.scale = 20.0   # same object: the trace (with 10.0 baked in) is reused
  assert f(tf.constant(1.0), keep).numpy() == 10.0
  assert traces(f) == 1
  # Temporaries die after each call, so their id() may be reused by the next
  # one; that must never select the dead object's trace.
  for s in [2.0, 3.0, 4.0]:
    assert f(tf.constant(1.0), Cfg(s)).numpy() == s
    gc.collect()


def test_a_dead_objects_trace_is_never_reused_by_a_new_object_at_its_address():
  from tensorlet.polymorphic_function import trace_type

  @dataclasses.dataclass
  class Cfg:
    scale: float
  x = tf.constant(1.0)
  for attempt in range(200):
    f = tf.function(lambda x, cfg: x * cfg.scale)
    a = Cfg(1.0)
    key_a, id_a = trace_type.from_value(a), id(a)
    assert f(x, a).numpy() == 1.0
    del a
    b = Cfg(2.0)
    if id(b) == id_a:
      break
  else:
    pytest.skip("CPython never reused the address")
  assert trace_type.from_value(b) != key_a
  assert f(x, b).numpy() == 2.0
  assert traces(f) == 2


def test_separate_functions_never_share_traces():
  def f():
    return tf.constant(1)
  a, b = tf.function(f), tf.function(f)
  a()
  b()
  a()
  assert traces(a) == 1 and traces(b) == 1


class Scaler(tf.Module):
  def __init__(self, k):
    super().__init__()
    self.k = tf.Variable(k)
    self.calls = 0

  @tf.function
  def __call__(self, x):
    self.calls += 1
    return x * self.k


def test_methods_trace_per_instance():
  a, b = Scaler(2.0), Scaler(3.0)
  assert a(tf.constant(1.0)).numpy() == 2.0
  assert a(tf.constant(2.0)).numpy() == 4.0
  assert b(tf.constant(1.0)).numpy() == 3.0
  assert a.calls == 1 and b.calls == 1
  assert a.__call__.experimental_get_tracing_count() == 1
  assert b.__call__.experimental_get_tracing_count() == 1
  a.k.assign(5.0)
  assert a(tf.constant(1.0)).numpy() == 5.0 and a.calls == 1


# --------------------------------------------------------- input_signature

def test_input_signature_none_dims_do_not_retrace():
  log = []

  @tf.function(input_signature=(tf.TensorSpec(shape=[None], dtype=tf.int32),))
  def f(x, **unused):
    log.append(x)
    return x
  assert f(tf.constant([1, 2, 3])).numpy().tolist() == [1, 2, 3]
  assert f(tf.constant([1, 2, 3, 4, 5])).numpy().tolist() == [1, 2, 3, 4, 5]
  assert f(x=tf.constant([7])).numpy().tolist() == [7]
  assert traces(f) == 1 and len(log) == 1
  assert f.input_signature == (tf.TensorSpec(shape=[None], dtype=tf.int32),)


def test_input_signature_traces_from_the_specs():
  seen = []

  @tf.function(input_signature=(tf.TensorSpec(shape=[None], dtype=tf.int32),))
  def g(x):
    seen.append(str(x))
    return x
  g(tf.constant([1, 2, 3]))
  assert seen == ['Tensor("x:0", shape=(None,), dtype=int32)']


def test_input_signature_mismatch_raises_type_error_and_value_error():
  @tf.function(input_signature=(tf.TensorSpec(shape=[None], dtype=tf.int32),))
  def f(x):
    return x
  with pytest.raises(TypeError, match=r"Can not cast TensorSpec\(shape=\(2, 2\), "
                     r"dtype=tf.int32, name=None\) to TensorSpec\(shape=\(None,\), "
                     r"dtype=tf.int32, name=None\)"):
    f(tf.constant([[1, 2], [3, 4]]))
  with pytest.raises(ValueError):        # TF 2.0 raised ValueError (seed 003)
    f(tf.constant([[1, 2], [3, 4]]))
  with pytest.raises(TypeError, match="dtype=tf.float32"):
    f(tf.constant([1.0, 2.0]))
  with pytest.raises(TypeError):
    f(tf.constant([1]), tf.constant([2]))   # more arguments than the signature
  assert traces(f) <= 1


def test_input_signature_converts_python_values():
  f = tf.function(lambda x: x * 2, input_signature=[tf.TensorSpec([2], tf.float32)])
  assert f([1.0, 2.0]).numpy().tolist() == [2.0, 4.0]
  assert f(np.array([3.0, 4.0], np.float32)).numpy().tolist() == [6.0, 8.0]
  assert traces(f) == 1


def test_input_signature_must_hold_tensor_specs():
  with pytest.raises(TypeError, match="TensorSpec"):
    tf.function(lambda x: x, input_signature=[3])


def test_input_signature_with_nested_list():
  f = tf.function(lambda xs: xs[0] + xs[1],
                  input_signature=[[tf.TensorSpec([], tf.float32), tf.TensorSpec([], tf.float32)]])
  assert f([tf.constant(1.0), tf.constant(2.0)]).numpy() == 3.0
  assert f([3.0, 4.0]).numpy() == 7.0
  assert traces(f) == 1
  with pytest.raises(TypeError):
    f([tf.constant(1.0)])


def test_get_concrete_function_without_args_uses_input_signature():
  f = tf.function(lambda x: x + 1, input_signature=[tf.TensorSpec([None], tf.float32)])
  cf = f.get_concrete_function()
  assert cf(tf.constant([1.0, 2.0])).numpy().tolist() == [2.0, 3.0]
  assert f.get_concrete_function() is cf


# ----------------------------------------------------------- reduce_retracing

# (seed 002's reduce_retracing example, with its output: tests/seeds/test_seed002_function.py)
def test_reduce_retracing_generalises_only_differing_dims():
  seen = []

  @tf.function(reduce_retracing=True)
  def g(x):
    seen.append(x.shape.as_list())
    return x
  g(tf.ones([2, 3]))
  g(tf.ones([5, 3]))
  g(tf.ones([7, 3]))
  assert seen == [[2, 3], [None, 3]]
  g(tf.ones([2, 4]))
  assert seen[-1] == [None, None] and traces(g) == 3


def test_experimental_relax_shapes_is_reduce_retracing():
  g = tf.function(lambda x: x, experimental_relax_shapes=True)
  for n in range(1, 6):
    g(tf.ones([n]))
  assert traces(g) == 2


# ---------------------------------------------------- Python vs tensor args

def test_tensor_num_steps_traces_once():
  log = []

  @tf.function
  def train(num_steps):
    log.append(num_steps)
    return num_steps
  train(num_steps=10)
  train(num_steps=20)
  assert traces(train) == 2
  train(num_steps=tf.constant(10))
  train(num_steps=tf.constant(20))
  assert traces(train) == 3
  assert str(log[-1]) == 'Tensor("num_steps:0", shape=(), dtype=int32)'


def test_keyword_and_positional_calls_share_a_trace():
  f = tf.function(lambda a, b=1.0: a * b)
  f(tf.constant(2.0), tf.constant(3.0))
  f(tf.constant(2.0), b=tf.constant(4.0))
  f(a=tf.constant(1.0), b=tf.constant(5.0))
  assert traces(f) == 1
  assert f(tf.constant(2.0)).numpy() == 2.0
  assert traces(f) == 2
  with pytest.raises(TypeError):
    f(tf.constant(1.0), c=3)


def test_varargs_and_kwargs():
  @tf.function
  def f(*xs, **kw):
    return tf.add_n(list(xs)) * kw.get("scale", 1.0)
  assert f(tf.constant(1.0), tf.constant(2.0)).numpy() == 3.0
  assert f(tf.constant(1.0), tf.constant(2.0), scale=2.0).numpy() == 6.0
  assert f(tf.constant(3.0), tf.constant(4.0)).numpy() == 7.0
  assert traces(f) == 2


# ---------------------------------------------------- concrete functions

@tf.function
def double(a):
  return a + a


def test_get_concrete_function_with_tensors_specs_and_python_values():
  cf = double.get_concrete_function(tf.constant("a"))
  assert double.get_concrete_function(tf.TensorSpec(shape=[], dtype=tf.string)) is cf
  assert cf(tf.constant("a")).numpy() == b"aa"
  assert cf(a=tf.constant("b")).numpy() == b"bb"

  @tf.function
  def pow_(a, b):
    return a ** b
  square = pow_.get_concrete_function(a=tf.TensorSpec(None, tf.float32), b=2)
  assert square(tf.constant(10.0)).numpy() == 100.0
  assert square(tf.constant([2.0, 3.0])).numpy().tolist() == [4.0, 9.0]
  assert square(tf.constant(10.0), b=2).numpy() == 100.0
  with pytest.raises(TypeError, match=r"Can not cast 3 to Literal\[2\]"):
    square(tf.constant(10.0), b=3)
  assert pow_.experimental_get_tracing_count() == 1


def test_concrete_function_wrong_dtype_is_invalid_argument():
  cf = double.get_concrete_function(tf.TensorSpec(shape=[], dtype=tf.string))
  with pytest.raises(tf.errors.InvalidArgumentError,
                     match=r"cannot compute __inference_double.* as input #0\(zero-based\) was "
                           r"expected to be a string tensor but is a int32 tensor"):
    cf(tf.constant(1))


def test_concrete_function_wrong_shape_and_arity():
  cf = double.get_concrete_function(tf.TensorSpec(shape=[2], dtype=tf.float32))
  with pytest.raises(tf.errors.InvalidArgumentError):
    cf(tf.constant([1.0, 2.0, 3.0]))
  with pytest.raises(TypeError):
    cf(tf.constant([1.0, 2.0]), tf.constant([1.0, 2.0]))
  with pytest.raises(TypeError):
    cf()
  with pytest.raises(TypeError):
    cf(tf.constant([1.0, 2.0]), c=1)


def test_concrete_function_printing_seed002():
  cf = double.get_concrete_function(tf.constant("a"))
  assert str(cf) == (
      "ConcreteFunction Input Parameters:\n"
      "  a (POSITIONAL_OR_KEYWORD): TensorSpec(shape=(), dtype=tf.string, name=None)\n"
      "Output Type:\n"
      "  TensorSpec(shape=(), dtype=tf.string, name=None)\n"
      "Captures:\n"
      "  None")
  assert str(cf.function_type) == ("(a: TensorSpec(shape=(), dtype=tf.string, name=None)) -> "
                                   "TensorSpec(shape=(), dtype=tf.string, name=None)")


def test_pretty_printed_concrete_signatures_lists_every_trace():
  @tf.function
  def d(a):
    return a + a
  d(tf.constant(1))
  d(tf.constant(1.1))
  assert d.pretty_printed_concrete_signatures() == (
      "Input Parameters:\n"
      "  a (POSITIONAL_OR_KEYWORD): TensorSpec(shape=(), dtype=tf.int32, name=None)\n"
      "Output Type:\n"
      "  TensorSpec(shape=(), dtype=tf.int32, name=None)\n"
      "Captures:\n"
      "  None\n"
      "\n"
      "Input Parameters:\n"
      "  a (POSITIONAL_OR_KEYWORD): TensorSpec(shape=(), dtype=tf.float32, name=None)\n"
      "Output Type:\n"
      "  TensorSpec(shape=(), dtype=tf.float32, name=None)\n"
      "Captures:\n"
      "  None")


def test_literal_parameter_and_captures_in_signature():
  c = tf.constant([1.0, 2.0])

  @tf.function
  def f(a, b):
    return a ** b + c
  cf = f.get_concrete_function(a=tf.TensorSpec(None, tf.float32), b=2)
  text = str(cf)
  assert "  a (POSITIONAL_OR_KEYWORD): TensorSpec(shape=<unknown>, dtype=tf.float32, name=None)" \
      in text
  assert "  b (POSITIONAL_OR_KEYWORD): Literal[2]" in text
  assert re.search(r"Captures:\n  \d+: TensorSpec\(shape=\(2,\), dtype=tf.float32, name=None\)",
                   text)
  assert cf.captured_inputs[0] is c


def test_structured_signatures_and_outputs():
  @tf.function
  def f(x, n, pair):
    return {"y": x * 2, "n": n, "pair": (pair[0] + 1, None)}
  cf = f.get_concrete_function(tf.TensorSpec([None, 2], tf.float32), 3,
                               (tf.constant(1), tf.constant(2)))
  args, kwargs = cf.structured_input_signature
  assert kwargs == {}
  # TF 2.21 names each TensorSpec by its argument path.
  assert args[0] == tf.TensorSpec([None, 2], tf.float32, name="x")
  assert args[1] == 3
  assert args[2] == (tf.TensorSpec([], tf.int32, name="pair_0"),
                     tf.TensorSpec([], tf.int32, name="pair_1"))
  out = cf.structured_outputs
  assert set(out) == {"y", "n", "pair"}
  assert out["y"].shape.as_list() == [None, 2] and out["y"].dtype == tf.float32
  assert out["n"].dtype == tf.int32         # Python outputs become tensors, as in TF
  assert out["pair"][1] is None
  r = cf(tf.ones([3, 2]), 3, (tf.constant(1), tf.constant(2)))
  assert r["y"].numpy().tolist() == [[2.0, 2.0]] * 3
  assert r["n"].numpy() == 3 and r["pair"][0].numpy() == 2 and r["pair"][1] is None
  assert cf.output_dtypes["y"] == tf.float32


def test_python_outputs_become_tensors():
  @tf.function
  def f():
    return 10, None, "s", 2.5
  a, b, c, d = f()
  assert isinstance(a, tf.Tensor) and a.dtype == tf.int32 and a.numpy() == 10
  assert b is None
  assert c.numpy() == b"s" and d.dtype == tf.float32


def test_graph_as_graph_def_and_operations():
  cf = double.get_concrete_function(tf.constant("a"))
  graph = cf.graph
  lines = [f"{node.input} -> {node.name}" for node in graph.as_graph_def().node]
  assert lines == ["[] -> a", "['a', 'a'] -> add", "['add'] -> Identity"]
  assert [op.type for op in graph.get_operations()] == ["Placeholder", "AddV2", "Identity"]
  assert [n.op for n in graph.as_graph_def().node] == ["Placeholder", "AddV2", "Identity"]
  assert isinstance(graph.get_operations()[1], tf.Operation)
  assert graph.get_operation_by_name("add").outputs[0].name == "add:0"
  assert graph.get_tensor_by_name("add:0") is graph.get_operations()[1].outputs[0]
  assert [t.name for t in cf.inputs] == ["a:0"]
  assert [t.name for t in cf.outputs] == ["Identity:0"]


def test_graph_op_names_are_unique_tf_style():
  @tf.function
  def f(x):
    return x * x + x * 2.0 + x
  g = f.get_concrete_function(tf.constant(1.0)).graph
  names = [op.name for op in g.get_operations()]
  assert len(set(names)) == len(names)
  assert "mul" in names and "mul_1" in names and "add" in names and "add_1" in names


def test_name_scopes_prefix_op_names():
  @tf.function
  def f(x):
    with tf.name_scope("layer"):
      y = x + 1.0
    with tf.name_scope("layer"):
      z = y * 2.0
    return z
  names = [op.name for op in f.get_concrete_function(tf.constant(1.0)).graph.get_operations()]
  assert "layer/add" in names and "layer_1/mul" in names


def test_inference_fn_runs_the_graph():
  cf = double.get_concrete_function(tf.constant("a"))
  assert cf.inference_fn(tf.constant("a")).numpy() == b"aa"


def test_function_metadata():
  def my_func(x):
    """Adds one."""
    return x + 1
  f = tf.function(my_func)
  assert f.python_function is my_func
  assert f.__name__ == "my_func"
  assert f.__doc__ == "Adds one."
  assert isinstance(f, tf.types.experimental.PolymorphicFunction)
  assert "Function" in repr(f)
  cf = f.get_concrete_function(tf.constant(1))
  assert isinstance(cf, tf.types.experimental.ConcreteFunction)
  assert cf.name == "my_func"

  @tf.function(input_signature=[tf.TensorSpec([], tf.float32)])
  def decorated(x):
    """Doc."""
    return x
  assert decorated.__name__ == "decorated" and decorated.__doc__ == "Doc."


def test_tf_function_rejects_non_callables():
  with pytest.raises(TypeError):
    tf.function(3)


# ------------------------------------------------------------ retrace warning

def test_retrace_warning_names_function_argument_types_and_fix():
  @tf.function
  def often(x, scale):
    return x * scale
  x = tf.constant(1.0)
  with warnings.catch_warnings():
    warnings.simplefilter("error")
    for s in range(4):
      often(x, float(s))          # 4 traces: no warning yet
  with pytest.warns(RuntimeWarning) as rec:
    often(x, 10.0)
  assert len(rec) == 1
  msg = str(rec[0].message)
  # TF's first sentence and counts, then what changed and the fix for that cause
  assert msg.startswith("5 out of the last 5 calls to <function ")
  assert "often" in msg and "triggered tf.function retracing" in msg
  assert "argument 'scale': Literal[3.0] -> Literal[10.0]" in msg
  assert "Fix: pass tensors instead of Python numbers" in msg
  assert rec[0].filename == __file__     # points at the caller's line


def test_retrace_warning_for_changing_shapes_names_the_nested_argument():
  @tf.function
  def f(batch):
    return batch["x"] + 1
  with pytest.warns(RuntimeWarning, match=r"argument 'batch\['x'\]': TensorSpec\(shape=\(4,\)"
                    r".*-> TensorSpec\(shape=\(5,\)"):
    for n in range(1, 6):
      f({"x": tf.ones([n])})


def test_retrace_warning_is_given_twice_at_most():
  # as TF: "5 out of the last 5", "6 out of the last 6", then quiet
  f = tf.function(lambda n: tf.constant(n))
  with pytest.warns(RuntimeWarning, match="5 out of the last 5 calls"):
    for n in range(5):
      f(n)
  with pytest.warns(RuntimeWarning, match="6 out of the last 6 calls"):
    f(5)
  with warnings.catch_warnings():
    warnings.simplefilter("error")
    for n in range(6, 10):
      f(n)
  assert traces(f) == 10


def test_retrace_warning_counts_calls_without_tracing_as_tf():
  @tf.function
  def f(x):
    return x + 1
  with warnings.catch_warnings():
    warnings.simplefilter("error")
    for n in range(4):  # 4 traces, each followed by 2 cached calls: 12 calls
      for _ in range(3):
        f(n)
  with pytest.warns(RuntimeWarning) as rec:  # the counts real TF 2.21 prints here
    for n in range(4, 6):
      f(n)
  assert [str(r.message).split(" calls")[0] for r in rec] == \
      ["5 out of the last 13", "5 out of the last 11"]


def test_retrace_warning_for_function_recreated_in_a_loop():
  def body(x):
    return x * 2
  x = tf.constant(1.0)
  with pytest.warns(RuntimeWarning, match="created anew on each call") as rec:
    for _ in range(5):
      tf.function(body)(x)
  assert str(rec[0].message).startswith("5 out of the last 5 calls to <function ")


def test_input_signature_with_varargs():
  # TF binds the specs past the named parameters to *args
  @tf.function(input_signature=[tf.TensorSpec([], tf.float32), tf.TensorSpec([None, 3]),
                                tf.TensorSpec([3])])
  def f(scale, *xs):
    return scale * (xs[0] + xs[1])
  out = f(2.0, np.ones([2, 3], np.float32), tf.ones([3]))
  np.testing.assert_array_equal(out.numpy(), np.full([2, 3], 4.0, np.float32))
  f(1.0, tf.ones([5, 3]), tf.ones([3]))
  assert f.experimental_get_tracing_count() == 1
  with pytest.raises(TypeError):
    f(1.0, tf.ones([5, 4]), tf.ones([3]))
  with pytest.raises(TypeError):
    f(1.0, tf.ones([5, 3]))
