"""fit/evaluate/predict options against hand computations: class_weight, sample_weight,
validation_freq, initial_epoch, steps_per_epoch / validation_steps, generators,
keras.utils.Sequence, the *_on_batch methods, metrics_names, reset_metrics."""
import warnings

import numpy as np
import pytest

import tensorlet as tf

K = tf.keras
rng = np.random.default_rng(7)
X = rng.standard_normal((10, 3)).astype(np.float32)
W = rng.standard_normal((3, 1)).astype(np.float32)
B = np.array([0.25], np.float32)
Y = rng.standard_normal((10, 1)).astype(np.float32)
LABELS = np.array([0, 1, 1, 0, 2, 1, 0, 2, 2, 1])


def _linear(lr=0.1, metrics=("mae",), run_eagerly=False):
  model = K.Sequential([K.layers.Dense(1, input_shape=(3,))])
  model.set_weights([W, B])
  model.compile(K.optimizers.SGD(lr), "mse", metrics=list(metrics), run_eagerly=run_eagerly)
  return model


def test_on_batch_methods_against_numpy():
  model = _linear()
  assert model.metrics_names == []  # nothing built before the first batch
  pred = X @ W + B
  loss, mae = model.test_on_batch(X, Y)
  np.testing.assert_allclose(loss, ((pred - Y) ** 2).mean(), rtol=1e-5)
  np.testing.assert_allclose(mae, np.abs(pred - Y).mean(), rtol=1e-5)
  assert model.metrics_names == ["loss", "mae"]
  np.testing.assert_allclose(model.predict_on_batch(X), pred, rtol=1e-5)
  sw = np.linspace(0.0, 2.0, 10).astype(np.float32)
  logs = model.train_on_batch(X, Y, sample_weight=sw, return_dict=True)
  err = pred - Y
  np.testing.assert_allclose(logs["loss"], (sw[:, None] * err ** 2).sum() / 10, rtol=1e-5)
  grad_w = 2 * X.T @ (sw[:, None] * err) / 10
  grad_b = 2 * (sw[:, None] * err).sum(0) / 10
  np.testing.assert_allclose(model.get_weights()[0], W - 0.1 * grad_w, rtol=1e-5, atol=1e-6)
  np.testing.assert_allclose(model.get_weights()[1], B - 0.1 * grad_b, rtol=1e-5, atol=1e-6)
  # reset_metrics=False keeps accumulating; reset_metrics() zeroes every metric
  model = _linear(metrics=())
  first = model.test_on_batch(X[:5], Y[:5])
  both = model.test_on_batch(X[5:], Y[5:], reset_metrics=False)
  np.testing.assert_allclose(both, ((pred - Y) ** 2).mean(), rtol=1e-5)
  assert isinstance(first, float)  # one metric: a scalar, as Keras
  model.reset_metrics()
  assert all(float(v.numpy().sum()) == 0.0 for m in model.metrics for v in m.variables)


def test_class_weight_equals_the_matching_sample_weight():
  cw = {0: 1.0, 1: 3.0, 2: 0.5}
  weights = np.array([cw[c] for c in LABELS], np.float32)

  def run(**kwargs):
    tf.random.set_seed(3)
    model = K.Sequential([K.layers.Dense(3, input_shape=(3,))])
    model.set_weights([np.ones((3, 3), np.float32) * 0.1, np.zeros(3, np.float32)])
    model.compile(K.optimizers.SGD(0.1), K.losses.SparseCategoricalCrossentropy(True))
    h = model.fit(X, LABELS, batch_size=4, epochs=2, verbose=0, **kwargs)
    return model.get_weights()[0], h.history["loss"]
  w1, l1 = run(class_weight=cw)
  w2, l2 = run(sample_weight=weights)
  np.testing.assert_allclose(w1, w2, rtol=1e-6)
  np.testing.assert_allclose(l1, l2, rtol=1e-6)
  # one-hot targets use their argmax; the first batch's loss by hand
  model = K.Sequential([K.layers.Dense(3, input_shape=(3,))])
  model.set_weights([np.ones((3, 3), np.float32) * 0.1, np.zeros(3, np.float32)])
  model.compile(K.optimizers.SGD(0.1), K.losses.CategoricalCrossentropy(True))
  onehot = np.eye(3, dtype=np.float32)[LABELS]
  loss = model.train_on_batch(X, onehot, class_weight=cw)
  np.testing.assert_allclose(loss, np.log(3.0) * weights.sum() / 10, rtol=1e-5)
  with pytest.raises(ValueError, match="only supported for Models with a single output"):
    inp = K.Input((3,))
    two = K.Model(inp, [K.layers.Dense(1)(inp), K.layers.Dense(1)(inp)])
    two.compile("sgd", "mse")
    two.fit(X, [Y, Y], class_weight={0: 1.0}, verbose=0)


