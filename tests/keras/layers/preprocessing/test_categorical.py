"""CategoryEncoding, Hashing, StringLookup, IntegerLookup: NumPy references, configs,
models, datasets, saving, vocabulary files and Keras 2's errors."""
import json
import os

import numpy as np
import pytest

import tensorlet as tf

L = tf.keras.layers
HERE = os.path.dirname(os.path.abspath(__file__))


def _roundtrip(layer):
  config = layer.get_config()
  clone = type(layer).from_config(config)
  assert clone.get_config() == config
  return clone


# ----------------------------------------------------------- NumPy references
def test_category_encoding_matches_numpy():
  rng = np.random.RandomState(0)
  ids = rng.randint(0, 7, size=(5, 4))
  weights = rng.rand(5, 4).astype(np.float32)
  counts = np.zeros((5, 7), np.float32)
  weighted = np.zeros((5, 7), np.float32)
  for r in range(5):
    for c in range(4):
      counts[r, ids[r, c]] += 1
      weighted[r, ids[r, c]] += weights[r, c]
  np.testing.assert_array_equal(L.CategoryEncoding(7, output_mode="count")(ids).numpy(), counts)
  np.testing.assert_array_equal(L.CategoryEncoding(7)(ids).numpy(), (counts > 0).astype("f4"))
  np.testing.assert_allclose(L.CategoryEncoding(7, output_mode="count")(
      ids, count_weights=weights).numpy(), weighted, rtol=1e-6)
  np.testing.assert_array_equal(L.CategoryEncoding(7, output_mode="one_hot")(ids[:, 0]).numpy(),
                                np.eye(7, dtype="f4")[ids[:, 0]])
  sp = L.CategoryEncoding(7, output_mode="count", sparse=True)(ids)
  np.testing.assert_array_equal(tf.sparse.to_dense(sp).numpy(), counts)


def test_string_lookup_matches_python_dict():
  rng = np.random.RandomState(1)
  vocab = [f"w{i}" for i in range(50)]
  tokens = np.array([f"w{i}" for i in rng.randint(0, 70, size=(8, 6))])
  index = {w: i + 2 for i, w in enumerate(vocab)}  # mask "" at 0, OOV at 1
  want = np.vectorize(lambda t: 0 if t == "" else index.get(t, 1))(tokens)
  layer = L.StringLookup(vocabulary=vocab, mask_token="")
  np.testing.assert_array_equal(layer(tokens).numpy(), want)
  back = L.StringLookup(vocabulary=vocab, mask_token="", invert=True)(want).numpy()
  expect = np.vectorize(lambda t: t if t in index else "[UNK]")(tokens)
  assert np.vectorize(bytes.decode, otypes=[object])(back).tolist() == expect.tolist()


def test_integer_lookup_adapt_ranks_by_count_then_value():
  rng = np.random.RandomState(2)
  data = rng.randint(0, 30, size=(40, 5))
  values, counts = np.unique(data, return_counts=True)
  order = sorted(zip(counts.tolist(), values.tolist()), reverse=True)[:9]
  layer = L.IntegerLookup(max_tokens=10)
  layer.adapt(data, batch_size=7)
  assert layer.get_vocabulary() == [-1] + [v for _, v in order]
  index = {v: i + 1 for i, (_, v) in enumerate(order)}
  np.testing.assert_array_equal(layer(data).numpy(), np.vectorize(lambda v: index.get(v, 0))(data))


def test_tf_idf_adapt_matches_formula():
  docs = [["a", "b", "a"], ["c"], ["a", "d", "d", "d"], ["b", "b"]]
  layer = L.StringLookup(output_mode="tf_idf")
  layer.adapt(tf.ragged.constant(docs))
  vocab = layer.get_vocabulary()
  df = {t: sum(t in d for d in docs) for t in vocab[1:]}
  idf = np.array([np.log(1 + 4 / (1 + df[t])) for t in vocab[1:]], np.float32)
  np.testing.assert_allclose(layer.idf_weights.numpy(), np.r_[idf.mean(), idf], rtol=1e-6)
  out = layer(tf.constant([["a", "a", "zz", "d"]])).numpy()
  tf_ = np.zeros(len(vocab), np.float32)
  for t in ["a", "a", "zz", "d"]:
    tf_[vocab.index(t) if t in vocab else 0] += 1
  np.testing.assert_allclose(out[0], tf_ * np.r_[idf.mean(), idf], rtol=1e-6)


