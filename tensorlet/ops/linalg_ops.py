"""Linear algebra: einsum, matrix functions (inv, det, cholesky, solves) and
diagonal ops as primitives with their gradients, and the rest (tensordot,
norm, trace, logdet ...) as compositions of them. Decompositions (qr, svd,
eigh) live in linalg_decomp_ops.py.

Kernels call `np.linalg` (batched over leading dimensions); gradient rules are
the standard matrix-calculus results written in tensorlet ops, so they nest
for higher-order gradients.
"""
import builtins
import string

import numpy as np

from tensorlet import dtypes as _dt
from tensorlet.errors import invalid_argument
from tensorlet.ops import _blas_threads as _bt
from tensorlet.ops import array_ops, math_ops
from tensorlet.ops._common import BOOL, NUMERIC, as_int, as_str, same_shape
from tensorlet.ops._common import name_scoped
from tensorlet.ops.array_ops import eye, matrix_transpose  # noqa: F401 - tf.linalg re-exports
from tensorlet.ops.math_ops import matmul
from tensorlet.ops.registry import constant_value, execute, op
from tensorlet.tensor_shape import TensorShape, broadcast_static
from tensorlet.tensor import Tensor, convert_to_tensor

_LAPACK = frozenset({_dt.float32, _dt.float64, _dt.complex64, _dt.complex128})
_DIAG = NUMERIC | BOOL


def _fmt(dims):
  return "[" + ",".join("?" if d is None else str(d) for d in dims) + "]"


def _matrix_error(dims, square, index=0):
  """TF's message when `dims` is not a batch of (square) matrices, else None."""
  if dims is None:
    return None
  if len(dims) < 2:
    return f"Input tensor {index} must have rank >= 2, got shape {_fmt(dims)}"
  if square and None not in dims[-2:] and dims[-1] != dims[-2]:
    return f"Input matrix must be square. Got shape {_fmt(dims)}"
  return None


def _check(x, name, square=True, index=0):
  """Kernel-side check of an ndarray input."""
  msg = _matrix_error(list(np.shape(x)), square, index)
  if msg:
    raise invalid_argument(name, msg)


def _static(t, square=True, index=0):
  """Shape-rule check of a tensor input; its dims list (None if rank unknown)."""
  dims = t.shape.as_list() if t.shape.rank is not None else None
  msg = _matrix_error(dims, square, index)
  if msg:
    raise ValueError(msg)
  return dims


def _same_matrix_shape(inputs, attrs):
  _static(inputs[0])
  return [(inputs[0].shape, inputs[0].dtype)]


def _batch_shape(inputs, attrs):
  d = _static(inputs[0])
  return [(TensorShape(None if d is None else d[:-2]), inputs[0].dtype)]


def _mT(x):
  return np.conj(np.swapaxes(x, -1, -2))


def _like(dy, x):
  """`dy` with the static rank of `x` (a graph gradient may come with an unknown rank)."""
  if dy is None or dy.shape.rank is not None or x.shape.rank is None:
    return dy
  return array_ops.reshape(dy, array_ops.shape(x))


def _bcast_last2(x):
  """x[..., None, None]."""
  return array_ops.expand_dims(array_ops.expand_dims(x, -1), -1)


# ---------------------------------------------------------------- einsum

