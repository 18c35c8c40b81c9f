"""tf.nn convolution and pooling against direct-loop NumPy references (TF's
SAME rule stated independently), finite-difference gradients to order 2, TF's
max-pool tie routing, graph shape inference and error types."""
import math

import numpy as np
import pytest

import tensorlet as tf
from gradcheck import check_grads, tape_grads
from tensorlet.errors import InvalidArgumentError, UnimplementedError
from tensorlet.ops import conv_ops
from tensorlet.ops.registry import execute


def rand(*shape, lo=-2.0, hi=2.0):
  return np.random.RandomState(sum(shape) + len(shape)).uniform(lo, hi, shape)


# ------------------------------------------------------------ convolution

def same_pads(n, k, s, d=1):
  """TF's SAME rule, stated as in its documentation."""
  ek = (k - 1) * d + 1
  out = math.ceil(n / s)
  total = max((out - 1) * s + ek - n, 0)
  return total // 2, total - total // 2


def naive_conv2d(x, w, strides=(1, 1), padding="VALID", dil=(1, 1)):
  """Direct loops over output positions and filter taps (NHWC x HWIO)."""
  n, h, wd, c = x.shape
  kh, kw, _, o = w.shape
  if padding == "SAME":
    pads = [same_pads(h, kh, strides[0], dil[0]), same_pads(wd, kw, strides[1], dil[1])]
  elif padding == "VALID":
    pads = [(0, 0), (0, 0)]
  else:
    pads = [tuple(padding[1]), tuple(padding[2])]
  xp = np.pad(x, [(0, 0), pads[0], pads[1], (0, 0)])
  oh = (xp.shape[1] - (kh - 1) * dil[0] - 1) // strides[0] + 1
  ow = (xp.shape[2] - (kw - 1) * dil[1] - 1) // strides[1] + 1
  out = np.zeros((n, oh, ow, o))
  for i in range(oh):
    for j in range(ow):
      for a in range(kh):
        for b in range(kw):
          out[:, i, j] += xp[:, i * strides[0] + a * dil[0], j * strides[1] + b * dil[1]] @ w[a, b]
  return out


CONV_CASES = [
    # (x shape, w shape, strides, padding, dilations)
    ((2, 5, 6, 3), (3, 3, 3, 4), 1, "VALID", 1),
    ((2, 5, 6, 3), (3, 3, 3, 4), 1, "SAME", 1),
    ((1, 5, 7, 2), (4, 3, 2, 3), 2, "SAME", 1),
    ((1, 6, 6, 2), (2, 2, 2, 3), [2, 3], "VALID", 1),
    ((1, 7, 7, 2), (3, 2, 2, 2), 1, "SAME", 2),
    ((1, 7, 8, 1), (2, 3, 1, 2), [1, 2], "VALID", [2, 1]),
    ((1, 4, 5, 2), (3, 3, 2, 2), 1, [[0, 0], [1, 2], [0, 1], [0, 0]], 1),
    ((2, 3, 3, 2), (1, 1, 2, 5), 1, "VALID", 1),
]


def _pair(v):
  return (v, v) if isinstance(v, int) else tuple(v)


