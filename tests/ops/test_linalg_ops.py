"""tf.linalg, tf.einsum, tf.tensordot, tf.norm: values against NumPy, gradients by
finite differences, and the documented errors."""
import numpy as np
import pytest

import tensorlet as tf
from gradcheck import check_grads
from tensorlet.errors import InvalidArgumentError

L = tf.linalg
R = np.random.RandomState(42)


def _r(*shape):
  return R.standard_normal(shape)


def _spd(n, batch=()):
  a = R.standard_normal(batch + (n, n))
  return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


def _close(t, ref, dtype=None, rtol=1e-5, atol=1e-6):
  ref = np.asarray(ref)
  assert tuple(t.shape) == ref.shape
  if dtype is not None:
    assert t.dtype is dtype
  np.testing.assert_allclose(np.asarray(t), ref, rtol=rtol, atol=atol)


def _sym(x):
  return (x + tf.linalg.matrix_transpose(x)) * 0.5


# ---------------------------------------------------------------- einsum

EINSUM_CASES = [
    ("ij,jk->ik", [(2, 3), (3, 4)]),
    ("bij,bjk->bik", [(2, 2, 3), (2, 3, 2)]),
    ("ij,ij->ij", [(2, 3), (2, 3)]),
    ("i,j->ij", [(3,), (2,)]),
    ("ij->ji", [(2, 3)]),
    ("ij->", [(2, 3)]),
    ("ii->i", [(3, 3)]),
    ("ii", [(3, 3)]),
    ("iij,jk->ik", [(2, 2, 3), (3, 2)]),
    ("ij,jk", [(2, 3), (3, 2)]),
    ("ijk,k->ij", [(2, 3, 4), (4,)]),
    ("ij,kl->", [(2, 2), (3, 1)]),
    ("i,i,i->", [(4,), (4,), (4,)]),
    ("...ij,...jk->...ik", [(2, 1, 2, 3), (4, 3, 2)]),
    ("...i->...", [(2, 3, 4)]),
    ("bi,bi->b", [(3, 4), (3, 4)]),
]