def _parse_einsum(equation, shapes):
  """Explicit, ellipsis-free equation for operands of `shapes` (None: unknown rank).

  Returns (input subscripts, output subscripts, per-operand broadcast shapes or None).
  Ellipsis dimensions get fresh labels, aligned from the right as NumPy does.
  """
  eq = as_str(equation, "Einsum", "equation").replace(" ", "")
  lhs, arrow, rhs = eq.partition("->")
  subs = lhs.split(",")
  if len(subs) != len(shapes):
    raise ValueError(f"Expected {len(subs)} input tensors for equation {equation!r}, got "
                     f"{len(shapes)}")
  for s in subs + [rhs]:
    if s.replace("...", "").strip(string.ascii_letters) or s.count("...") > 1:
      raise ValueError(f"Invalid einsum equation {equation!r}: subscripts must be letters "
                       f"with at most one '...' per operand")
  free = [c for c in string.ascii_letters if c not in eq]
  ell_ranks = []
  for s, shp in zip(subs, shapes):
    n = len(s.replace("...", ""))
    if shp is not None and ("..." not in s and n != len(shp) or n > len(shp)):
      raise ValueError(f"Input has rank {len(shp)} but the subscripts {s!r} of equation "
                       f"{equation!r} name {n} dimensions")
    if "..." in s and shp is None:
      raise ValueError("einsum with '...' needs operands of known rank")
    ell_ranks.append(len(shp) - n if "..." in s else 0)
  e = max(ell_ranks, default=0)
  ell = "".join(free[:e])
  subs = [s.replace("...", ell[e - r:]) for s, r in zip(subs, ell_ranks)]
  if arrow:
    out = rhs.replace("...", ell)
  else:  # NumPy's implicit output: '...' then the labels used once, sorted
    counts = {}
    for s in subs:
      for c in s:
        counts[c] = counts.get(c, 0) + 1
    out = ell + "".join(sorted(c for c, k in counts.items() if k == 1 and c not in ell))
  if len(set(out)) != len(out):
    raise ValueError(f"Output subscripts of einsum equation {equation!r} repeat a label")
  missing = set(out) - set("".join(subs))
  if missing:
    raise ValueError(f"Output subscripts of einsum equation {equation!r} use labels "
                     f"{''.join(sorted(missing))} that no input has")
  # Ellipsis dimensions broadcast (1 against n); named ones must match (the op checks).
  sizes = {}
  for s, shp in zip(subs, shapes):
    for c, d in zip(s, shp or ()):
      if d is not None and c in ell and d == 1:
        sizes.setdefault(c, 1)
      elif d is not None:
        sizes[c] = d
  targets = []
  for s, shp in zip(subs, shapes):
    t = [sizes.get(c) if c in ell and d == 1 else d for c, d in zip(s, shp or ())]
    targets.append(t if shp is not None and t != list(shp) and None not in t else None)
  return subs, out, targets


def _einsum_shape(inputs, attrs):
  ins, out = attrs["equation"].split("->")
  sizes = {}
  for k, (s, t) in enumerate(zip(ins.split(","), inputs)):
    if t.shape.rank is None:
      continue
    for axis, (c, d) in enumerate(zip(s, t.shape.as_list())):
      if d is not None and sizes.get(c) not in (None, d):
        raise ValueError(f"Expected dimension {sizes[c]} at axis {axis} of input {k} shaped "
                         f"{_fmt(t.shape.as_list())} but got dimension {d} (label '{c}')")
      if d is not None:
        sizes[c] = d
  known = all(t.shape.rank is not None for t in inputs)
  return [(TensorShape([sizes.get(c) for c in out] if known else None), inputs[0].dtype)]


@op("Einsum", dtypes=NUMERIC, shape=_einsum_shape)
def Einsum(*inputs, equation):
  big = builtins.sum(np.size(x) for x in inputs) > 4096
  # NOTE: optimize routes big contractions through BLAS; it costs ~50us on small ones.
  if big and len(inputs) > 1:
    _bt.einsum(equation, inputs)
  return np.einsum(equation, *inputs, optimize="greedy" if big and len(inputs) > 1 else False)


def _dim(x, axis):
  d = x.shape[axis]
  return d if d is not None else array_ops.shape(x)[axis]


def _eye(n, dtype):
  if isinstance(n, int):
    return eye(n, dtype=dtype)
  r = array_ops.range(n)
  return math_ops.cast(math_ops.equal(array_ops.expand_dims(r, 1), array_ops.expand_dims(r, 0)),
                       dtype)


@Einsum.def_grad
def _(op, dy):
  ins, out = op.attrs["equation"].split("->")
  ins = ins.split(",")
  used = set(op.attrs["equation"])
  fresh = iter(c for c in string.ascii_letters if c not in used)
  grads = []
  for k, (s, x) in enumerate(zip(ins, op.inputs)):
    subs, operands = [out], [dy]
    for j, (sj, xj) in enumerate(zip(ins, op.inputs)):
      if j != k:
        subs.append(sj)
        operands.append(math_ops.conj(xj))
    have = set("".join(subs))
    target, seen = "", set()
    for axis, c in enumerate(s):
      n = _dim(x, axis)
      if c in seen:  # a repeated label: the gradient lives on the diagonal
        c2 = next(fresh)
        subs.append(c + c2)
        operands.append(_eye(n, dy.dtype))
        c = c2
      elif c not in have:  # summed over in this input only: broadcast back
        subs.append(c)
        operands.append(array_ops.ones([n], dy.dtype))
      seen.add(s[axis])
      have.add(c)
      target += c
    grads.append(execute(Einsum, operands, {"equation": ",".join(subs) + "->" + target}))
  return grads


