"""A busy neighbour for the thread-cliff check: a real training job (the W7 convnet's
train step as a tf.function, in a loop until killed) that uses the BLAS's own default
threads, as an unmanaged NumPy/TF job does (tensorlet's thread policy is off here).

  python benchmarks/neighbour.py [--policy]   # --policy: a tensorlet job with its policy on
"""
import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)


def main():
  p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  p.add_argument("--policy", action="store_true")
  args = p.parse_args()
  from tensorlet.ops import _blas_threads
  from workloads_w7 import w7_graph_step
  _blas_threads.set_policy(args.policy)
  step, x, y = w7_graph_step()
  step(x, y)
  print("ready", flush=True)
  while True:
    step(x, y)


if __name__ == "__main__":
  main()
