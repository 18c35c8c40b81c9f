"""Matrix decompositions (qr, svd, eigh, eig) with their gradients, and what is
built on them (pinv, lstsq). Shared checks and diagonal ops come from
linalg_ops."""
import builtins

import numpy as np

from tensorlet.ops._common import name_scoped
from tensorlet import dtypes as _dt
from tensorlet.ops import array_ops, math_ops
from tensorlet.ops.linalg_ops import (_LAPACK, _check, _dim, _eye, _like, _mT,
                                      _static, adjoint, band_part, cholesky, cholesky_solve,
                                      diag, diag_part, set_diag, triangular_solve)
from tensorlet.ops.math_ops import matmul
from tensorlet.ops.registry import execute, op
from tensorlet.tensor_shape import TensorShape
from tensorlet.tensor import convert_to_tensor


def _qr_shape(inputs, attrs):
  d = _static(inputs[0], square=False)
  if d is None:
    return [(TensorShape(None), inputs[0].dtype)] * 2
  m, n = d[-2:]
  k = None if m is None or n is None else builtins.min(m, n)
  qc, rr = (m, m) if attrs["full_matrices"] else (k, k)
  return [(TensorShape(d[:-2] + [m, qc]), inputs[0].dtype),
          (TensorShape(d[:-2] + [rr, n]), inputs[0].dtype)]


@op("Qr", dtypes=_LAPACK, num_outputs=2, shape=_qr_shape)
def Qr(x, *, full_matrices):
  _check(x, "Qr", square=False)
  q, r = np.linalg.qr(x, mode="complete" if full_matrices else "reduced")
  return q, r


def _tri_right_inv(x, r):
  """x @ inv(r)^H... for upper-triangular r: adjoint(solve(r, adjoint(x)))."""
  return adjoint(triangular_solve(r, adjoint(x), lower=False, adjoint=False))


def _qr_grad_deep(q, r, dq, dr):
  qdq = matmul(q, dq, adjoint_a=True)
  qdq_ = qdq - adjoint(qdq)
  rdr = matmul(r, dr, adjoint_b=True)
  rdr_ = rdr - adjoint(rdr)
  tril = band_part(qdq_ + rdr_, -1, 0)
  return matmul(q, dr + _tri_right_inv(tril, r)) + _tri_right_inv(dq - matmul(q, qdq), r)


@Qr.def_grad
def _(op, dq, dr):
  # NOTE: TF's rule (deep and square matrices; wide ones split into square + rest).
  a = op.inputs[0]
  q, r = op.outputs
  dq = array_ops.zeros_like(q) if dq is None else _like(dq, q)
  dr = array_ops.zeros_like(r) if dr is None else _like(dr, r)
  m, n = a.shape[-2], a.shape[-1]
  if m is None or n is None:
    raise NotImplementedError("QrGrad needs matrices of known size")
  if op.attrs["full_matrices"] and m > n:
    raise NotImplementedError("QrGrad not implemented when nrows > ncols and full_matrices "
                              "is true.")
  if m >= n:
    return [_qr_grad_deep(q, r, dq, dr)]
  y, u = a[..., :, m:], r[..., :, :m]
  dv, du = dr[..., :, m:], dr[..., :, :m]
  dx = _qr_grad_deep(q, u, dq + matmul(y, dv, adjoint_b=True), du)
  return [array_ops.concat([dx, matmul(q, dv)], axis=-1)]


@name_scoped
def qr(input, full_matrices=False, name=None):  # noqa: A002
  """QR decomposition: q with orthonormal columns, upper-triangular r, q @ r = input."""
  return execute(Qr, [convert_to_tensor(input)], {"full_matrices": bool(full_matrices)})


def _svd_shape(inputs, attrs):
  d = _static(inputs[0], square=False)
  t = inputs[0].dtype
  if d is None:
    return [(TensorShape(None), t.real_dtype)] + [(TensorShape(None), t)] * 2
  m, n = d[-2:]
  k = None if m is None or n is None else builtins.min(m, n)
  if not attrs["compute_uv"]:
    return [(TensorShape(d[:-2] + [k]), t.real_dtype), (TensorShape([0]), t),
            (TensorShape([0]), t)]
  full = attrs["full_matrices"]
  return [(TensorShape(d[:-2] + [k]), t.real_dtype),
          (TensorShape(d[:-2] + [m, m if full else k]), t),
          (TensorShape(d[:-2] + [n, n if full else k]), t)]