def einsum(equation, *inputs, **kwargs):
  """Tensor contraction by Einstein summation, e.g. "ij,jk->ik" (matmul).

  Supports any number of operands, repeated labels (diagonals, traces),
  implicit outputs and '...' (broadcasting batch dimensions).

  Raises:
    ValueError: a malformed equation or the wrong number of operands.
    InvalidArgumentError: dimensions that a label joins differ.

  Example:
    >>> tf.einsum("ij,jk->ik", tf.ones([2, 3]), tf.ones([3, 4])).shape
    TensorShape([2, 4])
  """
  if len(inputs) == 1 and isinstance(inputs[0], (list, tuple)):
    inputs = tuple(inputs[0])
  ts = [convert_to_tensor(x) for x in inputs]
  subs, out, targets = _parse_einsum(
      equation, [t.shape.as_list() if t.shape.rank is not None else None for t in ts])
  ts = [t if tgt is None else array_ops.broadcast_to(t, tgt) for t, tgt in zip(ts, targets)]
  for t in ts[1:]:
    if t.dtype is not ts[0].dtype:
      raise invalid_argument("Einsum", f"Inputs of einsum must have the same dtype, got "
                             f"{ts[0].dtype.name} and {t.dtype.name}")
  return execute(Einsum, ts, {"equation": ",".join(subs) + "->" + out})


@name_scoped
def tensordot(a, b, axes, name=None):
  """Sum of products of `a` and `b` over the given axes (reshape + matmul).

  `axes` is N (last N of a with first N of b) or a pair of axis lists.

  Example:
    >>> tf.tensordot(tf.ones([2, 3]), tf.ones([3, 4]), 1).shape
    TensorShape([2, 4])
  """
  a, b = convert_to_tensor(a), convert_to_tensor(b)
  ra, rb = a.shape.rank, b.shape.rank
  if ra is None or rb is None:
    raise ValueError("tensordot needs operands of known rank")
  if isinstance(axes, Tensor):
    axes = constant_value(axes).tolist()
  if isinstance(axes, (int, np.integer)):
    n = as_int(axes, "Tensordot", "axes")
    if n < 0:
      raise ValueError(f"'axes' must be at least 0, got {n}.")
    if n > ra or n > rb:
      raise ValueError(f"'axes' must not be larger than the number of dimensions of tensor "
                       f"{a if n > ra else b}.")
    ax_a, ax_b = list(range(ra - n, ra)), list(range(n))
  else:
    if not isinstance(axes, (list, tuple)) or len(axes) != 2:
      raise ValueError(f"'axes' must be an integer or have length 2, got {axes!r:.80}.")
    ax_a, ax_b = ([as_int(v, "Tensordot", "axes")] if np.ndim(v) == 0 else
                  [as_int(i, "Tensordot", "axes") for i in v] for v in axes)
    if ra == 0 or rb == 0:
      raise ValueError("tensordot: contraction axes given for a scalar operand")
    if len(ax_a) != len(ax_b):
      raise ValueError(f"Different number of contraction axes 'a' and 'b', {len(ax_a)} != "
                       f"{len(ax_b)}.")
    ax_a, ax_b = [i % ra for i in ax_a], [i % rb for i in ax_b]
  for i, j in zip(ax_a, ax_b):
    da, db = a.shape[i], b.shape[j]
    if da is not None and db is not None and da != db:
      raise invalid_argument("MatMul", f"Matrix size-incompatible: tensordot contracts axis "
                             f"{i} of a (shape {_fmt(a.shape.as_list())}) with axis {j} of b "
                             f"(shape {_fmt(b.shape.as_list())})")
  free_a = [i for i in range(ra) if i not in ax_a]
  free_b = [i for i in range(rb) if i not in ax_b]
  am = _to_matrix(a, free_a, ax_a)
  bm = _to_matrix(b, ax_b, free_b)
  out = matmul(am, bm)
  dims = [_dim(a, i) for i in free_a] + [_dim(b, i) for i in free_b]
  res = array_ops.reshape(out, dims)
  if hasattr(res, "op"):  # a dynamic reshape loses the static dims known here
    res.set_shape([a.shape[i] for i in free_a] + [b.shape[i] for i in free_b])
  return res


def _to_matrix(x, rows, cols):
  """`x` transposed to rows + cols and reshaped to a matrix."""
  if rows + cols != list(range(len(rows) + len(cols))):
    x = array_ops.transpose(x, rows + cols)
    rows, cols = list(range(len(rows))), list(range(len(rows), len(rows) + len(cols)))
  return array_ops.reshape(x, [_prod([_dim(x, i) for i in rows]),
                               _prod([_dim(x, i) for i in cols])])