def test_hashing_matches_to_hash_bucket():
  strings = np.array([["a"], ["bc"], ["a much longer string of text"], [""]])
  want = tf.strings.to_hash_bucket_fast(strings, 10).numpy()
  np.testing.assert_array_equal(L.Hashing(10)(strings).numpy(), want)
  salted = tf.strings.to_hash_bucket_strong(strings, 9, [5, 5]).numpy() + 1
  got = L.Hashing(10, salt=5, mask_value="")(strings).numpy()
  np.testing.assert_array_equal(got, np.where(strings == "", 0, salted))
  ints = np.array([[1, 22, 333]])
  np.testing.assert_array_equal(
      L.Hashing(4)(ints).numpy(),
      tf.strings.to_hash_bucket_fast(tf.strings.as_string(ints), 4).numpy())


# -------------------------------------------------------------------- configs
@pytest.mark.parametrize("make", [
    lambda: L.CategoryEncoding(5, output_mode="count", sparse=True),
    lambda: L.Hashing(8, mask_value="", salt=[1, 2], output_mode="multi_hot"),
    lambda: L.StringLookup(vocabulary=["a", "b"], mask_token="", num_oov_indices=2),
    lambda: L.StringLookup(vocabulary=["a", "b"], output_mode="tf_idf", idf_weights=[.5, .2]),
    lambda: L.IntegerLookup(vocabulary=[3, 4], invert=True),
    lambda: L.IntegerLookup(max_tokens=5, output_mode="count", pad_to_max_tokens=True),
], ids=["category", "hashing", "string", "tf_idf", "integer_invert", "integer_count"])
def test_config_round_trip(make):
  layer = make()
  clone = _roundtrip(layer)
  if hasattr(layer, "get_vocabulary"):
    assert clone.get_vocabulary() == layer.get_vocabulary()


def test_adapted_config_keeps_vocabulary_size():
  layer = L.StringLookup(output_mode="multi_hot")
  layer.adapt(["a", "b", "b"])
  config = layer.get_config()
  assert config["vocabulary"] is None and config["vocabulary_size"] == 3
  x = L.Input((2,), dtype="string")
  assert L.StringLookup.from_config(config)(x).shape == (None, 3)


# ------------------------------------------------- models, functions, datasets
def test_in_functional_model_dataset_map_and_function():
  lookup = L.StringLookup(vocabulary=["a", "b", "c"], output_mode="count")
  x = L.Input((None,), dtype="string")
  y = L.Dense(2, kernel_initializer="ones")(lookup(x))
  model = tf.keras.Model(x, y)
  assert model.output_shape == (None, 2)
  data = np.array([["a", "c", "c"], ["z", "b", "a"]])
  np.testing.assert_allclose(model(data).numpy(), [[3, 3], [3, 3]])
  ds = tf.data.Dataset.from_tensor_slices(data).batch(2).map(lookup)
  np.testing.assert_array_equal(next(iter(ds)).numpy(), [[0, 1, 0, 2], [1, 1, 1, 0]])
  ints = tf.data.Dataset.from_tensor_slices(np.array([3, 9, 4])).map(
      L.IntegerLookup(vocabulary=[4, 3]))
  assert [int(v) for v in ints] == [2, 0, 1]
  model.compile("sgd", "mse")
  model.fit(data, np.zeros((2, 2)), epochs=1, verbose=0)


def test_traced_function_sees_later_adapt():
  layer = L.StringLookup()
  layer.adapt(["a"])
  f = tf.function(lambda x: layer(x))
  np.testing.assert_array_equal(f(tf.constant(["a", "b"])).numpy(), [1, 0])
  layer.adapt(["b", "b", "a"])
  np.testing.assert_array_equal(f(tf.constant(["a", "b"])).numpy(), [2, 1])


