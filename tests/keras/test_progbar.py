"""Progbar: Keras 2's look on terminals, plain lines elsewhere."""
import io
import re

import numpy as np

from tensorlet.keras.utils.progbar import Progbar


class Terminal(io.StringIO):
  def isatty(self):
    return True


def test_plain_stream_gets_only_the_final_line():
  out = io.StringIO()
  bar = Progbar(2, stream=out, interval=0)
  bar.update(1, [("loss", 4.5348e-04)])
  assert out.getvalue() == ""
  bar.update(2, [("loss", 2.0e-04)])
  text = out.getvalue()
  assert re.fullmatch(r"2/2 \[==============================\] - 0s \d+us/step - "
                      r"loss: 3\.2674e-04\n", text), text
  assert "\r" not in text and "\b" not in text


def test_terminal_redraws_with_carriage_returns():
  out = Terminal()
  bar = Progbar(2, stream=out, interval=0, stateful_metrics=["acc"])
  bar.update(1, [("loss", 0.0020), ("acc", 0.5)])
  bar.update(2, [("loss", 0.0008), ("acc", 0.75)])
  first, second = out.getvalue().split("\r")[1:]
  assert first.startswith("1/2 [==============>...............] - ETA: 0s - loss: 0.0020 - "
                          "acc: 0.5000")
  assert re.fullmatch(r"2/2 \[==============================\] - 0s \d+(us|ms)/step - "
                      r"loss: 0\.0014 - acc: 0\.7500\n", second), second


def test_number_format_like_keras():
  out = io.StringIO()
  bar = Progbar(3, stream=out, stateful_metrics=["a", "b", "c"])
  bar.update(3, [("a", 1.6631), ("b", 5.7225e-04), ("c", -2.5)])
  assert out.getvalue().endswith(" - a: 1.6631 - b: 5.7225e-04 - c: -2.5000\n")


def test_verbose_2_one_summary_line_and_verbose_0_silent():
  out = io.StringIO()
  bar = Progbar(10, stream=out, verbose=2)
  for i in range(1, 11):
    bar.update(i, [("loss", float(i))])
  line = out.getvalue()
  assert re.fullmatch(r"10/10 - 0s - loss: 5\.5000 - \d+(us|ms)/epoch - \d+(us|ms)/step\n",
                      line), line
  quiet = io.StringIO()
  Progbar(2, stream=quiet, verbose=0).update(2, [("loss", 1.0)])
  assert quiet.getvalue() == ""


def test_unknown_target_and_add():
  out = Terminal()
  bar = Progbar(None, stream=out, interval=0)
  bar.add(5)
  bar.add(5)
  assert re.search(r"\r     10/Unknown - 0s \d+(s|ms|us)/step$", out.getvalue())


def test_long_running_average_weights_steps():
  out = io.StringIO()
  bar = Progbar(4, stream=out)
  bar.update(1, [("loss", 1.0)])
  bar.update(4, [("loss", 2.0)])  # 3 steps at 2.0, 1 at 1.0
  assert f"loss: {np.float64(7 / 4):.4f}" in out.getvalue()
