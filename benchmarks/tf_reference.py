"""Real TensorFlow's time for the sequence training steps of workloads_seq.py (a
`tf.function` train step with a GradientTape, Keras 2 layers, Adam). Run it with a
TensorFlow install, never with tensorlet:

  TF_USE_LEGACY_KERAS=1 python benchmarks/tf_reference.py [--threads 1]

and alternate it with `python benchmarks/run.py -k lstm` and `-k transformer` to compare on
one machine.
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
  args = p.parse_args()
  os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")
  os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
  import tensorflow as tf
  if args.threads:
    tf.config.threading.set_intra_op_parallelism_threads(args.threads)
    tf.config.threading.set_inter_op_parallelism_threads(args.threads)
  sys.path.insert(0, HERE)
  from seq_data import (D_MODEL, EMB, FF, HEADS, STEPS, T_SEQ, UNITS, VOCAB, lstm_data,
                        transformer_data)
  L = tf.keras.layers
  adam = lambda: tf.keras.optimizers.Adam(1e-3, beta_1=0.9, beta_2=0.999, epsilon=1e-7)  # noqa

  def bench(name, model, loss_fn, x, y):
    opt = adam()

    @tf.function
    def step(x, y):
      with tf.GradientTape() as tape:
        loss = loss_fn(y, model(x, training=True))
      grads = tape.gradient(loss, model.trainable_variables)
      opt.apply_gradients(zip(grads, model.trainable_variables))
      return loss
    for _ in range(3):
      step(x, y)
    ts, cpu = [], []
    for _ in range(args.repeat):
      t, c = time.perf_counter(), time.process_time()
      step(x, y).numpy()
      ts.append(time.perf_counter() - t)
      cpu.append(time.process_time() - c)
    # NOTE: CPU time (all threads) is the steadier figure on a shared, busy host.
    print(f"TF {name}, tf.function {statistics.median(ts) * 1e3:10.3f}ms "
          f"(min {min(ts) * 1e3:.3f}ms, CPU {statistics.median(cpu) * 1e3:.3f}ms)", flush=True)

  ids, y = lstm_data()
  model = tf.keras.Sequential([L.Embedding(VOCAB, EMB), L.LSTM(UNITS), L.Dense(1)])
  model.build((None, STEPS))
  bench("LSTM text classifier step", model,
        tf.keras.losses.BinaryCrossentropy(from_logits=True), tf.constant(ids),
        tf.constant(y))

  x, y = transformer_data()
  inp = tf.keras.Input((T_SEQ, D_MODEL))
  x1 = L.LayerNormalization()(inp + L.MultiHeadAttention(HEADS, D_MODEL // HEADS)(inp, inp))
  out = L.LayerNormalization()(x1 + L.Dense(D_MODEL)(L.Dense(FF, activation="relu")(x1)))
  bench("Transformer block step", tf.keras.Model(inp, out), tf.keras.losses.MeanSquaredError(),
        tf.constant(x), tf.constant(y))


if __name__ == "__main__":
  main()
