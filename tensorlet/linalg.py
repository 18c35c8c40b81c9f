"""tf.linalg: the public linear-algebra namespace (re-exports only)."""
from tensorlet.ops.linalg_decomp_ops import (  # noqa: F401
    eig, eigh, eigvals, eigvalsh, lstsq, pinv, qr, svd)
from tensorlet.ops.linalg_ops import (  # noqa: F401
    adjoint, band_part, cholesky, cholesky_solve, cross, det, diag, diag_part, einsum, eye,
    global_norm, inv, logdet, matmul, matrix_transpose, matvec, norm, normalize, set_diag,
    slogdet, solve, tensordot, trace, triangular_solve)
from tensorlet.ops.math_ops import l2_normalize  # noqa: F401

from tensorlet.ops import dispatch as _dispatch  # noqa: E402
_dispatch.install(globals(), "linalg")


from tensorlet._unsupported import getattr_for as _getattr_for  # noqa: E402
__getattr__ = _getattr_for("tf.linalg", __name__)
