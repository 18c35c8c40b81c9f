"""Trace-type classes, the one argument binder (FunctionType.bind) and the
function cache: unit behaviour, and agreement of the fast all-tensor path with
the general one."""
import collections
import inspect

import numpy as np
import pytest

import tensorlet as tf
from tensorlet.polymorphic_function import trace_type as tt
from tensorlet.polymorphic_function.cache import FunctionCache
from tensorlet.polymorphic_function.function_type import FunctionType


def T(shape, dtype=tf.float32):
  return tt.TensorType(dtype, None if shape is None else tuple(shape))


# ----------------------------------------------------------------- TensorType
def test_tensor_type_of_tensors_arrays_and_specs():
  assert tt.from_value(tf.constant([1.0, 2.0])) == T([2])
  assert tt.from_value(np.zeros([2, 3], np.int32)) == T([2, 3], tf.int32)
  assert tt.from_value(tf.TensorSpec([None, 3], tf.float32, name="x")) == T([None, 3])
  assert tt.from_value(tf.TensorSpec(None, tf.string)) == T(None, tf.string)
  assert hash(T([2])) == hash(tt.from_value(tf.ones([2])))


@pytest.mark.parametrize("a, b, sub", [
    ([3], [3], True), ([3], [None], True), ([None], [3], False), ([3], None, True),
    (None, [3], False), ([2, 3], [None, None], True), ([2, 3], [None], False),
    ([], [], True), ([], None, True)])
def test_tensor_subtype_follows_dims(a, b, sub):
  assert T(a).is_subtype_of(T(b)) is sub


def test_tensor_subtype_needs_same_dtype():
  assert not T([3]).is_subtype_of(T([3], tf.int32))
  assert T([3]).most_specific_common_supertype([T([3], tf.int32)]) is None


def test_tensor_common_supertype():
  assert T([2, 3]).most_specific_common_supertype([T([2, 4])]) == T([2, None])
  assert T([2, 3]).most_specific_common_supertype([T([2, 3])]) == T([2, 3])
  assert T([2]).most_specific_common_supertype([T([2, 1])]) == T(None)
  assert T([2, 3]).most_specific_common_supertype([T([1, 3]), T([2, 3])]) == T([None, 3])


def test_tensor_describe_and_input_spec():
  t = T([None, 2], tf.int64)
  assert t.describe() == "TensorSpec(shape=(None, 2), dtype=tf.int64, name=None)"
  assert t.input_spec() == tf.TensorSpec([None, 2], tf.int64)


# ------------------------------------------------------- literals and others
def test_literal_types_compare_type_and_value():
  assert tt.from_value(1) == tt.LiteralType(1)
  assert tt.from_value(1) != tt.from_value(1.0)
  assert tt.from_value(1) != tt.from_value(True)
  assert tt.from_value(None) == tt.LiteralType(None)
  assert tt.from_value("a").describe() == "Literal['a']"
  assert not tt.from_value(2).is_subtype_of(tt.from_value(3))
  assert tt.from_value(2).most_specific_common_supertype([tt.from_value(3)]) is None
  assert tt.from_value(2).most_specific_common_supertype([tt.from_value(2)]) == tt.LiteralType(2)


def test_variable_type_is_spec_as_tf():
  # TF 2.21: a variable argument's trace type is its VariableSpec (shape, dtype,
  # trainable, alias id), not its identity.
  v, w = tf.Variable(1.0), tf.Variable(1.0)
  assert isinstance(tt.from_value(v), tt.VariableType)
  assert tt.from_value(v) == tt.from_value(w)
  assert tt.from_value(v) != tt.from_value(tf.Variable(1.0, trainable=False))
  assert tt.from_value(v) != tt.from_value(tf.Variable(1))
  assert tt.from_value(v) != tt.from_value(tf.Variable([1.0]))
  assert repr(tt.from_value(v)) == ("VariableSpec(shape=(), dtype=tf.float32, trainable=True, "
                                    "alias_id=0)")


