"""tf.autograph: converts Python control flow on tensors into graph control flow."""
from tensorlet.autograph.api import ConversionError, convert, converted_call  # noqa: F401
from tensorlet.autograph.api import do_not_convert as _do_not_convert
from tensorlet.autograph.api import to_code  # noqa: F401


def to_graph(entity, recursive=True, experimental_optional_features=None):
  """The converted function (runs with graph control flow when given tensors)."""
  return convert(entity)


def set_verbosity(level, alsologtostdout=False):
  """Accepted for compatibility; conversion problems are raised, not logged."""


class experimental:  # noqa: N801 - TF's namespace
  do_not_convert = staticmethod(_do_not_convert)

  class Feature:
    ALL = "ALL"
    AUTO_CONTROL_DEPS = "AUTO_CONTROL_DEPS"
    ASSERT_STATEMENTS = "ASSERT_STATEMENTS"
    BUILTIN_FUNCTIONS = "BUILTIN_FUNCTIONS"
    EQUALITY_OPERATORS = "EQUALITY_OPERATORS"
    LISTS = "LISTS"
    NAME_SCOPES = "NAME_SCOPES"

  @staticmethod
  def set_loop_options(parallel_iterations=None, swap_memory=None, maximum_iterations=None,
                       shape_invariants=None):
    """As a statement in a converted loop body, AutoGraph moves the call before the
    loop and applies its options (shape invariants, maximum iterations); run as
    written (a Python loop, eager code) it does nothing, as in TF."""


from tensorlet._unsupported import getattr_for as _getattr_for  # noqa: E402
__getattr__ = _getattr_for("tf.autograph", __name__)