@pytest.mark.parametrize("xs,ws,strides,padding,dil", CONV_CASES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_conv2d_numerics(xs, ws, strides, padding, dil, dtype):
  x, w = rand(*xs).astype(dtype), rand(*ws).astype(dtype)
  y = tf.nn.conv2d(x, w, strides, padding, dilations=dil)
  want = naive_conv2d(x.astype(np.float64), w.astype(np.float64), _pair(strides), padding,
                      _pair(dil))
  assert y.dtype == tf.as_dtype(dtype)
  assert y.shape == want.shape
  np.testing.assert_allclose(y.numpy(), want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("xs,ws,strides,padding,dil", CONV_CASES[1:7])
def test_conv2d_grads_second_order(xs, ws, strides, padding, dil):
  check_grads(lambda x, w: tf.nn.conv2d(x, w, strides, padding, dilations=dil),
              [rand(*xs), rand(*ws)], order=2)


def test_conv2d_same_padding_is_asymmetric_like_tf():
  # in=5, k=4, stride=2: out=3, pad_total=3 -> 1 before, 2 after.
  x = np.arange(5.0).reshape(1, 1, 5, 1)
  y = tf.nn.conv2d(x, np.ones((1, 4, 1, 1)), 2, "SAME")
  np.testing.assert_array_equal(y.numpy().ravel(), [3.0, 10.0, 7.0])


def test_conv2d_nchw_and_int32():
  x, w = rand(2, 5, 6, 3), rand(3, 3, 3, 4)
  y = tf.nn.conv2d(np.transpose(x, [0, 3, 1, 2]), w, [1, 1, 2, 1], "SAME", data_format="NCHW")
  want = naive_conv2d(x, w, (2, 1), "SAME")
  np.testing.assert_allclose(y.numpy(), np.transpose(want, [0, 3, 1, 2]), rtol=1e-10)
  xi, wi = np.arange(16, dtype=np.int32).reshape(1, 4, 4, 1), np.ones((2, 2, 1, 1), np.int32)
  yi = tf.nn.conv2d(xi, wi, 1, "VALID")
  assert yi.dtype == tf.int32
  np.testing.assert_array_equal(yi.numpy(), naive_conv2d(xi, wi).astype(np.int32))


def test_conv2d_transpose_is_the_input_gradient():
  x, w = rand(1, 5, 7, 2), rand(4, 3, 2, 3)
  dy = rand(1, 3, 4, 3)
  gx = tape_grads(lambda x_: tf.reduce_sum(tf.nn.conv2d(x_, w, 2, "SAME") * dy), [x])[0]
  y = tf.nn.conv2d_transpose(dy, w, [1, 5, 7, 2], 2, "SAME")
  assert y.shape == (1, 5, 7, 2)
  np.testing.assert_allclose(y.numpy(), gx, rtol=1e-10)
  check_grads(lambda d, f: tf.nn.conv2d_transpose(d, f, [1, 5, 7, 2], 2, "SAME"), [dy, w],
              order=2)


def test_conv2d_errors():
  with pytest.raises(InvalidArgumentError, match=r"input must be 4-dimensional.*Op:Conv2D"):
    tf.nn.conv2d(tf.ones([3, 3, 1]), tf.ones([2, 2, 1, 1]), 1, "VALID")
  with pytest.raises(InvalidArgumentError, match="filter must be 4-dimensional"):
    tf.nn.conv2d(tf.ones([1, 3, 3, 1]), tf.ones([2, 2, 1]), 1, "VALID")
  with pytest.raises(InvalidArgumentError, match="evenly divisible by filter depth: 3 vs 2"):
    tf.nn.conv2d(tf.ones([1, 3, 3, 3]), tf.ones([2, 2, 2, 1]), 1, "VALID")
  with pytest.raises(UnimplementedError, match="grouped"):
    tf.nn.conv2d(tf.ones([1, 3, 3, 4]), tf.ones([2, 2, 2, 1]), 1, "VALID")
  with pytest.raises(InvalidArgumentError, match=r"Computed output size would be negative: -1 "
                     r"\[input_size: 2, effective_filter_size: 4, stride: 1\]"):
    tf.nn.conv2d(tf.ones([1, 2, 2, 1]), tf.ones([4, 4, 1, 1]), 1, "VALID")
  # Like TF's eager kernel, a window one larger than the input gives an empty output.
  assert tf.nn.conv2d(tf.ones([1, 2, 2, 1]), tf.ones([3, 3, 1, 1]), 1, "VALID").shape == \
      (1, 0, 0, 1)
  with pytest.raises(InvalidArgumentError, match="padding"):
    tf.nn.conv2d(tf.ones([1, 3, 3, 1]), tf.ones([2, 2, 1, 1]), 1, "same")
  with pytest.raises(ValueError, match="strides should be of length 1, 2 or 4"):
    tf.nn.conv2d(tf.ones([1, 3, 3, 1]), tf.ones([2, 2, 1, 1]), [1, 1, 1], "VALID")
  with pytest.raises(InvalidArgumentError, match="strides in the batch and depth"):
    tf.nn.conv2d(tf.ones([1, 3, 3, 1]), tf.ones([2, 2, 1, 1]), [2, 1, 1, 1], "VALID")
  with pytest.raises(ValueError, match="size 4"):
    tf.nn.conv2d(tf.ones([1, 3, 3, 1]), tf.ones([2, 2, 1, 1]), 1, [[0, 0], [1, 1]])
  with pytest.raises(InvalidArgumentError, match="Conv2D"):
    tf.nn.conv2d(tf.ones([1, 3, 3, 1]), tf.ones([2, 2, 1, 1], tf.float64), 1, "VALID")
  with pytest.raises(ValueError, match="data_format"):
    tf.nn.conv2d(tf.ones([1, 3, 3, 1]), tf.ones([2, 2, 1, 1]), 1, "VALID", data_format="NWHC")


def test_conv2d_in_graph_infers_shapes_and_differentiates():
  @tf.function
  def f(x, w):
    with tf.GradientTape() as tape:
      tape.watch(w)
      y = tf.nn.conv2d(x, w, 2, "SAME")
      loss = tf.reduce_sum(y * y)
    return y, tape.gradient(loss, w)

  x, w = rand(2, 5, 7, 3).astype(np.float32), rand(3, 3, 3, 2).astype(np.float32)
  y, g = f(x, w)
  np.testing.assert_allclose(y.numpy(), naive_conv2d(x, w, (2, 2), "SAME"), rtol=1e-4, atol=1e-5)
  ye, ge = f.python_function(tf.constant(x), tf.constant(w))
  np.testing.assert_allclose(g.numpy(), ge.numpy(), rtol=1e-4)
  cf = f.get_concrete_function(tf.TensorSpec([None, 5, 7, 3]), tf.TensorSpec([3, 3, 3, 2]))
  assert cf.structured_outputs[0].shape.as_list() == [None, 3, 4, 2]
  with pytest.raises(ValueError, match="Negative dimension size caused by subtracting 3 from 2"):
    tf.function(lambda x: tf.nn.conv2d(x, tf.ones([3, 3, 1, 1]), 1, "VALID")).\
        get_concrete_function(tf.TensorSpec([None, 2, 2, 1]))


# ---------------------------------------------- Winograd F(2x2, 3x3) and fast paths

@pytest.fixture
def winograd_calls(monkeypatch):
  """Counts Winograd convolutions; `force()` selects it for any 3x3 stride-1 float conv."""
  from tensorlet.ops import conv_ops

  class Calls(list):
    pass

  calls = Calls()
  real = conv_ops._winograd

  def spy(*a):
    calls.append(a[0].shape)
    return real(*a)

  def force(chunk_bytes=None):
    monkeypatch.setattr(conv_ops, "_WINOGRAD_MIN_MACS", 0)
    monkeypatch.setattr(conv_ops, "_WINOGRAD_GRAD_MIN_MACS", 0)
    monkeypatch.setattr(conv_ops, "_WINOGRAD_MIN_RATIO", 0)
    if chunk_bytes is not None:
      monkeypatch.setattr(conv_ops, "_WINOGRAD_CHUNK_BYTES", chunk_bytes)

  monkeypatch.setattr(conv_ops, "_winograd", spy)
  calls.force = force
  return calls


WINOGRAD_CASES = [
    # (x shape, strides, padding, dilations, selects Winograd): odd and even output sizes,
    # every padding kind; other strides/dilations must fall back to im2col.
    ((2, 6, 6, 3), 1, "VALID", 1, True),
    ((2, 7, 6, 3), 1, "VALID", 1, True),
    ((1, 5, 8, 2), 1, "SAME", 1, True),
    ((3, 4, 3, 1), 1, "SAME", 1, True),
    ((1, 6, 5, 2), 1, [[0, 0], [2, 0], [1, 3], [0, 0]], 1, True),
    ((1, 3, 3, 2), 1, "VALID", 1, True),
    ((1, 7, 8, 2), 2, "SAME", 1, False),
    ((1, 7, 8, 2), [1, 2], "VALID", 1, False),
    ((1, 8, 8, 2), 1, "SAME", 2, False),
]


@pytest.mark.parametrize("xs,strides,padding,dil,selects", WINOGRAD_CASES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_conv2d_winograd_numerics(winograd_calls, xs, strides, padding, dil, selects, dtype):
  winograd_calls.force()
  x, w = rand(*xs).astype(dtype), rand(3, 3, xs[3], 4).astype(dtype)
  y = tf.nn.conv2d(x, w, strides, padding, dilations=dil)
  want = naive_conv2d(x.astype(np.float64), w.astype(np.float64), _pair(strides), padding,
                      _pair(dil))
  assert y.dtype == tf.as_dtype(dtype) and y.shape == want.shape
  np.testing.assert_allclose(y.numpy(), want, rtol=1e-5, atol=1e-5)
  assert bool(winograd_calls) == selects


@pytest.mark.parametrize("chunk_bytes", [1, 16 * 4 * 4 * 3, 16 * 4 * 4 * 20])
def test_conv2d_winograd_chunks(winograd_calls, chunk_bytes):
  # Chunks of one tile row, of a few whole rows (last one short), of several whole images.
  winograd_calls.force(chunk_bytes)
  x, w = rand(5, 9, 8, 4).astype(np.float32), rand(3, 3, 4, 3).astype(np.float32)
  y = tf.nn.conv2d(x, w, 1, "SAME")
  np.testing.assert_allclose(y.numpy(), naive_conv2d(x, w, (1, 1), "SAME"), rtol=1e-5,
                             atol=1e-5)
  assert winograd_calls


@pytest.mark.parametrize("chunk_bytes", [1, 16 * 5 * 8 * 2, 1 << 19])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_conv2d_winograd_column_stage_layout(winograd_calls, chunk_bytes, dtype):
  # The gemms read the input transform's columns as strided [tiles, C] views (row stride
  # 2 C, b = 0, 3 and 1, 2 from different buffers): C != O, odd widths, chunks of one
  # tile row, several rows, whole images.
  winograd_calls.force(chunk_bytes)
  x, w = rand(3, 8, 11, 5).astype(dtype), rand(3, 3, 5, 7).astype(dtype)
  for padding in ("VALID", "SAME"):
    y = tf.nn.conv2d(x, w, 1, padding)
    want = naive_conv2d(x.astype(np.float64), w.astype(np.float64), (1, 1), padding)
    np.testing.assert_allclose(y.numpy(), want, rtol=1e-5, atol=1e-5)
  assert len(winograd_calls) == 2


def test_conv2d_winograd_default_rule_and_float32_accuracy(winograd_calls):
  # Wide enough channels and work select Winograd by default; its float32 error stays at
  # the level of a float32 dot product (checked against float64).
  rng = np.random.RandomState(0)
  x = rng.standard_normal((4, 40, 39, 64)).astype(np.float32)
  w = rng.standard_normal((3, 3, 64, 64)).astype(np.float32)
  y = tf.nn.conv2d(x, w, 1, "VALID").numpy()
  assert winograd_calls
  want = naive_conv2d(x.astype(np.float64), w.astype(np.float64))
  np.testing.assert_allclose(y, want, rtol=0, atol=1e-5 * np.abs(want).max())
  # Narrow channels (transforms dominate) and int32 never select it.
  del winograd_calls[:]
  tf.nn.conv2d(rand(8, 28, 28, 16).astype(np.float32), rand(3, 3, 16, 8).astype(np.float32),
               1, "SAME")
  tf.nn.conv2d(np.ones((1, 40, 40, 64), np.int32), np.ones((3, 3, 64, 64), np.int32), 1,
               "SAME")
  assert not winograd_calls


@pytest.mark.parametrize("xs,padding", [((1, 5, 6, 2), "SAME"), ((2, 6, 5, 2), "VALID"),
                                        ((1, 5, 5, 2), [[0, 0], [0, 2], [1, 0], [0, 0]])])
def test_conv2d_winograd_grads_second_order(winograd_calls, xs, padding):
  # The forward conv and the stride-1 input gradient (a conv of the padded gradient with
  # the flipped filter) both run through Winograd.
  winograd_calls.force()
  check_grads(lambda x, w: tf.nn.conv2d(x, w, 1, padding), [rand(*xs), rand(3, 3, 2, 3)],
              order=2)
  assert len(winograd_calls) >= 2


@pytest.mark.parametrize("xs,ws,padding,dil", [
    ((1, 5, 6, 2), (3, 2, 2, 3), [[0, 0], [3, 0], [0, 2], [0, 0]], 1),  # pad beyond reach
    ((1, 6, 6, 2), (2, 3, 2, 2), [[0, 0], [1, 0], [2, 2], [0, 0]], 1),
    ((1, 7, 6, 3), (3, 2, 3, 2), "SAME", [2, 1]),
    ((2, 5, 4, 1), (3, 3, 1, 2), "VALID", 1),
])
def test_conv2d_stride1_input_gradient(xs, ws, padding, dil):
  # Stride-1 input gradients are computed as a conv of the padded gradient (pads within
  # the filter's reach) or by col2im (pads beyond it): both against the transposed naive
  # conv (the input gradient of sum(conv(x, w) * dy)).
  x, w = rand(*xs), rand(*ws)
  y = naive_conv2d(x, w, (1, 1), padding, _pair(dil))
  dy = np.random.RandomState(5).standard_normal(y.shape)
  gx = tape_grads(lambda x_: tf.reduce_sum(tf.nn.conv2d(x_, w, 1, padding, dilations=dil) * dy),
                  [x])[0]
  eps, want = 1e-6, np.zeros_like(x)
  for i in np.ndindex(x.shape):
    e = np.zeros_like(x)
    e[i] = eps
    want[i] = np.sum((naive_conv2d(x + e, w, (1, 1), padding, _pair(dil)) - y) * dy) / eps
  np.testing.assert_allclose(gx, want, rtol=1e-5, atol=1e-5)
  check_grads(lambda a, b: tf.nn.conv2d(a, b, 1, padding, dilations=dil), [x, w], order=2)


def naive_conv2d_grads(x, w, dy, strides, padding):
  """(input gradient, filter gradient) of sum(conv(x, w) * dy) by direct loops."""
  n, h, wd, c = x.shape
  kh, kw, _, o = w.shape
  if padding == "SAME":
    pads = [same_pads(h, kh, strides[0]), same_pads(wd, kw, strides[1])]
  elif padding == "VALID":
    pads = [(0, 0), (0, 0)]
  else:
    pads = [tuple(padding[1]), tuple(padding[2])]
  xp = np.pad(x, [(0, 0), pads[0], pads[1], (0, 0)])
  dxp, dw = np.zeros_like(xp), np.zeros_like(w)
  for i in range(dy.shape[1]):
    for j in range(dy.shape[2]):
      for a in range(kh):
        for b in range(kw):
          r, q = i * strides[0] + a, j * strides[1] + b
          dxp[:, r, q] += dy[:, i, j] @ w[a, b].T
          dw[a, b] += xp[:, r, q].T @ dy[:, i, j]
  return dxp[:, pads[0][0]:pads[0][0] + h, pads[1][0]:pads[1][0] + wd], dw


# Input gradients by col2im: few channels (C <= 4) as channel-major planes, more at stride 1
# as one gemm of width windows and a strided add per filter row, else as tap slabs added
# into stride-phase planes (a tap whose slab is its whole plane written by the gemm
# itself); odd sizes, SAME, VALID and explicit pads, strides 1 to 3, strides larger than
# the filter (phases no tap reaches).
@pytest.mark.parametrize("xs,ws,strides,padding", [
    ((2, 7, 9, 1), (3, 3, 1, 4), 2, "SAME"),
    ((2, 8, 7, 3), (3, 3, 3, 5), 1, "SAME"),
    ((1, 9, 8, 3), (3, 2, 3, 4), [2, 3], "VALID"),
    ((2, 7, 7, 6), (3, 3, 6, 4), 2, "SAME"),
    ((2, 8, 8, 6), (3, 3, 6, 4), 2, "SAME"),
    ((1, 10, 9, 5), (2, 3, 5, 7), 2, "VALID"),
    ((2, 6, 7, 8), (3, 3, 8, 3), 1, "VALID"),
    ((1, 11, 11, 5), (5, 4, 5, 2), 3, "SAME"),
    ((2, 4, 4, 6), (1, 1, 6, 3), 2, "VALID"),
    ((1, 45, 44, 6), (3, 3, 6, 4), 1, "VALID"),  # filter gradient on the padded grid
    ((2, 9, 8, 5), (2, 2, 5, 3), 3, "VALID"),
    ((1, 8, 9, 6), (3, 2, 6, 3), [2, 3], [[0, 0], [3, 0], [1, 2], [0, 0]]),
    ((2, 7, 6, 5), (3, 3, 5, 4), 1, [[0, 0], [0, 2], [2, 1], [0, 0]]),
    ((1, 6, 7, 6), (2, 2, 6, 3), 1, [[0, 0], [1, 0], [0, 3], [0, 0]]),  # pad beyond the filter
    ((2, 5, 9, 7), (5, 4, 7, 3), 1, "SAME"),
])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
def test_conv2d_backprops_against_naive_loops(xs, ws, strides, padding, dtype):
  rs = np.random.RandomState(7)
  x, w = rs.randint(-3, 4, xs).astype(dtype), rs.randint(-3, 4, ws).astype(dtype)
  st = _pair(strides)
  dy = rs.randint(-3, 4, naive_conv2d(x, w, st, padding).shape).astype(dtype)
  want_dx, want_dw = naive_conv2d_grads(x.astype(np.float64), w.astype(np.float64),
                                        dy.astype(np.float64), st, padding)
  dx = tf.nn.conv2d_transpose(dy, w, xs, strides, padding)
  dw = execute(conv_ops.Conv2DBackpropFilter, [tf.constant(x), tf.constant(ws), tf.constant(dy)],
               conv_ops._conv_attrs(strides, padding, None, False))
  assert dx.dtype == tf.as_dtype(dtype)
  np.testing.assert_allclose(np.asarray(dx), want_dx, rtol=1e-5)
  np.testing.assert_allclose(np.asarray(dw), want_dw, rtol=1e-5)


# Stride-1 filter gradients on the padded grid (gemms of shifted contiguous slices)
# against im2col, which they replace where the grid is hardly bigger than the output.
@pytest.mark.parametrize("xs,ws,padding,dil", [
    ((2, 7, 8, 6), (3, 3, 6, 4), "SAME", 1),
    ((2, 7, 8, 3), (3, 3, 3, 4), "SAME", 1),
    ((1, 9, 9, 5), (2, 3, 5, 3), "VALID", [2, 1]),
    ((2, 6, 7, 8), (3, 2, 8, 2), [[0, 0], [2, 1], [0, 3], [0, 0]], 1),
    ((1, 8, 7, 1), (3, 3, 1, 2), "SAME", 2),
])
@pytest.mark.parametrize("dtype", [np.float64, np.int32])
def test_padded_grid_filter_gradient_matches_im2col(monkeypatch, xs, ws, padding, dil, dtype):
  rs = np.random.RandomState(8)
  x, w = rs.randint(-3, 4, xs).astype(dtype), rs.randint(-3, 4, ws).astype(dtype)
  dy = rs.randint(-3, 4, tf.nn.conv2d(x, w, 1, padding, dilations=dil).shape).astype(dtype)
  attrs = conv_ops._conv_attrs(1, padding, dil, False)
  got = []
  for waste in (0, 100):  # never / always on the grid
    monkeypatch.setattr(conv_ops, "_FLAT_MAX_WASTE", waste)
    got.append(execute(conv_ops.Conv2DBackpropFilter, [tf.constant(x), tf.constant(ws),
                                                       tf.constant(dy)], attrs).numpy())
  np.testing.assert_allclose(got[1], got[0], rtol=1e-12, atol=1e-12)


# im2col by blocks of whole images (a block size of 2 images' rows) and of output rows
# (1 or 3 rows), forward against the naive loops, filter and (stride-1 width-window)
# input gradients against one whole block.
@pytest.mark.parametrize("block_rows", [1, 3, "2 images"])
@pytest.mark.parametrize("xs,ws,strides,padding,dil", [
    ((5, 7, 8, 6), (3, 3, 6, 4), (1, 1), "SAME", 1),
    ((4, 6, 7, 5), (2, 3, 5, 6), (1, 1), [[0, 0], [3, 0], [1, 2], [0, 0]], 1),
    ((3, 9, 8, 5), (3, 2, 5, 3), (2, 3), "VALID", 1),
    ((2, 9, 9, 7), (2, 3, 7, 2), (1, 2), [[0, 0], [2, 1], [0, 3], [0, 0]], [2, 1]),
])
@pytest.mark.parametrize("dtype", [np.float64, np.int32])
def test_im2col_blocks(monkeypatch, block_rows, xs, ws, strides, padding, dil, dtype):
  rs = np.random.RandomState(9)
  x, w = rs.randint(-3, 4, xs).astype(dtype), rs.randint(-3, 4, ws).astype(dtype)
  want = naive_conv2d(x, w, strides, padding, _pair(dil))
  dy = rs.randint(-3, 4, want.shape).astype(dtype)
  row_bytes = want.shape[2] * ws[0] * ws[1] * ws[2] * x.itemsize
  monkeypatch.setattr(conv_ops, "_IM2COL_BLOCK_BYTES", row_bytes * (
      2 * want.shape[1] if block_rows == "2 images" else block_rows))
  attrs = conv_ops._conv_attrs(strides, padding, dil, False)
  y = execute(conv_ops.Conv2D, [tf.constant(x), tf.constant(w)], attrs)
  np.testing.assert_array_equal(y.numpy(), want)
  grads = [lambda: execute(conv_ops.Conv2DBackpropFilter, [tf.constant(x), tf.constant(ws),
                                                          tf.constant(dy)], attrs),
           lambda: execute(conv_ops.Conv2DBackpropInput, [tf.constant(xs), tf.constant(w),
                                                         tf.constant(dy)], attrs)]
  blocked = [fn().numpy() for fn in grads]
  monkeypatch.setattr(conv_ops, "_IM2COL_BLOCK_BYTES", 1 << 40)  # one whole im2col / block
  for got, fn in zip(blocked, grads):
    np.testing.assert_array_equal(got, fn().numpy())


@pytest.mark.parametrize("stride", [1, 2])
def test_conv2d_zero_output_channels(stride):
  # As TF: a filter with no output channels gives an empty output, a zero input gradient
  # and an empty filter gradient (shapes checked against TF 2.21).
  x, w = tf.ones([2, 5, 5, 8]), tf.ones([3, 3, 8, 0])
  attrs = {"strides": (1, stride, stride, 1), "padding": "SAME"}
  y = tf.nn.conv2d(x, w, stride, "SAME")
  assert y.shape == (2, 5 if stride == 1 else 3, 5 if stride == 1 else 3, 0)
  dx = execute(conv_ops.Conv2DBackpropInput, [tf.constant([2, 5, 5, 8]), w, y], attrs)
  np.testing.assert_array_equal(dx.numpy(), np.zeros((2, 5, 5, 8), np.float32))
  dw = execute(conv_ops.Conv2DBackpropFilter, [x, tf.constant([3, 3, 8, 0]), y], attrs)
  assert dw.shape == (3, 3, 8, 0)


def naive_depthwise(x, w, strides, padding):
  kh, kw, c, m = w.shape
  outs = [naive_conv2d(x[..., i:i + 1], w[:, :, i:i + 1, :], strides, padding) for i in range(c)]
  return np.concatenate(outs, -1)


@pytest.mark.parametrize("strides,padding", [((1, 1), "VALID"), ((2, 2), "SAME"),
                                             ((1, 2), "SAME")])
def test_depthwise_conv2d(strides, padding):
  x, w = rand(2, 5, 6, 3), rand(3, 2, 3, 2)
  y = tf.nn.depthwise_conv2d(x, w, [1, *strides, 1], padding)
  np.testing.assert_allclose(y.numpy(), naive_depthwise(x, w, strides, padding), rtol=1e-10)
  check_grads(lambda a, b: tf.nn.depthwise_conv2d(a, b, [1, *strides, 1], padding), [x, w],
              order=2)


def test_depthwise_and_separable_errors_and_values():
  with pytest.raises(InvalidArgumentError, match="same depth"):
    tf.nn.depthwise_conv2d(tf.ones([1, 4, 4, 3]), tf.ones([2, 2, 2, 1]), [1, 1, 1, 1], "VALID")
  x, dw, pw = rand(1, 5, 5, 2), rand(3, 3, 2, 2), rand(1, 1, 4, 3)
  y = tf.nn.separable_conv2d(x, dw, pw, [1, 1, 1, 1], "SAME")
  want = naive_conv2d(naive_depthwise(x, dw, (1, 1), "SAME"), pw)
  np.testing.assert_allclose(y.numpy(), want, rtol=1e-10)


def test_conv1d_and_convolution():
  x, w = rand(2, 9, 3), rand(3, 3, 4)
  want = naive_conv2d(x[:, None], w[None], (1, 2), "SAME")[:, 0]
  y = tf.nn.conv1d(x, w, 2, "SAME")
  assert y.shape == (2, 5, 4)
  np.testing.assert_allclose(y.numpy(), want, rtol=1e-10)
  y = tf.nn.conv1d(np.transpose(x, [0, 2, 1]), w, 2, "SAME", data_format="NCW")
  np.testing.assert_allclose(y.numpy(), np.transpose(want, [0, 2, 1]), rtol=1e-10)
  np.testing.assert_allclose(tf.nn.convolution(x, w, 2, "SAME").numpy(), want, rtol=1e-10)
  np.testing.assert_allclose(tf.nn.convolution(x[:, None], w[None], 1, "VALID").numpy(),
                             naive_conv2d(x[:, None], w[None]), rtol=1e-10)
  check_grads(lambda a, b: tf.nn.conv1d(a, b, 1, "VALID", dilations=2), [x, w], order=2)
  with pytest.raises(ValueError, match="rank 3 or 4"):
    tf.nn.convolution(tf.ones([2, 3]), tf.ones([1, 1]))


# ---------------------------------------------------------------- pooling

def naive_pool(x, k, s, padding, kind):
  """Windows clipped to the input: max over, or mean of, the real elements only."""
  n, h, w, c = x.shape
  if padding == "SAME":
    (pt, _), (pl, _) = same_pads(h, k[0], s[0]), same_pads(w, k[1], s[1])
    oh, ow = math.ceil(h / s[0]), math.ceil(w / s[1])
  else:
    pt = pl = 0
    oh, ow = (h - k[0]) // s[0] + 1, (w - k[1]) // s[1] + 1
  out = np.zeros((n, oh, ow, c))
  for i in range(oh):
    for j in range(ow):
      r0, c0 = i * s[0] - pt, j * s[1] - pl
      win = x[:, max(r0, 0):r0 + k[0], max(c0, 0):c0 + k[1]]
      out[:, i, j] = win.max((1, 2)) if kind == "max" else win.mean((1, 2))
  return out


POOL_CASES = [((2, 4, 4, 3), 2, 2, "VALID"), ((1, 5, 7, 2), 3, 2, "SAME"),
              ((1, 5, 6, 2), [2, 3], [1, 2], "SAME"), ((2, 6, 5, 1), 3, 1, "VALID"),
              ((1, 4, 4, 1), 2, [1, 1, 1, 1], "SAME")]


@pytest.mark.parametrize("xs,k,s,padding", POOL_CASES)
@pytest.mark.parametrize("kind", ["max", "avg"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_pool2d_numerics(xs, k, s, padding, kind, dtype):
  x = rand(*xs).astype(dtype)
  fn = tf.nn.max_pool2d if kind == "max" else tf.nn.avg_pool2d
  y = fn(x, k, s, padding)
  kk = _pair(k) if not (isinstance(k, list) and len(k) == 4) else tuple(k[1:3])
  ss = _pair(s) if not (isinstance(s, list) and len(s) == 4) else tuple(s[1:3])
  want = naive_pool(x.astype(np.float64), kk, ss, padding, kind)
  assert y.dtype == tf.as_dtype(dtype) and y.shape == want.shape
  np.testing.assert_allclose(y.numpy(), want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("xs,k,s,padding", POOL_CASES)
@pytest.mark.parametrize("fn", [tf.nn.max_pool2d, tf.nn.avg_pool2d])
def test_pool2d_grads_second_order(xs, k, s, padding, fn):
  x = np.random.RandomState(3).permutation(np.prod(xs)).reshape(xs) / 7.0  # distinct values
  check_grads(lambda a: fn(a, k, s, padding), [x], order=2)


def test_max_pool_ties_route_to_the_first_maximum():
  g = tape_grads(lambda a: tf.nn.max_pool2d(a, 2, 2, "VALID"), [np.ones((1, 2, 4, 1))])[0]
  np.testing.assert_array_equal(g[0, :, :, 0], [[1, 0, 1, 0], [0, 0, 0, 0]])
  # Overlapping windows each send their gradient to their own first maximum.
  g = tape_grads(lambda a: tf.nn.max_pool2d(a, [1, 2], 1, "VALID"), [np.array([[1.0, 3.0, 3.0, 0.0]]).reshape(1, 1, 4, 1)])[0]
  np.testing.assert_array_equal(g.ravel(), [0, 2, 1, 0])


@pytest.mark.parametrize("xs,k,s", [((2, 4, 4, 3), 2, 2), ((1, 5, 7, 2), 2, 2),
                                    ((1, 7, 8, 2), [2, 3], 3), ((2, 6, 6, 1), 3, 3)])
def test_max_pool_grad_disjoint_windows(xs, k, s):
  # Windows that neither overlap nor reach padding write their gradient without a padded
  # buffer; uncovered rows/columns (VALID leftovers, stride > ksize) get zeros, ties go
  # to the first maximum in row-major window order.
  x = np.floor(rand(*xs) * 2) / 2  # many ties
  kk, ss = _pair(k), _pair(s)
  y = naive_pool(x, kk, ss, "VALID", "max")
  dy = np.random.RandomState(1).standard_normal(y.shape)
  want = np.zeros_like(x)
  for b, i, j, c in np.ndindex(y.shape):
    win = x[b, i * ss[0]:i * ss[0] + kk[0], j * ss[1]:j * ss[1] + kk[1], c]
    a, e = np.unravel_index(np.argmax(win), win.shape)  # argmax: the first maximum
    want[b, i * ss[0] + a, j * ss[1] + e, c] += dy[b, i, j, c]
  for dtype in (np.float32, np.float64):
    g = tape_grads(lambda a: tf.reduce_sum(tf.nn.max_pool2d(a, k, s, "VALID") * dy),
                   [x.astype(dtype)])[0]
    np.testing.assert_allclose(g, want, rtol=1e-6)
  distinct = np.random.RandomState(3).permutation(np.prod(xs)).reshape(xs) / 7.0
  check_grads(lambda a: tf.nn.max_pool2d(a, k, s, "VALID"), [distinct], order=2)


def test_max_pool_integer_and_nchw():
  xi = np.arange(-8, 8, dtype=np.int32).reshape(1, 4, 4, 1)
  y = tf.nn.max_pool2d(xi, 3, 2, "SAME")
  assert y.dtype == tf.int32
  np.testing.assert_array_equal(y.numpy(), naive_pool(xi, (3, 3), (2, 2), "SAME", "max"))
  x = rand(2, 5, 5, 3)
  for fn, kind in [(tf.nn.max_pool2d, "max"), (tf.nn.avg_pool2d, "avg")]:
    y = fn(np.transpose(x, [0, 3, 1, 2]), 2, 2, "SAME", data_format="NCHW")
    np.testing.assert_allclose(y.numpy(), np.transpose(naive_pool(x, (2, 2), (2, 2), "SAME", kind),
                                                      [0, 3, 1, 2]))


def test_pool1d_and_rank_dispatch():
  x = rand(2, 7, 3)
  want_max = naive_pool(x[:, None], (1, 3), (1, 2), "SAME", "max")[:, 0]
  want_avg = naive_pool(x[:, None], (1, 3), (1, 2), "SAME", "avg")[:, 0]
  np.testing.assert_allclose(tf.nn.max_pool1d(x, 3, 2, "SAME").numpy(), want_max)
  np.testing.assert_allclose(tf.nn.avg_pool1d(x, 3, 2, "SAME").numpy(), want_avg)
  np.testing.assert_allclose(tf.nn.max_pool(x, 3, 2, "SAME").numpy(), want_max)
  np.testing.assert_allclose(tf.nn.avg_pool(x, [3], [2], "SAME").numpy(), want_avg)
  y = tf.nn.max_pool1d(np.transpose(x, [0, 2, 1]), 3, 2, "SAME", data_format="NCW")
  np.testing.assert_allclose(y.numpy(), np.transpose(want_max, [0, 2, 1]))
  x4 = rand(1, 4, 4, 2)
  np.testing.assert_allclose(tf.nn.max_pool(x4, 2, 2, "VALID").numpy(),
                             naive_pool(x4, (2, 2), (2, 2), "VALID", "max"))
  with pytest.raises(ValueError, match="rank"):
    tf.nn.max_pool(tf.ones([1, 2, 2, 2, 1]), 2, 2, "VALID")


def test_pool_errors():
  with pytest.raises(InvalidArgumentError, match=r"input must be 4-dimensional.*Op:MaxPool"):
    tf.nn.max_pool2d(tf.ones([4, 4, 1]), 2, 2, "VALID")
  with pytest.raises(InvalidArgumentError, match="Computed output size would be negative"):
    tf.nn.avg_pool2d(tf.ones([1, 2, 2, 1]), 4, 1, "VALID")
  with pytest.raises(InvalidArgumentError, match="batch or depth"):
    tf.nn.max_pool2d(tf.ones([2, 4, 4, 1]), [2, 2, 2, 1], 1, "VALID")
  with pytest.raises(InvalidArgumentError, match="padding"):
    tf.nn.avg_pool2d(tf.ones([1, 4, 4, 1]), 2, 2, "EXPLICIT")
  with pytest.raises(InvalidArgumentError, match="AvgPool"):
    tf.nn.avg_pool2d(tf.ones([1, 4, 4, 1], tf.int32), 2, 2, "VALID")


def test_pool_in_graph():
  f = tf.function(lambda x: (tf.nn.max_pool2d(x, 2, 2, "SAME"), tf.nn.avg_pool2d(x, 3, 1, "SAME")))
  x = rand(2, 5, 5, 3).astype(np.float32)
  m, a = f(x)
  np.testing.assert_allclose(m.numpy(), naive_pool(x, (2, 2), (2, 2), "SAME", "max"))
  np.testing.assert_allclose(a.numpy(), naive_pool(x, (3, 3), (1, 1), "SAME", "avg"), rtol=1e-6)
  cf = f.get_concrete_function(tf.TensorSpec([None, 5, 5, 3]))
  assert cf.structured_outputs[0].shape.as_list() == [None, 3, 3, 3]