def test_vocabulary_files(tmp_path):
  path = tmp_path / "vocab.txt"
  path.write_text("x\ny\nz\n")
  layer = L.StringLookup(vocabulary=str(path), mask_token="")
  np.testing.assert_array_equal(layer(np.array(["y", "q", "", "z"])).numpy(), [3, 1, 0, 4])
  assert layer.get_vocabulary() == ["", "[UNK]", "x", "y", "z"]
  assert layer.get_config()["vocabulary"] == str(path)
  inverse = L.StringLookup(vocabulary=str(path), invert=True)
  assert inverse(np.array([0, 1, 3])).numpy().tolist() == [b"[UNK]", b"x", b"z"]
  ipath = tmp_path / "ints.txt"
  ipath.write_text("7\n9\n")
  ints = L.IntegerLookup(vocabulary=str(ipath))
  np.testing.assert_array_equal(ints(np.array([9, 7, 3])).numpy(), [2, 1, 0])
  with pytest.raises(ValueError, match="does not exist"):
    L.StringLookup(vocabulary=str(tmp_path / "missing.txt"))


def test_keras_file_round_trip(tmp_path):
  words = L.Input((None,), dtype="string")
  lookup = L.StringLookup(output_mode="tf_idf")
  lookup.adapt(np.array([["a", "b"], ["a", "c"]]))
  ints = L.IntegerLookup(max_tokens=4)
  ints.adapt(np.array([5, 5, 6, 9, 9, 9]))
  ids = L.Input((2,), dtype="int64")
  model = tf.keras.Model([words, ids], [lookup(words), ints(ids), L.Hashing(3)(words)])
  path = str(tmp_path / "m.keras")
  model.save(path)
  loaded = tf.keras.models.load_model(path)
  inputs = [np.array([["a", "q"], ["c", "c"]]), np.array([[9, 1], [5, 6]])]
  for a, b in zip(model(inputs), loaded(inputs)):
    np.testing.assert_allclose(a.numpy(), b.numpy())
  assert loaded.layers[2].get_vocabulary() == lookup.get_vocabulary() or \
      any(getattr(layer, "get_vocabulary", lambda: None)() == lookup.get_vocabulary()
          for layer in loaded.layers)


def test_loads_keras2_file():
  """A model tf_keras 2.21 saved (make_preprocessing_model_fixture.py) loads with its
  adapted vocabularies and gives Keras' outputs."""
  model = tf.keras.models.load_model(os.path.join(HERE, "keras2_lookup_model.keras"))
  with open(os.path.join(HERE, "keras2_lookup_model.json")) as f:
    want = json.load(f)
  outs = model([tf.constant(x) for x in want["inputs"]])
  for got, ref in zip(outs, want["outputs"]):
    np.testing.assert_allclose(got.numpy(), np.array(ref), rtol=1e-6)
  assert model.get_layer("lookup").get_vocabulary() == ["[UNK]", "a", "c", "b"]


# --------------------------------------------------------------------- errors
@pytest.mark.parametrize("make,match", [
    (lambda: L.StringLookup(max_tokens=1), "max_tokens"),
    (lambda: L.StringLookup(pad_to_max_tokens=True), "pad_to_max_tokens"),
    (lambda: L.StringLookup(num_oov_indices=-1), "num_oov_indices"),
    (lambda: L.StringLookup(output_mode="foo"), "output_mode"),
    (lambda: L.StringLookup(invert=True, output_mode="multi_hot"), "invert"),
    (lambda: L.StringLookup(sparse=True), "sparse"),
    (lambda: L.StringLookup(vocabulary=["a"], idf_weights=[1.0]), "idf_weights"),
    (lambda: L.StringLookup(vocabulary=["a"], output_mode="tf_idf"), "idf_weights"),
    (lambda: L.StringLookup(dtype="float32"), "dtype"),
    (lambda: L.StringLookup(vocabulary=[]), "empty vocabulary"),
    (lambda: L.StringLookup(vocabulary=["a", "b", "a"]), "repeated"),
    (lambda: L.StringLookup(vocabulary=["a", "", "b"], mask_token=""), "mask token"),
    (lambda: L.StringLookup(vocabulary=["a", "b", "c"], max_tokens=3), "larger than"),
    (lambda: L.IntegerLookup(vocabulary_dtype="string"), "integer dtype"),
    (lambda: L.IntegerLookup(max_tokens=1), "max_tokens"),
    (lambda: L.CategoryEncoding(), "num_tokens must be set"),
    (lambda: L.CategoryEncoding(0), "num_tokens"),
    (lambda: L.CategoryEncoding(3, output_mode="int"), "output_mode"),
    (lambda: L.Hashing(0), "num_bins"),
    (lambda: L.Hashing(3, salt="x"), "salt"),
    (lambda: L.Hashing(3, sparse=True), "sparse"),
])
def test_constructor_errors(make, match):
  with pytest.raises(ValueError, match=match):
    make()


