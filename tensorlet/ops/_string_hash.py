"""TensorFlow's string hash functions in NumPy: FarmHash's Fingerprint64 (the
`farmhashna` Hash64 that TF's `Fingerprint64` is) and SipHash-2-4 (TF's
`StrongKeyedHash`). Both are vectorised over strings of equal length: the strings
are grouped by length and each group hashed as a (n, length) uint8 matrix with
wrapping uint64 arithmetic.
"""
import numpy as np

_U = np.uint64
_K0 = _U(0xc3a5c85c97cb3127)
_K1 = _U(0xb492b66fbe98f273)
_K2 = _U(0x9ae16a3b2f90404f)


def _f64(b, i):
  return np.ascontiguousarray(b[:, i:i + 8]).view("<u8")[:, 0]


def _f32(b, i):
  return np.ascontiguousarray(b[:, i:i + 4]).view("<u4")[:, 0].astype(_U)


def _rot(v, s):
  return (v >> _U(s)) | (v << _U(64 - s))


def _shift_mix(v):
  return v ^ (v >> _U(47))


def _len16(u, v, mul):
  a = (u ^ v) * mul
  a ^= a >> _U(47)
  b = (v ^ a) * mul
  b ^= b >> _U(47)
  return b * mul


def _len0to16(b, n):
  rows = b.shape[0]
  if n >= 8:
    mul = _U(_K2 + _U(n * 2))
    a = _f64(b, 0) + _K2
    c = _f64(b, n - 8)
    return _len16(_rot(c, 37) * mul + a, (_rot(a, 25) + c) * mul, mul)
  if n >= 4:
    mul = _U(_K2 + _U(n * 2))
    return _len16(_U(n) + (_f32(b, 0) << _U(3)), _f32(b, n - 4), mul)
  if n > 0:
    y = b[:, 0].astype(_U) + (b[:, n >> 1].astype(_U) << _U(8))
    z = _U(n) + (b[:, n - 1].astype(_U) << _U(2))
    return _shift_mix(y * _K2 ^ z * _K0) * _K2
  return np.full(rows, _K2, _U)


def _len17to32(b, n):
  mul = _U(_K2 + _U(n * 2))
  a = _f64(b, 0) * _K1
  c1 = _f64(b, 8)
  c = _f64(b, n - 8) * mul
  d = _f64(b, n - 16) * _K2
  return _len16(_rot(a + c1, 43) + _rot(c, 30) + d, a + _rot(c1 + _K2, 18) + c, mul)


def _len33to64(b, n):
  mul = _U(_K2 + _U(n * 2))
  a = _f64(b, 0) * _K2
  b8 = _f64(b, 8)
  c = _f64(b, n - 8) * mul
  d = _f64(b, n - 16) * _K2
  y = _rot(a + b8, 43) + _rot(c, 30) + d
  z = _len16(y, a + _rot(b8 + _K2, 18) + c, mul)
  e = _f64(b, 16) * mul
  f = _f64(b, 24)
  g = (y + _f64(b, n - 32)) * mul
  h = (z + _f64(b, n - 24)) * mul
  return _len16(_rot(e + f, 43) + _rot(g, 30) + h, e + _rot(f + a, 18) + g, mul)


def _weak32(b, i, a, c):
  w, x, y, z = _f64(b, i), _f64(b, i + 8), _f64(b, i + 16), _f64(b, i + 24)
  a = a + w
  c = _rot(c + a + z, 21)
  t = a
  a = a + x + y
  c = c + _rot(a, 44)
  return a + z, c + t


