"""examples/two_input_model.py: trains, saves and reloads weights, predictions match."""
from examples import two_input_model as example


def test_two_input_example_trains_and_reloads(tmp_path, capsys):
  acc, same = example.main(["--epochs", "4", "--out", str(tmp_path)])
  out = capsys.readouterr().out
  assert same and "predictions match = True" in out
  assert acc > 0.9  # all-zeros would score 0.75: the label needs both branches
  model = example.build_model()
  # Keras 2's order (by depth), as tf_keras 2.21 lists this model's layers.
  assert [layer.__class__.__name__ for layer in model.layers] == [
      "InputLayer", "Conv2D", "InputLayer", "MaxPooling2D", "Embedding", "Flatten", "LSTM",
      "Dense", "Concatenate", "Dense", "Dense"]
  assert model.output_shape == (None, 1)
