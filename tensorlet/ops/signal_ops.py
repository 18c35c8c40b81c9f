"""Fourier-transform ops (the primitives behind `tf.signal`).

FFT/IFFT over the innermost 1-3 axes of complex tensors, and RFFT/IRFFT
between real signals and their half spectra. Gradients follow TF's complex
convention (the gradient of a real loss L with respect to z is
dL/dRe(z) + i dL/dIm(z)), so for a linear transform A the gradient of its
input is A^H applied to the output gradient (its real part for real inputs).
The adjoints of RFFT and IRFFT are ops of their own (RFFTGrad, IRFFTGrad),
each the other's gradient partner, so gradients nest to any order.
"""
import numpy as np

from tensorlet import dtypes as _dt
from tensorlet.ops import math_ops
from tensorlet.ops.registry import constant_value, execute, op
from tensorlet.tensor_shape import TensorShape
from tensorlet.tensor import convert_to_tensor

_COMPLEX = frozenset({_dt.complex64, _dt.complex128})
_REAL = frozenset({_dt.float32, _dt.float64})
_TO_COMPLEX = {_dt.float32: _dt.complex64, _dt.float64: _dt.complex128}
_TO_REAL = {_dt.complex64: _dt.float32, _dt.complex128: _dt.float64}
_SUFFIX = {1: "", 2: "2D", 3: "3D"}


def _inner_rank_check(shape, rank, name):
  if shape.rank is not None and shape.rank < rank:
    raise ValueError(f"Shape must be at least rank {rank} but is rank {shape.rank} for "
                     f"'{name}'")


def _fft_shape(rank, name):
  def shape(inputs, attrs):
    x = inputs[0]
    _inner_rank_check(x.shape, rank, name)
    return [(x.shape, x.dtype)]
  return shape


def same_shape_any(inputs, attrs):
  x = inputs[0]
  return [(x.shape, x.dtype)]


def _axes(rank):
  return tuple(range(-rank, 0))


def _fft_kernel(rank, inverse):
  fn = np.fft.ifftn if inverse else np.fft.fftn

  def kernel(input):  # noqa: A002 - TF's argument name
    if input.ndim < rank:
      raise ValueError(f"input must be at least rank {rank}")
    return fn(input, axes=_axes(rank)).astype(input.dtype, copy=False)
  return kernel


FFT_OPS = {}
for _r in (1, 2, 3):
  for _inv in (False, True):
    _name = ("IFFT" if _inv else "FFT") + _SUFFIX[_r]
    FFT_OPS[_name] = op(_name, dtypes=_COMPLEX, shape=_fft_shape(_r, _name), fresh=True,
                        grad_shape="exact")(_fft_kernel(_r, _inv))


def _register_fft_grads(rank):
  fwd, inv = FFT_OPS["FFT" + _SUFFIX[rank]], FFT_OPS["IFFT" + _SUFFIX[rank]]

  # N * ifft(dy) == conj(fft(conj(dy))): no shape arithmetic, so it stages as is.
  @fwd.def_grad
  def _(op, dy):
    return [math_ops.conj(execute(fwd, [math_ops.conj(dy)], {}))]

  @inv.def_grad
  def _(op, dy):
    return [math_ops.conj(execute(inv, [math_ops.conj(dy)], {}))]


for _r in (1, 2, 3):
  _register_fft_grads(_r)


# ----------------------------------------------------------------- real FFTs

def _lengths(t, rank):
  v = constant_value(t)
  if v is None:
    return None
  v = np.asarray(v).reshape(-1)
  return [int(n) for n in v] if v.size == rank else None


def _fit(a, shape, rank):
  """Crops or zero-pads the innermost `rank` axes of `a` to `shape`."""
  idx = [slice(None)] * (a.ndim - rank) + [slice(0, n) for n in shape]
  a = a[tuple(idx)]
  pads = [(0, 0)] * (a.ndim - rank) + [(0, max(0, n - m)) for n, m in
                                       zip(shape, a.shape[a.ndim - rank:])]
  return np.pad(a, pads) if any(p[1] for p in pads) else a


