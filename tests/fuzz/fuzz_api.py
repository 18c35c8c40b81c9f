"""A fuzzer of tensorlet's public API: every public function of the main
namespaces (tf, math, nn, random, linalg, strings, nest, debugging, image,
signal, io, sparse, ragged, sets) is called with one argument at a time replaced
by a bad value (wrong types, shapes and sizes, NaN, None, self-referencing lists,
huge ints), eagerly and inside a tf.function, in worker subprocesses that run in
a temporary directory (tf.io writes land there). Each Keras layer is constructed
with each argument bad in turn, and a layer built on a good input is called
with each bad value, eagerly and traced.

Each call ends one of five ways:
  ok        it returned;
  typed     it raised one of TF's exception types with tensorlet's own words;
  leaked    it raised anything else (RecursionError, IndexError, AttributeError,
            OverflowError, ZeroDivisionError, MemoryError, KeyError ...), or a
            TypeError/ValueError worded by Python or NumPy internals;
  hang      it ran past the per-call time limit;
  crash     the worker process died;
  no_setup  (Keras calls) no good construction of the layer was found: not counted.

    python tests/fuzz/fuzz_api.py                  # every call (~66,000), a few minutes
    python tests/fuzz/fuzz_api.py --sample 2000    # a seeded sample
    python tests/fuzz/fuzz_api.py --show leaked    # list them
    python tests/fuzz/fuzz_api.py --only image.,keras.layers.Conv   # some names

tests/fuzz/test_fuzz.py runs a short seeded sample in the default suite.
"""
import argparse
import collections
import inspect
import io
import json
import os
import random
import re
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import types

_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
NAMESPACES = ["", "math", "nn", "random", "linalg", "strings", "nest", "debugging",
              "image", "signal", "io", "sparse", "ragged", "sets"]
# Global switches and things that only print or sleep: not fuzzed.
SKIP = {"print", "config", "function", "py_function", "numpy_function", "custom_gradient",
        "debugging.enable_check_numerics", "debugging.disable_check_numerics",
        "debugging.set_log_device_placement", "random.set_seed", "random.set_global_generator",
        "debugging.enable_traceback_filtering", "debugging.disable_traceback_filtering",
        "experimental", "device", "name_scope", "init_scope", "executing_eagerly"}
TYPED = ("OpError", "TypeError", "ValueError", "NotImplementedError", "StopIteration")
# Python's and NumPy's own words: the typed errors tensorlet must not pass on.
INTERNAL_WORDS = re.compile(
    r"int\(\) argument must be|object is not iterable|unsupported operand type|"
    r"object is not subscriptable|has no len\(\)|object cannot be interpreted as an integer|"
    r"only integer scalar arrays|'NoneType' object|operands could not be broadcast together")
# Errors of other types that TensorFlow itself raises with these words (checked
# against TF 2.21): matching TF is right, so they count as typed.
AS_TF = {"AttributeError": re.compile(r"^(image )?dtype must be either floating point or integer$")}
PER_CALL_S = 10.0


def public_callables(tf):
  """[(qualified name, function)], sorted: the same list in every process."""
  out = {}
  for ns in NAMESPACES:
    mod = getattr(tf, ns) if ns else tf
    # NOTE: names a namespace loads lazily are listed too, so the list does not
    # depend on what this process happened to touch before.
    listed = getattr(mod, "__all__", None) or dir(mod)
    for name in sorted(set(listed) | set(getattr(mod, "_LAZY_ATTRS", ()))):
      if name.startswith("_"):
        continue
      qual = f"{ns}.{name}" if ns else name
      if qual in SKIP or name in SKIP:
        continue
      fn = getattr(mod, name, None)
      if not callable(fn) or inspect.isclass(fn) or isinstance(fn, types.ModuleType):
        continue
      out[qual] = fn
  return sorted(out.items())


# Keras internals that are not layers a user constructs.
KERAS_SKIP = {"InputSpec", "InstanceMethod", "InstanceProperty", "SlicingOpLambda", "TFOpLambda"}


# Optional arguments a layer needs before it can be called at all.
KERAS_CALL_KWARGS = {"CategoryEncoding": {"num_tokens": 4}, "InputLayer": {"input_shape": (3,)}}


def keras_layers(tf):
  """[(qualified name, layer class)], sorted, one name per class (aliases such
  as Conv1D/Convolution1D are fuzzed once)."""
  mod = tf.keras.layers
  seen, out = set(), []
  for name in sorted(dir(mod)):
    cls = getattr(mod, name, None)
    if name.startswith("_") or name in KERAS_SKIP or not inspect.isclass(cls) or cls in seen:
      continue
    if not issubclass(cls, tf.keras.layers.Layer):
      continue
    seen.add(cls)
    out.append((f"keras.layers.{name}", cls))
  return out