def test_validation_freq_initial_epoch_and_split():
  model = _linear()
  h = model.fit(X, Y, epochs=4, validation_data=(X, Y), validation_freq=2, verbose=0)
  assert len(h.history["loss"]) == 4 and len(h.history["val_loss"]) == 2
  h = model.fit(X, Y, epochs=4, validation_split=0.2, validation_freq=[1, 4], verbose=0)
  assert len(h.history["val_loss"]) == 2 and len(h.history["val_mae"]) == 2
  h = model.fit(X, Y, epochs=5, initial_epoch=3, verbose=0)
  assert h.epoch == [3, 4] and len(h.history["loss"]) == 2
  # the last fraction validates: val_loss is the loss on it after the epoch
  model = _linear(lr=0.0)
  h = model.fit(X, Y, epochs=1, validation_split=0.3, shuffle=False, verbose=0)
  pred = X[7:] @ W + B
  np.testing.assert_allclose(h.history["val_loss"][0], ((pred - Y[7:]) ** 2).mean(), rtol=1e-5)
  with pytest.raises(ValueError, match="`validation_freq` can not be less than 1"):
    model.fit(X, Y, validation_freq=0, verbose=0)
  with pytest.raises(ValueError, match="must be an Integer or `collections.abc.Container`"):
    model.fit(X, Y, validation_freq="2", verbose=0)


class _Recorder(K.Model):
  """A linear model whose train_step records the first feature of each batch."""

  def __init__(self):
    super().__init__()
    self.dense = K.layers.Dense(1)
    self.seen = []

  def call(self, x):
    return self.dense(x)

  def train_step(self, data):
    self.seen.append(float(data[0][0, 0].numpy()))
    return super().train_step(data)


def test_steps_per_epoch_continues_the_array_stream():
  x = np.arange(10, dtype=np.float32)[:, None]
  model = _Recorder()
  model.compile("sgd", "mse", run_eagerly=True)
  model.fit(x, x, batch_size=2, epochs=3, steps_per_epoch=2, shuffle=False, verbose=0)
  # five batches a pass: epoch 2 goes on where epoch 1 stopped, epoch 3 starts pass 2
  assert model.seen == [0.0, 2.0, 4.0, 6.0, 8.0, 0.0]
  # 12 steps over three 5-batch passes (one per epoch, as Keras 2)
  model.seen = []
  h = model.fit(x, x, batch_size=2, epochs=3, steps_per_epoch=4, shuffle=False, verbose=0)
  assert model.seen == [0.0, 2.0, 4.0, 6.0, 8.0, 0.0, 2.0, 4.0, 6.0, 8.0, 0.0, 2.0]
  assert len(h.history["loss"]) == 3
  # 18 steps asked of 15 batches: the third epoch gets 3 and training stops there
  model.seen = []
  with pytest.warns(UserWarning, match="Your input ran out of data"):
    h = model.fit(x, x, batch_size=2, epochs=3, steps_per_epoch=6, shuffle=False, verbose=0)
  assert len(model.seen) == 15 and len(h.history["loss"]) == 3
  # evaluate and predict stop at the end of the arrays, whatever `steps` says
  with pytest.warns(UserWarning, match="ran out of data"):
    assert model.predict(x, batch_size=2, steps=7, verbose=0).shape == (10, 1)


def _gen(n, with_y=True):
  for i in range(n):
    xb = X[i % 10:i % 10 + 1]
    yield (xb, Y[i % 10:i % 10 + 1]) if with_y else xb


def test_generators_for_fit_evaluate_predict():
  model = _linear(lr=0.0)
  h = model.fit(_gen(6), steps_per_epoch=3, epochs=2, verbose=0)
  assert len(h.history["loss"]) == 2
  pred = X @ W + B
  np.testing.assert_allclose(h.history["loss"][1], ((pred[3:6] - Y[3:6]) ** 2).mean(),
                             rtol=1e-5)
  loss = model.evaluate(_gen(4), verbose=0)[0]
  np.testing.assert_allclose(loss, ((pred[:4] - Y[:4]) ** 2).mean(), rtol=1e-5)
  np.testing.assert_allclose(model.predict(_gen(3, with_y=False), verbose=0), pred[:3],
                             rtol=1e-5, atol=1e-6)
  np.testing.assert_allclose(model.predict(_gen(9, with_y=False), steps=2, verbose=0),
                             pred[:2], rtol=1e-5, atol=1e-6)
  # a generator without steps is one epoch; the next finds it empty and training stops
  # there (Keras 2 logs that empty epoch with its reset metrics)
  with pytest.warns(UserWarning, match="ran out of data"):
    h = model.fit(_gen(5), epochs=3, verbose=0)
  assert h.epoch == [0, 1] and h.history["loss"][1] == 0.0
  with pytest.raises(ValueError, match="`sample_weight` argument is not supported when using "
                                       "python generator"):
    model.fit(_gen(2), sample_weight=np.ones(2), verbose=0)