def _check_lengths(fft_length, rank):
  n = np.asarray(fft_length).reshape(-1)
  if n.size != rank:
    raise ValueError(f"fft_length must have {rank} elements, got {n.size}")
  if np.any(n < 0):
    raise ValueError(f"fft_length must be non-negative, got {n.tolist()}")
  return [int(v) for v in n]


def _half(n):
  return n // 2 + 1


def _real_fft_shape(rank, name, inverse):
  def shape(inputs, attrs):
    x, fl = inputs[0], inputs[1]
    _inner_rank_check(x.shape, rank, name)
    out = (_TO_REAL if inverse else _TO_COMPLEX).get(x.dtype, x.dtype)
    if x.shape.rank is None:
      return [(TensorShape(None), out)]
    n = _lengths(fl, rank)
    lead = x.shape.as_list()[:x.shape.rank - rank]
    if n is None:
      inner = [None] * rank
    else:
      inner = n if inverse else n[:-1] + [_half(n[-1])]
    return [(TensorShape(lead + inner), out)]
  return shape


def _like_shape(i, to):
  def shape(inputs, attrs):
    ref = inputs[i]
    return [(ref.shape, to(ref.dtype))]
  return shape


def _rfft_kernel(rank):
  def kernel(input, fft_length):  # noqa: A002
    n = _check_lengths(fft_length, rank)
    if input.ndim < rank:
      raise ValueError(f"input must be at least rank {rank}")
    out = np.fft.rfftn(_fit(input, n, rank), s=n, axes=_axes(rank)) if all(n) else \
        np.zeros(input.shape[:input.ndim - rank] + tuple(n[:-1]) + (_half(n[-1]),))
    return out.astype(_TO_COMPLEX[_dtype_of(input.dtype)]._np, copy=False)
  return kernel


def _irfft_kernel(rank):
  def kernel(input, fft_length):  # noqa: A002
    n = _check_lengths(fft_length, rank)
    if input.ndim < rank:
      raise ValueError(f"input must be at least rank {rank}")
    real = _TO_REAL[_dtype_of(input.dtype)]._np
    if not all(n):
      return np.zeros(input.shape[:input.ndim - rank] + tuple(n), real)
    x = _fit(input, n[:-1] + [_half(n[-1])], rank)
    return np.fft.irfftn(x, s=n, axes=_axes(rank)).astype(real, copy=False)
  return kernel


def _rfft_grad_kernel(rank):
  # The adjoint of RFFT: Re(A^H dy), fitted back to the input's shape.
  def kernel(dy, x, fft_length):
    n = _check_lengths(fft_length, rank)
    full = _fit(dy, n, rank)
    out = np.real(np.fft.ifftn(full, axes=_axes(rank))) * float(np.prod(n)) if all(n) else \
        np.zeros(full.shape)
    return _fit(out, x.shape[x.ndim - rank:], rank).astype(x.dtype, copy=False)
  return kernel


def _irfft_grad_kernel(rank):
  # The adjoint of IRFFT: rfft(g) with the folded Hermitian bins doubled, / N.
  def kernel(dy, x, fft_length):
    n = _check_lengths(fft_length, rank)
    h = _half(n[-1])
    if all(n):
      spec = np.fft.rfftn(dy, s=n, axes=_axes(rank))
      mask = np.full(h, 2.0)
      mask[0] = 1.0
      if n[-1] % 2 == 0:
        mask[-1] = 1.0
      spec = spec * (mask / float(np.prod(n)))
    else:
      spec = np.zeros(dy.shape[:dy.ndim - rank] + tuple(n[:-1]) + (h,), complex)
    return _fit(spec, x.shape[x.ndim - rank:], rank).astype(x.dtype, copy=False)
  return kernel


def _dtype_of(np_dtype):
  return _dt._BY_NP[np.dtype(np_dtype)]


