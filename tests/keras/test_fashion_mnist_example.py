"""examples/fashion_mnist.py: the Keras tutorial on stand-in files, and which data it
says it uses."""
import numpy as np

from examples import fashion_mnist


def test_runs_on_stand_ins_and_says_so(tmp_path, monkeypatch, capsys):
  monkeypatch.setenv("KERAS_HOME", str(tmp_path / "empty_cache"))
  monkeypatch.setattr(fashion_mnist, "write_stand_ins",
                      lambda d: fashion_mnist._write(d, n_train=600, n_test=100))
  assert fashion_mnist.main(["--epochs", "2"]) == 0
  out = capsys.readouterr().out
  assert "GENERATED STAND-INS" in out
  assert "train_images.shape: (600, 28, 28)" in out
  accuracy = float(out.split("Test accuracy:")[1].split()[0])
  assert accuracy > 0.8  # the stand-ins' classes light different rows
  assert "same predictions: True" in out


def test_real_files_in_the_cache_are_used(tmp_path, monkeypatch):
  monkeypatch.setenv("KERAS_HOME", str(tmp_path))
  assert not fashion_mnist.real_files_cached()
  fashion_mnist._write(str(tmp_path), n_train=20, n_test=10)
  assert fashion_mnist.real_files_cached()
  import tensorlet as tf
  (x, y), (xt, yt) = tf.keras.datasets.fashion_mnist.load_data()
  assert x.shape == (20, 28, 28) and xt.shape == (10, 28, 28) and y.dtype == np.uint8
