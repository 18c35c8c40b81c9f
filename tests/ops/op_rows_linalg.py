"""Op-table rows of tensorlet/ops/linalg_ops.py and linalg_decomp_ops.py against NumPy:
einsum, cross, band/diag parts, determinants, inverse, solves, Cholesky, QR, SVD and
eigendecompositions, with finite-difference gradients. Decompositions are compared up to
their sign/phase freedom through reconstructions or sign-fixed factors."""
import numpy as np
from op_table import F32_64, args, case, same

import tensorlet as tf


def _spd(rng, dt, n=3, batch=()):
  a = rng.standard_normal(batch + (n, n))
  return (a @ np.swapaxes(a, -1, -2) + n * np.eye(n)).astype(dt)


def sym(f):
  """`f` of the symmetric part: the gradient of a symmetric-input op (Cholesky, eigh)
  is TF's symmetric one, so finite differences must move in symmetric directions."""
  return lambda x: f((x + tf.linalg.adjoint(x)) / 2)


def spd(*batch):
  return lambda rng, dt: [_spd(rng, dt, 3, batch)]


def wellcond(*shapes):
  """Square matrices with a dominant diagonal (invertible, tame condition numbers)."""
  def make(rng, dt):
    out = []
    for s in shapes:
      a = rng.uniform(-1, 1, s)
      if s[-1] == s[-2]:
        a = a + 3 * np.eye(s[-1])
      out.append(a.astype(dt))
    return out
  return make


case("einsum/matmul", lambda a, b: tf.einsum("ij,jk->ik", a, b),
     same(lambda a, b: np.einsum("ij,jk->ik", a, b)), args([2, 3], [3, 4]), F32_64, order=2)
case("einsum/batch_trace", lambda a: tf.einsum("bii->b", a),
     same(lambda a: np.einsum("bii->b", a)), args([2, 3, 3]), F32_64)
case("einsum/outer_bcast", lambda a, b: tf.einsum("...i,...j->...ij", a, b),
     same(lambda a, b: np.einsum("...i,...j->...ij", a, b)), args([2, 3], [2, 4]), F32_64)
case("linalg.cross", tf.linalg.cross, same(np.cross), args([4, 3], [4, 3]), F32_64, order=2)
for _lo, _hi in ((1, 0), (-1, 1), (0, -1)):
  case(f"linalg.band_part/{_lo}_{_hi}",
       lambda x, lo=_lo, hi=_hi: tf.linalg.band_part(x, lo, hi),
       lambda x, lo=_lo, hi=_hi: np.where(
           ((lo < 0) | (np.subtract.outer(np.arange(3), np.arange(4)) <= lo)) &
           ((hi < 0) | (np.subtract.outer(np.arange(4), np.arange(3)).T <= hi)), x, 0
       ).astype(x.dtype), args([2, 3, 4]), F32_64)
case("linalg.diag_part", tf.linalg.diag_part,
     same(lambda x: np.diagonal(x, axis1=-2, axis2=-1)), args([2, 3, 4]), F32_64)
case("linalg.diag_part/k", lambda x: tf.linalg.diag_part(x, k=1),
     same(lambda x: np.diagonal(x, 1, axis1=-2, axis2=-1)), args([3, 4]), F32_64)
case("linalg.diag", tf.linalg.diag, same(lambda v: v[..., None] * np.eye(v.shape[-1])),
     args([2, 3]), F32_64)
case("linalg.diag/k", lambda v: tf.linalg.diag(v, k=-1),
     same(lambda v: np.diag(v, -1)), args([3]), F32_64)


def _set_diag(x, d):
  out = np.array(x)
  i = np.arange(min(x.shape[-2:]))
  out[..., i, i] = d
  return out


case("linalg.set_diag", tf.linalg.set_diag, same(_set_diag), args([2, 3, 4], [2, 3]), F32_64)
case("linalg.det", tf.linalg.det, same(np.linalg.det), wellcond([2, 3, 3]), F32_64,
     rtol=1e-4, order=2)
case("linalg.slogdet", lambda x: list(tf.linalg.slogdet(x)),
     lambda x: [np.asarray(v).astype(x.dtype) for v in np.linalg.slogdet(x)],
     wellcond([2, 3, 3]), F32_64, rtol=1e-4)
case("linalg.logdet", sym(tf.linalg.logdet),
     same(lambda x: np.linalg.slogdet(x)[1]), spd(2), F32_64, rtol=1e-4)
case("linalg.inv", tf.linalg.inv, same(np.linalg.inv), wellcond([2, 3, 3]), F32_64,
     rtol=1e-4, atol=1e-5, order=2)