def _keras_good(tf, name):
  """A plausible constructor argument of a Keras layer, from its name."""
  L = tf.keras.layers
  n = name.lower()
  if n in ("units", "filters", "output_dim", "input_dim", "num_heads", "key_dim", "n",
           "num_bins", "num_tokens", "height", "width", "kernel_size", "pool_size", "groups",
           "depth_multiplier", "output_mode_size"):
    return 2
  if n in ("rate", "stddev", "factor", "height_factor", "width_factor", "scale", "l1", "l2",
           "threshold", "alpha", "theta", "max_value"):
    return 0.5
  if n in ("target_shape",):
    return (-1,)
  if n in ("dims",):
    return (1,)
  if n in ("axes",):
    return 1
  if n in ("activation",):
    return "relu"
  if n in ("function",):
    return lambda x: x
  if n in ("cell",):
    return L.SimpleRNNCell(2)
  if n in ("cells",):
    return [L.SimpleRNNCell(2)]
  if n in ("layer",):
    return L.SimpleRNN(2)    # Bidirectional needs a recurrent layer
  if n in ("mode",):
    return "horizontal_and_vertical"
  if n in ("vocabulary",):
    return ["a", "b"]
  return 2


def _keras_inputs(tf):
  """Good inputs to build a layer with, tried in turn."""
  import numpy as np
  xs = [tf.constant(np.arange(np.prod(s), dtype=np.float32).reshape(s) / 10.0)
        for s in ((2, 3), (2, 4, 3), (2, 4, 4, 3), (1, 4, 4, 4, 3))]
  return xs + [[x, x] for x in xs] + [tf.constant([["a", "b"]])]


def _params(fn):
  try:
    sig = inspect.signature(fn)
  except (TypeError, ValueError):
    return []
  return [p for p in sig.parameters.values()
          if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.name != "name"]


def _takes_varargs(fn):
  try:
    return any(p.kind == p.VAR_POSITIONAL for p in inspect.signature(fn).parameters.values())
  except (TypeError, ValueError):
    return True


def _good(tf, name):
  """A plausible value for a parameter, from its name."""
  import numpy as np
  n = name.lower()
  if n in ("axis", "dim", "batch_dims", "seq_axis", "batch_axis", "reduction_indices"):
    return 0
  if n in ("shape", "dims", "multiples", "paddings_shape", "size", "ksize", "strides"):
    return [2, 3] if n not in ("ksize", "strides") else 1
  if n in ("dtype", "out_type", "output_type", "tout"):
    return tf.float32
  if n in ("indices", "segment_ids", "ids", "perm"):
    return [0, 1]
  if n in ("num", "depth", "n", "k", "num_segments", "num_or_size_splits", "num_samples",
           "maxlen", "num_rows", "minlength", "nbins"):
    return 2
  if n in ("pattern", "rewrite", "separator", "sep", "string", "input_encoding"):
    return "a"
  if n in ("rate", "alpha", "clip_norm", "epsilon", "stddev", "mean", "minval", "maxval",
           "delta", "beta", "keep_prob", "bias"):
    return 0.5
  if n in ("seed",):
    return 1
  if n in ("padding",):
    return "VALID"
  if n in ("fn", "func", "f", "map_fn", "true_fn", "false_fn", "body"):
    return lambda *a: a[0] if a else 1.0
  if n in ("cond", "pred"):
    return True
  if n in ("structure", "nest", "nest1", "nest2", "shallow_tree", "flat_sequence"):
    return [1.0, 2.0]
  return tf.constant(np.array([[1.0, -2.0, 3.0], [4.0, 5.0, -6.0]], np.float32))


def bad_values(tf):
  """(label, maker) pairs; makers build the value in the worker."""
  import numpy as np

  def selfref():
    a = [1]
    a.append(a)
    return a
  return [
      ("None", lambda: None),
      ("str", lambda: "abc"),
      ("float", lambda: 1.5),
      ("negative", lambda: -1),
      ("huge_int", lambda: 2 ** 70),
      ("nested_list", lambda: [[0]]),
      ("empty_list", lambda: []),
      ("object", lambda: object()),
      ("selfref", selfref),
      ("nan", lambda: tf.constant(np.nan)),
      ("empty_tensor", lambda: tf.zeros([0])),
      ("string_tensor", lambda: tf.constant(["s", "t"])),
      ("int64_tensor", lambda: tf.constant([1, 2], tf.int64)),
      ("bool", lambda: True),
      ("complex", lambda: 1 + 2j),
      ("giant_shape", lambda: [2 ** 40]),
      ("rank5", lambda: tf.zeros([1, 2, 1, 2, 1])),
      ("ragged_list", lambda: [[1, 2], [3]]),
  ]


