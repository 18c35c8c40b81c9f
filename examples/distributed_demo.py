"""The demo convnet trained by several worker processes with MultiWorkerMirroredStrategy.

    python examples/distributed_demo.py [--workers 2] [--epochs 8] [--out DIR]

starts the workers itself (`mpiexec -n WORKERS` through tensorlet.distribute.launch);
started by a launcher already (`mpiexec -n 2 python examples/distributed_demo.py`, or
on several machines, see docs/distributed.md) it is one of the workers. Every worker
reads its share of each global batch, gradients are all-reduced over MPI after each
step, and only the chief (worker 0) writes the TensorBoard logs, checkpoints and the
BackupAndRestore backup: kill the job and run it again, and it resumes after the last
finished epoch.
"""
import argparse
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))


def parse():
  p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  p.add_argument("--workers", type=int, default=2, help="processes to start (1 = no MPI)")
  p.add_argument("--epochs", type=int, default=8)
  p.add_argument("--batch", type=int, default=64, help="global batch size")
  p.add_argument("--out", default="distributed_demo_output")
  p.add_argument("--timeout", type=float, default=900, help="seconds for the whole job")
  return p.parse_args()


def start_workers(args):
  from tensorlet.distribute import launch
  env = dict(os.environ, PYTHONPATH=os.pathsep.join(
      [os.path.dirname(HERE), os.environ.get("PYTHONPATH", "")]))
  print(f"Starting {args.workers} workers: "
        f"{' '.join(launch.command(args.workers, [__file__, '...']))}", flush=True)
  done = launch.run(args.workers, [os.path.abspath(__file__), *sys.argv[1:]],
                    timeout=args.timeout, env=env)
  return done.returncode


def train(args):
  import tensorlet as tf
  sys.path.insert(0, HERE)
  from demo import load_digits, make_model

  strategy = tf.distribute.MultiWorkerMirroredStrategy()
  resolver = strategy.cluster_resolver
  chief = strategy.extended.should_checkpoint
  say = print if chief else (lambda *a, **k: None)
  say(f"{strategy.num_replicas_in_sync} replicas in sync; cluster "
      f"{resolver.cluster_spec().as_dict() or '(this process alone)'}")

  tf.random.set_seed(0)
  (x_train, y_train), (x_test, y_test) = load_digits()
  train_ds = tf.data.Dataset.from_tensor_slices((x_train, y_train)).batch(args.batch)
  test_ds = tf.data.Dataset.from_tensor_slices((x_test, y_test)).batch(args.batch)

  with strategy.scope():
    model = make_model()
    model.compile(optimizer=tf.keras.optimizers.Adam(2e-3),
                  loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"])
  callbacks = [tf.keras.callbacks.BackupAndRestore(os.path.join(args.out, "backup")),
               tf.keras.callbacks.TensorBoard(log_dir=os.path.join(args.out, "logs"))]
  t = time.perf_counter()
  history = model.fit(train_ds, epochs=args.epochs, verbose=2 if chief else 0,
                      callbacks=callbacks)
  seconds = time.perf_counter() - t
  loss, acc = model.evaluate(test_ds, verbose=0)
  epochs = len(history.history.get("loss", []))
  say(f"\n{epochs} epochs in {seconds:.1f} s on {strategy.num_replicas_in_sync} workers; "
      f"held-out accuracy {acc:.4f} (loss {loss:.4f})")
  with strategy.scope():  # under the strategy: only the chief's files stay
    manager = tf.train.CheckpointManager(tf.train.Checkpoint(model=model),
                                         os.path.join(args.out, "ckpt"), max_to_keep=1)
    path = manager.save()
  say(f"Checkpoint: {path}")
  if epochs and acc < 0.9 and args.epochs >= 5:
    raise SystemExit(f"distributed demo failed: held-out accuracy {acc:.3f} < 0.9")


def main():
  args = parse()
  from tensorlet.distribute.cluster_resolver import launched_by_mpi
  if args.workers > 1 and launched_by_mpi() is None and not os.environ.get("TF_CONFIG"):
    return start_workers(args)
  train(args)
  return 0


if __name__ == "__main__":
  sys.exit(main())