case("linalg.solve", tf.linalg.solve, same(np.linalg.solve), wellcond([2, 3, 3], [2, 3, 2]),
     F32_64, rtol=1e-4, atol=1e-5)
case("linalg.solve/adjoint", lambda a, b: tf.linalg.solve(a, b, adjoint=True),
     same(lambda a, b: np.linalg.solve(np.swapaxes(a, -1, -2), b)), wellcond([3, 3], [3, 2]),
     F32_64, rtol=1e-4, atol=1e-5)


def _tri(lower):
  def make(rng, dt):
    a = rng.uniform(-1, 1, (2, 3, 3)) + 3 * np.eye(3)
    a = np.tril(a) if lower else np.triu(a)
    return [a.astype(dt), rng.uniform(-1, 1, (2, 3, 2)).astype(dt)]
  return make


for _low in (True, False):
  case(f"linalg.triangular_solve/lower={_low}",
       lambda a, b, low=_low: tf.linalg.triangular_solve(a, b, lower=low),
       same(lambda a, b: np.linalg.solve(a, b)), _tri(_low), F32_64, rtol=1e-4, atol=1e-5)
case("linalg.triangular_solve/adjoint",
     lambda a, b: tf.linalg.triangular_solve(a, b, lower=True, adjoint=True),
     same(lambda a, b: np.linalg.solve(np.swapaxes(a, -1, -2), b)), _tri(True), F32_64,
     rtol=1e-4, atol=1e-5)
case("linalg.cholesky", sym(tf.linalg.cholesky), same(np.linalg.cholesky), spd(2), F32_64,
     rtol=1e-4, atol=1e-5)


def _sign_fix(q, r):
  """Q, R with R's diagonal made non-negative (the factorisation is unique then)."""
  s = np.sign(np.diagonal(r, axis1=-2, axis2=-1))
  s = np.where(s == 0, 1, s)
  return q * s[..., None, :], r * s[..., :, None]


def _qr_fixed(x, full=False):
  # NOTE: TF's QR gradient too needs static matrix sizes (NotImplementedError otherwise).
  x = tf.ensure_shape(x, [2, 4, 3] if x.shape.rank == 3 else [3, 3])
  q, r = tf.linalg.qr(x, full_matrices=full)
  s = tf.sign(tf.linalg.diag_part(r))
  return [q * s[..., None, :], r * s[..., :, None]]


case("linalg.qr", lambda x: _qr_fixed(x),
     lambda x: [v.astype(x.dtype) for v in _sign_fix(*np.linalg.qr(x))], args([2, 4, 3]),
     F32_64, rtol=1e-4, atol=1e-5)
case("linalg.qr/full", lambda x: _qr_fixed(x, True),
     lambda x: [v.astype(x.dtype) for v in _sign_fix(*np.linalg.qr(x, mode="complete"))],
     args([3, 3]), F32_64, rtol=1e-4, atol=1e-5)


def _svd_recon(x):
  s, u, v = tf.linalg.svd(x)
  return [s, tf.matmul(u * s[..., None, :], v, adjoint_b=True)]


case("linalg.svd", _svd_recon,
     lambda x: [np.linalg.svd(x, compute_uv=False).astype(x.dtype), x], args([2, 4, 3]),
     F32_64, rtol=1e-4, atol=1e-5)
case("linalg.svd/values", lambda x: tf.linalg.svd(x, compute_uv=False),
     same(lambda x: np.linalg.svd(x, compute_uv=False)), args([3, 4]), F32_64, rtol=1e-4,
     atol=1e-5)


def _eigh_recon(x):
  e, v = tf.linalg.eigh(x)
  return [e, tf.matmul(v * e[..., None, :], v, adjoint_b=True)]


case("linalg.eigh", sym(_eigh_recon), lambda x: [np.linalg.eigvalsh(x).astype(x.dtype), x],
     spd(2), F32_64, rtol=1e-4, atol=1e-4)
case("linalg.eigvalsh", sym(tf.linalg.eigvalsh), same(np.linalg.eigvalsh), spd(), F32_64,
     rtol=1e-4, atol=1e-5)


def _eig_recon(x):
  e, v = tf.linalg.eig(x)
  return tf.math.real(tf.matmul(v * e[..., None, :], tf.linalg.inv(v)))


case("linalg.eig", _eig_recon, lambda x: x, spd(), F32_64, grad=False, rtol=1e-4,
     atol=1e-4)
case("linalg.eigvals", lambda x: tf.sort(tf.math.real(tf.linalg.eigvals(x))),
     same(lambda x: np.sort(np.linalg.eigvals(x).real)), spd(), F32_64, grad=False,
     rtol=1e-4, atol=1e-4)
