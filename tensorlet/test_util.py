"""tf.test: TestCase with TF's tensor assertions, device queries and main().

TestCase is a unittest.TestCase (pytest runs it too). Assertions take tensors,
NumPy arrays, Python values or nested structures of them.
"""
import contextlib
import os
import random
import re
import tempfile
import unittest

import numpy as np

from tensorlet import errors as _errors

DEFAULT_SEED = 87654321  # TF's DEFAULT_GRAPH_SEED, set before each test as TF does


def _to_numpy(v):
  if hasattr(v, "numpy"):
    return v.numpy()
  return v


def _nest():
  from tensorlet import nest
  return nest


def is_gpu_available(cuda_only=False, min_cuda_compute_capability=None):
  """False: tensorlet runs on the CPU (NumPy) only."""
  return False


def gpu_device_name():
  """'' : there is no GPU device."""
  return ""


def is_built_with_cuda():
  return False


def is_built_with_rocm():
  return False


def is_built_with_gpu_support():
  return False


def is_built_with_xla():
  return False


def main(argv=None):
  """Runs the tests of the calling module (unittest's runner)."""
  return unittest.main(argv=argv)


class _EagerSession:
  """What `cached_session()` yields: `run` evaluates (eager) tensors."""

  def __init__(self, case):
    self._case = case

  def run(self, fetches, feed_dict=None):
    if feed_dict:
      raise NotImplementedError("feed_dict is a TF1 session feature, not implemented in "
                                "tensorlet")
    return self._case.evaluate(fetches)


