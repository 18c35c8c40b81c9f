"""tf.debugging (re-exports only)."""
from tensorlet.ops.logging_ops import (  # noqa: F401
    Assert_ as Assert, assert_all_finite, assert_equal, assert_greater, assert_greater_equal,
    assert_less, assert_less_equal, assert_near, assert_negative, assert_non_negative,
    assert_non_positive, assert_none_equal, assert_positive, assert_rank, assert_shapes,
    assert_type, check_numerics, is_numeric_tensor)


def enable_check_numerics(stack_height_limit=30, path_length_limit=50):
  """Makes every op whose floating-point output holds NaN or Inf raise
  InvalidArgumentError naming the op, its inputs and the user's line, eagerly and
  in tf.functions traced from now on (their checks stay after disabling, as TF's)."""
  from tensorlet.ops import numerics
  numerics.enable()


def disable_check_numerics():
  """Stops the checks of enable_check_numerics for eager ops and new traces."""
  from tensorlet.ops import numerics
  numerics.disable()


def set_log_device_placement(enabled):
  """Accepted for compatibility; every op runs on the CPU."""


from tensorlet._unsupported import getattr_for as _getattr_for  # noqa: E402
__getattr__ = _getattr_for("tf.debugging", __name__)
