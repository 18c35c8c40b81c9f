"""The op graph Keras' TensorBoard callback writes groups nodes by name scope as
TF 2.21 + tf_keras do for the same model: the model under its name, the loss
under "mean_squared_error/" (weighting under ".../weighted_loss/"), gradients
under "gradient_tape/", the optimizer's updates under "Adam/", and captured
variable handles under the op that uses them, so TensorBoard shows the model
rather than a cloud of "auxiliary nodes"."""
import collections
import glob

import numpy as np

import tensorlet as tf
from tensorboard.backend.event_processing import event_accumulator as ea

# Top-level scopes of the GraphDef TF 2.21 writes for this model (node counts
# differ: TF's Adam is built from elementwise ops, tensorlet's is fused).
TF_SCOPES = {"sequential", "mean_squared_error", "gradient_tape", "Adam"}


def _fit_graph(tmp_path, optimizer="adam"):
  tf.keras.backend.clear_session()
  tf.keras.utils.set_random_seed(0)
  m = tf.keras.Sequential([tf.keras.layers.Dense(4, activation="relu", input_shape=(3,)),
                           tf.keras.layers.Dense(1)])
  m.compile(optimizer, "mse")
  m.fit(np.ones((8, 3), "float32"), np.ones((8, 1), "float32"), epochs=1, verbose=0,
        callbacks=[tf.keras.callbacks.TensorBoard(str(tmp_path), write_graph=True)])
  for f in sorted(glob.glob(str(tmp_path / "**" / "events*"), recursive=True)):
    acc = ea.EventAccumulator(f)
    acc.Reload()
    if acc.Tags()["graph"]:
      return acc.Graph()
  raise AssertionError("no graph written")


def test_fit_graph_scopes_match_tf(tmp_path):
  gd = _fit_graph(tmp_path)
  scoped = collections.Counter(n.name.split("/")[0] for n in gd.node if "/" in n.name)
  assert TF_SCOPES <= set(scoped)
  ops = {n.name: n.op for n in gd.node}
  assert ops["mean_squared_error/SquaredDifference"] == "SquaredDifference"
  assert any(k.startswith("mean_squared_error/weighted_loss/") for k in ops)
  applies = [k for k, op in ops.items() if op.startswith("ResourceApply")]
  assert len(applies) == 4 and all(k.startswith("Adam/") for k in applies)
  # every gradient op is under gradient_tape/, named after its forward op
  assert any(k.startswith("gradient_tape/sequential/dense/") for k in ops)
  grads = [k for k, op in ops.items() if op in ("ReluGrad", "BiasAddGrad")]
  assert grads and all(k.startswith("gradient_tape/") for k in grads)
  # variable handles sit in the scope of the op that first uses them
  handles = [k for k in ops if k.endswith("/resource") or "/resource_" in k]
  assert handles and not any(k.startswith("ReadVariableOp/") for k in handles)
  assert any(k.startswith("sequential/dense/") for k in handles)
  # the unscoped rest is small (metric updates, the step's plumbing), as in TF
  assert sum(1 for n in gd.node if "/" not in n.name) < len(gd.node) // 3


def test_optimizer_scope_uses_its_name_and_keeps_slot_names(tmp_path):
  opt = tf.keras.optimizers.SGD(0.1, momentum=0.9, name="my_sgd")
  gd = _fit_graph(tmp_path, opt)
  applies = [n.name for n in gd.node if n.op.startswith("ResourceApply")]
  assert applies and all(k.startswith("my_sgd/") for k in applies)
  # slot names as TF 2.21 prints them (the update scope does not prefix them again)
  assert [v.name for v in opt.variables] == [
      "iteration:0", "my_sgd/m/dense/kernel:0", "my_sgd/m/dense/bias:0",
      "my_sgd/m/dense_1/kernel:0", "my_sgd/m/dense_1/bias:0"]


def test_eager_loss_and_optimizer_unchanged():
  loss = tf.keras.losses.MeanSquaredError()
  assert float(loss([[1.0]], [[3.0]])) == 4.0
  v = tf.Variable(1.0)
  tf.keras.optimizers.Adam(0.1).apply_gradients([(tf.constant(1.0), v)])
  assert abs(v.numpy() - 0.9) < 1e-5


def test_trace_export_of_a_custom_train_step(tmp_path):
  tf.keras.backend.clear_session()
  layer = tf.keras.layers.Dense(2)
  layer.build((None, 3))
  opt = tf.keras.optimizers.Adam(0.01)

  @tf.function
  def step(x):
    with tf.GradientTape() as tape:
      loss = tf.reduce_sum(layer(x) ** 2)
    grads = tape.gradient(loss, layer.trainable_variables)
    opt.apply_gradients(zip(grads, layer.trainable_variables))
    return loss

  writer = tf.summary.create_file_writer(str(tmp_path))
  tf.summary.trace_on(graph=True)
  step(tf.ones([4, 3]))
  with writer.as_default():
    tf.summary.trace_export("step", step=0)
  writer.close()
  acc = ea.EventAccumulator(str(tmp_path))
  acc.Reload()
  ops = {n.name: n.op for n in acc.Graph().node}
  applies = [k for k, op in ops.items() if op.startswith("ResourceApply")]
  assert len(applies) == 2 and all(k.startswith("Adam/") for k in applies)
  assert any(k.startswith("gradient_tape/dense/") for k in ops)
  assert not any(k.startswith("ReadVariableOp/") for k in ops)