class TestCase(unittest.TestCase):
  """unittest.TestCase with TensorFlow's assertion helpers."""

  def setUp(self):
    super().setUp()
    from tensorlet.ops import random_ops
    random.seed(DEFAULT_SEED)
    np.random.seed(DEFAULT_SEED)
    random_ops.set_seed(DEFAULT_SEED)

  def get_temp_dir(self):
    d = getattr(self, "_tempdir", None)
    if d is None:
      d = self._tempdir = tempfile.mkdtemp(prefix="tensorlet_test_")
    return d

  def create_tempdir(self):
    return tempfile.mkdtemp(dir=self.get_temp_dir())

  def create_tempfile(self, file_path=None, content=None):
    path = os.path.join(self.get_temp_dir(), file_path or next(tempfile._get_candidate_names()))
    with open(path, "w" if isinstance(content, str) or content is None else "wb") as f:
      if content is not None:
        f.write(content)
    return path

  def evaluate(self, tensors):
    """NumPy values of a (nested structure of) tensors."""
    return _nest().map_structure(_to_numpy, tensors)

  @contextlib.contextmanager
  def cached_session(self, *args, **kwargs):
    yield _EagerSession(self)

  session = cached_session
  test_session = cached_session

  # ------------------------------------------------------- value checks

  def _flat_pairs(self, a, b, msg):
    a, b = self.evaluate(a), self.evaluate(b)
    if isinstance(a, dict) or isinstance(b, dict):
      self.assertIsInstance(a, dict, msg)
      self.assertIsInstance(b, dict, msg)
      self.assertEqual(sorted(a), sorted(b), msg)
      pairs = []
      for k in a:
        pairs += self._flat_pairs(a[k], b[k], msg)
      return pairs
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)) and (
        _is_structure(a) or _is_structure(b)):
      self.assertEqual(len(a), len(b), f"{msg or ''} length mismatch {len(a)} != {len(b)}")
      pairs = []
      for x, y in zip(a, b):
        pairs += self._flat_pairs(x, y, msg)
      return pairs
    return [(a, b)]

  def assertAllClose(self, a, b, rtol=1e-6, atol=1e-6, msg=None):  # noqa: N802
    """Every value of a within atol + rtol * |b| of b; shapes equal (nests allowed)."""
    for x, y in self._flat_pairs(a, b, msg):
      x, y = np.asarray(x), np.asarray(y)
      self.assertEqual(x.shape, y.shape, f"{msg or ''} shape mismatch: {x.shape} vs "
                       f"{y.shape}")
      if x.dtype.kind in "OSU" or y.dtype.kind in "OSU":
        np.testing.assert_array_equal(x, y, err_msg=msg or "")
        continue
      if x.dtype.kind in "fiub" and y.dtype.kind in "fiub":  # compare in float64
        x, y = x.astype(np.float64), y.astype(np.float64)
      np.testing.assert_allclose(x, y, rtol=rtol, atol=atol, err_msg=msg or "", equal_nan=True)

  def assertAllCloseAccordingToType(self, a, b, rtol=1e-6, atol=1e-6,  # noqa: N802
                                    float_rtol=1e-6, float_atol=1e-6, half_rtol=1e-3,
                                    half_atol=1e-3, bfloat16_rtol=1e-2, bfloat16_atol=1e-2,
                                    msg=None):
    """assertAllClose with tolerances loosened to the lowest precision involved."""
    x, y = np.asarray(self.evaluate(a)), np.asarray(self.evaluate(b))
    dts = {x.dtype.name, y.dtype.name}
    if "float16" in dts:
      rtol, atol = max(rtol, half_rtol), max(atol, half_atol)
    elif "float32" in dts or "complex64" in dts:
      rtol, atol = max(rtol, float_rtol), max(atol, float_atol)
    self.assertAllClose(x, y, rtol=rtol, atol=atol, msg=msg)

  def assertNotAllClose(self, a, b, rtol=1e-6, atol=1e-6, msg=None):  # noqa: N802
    try:
      self.assertAllClose(a, b, rtol=rtol, atol=atol, msg=msg)
    except AssertionError:
      return
    raise AssertionError(msg or "The two values are close at all elements")

  def assertAllEqual(self, a, b, msg=None):  # noqa: N802
    """Same shape and exactly equal values."""
    x, y = np.asarray(self.evaluate(a)), np.asarray(self.evaluate(b))
    if x.shape != y.shape and x.size == y.size == 1:
      x, y = x.reshape(()), y.reshape(())
    self.assertEqual(x.shape, y.shape, f"{msg or ''} shape mismatch: {x.shape} vs {y.shape}")
    np.testing.assert_array_equal(x, y, err_msg=msg or "")

  def assertNotAllEqual(self, a, b, msg=None):  # noqa: N802
    try:
      self.assertAllEqual(a, b, msg)
    except AssertionError:
      return
    raise AssertionError(msg or "The two values are equal at all elements")

  def _all(self, a, pred, what, msg):
    x = np.asarray(self.evaluate(a))
    ok = pred(x)
    if not np.all(ok):
      raise AssertionError(f"{msg or ''} not all elements {what}: {x[~np.asarray(ok)]!r}")

  def assertAllGreater(self, a, comparison_target):  # noqa: N802
    self._all(a, lambda x: x > comparison_target, f"> {comparison_target}", None)

  def assertAllGreaterEqual(self, a, comparison_target):  # noqa: N802
    self._all(a, lambda x: x >= comparison_target, f">= {comparison_target}", None)

  def assertAllLess(self, a, comparison_target):  # noqa: N802
    self._all(a, lambda x: x < comparison_target, f"< {comparison_target}", None)

  def assertAllLessEqual(self, a, comparison_target):  # noqa: N802
    self._all(a, lambda x: x <= comparison_target, f"<= {comparison_target}", None)

  def assertAllInRange(self, target, lower_bound, upper_bound, open_lower_bound=False,  # noqa: N802
                       open_upper_bound=False):
    lo = (lambda x: x > lower_bound) if open_lower_bound else (lambda x: x >= lower_bound)
    hi = (lambda x: x < upper_bound) if open_upper_bound else (lambda x: x <= upper_bound)
    self._all(target, lambda x: lo(x) & hi(x), f"in range {lower_bound}..{upper_bound}", None)

  def assertAllInSet(self, target, expected_set):  # noqa: N802
    values = set(np.asarray(self.evaluate(target)).ravel().tolist())
    extra = values - set(np.asarray(list(expected_set)).ravel().tolist())
    if extra:
      raise AssertionError(f"{sorted(extra)!r} not in {expected_set!r}")

  def assertArrayNear(self, farray1, farray2, err, msg=None):  # noqa: N802
    self.assertEqual(len(farray1), len(farray2), msg)
    for f1, f2 in zip(farray1, farray2):
      self.assertNear(float(f1), float(f2), err, msg)

  def assertNear(self, f1, f2, err, msg=None):  # noqa: N802
    if not abs(f1 - f2) <= err:
      raise AssertionError(f"{f1} != {f2} +/- {err}{' : ' + msg if msg else ''}")

  def assertShapeEqual(self, input_a, input_b, msg=None):  # noqa: N802
    a = np.shape(self.evaluate(input_a))
    b = tuple(input_b.shape.as_list()) if hasattr(input_b, "shape") and hasattr(
        input_b.shape, "as_list") else np.shape(input_b)
    self.assertEqual(tuple(a), tuple(b), msg)

  def assertDTypeEqual(self, target, expected_dtype):  # noqa: N802
    from tensorlet import dtypes
    got = target.dtype if hasattr(target, "dtype") else np.asarray(target).dtype
    self.assertEqual(dtypes.as_dtype(got), dtypes.as_dtype(expected_dtype))

  # ------------------------------------------------------- error checks

  def assertRaisesWithPredicateMatch(self, exception_type, expected_err_re_or_predicate):  # noqa: N802
    """Context manager: raises `exception_type` whose message matches (or predicate)."""
    if callable(expected_err_re_or_predicate):
      predicate = expected_err_re_or_predicate
    else:
      def predicate(e):
        return re.search(expected_err_re_or_predicate, str(e)) is not None
    return _RaisesMatch(self, exception_type, predicate)

  def assertRaisesOpError(self, expected_err_re_or_predicate):  # noqa: N802
    """Context manager: the block raises a tf.errors.OpError matching the pattern."""
    return self.assertRaisesWithPredicateMatch(_errors.OpError, expected_err_re_or_predicate)

  def assertRaisesIncompatibleShapesError(self, exception_type=_errors.InvalidArgumentError):  # noqa: N802
    return self.assertRaisesWithPredicateMatch(
        exception_type, r"Incompatible shapes|Dimensions must be equal|required broadcastable "
        r"shapes")

  def assertStartsWith(self, actual, expected_start, msg=None):  # noqa: N802
    if not actual.startswith(expected_start):
      raise AssertionError(f"{actual!r} does not start with {expected_start!r} {msg or ''}")

  def assertProtoEquals(self, expected_message_maybe_ascii, message, msg=None):  # noqa: N802
    from google.protobuf import text_format
    if isinstance(expected_message_maybe_ascii, str):
      expected = type(message)()
      text_format.Merge(expected_message_maybe_ascii, expected)
    else:
      expected = expected_message_maybe_ascii
    self.assertEqual(expected, message, msg)