def all_calls(tf):
  """Every call as (qualified name, parameter index, bad value index, mode)."""
  calls = []
  nbad = len(bad_values(tf))
  for ci, fn in public_callables(tf):
    params = _params(fn)
    if not params and not _takes_varargs(fn):
      continue     # nothing to give a bad value to
    for pi in range(max(len(params), 1)):
      for bi in range(nbad):
        for mode in ("eager", "graph"):
          calls.append((ci, pi, bi, mode))
  # Keras layers: each constructor argument bad in turn; then a layer built
  # with a good input is called with each bad value, eagerly and traced.
  for ci, cls in keras_layers(tf):
    for pi in range(len(_params(cls))):
      for bi in range(nbad):
        calls.append((ci, pi, bi, "ctor"))
    for bi in range(nbad):
      for mode in ("call_eager", "call_graph"):
        calls.append((ci, -1, bi, mode))
  return calls


# ------------------------------------------------------------------ worker

class _Hang(BaseException):
  """Raised by the per-call timer; a BaseException so user-level except clauses
  cannot swallow it."""


def _on_alarm(signum, frame):
  raise _Hang()


def _classify(tf, e):
  name = type(e).__name__
  if name in AS_TF and AS_TF[name].search(str(e)):
    return "typed", name
  if isinstance(e, tf.errors.OpError) or isinstance(
      e, (TypeError, ValueError, NotImplementedError, StopIteration)):
    if INTERNAL_WORDS.search(str(e)):
      return "leaked", f"{name}: {str(e)[:200]}"
    return "typed", name
  return "leaked", f"{name}: {str(e)[:200]}"


def resolve(tf, qual):
  obj = tf
  for part in qual.split("."):
    obj = getattr(obj, part)
  return obj


def _layer_call(tf, cls, bad, mode):
  """Builds `cls` with good arguments and input; returns the call of it on `bad`,
  or None where no good construction was found."""
  params = _params(cls)
  try:
    layer = cls(*[_keras_good(tf, p.name) for p in params if p.default is p.empty],
                **KERAS_CALL_KWARGS.get(cls.__name__, {}))
  except Exception:  # noqa: BLE001 - a layer with no good guess is left out
    return None
  for x in _keras_inputs(tf):
    try:
      layer(x)
      break
    except Exception:  # noqa: BLE001 - try the next input
      continue
  if mode == "call_eager":
    return lambda: layer(bad)
  return lambda: tf.function(lambda: layer(bad), autograph=False)()


def run_call(tf, bads, call):
  qual, pi, bi, mode = call
  fn = resolve(tf, qual)
  if mode.startswith("call_"):
    go = _layer_call(tf, fn, bads[bi][1](), mode)
    if go is None:
      return "no_setup", ""
    return _outcome(tf, go)
  if mode == "ctor":
    mode = "eager"
  params = _params(fn)
  # Required parameters get plausible values, the others their defaults; then
  # parameter `pi` gets the bad value.
  good = _keras_good if mode == "ctor" else _good
  args = [good(tf, p.name) for p in params if p.default is p.empty]
  kwargs = {}
  if not params:
    args = [bads[bi][1]()]
  elif pi < len(args):
    args[pi] = bads[bi][1]()
  else:
    kwargs[params[pi].name] = bads[bi][1]()

  def go():
    return fn(*args, **kwargs)
  if mode == "eager":
    return _outcome(tf, go)
  return _outcome(tf, lambda: tf.function(go, autograph=False)())


def _outcome(tf, go):
  try:
    go()
    return "ok", ""
  except _Hang:
    return "hang", ""
  except RecursionError as e:
    return "leaked", f"RecursionError: {str(e)[:100]}"
  except BaseException as e:  # noqa: BLE001 - classifying is the point
    if isinstance(e, (KeyboardInterrupt, SystemExit)):
      return "leaked", type(e).__name__
    return _classify(tf, e)


