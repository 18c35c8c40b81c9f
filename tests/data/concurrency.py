"""A test helper: a slow Python function that records how many of its calls
ran at the same time (to check that tf.data really runs work in threads)."""
import threading
import time


class Overlap:
  def __init__(self, seconds):
    self.seconds = seconds
    self.active = 0
    self.peak = 0
    self._lock = threading.Lock()

  def __call__(self, x, scale=1):
    with self._lock:
      self.active += 1
      self.peak = max(self.peak, self.active)
    time.sleep(self.seconds)
    with self._lock:
      self.active -= 1
    return x * scale
