"""tf.errors: TensorFlow's exception hierarchy (`OpError` and its codes)."""

OK = 0
CANCELLED = 1
UNKNOWN = 2
INVALID_ARGUMENT = 3
DEADLINE_EXCEEDED = 4
NOT_FOUND = 5
ALREADY_EXISTS = 6
PERMISSION_DENIED = 7
RESOURCE_EXHAUSTED = 8
FAILED_PRECONDITION = 9
ABORTED = 10
OUT_OF_RANGE = 11
UNIMPLEMENTED = 12
INTERNAL = 13
UNAVAILABLE = 14
DATA_LOSS = 15
UNAUTHENTICATED = 16


class OpError(Exception):
  """Base class of errors raised while running an op."""

  error_code = UNKNOWN

  def __init__(self, node_def=None, op=None, message="", *args, error_code=None):
    super().__init__(message)
    self.node_def = node_def
    self.op = op
    self._message = message
    if error_code is not None:
      self.error_code = error_code

  @property
  def message(self):
    return self._message

  def __reduce__(self):
    return type(self), (self.node_def, self.op, self._message)

  def __str__(self):
    return self._message


def _make(name, code, doc):
  cls = type(name, (OpError,), {"error_code": code, "__doc__": doc})
  return cls


CancelledError = _make("CancelledError", CANCELLED, "An operation was cancelled.")
UnknownError = _make("UnknownError", UNKNOWN, "An unknown error.")
InvalidArgumentError = _make("InvalidArgumentError", INVALID_ARGUMENT,
                             "An op received an argument it cannot use.")
DeadlineExceededError = _make("DeadlineExceededError", DEADLINE_EXCEEDED, "A deadline passed.")
NotFoundError = _make("NotFoundError", NOT_FOUND, "A requested entity was not found.")
AlreadyExistsError = _make("AlreadyExistsError", ALREADY_EXISTS, "An entity already exists.")
PermissionDeniedError = _make("PermissionDeniedError", PERMISSION_DENIED, "Permission denied.")
ResourceExhaustedError = _make("ResourceExhaustedError", RESOURCE_EXHAUSTED,
                               "A resource was exhausted.")
FailedPreconditionError = _make("FailedPreconditionError", FAILED_PRECONDITION,
                                "The system is not in a state to run the operation.")
AbortedError = _make("AbortedError", ABORTED, "An operation was aborted.")
OutOfRangeError = _make("OutOfRangeError", OUT_OF_RANGE, "An operation went past a valid range.")
UnimplementedError = _make("UnimplementedError", UNIMPLEMENTED,
                           "An operation is not implemented.")
InternalError = _make("InternalError", INTERNAL, "An internal invariant broke.")
UnavailableError = _make("UnavailableError", UNAVAILABLE, "A service is unavailable.")
DataLossError = _make("DataLossError", DATA_LOSS, "Unrecoverable data loss or corruption.")
UnauthenticatedError = _make("UnauthenticatedError", UNAUTHENTICATED,
                             "The request lacks valid authentication.")


class OperatorNotAllowedInGraphError(TypeError):
  """A Python operation on a symbolic tensor (bool, iteration) that a graph cannot run."""


def out_of_memory(op_name, what):
  """TF's ResourceExhaustedError for an allocation NumPy could not make."""
  return ResourceExhaustedError(None, None, f"OOM when allocating {what} [Op:{op_name}]")


def invalid_argument(op_name, message):
  """An InvalidArgumentError worded like TensorFlow's eager errors."""
  return InvalidArgumentError(None, None, f"{message} [Op:{op_name}]")


from tensorlet._unsupported import getattr_for as _getattr_for  # noqa: E402
__getattr__ = _getattr_for("tf.errors", __name__)


def out_of_scope_error(t):
  """TF's TypeError for a graph tensor used outside its graph (a tensor leaked out of
  a finished tf.function trace, or one of another function's graph)."""
  where = ""
  src = getattr(t.op, "source", None)
  if src:
    where = f"\n\n{t!r} was defined here:\n  File \"{src[0]}\", line {src[1]}, in {src[2]}"
  return TypeError(
      f"{t!r} is out of scope and cannot be used here. Use return values, explicit Python "
      f"locals or TensorFlow collections to access it. Please see "
      f"https://www.tensorflow.org/guide/function#all_outputs_of_a_tffunction_must_be_return_values"
      f" for more information.{where}\n\nThe tensor {t!r} cannot be accessed from here, "
      f"because it was defined in FuncGraph(name={t.op.graph.name}), which is out of scope.")
