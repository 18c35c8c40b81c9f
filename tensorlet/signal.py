"""tf.signal: Fourier transforms, framing, spectrograms, windows, mel scale, DCT.

The transforms and framing are ops (tensorlet/ops/signal_ops.py); everything
else here composes them, so gradients and graphs come with them.
"""
import math as _math

import numpy as _np

from tensorlet import dtypes as _dt
from tensorlet.ops import array_ops as _a
from tensorlet.ops import math_ops as _m
from tensorlet.ops.registry import constant_value as _constant_value
from tensorlet.ops.registry import execute as _execute
from tensorlet.ops.signal_ops import (  # noqa: F401
    DCT as _DCT, FFTShift as _FFTShift, Frame as _Frame, OverlapAndAdd as _OverlapAndAdd, fft, fft2d, fft3d, ifft, ifft2d, ifft3d,
    irfft, irfft2d, irfft3d, rfft, rfft2d, rfft3d)
from tensorlet.tensor import Tensor as _Tensor
from tensorlet.tensor import convert_to_tensor as _tensor


def _static_int(v, what):
  if isinstance(v, _Tensor):
    c = _constant_value(v)
    if c is None:
      raise ValueError(f"{what} must be known when the graph is built (a Python int or a "
                       f"constant tensor)")
    v = c
  v = _np.asarray(v)
  if v.ndim != 0 or v.dtype.kind not in "iu":
    raise ValueError(f"{what} must be an integer scalar, got {v!r}")
  return int(v)


# ------------------------------------------------------------------ shifts

def _shift(x, axes, sign):
  x = _tensor(x)
  if x.shape.rank is None:
    raise ValueError("fftshift needs a tensor of known rank")
  if axes is None:
    axes = list(range(x.shape.rank))
  axes = [int(a) for a in _np.reshape(_np.asarray(_constant_value(_tensor(axes))), [-1])]
  for a in axes:
    if not -x.shape.rank <= a < x.shape.rank:
      raise ValueError(f"axis {a} is out of range for a tensor of rank {x.shape.rank}")
  return _execute(_FFTShift, [x], {"axes": tuple(a % x.shape.rank for a in axes),
                                   "inverse": sign < 0})


def fftshift(x, axes=None, name=None):
  """Moves the zero-frequency bin to the centre (axes: all by default)."""
  return _shift(x, axes, 1)


def ifftshift(x, axes=None, name=None):
  """The inverse of fftshift."""
  return _shift(x, axes, -1)


# ----------------------------------------------------------------- framing

def frame(signal, frame_length, frame_step, pad_end=False, pad_value=0, axis=-1, name=None):
  """Frames of `frame_length` samples, `frame_step` apart, along `axis`.

  With `pad_end`, the end is padded with `pad_value` so every sample starts a
  frame's worth of frames (ceil(n / frame_step) frames).
  """
  x = _tensor(signal)
  fl = _static_int(frame_length, "frame_length")
  fs = _static_int(frame_step, "frame_step")
  ax = _static_int(axis, "axis")
  if x.shape.rank is not None:
    if x.shape.rank == 0:
      raise ValueError("Shape must be at least rank 1 but is rank 0 for 'frame' (signal)")
    if not -x.shape.rank <= ax < x.shape.rank:
      raise ValueError(f"axis {ax} is out of range for a signal of rank {x.shape.rank}")
  if fl < 0 or fs <= 0:
    raise ValueError(f"frame_length must be >= 0 and frame_step > 0, got {fl} and {fs}")
  pv = _tensor(pad_value, x.dtype) if not isinstance(pad_value, _Tensor) else pad_value
  return _execute(_Frame, [x, pv], {"frame_length": fl, "frame_step": fs,
                                    "pad_end": bool(pad_end), "axis": ax})


def overlap_and_add(signal, frame_step, name=None):
  """Sums frames [..., frames, frame_length] placed `frame_step` apart."""
  x = _tensor(signal)
  fs = _static_int(frame_step, "frame_step")
  if x.shape.rank is not None and x.shape.rank < 2:
    raise ValueError(f"Shape must be at least rank 2 but is rank {x.shape.rank} for "
                     f"'overlap_and_add' (signal)")
  if fs <= 0:
    raise ValueError(f"frame_step must be positive, got {fs}")
  return _execute(_OverlapAndAdd, [x], {"frame_step": fs})


# ----------------------------------------------------------------- windows