def test_hashable_and_unhashable_objects():
  class Unhashable:
    __hash__ = None
  u = Unhashable()
  assert isinstance(tt.from_value(u), tt.WeakrefType)
  assert tt.from_value(u) == tt.from_value(u)
  assert tt.from_value(u) != tt.from_value(Unhashable())
  assert tt.from_value(frozenset([1])) == tt.from_value(frozenset([1]))
  assert isinstance(tt.from_value(frozenset([1])), tt.OpaqueType)


# ------------------------------------------------------------- containers
def test_sequence_types():
  a = tt.from_value([tf.ones([2]), 1])
  assert a == tt.SequenceType(list, (T([2]), tt.LiteralType(1)))
  assert a.is_subtype_of(tt.SequenceType(list, (T([None]), tt.LiteralType(1))))
  assert not a.is_subtype_of(tt.SequenceType(tuple, (T([None]), tt.LiteralType(1))))
  assert not a.is_subtype_of(tt.SequenceType(list, (T([None]),)))
  sup = a.most_specific_common_supertype([tt.from_value([tf.ones([3]), 1])])
  assert sup == tt.SequenceType(list, (T([None]), tt.LiteralType(1)))
  assert a.most_specific_common_supertype([tt.from_value([tf.ones([3]), 2])]) is None
  assert a.describe() == ("list[TensorSpec(shape=(2,), dtype=tf.float32, name=None), "
                          "Literal[1]]")


def test_namedtuple_and_mapping_types():
  P = collections.namedtuple("P", "x y")
  p = tt.from_value(P(tf.ones([2]), 3))
  assert p.container is P
  assert p.input_spec() == P(tf.TensorSpec([2]), 3)
  d = tt.from_value({"b": tf.ones([2]), "a": 1})
  assert d.keys == ("a", "b")
  assert d.is_subtype_of(tt.MappingType(dict, ("a", "b"), (tt.LiteralType(1), T([None]))))
  assert not d.is_subtype_of(tt.MappingType(dict, ("a", "c"), (tt.LiteralType(1), T([None]))))
  assert d.diff(tt.from_value({"b": tf.ones([3]), "a": 1}), "x") == [
      ("x['b']", T([2]).describe(), T([3]).describe())]


def test_custom_trace_type_wraps_user_types():
  class Kind(tf.types.experimental.TraceType):
    def __init__(self, k):
      self.k = k

    def is_subtype_of(self, other):
      return isinstance(other, Kind) and (other.k == "any" or other.k == self.k)

    def most_specific_common_supertype(self, others):
      return self if all(o.k == self.k for o in others) else Kind("any")

    def __eq__(self, other):
      return isinstance(other, Kind) and other.k == self.k

    def __hash__(self):
      return hash(self.k)

  class Thing:
    def __init__(self, k):
      self.k = k

    def __tf_tracing_type__(self, context):
      return Kind(self.k)
  a, b = tt.from_value(Thing("a")), tt.from_value(Thing("b"))
  assert isinstance(a, tt.CustomType)
  assert not a.is_subtype_of(b)
  sup = a.most_specific_common_supertype([b])
  assert sup == tt.CustomType(Kind("any")) and a.is_subtype_of(sup)


# ------------------------------------------------------------------ binder
def _signatures():
  def f1(a, b): pass
  def f2(a, b=2, *args, c, d=4, **kw): pass
  def f3(a, /, b, *, c=3): pass
  def f4(*args): pass
  def f5(**kw): pass
  return [f1, f2, f3, f4, f5]


_CALLS = [((), {}), ((1,), {}), ((1, 2), {}), ((1, 2, 3), {}), ((1,), {"b": 2}),
          ((1,), {"c": 3}), ((1, 2), {"c": 3, "e": 5}), ((), {"a": 1, "b": 2}),
          ((1,), {"a": 1}), ((1, 2, 3, 4), {"c": 0}), ((), {"c": 1, "a": 2})]