@pytest.mark.parametrize("eq,shapes", EINSUM_CASES)
def test_einsum_values(eq, shapes):
  xs = [_r(*s).astype(np.float32) for s in shapes]
  _close(tf.einsum(eq, *xs), np.einsum(eq, *xs), tf.float32, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("eq,shapes", EINSUM_CASES)
def test_einsum_grads(eq, shapes):
  check_grads(lambda *xs: tf.einsum(eq, *xs), [_r(*s) for s in shapes], order=2)


def test_einsum_int_and_list_operands():
  a = np.arange(6, dtype=np.int32).reshape(2, 3)
  _close(tf.einsum("ij,kj->ik", [a, a]), a @ a.T, tf.int32)


def test_einsum_errors():
  with pytest.raises(ValueError, match="Expected 2 input"):
    tf.einsum("ij,jk->ik", tf.ones([2, 2]))
  with pytest.raises(ValueError, match="rank"):
    tf.einsum("ijk->i", tf.ones([2, 2]))
  with pytest.raises(ValueError, match="no input has"):
    tf.einsum("ij->ik", tf.ones([2, 2]))
  with pytest.raises(ValueError, match="Invalid einsum"):
    tf.einsum("i1->i", tf.ones([2, 2]))
  with pytest.raises(InvalidArgumentError, match="Einsum"):
    tf.einsum("ij,jk->ik", tf.ones([2, 3]), tf.ones([2, 3]))
  with pytest.raises(InvalidArgumentError, match="same dtype"):
    tf.einsum("i,i->", tf.ones([2]), tf.ones([2], tf.float64))


# ------------------------------------------------------------ tensordot

@pytest.mark.parametrize("sa,sb,axes", [
    ((2, 3), (3, 4), 1), ((2, 3, 4), (3, 4, 5), 2), ((2,), (3,), 0),
    ((2, 3, 4), (4, 3, 5), [[1, 2], [1, 0]]), ((3, 2), (3, 4), [[0], [0]]),
    ((2, 3), (3, 2), ([1], [-2])), ((2, 3), (2, 3), [0, 0])])
def test_tensordot(sa, sb, axes):
  a, b = _r(*sa), _r(*sb)
  _close(tf.tensordot(a, b, axes), np.tensordot(a, b, axes), tf.float64)
  check_grads(lambda x, y: tf.tensordot(x, y, axes), [a, b], order=2)


def test_tensordot_errors():
  with pytest.raises(ValueError, match="Different number of contraction axes"):
    tf.tensordot(tf.ones([2, 3]), tf.ones([3, 2]), [[0, 1], [0]])
  with pytest.raises(ValueError, match="larger than the number of dimensions"):
    tf.tensordot(tf.ones([2]), tf.ones([2]), 2)
  with pytest.raises(InvalidArgumentError, match="size-incompatible"):
    tf.tensordot(tf.ones([2, 3]), tf.ones([2, 3]), 1)


# ------------------------------------------------------ inverse, determinant

@pytest.mark.parametrize("dtype", [tf.float32, tf.float64])
def test_inv_det_values(dtype):
  a = (_r(2, 3, 3) + 3 * np.eye(3)).astype(dtype.as_numpy_dtype)
  _close(L.inv(a), np.linalg.inv(a), dtype, rtol=1e-4, atol=1e-5)
  _close(L.inv(a, adjoint=True), np.linalg.inv(np.swapaxes(a, -1, -2)), dtype, rtol=1e-4,
         atol=1e-5)
  _close(L.det(a), np.linalg.det(a), dtype, rtol=1e-4)
  sign, logdet = L.slogdet(a)
  ref_s, ref_l = np.linalg.slogdet(a)
  _close(sign, ref_s, dtype)
  _close(logdet, ref_l, dtype, rtol=1e-4)


def test_inv_det_complex():
  a = (_r(3, 3) + 1j * _r(3, 3)).astype(np.complex128)
  _close(L.inv(a), np.linalg.inv(a), tf.complex128)
  _close(L.det(a), np.linalg.det(a), tf.complex128)


def test_inv_det_grads():
  a = _r(2, 3, 3) + 3 * np.eye(3)
  check_grads(L.inv, [a], order=2)
  check_grads(lambda x: L.inv(x, adjoint=True), [a], order=2)
  check_grads(L.det, [a], order=2)
  check_grads(lambda x: L.slogdet(x)[1], [a], order=2)
  check_grads(lambda x: L.logdet(_sym(x)), [_spd(3)], order=2)


def test_logdet_value():
  s = _spd(4, (2,))
  _close(L.logdet(s), np.linalg.slogdet(s)[1], tf.float64)


def test_inv_det_errors():
  with pytest.raises(InvalidArgumentError, match=r"Input matrix must be square.*MatrixInverse"):
    L.inv(tf.ones([2, 3]))
  with pytest.raises(InvalidArgumentError, match=r"Input is not invertible.*MatrixInverse"):
    L.inv([[1.0, 2.0], [2.0, 4.0]])
  with pytest.raises(InvalidArgumentError, match=r"square.*MatrixDeterminant"):
    L.det(tf.ones([3, 2]))
  with pytest.raises(InvalidArgumentError, match="rank >= 2"):
    L.det(tf.ones([3]))
  with pytest.raises(InvalidArgumentError, match="MatrixInverse"):
    L.inv(tf.ones([2, 2], tf.int32))


# ---------------------------------------------------------- cholesky, solves

def test_cholesky():
  s = _spd(3, (2,))
  _close(L.cholesky(s), np.linalg.cholesky(s), tf.float64)
  _close(L.cholesky(s.astype(np.float32)), np.linalg.cholesky(s), tf.float32, rtol=1e-4,
         atol=1e-4)
  check_grads(lambda x: L.cholesky(_sym(x)), [s], order=2)
  with pytest.raises(InvalidArgumentError, match=r"Cholesky decomposition was not successful"):
    L.cholesky([[1.0, 2.0], [2.0, 1.0]])
  with pytest.raises(InvalidArgumentError, match="square"):
    L.cholesky(tf.ones([2, 3]))


def test_solve():
  a, b = _r(2, 3, 3) + 3 * np.eye(3), _r(2, 3, 2)
  _close(L.solve(a, b), np.linalg.solve(a, b), tf.float64)
  _close(L.solve(a, b, adjoint=True), np.linalg.solve(np.swapaxes(a, -1, -2), b), tf.float64)
  check_grads(L.solve, [a, b], order=2)
  check_grads(lambda x, y: L.solve(x, y, adjoint=True), [a, b])
  with pytest.raises(InvalidArgumentError, match="not invertible"):
    L.solve([[1.0, 2.0], [2.0, 4.0]], [[1.0], [1.0]])
  with pytest.raises(InvalidArgumentError, match="same number of rows"):
    L.solve(tf.eye(2), tf.ones([3, 1]))


@pytest.mark.parametrize("lower,adjoint", [(True, False), (False, False), (True, True),
                                           (False, True)])
def test_triangular_solve(lower, adjoint):
  a, b = _r(2, 3, 3) + 3 * np.eye(3), _r(2, 3, 2)
  t = np.tril(a) if lower else np.triu(a)
  ref = np.linalg.solve(np.swapaxes(t, -1, -2) if adjoint else t, b)
  _close(L.triangular_solve(a, b, lower=lower, adjoint=adjoint), ref, tf.float64)
  check_grads(lambda x, y: L.triangular_solve(x, y, lower=lower, adjoint=adjoint), [a, b],
              order=2)


def test_triangular_solve_zero_pivot_gives_inf():
  r = L.triangular_solve([[0.0, 0.0], [1.0, 1.0]], [[1.0], [1.0]]).numpy()
  assert not np.all(np.isfinite(r))


def test_cholesky_solve_and_lstsq():
  s, b = _spd(3), _r(3, 2)
  _close(L.cholesky_solve(L.cholesky(s), b), np.linalg.solve(s, b), tf.float64)
  a, y = _r(5, 3), _r(5, 2)
  ref = np.linalg.lstsq(a, y, rcond=None)[0]
  _close(L.lstsq(a, y), ref, tf.float64)
  _close(L.lstsq(a, y, fast=False), ref, tf.float64)
  w = _r(2, 4)
  _close(L.lstsq(w, y[:2]), np.linalg.lstsq(w, y[:2], rcond=None)[0], tf.float64)
  check_grads(L.lstsq, [a, y], order=1)


# --------------------------------------------------------- decompositions

@pytest.mark.parametrize("shape", [(4, 3), (3, 3), (2, 3, 5)])
def test_qr(shape):
  a = _r(*shape)
  q, r = L.qr(a)
  rq, rr = np.linalg.qr(a)
  _close(q, rq, tf.float64)
  _close(r, rr, tf.float64)
  check_grads(lambda x: L.qr(x)[0], [a])
  check_grads(lambda x: L.qr(x)[1], [a])
  qf, rf = L.qr(a, full_matrices=True)
  assert qf.shape == list(shape[:-2]) + [shape[-2], shape[-2]]
  assert rf.shape == list(shape)


@pytest.mark.parametrize("shape", [(4, 3), (3, 3), (2, 3, 4)])
def test_svd(shape):
  a = _r(*shape)
  s, u, v = L.svd(a)
  ref_s = np.linalg.svd(a, compute_uv=False)
  _close(s, ref_s, tf.float64)
  recon = np.asarray(u) * np.asarray(s)[..., None, :] @ np.swapaxes(np.asarray(v), -1, -2)
  np.testing.assert_allclose(recon, a, atol=1e-10)
  _close(L.svd(a, compute_uv=False), ref_s, tf.float64)
  check_grads(lambda x: L.svd(x, compute_uv=False), [a], order=2)
  check_grads(lambda x: L.svd(x)[0], [a])
  # gauge-invariant functions of u and v: projectors u u^T and v v^T
  check_grads(lambda x: tf.matmul(L.svd(x)[1], L.svd(x)[1], transpose_b=True), [a])
  check_grads(lambda x: tf.matmul(L.svd(x)[2], L.svd(x)[2], transpose_b=True), [a])
  sf, uf, vf = L.svd(a, full_matrices=True)
  assert uf.shape[-1] == shape[-2] and vf.shape[-1] == shape[-1]


def test_eigh():
  s = _spd(3, (2,)) - 2 * np.eye(3)
  e, v = L.eigh(s)
  re, rv = np.linalg.eigh(s)
  _close(e, re, tf.float64)
  np.testing.assert_allclose(np.abs(np.asarray(v)), np.abs(rv), atol=1e-10)
  _close(L.eigvalsh(s), re, tf.float64)
  a = _r(3, 3)  # the kernels and gradients read only the lower triangle
  check_grads(lambda x: L.eigh(x)[0], [a], order=2)
  check_grads(L.eigvalsh, [a], order=2)
  check_grads(lambda x: tf.matmul(L.eigh(x)[1] * L.eigh(x)[0][..., None, :], L.eigh(x)[1],
                                  transpose_b=True), [a])


def test_eig_and_pinv():
  a = _r(3, 3)
  e = L.eigvals(a)
  assert e.dtype is tf.complex128
  np.testing.assert_allclose(np.sort_complex(np.asarray(e)), np.sort_complex(np.linalg.eigvals(a)))
  assert L.eig(a.astype(np.float32))[1].dtype is tf.complex64
  m = _r(4, 3)
  _close(L.pinv(m), np.linalg.pinv(m), tf.float64)
  check_grads(L.pinv, [m])
  low_rank = np.outer(_r(4), _r(3))
  _close(L.pinv(low_rank), np.linalg.pinv(low_rank), tf.float64)


# ------------------------------------------------------------- diagonals

def test_diag_family_values():
  _close(L.diag([1, 2]), np.diag([1, 2]), tf.int32)
  _close(L.diag([1.0, 2.0], k=1), np.diag([1.0, 2.0], k=1), tf.float32)
  _close(L.diag([1.0, 2.0], k=-1), np.diag([1.0, 2.0], k=-1), tf.float32)
  _close(L.diag([[1.0, 2.0]], num_rows=2, num_cols=3), [[[1, 0, 0], [0, 2, 0]]], tf.float32)
  _close(L.diag([1.0], padding_value=9, num_rows=2, num_cols=2, k=1), [[9, 1], [9, 9]])
  x = np.arange(24.0).reshape(2, 3, 4)
  for k in (0, 1, -1, 3):
    _close(L.diag_part(x, k=k), np.diagonal(x, k, -2, -1), tf.float64)
  d = _r(2, 3)
  ref = x.copy()
  ref[:, [0, 1, 2], [0, 1, 2]] = d
  _close(L.set_diag(x, d), ref, tf.float64)
  _close(L.trace(x), np.trace(x, axis1=-2, axis2=-1), tf.float64)
  _close(L.band_part(np.ones((3, 4)), 1, 0), np.tril(np.triu(np.ones((3, 4)), -1)))
  _close(L.band_part(np.ones((3, 3)), -1, 0), np.tril(np.ones((3, 3))))
  _close(L.band_part(np.ones((3, 3)), 0, -1), np.triu(np.ones((3, 3))))


def test_diag_family_grads():
  x = _r(2, 3, 4)
  check_grads(lambda d: L.diag(d, k=1), [_r(2, 3)], order=2)
  check_grads(lambda a: L.diag_part(a, k=-1), [x], order=2)
  check_grads(lambda a, d: L.set_diag(a, d), [x, _r(2, 3)], order=2)
  check_grads(lambda a: L.band_part(a, 1, 0), [x], order=2)
  check_grads(L.trace, [x], order=2)


def test_diag_errors():
  with pytest.raises(InvalidArgumentError, match="diagonal must have shape"):
    L.set_diag(tf.zeros([3, 3]), tf.ones([2]))
  with pytest.raises(InvalidArgumentError, match="rank >= 2"):
    L.diag_part(tf.ones([3]))
  with pytest.raises(InvalidArgumentError, match="MatrixDiagV3"):
    L.diag([1.0, 2.0], num_rows=5, num_cols=5)


def test_adjoint_matvec_cross_transpose_eye():
  c = np.array([[1 + 2j, 3j]])
  _close(L.adjoint(c), np.conj(c.T), tf.complex128)
  a, v = _r(2, 3, 4), _r(2, 4)
  _close(L.matvec(a, v), np.einsum("bij,bj->bi", a, v), tf.float64)
  check_grads(L.matvec, [a, v], order=2)
  p, q = _r(4, 3), _r(4, 3)
  _close(L.cross(p, q), np.cross(p, q), tf.float64)
  check_grads(L.cross, [p, q], order=2)
  _close(L.matrix_transpose(a), np.swapaxes(a, -1, -2))
  _close(L.eye(2, 3), np.eye(2, 3), tf.float32)
  _close(L.matmul(a, np.swapaxes(a, -1, -2)), a @ np.swapaxes(a, -1, -2))
  with pytest.raises(InvalidArgumentError, match="Cross"):
    L.cross(tf.ones([2]), tf.ones([2]))


# ------------------------------------------------------------------ norms

NORM_CASES = [
    ("euclidean", None), (2, None), (1, None), (np.inf, None), (3, None), (0.5, None),
    ("euclidean", 1), (1, -1), (np.inf, 0), (2, 1),
    ("fro", (0, 1)), ("euclidean", (-2, -1)), (1, (1, 2)), (np.inf, (1, 2)), (2, (1, 2)),
    (1, (2, 1)), (2, (0, 2)),
]


def _np_norm(x, ord, axis):
  if axis is None:
    flat = x.reshape(-1)
    return np.linalg.norm(flat, None if ord == "euclidean" else ord)
  o = None if ord == "euclidean" and not isinstance(axis, tuple) else (
      "fro" if ord == "euclidean" else ord)
  return np.linalg.norm(x, o, axis=axis)


@pytest.mark.parametrize("ord,axis", NORM_CASES)
def test_norm(ord, axis):
  x = _r(2, 3, 4)
  _close(tf.norm(x, ord=ord, axis=axis), _np_norm(x, ord, axis), tf.float64)
  kept = tf.norm(x, ord=ord, axis=axis, keepdims=True)
  axes = range(3) if axis is None else (axis if isinstance(axis, tuple) else (axis,))
  assert kept.shape == [1 if i in [a % 3 for a in axes] else d for i, d in enumerate(x.shape)]
  check_grads(lambda t: tf.norm(t, ord=ord, axis=axis), [x])


def test_norm_dtype_and_normalize_and_global_norm():
  assert tf.norm([3.0, 4.0]).numpy() == np.float32(5.0)
  assert tf.norm(tf.constant([3.0, 4.0], tf.float64)).dtype is tf.float64
  x = _r(3, 4)
  n, nrm = L.normalize(x, axis=1)
  _close(nrm, np.linalg.norm(x, axis=1, keepdims=True))
  _close(n, x / np.linalg.norm(x, axis=1, keepdims=True))
  _close(L.global_norm([x, None, _r(2)[:0]]), np.linalg.norm(x))
  _close(L.l2_normalize(x, axis=1), x / np.linalg.norm(x, axis=1, keepdims=True))


def test_norm_errors():
  with pytest.raises(ValueError, match="supported vector norm"):
    tf.norm([1.0], ord=-1)
  with pytest.raises(ValueError, match="supported vector norm"):
    tf.norm([1.0], ord="fro")
  with pytest.raises(ValueError, match="supported matrix norm"):
    tf.norm(tf.ones([2, 2]), ord=3, axis=[0, 1])
  with pytest.raises(ValueError, match="tuple of 2 unique integers"):
    tf.norm(tf.ones([2, 2]), axis=[0, 0])
  with pytest.raises(ValueError, match="tuple of 2 unique integers"):
    tf.norm(tf.ones([2, 2]), axis=[0, 1, 2])
  with pytest.raises(TypeError):
    L.global_norm(tf.ones([2]))


# -------------------------------------------------------------- in graphs

def test_linalg_in_function():
  a, b = (_r(3, 3) + 3 * np.eye(3)).astype(np.float32), _r(3, 2).astype(np.float32)

  @tf.function
  def f(x, y):
    return L.solve(x, y), L.det(x), tf.einsum("ij,jk->ik", x, y), tf.norm(x, axis=[0, 1])

  sol, d, e, n = f(a, b)
  _close(sol, np.linalg.solve(a, b), rtol=1e-4, atol=1e-5)
  _close(d, np.linalg.det(a), rtol=1e-4)
  _close(e, a @ b, rtol=1e-4, atol=1e-5)
  _close(n, np.linalg.norm(a), rtol=1e-5)


def test_shape_errors_in_graph_are_value_errors():
  @tf.function
  def f(x):
    return L.inv(x)

  with pytest.raises(ValueError, match="square"):
    f.get_concrete_function(tf.TensorSpec([2, 3], tf.float32))


def test_gradients_in_function_with_unknown_dims():
  @tf.function(input_signature=[tf.TensorSpec([None, None], tf.float64)])
  def f(x):
    with tf.GradientTape() as t:
      t.watch(x)
      y = tf.einsum("ii->", x) + tf.einsum("ij->", x) + tf.reduce_sum(tf.tensordot(x, x, 1))
    return t.gradient(y, x)

  x = _r(3, 3)
  _close(f(x), np.eye(3) + 1 + np.ones((3, 3)) @ x.T + x.T @ np.ones((3, 3)))

  @tf.function(input_signature=[tf.TensorSpec([None, 3, 3], tf.float64)])
  def g(x):
    with tf.GradientTape() as t:
      t.watch(x)
      y = tf.reduce_sum(L.cholesky(x)) + tf.reduce_sum(L.inv(x)) + tf.reduce_sum(L.det(x))
    return t.gradient(y, x)

  s = _spd(3, (2,))
  with tf.GradientTape() as t:
    st = tf.constant(s)
    t.watch(st)
    y = tf.reduce_sum(L.cholesky(st)) + tf.reduce_sum(L.inv(st)) + tf.reduce_sum(L.det(st))
  _close(g(s), t.gradient(y, st))


def test_eig_and_matrix_diag_keep_the_rank_when_dims_are_unknown():
  """Traced with unknown dims, eig/eigvals/diag know their output rank (as TF), so
  gradient rules that transpose matrices (eigvalsh's) can be staged."""
  seen = {}

  @tf.function(input_signature=[tf.TensorSpec([None, None, None], tf.float64)])
  def f(x):
    e, v = tf.linalg.eig(x)
    seen["eig"] = (e.shape.as_list(), v.shape.as_list(), tf.linalg.eigvals(x).shape.as_list())
    seen["diag"] = tf.linalg.diag(tf.linalg.diag_part(x)).shape.as_list()
    seen["diag_rows"] = tf.linalg.diag(x[0], num_rows=4, num_cols=-1, k=0).shape.as_list()
    return e

  f.get_concrete_function()
  assert seen["eig"] == ([None, None], [None, None, None], [None, None])
  assert seen["diag"] == [None, None, None]
  assert seen["diag_rows"] == [None, 4, None]
  x = tf.constant(np.diag([1.0, 2.0, 3.0]))
  with tf.GradientTape() as tape:
    tape.watch(x)
    y = tf.function(tf.linalg.eigvalsh,
                    input_signature=[tf.TensorSpec([None, None], tf.float64)])(x)
  np.testing.assert_allclose(tape.gradient(y, x).numpy(), np.eye(3))