def _raised_cosine(window_length, periodic, dtype, a, b):
  n = _static_int(window_length, "window_length")
  dtype = _dt.as_dtype(dtype)
  if not dtype.is_floating:
    raise ValueError(f"dtype must be a floating point type, got {dtype.name}")
  if n == 1:
    return _tensor(_np.ones([1], dtype._np))
  # NOTE: as TF's, `periodic` only changes even lengths.
  periodic = bool(_np.asarray(_constant_value(_tensor(periodic))))
  denom = n if periodic and n % 2 == 0 else n - 1
  k = _np.arange(n, dtype=_np.float64)
  return _tensor((a - b * _np.cos(2 * _np.pi * k / max(denom, 1))).astype(dtype._np))


def hann_window(window_length, periodic=True, dtype=_dt.float32, name=None):
  """0.5 - 0.5 cos(2 pi n / N) with N = length (periodic) or length - 1."""
  return _raised_cosine(window_length, periodic, dtype, 0.5, 0.5)


def hamming_window(window_length, periodic=True, dtype=_dt.float32, name=None):
  """0.54 - 0.46 cos(2 pi n / N) with N = length (periodic) or length - 1."""
  return _raised_cosine(window_length, periodic, dtype, 0.54, 0.46)


# ------------------------------------------------------------- spectrograms

def _enclosing_power_of_2(n):
  return int(2 ** _math.ceil(_math.log2(n))) if n > 0 else 1


def stft(signals, frame_length, frame_step, fft_length=None, window_fn=hann_window,
         pad_end=False, name=None):
  """Short-time Fourier transform: [..., samples] -> [..., frames, fft_length // 2 + 1]."""
  x = _tensor(signals)
  if not x.dtype.is_floating:
    x = _m.cast(x, _dt.float32)
  if x.shape.rank is not None and x.shape.rank < 1:
    raise ValueError("Shape must be at least rank 1 but is rank 0 for 'stft' (signals)")
  fl = _static_int(frame_length, "frame_length")
  fs = _static_int(frame_step, "frame_step")
  n = _enclosing_power_of_2(fl) if fft_length is None else _static_int(fft_length, "fft_length")
  framed = frame(x, fl, fs, pad_end=pad_end)
  if window_fn is not None:
    framed = framed * window_fn(fl, dtype=framed.dtype)
  return rfft(framed, [n])