class _Batches(K.utils.Sequence):
  def __init__(self, n_batches=3, size=2):
    super().__init__()
    self.n, self.size, self.ends, self.asked = n_batches, size, 0, []

  def __len__(self):
    return self.n

  def __getitem__(self, i):
    self.asked.append(i)
    lo = i * self.size
    return X[lo:lo + self.size], Y[lo:lo + self.size]

  def on_epoch_end(self):
    self.ends += 1


def test_sequence_for_fit_evaluate_predict_and_validation():
  model = _linear(lr=0.0)
  seq, val = _Batches(), _Batches(2)
  h = model.fit(seq, epochs=3, validation_data=val, shuffle=False, verbose=0)
  assert seq.ends == 3 and seq.asked == [0, 1, 2] * 3
  pred = X @ W + B
  np.testing.assert_allclose(h.history["loss"][0], ((pred[:6] - Y[:6]) ** 2).mean(),
                             rtol=1e-5)
  np.testing.assert_allclose(h.history["val_loss"], [((pred[:4] - Y[:4]) ** 2).mean()] * 3,
                             rtol=1e-5)
  np.random.seed(0)
  shuffled = _Batches(5)
  model.fit(shuffled, epochs=2, verbose=0)
  assert sorted(shuffled.asked[:5]) == list(range(5)) and shuffled.asked[:5] != list(range(5))
  seq = _Batches()
  logs = model.evaluate(seq, return_dict=True, verbose=0)
  np.testing.assert_allclose(logs["loss"], ((pred[:6] - Y[:6]) ** 2).mean(), rtol=1e-5)
  assert model.predict(_Batches(), steps=2, verbose=0).shape == (4, 1)
  with pytest.raises(ValueError, match="`y` argument is not supported when using "
                                       "`keras.utils.Sequence`"):
    model.fit(seq, Y, verbose=0)
  with pytest.raises(NotImplementedError, match="must implement __len__"):
    len(K.utils.Sequence())


def test_dataset_steps_and_validation_steps():
  ds = tf.data.Dataset.from_tensor_slices((X, Y)).batch(2)  # 5 batches
  model = _Recorder()
  model.compile("sgd", "mse", run_eagerly=True)
  model.fit(ds, epochs=2, steps_per_epoch=2, verbose=0)
  assert model.seen == [X[0, 0], X[2, 0], X[4, 0], X[6, 0]]  # one iterator across epochs
  model.seen = []
  model.fit(ds, epochs=2, verbose=0)
  assert len(model.seen) == 10  # afresh every epoch
  lin = _linear(lr=0.0)
  h = lin.fit(ds, epochs=2, validation_data=ds, validation_steps=1, verbose=0)
  pred = X @ W + B
  np.testing.assert_allclose(h.history["val_loss"], [((pred[:2] - Y[:2]) ** 2).mean()] * 2,
                             rtol=1e-5)
  with pytest.raises(ValueError, match="you must specify the number of steps"):
    lin.fit(ds.repeat(), epochs=1, verbose=0)
  with warnings.catch_warnings():
    warnings.simplefilter("error")
    lin.fit(ds.repeat(), epochs=2, steps_per_epoch=7, verbose=0)


def test_metrics_with_several_thresholds_log_arrays():
  model = K.Sequential([K.layers.Dense(1, activation="sigmoid", input_shape=(3,))])
  model.compile("sgd", "binary_crossentropy",
                metrics=[K.metrics.Precision(thresholds=[0.3, 0.6], name="p"),
                         K.metrics.AUC(multi_label=True, name="auc")])
  labels = (X[:, :1] > 0).astype(np.float32)
  h = model.fit(X, labels, epochs=2, verbose=0)
  assert h.history["p"][0].shape == (2,) and isinstance(h.history["auc"][0], float)
  logs = model.evaluate(X, labels, return_dict=True, verbose=0)
  pred = model.predict(X, verbose=0)
  for i, t in enumerate([0.3, 0.6]):
    pos = pred > t
    want = (pos & (labels > 0)).sum() / max(pos.sum(), 1)
    assert logs["p"][i] == pytest.approx(want, rel=1e-6)
