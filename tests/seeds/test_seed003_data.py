"""Seed 003 (tf.function guide, Japanese): iterating Python data vs a
tf.data.Dataset inside tf.function. A from_generator dataset enters the
graph as one tensor, so the graph stays small whatever the data's length.
The dataset prints in TF 2.x's format (`<_FlatMapDataset element_spec=...>`,
not TF 2.0 beta's `<DatasetV1Adapter shapes: ...>`)."""
import tensorlet as tf


def measure_graph_size(f, *args):
  g = f.get_concrete_function(*args).graph
  print("{}({}) contains {} nodes in its graph".format(
      f.__name__, ', '.join(map(str, args)), len(g.as_graph_def().node)))

@tf.function
def train(dataset):
  loss = tf.constant(0)
  for x, y in dataset:
    loss += tf.abs(y - x) # Some dummy computation.
  return loss


def test_from_generator_datasets_keep_the_graph_small(capsys):
  small_data = [(1, 1)] * 2
  big_data = [(1, 1)] * 10
  measure_graph_size(train, tf.data.Dataset.from_generator(
      lambda: small_data, (tf.int32, tf.int32)))
  measure_graph_size(train, tf.data.Dataset.from_generator(
      lambda: big_data, (tf.int32, tf.int32)))
  spec = ("(TensorSpec(shape=<unknown>, dtype=tf.int32, name=None), "
          "TensorSpec(shape=<unknown>, dtype=tf.int32, name=None))")
  line = f"train(<_FlatMapDataset element_spec={spec}>) contains 4 nodes in its graph\n"
  assert capsys.readouterr().out == line * 2


def test_train_runs_over_generated_data():
  data = [(1, 4), (5, 2), (3, 3)]
  loss = train(tf.data.Dataset.from_generator(lambda: data, (tf.int32, tf.int32)))
  assert loss.dtype == tf.int32 and int(loss) == 6
  assert int(train(tf.data.Dataset.from_generator(lambda: [(1, 1)] * 10,
                                                  (tf.int32, tf.int32)))) == 0
