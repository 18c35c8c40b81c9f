"""Real TensorFlow's time for the training steps of workloads_seq.py and workloads_w7.py
(a `tf.function` train step with a GradientTape, Keras 2 layers, Adam; W7 also eagerly)
and for the demo's one-epoch fit (run_eagerly True and False). Run it with a TensorFlow
install, never with tensorlet:

  TF_USE_LEGACY_KERAS=1 python benchmarks/tf_reference.py [--threads 1] [-k w7]

and alternate it with `python benchmarks/run.py -k w7` (`-k demo`, `-k lstm`, ...) to
compare on one machine. `-k conv` times the convolution kernels of conv_shapes.py
(Conv2D and its input and filter gradients, `tf.raw_ops` in a `tf.function`;
`-k w5_kernels` W5's layer), CPU and wall ms per op, to set beside
`run.py -k conv --threads 1 --cpu`. `--neighbour` runs the W7 step in a loop until killed
(a busy TF neighbour for run.py's `--busy-neighbours N --neighbour tf`).
"""
import argparse
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
  p = argparse.ArgumentParser(description=__doc__)
  p.add_argument("--threads", type=int, default=None)
  p.add_argument("--repeat", type=int, default=15)
  p.add_argument("-k", default="", help="only steps whose name contains this")
  p.add_argument("--neighbour", action="store_true")
  args = p.parse_args()
  os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")
  os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
  import tensorflow as tf
  if args.threads:
    tf.config.threading.set_intra_op_parallelism_threads(args.threads)
    tf.config.threading.set_inter_op_parallelism_threads(args.threads)
  sys.path.insert(0, HERE)
  from w7_common import keras_train_step, time_step
  from seq_data import (D_MODEL, EMB, FF, HEADS, STEPS, T_SEQ, UNITS, VOCAB, lstm_data,
                        transformer_data)
  L = tf.keras.layers
  adam = lambda: tf.keras.optimizers.Adam(1e-3, beta_1=0.9, beta_2=0.999, epsilon=1e-7)  # noqa

  def bench(name, model, loss_fn, x, y, eager=False):
    opt = adam()

    step = keras_train_step(tf, model, loss_fn, opt)
    if not eager:
      step = tf.function(step)
    wall, low, cpu = time_step(step, x, y, args.repeat)
    print(f"TF {name}, {'eager' if eager else 'tf.function'} {wall * 1e3:10.3f}ms "
          f"(min {low * 1e3:.3f}ms, CPU {cpu * 1e3:.3f}ms)", flush=True)

  if args.neighbour:
    return neighbour(tf)
  if "conv" in args.k or "w5_kernels" in args.k:
    return conv_kernels(tf, args)
  from w7_common import demo_data, w7_data
  if "w7" in args.k or not args.k:
    x, y = w7_data()
    model = tf.keras.Sequential([
        tf.keras.Input((28, 28, 1)), L.Conv2D(32, 3, activation="relu"), L.Flatten(),
        L.Dense(128, activation="relu"), L.Dense(10)])
    loss = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    bench("W7 MNIST convnet step", model, loss, tf.constant(x), tf.constant(y))
    bench("W7 MNIST convnet step", model, loss, tf.constant(x), tf.constant(y), eager=True)
  if "demo" in args.k or not args.k:
    x, y = demo_data()
    for eager in (True, False):
      model = tf.keras.Sequential([
          tf.keras.Input(shape=(8, 8, 1)),
          L.Conv2D(32, 3, padding="same", activation="relu"), L.MaxPooling2D(),
          L.Conv2D(64, 3, padding="same", activation="relu"), L.Flatten(),
          L.Dropout(0.25), L.Dense(10)])
      model.compile(optimizer=tf.keras.optimizers.Adam(2e-3),
                    loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                    metrics=["accuracy"], run_eagerly=eager)
      model.fit(x, y, batch_size=32, epochs=1, verbose=0)
      ts = []
      for _ in range(max(3, args.repeat // 3)):
        t = time.perf_counter()
        model.fit(x, y, batch_size=32, epochs=1, verbose=0)
        ts.append(time.perf_counter() - t)
      print(f"TF demo fit epoch, {'eager (run_eagerly)' if eager else 'graph'} "
            f"{statistics.median(ts) * 1e3:10.3f}ms (min {min(ts) * 1e3:.3f}ms)", flush=True)
  for key, name, layer in [("lstm", "LSTM", L.LSTM), ("simple_rnn", "SimpleRNN", L.SimpleRNN)]:
    if key in args.k or not args.k:
      ids, y = lstm_data()
      model = tf.keras.Sequential([L.Embedding(VOCAB, EMB), layer(UNITS), L.Dense(1)])
      model.build((None, STEPS))
      bench(f"{name} text classifier step", model,
            tf.keras.losses.BinaryCrossentropy(from_logits=True), tf.constant(ids),
            tf.constant(y))
  if "transformer" in args.k or not args.k:
    x, y = transformer_data()
    inp = tf.keras.Input((T_SEQ, D_MODEL))
    x1 = L.LayerNormalization()(inp + L.MultiHeadAttention(HEADS, D_MODEL // HEADS)(inp, inp))
    out = L.LayerNormalization()(x1 + L.Dense(D_MODEL)(L.Dense(FF, activation="relu")(x1)))
    bench("Transformer block step", tf.keras.Model(inp, out), tf.keras.losses.MeanSquaredError(),
          tf.constant(x), tf.constant(y))


def _per_call(fn, repeat, min_time=0.05):
  """Medians of wall and CPU seconds per call of fn, over samples of >= min_time."""
  from harness import calls_per_sample
  fn()
  n = calls_per_sample(fn, min_time)
  ts, cpu = [], []
  for _ in range(repeat):
    t, c = time.perf_counter(), time.process_time()
    for _ in range(n):
      fn()
    ts.append((time.perf_counter() - t) / n)
    cpu.append((time.process_time() - c) / n)
  return statistics.median(ts), statistics.median(cpu)


def conv_kernels(tf, args):
  """Conv2D, Conv2DBackpropInput and Conv2DBackpropFilter per shape of conv_shapes.py."""
  from conv_shapes import SHAPES, W5_SHAPES, conv_data
  print(f"TF {tf.__version__}, intra-op threads {args.threads or 'default'}, "
        f"load {os.getloadavg()[0]:.1f}", flush=True)
  for name, xs, fs, s, padding, _ in W5_SHAPES if "w5_kernels" in args.k else SHAPES:
    x, f, dy = (tf.constant(a) for a in conv_data(xs, fs, s, padding))
    xsz, fsz = tf.constant(xs, tf.int32), tf.constant(fs, tf.int32)
    kw = {"strides": [1, s, s, 1], "padding": padding}
    fwd = tf.function(lambda x, f: tf.raw_ops.Conv2D(input=x, filter=f, **kw))
    dx = tf.function(lambda f, dy: tf.raw_ops.Conv2DBackpropInput(
        input_sizes=xsz, filter=f, out_backprop=dy, **kw))
    dw = tf.function(lambda x, dy: tf.raw_ops.Conv2DBackpropFilter(
        input=x, filter_sizes=fsz, out_backprop=dy, **kw))
    for what, fn, a in (("fwd", fwd, (x, f)), ("input grad", dx, (f, dy)),
                        ("filter grad", dw, (x, dy))):
      wall, cpu = _per_call(lambda: fn(*a).numpy(), args.repeat)
      print(f"TF conv {name} {what:12s} CPU {cpu * 1e3:8.3f}ms  wall {wall * 1e3:8.3f}ms",
            flush=True)


def neighbour(tf):
  """The W7 step in a loop until killed (prints "ready" after its first step)."""
  from w7_common import keras_train_step, w7_data
  L = tf.keras.layers
  x, y = (tf.constant(a) for a in w7_data())
  model = tf.keras.Sequential([
      tf.keras.Input((28, 28, 1)), L.Conv2D(32, 3, activation="relu"), L.Flatten(),
      L.Dense(128, activation="relu"), L.Dense(10)])
  step = tf.function(keras_train_step(
      tf, model, tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
      tf.keras.optimizers.Adam()))
  step(x, y)
  print("ready", flush=True)
  while True:
    step(x, y)


if __name__ == "__main__":
  main()