def _prod(dims):
  if all(isinstance(d, int) for d in dims):
    return int(np.prod(dims, dtype=np.int64))
  r = 1
  for d in dims:
    r = r * d
  return r


# ------------------------------------------------------ inverse, determinant

@op("MatrixInverse", dtypes=_LAPACK, shape=_same_matrix_shape)
def MatrixInverse(x, *, adjoint=False):
  _check(x, "MatrixInverse")
  try:
    return np.linalg.inv(_mT(x) if adjoint else x)
  except np.linalg.LinAlgError:
    raise invalid_argument("MatrixInverse", "Input is not invertible.") from None


@MatrixInverse.def_grad
def _(op, dy):
  ainv = op.outputs[0]
  adj = op.attrs.get("adjoint", False)
  return [-matmul(ainv, matmul(dy, ainv, adjoint_a=adj, adjoint_b=not adj), adjoint_a=not adj)]


@name_scoped
def inv(input, adjoint=False, name=None):  # noqa: A002
  """Inverse of each square matrix in `input` [..., M, M].

  Raises:
    InvalidArgumentError: a non-square or singular matrix ("Input is not invertible.").
  """
  return execute(MatrixInverse, [convert_to_tensor(input)], {"adjoint": bool(adjoint)})


@op("MatrixDeterminant", dtypes=_LAPACK, shape=_batch_shape)
def MatrixDeterminant(x):
  _check(x, "MatrixDeterminant")
  return np.asarray(np.linalg.det(x), dtype=x.dtype)


@MatrixDeterminant.def_grad
def _(op, dy):
  return [_bcast_last2(dy * op.outputs[0]) * inv(op.inputs[0], adjoint=True)]


@name_scoped
def det(input, name=None):  # noqa: A002
  """Determinant of each square matrix in `input` [..., M, M]."""
  return execute(MatrixDeterminant, [convert_to_tensor(input)], {})


@op("LogMatrixDeterminant", dtypes=_LAPACK, num_outputs=2,
    shape=lambda i, a: _batch_shape(i, a) * 2)
def LogMatrixDeterminant(x):
  _check(x, "LogMatrixDeterminant")
  sign, logabs = np.linalg.slogdet(x)
  return np.asarray(sign, x.dtype), np.asarray(logabs, x.dtype)


@LogMatrixDeterminant.def_grad
def _(op, dsign, dlog):
  if dlog is None:
    return [None]
  return [_bcast_last2(dlog) * inv(op.inputs[0], adjoint=True)]


@name_scoped
def slogdet(input, name=None):  # noqa: A002
  """(sign, log|det|) of each square matrix: stable for large determinants."""
  return execute(LogMatrixDeterminant, [convert_to_tensor(input)], {})


@name_scoped
def logdet(matrix, name=None):
  """log(det(matrix)) of Hermitian positive-definite matrices, via Cholesky."""
  chol = cholesky(matrix)
  return 2.0 * math_ops.reduce_sum(math_ops.log(math_ops.real(diag_part(chol))), axis=[-1])


# ---------------------------------------------------------- cholesky, solves

@op("Cholesky", dtypes=_LAPACK, shape=_same_matrix_shape)
def Cholesky(x):
  _check(x, "Cholesky")
  try:
    return np.linalg.cholesky(x)
  except np.linalg.LinAlgError:
    raise invalid_argument("Cholesky", "Cholesky decomposition was not successful. The input "
                           "might not be valid.") from None


@Cholesky.def_grad
def _(op, dy):
  # NOTE: TF's rule; it returns the symmetric gradient (the kernel reads the lower half).
  l = op.outputs[0]
  dy = _like(dy, l)
  n = _dim(l, -1)
  l_inv = triangular_solve(l, array_ops.broadcast_to(_eye(n, l.dtype), array_ops.shape(l)))
  middle = matmul(l, dy, adjoint_a=True)
  middle = set_diag(middle, 0.5 * diag_part(middle))
  middle = band_part(middle, -1, 0)
  g = matmul(matmul(l_inv, middle, adjoint_a=True), l_inv)
  return [(g + adjoint(g)) * 0.5]


@name_scoped
def cholesky(input, name=None):  # noqa: A002
  """Lower-triangular L with L L^H = input, for Hermitian positive-definite input.

  Raises:
    InvalidArgumentError: the matrix is not positive definite.
  """
  return execute(Cholesky, [convert_to_tensor(input)], {})


