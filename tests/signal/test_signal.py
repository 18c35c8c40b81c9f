"""tf.signal behaviour beyond the op table: stft round trips, windows, mel
filters, argument checks with TF's error types, graphs and gradients."""
import numpy as np
import pytest

import tensorlet as tf

IAE = tf.errors.InvalidArgumentError
rng = np.random.RandomState(0)
SIG = rng.randn(2, 300).astype(np.float32)


def test_stft_inverse_round_trip_with_inverse_window():
  s = tf.signal.stft(SIG, 64, 16)
  back = tf.signal.inverse_stft(s, 64, 16,
                                window_fn=tf.signal.inverse_stft_window_fn(16)).numpy()
  # the first and last frame_length - frame_step samples lack full overlap
  np.testing.assert_allclose(back[:, 48:-60], SIG[:, 48:back.shape[1] - 60], atol=1e-5)


def test_stft_shapes_and_defaults():
  assert tf.signal.stft(SIG, 50, 10).shape == [2, 26, 33]  # fft_length = 64
  assert tf.signal.stft(SIG, 50, 10, pad_end=True).shape == [2, 30, 33]
  assert tf.signal.stft(SIG, 50, 10, fft_length=128).dtype == tf.complex64
  assert tf.signal.stft(SIG.astype(np.float64), 50, 10).dtype == tf.complex128


def test_windows():
  np.testing.assert_allclose(tf.signal.hann_window(4).numpy(), [0, 0.5, 1, 0.5], atol=1e-7)
  np.testing.assert_allclose(tf.signal.hann_window(4, periodic=False).numpy(),
                             0.5 - 0.5 * np.cos(2 * np.pi * np.arange(4) / 3), atol=1e-7)
  # odd lengths: periodic or not, as TF
  np.testing.assert_allclose(tf.signal.hann_window(5).numpy(), [0, 0.5, 1, 0.5, 0], atol=1e-7)
  np.testing.assert_allclose(tf.signal.hamming_window(1).numpy(), [1.0])
  assert tf.signal.hamming_window(6, dtype=tf.float64).dtype == tf.float64
  with pytest.raises(ValueError, match="floating point"):
    tf.signal.hann_window(4, dtype=tf.int32)


def test_mel_matrix_properties():
  m = tf.signal.linear_to_mel_weight_matrix(10, 129, 16000, 100.0, 7000.0).numpy()
  assert m.shape == (129, 10) and m.dtype == np.float32
  assert np.all(m >= 0) and np.all(m[0] == 0)
  peaks = m.argmax(0)
  assert np.all(np.diff(peaks) > 0)  # filters ordered by frequency
  with pytest.raises(ValueError, match="Nyquist"):
    tf.signal.linear_to_mel_weight_matrix(upper_edge_hertz=5000.0)
  with pytest.raises(ValueError, match="lower_edge_hertz"):
    tf.signal.linear_to_mel_weight_matrix(lower_edge_hertz=4000.0, upper_edge_hertz=3000.0)


@pytest.mark.parametrize("call,err,pattern", [
    (lambda: tf.signal.fft(tf.zeros([4])), IAE, "not in the list of allowed values"),
    (lambda: tf.signal.rfft(tf.zeros([4], tf.int32)), ValueError, "RFFT requires"),
    (lambda: tf.signal.irfft(tf.zeros([4])), ValueError, "IRFFT requires"),
    (lambda: tf.signal.rfft2d(tf.zeros([4])), ValueError, "at least rank 2"),
    (lambda: tf.signal.frame(tf.constant(1.0), 2, 1), ValueError, "at least rank 1"),
    (lambda: tf.signal.overlap_and_add(tf.zeros([3]), 2), ValueError, "at least rank 2"),
    (lambda: tf.signal.dct(tf.zeros([4]), type=5), ValueError, "supported"),
    (lambda: tf.signal.dct(tf.zeros([4, 4]), axis=0), NotImplementedError, "axis must be -1"),
    (lambda: tf.signal.dct(tf.zeros([4]), type=1, norm="ortho"), ValueError,
     "not supported for the Type-I DCT"),
    (lambda: tf.signal.dct(tf.zeros([4], tf.int32)), TypeError, "float32 and float64"),
    (lambda: tf.signal.inverse_stft(tf.zeros([3, 5]), 8, 2), ValueError, "complex"),
    (lambda: tf.signal.mdct(tf.zeros([16]), 6), ValueError, "multiple of 4"),
])
def test_errors(call, err, pattern):
  with pytest.raises(err, match=pattern):
    call()


def test_fft_graph_error_is_type_error():
  with pytest.raises(TypeError):
    tf.function(lambda x: tf.signal.fft(x))(tf.zeros([4]))


def test_rfft_unknown_length_in_function():
  f = tf.function(lambda x: tf.signal.irfft(tf.signal.rfft(x)),
                  input_signature=[tf.TensorSpec([None, None])])
  x = rng.randn(3, 10).astype(np.float32)
  np.testing.assert_allclose(f(x).numpy(), x, atol=1e-5)


def test_spectrogram_gradient_in_function_matches_eager():
  x = tf.constant(SIG[:1, :120].astype(np.float64))

  def loss(v):
    with tf.GradientTape() as tape:
      tape.watch(v)
      mag = tf.abs(tf.signal.stft(v, 32, 8))
      y = tf.reduce_sum(tf.signal.mfccs_from_log_mel_spectrograms(tf.math.log(mag + 1.0)))
    return tape.gradient(y, v)
  eager = loss(x).numpy()
  traced = tf.function(loss)(x).numpy()
  assert np.abs(eager).sum() > 0
  np.testing.assert_allclose(traced, eager, rtol=1e-10, atol=1e-12)


def test_fft_second_order_gradient():
  x = tf.constant(rng.randn(6))
  with tf.GradientTape() as t2:
    t2.watch(x)
    with tf.GradientTape() as t1:
      t1.watch(x)
      y = tf.reduce_sum(tf.abs(tf.signal.rfft(x)) ** 2)  # Parseval: quadratic in x
    g = t1.gradient(y, x)
  h = t2.jacobian(g, x).numpy()
  f = np.fft.rfft(np.eye(6), axis=0)  # y = x^T A x with A = Re(F^H F)
  np.testing.assert_allclose(h, 2 * np.real(f.conj().T @ f), rtol=1e-10, atol=1e-10)
