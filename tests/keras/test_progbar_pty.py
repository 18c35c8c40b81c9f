"""The progress bar on a real pseudo-terminal: redrawn at most every `interval`
seconds while steps run (Keras 2), and in full when the epoch ends."""
import os
import pty
import re

import pytest

import tensorlet as tf
from tensorlet.keras.utils import progbar as progbar_mod


class Clock:
  def __init__(self):
    self.now = 1000.0

  def time(self):
    return self.now


def _read_all(fd):
  chunks = []
  while True:
    try:
      data = os.read(fd, 65536)
    except OSError:  # EIO: the terminal side is closed and drained
      break
    if not data:
      break
    chunks.append(data)
  return b"".join(chunks).decode()


@pytest.fixture
def terminal():
  master, slave = pty.openpty()
  stream = os.fdopen(slave, "w", buffering=1)
  assert stream.isatty()
  yield master, stream
  os.close(master)


def _drive(monkeypatch, stream, steps, step_seconds, **kw):
  clock = Clock()
  monkeypatch.setattr(progbar_mod.time, "time", clock.time)
  bar = tf.keras.utils.Progbar(steps, stream=stream, **kw)
  for i in range(1, steps + 1):
    clock.now += step_seconds
    bar.update(i, [("loss", 1.0 / i), ("acc", i / steps)])
  return bar


def test_fast_epoch_redraws_every_interval(monkeypatch, terminal):
  master, stream = terminal
  # 100 steps of 10 ms, interval 50 ms: a redraw about every 5th step, not only 1/100
  _drive(monkeypatch, stream, 100, 0.01, stateful_metrics=["acc"])
  stream.close()
  text = _read_all(master)
  drawn = [int(m) for m in re.findall(r"\r\s*(\d+)/100 \[", text)]
  assert drawn[0] == 1 and drawn[-1] == 100
  assert 15 <= len(drawn) <= 25, drawn
  assert all(b - a >= 4 for a, b in zip(drawn[1:-1], drawn[2:-1]))
  assert "ETA" in text and text.rstrip().endswith("acc: 1.0000")  # acc stateful: as given
  assert text.count("\n") == 1  # one line for the epoch: redraws use \r


def test_interval_bounds_redraws(monkeypatch, terminal):
  master, stream = terminal
  _drive(monkeypatch, stream, 10, 1.0, interval=0.05)  # slow steps: every step drawn
  stream.close()
  drawn = re.findall(r"\r\s*(\d+)/10 \[", _read_all(master))
  assert drawn == [str(i) for i in range(1, 11)]


def test_pipe_gets_one_line_per_epoch(monkeypatch):
  r, w = os.pipe()
  stream = os.fdopen(w, "w")
  _drive(monkeypatch, stream, 100, 0.01)
  stream.close()
  with os.fdopen(r) as f:
    text = f.read()
  assert text.count("\n") == 1 and "\r" not in text and text.startswith("100/100 [")
