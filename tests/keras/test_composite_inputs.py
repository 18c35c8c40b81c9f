"""Keras 2 models on RaggedTensor and SparseTensor inputs: Input(ragged=True /
sparse=True / type_spec=...), Embedding, global pooling (with Embedding's
mask_zero), Dense, RNN layers, KerasTensor methods of ragged inputs, fit /
evaluate / predict, config round trips and saving. Values against NumPy
(behaviour checked against tf_keras 2.21)."""
import os

import numpy as np
import pytest

import tensorlet as tf

TABLE = np.arange(20.0, dtype=np.float32).reshape(10, 2)
IDS = [[1, 0, 3], [4], [2, 2]]


def ids():
  return tf.ragged.constant(IDS, dtype=tf.int32)


def embedding(**kw):
  return tf.keras.layers.Embedding(
      10, 2, embeddings_initializer=tf.keras.initializers.Constant(TABLE), **kw)


# ------------------------------------------------------------------ Input
def test_ragged_input_specs_as_keras_2():
  x = tf.keras.Input(shape=(None,), dtype=tf.int32, ragged=True, name="tokens")
  assert type(x).__name__ == "RaggedKerasTensor"
  assert x.type_spec == tf.RaggedTensorSpec([None, None], tf.int32, 1)
  assert x.shape.as_list() == [None, None] and x.dtype == tf.int32 and x.ragged_rank == 1
  assert repr(x) == ("<KerasTensor: type_spec=RaggedTensorSpec(TensorShape([None, None]), "
                     "tf.int32, 1, tf.int64) (created by layer 'tokens')>")
  assert str(x) == ("KerasTensor(type_spec=RaggedTensorSpec(TensorShape([None, None]), "
                    "tf.int32, 1, tf.int64), name='tokens', description=\"created by layer "
                    "'tokens'\")")
  # the ragged dims: all up to the last unknown one
  assert tf.keras.Input(shape=(None, 3), ragged=True).ragged_rank == 1
  assert tf.keras.Input(shape=(2, None), ragged=True).ragged_rank == 2
  assert tf.keras.Input(shape=(None, None), ragged=True).ragged_rank == 2
  t = tf.keras.Input(type_spec=tf.RaggedTensorSpec([None, None], tf.float32, 1))
  assert t.type_spec == tf.RaggedTensorSpec([None, None], tf.float32, 1)


def test_sparse_input_and_errors():
  s = tf.keras.Input(shape=(5,), sparse=True)
  assert type(s).__name__ == "SparseKerasTensor"
  assert repr(s).startswith("<KerasTensor: type_spec=SparseTensorSpec(TensorShape([None, 5]), "
                            "tf.float32)")
  with pytest.raises(ValueError, match="Cannot set both `sparse` and `ragged`"):
    tf.keras.Input(shape=(3,), sparse=True, ragged=True)
  with pytest.raises(ValueError, match="type_spec"):
    tf.keras.Input(shape=(3,), type_spec=tf.SparseTensorSpec([None, 3]))


# ------------------------------------------------- Embedding and pooling
def _mean_rows(rows):
  return np.stack([TABLE[r].mean(0) for r in rows])


def test_embedding_then_global_pooling_on_ragged():
  inp = tf.keras.Input(shape=(None,), dtype=tf.int32, ragged=True)
  e = embedding()(inp)
  assert e.type_spec == tf.RaggedTensorSpec([None, None, 2], tf.float32, 1)
  avg = tf.keras.layers.GlobalAveragePooling1D()(e)
  mx = tf.keras.layers.GlobalMaxPooling1D()(e)
  keep = tf.keras.layers.GlobalAveragePooling1D(keepdims=True)(e)
  assert avg.shape.as_list() == [None, 2] and keep.shape.as_list() == [None, 1, 2]
  m = tf.keras.Model(inp, [avg, mx, keep])
  a, b, k = m(ids())
  np.testing.assert_allclose(a.numpy(), _mean_rows(IDS))
  np.testing.assert_allclose(b.numpy(), np.stack([TABLE[r].max(0) for r in IDS]))
  np.testing.assert_allclose(k.numpy(), _mean_rows(IDS)[:, None])
  emb = embedding()(ids())
  assert isinstance(emb, tf.RaggedTensor)
  assert emb.to_list()[0] == TABLE[IDS[0]].tolist()


