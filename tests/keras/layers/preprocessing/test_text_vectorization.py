"""TextVectorization against a Python reference, in models and datasets, through
configs and .keras files, with Keras 2's errors."""
import re

import numpy as np
import pytest

import tensorlet as tf

L = tf.keras.layers
TEXTS = ["The Cat sat on the mat.", "The dog, the cat & the BIRD!", "it's a dog's life",
         "Mat? mat; MAT"]
PUNCT = re.compile(r'[!"#$%&()\*\+,-\./:;<=>?@\[\\\]^_`{|}~\']')


def _tokens(text):
  return PUNCT.sub("", text.lower()).split()


def _reference_vocab(texts, max_tokens=None):
  counts = {}
  for t in texts:
    for w in _tokens(t):
      counts[w] = counts.get(w, 0) + 1
  ranked = [w for _, w in sorted(((c, w) for w, c in counts.items()), reverse=True)]
  vocab = ["", "[UNK]"] + ranked
  return vocab[:max_tokens] if max_tokens else vocab


def test_int_mode_matches_python_reference():
  layer = L.TextVectorization(max_tokens=8, output_sequence_length=6)
  layer.adapt(TEXTS)
  vocab = _reference_vocab(TEXTS, 8)
  assert layer.get_vocabulary() == vocab
  assert layer.vocabulary_size() == 8
  query = ["the MAT and the dog!", "Cat"]
  want = np.zeros((2, 6), np.int64)
  for r, q in enumerate(query):
    ids = [vocab.index(w) if w in vocab else 1 for w in _tokens(q)][:6]
    want[r, :len(ids)] = ids
  np.testing.assert_array_equal(layer(query).numpy(), want)
  np.testing.assert_array_equal(layer(np.array([[q] for q in query])).numpy(), want)


def test_count_and_bigrams_match_python_reference():
  layer = L.TextVectorization(output_mode="count", ngrams=2)
  layer.adapt(TEXTS)
  vocab = layer.get_vocabulary()
  grams = lambda ws: ws + [" ".join(p) for p in zip(ws, ws[1:])]  # noqa: E731
  assert "the cat" in vocab and "mat mat" in vocab
  out = layer(["the cat sat the cat"]).numpy()[0]
  want = np.zeros(len(vocab), np.float32)
  for g in grams(_tokens("the cat sat the cat")):
    want[vocab.index(g) if g in vocab else vocab.index("[UNK]")] += 1
  np.testing.assert_array_equal(out, want)


def test_callables_ragged_and_character_split():
  layer = L.TextVectorization(standardize=lambda x: tf.strings.regex_replace(x, "[0-9]", ""),
                              split=lambda x: tf.strings.split(x, sep=","), ragged=True)
  layer.adapt(["a1,b,b", "c2,a"])
  assert layer.get_vocabulary() == ["", "[UNK]", "b", "a", "c"]
  out = layer(["b,z", "a,a,c"])
  assert isinstance(out, tf.RaggedTensor)
  assert out.to_list() == [[2, 1], [3, 3, 4]]
  chars = L.TextVectorization(split="character", standardize=None)
  chars.adapt(["abba", "cab"])
  assert chars.get_vocabulary() == ["", "[UNK]", "b", "a", "c"]
  np.testing.assert_array_equal(chars(["cb", "a"]).numpy(), [[4, 2], [3, 0]])


def test_adapt_on_dataset_and_use_in_models():
  ds = tf.data.Dataset.from_tensor_slices(TEXTS).batch(2)
  layer = L.TextVectorization(max_tokens=20, output_sequence_length=5)
  layer.adapt(ds)
  assert layer.get_vocabulary() == _reference_vocab(TEXTS, 20)
  mapped = tf.data.Dataset.from_tensor_slices(TEXTS).batch(2).map(layer)
  batches = list(mapped.as_numpy_iterator())
  np.testing.assert_array_equal(np.concatenate(batches), layer(TEXTS).numpy())
  text = L.Input((1,), dtype="string")
  ids = layer(text)
  assert ids.shape == (None, 5)
  emb = L.GlobalAveragePooling1D()(L.Embedding(20, 3)(ids))
  model = tf.keras.Model(text, L.Dense(1)(emb))
  model.compile("adam", "mse")
  history = model.fit(np.array([[t] for t in TEXTS]), np.ones((4, 1)), epochs=2, verbose=0)
  assert len(history.history["loss"]) == 2
  multi = L.TextVectorization(vocabulary=["cat", "dog"], output_mode="multi_hot")
  assert multi(L.Input((1,), dtype="string")).shape == (None, 3)


def test_config_and_keras_file_round_trip(tmp_path):
  layer = L.TextVectorization(max_tokens=10, ngrams=(1, 2), output_mode="tf_idf")
  layer.adapt(TEXTS)
  config = layer.get_config()
  clone = L.TextVectorization.from_config(config)
  # The clone has no vocabulary yet, but knows its size (for its output shape).
  assert {**clone.get_config(), "vocabulary_size": 10} == config
  assert clone(L.Input((1,), dtype="string")).shape == (None, 10)
  text = L.Input((1,), dtype="string")
  model = tf.keras.Model(text, layer(text))
  path = str(tmp_path / "tv.keras")
  model.save(path)
  loaded = tf.keras.models.load_model(path)
  query = np.array([["the cat and the mat"], ["dog"]])
  np.testing.assert_allclose(loaded(query).numpy(), model(query).numpy(), rtol=1e-6)


def test_registered_callable_survives_serialization():
  @tf.keras.utils.register_keras_serializable(package="prep_test")
  def no_digits(x):
    return tf.strings.regex_replace(x, "[0-9]", "")

  layer = L.TextVectorization(standardize=no_digits, vocabulary=["ab", "c"])
  from tensorlet.keras.saving import serialization_lib
  clone = serialization_lib.deserialize_keras_object(
      serialization_lib.serialize_keras_object(layer))
  np.testing.assert_array_equal(clone(["a1b c9"]).numpy(), [[2, 3]])


@pytest.mark.parametrize("kwargs,match", [
    (dict(standardize="upper"), "standardize"),
    (dict(split="comma"), "split"),
    (dict(output_mode="one_hot"), "output_mode"),
    (dict(ngrams=[1, 2]), "ngrams"),
    (dict(output_mode="count", output_sequence_length=3), "output_sequence_length"),
    (dict(output_mode="count", ragged=True), "ragged"),
    (dict(ragged=True, output_sequence_length=3), "output_sequence_length"),
    (dict(dtype="int32"), "dtype of string"),
])
def test_constructor_errors(kwargs, match):
  with pytest.raises(ValueError, match=match):
    L.TextVectorization(**kwargs)


def test_call_errors():
  layer = L.TextVectorization(vocabulary=["a"])
  with pytest.raises(ValueError, match="last shape dimension must be 1"):
    layer(np.array([["a", "b"]]))
  with pytest.raises(RuntimeError, match="inside a `tf.function`"):
    tf.function(lambda: L.TextVectorization().adapt(["a"]))()
