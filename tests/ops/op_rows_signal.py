"""Op-table rows for tf.signal (FFTs, framing, windows, DCT) against NumPy.

Complex transforms are checked forward on complex inputs; their gradient rows
build the complex input from two real tensors and return real and imaginary
parts, so the finite differences run on real numbers.
"""
import numpy as np

import tensorlet as tf
from op_table import COMPLEX, F32_64, args, case

sig = tf.signal
_FFT = [("fft", sig.fft, np.fft.fft, 1), ("ifft", sig.ifft, np.fft.ifft, 1),
        ("fft2d", sig.fft2d, np.fft.fft2, 2), ("ifft2d", sig.ifft2d, np.fft.ifft2, 2),
        ("fft3d", sig.fft3d, lambda x: np.fft.fftn(x, axes=(-3, -2, -1)), 3),
        ("ifft3d", sig.ifft3d, lambda x: np.fft.ifftn(x, axes=(-3, -2, -1)), 3)]


def _parts(y):
  return tf.stack([tf.math.real(y), tf.math.imag(y)])


def _np_parts(y):
  return np.stack([y.real, y.imag])


for _n, _fn, _ref, _r in _FFT:
  _shape = [2, 5, 3, 4][-(_r + 1):]
  case("signal/" + _n, _fn, (lambda r: lambda x: r(x).astype(x.dtype))(_ref), args(_shape),
       COMPLEX, grad=False)
  case("signal/" + _n + "/grad", (lambda f: lambda a, b: _parts(f(tf.complex(a, b))))(_fn),
       (lambda r: lambda a, b: _np_parts(r(a + 1j * b)).astype(a.dtype))(_ref),
       args(_shape, _shape), F32_64, grad=True, order=2, rtol=1e-5, atol=1e-5)

_RFFT = [
    ("rfft", lambda x: sig.rfft(x), lambda x: np.fft.rfft(x), [3, 8]),
    ("rfft/odd", lambda x: sig.rfft(x), lambda x: np.fft.rfft(x), [2, 7]),
    ("rfft/crop", lambda x: sig.rfft(x, [5]), lambda x: np.fft.rfft(x, 5), [2, 8]),
    ("rfft/pad", lambda x: sig.rfft(x, [12]), lambda x: np.fft.rfft(x, 12), [2, 7]),
    ("rfft2d", lambda x: sig.rfft2d(x), lambda x: np.fft.rfft2(x), [2, 4, 6]),
    ("rfft2d/lengths", lambda x: sig.rfft2d(x, [3, 7]), lambda x: np.fft.rfft2(x, [3, 7]),
     [4, 6]),
    ("rfft3d", lambda x: sig.rfft3d(x), lambda x: np.fft.rfftn(x, axes=(-3, -2, -1)),
     [2, 3, 4, 5]),
]
_TO_C = {np.dtype(np.float32): np.complex64, np.dtype(np.float64): np.complex128}
for _n, _fn, _ref, _shape in _RFFT:
  _r = (lambda r: lambda x: r(x).astype(_TO_C[x.dtype]))(_ref)
  case("signal/" + _n, _fn, _r, args(_shape), F32_64, grad=False, rtol=1e-5, atol=1e-5)
  case("signal/" + _n + "/grad", (lambda f: lambda x: _parts(f(x)))(_fn),
       (lambda r: lambda x: _np_parts(r(x)).astype(x.dtype))(_ref), args(_shape), F32_64,
       grad=True, order=2, rtol=1e-5, atol=1e-5)

_IRFFT = [
    ("irfft", lambda x: sig.irfft(x), lambda x: np.fft.irfft(x), [2, 5]),
    ("irfft/odd", lambda x: sig.irfft(x, [7]), lambda x: np.fft.irfft(x, 7), [2, 4]),
    ("irfft/crop", lambda x: sig.irfft(x, [4]), lambda x: np.fft.irfft(x, 4), [2, 6]),
    ("irfft/pad", lambda x: sig.irfft(x, [14]), lambda x: np.fft.irfft(x, 14), [2, 5]),
    ("irfft2d", lambda x: sig.irfft2d(x), lambda x: np.fft.irfft2(x), [2, 4, 5]),
    ("irfft3d", lambda x: sig.irfft3d(x, [2, 3, 5]),
     lambda x: np.fft.irfftn(x, [2, 3, 5], axes=(-3, -2, -1)), [2, 3, 3]),
]
for _n, _fn, _ref, _shape in _IRFFT:
  case("signal/" + _n, _fn, (lambda r: lambda x: r(x).astype(x.real.dtype))(_ref),
       args(_shape), COMPLEX, grad=False, rtol=1e-5, atol=1e-5)
  case("signal/" + _n + "/grad", (lambda f: lambda a, b: f(tf.complex(a, b)))(_fn),
       (lambda r: lambda a, b: r(a + 1j * b).astype(a.dtype))(_ref), args(_shape, _shape),
       F32_64, grad=True, order=2, rtol=1e-5, atol=1e-5)


