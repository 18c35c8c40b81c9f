"""tensorlet's wall and CPU time of the sequence training steps of workloads_seq.py as a
`tf.function`, printed like tf_reference.py's lines so the two can alternate in the same
minute on a shared host (CPU time is the steadier figure there):

  python benchmarks/seq_cpu.py [-k lstm|simple_rnn] [--threads 1] [--repeat 30]
  TF_USE_LEGACY_KERAS=1 python benchmarks/tf_reference.py -k lstm|simple_rnn [--threads 1]
"""
import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
  p = argparse.ArgumentParser(description=__doc__)
  p.add_argument("--threads", default=None, help="BLAS threads (default: the user's)")
  p.add_argument("--repeat", type=int, default=30)
  p.add_argument("-k", default="", help="only steps whose name contains this")
  args = p.parse_args()
  if args.threads:
    for v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
      os.environ[v] = args.threads
  sys.path.insert(0, os.path.dirname(HERE))
  sys.path.insert(0, HERE)
  import tensorlet as tf
  import workloads_seq as ws
  from seq_data import lstm_data, transformer_data
  from w7_common import keras_train_step, time_step
  steps = []
  if "lstm" in args.k or not args.k:
    ids, y = lstm_data()
    steps.append(("LSTM text classifier step", ws.lstm_model(),
                  tf.keras.losses.BinaryCrossentropy(from_logits=True), ids, y))
  if "simple_rnn" in args.k or not args.k:
    ids, y = lstm_data()
    steps.append(("SimpleRNN text classifier step", ws.simple_rnn_model(),
                  tf.keras.losses.BinaryCrossentropy(from_logits=True), ids, y))
  if "transformer" in args.k or not args.k:
    x, y = transformer_data()
    steps.append(("Transformer block step", ws.transformer_model(),
                  tf.keras.losses.MeanSquaredError(), x, y))
  for name, model, loss, x, y in steps:
    step = tf.function(keras_train_step(tf, model, loss, ws._adam()))
    wall, low, cpu = time_step(step, tf.constant(x), tf.constant(y), args.repeat)
    print(f"tensorlet {name}, tf.function {wall * 1e3:10.3f}ms (min {low * 1e3:.3f}ms, "
          f"CPU {cpu * 1e3:.3f}ms; load {os.getloadavg()[0]:.1f})", flush=True)


if __name__ == "__main__":
  main()