def inverse_stft_window_fn(frame_step, forward_window_fn=hann_window, name=None):
  """The window that makes inverse_stft invert stft with `forward_window_fn`."""
  def window(frame_length, dtype):
    fl = _static_int(frame_length, "frame_length")
    fs = _static_int(frame_step, "frame_step")
    w = forward_window_fn(fl, dtype=dtype)
    sq = _np.square(_np.asarray(w.numpy() if hasattr(w, "numpy") else w, _np.float64))
    reps = -(-fl // fs)
    sq = _np.pad(sq, (0, reps * fs - fl)).reshape(reps, fs).sum(0)
    denom = _np.tile(sq, reps)[:fl]
    return _m.cast(w, dtype) / _tensor(denom.astype(_dt.as_dtype(dtype)._np))
  return window


def inverse_stft(stfts, frame_length, frame_step, fft_length=None, window_fn=hann_window,
                 name=None):
  """Inverse of stft: irfft of each frame, windowed, overlap-added."""
  s = _tensor(stfts)
  if not s.dtype.is_complex:
    raise ValueError(f"stfts must be complex64 or complex128, got {s.dtype.name}")
  if s.shape.rank is not None and s.shape.rank < 2:
    raise ValueError(f"Shape must be at least rank 2 but is rank {s.shape.rank} for "
                     f"'inverse_stft' (stfts)")
  fl = _static_int(frame_length, "frame_length")
  fs = _static_int(frame_step, "frame_step")
  n = _enclosing_power_of_2(fl) if fft_length is None else _static_int(fft_length, "fft_length")
  frames = irfft(s, [n])
  if n >= fl:
    frames = frames[..., :fl]
  else:
    rank = frames.shape.rank
    frames = _a.pad(frames, [[0, 0]] * (rank - 1) + [[0, fl - n]])
  if window_fn is not None:
    frames = frames * window_fn(fl, dtype=frames.dtype)
  return overlap_and_add(frames, fs)


# ---------------------------------------------------------------- mel scale

_MEL_BREAK_HZ = 700.0
_MEL_HIGH_Q = 1127.0


def _hz_to_mel(f):
  return _MEL_HIGH_Q * _np.log(1.0 + f / _MEL_BREAK_HZ)


def linear_to_mel_weight_matrix(num_mel_bins=20, num_spectrogram_bins=129, sample_rate=8000,
                                lower_edge_hertz=125.0, upper_edge_hertz=3800.0,
                                dtype=_dt.float32, name=None):
  """[num_spectrogram_bins, num_mel_bins] matrix of triangular mel filters (HTK mel)."""
  nm = _static_int(num_mel_bins, "num_mel_bins")
  ns = _static_int(num_spectrogram_bins, "num_spectrogram_bins")
  sr = float(_np.asarray(_constant_value(_tensor(sample_rate))))
  lo = float(_np.asarray(_constant_value(_tensor(lower_edge_hertz))))
  hi = float(_np.asarray(_constant_value(_tensor(upper_edge_hertz))))
  dtype = _dt.as_dtype(dtype)
  if nm <= 0:
    raise ValueError(f"num_mel_bins must be positive. Got: {nm}")
  if lo < 0.0:
    raise ValueError(f"lower_edge_hertz must be non-negative. Got: {lo}")
  if lo >= hi:
    raise ValueError(f"lower_edge_hertz {lo} >= upper_edge_hertz {hi}")
  if sr <= 0.0:
    raise ValueError(f"sample_rate must be positive. Got: {sr}")
  if hi > sr / 2:
    raise ValueError(f"upper_edge_hertz must not be larger than the Nyquist frequency "
                     f"(sample_rate / 2). Got {hi} for sample_rate: {sr}")
  if not dtype.is_floating:
    raise ValueError(f"dtype must be a floating point type. Got: {dtype}")
  # NOTE: computed in float32 as TF does, so the matrices agree bit for bit nearly.
  f32 = _np.float32
  freqs = _np.linspace(0.0, sr / 2.0, ns, dtype=f32)[1:]
  bins_mel = _hz_to_mel(freqs)[:, None].astype(f32)
  edges = _np.linspace(_hz_to_mel(f32(lo)), _hz_to_mel(f32(hi)), nm + 2, dtype=f32)
  lower, center, upper = edges[None, :-2], edges[None, 1:-1], edges[None, 2:]
  lower_slopes = (bins_mel - lower) / (center - lower)
  upper_slopes = (upper - bins_mel) / (upper - center)
  w = _np.maximum(0.0, _np.minimum(lower_slopes, upper_slopes))
  return _tensor(_np.pad(w, [[1, 0], [0, 0]]).astype(dtype._np))


def mfccs_from_log_mel_spectrograms(log_mel_spectrograms, name=None):
  """MFCCs: the orthonormally scaled DCT-II of log-mel spectrograms (last axis)."""
  x = _tensor(log_mel_spectrograms)
  if not x.dtype.is_floating:
    raise ValueError(f"log_mel_spectrograms must be float, got {x.dtype.name}")
  n = _m.cast(_a.shape(x)[-1], x.dtype)
  return dct(x, type=2) * _m.rsqrt(n * 2.0)


# --------------------------------------------------------------------- DCT

def _dct_args(input, type, n, axis, norm):  # noqa: A002
  x = _tensor(input)
  if type not in (1, 2, 3, 4):
    raise ValueError(f"Types I, II, III and IV (I)DCT are supported, got type {type}")
  if axis != -1:
    raise NotImplementedError("axis must be -1. Got: %s" % axis)
  if norm not in (None, "ortho"):
    raise ValueError(f"Unknown normalization. Expected None or 'ortho', got: {norm}")
  if type == 1 and norm == "ortho":
    raise ValueError("Normalization is not supported for the Type-I DCT.")
  if n is not None and n < 1:
    raise ValueError(f"n should be a positive integer or None, got {n}")
  if not x.dtype.is_floating or x.dtype is _dt.float16:
    raise TypeError(f"dct supports float32 and float64 inputs, got {x.dtype.name}")
  length = x.shape[-1] if x.shape.rank else None
  if n is not None and length is None:  # fitted to n with shape arithmetic
    x = x[..., :n]
    s = _a.shape(x)
    fill = _a.zeros(_a.concat([s[:-1], [n - s[-1]]], 0), x.dtype)
    return _a.concat([x, fill], -1)
  if n is not None and n != length:
    if n < length:
      x = x[..., :n]
    else:
      x = _a.pad(x, [[0, 0]] * (x.shape.rank - 1) + [[0, n - length]])
    length = n
  if type == 1 and length is not None and length < 2:
    raise ValueError("Type-I DCT requires the dimension to be greater than one.")
  return x


def dct(input, type=2, n=None, axis=-1, norm=None, name=None):  # noqa: A002
  """Discrete cosine transform of type 1-4 over the last axis (SciPy's scaling)."""
  x = _dct_args(input, type, n, axis, norm)
  return _execute(_DCT, [x], {"type": type, "norm": norm, "adjoint": False})


def idct(input, type=2, n=None, axis=-1, norm=None, name=None):  # noqa: A002
  """Inverse DCT: the DCT of the inverse type (unnormalised: scaled by 2N, as TF's)."""
  return dct(input, type={1: 1, 2: 3, 3: 2, 4: 4}.get(type, type), n=n, axis=axis, norm=norm)


def kaiser_window(window_length, beta=12.0, dtype=_dt.float32, name=None):
  """I0(beta * sqrt(1 - (2n / (N - 1) - 1)^2)) / I0(beta)."""
  n = _static_int(window_length, "window_length")
  dtype = _check_window_dtype(dtype)
  if n == 1:
    return _tensor(_np.ones([1], dtype._np))
  return _tensor(_np.kaiser(n, float(beta)).astype(dtype._np))


def kaiser_bessel_derived_window(window_length, beta=12.0, dtype=_dt.float32, name=None):
  """sqrt of the normalised running sum of a Kaiser window, mirrored (for MDCTs)."""
  n = _static_int(window_length, "window_length")
  dtype = _check_window_dtype(dtype)
  half = n // 2
  k = _np.kaiser(half + 1, float(beta))
  c = _np.cumsum(k[:half]) / _np.sum(k)
  w = _np.sqrt(_np.concatenate([c, c[::-1]]))
  return _tensor(w.astype(dtype._np))


def vorbis_window(window_length, dtype=_dt.float32, name=None):
  """sin(pi / 2 * sin(pi * (n + 0.5) / N)^2): the Vorbis power-complementary window."""
  n = _static_int(window_length, "window_length")
  dtype = _check_window_dtype(dtype)
  s = _np.sin(_np.pi * (_np.arange(n) + 0.5) / n)
  return _tensor(_np.sin(_np.pi / 2 * s * s).astype(dtype._np))


def _check_window_dtype(dtype):
  dtype = _dt.as_dtype(dtype)
  if not dtype.is_floating:
    raise ValueError(f"dtype must be a floating point type, got {dtype.name}")
  return dtype


def mdct(signals, frame_length, window_fn=vorbis_window, pad_end=False, norm=None, name=None):
  """Modified DCT of frames of `frame_length` (a multiple of 4) hopping by half of it."""
  x = _tensor(signals)
  fl = _static_int(frame_length, "frame_length")
  if fl % 4:
    raise ValueError(f"The frame length must be a multiple of 4, got {fl}")
  if not x.dtype.is_floating:
    raise ValueError(f"signals must be float, got {x.dtype.name}")
  frames = frame(x, fl, fl // 2, pad_end=pad_end)
  frames = frames * (window_fn(fl, dtype=frames.dtype) if window_fn is not None
                     else _np.float64(1 / _np.sqrt(2)))
  a, b, c, d = _a.split(frames, 4, axis=-1)
  first = -_a.reverse(c, [-1]) - d
  second = a - _a.reverse(b, [-1])
  return dct(_a.concat([first, second], -1), type=4, norm=norm)


def inverse_mdct(mdcts, window_fn=vorbis_window, norm=None, name=None):
  """Inverse of mdct (with a power-complementary window: perfect reconstruction)."""
  x = _tensor(mdcts)
  if x.shape.rank is not None and x.shape.rank < 2:
    raise ValueError(f"inverse_mdct: `mdcts` must have rank at least 2, got shape {x.shape}")
  half = x.shape[-1] if x.shape.rank else None
  if half is None:
    raise ValueError("inverse_mdct needs a known number of coefficients")
  if norm is None:
    y = dct(x, type=4) * _np.float64(0.5 / half)
  elif norm == "ortho":
    y = dct(x, type=4, norm="ortho")
  else:
    raise ValueError(f"norm must be None or 'ortho', got {norm!r}")
  lo, hi = _a.split(y, 2, axis=-1)
  frames = _a.concat([hi, -_a.reverse(hi, [-1]), -_a.reverse(lo, [-1]), -lo], -1)
  frames = frames * (window_fn(2 * half, dtype=frames.dtype) if window_fn is not None
                     else _np.float64(1 / _np.sqrt(2)))
  return overlap_and_add(frames, half)


from tensorlet._unsupported import getattr_for as _getattr_for  # noqa: E402
__getattr__ = _getattr_for("tf.signal", __name__)