RFFT_OPS = {}
for _r in (1, 2, 3):
  _s = _SUFFIX[_r]
  RFFT_OPS["RFFT" + _s] = op("RFFT" + _s, dtypes=_REAL, type_inputs=(0,), fresh=True,
                             shape=_real_fft_shape(_r, "RFFT" + _s, False))(_rfft_kernel(_r))
  RFFT_OPS["IRFFT" + _s] = op("IRFFT" + _s, dtypes=_COMPLEX, type_inputs=(0,), fresh=True,
                              shape=_real_fft_shape(_r, "IRFFT" + _s, True))(_irfft_kernel(_r))
  RFFT_OPS["RFFTGrad" + _s] = op(
      "RFFTGrad" + _s, dtypes=_COMPLEX, type_inputs=(0,), fresh=True, grad_shape="exact",
      shape=_like_shape(1, lambda d: d))(_rfft_grad_kernel(_r))
  RFFT_OPS["IRFFTGrad" + _s] = op(
      "IRFFTGrad" + _s, dtypes=_REAL, type_inputs=(0,), fresh=True, grad_shape="exact",
      shape=_like_shape(1, lambda d: d))(_irfft_grad_kernel(_r))


def _register_rfft_grads(rank):
  s = _SUFFIX[rank]
  rfft, irfft = RFFT_OPS["RFFT" + s], RFFT_OPS["IRFFT" + s]
  rgrad, igrad = RFFT_OPS["RFFTGrad" + s], RFFT_OPS["IRFFTGrad" + s]

  @rfft.def_grad
  def _(op, dy):
    return [execute(rgrad, [dy, op.inputs[0], op.inputs[1]], {}), None]

  @irfft.def_grad
  def _(op, dy):
    return [execute(igrad, [dy, op.inputs[0], op.inputs[1]], {}), None]

  # Both adjoints are linear in dy; their adjoints are the forward transforms.
  @rgrad.def_grad
  def _(op, ddx):
    return [execute(rfft, [ddx, op.inputs[2]], {}), None, None]

  @igrad.def_grad
  def _(op, ddx):
    return [execute(irfft, [ddx, op.inputs[2]], {}), None, None]


for _r in (1, 2, 3):
  _register_rfft_grads(_r)


# ------------------------------------------------------------------ public

def _fft_public(name, doc):
  od = FFT_OPS[name]

  def f(input, name=None):  # noqa: A002
    return execute(od, [convert_to_tensor(input)], {})
  f.__name__ = f.__qualname__ = name.lower()
  f.__doc__ = doc
  return f


fft = _fft_public("FFT", "Discrete Fourier transform over the innermost axis.")
ifft = _fft_public("IFFT", "Inverse discrete Fourier transform over the innermost axis.")
fft2d = _fft_public("FFT2D", "2-D discrete Fourier transform over the innermost 2 axes.")
ifft2d = _fft_public("IFFT2D", "Inverse 2-D discrete Fourier transform (innermost 2 axes).")
fft3d = _fft_public("FFT3D", "3-D discrete Fourier transform over the innermost 3 axes.")
ifft3d = _fft_public("IFFT3D", "Inverse 3-D discrete Fourier transform (innermost 3 axes).")


def _default_lengths(x, rank, inverse):
  """fft_length when not given: the innermost dims (2 * (n - 1) for the inverse's last)."""
  from tensorlet.ops import array_ops
  dims = x.shape.as_list()[-rank:] if x.shape.rank is not None else [None]
  if None not in dims:
    if inverse:
      dims = dims[:-1] + [2 * (dims[-1] - 1)]
    return convert_to_tensor(np.asarray(dims, np.int32))
  s = array_ops.shape(x)[-rank:]
  if inverse:
    s = array_ops.concat([s[:-1], 2 * (s[-1:] - 1)], 0)
  return s


def _real_fft(rank, inverse):
  od = RFFT_OPS[("IRFFT" if inverse else "RFFT") + _SUFFIX[rank]]

  def f(input_tensor, fft_length=None, name=None):
    x = convert_to_tensor(input_tensor)
    want = _COMPLEX if inverse else _REAL
    if x.dtype not in want:
      raise ValueError(f"{od.name} requires tf.{' or tf.'.join(sorted(d.name for d in want))} "
                       f"inputs, got: {x.dtype.name}")
    _inner_rank_check(x.shape, rank, od.name)
    if fft_length is None:
      fl = _default_lengths(x, rank, inverse)
    else:
      fl = convert_to_tensor(fft_length, _dt.int32) if not hasattr(fft_length, "dtype") \
          else math_ops.cast(fft_length, _dt.int32)
    return execute(od, [x, fl], {})
  f.__name__ = f.__qualname__ = od.name.lower()
  f.__doc__ = (f"{'Inverse real' if inverse else 'Real'}-input {rank}-D FFT over the innermost "
               f"{rank} axes; `fft_length` crops or zero-pads them.")
  return f