@pytest.mark.parametrize("fn", _signatures(), ids=lambda f: f.__name__)
def test_bind_agrees_with_python(fn):
  sig = inspect.signature(fn)
  ft = FunctionType.from_callable(fn)
  for args, kwargs in _CALLS:
    try:
      b = sig.bind(*args, **kwargs)
    except TypeError:
      with pytest.raises(TypeError):
        ft.bind(args, kwargs)
      continue
    b.apply_defaults()
    assert ft.bind(args, kwargs) == tuple(b.arguments.values()), (args, kwargs)


def test_bind_messages_name_the_function_and_argument():
  def f(x, y):
    pass
  ft = FunctionType.from_callable(f)
  with pytest.raises(TypeError, match=r"f\(\): missing required argument: 'y'"):
    ft.bind((1,), {})
  with pytest.raises(TypeError, match="unexpected keyword argument 'z'"):
    ft.bind((1, 2), {"z": 3})
  with pytest.raises(TypeError, match="multiple values for argument 'x'"):
    ft.bind((1, 2), {"x": 3})


def test_one_binder_serves_function_concrete_function_and_inference_fn():
  @tf.function
  def f(*xs, scale=2.0):
    return tf.add_n(list(xs)) * scale
  x = tf.constant([1.0, 2.0])
  assert f(x, x).numpy().tolist() == [4.0, 8.0]
  cf = f.get_concrete_function(x, x)
  # TF binds a trace's *args positionally too; the Python keyword keeps its traced value
  assert cf(x, x).numpy().tolist() == [4.0, 8.0]
  with pytest.raises(TypeError, match="Literal"):
    cf(x, x, scale=3.0)
  with pytest.raises(TypeError):
    cf(x)
  inf = cf.inference_fn
  assert inf(x, x).numpy().tolist() == [4.0, 8.0]
  assert [p.name for p in inf.function_type.parameters] == ["arg0", "arg1"]
  with pytest.raises(TypeError):
    inf(x)
  with pytest.raises(tf.errors.InvalidArgumentError):
    inf(x, tf.constant([1, 2]))


# ------------------------------------------------------------------- cache
def test_cache_most_specific_trace_wins_and_generalizes():
  c = FunctionCache()
  c.add((T([None]),), "wide")
  c.add((T([3]),), "narrow")
  assert c.lookup((T([3]),)) == "narrow"
  assert c.lookup((T([4]),)) == "wide"
  assert c.lookup((T([4, 1]),)) is None
  assert c.generalize((T([5]),)) == (T([None]),)
  assert c.generalize((T([5, 1]),)) == (T(None),)
  assert c.generalize((tt.LiteralType(1),)) == (tt.LiteralType(1),)


def test_fast_path_agrees_with_general_path():
  @tf.function
  def f(x, y):
    return x * 2 + tf.cast(tf.size(y), x.dtype)
  rng = np.random.default_rng(0)
  shapes = [(2,), (3,), (2,), (2, 2), (3,), ()]
  for s in shapes:
    x = tf.constant(rng.standard_normal(s).astype(np.float32))
    y = tf.constant(rng.integers(0, 5, size=s))
    fast = f(x, y)                      # positional eager tensors: the fast path
    general = f(x, y=y)                 # keywords: binder + trace types + cache
    np.testing.assert_array_equal(fast.numpy(), general.numpy())
    types = (tt.from_value(x), tt.from_value(y))
    key = ((x.dtype._enum, tuple(s)), (y.dtype._enum, tuple(s)))
    assert f._cache.fast[key] is f._cache.lookup(types)
  assert f.experimental_get_tracing_count() == 4


def test_fast_path_never_serves_non_tensors():
  @tf.function
  def f(x):
    return x + 1
  f(tf.constant(1.0))
  assert f(np.float32(1.0)).numpy() == 2.0
  assert f(tf.Variable(1.0)).numpy() == 2.0
  assert f(1.0).numpy() == 2.0


def test_reduce_retracing_traces_the_common_supertype():
  @tf.function(reduce_retracing=True)
  def f(x):
    return x + 1
  f(tf.ones([2]))
  f(tf.ones([3]))
  f(tf.ones([7]))
  assert f.experimental_get_tracing_count() == 2
  assert [k for k, _ in f._cache.traces] == [(T([2]),), (T([None]),)]
