"""tf.test.TestCase assertions (run as a unittest suite inside pytest) and helpers."""
import unittest

import numpy as np
import pytest

import tensorlet as tf


class _Cases(tf.test.TestCase):

  def test_close_and_equal(self):
    self.assertAllClose(tf.constant([1.0, 2.0]), [1.0, 2.0 + 1e-8])
    self.assertAllClose({"a": tf.constant(1.0), "b": [tf.constant([2.0])]},
                        {"a": 1.0, "b": [np.array([2.0])]})
    self.assertAllEqual(tf.constant([1, 2]), [1, 2])
    self.assertAllEqual(tf.constant([b"a"]), [b"a"])
    self.assertNotAllClose([1.0], [1.1])
    self.assertNotAllEqual([1], [2])
    self.assertAllCloseAccordingToType(np.float16([1.0]), np.float16([1.0005]))
    with self.assertRaises(AssertionError):
      self.assertAllClose([1.0, 2.0], [1.0, 2.1])
    with self.assertRaises(AssertionError):
      self.assertAllClose([1.0, 2.0], [1.0, 2.0, 3.0])
    with self.assertRaises(AssertionError):
      self.assertAllEqual([1, 2], [1, 3])

  def test_ranges_and_sets(self):
    x = tf.constant([1, 2, 3])
    self.assertAllGreater(x, 0)
    self.assertAllLess(x, 4)
    self.assertAllGreaterEqual(x, 1)
    self.assertAllLessEqual(x, 3)
    self.assertAllInRange(x, 1, 3)
    self.assertAllInSet(x, {1, 2, 3, 4})
    self.assertArrayNear([1.0, 2.0], [1.0, 2.05], 0.1)
    self.assertShapeEqual(np.zeros([2, 3]), tf.zeros([2, 3]))
    self.assertDTypeEqual(x, np.int32)
    with self.assertRaises(AssertionError):
      self.assertAllInRange(x, 1, 3, open_upper_bound=True)
    with self.assertRaises(AssertionError):
      self.assertAllInSet(x, {1, 2})
    with self.assertRaises(AssertionError):
      self.assertAllGreater(x, 1)

  def test_evaluate_and_session(self):
    self.assertEqual(self.evaluate({"a": tf.constant(2)})["a"], 2)
    with self.cached_session() as sess:
      self.assertEqual(sess.run(tf.constant(3)), 3)

  def test_raises_op_error(self):
    with self.assertRaisesOpError("Incompatible shapes"):
      tf.constant([1, 2]) + tf.constant([1, 2, 3])
    with self.assertRaises(AssertionError):
      with self.assertRaisesOpError("something else"):
        tf.constant([1, 2]) + tf.constant([1, 2, 3])
    with self.assertRaisesWithPredicateMatch(ValueError, lambda e: "bad" in str(e)):
      raise ValueError("bad thing")

  def test_seeded_set_up(self):
    self.assertEqual(np.random.rand(), np.random.RandomState(87654321).rand())
    self.assertTrue(self.get_temp_dir())


def test_test_case_suite_passes():
  result = unittest.TextTestRunner(verbosity=0).run(
      unittest.defaultTestLoader.loadTestsFromTestCase(_Cases))
  assert result.wasSuccessful(), result.failures + result.errors


def test_device_queries():
  assert tf.test.is_gpu_available() is False
  assert tf.test.gpu_device_name() == ""
  assert tf.test.is_built_with_cuda() is False
  assert tf.test.is_built_with_gpu_support() is False


def test_compute_gradient():
  theo, num = tf.test.compute_gradient(lambda x: x * x, [np.array([1.0, 2.0])])
  np.testing.assert_allclose(theo[0], np.diag([2.0, 4.0]))
  np.testing.assert_allclose(num[0], np.diag([2.0, 4.0]), rtol=1e-6)


def test_main_runs_unittest(monkeypatch):
  called = {}
  monkeypatch.setattr(unittest, "main", lambda argv=None: called.setdefault("argv", argv))
  tf.test.main()
  assert "argv" in called


_Cases.__test__ = False  # run through test_test_case_suite_passes only