def _solve_shape(inputs, attrs):
  a = _static(inputs[0])
  b = _static(inputs[1], square=False, index=1)
  if a is not None and b is not None and None not in (a[-2], b[-2]) and a[-2] != b[-2]:
    raise ValueError(f"Input matrix and right-hand side must have the same number of rows. "
                     f"Got shapes {_fmt(a)} and {_fmt(b)}")
  if a is None or b is None:
    return [(TensorShape(None), inputs[1].dtype)]
  batch = broadcast_static(TensorShape(a[:-2]), TensorShape(b[:-2]))
  return [(TensorShape(batch.as_list() + b[-2:]), inputs[1].dtype)]


def _check_rhs(a, b, name):
  _check(a, name)
  _check(b, name, square=False, index=1)
  if a.shape[-2] != b.shape[-2]:
    raise invalid_argument(name, f"Input matrix and right-hand side must have the same number "
                           f"of rows. Got shapes {_fmt(a.shape)} and {_fmt(b.shape)}")


@op("MatrixSolve", dtypes=_LAPACK, shape=_solve_shape)
def MatrixSolve(matrix, rhs, *, adjoint):
  _check_rhs(matrix, rhs, "MatrixSolve")
  try:
    return np.linalg.solve(_mT(matrix) if adjoint else matrix, rhs)
  except np.linalg.LinAlgError:
    raise invalid_argument("MatrixSolve", "Input matrix is not invertible.") from None


@MatrixSolve.def_grad
def _(op, dy):
  a, adj, c = op.inputs[0], op.attrs["adjoint"], op.outputs[0]
  gb = solve(a, dy, adjoint=not adj)
  ga = -matmul(c, gb, adjoint_b=True) if adj else -matmul(gb, c, adjoint_b=True)
  return [ga, gb]


@name_scoped
def solve(matrix, rhs, adjoint=False, name=None):
  """X with matrix @ X = rhs (matrix [..., M, M], rhs [..., M, K]).

  Raises:
    InvalidArgumentError: a singular matrix or mismatched rows.
  """
  m, r = convert_to_tensor(matrix), convert_to_tensor(rhs)
  return execute(MatrixSolve, [m, r], {"adjoint": bool(adjoint)})


def _substitute(a, b, lower):
  """Forward/back substitution; a zero pivot gives inf/nan as TF's kernel does."""
  n = a.shape[-1]
  shape = np.broadcast_shapes(a.shape[:-2], b.shape[:-2]) + b.shape[-2:]
  x = np.zeros(shape, dtype=np.result_type(a, b))
  with np.errstate(divide="ignore", invalid="ignore"):
    for i in (range(n) if lower else range(n - 1, -1, -1)):
      acc = b[..., i, :] - np.einsum("...j,...jk->...k", a[..., i, :], x)
      x[..., i, :] = acc / a[..., i, i][..., None]
  return x


@op("MatrixTriangularSolve", dtypes=_LAPACK, shape=_solve_shape)
def MatrixTriangularSolve(matrix, rhs, *, lower, adjoint):
  _check_rhs(matrix, rhs, "MatrixTriangularSolve")
  a = np.tril(matrix) if lower else np.triu(matrix)
  if adjoint:
    a = _mT(a)
  try:
    return np.linalg.solve(a, rhs)
  except np.linalg.LinAlgError:
    return _substitute(a, rhs, lower != adjoint)


@MatrixTriangularSolve.def_grad
def _(op, dy):
  a, c = op.inputs[0], op.outputs[0]
  lower, adj = op.attrs["lower"], op.attrs["adjoint"]
  gb = triangular_solve(a, dy, lower=lower, adjoint=not adj)
  ga = -matmul(c, gb, adjoint_b=True) if adj else -matmul(gb, c, adjoint_b=True)
  return [band_part(ga, -1, 0) if lower else band_part(ga, 0, -1), gb]


@name_scoped
def triangular_solve(matrix, rhs, lower=True, adjoint=False, name=None):
  """X with T @ X = rhs, T the lower (or upper) triangle of `matrix`."""
  m, r = convert_to_tensor(matrix), convert_to_tensor(rhs)
  return execute(MatrixTriangularSolve, [m, r], {"lower": bool(lower), "adjoint": bool(adjoint)})


@name_scoped
def cholesky_solve(chol, rhs, name=None):
  """X with A X = rhs, given chol = cholesky(A)."""
  y = triangular_solve(chol, rhs, lower=True, adjoint=False)
  return triangular_solve(chol, y, lower=True, adjoint=True)


# ------------------------------------------------------------- diagonals