def worker():
  """Reads call tuples (JSON lines) on stdin, writes one result line each."""
  sys.setrecursionlimit(3000)
  import warnings
  warnings.simplefilter("ignore")
  import tensorlet as tf
  bads = bad_values(tf)
  signal.signal(signal.SIGALRM, _on_alarm)
  out = sys.stdout
  sys.stdout = io.StringIO()   # what the fuzzed functions print
  print("ready", file=out, flush=True)
  for line in sys.stdin:
    call = tuple(json.loads(line))
    signal.setitimer(signal.ITIMER_REAL, PER_CALL_S)
    try:
      status, detail = run_call(tf, bads, call)
    except _Hang:
      status, detail = "hang", ""
    finally:
      signal.setitimer(signal.ITIMER_REAL, 0)
    sys.stdout = io.StringIO()
    print(json.dumps([status, detail]), file=out, flush=True)


# ------------------------------------------------------------------ parent

def _spawn(cwd):
  env = dict(os.environ, PYTHONPATH=_ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
  # NOTE: the worker runs in a temporary directory, so that tf.io functions
  # given a bad file name (write_file("abc", ...)) write nowhere else.
  p = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--worker"],
                       stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                       env=env, text=True, bufsize=1, cwd=cwd)
  if p.stdout.readline().strip() != "ready":
    raise RuntimeError("fuzz worker did not start")
  return p


def _readline(p, timeout):
  r, _, _ = select.select([p.stdout], [], [], timeout)
  return p.stdout.readline() if r else None


def fuzz(calls, names, budget_s=None, hard_timeout_s=PER_CALL_S + 20):
  """Runs `calls`; returns {status: [(call name, detail)]}."""
  results = collections.defaultdict(list)
  tmp = tempfile.mkdtemp(prefix="tensorlet-fuzz-")
  p = _spawn(tmp)
  start = time.monotonic()
  try:
    for call in calls:
      if budget_s is not None and time.monotonic() - start > budget_s:
        results["not_run"].append((names(call), ""))
        continue
      p.stdin.write(json.dumps(list(call)) + "\n")
      p.stdin.flush()
      line = _readline(p, hard_timeout_s)
      if line is None or not line:
        status = "crash" if (line == "" or p.poll() is not None) else "hang"
        results[status].append((names(call), f"exit code {p.poll()}"))
        p.kill()
        p.wait()
        p = _spawn(tmp)
        continue
      status, detail = json.loads(line)
      results[status].append((names(call), detail))
  finally:
    p.kill()
    p.wait()
    shutil.rmtree(tmp, ignore_errors=True)
  return results


def describe(tf):
  bads = bad_values(tf)

  def name(call):
    qual, pi, bi, mode = call
    params = _params(resolve(tf, qual))
    if mode.startswith("call_"):
      return f"tf.{qual}()(inputs={bads[bi][0]}) [{mode[5:]}]"
    arg = params[pi].name if params else "*args"
    return f"tf.{qual}({arg}={bads[bi][0]}) [{mode}]"
  return name


def summary(results):
  # not_run: past the time budget; no_setup: a layer the fuzzer could not build.
  total = sum(len(v) for k, v in results.items() if k not in ("not_run", "no_setup"))
  counts = {k: len(v) for k, v in sorted(results.items())}
  leaked = len(results.get("leaked", []))
  return total, counts, (100.0 * leaked / total if total else 0.0)


def main():
  ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
  ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
  ap.add_argument("--sample", type=int, default=None, help="a seeded sample of this many calls")
  ap.add_argument("--seed", type=int, default=0)
  ap.add_argument("--only", default=None,
                  help="comma-separated name prefixes, e.g. image.,keras.layers.Conv")
  ap.add_argument("--show", default=None, help="list calls of this status (leaked, hang ...)")
  args = ap.parse_args()
  if args.worker:
    worker()
    return
  sys.path.insert(0, _ROOT)
  import tensorlet as tf
  calls = all_calls(tf)
  if args.only:
    prefixes = tuple(args.only.split(","))
    calls = [c for c in calls if c[0].startswith(prefixes)]
  if args.sample:
    calls = sorted(random.Random(args.seed).sample(calls, min(args.sample, len(calls))))
  t = time.monotonic()
  results = fuzz(calls, describe(tf))
  total, counts, pct = summary(results)
  print(f"{total} calls over {len(public_callables(tf))} public functions and "
        f"{len(keras_layers(tf))} Keras layers in "
        f"{time.monotonic() - t:.0f} s: {counts}; leaked {pct:.2f} %")
  if args.show:
    for name, detail in results.get(args.show, []):
      print(f"  {name}: {detail}")


if __name__ == "__main__":
  main()