def test_mask_zero_masks_the_pooling():
  inp = tf.keras.Input(shape=(None,), dtype=tf.int32, ragged=True)
  e = embedding(mask_zero=True)(inp)
  assert e._keras_mask.type_spec == tf.RaggedTensorSpec([None, None], tf.bool, 1)
  m = tf.keras.Model(inp, tf.keras.layers.GlobalAveragePooling1D()(e))
  want = _mean_rows([[r for r in row if r != 0] for row in IDS])
  np.testing.assert_allclose(m(ids()).numpy(), want)


def test_gradients_through_ragged_embedding_and_pooling():
  layer = embedding()
  pool = tf.keras.layers.GlobalAveragePooling1D()
  w = np.array([1.0, -2.0], np.float32)
  with tf.GradientTape() as tape:
    loss = tf.reduce_sum(pool(layer(ids())) * w)
  g = tape.gradient(loss, layer.embeddings)
  g = tf.convert_to_tensor(g).numpy()
  want = np.zeros_like(TABLE)
  for row in IDS:
    for k in row:
      want[k] += w / len(row)
  np.testing.assert_allclose(g, want, rtol=1e-6)


def test_embedding_of_sparse_ids_as_keras_2():
  inp = tf.keras.Input(shape=(4,), sparse=True, dtype=tf.int64)
  out = embedding()(inp)
  m = tf.keras.Model(inp, out)
  sp = tf.sparse.SparseTensor([[0, 1], [1, 3]], tf.constant([2, 5], tf.int64), [2, 4])
  dense_ids = np.zeros([2, 4], np.int64)
  dense_ids[0, 1], dense_ids[1, 3] = 2, 5
  np.testing.assert_allclose(m(sp).numpy(), TABLE[dense_ids])  # missing positions: row 0


# ------------------------------------------------------------------- Dense
def test_dense_on_ragged_keeps_rows():
  inp = tf.keras.Input(shape=(None, 3), ragged=True)
  layer = tf.keras.layers.Dense(2, kernel_initializer="ones", bias_initializer="ones")
  out = layer(inp)
  assert out.type_spec == tf.RaggedTensorSpec([None, None, 2], tf.float32, 1)
  rt = tf.RaggedTensor.from_row_lengths(np.arange(9.0, dtype=np.float32).reshape(3, 3), [2, 1])
  got = tf.keras.Model(inp, out)(rt)
  assert got.row_lengths().numpy().tolist() == [2, 1]
  np.testing.assert_allclose(got.flat_values.numpy(),
                             np.arange(9.0).reshape(3, 3) @ np.ones([3, 2]) + 1)
  with pytest.raises(ValueError, match="last dimension of the inputs to a Dense layer"):
    tf.keras.layers.Dense(2)(tf.keras.Input(shape=(None, None), ragged=True))


def test_dense_on_sparse_fit_predict_evaluate():
  inp = tf.keras.Input(shape=(5,), sparse=True)
  layer = tf.keras.layers.Dense(2, kernel_initializer="ones")
  m = tf.keras.Model(inp, layer(inp))
  x = tf.sparse.SparseTensor([[0, 1], [1, 4], [2, 0], [2, 2]], [2.0, 3.0, 1.0, 1.0], [3, 5])
  dense = tf.sparse.to_dense(x).numpy()
  np.testing.assert_allclose(m(x).numpy(), dense @ np.ones([5, 2]))
  np.testing.assert_allclose(m.predict(x, batch_size=2, verbose=0), dense @ np.ones([5, 2]))
  m.compile("sgd", "mse")
  y = np.ones([3, 2], np.float32)
  before = m.evaluate(x, y, verbose=0)
  np.testing.assert_allclose(before, ((dense @ np.ones([5, 2]) - 1) ** 2).mean(), rtol=1e-6)
  tf.keras.utils.set_random_seed(0)
  m.fit(x, y, batch_size=1, shuffle=True, epochs=3, verbose=0)
  # the kernel moved only in the rows of features present in the data
  k = layer.kernel.numpy()
  assert np.all(k[3] == 1.0) and np.all(k[1] != 1.0)
  assert m.evaluate(x, y, verbose=0) < before