def _diag_index(m, n, k):
  """Row and column indices of diagonal k of an m x n matrix."""
  r0, c0 = builtins.max(-k, 0), builtins.max(k, 0)
  d = builtins.max(builtins.min(m - r0, n - c0), 0)
  return np.arange(d) + r0, np.arange(d) + c0


def _diag_dims(d, k, num_rows, num_cols):
  m = num_rows if num_rows >= 0 else None
  n = num_cols if num_cols >= 0 else None
  if m is None and n is None:
    m = n = d + builtins.abs(k)
  elif m is None:
    m = d + builtins.max(-k, 0)
  elif n is None:
    n = d + builtins.max(k, 0)
  return m, n


def _matrix_diag_shape(inputs, attrs):
  x = inputs[0]
  if x.shape.rank is None:
    return [(TensorShape(None), x.dtype)]
  if x.shape[-1] is None:  # the rank is still known: batch dims + [rows, cols]
    m, n = (attrs[a] if attrs[a] >= 0 else None for a in ("num_rows", "num_cols"))
    return [(TensorShape(x.shape.as_list()[:-1] + [m, n]), x.dtype)]
  m, n = _diag_dims(x.shape[-1], attrs["k"], attrs["num_rows"], attrs["num_cols"])
  return [(TensorShape(x.shape.as_list()[:-1] + [m, n]), x.dtype)]


@op("MatrixDiagV3", type_inputs=(0,), dtypes=_DIAG, shape=_matrix_diag_shape)
def MatrixDiagV3(diagonal, *, k, num_rows, num_cols, padding_value):
  d = diagonal.shape[-1]
  m, n = _diag_dims(d, k, num_rows, num_cols)
  rows, cols = _diag_index(m, n, k)
  if len(rows) != d:
    raise invalid_argument("MatrixDiagV3", f"The length of diagonal {k} of a {m}x{n} matrix is "
                           f"{len(rows)}, but the input's last dimension is {d}")
  out = np.full(diagonal.shape[:-1] + (m, n), padding_value, dtype=diagonal.dtype)
  out[..., rows, cols] = diagonal
  return out


@MatrixDiagV3.def_grad
def _(op, dy):
  return [diag_part(dy, k=op.attrs["k"])]


def _k(k):
  if isinstance(k, Tensor):
    k = constant_value(k)
  if np.ndim(k):
    raise NotImplementedError("tensorlet supports a single diagonal index k, not a band")
  return as_int(k, "MatrixDiagV3", "k")


@name_scoped
def diag(diagonal, name="diag", k=0, num_rows=-1, num_cols=-1, padding_value=0,
         align="RIGHT_LEFT"):
  """A batch of matrices with `diagonal` on diagonal `k` and `padding_value` elsewhere.

  Example:
    >>> tf.linalg.diag([1, 2]).numpy()
    array([[1, 0],
           [0, 2]], dtype=int32)
  """
  x = convert_to_tensor(diagonal)
  if x.shape.rank == 0:
    raise invalid_argument("MatrixDiagV3", "diagonal must be at least 1-dim, got shape []")
  return execute(MatrixDiagV3, [x], {"k": _k(k), "num_rows": as_int(num_rows, "MatrixDiagV3", "num_rows"),
                                     "num_cols": as_int(num_cols, "MatrixDiagV3", "num_cols"),
                                     "padding_value": padding_value})


def _diag_part_shape(inputs, attrs):
  d = _static(inputs[0], square=False)
  if d is None:
    return [(TensorShape(None), inputs[0].dtype)]
  if None in d[-2:]:
    return [(TensorShape(d[:-2] + [None]), inputs[0].dtype)]
  return [(TensorShape(d[:-2] + [len(_diag_index(d[-2], d[-1], attrs["k"])[0])]),
           inputs[0].dtype)]


@op("MatrixDiagPartV3", dtypes=_DIAG, shape=_diag_part_shape)
def MatrixDiagPartV3(input, *, k):  # noqa: A002
  _check(input, "MatrixDiagPartV3", square=False)
  rows, cols = _diag_index(input.shape[-2], input.shape[-1], k)
  return input[..., rows, cols]


@MatrixDiagPartV3.def_grad
def _(op, dy):
  x = op.inputs[0]
  return [set_diag(array_ops.zeros_like(x), dy, k=op.attrs["k"])]


@name_scoped
def diag_part(input, name="diag_part", k=0, padding_value=0, align="RIGHT_LEFT"):  # noqa: A002
  """Diagonal `k` of each matrix in `input` [..., M, N]."""
  return execute(MatrixDiagPartV3, [convert_to_tensor(input)], {"k": _k(k)})