class _RaisesMatch:
  def __init__(self, case, exception_type, predicate):
    self._case, self._type, self._pred = case, exception_type, predicate

  def __enter__(self):
    return self

  def __exit__(self, exc_type, exc, tb):
    if exc_type is None:
      raise AssertionError(f"{self._type.__name__} not raised")
    if not issubclass(exc_type, self._type):
      return False  # a different error propagates, as TF's helper lets it
    if not self._pred(exc):
      raise AssertionError(f"Exception of type {exc_type.__name__}: {exc} does not match")
    return True


def _is_structure(v):
  return any(isinstance(e, (list, tuple, dict)) or hasattr(e, "numpy") for e in v) \
      and not all(isinstance(e, (int, float, complex, bool, np.generic)) for e in v)


def compute_gradient(f, x, delta=None):
  """(theoretical, numerical) Jacobians of f at the list of tensors x, as tf.test's."""
  from tensorlet.autodiff.tape import GradientTape
  from tensorlet.tensor import constant
  xs = [np.asarray(_to_numpy(v)) for v in x]
  delta = 1e-3 if delta is None else delta
  theo, num = [], []
  y0 = np.asarray(_to_numpy(f(*[constant(v) for v in xs])))
  for i, xi in enumerate(xs):
    jt = np.zeros((y0.size, xi.size), dtype=xi.dtype if xi.dtype.kind == "f" else np.float64)
    jn = np.zeros_like(jt)
    for r in range(y0.size):
      ts = [constant(v) for v in xs]
      with GradientTape() as tape:
        tape.watch(ts[i])
        y = f(*ts)
        from tensorlet.ops import array_ops
        yr = array_ops.reshape(y, [-1])[r]
      g = tape.gradient(yr, ts[i])
      jt[r] = 0 if g is None else np.asarray(_to_numpy(g)).ravel()
    for c in range(xi.size):
      plus, minus = xi.copy().ravel(), xi.copy().ravel()
      plus[c] += delta
      minus[c] -= delta
      args_p = [constant(plus.reshape(xi.shape)) if j == i else constant(v)
                for j, v in enumerate(xs)]
      args_m = [constant(minus.reshape(xi.shape)) if j == i else constant(v)
                for j, v in enumerate(xs)]
      jn[:, c] = ((np.asarray(_to_numpy(f(*args_p))) - np.asarray(_to_numpy(f(*args_m))))
                  / (2 * delta)).ravel()
    theo.append(jt)
    num.append(jn)
  return theo, num


from tensorlet._unsupported import getattr_for as _getattr_for  # noqa: E402
__getattr__ = _getattr_for("tf.test", __name__)