def test_call_errors_leave_state_unchanged():
  layer = L.StringLookup(vocabulary=["a", "b"], num_oov_indices=0)
  with pytest.raises(tf.errors.InvalidArgumentError, match="found OOV values"):
    layer(np.array(["a", "zz"]))
  with pytest.raises(tf.errors.InvalidArgumentError, match="found OOV values"):
    tf.function(lambda x: layer(x))(tf.constant(["zz"]))
  np.testing.assert_array_equal(layer(np.array(["b", "a"])).numpy(), [1, 0])
  with pytest.raises(tf.errors.FailedPreconditionError):
    L.StringLookup()(np.array(["a"]))
  with pytest.raises(RuntimeError, match="must set the layer's vocabulary"):
    L.StringLookup(output_mode="multi_hot")(np.array(["a"]))
  multi = L.StringLookup(vocabulary=["a", "b"], output_mode="multi_hot")
  with pytest.raises(RuntimeError, match="cannot be changed"):
    multi.set_vocabulary(["a", "b", "c"])
  assert multi.get_vocabulary() == ["[UNK]", "a", "b"]
  with pytest.raises(ValueError, match="Cannot adapt"):
    L.StringLookup(vocabulary=["a"]).adapt(["a"])
  with pytest.raises(ValueError, match="maximum supported output rank is 2"):
    L.StringLookup(vocabulary=["a"], output_mode="one_hot")(np.array([["a", "b"]]))
  encode = L.CategoryEncoding(4)
  with pytest.raises(tf.errors.InvalidArgumentError, match="0 <= values < num_tokens"):
    encode(np.array([0, 4]))
  with pytest.raises(tf.errors.InvalidArgumentError, match="0 <= values < num_tokens"):
    encode(np.array([-1, 2]))
  with pytest.raises(ValueError, match="count_weights"):
    encode(np.array([[0, 1]]), count_weights=np.array([[1.0, 2.0]]))


def test_vocabulary_travels_with_checkpoints_and_saved_models(tmp_path):
  layer = L.StringLookup()
  layer.adapt(["q", "q", "r"])
  assert layer.weights == []  # as Keras 2: the table is no weight
  path = tf.train.Checkpoint(s=layer).save(str(tmp_path / "ckpt" / "c"))
  fresh = L.StringLookup()
  tf.train.Checkpoint(s=fresh).restore(path)
  assert fresh.get_vocabulary() == ["[UNK]", "q", "r"]
  np.testing.assert_array_equal(fresh(tf.constant(["r", "q", "z"])).numpy(), [2, 1, 0])

  class Module(tf.Module):
    def __init__(self):
      super().__init__()
      self.lookup = L.StringLookup(vocabulary=["a", "b"])
      self.text = L.TextVectorization(vocabulary=["x", "y"], output_sequence_length=3)

    @tf.function(input_signature=[tf.TensorSpec([None], tf.string)])
    def f(self, x):
      return self.lookup(x), self.text(x)

  tf.saved_model.save(Module(), str(tmp_path / "sm"))
  ids, seq = tf.saved_model.load(str(tmp_path / "sm")).f(tf.constant(["b", "y x q"]))
  np.testing.assert_array_equal(ids.numpy(), [2, 0])
  np.testing.assert_array_equal(seq.numpy(), [[1, 0, 0], [3, 2, 1]])


@pytest.mark.parametrize("make,data", [
    (lambda: L.CategoryEncoding(5, output_mode="count"), np.array([[0, 4, 4], [1, 2, 3]])),
    (lambda: L.Hashing(6, salt=9, output_mode="multi_hot"), np.array([["a", "b"], ["c", ""]])),
    (lambda: L.StringLookup(vocabulary=["a", "c"], num_oov_indices=2),
     np.array([["a", "b"], ["c", "zz"]])),
    (lambda: L.IntegerLookup(vocabulary=[4, 2], mask_token=0, invert=True),
     np.array([[0, 1, 2], [3, 4, 5]])),
], ids=["category", "hashing", "string", "integer"])
def test_each_layer_in_dataset_map_and_functional_model(make, data, tmp_path):
  layer = make()
  eager = layer(data).numpy()
  mapped = np.stack(list(tf.data.Dataset.from_tensor_slices(data).map(layer).as_numpy_iterator()))
  np.testing.assert_array_equal(mapped, eager)
  x = L.Input(data.shape[1:], dtype=tf.as_dtype(data.dtype) if data.dtype.kind != "U"
              else "string")
  model = tf.keras.Model(x, layer(x))
  np.testing.assert_array_equal(model(data).numpy(), eager)
  model.save(str(tmp_path / "m.keras"))
  loaded = tf.keras.models.load_model(str(tmp_path / "m.keras"))
  np.testing.assert_array_equal(loaded(data).numpy(), eager)