@op("MatrixSetDiagV3", dtypes=_DIAG, shape=same_shape)
def MatrixSetDiagV3(input, diagonal, *, k):  # noqa: A002
  _check(input, "MatrixSetDiagV3", square=False)
  rows, cols = _diag_index(input.shape[-2], input.shape[-1], k)
  want = input.shape[:-2] + (len(rows),)
  if diagonal.shape != want:
    raise invalid_argument("MatrixSetDiagV3", f"diagonal must have shape {_fmt(want)} for "
                           f"input of shape {_fmt(input.shape)} and k={k}, got "
                           f"{_fmt(diagonal.shape)}")
  out = input.copy()
  out[..., rows, cols] = diagonal
  return out


@MatrixSetDiagV3.def_grad
def _(op, dy):
  k = op.attrs["k"]
  return [set_diag(dy, array_ops.zeros_like(op.inputs[1]), k=k), diag_part(dy, k=k)]


@name_scoped
def set_diag(input, diagonal, name="set_diag", k=0, align="RIGHT_LEFT"):  # noqa: A002
  """`input` with diagonal `k` of each matrix replaced by `diagonal`."""
  x = convert_to_tensor(input)
  d = diagonal if isinstance(diagonal, Tensor) else convert_to_tensor(diagonal, x.dtype)
  return execute(MatrixSetDiagV3, [x, d], {"k": _k(k)})


@op("MatrixBandPart", dtypes=_DIAG, shape=same_shape)
def MatrixBandPart(input, *, num_lower, num_upper):  # noqa: A002
  _check(input, "MatrixBandPart", square=False)
  m, n = input.shape[-2:]
  i = np.arange(m)[:, None]
  j = np.arange(n)[None, :]
  keep = ((num_lower < 0) | (i - j <= num_lower)) & ((num_upper < 0) | (j - i <= num_upper))
  return np.where(keep, input, np.zeros((), input.dtype))


@MatrixBandPart.def_grad
def _(op, dy):
  return [execute(MatrixBandPart, [dy], op.attrs)]


@name_scoped
def band_part(input, num_lower, num_upper, name=None):  # noqa: A002
  """Keeps `num_lower` sub- and `num_upper` superdiagonals (negative: all), zeroes the rest."""
  x = convert_to_tensor(input)
  lo, up = (as_int(constant_value(v) if isinstance(v, Tensor) else v, "MatrixBandPart", arg)
            for v, arg in ((num_lower, "num_lower"), (num_upper, "num_upper")))
  return execute(MatrixBandPart, [x], {"num_lower": lo, "num_upper": up})


@name_scoped
def trace(x, name=None):
  """Sum of the main diagonal of each matrix in `x` [..., M, N]."""
  return math_ops.reduce_sum(diag_part(x), axis=-1)


@name_scoped
def adjoint(matrix, name=None):
  """Conjugate transpose of the last two dimensions."""
  return matrix_transpose(matrix, conjugate=True)


@name_scoped
def matvec(a, b, transpose_a=False, adjoint_a=False, a_is_sparse=False, b_is_sparse=False,
           name=None):
  """Matrix-vector product a @ b over the last dimensions ([..., M, N] x [..., N])."""
  b = convert_to_tensor(b)
  r = matmul(a, array_ops.expand_dims(b, -1), transpose_a=transpose_a, adjoint_a=adjoint_a)
  return array_ops.squeeze(r, axis=[-1])


def _cross_shape(inputs, attrs):
  a, b = inputs
  if a.shape.rank is not None and b.shape.rank is not None:
    if a.shape.is_fully_defined() and b.shape.is_fully_defined() and a.shape != b.shape:
      raise ValueError(f"a and b must be the same shape; got {_fmt(a.shape.as_list())} and "
                       f"{_fmt(b.shape.as_list())}")
    if a.shape.rank == 0 or a.shape[-1] not in (None, 3):
      raise ValueError(f"Dimension must be 3 but is {a.shape[-1] if a.shape.rank else 0}")
  return [(a.shape, a.dtype)]


@op("Cross", dtypes=_dt.REAL, shape=_cross_shape)
def Cross(a, b):
  if a.shape != b.shape or a.ndim == 0 or a.shape[-1] != 3:
    raise ValueError("bad shapes")
  return np.cross(a, b)


@Cross.def_grad
def _(op, dy):
  a, b = op.inputs
  return [cross(b, dy), cross(dy, a)]


@name_scoped
def cross(a, b, name=None):
  """Cross product of 3-vectors along the last dimension."""
  return Cross(a, b)


# ------------------------------------------------------------------ norms