@op("Svd", dtypes=_LAPACK, num_outputs=3, shape=_svd_shape)
def Svd(x, *, compute_uv, full_matrices):
  _check(x, "Svd", square=False)
  if not compute_uv:
    empty = np.zeros([0], x.dtype)
    return np.linalg.svd(x, compute_uv=False), empty, empty
  u, s, vh = np.linalg.svd(x, full_matrices=full_matrices)
  return s, u, _mT(vh)


def _off_diag_reciprocal(e):
  """F[i, j] = 1 / (e[j] - e[i]) off the diagonal, 0 on it (no inf computed)."""
  diff = array_ops.expand_dims(e, -2) - array_ops.expand_dims(e, -1)
  ones = array_ops.ones_like(e)
  return set_diag(math_ops.reciprocal(set_diag(diff, ones)), array_ops.zeros_like(e))


@Svd.def_grad
def _(op, ds, du, dv):
  a = op.inputs[0]
  if not op.attrs["compute_uv"]:
    s, u, v = svd(a, compute_uv=True, full_matrices=False)
    return [matmul(u * array_ops.expand_dims(math_ops.cast(ds, u.dtype), -2), v,
                   adjoint_b=True)]
  s, u, v = op.outputs
  if du is None and dv is None:
    return [matmul(u * array_ops.expand_dims(math_ops.cast(ds, u.dtype), -2), v,
                   adjoint_b=True)]
  if a.dtype.is_complex or op.attrs["full_matrices"] and a.shape[-1] != a.shape[-2]:
    raise NotImplementedError("SVD gradient through u or v is implemented for real inputs "
                              "with full_matrices=False")
  # NOTE: Townsend (2016), "Differentiating the Singular Value Decomposition".
  ds = array_ops.zeros_like(s) if ds is None else ds
  du = array_ops.zeros_like(u) if du is None else _like(du, u)
  dv = array_ops.zeros_like(v) if dv is None else _like(dv, v)
  f = _off_diag_reciprocal(math_ops.square(s))
  utdu = matmul(u, du, adjoint_a=True)
  vtdv = matmul(v, dv, adjoint_a=True)
  row, col = array_ops.expand_dims(s, -1), array_ops.expand_dims(s, -2)
  core = (f * (utdu - adjoint(utdu))) * col + diag(ds) + row * (f * (vtdv - adjoint(vtdv)))
  ga = matmul(matmul(u, core), v, adjoint_b=True)
  ga += matmul((du - matmul(u, utdu)) / col, v, adjoint_b=True)
  ga += matmul(u / col, dv - matmul(v, vtdv), adjoint_b=True)
  return [ga]


@name_scoped
def svd(tensor, full_matrices=False, compute_uv=True, name=None):
  """Singular values s (descending) and, with compute_uv, u and v: tensor = u diag(s) v^H.

  Returns:
    s, or the tuple (s, u, v).
  """
  s, u, v = execute(Svd, [convert_to_tensor(tensor)], {"compute_uv": bool(compute_uv),
                                                       "full_matrices": bool(full_matrices)})
  return (s, u, v) if compute_uv else s


def _eigh_shape(inputs, attrs):
  d = _static(inputs[0])
  t = inputs[0].dtype
  if d is None:
    return [(TensorShape(None), t.real_dtype), (TensorShape(None), t)]
  return [(TensorShape(d[:-1]), t.real_dtype),
          (TensorShape(d) if attrs["compute_v"] else TensorShape([0]), t)]


@op("SelfAdjointEigV2", dtypes=_LAPACK, num_outputs=2, shape=_eigh_shape)
def SelfAdjointEigV2(x, *, compute_v):
  _check(x, "SelfAdjointEigV2")
  if not compute_v:
    return np.linalg.eigvalsh(x), np.zeros([0], x.dtype)
  return np.linalg.eigh(x)