def _long(b, n):
  rows = b.shape[0]
  seed = _U(81)
  x = np.full(rows, seed, _U)
  y = np.full(rows, seed * _K1 + _U(113), _U)
  z = _shift_mix(y * _K2 + _U(113)) * _K2
  v0 = v1 = w0 = w1 = np.zeros(rows, _U)
  x = x * _K2 + _f64(b, 0)
  end = ((n - 1) // 64) * 64
  last64 = end + ((n - 1) & 63) - 63
  i = 0
  while True:
    x = _rot(x + y + v0 + _f64(b, i + 8), 37) * _K1
    y = _rot(y + v1 + _f64(b, i + 48), 42) * _K1
    x = x ^ w1
    y = y + v0 + _f64(b, i + 40)
    z = _rot(z + w0, 33) * _K1
    v0, v1 = _weak32(b, i, v1 * _K1, x + w0)
    w0, w1 = _weak32(b, i + 32, z + w1, y + _f64(b, i + 16))
    z, x = x, z
    i += 64
    if i == end:
      break
  mul = _K1 + ((z & _U(0xff)) << _U(1))
  i = last64
  w0 = w0 + _U((n - 1) & 63)
  v0 = v0 + w0
  w0 = w0 + v0
  x = _rot(x + y + v0 + _f64(b, i + 8), 37) * mul
  y = _rot(y + v1 + _f64(b, i + 48), 42) * mul
  x = x ^ (w1 * _U(9))
  y = y + v0 * _U(9) + _f64(b, i + 40)
  z = _rot(z + w0, 33) * mul
  v0, v1 = _weak32(b, i, v1 * mul, x + w0)
  w0, w1 = _weak32(b, i + 32, z + w1, y + _f64(b, i + 16))
  z, x = x, z
  return _len16(_len16(v0, w0, mul) + _shift_mix(y) * _K0 + z,
                _len16(v1, w1, mul) + x, mul)


def _farm_group(b, n):
  if n <= 16:
    return _len0to16(b, n)
  if n <= 32:
    return _len17to32(b, n)
  if n <= 64:
    return _len33to64(b, n)
  return _long(b, n)


def _sip_round(v0, v1, v2, v3):
  v0 = v0 + v1
  v1 = _rot(v1, 64 - 13) ^ v0  # rotate left 13
  v0 = _rot(v0, 32)
  v2 = v2 + v3
  v3 = _rot(v3, 64 - 16) ^ v2
  v0 = v0 + v3
  v3 = _rot(v3, 64 - 21) ^ v0
  v2 = v2 + v1
  v1 = _rot(v1, 64 - 17) ^ v2
  v2 = _rot(v2, 32)
  return v0, v1, v2, v3


def _sip_group(b, n, key):
  rows = b.shape[0]
  k0, k1 = _U(key[0]), _U(key[1])
  v0 = np.full(rows, k0 ^ _U(0x736f6d6570736575), _U)
  v1 = np.full(rows, k1 ^ _U(0x646f72616e646f6d), _U)
  v2 = np.full(rows, k0 ^ _U(0x6c7967656e657261), _U)
  v3 = np.full(rows, k1 ^ _U(0x7465646279746573), _U)
  full = n - n % 8
  for i in range(0, full, 8):
    m = _f64(b, i)
    v3 = v3 ^ m
    v0, v1, v2, v3 = _sip_round(*_sip_round(v0, v1, v2, v3))
    v0 = v0 ^ m
  tail = np.zeros((rows, 8), np.uint8)
  tail[:, :n - full] = b[:, full:n]
  tail[:, 7] = n & 0xff
  m = tail.view("<u8")[:, 0]
  v3 = v3 ^ m
  v0, v1, v2, v3 = _sip_round(*_sip_round(v0, v1, v2, v3))
  v0 = v0 ^ m
  v2 = v2 ^ _U(0xff)
  for _ in range(4):
    v0, v1, v2, v3 = _sip_round(v0, v1, v2, v3)
  return v0 ^ v1 ^ v2 ^ v3


def _by_length(strings, group_fn):
  flat = np.asarray(strings, dtype=object).reshape(-1)
  out = np.empty(flat.shape, _U)
  lengths = np.fromiter((len(s) for s in flat), np.int64, flat.size)
  for n in np.unique(lengths):
    idx = np.nonzero(lengths == n)[0]
    n = int(n)
    # Pad so every fixed-width fetch stays inside the row.
    buf = np.frombuffer(b"".join(flat[idx]), np.uint8).reshape(idx.size, n) if n else \
        np.zeros((idx.size, 0), np.uint8)
    out[idx] = group_fn(buf, n)
  return out.reshape(np.shape(strings))


def fingerprint64(strings):
  """FarmHash Fingerprint64 of each bytes object in `strings`, as uint64."""
  return _by_length(strings, _farm_group)


def siphash(strings, key):
  """SipHash-2-4 with the 128-bit `key` (two uint64 words) of each bytes object."""
  return _by_length(strings, lambda b, n: _sip_group(b, n, key))


_KMUL = _U(0xc6a4a7935bd1e995)


def fingerprint_cat64(fp1, fp2):
  """TF's FingerprintCat64: combines two 64-bit fingerprints (arrays of uint64)."""
  r = fp1 ^ _KMUL
  r = r ^ (_shift_mix(fp2 * _KMUL) * _KMUL)
  r = r * _KMUL
  r = _shift_mix(r) * _KMUL
  return _shift_mix(r)