def _frames(x, fl, fs, pad_end=False, pad_value=0.0):
  n = x.shape[-1]
  f = -(-n // fs) if pad_end else (1 + (n - fl) // fs if n >= fl else 0)
  need = (f - 1) * fs + fl
  if need > n:
    x = np.concatenate([x, np.full(x.shape[:-1] + (need - n,), pad_value, x.dtype)], -1)
  return np.stack([x[..., i * fs:i * fs + fl] for i in range(f)], -2)


def _ola(x, fs):
  f, fl = x.shape[-2:]
  out = np.zeros(x.shape[:-2] + ((f - 1) * fs + fl,), x.dtype)
  for i in range(f):
    out[..., i * fs:i * fs + fl] += x[..., i, :]
  return out


case("signal/frame", lambda x: sig.frame(x, 4, 3), lambda x: _frames(x, 4, 3), args([2, 11]),
     F32_64 + (np.int32,), grad=True, order=2)
case("signal/frame/pad_end", lambda x: sig.frame(x, 4, 3, pad_end=True, pad_value=5),
     lambda x: _frames(x, 4, 3, True, 5), args([2, 11]), F32_64 + (np.int32,), grad=True)
case("signal/frame/axis", lambda x: sig.frame(x, 2, 1, axis=1),
     lambda x: np.moveaxis(_frames(np.moveaxis(x, 1, -1), 2, 1), (-2, -1), (1, 2)),
     args([2, 4, 3]), F32_64, grad=True)
case("signal/frame/short", lambda x: sig.frame(x, 6, 2), lambda x: np.zeros((0, 6), x.dtype),
     args([4]), [np.float32], grad=False)
case("signal/overlap_and_add", lambda x: sig.overlap_and_add(x, 2), lambda x: _ola(x, 2),
     args([2, 4, 5]), F32_64 + (np.int32,), grad=True, order=2)
case("signal/overlap_and_add/gap", lambda x: sig.overlap_and_add(x, 4), lambda x: _ola(x, 4),
     args([3, 3]), F32_64, grad=True)


def _hann(n, periodic=True):
  d = n if periodic and n % 2 == 0 else n - 1
  return 0.5 - 0.5 * np.cos(2 * np.pi * np.arange(n) / d)


def _stft_ref(x, fl, fs, n):
  return np.fft.rfft(_frames(x, fl, fs) * _hann(fl), n).astype(_TO_C[x.dtype])


case("signal/stft", lambda x: sig.stft(x, 8, 3), lambda x: _stft_ref(x, 8, 3, 8),
     args([2, 30]), F32_64, grad=False, rtol=1e-5, atol=1e-5)
case("signal/stft/grad", lambda x: _parts(sig.stft(x, 6, 2, fft_length=8)),
     lambda x: _np_parts(_stft_ref(x, 6, 2, 8)).astype(x.dtype), args([20]), F32_64,
     grad=True, rtol=1e-5, atol=1e-5)


def _istft_ref(s, fl, fs, n):
  frames = np.fft.irfft(s, n)[..., :fl] * _hann(fl)
  return _ola(frames, fs).astype(s.real.dtype)


case("signal/inverse_stft", lambda s: sig.inverse_stft(s, 8, 3), lambda s: _istft_ref(
    s, 8, 3, 8), args([2, 6, 5]), COMPLEX, grad=False, rtol=1e-5, atol=1e-5)
case("signal/inverse_stft/grad", lambda a, b: sig.inverse_stft(tf.complex(a, b), 6, 2, 8),
     lambda a, b: _istft_ref(a + 1j * b, 6, 2, 8).astype(a.dtype), args([4, 5], [4, 5]),
     F32_64, grad=True, rtol=1e-5, atol=1e-5)


def _dct_ref(x, kind, norm=None):
  n = x.shape[-1]
  k = np.arange(n)[:, None]
  i = np.arange(n)[None, :]
  if kind == 1:
    y = x[..., :1] + (-1.0) ** np.arange(n) * x[..., -1:] + 2 * np.sum(
        x[..., None, 1:-1] * np.cos(np.pi * k * i[:, 1:-1] / (n - 1)), -1)
  elif kind == 2:
    y = 2 * np.sum(x[..., None, :] * np.cos(np.pi * k * (2 * i + 1) / (2 * n)), -1)
    if norm == "ortho":
      y = y * np.where(np.arange(n) == 0, np.sqrt(1 / (4 * n)), np.sqrt(1 / (2 * n)))
  else:
    w = x * np.where(np.arange(n) == 0, 1 / np.sqrt(n), np.sqrt(2 / n)) if norm == "ortho" \
        else x
    y = (w[..., :1] if norm == "ortho" else x[..., :1]) + (np.sqrt(2 / n) if norm == "ortho"
                                                          else 2) * np.sum(
        x[..., None, 1:] * np.cos(np.pi * i[:, 1:] * (2 * k + 1) / (2 * n)), -1)
  return y.astype(x.dtype)


def _dct4_ref(x, norm=None):
  n = x.shape[-1]
  k = np.arange(n)[:, None]
  i = np.arange(n)[None, :]
  y = 2 * np.sum(x[..., None, :] * np.cos(np.pi * (2 * i + 1) * (2 * k + 1) / (4 * n)), -1)
  return (y * (np.sqrt(1 / (2 * n)) if norm else 1)).astype(x.dtype)


case("signal/dct/type4", lambda x: sig.dct(x, type=4), _dct4_ref, args([2, 5]), F32_64,
     grad=True, rtol=1e-5, atol=1e-5)
case("signal/idct/type4/ortho", lambda x: sig.idct(x, type=4, norm="ortho"),
     lambda x: _dct4_ref(x, "ortho"), args([2, 5]), F32_64, grad=True, rtol=1e-5, atol=1e-5)
for _t, _norm in [(1, None), (2, None), (2, "ortho"), (3, None), (3, "ortho")]:
  _sfx = f"type{_t}" + ("/ortho" if _norm else "")
  case("signal/dct/" + _sfx, (lambda t, nm: lambda x: sig.dct(x, type=t, norm=nm))(_t, _norm),
       (lambda t, nm: lambda x: _dct_ref(x, t, nm))(_t, _norm), args([3, 6]), F32_64,
       grad=True, order=2, rtol=1e-5, atol=1e-5)
case("signal/idct/type2", lambda x: sig.idct(x), lambda x: _dct_ref(x, 3), args([2, 5]),
     F32_64, grad=True, rtol=1e-5, atol=1e-5)
case("signal/idct/ortho_inverts", lambda x: sig.idct(sig.dct(x, norm="ortho"), norm="ortho"),
     lambda x: x, args([2, 7]), F32_64, grad=True, rtol=1e-5, atol=1e-5)
case("signal/dct/n_pad", lambda x: sig.dct(x, n=7), lambda x: _dct_ref(
    np.pad(x, [(0, 0), (0, 3)]), 2), args([2, 4]), F32_64, grad=True, rtol=1e-5, atol=1e-5)
case("signal/mfccs", sig.mfccs_from_log_mel_spectrograms,
     lambda x: (_dct_ref(x, 2) / np.sqrt(2 * x.shape[-1])).astype(x.dtype), args([2, 3, 8]),
     F32_64, grad=True, rtol=1e-5, atol=1e-5)
case("signal/fftshift", lambda x: sig.fftshift(x), np.fft.fftshift, args([3, 5]),
     F32_64 + (np.int32,) + COMPLEX, grad=True)
case("signal/ifftshift/axes", lambda x: sig.ifftshift(x, axes=[1]),
     lambda x: np.fft.ifftshift(x, axes=[1]), args([3, 5]), F32_64, grad=True)


def _vorbis(n):
  return np.sin(np.pi / 2 * np.sin(np.pi * (np.arange(n) + 0.5) / n) ** 2)


def _mdct_ref(x, fl):
  """The MDCT definition: 2 * sum_n x_n w_n cos(pi / N (n + 1/2 + N/2)(k + 1/2)), N = fl/2."""
  n_half = fl // 2
  frames = _frames(x, fl, n_half) * _vorbis(fl)
  n = np.arange(fl)[None, :]
  k = np.arange(n_half)[:, None]
  basis = np.cos(np.pi / n_half * (n + 0.5 + n_half / 2) * (k + 0.5))
  return (2 * frames @ basis.T).astype(x.dtype)


case("signal/mdct", lambda x: sig.mdct(x, 8), lambda x: _mdct_ref(x, 8), args([2, 24]),
     F32_64, grad=True, rtol=1e-5, atol=1e-5)
# Where two frames overlap, the windows' squares sum to 1 and the aliasing cancels.
case("signal/inverse_mdct/reconstructs", lambda x: sig.inverse_mdct(sig.mdct(x, 8))[..., 4:-4],
     lambda x: x[..., 4:-4], args([2, 24]), F32_64, grad=True, rtol=1e-5, atol=1e-5)
case("signal/windows", lambda: tf.stack([sig.kaiser_window(6, 3.0, tf.float64),
                                         sig.vorbis_window(6, tf.float64)]),
     lambda: np.stack([np.kaiser(6, 3.0), _vorbis(6)]), lambda rng, dt: [], [np.float64],
     grad=False)
