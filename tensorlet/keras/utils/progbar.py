"""tf.keras.utils.Progbar: Keras 2's progress bar.

On a terminal (verbose=1) the line is redrawn with `\\r` as steps finish:
`1/2 [==============>...............] - ETA: 0s - loss: 0.0020`, then
`2/2 [==============================] - 0s 14ms/step - loss: 0.0014`. When
the stream is not a terminal (a file, a pipe, a notebook capture) only the
final line is written, as plain text without control characters. verbose=2
writes one summary line at the end: `2/2 - 0s - loss: 0.0014 - 28ms/epoch -
14ms/step`.
"""
import sys
import time

import numpy as np

__all__ = ["Progbar"]


def _format_value(v):
  # NOTE: Keras' rule: 4 decimals, scientific notation from 1e-3 down.
  return f"{v:.4f}" if abs(v) > 1e-3 else f"{v:.4e}"


def _format_time(seconds, unit):
  if seconds >= 1 or seconds == 0:
    return f" {seconds:.0f}s/{unit}"
  if seconds >= 1e-3:
    return f" {seconds * 1e3:.0f}ms/{unit}"
  return f" {seconds * 1e6:.0f}us/{unit}"


def _is_terminal(stream):
  isatty = getattr(stream, "isatty", None)
  try:
    return bool(isatty and isatty())
  except ValueError:  # a closed stream
    return False


class Progbar:
  """A progress bar over `target` steps (None: unknown) with running averages.

  Args:
    target: number of steps, or None.
    width: bar width in characters.
    verbose: 0 silent, 1 bar, 2 one line at the end.
    interval: least seconds between two redraws.
    stateful_metrics: names shown as given instead of averaged over steps.
    unit_name: what a step is called ("step", "sample").
  """

  def __init__(self, target, width=30, verbose=1, interval=0.05, stateful_metrics=None,
               unit_name="step", stream=None):
    self.target = target
    self.width = width
    self.verbose = verbose
    self.interval = interval
    self.unit_name = unit_name
    self.stateful_metrics = set(stateful_metrics or ())
    self._stream = stream
    self._values = {}
    self._order = []
    self._seen = 0
    self._width_drawn = 0
    self._start = time.time()
    self._last_update = 0.0
    self._epoch_start = self._start
    self._epoch_end = None
    self._after_first = None

  @property
  def stream(self):
    return self._stream if self._stream is not None else sys.stdout

  def update(self, current, values=None, finalize=None):
    """Records step `current` with `values` [(name, value)] and redraws."""
    if finalize is None:
      finalize = self.target is not None and current >= self.target
    for k, v in values or ():
      if k not in self._order:
        self._order.append(k)
      if k in self.stateful_metrics:
        self._values[k] = [v, 1]
      else:
        n = max(current - self._seen, 1)
        acc = self._values.setdefault(k, [0.0, 0])
        acc[0] += v * n
        acc[1] += n
    self._seen = current
    now = time.time()
    if current == self.target:
      self._epoch_end = now
    if self.verbose == 1:
      self._draw(current, now, finalize)
    elif self.verbose == 2 and finalize:
      self._summary_line(current, now)

  def add(self, n, values=None):
    self.update(self._seen + n, values)

  def _averages(self):
    out = ""
    for k in self._order:
      total, n = self._values[k]
      out += f" - {k}: {_format_value(np.mean(total / max(1, n)))}"
    return out

  def _draw(self, current, now, finalize):
    if now - self._last_update < self.interval and not finalize:
      return
    stream = self.stream
    dynamic = _is_terminal(stream)
    per_step = self._step_time(current, now)
    if not dynamic and not finalize:
      return  # NOTE: plain streams get the final line only: no redraw characters.
    if self.target is not None:
      digits = len(str(self.target))
      bar = f"{current:{digits}d}/{self.target} ["
      filled = int(self.width * current / self.target)
      if filled > 0:
        bar += "=" * (filled - 1) + (">" if current < self.target else "=")
      bar += "." * (self.width - filled) + "]"
    else:
      bar = f"{current:7d}/Unknown"
    if self.target is None or finalize:
      info = f" - {now - self._start:.0f}s" + _format_time(per_step, self.unit_name)
    else:
      info = f" - ETA: {_format_eta(per_step * (self.target - current))}"
    info += self._averages()
    line = bar + info
    prefix = ""
    if dynamic:
      prefix = "\r"
      if len(line) < self._width_drawn:  # NOTE: blank out the rest of a longer old line
        line += " " * (self._width_drawn - len(line))
    self._width_drawn = len(line)
    stream.write(prefix + line + ("\n" if finalize else ""))
    stream.flush()
    # NOTE: only a redraw starts the next interval (Keras 2): moving it on every
    # step would keep a fast epoch at its first step until the end.
    self._last_update = now

  def _summary_line(self, current, now):
    digits = len(str(self.target))
    line = f"{current:{digits}d}/{self.target} - {now - self._start:.0f}s" + self._averages()
    if self._epoch_end:
      epoch_time = self._epoch_end - self._epoch_start
      line += " -" + _format_time(epoch_time, "epoch")
      line += " -" + _format_time(epoch_time / self.target, self.unit_name)
      self._epoch_start, self._epoch_end = now, None
    self.stream.write(line + "\n")
    self.stream.flush()

  def _step_time(self, current, now):
    """Seconds per step, leaving out the first step (tracing) once there are more."""
    if not current:
      return 0
    if self._after_first is not None and current > 1:
      t = (now - self._after_first) / (current - 1)
    else:
      t = (now - self._start) / current
    if current == 1:
      self._after_first = now
    return t


def _format_eta(eta):
  if eta > 3600:
    return f"{int(eta // 3600)}:{int(eta % 3600 // 60):02d}:{int(eta % 60):02d}"
  if eta > 60:
    return f"{int(eta // 60)}:{int(eta % 60):02d}"
  return f"{int(eta)}s"