def test_hashed_crossing_model_dataset_config_and_errors(tmp_path):
  layer = L.HashedCrossing(num_bins=7, output_mode="one_hot")
  ints, words = np.array([[1], [2], [2]]), np.array([["a"], ["b"], ["b"]])
  eager = layer((ints, words)).numpy()
  assert eager.shape == (3, 7) and (eager.sum(1) == 1).all()
  np.testing.assert_array_equal(eager[1], eager[2])  # equal pairs share a bin
  clone = _roundtrip(layer)
  np.testing.assert_array_equal(clone((ints, words)).numpy(), eager)
  ds = tf.data.Dataset.from_tensor_slices((ints, words)).batch(3).map(lambda a, b: layer((a, b)))
  np.testing.assert_array_equal(next(iter(ds)).numpy(), eager)
  a, b = L.Input((1,), dtype="int64"), L.Input((1,), dtype="string")
  model = tf.keras.Model([a, b], layer((a, b)))
  assert model.output_shape == (None, 7)
  model.save(str(tmp_path / "cross.keras"))
  loaded = tf.keras.models.load_model(str(tmp_path / "cross.keras"))
  np.testing.assert_array_equal(loaded([ints, words]).numpy(), eager)
  cross = L.HashedCrossing(5)
  for bad, match in [(np.array([1]), "list or tuple"), ((np.array([1]),), "at least two"),
                     ((np.array([[1, 2]]), np.array([[1, 2]])), "should have shape"),
                     ((np.array([1.0]), np.array([1.0])), "integer or string dtype"),
                     ((np.array([1]), np.array([[1]])), "equal shape")]:
    with pytest.raises(ValueError, match=match):
      cross(bad)
  with pytest.raises(ValueError, match="output_mode"):
    L.HashedCrossing(3, output_mode="count")


def test_structured_data_tutorial_flow():
  """The structured-data tutorial: lookups adapted on a dict dataset's columns, encoded,
  concatenated; the model is fed dicts by Input name (values from tf_keras 2.21)."""
  rng = np.random.RandomState(0)
  n = 64
  data = {"Type": rng.choice(["Cat", "Dog"], n), "Breed": rng.choice(list("ABCDE"), n),
          "Age": rng.randint(1, 10, n).astype("int64"), "Fee": rng.rand(n).astype("float32")}
  ds = tf.data.Dataset.from_tensor_slices((dict(data), rng.randint(0, 2, n))).batch(16)
  inputs, encoded = [], []
  for name, dtype in [("Type", "string"), ("Breed", "string"), ("Age", "int64")]:
    col = tf.keras.Input(shape=(1,), name=name, dtype=dtype)
    index = L.StringLookup(max_tokens=5) if dtype == "string" else L.IntegerLookup(max_tokens=5)
    index.adapt(ds.map(lambda x, y, name=name: x[name]))
    encoder = L.CategoryEncoding(num_tokens=index.vocabulary_size())
    inputs.append(col)
    encoded.append(encoder(index(col)))
  assert [e.shape.as_list() for e in encoded] == [[None, 3], [None, 5], [None, 5]]
  x = L.Dense(4, activation="relu", kernel_initializer="ones")(L.concatenate(encoded))
  model = tf.keras.Model(inputs, L.Dense(1, kernel_initializer="ones")(x))
  feed = {k: v[:4].reshape(-1, 1) for k, v in data.items() if k != "Fee"}
  np.testing.assert_allclose(model(feed).numpy().ravel(), [12.0] * 4)
  model.compile("adam", tf.keras.losses.BinaryCrossentropy(from_logits=True))
  assert len(model.fit(ds, epochs=2, verbose=0).history["loss"]) == 2
