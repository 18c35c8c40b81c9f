"""Bad input to tf.summary. The reference's summary ops need TensorBoard, which it
lacks, so these follow TensorBoard's own checks (ValueError for shapes, TypeError for
types, TF's conversion errors for `step`) and TF core's writer errors."""
import pytest

import tensorlet as tf
from bad_input_check import check


@pytest.fixture
def writer(tmp_path):
  w = tf.summary.create_file_writer(str(tmp_path))
  with w.as_default():
    yield w
  w.close()


S = tf.summary
CASES = [
    ("name_int", lambda: S.scalar(3, 1.0, step=1), TypeError,
     "summary name must be a string, got 3"),
    ("name_none", lambda: S.scalar(None, 1.0, step=1), TypeError,
     "summary name must be a string, got None"),
    ("no_step", lambda: S.scalar("a", 1.0), ValueError, "No step set"),
    ("step_float", lambda: S.scalar("a", 1.0, step=1.5), TypeError,
     "Cannot convert 1.5 to EagerTensor of dtype int64"),
    ("step_str", lambda: S.scalar("a", 1.0, step="x"), TypeError,
     "Cannot convert 'x' to EagerTensor of dtype int64"),
    ("step_vector", lambda: S.scalar("a", 1.0, step=[1, 2]), ValueError,
     r"`step` must be a scalar, got shape \(2,\)"),
    ("step_float_tensor", lambda: S.scalar("a", 1.0, step=tf.constant(1.5)), ValueError,
     "requested dtype int64 for Tensor with dtype float32"),
    ("scalar_vector", lambda: S.scalar("a", [1.0, 2.0], step=1), ValueError,
     r"Expected scalar shape, saw shape: \(2,\)"),
    ("scalar_string", lambda: S.scalar("a", "abc", step=1), TypeError,
     "cannot write a string tensor as a scalar"),
    ("scalar_none", lambda: S.scalar("a", None, step=1), ValueError,
     "tf.summary.scalar 'a': `data` is None"),
    ("histogram_strings", lambda: S.histogram("a", ["a", "b"], step=1), TypeError,
     "data must be numeric"),
    ("histogram_buckets_negative", lambda: S.histogram("a", [1.0], step=1, buckets=-1),
     ValueError, "`buckets` must be >= 0, got -1"),
    ("histogram_buckets_str", lambda: S.histogram("a", [1.0], step=1, buckets="a"), TypeError,
     "`buckets` must be an int"),
    ("histogram_none", lambda: S.histogram("a", None, step=1), ValueError,
     "histogram 'a': `data` is None"),
    ("image_rank3", lambda: S.image("a", tf.zeros([2, 2, 3]), step=1), ValueError,
     "must have rank 4. Received rank 3"),
    ("image_5_channels", lambda: S.image("a", tf.zeros([1, 2, 2, 5]), step=1), ValueError,
     "1, 2, 3 or 4 channels, got 5"),
    ("image_strings", lambda: S.image("a", tf.constant([[[["a"]]]]), step=1), TypeError,
     "cannot convert string images"),
    ("image_max_outputs_negative",
     lambda: S.image("a", tf.zeros([1, 2, 2, 3]), step=1, max_outputs=-1), ValueError,
     "`max_outputs` must be a non-negative int"),
    ("text_float", lambda: S.text("a", 1.0, step=1), TypeError,
     "tensor must be of type tf.string; got tf.float32"),
    ("text_none", lambda: S.text("a", None, step=1), ValueError, "text 'a': `data` is None"),
    ("write_tag_int", lambda: S.write(3, 1.0, step=1), TypeError,
     "summary name must be a string"),
    # TF: TypeError (Cannot convert 3 to EagerTensor of dtype string); this was a raw
    # AttributeError.
    ("write_metadata_int", lambda: S.write("a", 1.0, step=1, metadata=3), TypeError,
     "`metadata` must be a SummaryMetadata proto"),
    ("trace_export_untraced", lambda: S.trace_export("t", step=1), ValueError,
     "Must enable trace before export"),
    ("trace_export_name_int", lambda: S.trace_export(3, step=1), TypeError,
     "`name` must be a string, got 3"),
    ("in_function_name_int", lambda: tf.function(lambda: S.scalar(3, 1.0, step=1))(),
     TypeError, "summary name must be a string"),
    ("in_function_step_float", lambda: tf.function(lambda: S.scalar("a", 1.0, step=1.5))(),
     TypeError, "Cannot convert 1.5"),
]


@pytest.mark.parametrize("call, exc, pattern", [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_bad_input(writer, call, exc, pattern):
  check(call, exc, pattern)


def test_closed_writer(tmp_path):
  w = tf.summary.create_file_writer(str(tmp_path))
  w.close()
  check(lambda: w.as_default().__enter__(), RuntimeError, "already closed")


@pytest.mark.parametrize("make, exc, pattern", [
    (lambda p: S.create_file_writer(None), ValueError, "`logdir` cannot be None"),
    (lambda p: S.create_file_writer(3), TypeError, "Cannot convert 3 to EagerTensor"),
    (lambda p: S.create_file_writer(str(p), max_queue="a"), TypeError,
     "`max_queue` must be a number"),
    (lambda p: S.create_file_writer(str(p), flush_millis="a"), TypeError,
     "`flush_millis` must be a number"),
    # TF: FailedPreconditionError from CreateSummaryFileWriter; this was FileExistsError.
    (lambda p: S.create_file_writer(str(p / "f")), tf.errors.FailedPreconditionError,
     "is not a directory"),
], ids=["logdir_none", "logdir_int", "max_queue_str", "flush_millis_str", "logdir_is_file"])
def test_bad_writer(tmp_path, make, exc, pattern):
  (tmp_path / "f").write_text("x")
  check(lambda: make(tmp_path), exc, pattern)