@SelfAdjointEigV2.def_grad
def _(op, de, dv):
  # NOTE: TF's rule; the kernel reads the lower triangle, and so does the gradient.
  e = op.outputs[0]
  de = array_ops.zeros_like(e) if de is None else de
  if op.attrs["compute_v"]:
    v = op.outputs[1]
    inner = diag(math_ops.cast(de, v.dtype))
    if dv is not None:
      dv = _like(dv, v)
      inner += math_ops.cast(_off_diag_reciprocal(e), v.dtype) * matmul(v, dv, adjoint_a=True)
  else:
    _, v = eigh(op.inputs[0])
    inner = diag(math_ops.cast(de, v.dtype))
  g = matmul(v, matmul(inner, v, adjoint_b=True))
  g = band_part(g + adjoint(g), -1, 0)
  return [set_diag(g, 0.5 * diag_part(g))]


@name_scoped
def eigh(tensor, name=None):
  """Eigenvalues (ascending) and eigenvectors of self-adjoint matrices (lower half read)."""
  return execute(SelfAdjointEigV2, [convert_to_tensor(tensor)], {"compute_v": True})


@name_scoped
def eigvalsh(tensor, name=None):
  """Eigenvalues (ascending) of self-adjoint matrices."""
  return execute(SelfAdjointEigV2, [convert_to_tensor(tensor)], {"compute_v": False})[0]


def _complex_of(dtype):
  return _dt.complex128 if dtype in (_dt.float64, _dt.complex128) else _dt.complex64


def _eig_shape(inputs, attrs):
  return [(s, _complex_of(inputs[0].dtype)) for s, _ in _eigh_shape(inputs, attrs)]


@op("Eig", dtypes=_LAPACK, num_outputs=2, differentiable=False, shape=_eig_shape)
def Eig(x, *, compute_v):
  _check(x, "Eig")
  out = _complex_of(_dt._BY_NP[x.dtype])._np
  if not compute_v:
    return np.linalg.eigvals(x).astype(out), np.zeros([0], out)
  e, v = np.linalg.eig(x)
  return e.astype(out), v.astype(out)


@name_scoped
def eig(tensor, name=None):
  """Eigenvalues and eigenvectors of general square matrices (complex; forward only)."""
  return execute(Eig, [convert_to_tensor(tensor)], {"compute_v": True})


@name_scoped
def eigvals(tensor, name=None):
  """Eigenvalues of general square matrices (complex; forward only)."""
  return execute(Eig, [convert_to_tensor(tensor)], {"compute_v": False})[0]


@name_scoped
def pinv(a, rcond=None, validate_args=False, name=None):
  """Moore-Penrose pseudo-inverse via SVD; singular values below rcond * max(s) drop."""
  a = convert_to_tensor(a)
  s, u, v = svd(a, full_matrices=False, compute_uv=True)
  if rcond is None:
    m, n = _static(a, square=False)[-2:]
    rcond = 10.0 * builtins.max(m or 1, n or 1) * np.finfo(s.dtype.as_numpy_dtype).eps
  cutoff = math_ops.cast(rcond, s.dtype) * math_ops.reduce_max(s, axis=-1)
  s = array_ops.where(s > array_ops.expand_dims(cutoff, -1), s,
                      array_ops.fill(array_ops.shape(s), np.array(np.inf, s.dtype.as_numpy_dtype)))
  return matmul(v / array_ops.expand_dims(math_ops.cast(s, v.dtype), -2), u, adjoint_b=True)


@name_scoped
def lstsq(matrix, rhs, l2_regularizer=0.0, fast=True, name=None):
  """Least-squares solution of matrix @ X = rhs (normal equations via Cholesky)."""
  a, b = convert_to_tensor(matrix), convert_to_tensor(rhs)
  _static(a, square=False)
  m, n = a.shape[-2], a.shape[-1]
  if not fast and not l2_regularizer:
    return matmul(pinv(a), b)
  reg = _eye(_dim(a, -1) if m is None or n is None or m >= n else _dim(a, -2), a.dtype) * \
      math_ops.cast(l2_regularizer, a.dtype)
  if m is not None and n is not None and m < n:
    gram = matmul(a, a, adjoint_b=True) + reg
    return matmul(a, cholesky_solve(cholesky(gram), b), adjoint_a=True)
  gram = matmul(a, a, adjoint_a=True) + reg
  return cholesky_solve(cholesky(gram), matmul(a, b, adjoint_a=True))