# --------------------------------------------------------------------- RNN
def test_rnn_on_ragged_runs_each_row_to_its_length():
  rt = tf.ragged.constant([[[1.0], [2.0]], [[3.0]]], ragged_rank=1)
  kw = dict(kernel_initializer="ones", recurrent_initializer="ones")

  def ref(row):
    h, out = 0.0, []
    for v in row:
      h = np.tanh(v + h)
      out.append(h)
    return out
  seq = tf.keras.layers.SimpleRNN(1, return_sequences=True, **kw)(rt)
  assert isinstance(seq, tf.RaggedTensor)
  np.testing.assert_allclose(seq.flat_values.numpy()[:, 0], ref([1, 2]) + ref([3]), rtol=1e-6)
  back = tf.keras.layers.SimpleRNN(1, return_sequences=True, go_backwards=True, **kw)(rt)
  np.testing.assert_allclose(back.flat_values.numpy()[:, 0], ref([2, 1]) + ref([3]), rtol=1e-6)
  last, state = tf.keras.layers.SimpleRNN(1, return_state=True, **kw)(rt)
  np.testing.assert_allclose(last.numpy()[:, 0], [ref([1, 2])[-1], ref([3])[-1]], rtol=1e-6)
  np.testing.assert_allclose(state.numpy(), last.numpy())
  inp = tf.keras.Input(shape=(None, 1), ragged=True)
  out = tf.keras.layers.LSTM(3)(inp)
  assert out.shape.as_list() == [None, 3]
  assert tf.keras.Model(inp, out)(rt).shape == [2, 3]


# ------------------------------------------------- KerasTensor operations
def test_ragged_keras_tensor_methods_and_ops():
  inp = tf.keras.Input(shape=(None, 3), ragged=True)
  dense = inp.to_tensor()
  assert dense.shape.as_list() == [None, None, 3]
  assert dense._keras_history[0].name.startswith("input.to_tensor")
  lengths = inp.row_lengths()
  summed = tf.reduce_sum(inp, axis=1)
  assert summed.shape.as_list() == [None, 3]
  flat = inp.flat_values
  m = tf.keras.Model(inp, [dense, lengths, summed, flat])
  rt = tf.RaggedTensor.from_row_lengths(np.arange(9.0, dtype=np.float32).reshape(3, 3), [2, 1])
  d, n, s, f = m(rt)
  np.testing.assert_allclose(d.numpy(), rt.to_tensor().numpy())
  assert n.numpy().tolist() == [2, 1]
  np.testing.assert_allclose(s.numpy(), [[3.0, 5.0, 7.0], [6.0, 7.0, 8.0]])
  np.testing.assert_allclose(f.numpy(), np.arange(9.0).reshape(3, 3))
  first = tf.keras.Model(inp, inp[:, :1])(rt)
  assert first.to_list() == [[[0.0, 1.0, 2.0]], [[6.0, 7.0, 8.0]]]


# -------------------------------------------- training, config and saving
def _text_model():
  inp = tf.keras.Input(shape=(None,), dtype=tf.int32, ragged=True)
  x = embedding(mask_zero=True)(inp)
  x = tf.keras.layers.GlobalAveragePooling1D()(x)
  return tf.keras.Model(inp, tf.keras.layers.Dense(1, kernel_initializer="ones")(x))


def test_fit_evaluate_predict_on_ragged():
  m = _text_model()
  want = _mean_rows([[r for r in row if r != 0] for row in IDS]).sum(1, keepdims=True)
  np.testing.assert_allclose(m.predict(ids(), batch_size=2, verbose=0), want, rtol=1e-6)
  m.compile(tf.keras.optimizers.SGD(0.001), "mse")
  y = np.zeros([3, 1], np.float32)
  before = m.evaluate(ids(), y, verbose=0)
  np.testing.assert_allclose(before, (want ** 2).mean(), rtol=1e-5)
  tf.keras.utils.set_random_seed(1)
  hist = m.fit(ids(), y, batch_size=2, shuffle=True, epochs=2, verbose=0)
  assert len(hist.history["loss"]) == 2
  ds = tf.data.Dataset.from_tensor_slices((ids(), y)).batch(2)
  m.fit(ds, verbose=0)
  assert m.evaluate(ids(), y, verbose=0) < before