rfft, rfft2d, rfft3d = (_real_fft(r, False) for r in (1, 2, 3))
irfft, irfft2d, irfft3d = (_real_fft(r, True) for r in (1, 2, 3))


# ------------------------------------------------------ framing and overlap-add

def _frame_count(n, frame_length, frame_step, pad_end):
  if pad_end:
    return -(-n // frame_step)
  return max(0, 1 + (n - frame_length) // frame_step) if n >= frame_length else 0


def _frame_index(num_frames, frame_length, frame_step):
  return np.arange(num_frames)[:, None] * frame_step + np.arange(frame_length)[None, :]


def _frame_shape(inputs, attrs):
  x = inputs[0]
  if x.shape.rank is None:
    return [(TensorShape(None), x.dtype)]
  if x.shape.rank == 0:
    raise ValueError("Shape must be at least rank 1 but is rank 0 for 'Frame'")
  dims = x.shape.as_list()
  ax = attrs["axis"] % len(dims)
  n = dims[ax]
  f = None if n is None else _frame_count(n, attrs["frame_length"], attrs["frame_step"],
                                          attrs["pad_end"])
  return [(TensorShape(dims[:ax] + [f, attrs["frame_length"]] + dims[ax + 1:]), x.dtype)]


@op("Frame", dtypes=None, type_inputs=(0, 1), shape=_frame_shape, fresh=True)
def Frame(signal, pad_value, *, frame_length, frame_step, pad_end, axis):
  x = np.moveaxis(signal, axis, -1)
  n = x.shape[-1]
  f = _frame_count(n, frame_length, frame_step, pad_end)
  need = (f - 1) * frame_step + frame_length if f else 0
  if need > n:
    x = np.concatenate([x, np.broadcast_to(pad_value, x.shape[:-1] + (need - n,))], -1)
  out = x[..., _frame_index(f, frame_length, frame_step)]
  ax = axis % signal.ndim
  return np.moveaxis(out, (-2, -1), (ax, ax + 1))


def _overlap_add(frames, frame_step, length):
  """Sums frames [..., F, L] placed frame_step apart into [..., length] (truncating)."""
  f, fl = frames.shape[-2], frames.shape[-1]
  total = max((f - 1) * frame_step + fl, 0) if f else 0
  out = np.zeros(frames.shape[:-2] + (max(total, length),), frames.dtype)
  for j in range(fl):  # one strided add per frame column: vectorised over frames
    end = j + (f - 1) * frame_step + 1
    out[..., j:end:frame_step] += frames[..., j]
  return out[..., :length]


@op("FrameGrad", dtypes=None, type_inputs=(0, 1), shape=_like_shape(1, lambda d: d),
    fresh=True)
def FrameGrad(dy, signal, *, frame_length, frame_step, pad_end, axis):
  ax = axis % signal.ndim
  d = np.moveaxis(dy, (ax, ax + 1), (-2, -1))
  return np.moveaxis(_overlap_add(d, frame_step, signal.shape[ax]), -1, ax)


@Frame.def_grad
def _(op, dy):
  x = op.inputs[0]
  return [execute(FrameGrad, [dy, x], op.attrs), None]


@FrameGrad.def_grad
def _(op, ddx):
  from tensorlet.ops import array_ops
  zero = array_ops.zeros([], ddx.dtype)
  return [execute(Frame, [ddx, zero], op.attrs), None]


def _ola_shape(inputs, attrs):
  x = inputs[0]
  if x.shape.rank is None:
    return [(TensorShape(None), x.dtype)]
  if x.shape.rank < 2:
    raise ValueError(f"Shape must be at least rank 2 but is rank {x.shape.rank} for "
                     f"'OverlapAndAdd'")
  dims = x.shape.as_list()
  f, fl = dims[-2], dims[-1]
  n = None if f is None or fl is None else (max((f - 1) * attrs["frame_step"] + fl, 0)
                                            if f else 0)
  return [(TensorShape(dims[:-2] + [n]), x.dtype)]


@op("OverlapAndAdd", dtypes=None, shape=_ola_shape, fresh=True)
def OverlapAndAdd(signal, *, frame_step):
  if signal.ndim < 2:
    raise ValueError("signal must be at least rank 2")
  f, fl = signal.shape[-2], signal.shape[-1]
  return _overlap_add(signal, frame_step, max((f - 1) * frame_step + fl, 0) if f else 0)


@OverlapAndAdd.def_grad
def _(op, dy):
  return [execute(OverlapAndAddGrad, [dy, op.inputs[0]], op.attrs)]


@op("OverlapAndAddGrad", dtypes=None, type_inputs=(0, 1), shape=_like_shape(1, lambda d: d),
    fresh=True)
def OverlapAndAddGrad(dy, signal, *, frame_step):
  f, fl = signal.shape[-2], signal.shape[-1]
  return np.ascontiguousarray(dy[..., _frame_index(f, fl, frame_step)])


@OverlapAndAddGrad.def_grad
def _(op, ddx):
  return [execute(OverlapAndAdd, [ddx], op.attrs), None]


# ------------------------------------------------------ shifts and the DCT

@op("FFTShift", dtypes=None, shape=same_shape_any, fresh=True, grad_shape="exact")
def FFTShift(x, *, axes, inverse):
  return (np.fft.ifftshift if inverse else np.fft.fftshift)(x, axes=axes).copy()


@FFTShift.def_grad
def _(op, dy):
  return [execute(FFTShift, [dy], {"axes": op.attrs["axes"], "inverse": not op.attrs[
      "inverse"]})]


_DCT_CACHE = {}


def dct_matrix(kind, n, norm):
  """M with y = x @ M for the DCT of `kind` on length-n signals (SciPy's definitions)."""
  key = (kind, n, norm)
  m = _DCT_CACHE.get(key)
  if m is not None:
    return m
  k = np.arange(n)[None, :]
  i = np.arange(n)[:, None]
  if kind == 1:
    if n == 1:
      m = np.ones((1, 1))
    else:
      m = 2 * np.cos(np.pi * i * k / (n - 1))
      m[0, :] = 1.0
      m[-1, :] = (-1.0) ** np.arange(n)
  elif kind == 2:
    m = 2 * np.cos(np.pi * k * (2 * i + 1) / (2 * n))
    if norm == "ortho":
      m[:, 0] *= np.sqrt(1.0 / (4 * n))
      m[:, 1:] *= np.sqrt(1.0 / (2 * n))
  elif kind == 4:
    m = 2 * np.cos(np.pi * (2 * i + 1) * (2 * k + 1) / (4 * n))
    if norm == "ortho":
      m *= np.sqrt(1.0 / (2 * n))
  else:  # kind 3: DCT-II's transpose, the first input term counted once
    m = 2 * np.cos(np.pi * i * (2 * k + 1) / (2 * n))
    if norm == "ortho":
      m[0, :] *= np.sqrt(1.0 / (4 * n))
      m[1:, :] *= np.sqrt(1.0 / (2 * n))
    else:
      m[0, :] = 1.0
  if len(_DCT_CACHE) > 64:
    _DCT_CACHE.clear()
  _DCT_CACHE[key] = m
  return m


# NOTE: a primitive (a matmul by a cached cosine matrix) rather than a
# composition so the length may be unknown while tracing.
@op("DCT", dtypes=frozenset({_dt.float32, _dt.float64}), shape=same_shape_any, fresh=True,
    grad_shape="exact")
def DCT(input, *, type, norm, adjoint):  # noqa: A002
  n = input.shape[-1]
  if type == 1 and n < 2:
    raise ValueError("Type-I DCT requires the dimension to be greater than one.")
  m = dct_matrix(type, n, norm).astype(input.dtype, copy=False)
  return input @ (m.T if adjoint else m)


@DCT.def_grad
def _(op, dy):
  return [execute(DCT, [dy], dict(op.attrs, adjoint=not op.attrs["adjoint"]))]