_MATRIX_ORDS = ("euclidean", "fro", 1, 2, np.inf)


def _is_ord(x, options):
  return any(x is o or (type(x) is type(o) and x == o) or
             (isinstance(x, (int, float)) and not isinstance(x, bool) and
              isinstance(o, (int, float)) and x == o) for o in options)


@name_scoped
def norm(tensor, ord="euclidean", axis=None, keepdims=None, name=None):  # noqa: A002
  """Vector norms (ord 'euclidean', 1, 2, inf or any p > 0) over `axis`, or matrix
  norms ('euclidean'/'fro', 1, 2, inf) when `axis` is a pair of axes.

  Raises:
    ValueError: an unsupported `ord` or a malformed `axis`.

  Example:
    >>> float(tf.norm([3.0, 4.0]))
    5.0
  """
  is_matrix = isinstance(axis, (tuple, list)) and len(axis) == 2
  bad_axis = ValueError(f"'axis' must be None, an integer, or a tuple of 2 unique integers, "
                        f"got {axis}")
  if is_matrix:
    axis = tuple(axis)
    if not all(isinstance(a, (int, np.integer)) for a in axis) or axis[0] == axis[1]:
      raise bad_axis
    if not _is_ord(ord, _MATRIX_ORDS):
      raise ValueError(f"'ord' must be a supported matrix norm in ['euclidean', 'fro', 1, 2, "
                       f"inf], got {ord}")
  else:
    if axis is not None and not isinstance(axis, (int, np.integer)):
      raise bad_axis
    numeric = isinstance(ord, (int, float, np.number)) and not isinstance(ord, bool)
    if not (ord == "euclidean" if isinstance(ord, str) else numeric and ord > 0):
      raise ValueError(f"'ord' must be a supported vector norm, got {ord}")
    axis = None if axis is None else (as_int(axis, "Norm", "axis"),)
  x = convert_to_tensor(tensor)
  if is_matrix:
    r = x.shape.rank
    if r is not None and (r < 2 or builtins.any(not -r <= a < r for a in axis)):
      raise bad_axis
    axis = tuple(a % r for a in axis) if r is not None else axis
  rs, rm = math_ops.reduce_sum, math_ops.reduce_max
  if isinstance(ord, str) or (ord == 2 and not is_matrix):
    res = math_ops.sqrt(rs(x * math_ops.conj(x), axis=_ax(axis), keepdims=True))
  elif ord == 2:
    r = x.shape.rank
    perm = [i for i in range(r) if i not in axis] + list(axis)
    from tensorlet.ops.linalg_decomp_ops import svd
    s = svd(array_ops.transpose(x, perm), compute_uv=False)
    top = array_ops.expand_dims(rm(s, axis=-1, keepdims=True), -1)
    res = array_ops.transpose(top, list(np.argsort(perm)))
  else:
    res = math_ops.abs(x)
    if ord == 1:
      res = rs(res, axis=None if axis is None else axis[0], keepdims=True)
      if is_matrix:
        res = rm(res, axis=axis[1], keepdims=True)
    elif ord == np.inf:
      if is_matrix:
        res = rs(res, axis=axis[1], keepdims=True)
      res = rm(res, axis=None if axis is None else axis[0], keepdims=True)
    else:
      res = math_ops.pow(rs(math_ops.pow(res, math_ops.cast(ord, res.dtype)), axis=_ax(axis),
                            keepdims=True), math_ops.cast(1.0 / ord, res.dtype))
  if not keepdims:
    res = array_ops.squeeze(res, axis=_ax(axis))
  return res


def _ax(axis):
  return None if axis is None else list(axis)


@name_scoped
def normalize(tensor, ord="euclidean", axis=None, name=None):  # noqa: A002
  """(tensor / norm, norm) with the norm kept broadcastable."""
  x = convert_to_tensor(tensor)
  n = norm(x, ord=ord, axis=axis, keepdims=True)
  return x / n, n


@name_scoped
def global_norm(t_list, name=None):
  """sqrt(sum of squares of all entries of all tensors in `t_list`); Nones are skipped."""
  if isinstance(t_list, Tensor) or not isinstance(t_list, (list, tuple)):
    raise TypeError(f"t_list should be a sequence of tensors, got {type(t_list).__name__}")
  ts = [convert_to_tensor(t) for t in t_list if t is not None]
  if not ts:
    return convert_to_tensor(0.0)
  sq = [math_ops.reduce_sum(math_ops.square(t)) for t in ts]
  return math_ops.sqrt(math_ops.add_n(sq))