def test_config_round_trip_and_saving(tmp_path):
  m = _text_model()
  cfg = m.get_config()
  first = cfg["layers"][0]
  assert first["class_name"] == "InputLayer"
  assert first["config"]["ragged"] is True and first["config"]["sparse"] is False
  again = tf.keras.Model.from_config(cfg)
  assert again.inputs[0].type_spec == tf.RaggedTensorSpec([None, None], tf.int32, 1)
  again.set_weights(m.get_weights())
  np.testing.assert_allclose(again(ids()).numpy(), m(ids()).numpy())
  path = os.path.join(tmp_path, "text.keras")
  m.save(path)
  loaded = tf.keras.models.load_model(path)
  np.testing.assert_allclose(loaded(ids()).numpy(), m(ids()).numpy())
  layer = tf.keras.layers.InputLayer(input_shape=(4,), sparse=True)
  assert tf.keras.layers.InputLayer.from_config(layer.get_config()).sparse is True
  seq = tf.keras.Sequential([tf.keras.layers.InputLayer(input_shape=(None,), ragged=True,
                                                        dtype=tf.int32),
                             embedding(), tf.keras.layers.GlobalMaxPooling1D()])
  np.testing.assert_allclose(seq(ids()).numpy(), np.stack([TABLE[r].max(0) for r in IDS]))


def test_saved_model_of_ragged_and_sparse_input_models(tmp_path):
  m = _text_model()
  path = os.path.join(tmp_path, "ragged_sm")
  tf.saved_model.save(m, path)
  loaded = tf.saved_model.load(path)
  np.testing.assert_allclose(loaded(ids()).numpy(), m(ids()).numpy())
  serve = loaded.signatures["serving_default"]
  # as TF: a signature takes the ragged input as its component tensors
  assert sorted(serve.structured_input_signature[1]) == ["args_0", "args_0_1"]
  out = serve(args_0=ids().flat_values, args_0_1=ids().row_splits)
  np.testing.assert_allclose(list(out.values())[0].numpy(), m(ids()).numpy())
  keras_path = os.path.join(tmp_path, "ragged_km")
  m.save(keras_path)
  np.testing.assert_allclose(tf.keras.models.load_model(keras_path)(ids()).numpy(),
                             m(ids()).numpy())
  inp = tf.keras.Input(shape=(5,), sparse=True)
  ms = tf.keras.Model(inp, tf.keras.layers.Dense(2)(inp))
  tf.saved_model.save(ms, os.path.join(tmp_path, "sparse_sm"))
  back = tf.saved_model.load(os.path.join(tmp_path, "sparse_sm"))
  x = tf.sparse.SparseTensor([[0, 1], [1, 4]], [2.0, 3.0], [2, 5])
  np.testing.assert_allclose(back(x).numpy(), ms(x).numpy())
  assert sorted(back.signatures["serving_default"].structured_input_signature[1]) == \
      ["args_0", "args_0_1", "args_0_2"]


# ------------------------------------------------ more layers on ragged rows
def _frames():
  return tf.RaggedTensor.from_row_lengths(
      np.arange(12, dtype=np.float32).reshape(6, 2) / 10, [2, 3, 1])


def test_dropout_time_distributed_layer_norm_on_ragged():
  x = _frames()
  tf.keras.utils.set_random_seed(3)
  d = tf.keras.layers.Dropout(0.5)(x, training=True)
  assert d.row_lengths().numpy().tolist() == [2, 3, 1]
  v, dv = x.flat_values.numpy(), d.flat_values.numpy()
  assert np.all((dv == 0) | np.isclose(dv, 2 * v))
  assert tf.keras.layers.Dropout(0.5)(x).to_list() == x.to_list()
  td = tf.keras.layers.TimeDistributed(tf.keras.layers.Dense(3, kernel_initializer="ones"))
  out = td(x)
  assert out.row_lengths().numpy().tolist() == [2, 3, 1]
  np.testing.assert_allclose(out.flat_values.numpy(), v @ np.ones([2, 3]) + 0, rtol=1e-6)
  ln = tf.keras.layers.LayerNormalization(epsilon=1e-3)(x)
  want = (v - v.mean(1, keepdims=True)) / np.sqrt(v.var(1, keepdims=True) + 1e-3)
  np.testing.assert_allclose(ln.flat_values.numpy(), want, rtol=1e-4, atol=1e-5)
  inp = tf.keras.Input(shape=(None, 2), ragged=True)
  assert tf.keras.layers.TimeDistributed(tf.keras.layers.Dense(3))(inp).type_spec == \
      tf.RaggedTensorSpec([None, None, 3], tf.float32, 1)


