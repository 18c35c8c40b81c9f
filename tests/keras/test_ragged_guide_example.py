"""The Keras example of TensorFlow's ragged tensor guide, run unchanged: hashed
words of split sentences (a RaggedTensor) into Input(ragged=True) -> Embedding ->
LSTM -> Dense, compiled and fitted. The hashed ids are those real TF 2.21 prints."""
import numpy as np

import tensorlet as tf

SENTENCES = ['What makes you think she is a witch?', 'She turned me into a newt.',
             'A newt?', 'Well, I got better.']
# tf.strings.to_hash_bucket_fast(tf.strings.split(SENTENCES, ' '), 1000) in TF 2.21
TF_HASHED = [[940, 203, 668, 387, 790, 320, 939, 185], [315, 515, 791, 181, 939, 787],
             [564, 205], [820, 180, 993, 739]]


def _model(hash_buckets):
  return tf.keras.Sequential([
      tf.keras.layers.Input(shape=[None], dtype=tf.int64, ragged=True),
      tf.keras.layers.Embedding(hash_buckets, 16),
      tf.keras.layers.LSTM(32, use_bias=False),
      tf.keras.layers.Dense(32),
      tf.keras.layers.Activation(tf.nn.relu),
      tf.keras.layers.Dense(1)
  ])


def test_guide_keras_example_end_to_end():
  tf.random.set_seed(0)
  sentences = tf.constant(SENTENCES)
  is_question = tf.constant([True, False, True, False])
  hash_buckets = 1000
  words = tf.strings.split(sentences, ' ')
  hashed_words = tf.strings.to_hash_bucket_fast(words, hash_buckets)
  assert isinstance(hashed_words, tf.RaggedTensor) and hashed_words.dtype == tf.int64
  assert hashed_words.to_list() == TF_HASHED

  keras_model = _model(hash_buckets)
  keras_model.compile(loss='binary_crossentropy', optimizer='rmsprop')
  history = keras_model.fit(hashed_words, is_question, epochs=5, verbose=0)
  losses = history.history["loss"]
  assert len(losses) == 5 and all(np.isfinite(losses)) and losses[-1] < losses[0]
  predicted = keras_model.predict(hashed_words, verbose=0)
  assert predicted.shape == (4, 1) and predicted.dtype == np.float32

  # Each ragged row runs through the LSTM as its own unpadded sequence.
  for i, row in enumerate(TF_HASHED):
    alone = keras_model(np.array([row], np.int64)).numpy()
    np.testing.assert_allclose(predicted[i], alone[0], rtol=1e-5, atol=1e-6)
