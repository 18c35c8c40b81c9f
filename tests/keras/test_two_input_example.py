"""examples/two_input_model.py: trains, saves and reloads weights, predictions match."""
from examples import two_input_model as example


def test_two_input_example_trains_and_reloads(tmp_path, capsys):
  acc, same = example.main(["--epochs", "4", "--out", str(tmp_path)])
  out = capsys.readouterr().out
  assert same and "predictions match = True" in out
  assert acc > 0.9  # all-zeros would score 0.75: the label needs both branches
  model = example.build_model()
  assert [layer.__class__.__name__ for layer in model.layers][:2] == ["InputLayer", "InputLayer"]
  assert model.output_shape == (None, 1)