def test_bidirectional_on_ragged_matches_rowwise_runs():
  x = _frames()
  kw = dict(kernel_initializer="ones", recurrent_initializer="ones")
  bi = tf.keras.layers.Bidirectional(tf.keras.layers.SimpleRNN(1, return_sequences=True, **kw))
  out = bi(x)
  assert out.row_lengths().numpy().tolist() == [2, 3, 1]

  def run(row):
    h, hs = 0.0, []
    for v in row:
      h = np.tanh(v.sum() + h)
      hs.append(h)
    return hs
  fwd, bwd = [], []
  for row in x.to_list():
    row = np.asarray(row)
    fwd += run(row)
    bwd += run(row[::-1])[::-1]  # the backward outputs re-reversed to the time order
  np.testing.assert_allclose(out.flat_values.numpy(), np.stack([fwd, bwd], 1), rtol=1e-5)
  last = tf.keras.layers.Bidirectional(tf.keras.layers.SimpleRNN(1, **kw))(x)
  assert last.shape == [3, 2]


def test_embedding_with_sparse_outputs():
  e = embedding(sparse=True)
  sp = tf.sparse.SparseTensor([[0, 1], [1, 3]], tf.constant([2, 4], tf.int64), [2, 4])
  out = e(sp)
  assert isinstance(out, tf.SparseTensor)
  assert out.indices.numpy().tolist() == [[0, 1, 0], [0, 1, 1], [1, 3, 0], [1, 3, 1]]
  assert out.values.numpy().tolist() == TABLE[[2, 4]].reshape(-1).tolist()
  assert out.dense_shape.numpy().tolist() == [2, 4, 2]
  dense_in = e(tf.constant([[0, 1]]))
  np.testing.assert_allclose(tf.sparse.to_dense(dense_in).numpy(), TABLE[[[0, 1]]])
  assert "sparse" not in e.get_config()  # as Keras 2


def test_validation_data_of_composite_inputs():
  m = _text_model()
  m.compile(tf.keras.optimizers.SGD(0.0), "mse")  # no step: val_loss is the held-out loss
  y = np.zeros([3, 1], np.float32)
  held_out = tf.ragged.constant(IDS[1:], dtype=tf.int32)
  hist = m.fit(ids(), y, validation_data=(held_out, y[1:]), verbose=0)
  np.testing.assert_allclose(hist.history["val_loss"][0],
                             m.evaluate(held_out, y[1:], verbose=0), rtol=1e-6)
  inp = tf.keras.Input(shape=(5,), sparse=True)
  ms = tf.keras.Model(inp, tf.keras.layers.Dense(1, kernel_initializer="ones")(inp))
  ms.compile(tf.keras.optimizers.SGD(0.0), "mse")
  x = tf.sparse.SparseTensor([[0, 1], [1, 4], [2, 2], [3, 0]], [1.0, 2.0, 3.0, 4.0], [4, 5])
  y4 = np.ones([4, 1], np.float32)
  hist = ms.fit(x, y4, validation_data=(x, y4), verbose=0)
  np.testing.assert_allclose(hist.history["val_loss"][0],
                             ((np.array([1.0, 2.0, 3.0, 4.0]) - 1) ** 2).mean(), rtol=1e-6)
  # as Keras 2: validation_split takes arrays and dense tensors only
  with pytest.raises(ValueError, match="`validation_split` is only supported for Tensors"):
    m.fit(ids(), y, validation_split=0.34, verbose=0)
  with pytest.raises(ValueError, match="`validation_split` is only supported for Tensors"):
    ms.fit(x, y4, validation_split=0.5, verbose=0)


# ------------------------------------------------------------- Flatten
def test_flatten_of_ragged_as_keras_2():
  # Keras 2 reshapes the flat values to (nrows, -1), as tf.reshape of a RaggedTensor does
  x = tf.keras.Input(shape=(None, 2), ragged=True)
  y = tf.keras.layers.Flatten()(x)
  assert type(y).__name__ == "KerasTensor" and y.shape.as_list() == [None, None]
  rt3 = tf.ragged.constant([[[1., 2.]], [], [[4., 5.], [6., 7.]]], ragged_rank=1)
  out = tf.keras.Model(x, y)(rt3)
  np.testing.assert_array_equal(out.numpy(), [[1., 2.], [4., 5.], [6., 7.]])
  assert tf.keras.layers.Flatten()(rt3).shape.as_list() == [3, 2]
  sym = tf.keras.layers.Flatten()(tf.keras.Input(shape=(None,), ragged=True))
  assert sym.shape.as_list() == [None, None]
  with pytest.raises(tf.errors.InvalidArgumentError,
                     match="5 values, but the requested shape requires a multiple of 3"):
    tf.keras.layers.Flatten()(tf.ragged.constant([[1., 2., 3.], [], [4., 5.]]))
