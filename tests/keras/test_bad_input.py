"""Bad input to tf.keras: each case raises the exception type tf_keras (Keras 2, TF
2.21) raises, with a message naming the problem. Where Keras leaks an accident (an
AttributeError deep inside, a KeyError, a silently empty run) the case says what it
raises instead and why."""
import numpy as np
import pytest

import tensorlet as tf
from bad_input_check import check

keras = tf.keras
IAE = tf.errors.InvalidArgumentError
x = np.ones((8, 4), "float32")
y = np.ones((8, 1), "float32")


def model(loss="mse", metrics=None, units=1):
  m = keras.Sequential([keras.layers.Dense(units, input_shape=(4,))])
  m.compile("sgd", loss, metrics=metrics)
  return m


def built_dense(in_dim=3):
  layer = keras.layers.Dense(2)
  layer(tf.ones([1, in_dim]))
  return layer


def ds(*parts):
  return tf.data.Dataset.from_tensor_slices(parts if len(parts) > 1 else parts[0]).batch(2)


# (id, call, exception type, regex the message must match)
LAYERS = [
    ("dense_rank1", lambda: keras.layers.Dense(2)(tf.ones([3])), ValueError,
     r"layer \"dense.*expected min_ndim=2, found ndim=1"),
    ("dense_units_neg", lambda: keras.layers.Dense(-1), ValueError, "units=-1"),
    ("dense_activation_unknown", lambda: keras.layers.Dense(2, activation="nope"), ValueError,
     "Unknown activation function.*nope"),
    ("dense_activation_int", lambda: keras.layers.Dense(2, activation=3), TypeError,
     "activation function identifier: 3"),
    ("dense_initializer_unknown", lambda: keras.layers.Dense(2, kernel_initializer="nope"),
     ValueError, "Unknown initializer: 'nope'"),
    ("dense_kwarg_unknown", lambda: keras.layers.Dense(2, foo=1), TypeError,
     "Keyword argument not understood.*foo"),
    ("dense_built_other_last_dim", lambda: built_dense(3)(tf.ones([1, 4])), ValueError,
     "expected axis -1 of input shape to have value 3"),
    # Keras casts the input of Dense to the layer's dtype: a string fails in that Cast.
    ("dense_string_input", lambda: keras.layers.Dense(2)(tf.constant([["a", "b"]])),
     tf.errors.UnimplementedError, "Cast string to float32 is not supported"),
    ("dense_none_input", lambda: keras.layers.Dense(2)(None), TypeError,
     "Inputs to a layer should be tensors. Got None"),
    ("dense_str_input", lambda: keras.layers.Dense(2)("abc"), TypeError,
     "Inputs to a layer should be tensors. Got 'abc'"),
    ("dense_two_inputs", lambda: built_dense(3)([tf.ones([1, 3]), tf.ones([1, 3])]),
     ValueError, r"expects 1 input\(s\), but it received 2 input tensors"),
    ("conv2d_rank3", lambda: keras.layers.Conv2D(2, 3)(tf.ones([1, 5, 5])), ValueError,
     "expected min_ndim=4, found ndim=3"),
    ("conv2d_kernel_larger_than_image", lambda: keras.layers.Conv2D(2, 7)(tf.ones([1, 5, 5, 1])),
     ValueError, "dimensions in the output is <= 0 due to downsampling"),
    ("conv2d_filters_0", lambda: keras.layers.Conv2D(0, 3), ValueError, "filters=0"),
    ("conv2d_kernel_0", lambda: keras.layers.Conv2D(2, 0), ValueError,
     "`kernel_size` argument must be a tuple of 2 integers.*> 0"),
    ("conv2d_strides_0", lambda: keras.layers.Conv2D(2, 3, strides=(1, 0)), ValueError,
     "`strides` argument .*including \\{0\\}"),
    ("conv2d_kernel_3_tuple", lambda: keras.layers.Conv2D(2, (3, 3, 3)), ValueError,
     "`kernel_size` argument must be a tuple of 2 integers"),
    ("conv2d_strides_and_dilation", lambda: keras.layers.Conv2D(2, 3, strides=2,
                                                                dilation_rate=2),
     ValueError, r"`strides > 1` not supported in conjunction with `dilation_rate > 1`"),
    ("conv2d_padding_unknown", lambda: keras.layers.Conv2D(2, 3, padding="full"), ValueError,
     "`padding` argument"),
    ("conv2d_built_other_channels",
     lambda: (lambda c: (c(tf.ones([1, 5, 5, 1])), c(tf.ones([1, 5, 5, 2]))))(
         keras.layers.Conv2D(2, 3)), ValueError, "expected axis -1 of input shape"),
    ("maxpool_pool_0", lambda: keras.layers.MaxPooling2D(0), ValueError, "`pool_size`"),
    ("maxpool_rank3", lambda: keras.layers.MaxPooling2D()(tf.ones([1, 4, 4])), ValueError,
     "expected ndim=4, found ndim=3"),
    ("dropout_rate_out_of_range", lambda: keras.layers.Dropout(1.5), ValueError, "`rate`"),
    ("reshape_wrong_size", lambda: keras.layers.Reshape((5,))(tf.ones([2, 4])), IAE,
     "8 values, but the requested shape has 10"),
    ("batchnorm_axis_out_of_range",
     lambda: keras.layers.BatchNormalization(axis=5)(tf.ones([2, 4])), ValueError,
     r"Invalid value for `axis` argument. Expected 0 <= axis < inputs.rank \(with "
     r"inputs.rank=2\). Received: axis=\(5,\)"),
    ("input_negative_dim", lambda: keras.Input(shape=(-2,)), ValueError,
     "Dimension -2 must be >= 0"),
    ("input_no_shape", lambda: keras.Input(), ValueError, "provide to Input a `shape`"),
    ("int_weight_glorot",
     lambda: keras.layers.Layer().add_weight("w", [2, 2], dtype="int32",
                                            initializer="glorot_uniform"),
     ValueError, "Expected floating point type"),
    ("set_weights_wrong_count", lambda: built_dense().set_weights([np.ones((3, 2))]),
     ValueError, "weight list of length 1, but the layer was expecting 2"),
    ("set_weights_not_list", lambda: built_dense().set_weights(None), TypeError,
     "expects a list of NumPy arrays"),
    ("set_weights_strings",
     lambda: built_dense().set_weights([np.full((3, 2), "a"), np.ones(2)]), TypeError,
     "dtype <U1"),
    ("sequential_not_layer", lambda: keras.Sequential([3]), TypeError,
     "must be an instance of class Layer"),
    ("functional_not_keras_tensor", lambda: keras.Model(tf.ones([1, 2]), tf.ones([1, 2])),
     ValueError, "Expecting KerasTensor"),
    ("functional_disconnected",
     lambda: (lambda a, b: keras.Model(a, keras.layers.Dense(1)(b)))(
         keras.Input((2,)), keras.Input((2,))), ValueError, "Graph disconnected"),
    ("summary_unbuilt", lambda: keras.Sequential([keras.layers.Dense(1)]).summary(),
     ValueError, "has not yet been built"),
    ("count_params_unbuilt", lambda: keras.layers.Dense(1).count_params(), ValueError,
     "isn't built"),
]

COMPILE = [
    ("optimizer_unknown", lambda: model().compile("nope", "mse"), ValueError,
     "nope"),
    ("optimizer_int", lambda: model().compile(3, "mse"), ValueError,
     "Could not interpret optimizer identifier: 3"),
    # As in Keras, losses are resolved on the first batch, not by compile.
    ("loss_unknown", lambda: model(loss="nope").fit(x, y, verbose=0), ValueError,
     "Unknown loss function: 'nope'"),
    ("loss_int", lambda: model(loss=3).fit(x, y, verbose=0), ValueError,
     "Could not interpret loss function identifier: 3"),
    ("compile_kwarg_unknown", lambda: model().compile("sgd", "mse", foo=1), TypeError,
     "Invalid keyword argument.*foo"),
    # Keras raises these inside the traced train step (as TypeError/ValueError "in user
    # code"); tensorlet resolves metrics on the first batch too and names them.
    ("metric_unknown", lambda: model(metrics=["nope"]).fit(x, y, verbose=0), ValueError,
     "Unknown metric function: 'nope'"),
    ("metric_int", lambda: model(metrics=[3]).fit(x, y, verbose=0), ValueError,
     "Could not interpret metric identifier: 3"),
    ("metric_is_optimizer", lambda: model(metrics=[keras.optimizers.SGD()]).fit(
        x, y, verbose=0), ValueError, "Could not interpret metric identifier"),
    ("loss_dict_unknown_output", lambda: model(loss={"nope": "mse"}).fit(x, y, verbose=0),
     ValueError, r"unexpected loss keys \['nope'\]"),
    ("fit_not_compiled", lambda: keras.Sequential([keras.layers.Dense(1)]).fit(x, y),
     RuntimeError, "must compile your model"),
    ("evaluate_not_compiled",
     lambda: keras.Sequential([keras.layers.Dense(1)]).evaluate(x, y), RuntimeError,
     "must compile your model"),
    ("train_on_batch_not_compiled",
     lambda: keras.Sequential([keras.layers.Dense(1)]).train_on_batch(x, y), RuntimeError,
     "must compile your model"),
]

FIT = [
    ("xy_length_mismatch", lambda: model().fit(x, y[:5], verbose=0), ValueError,
     "Data cardinality is ambiguous"),
    ("sample_weight_length", lambda: model().fit(x, y, sample_weight=np.ones(3), verbose=0),
     ValueError, "Data cardinality is ambiguous"),
    # Keras: a TypeError from inside the train function; ours names `x`.
    ("x_none", lambda: model().fit(None, y, verbose=0), ValueError, "Expected input data `x`"),
    # Keras skips a loss without targets and fails on "No gradients provided".
    ("y_none", lambda: model().fit(x, None, verbose=0), ValueError,
     "loss 'mean_squared_error' needs targets, but `y` is None"),
    ("y_none_evaluate", lambda: model().evaluate(x, verbose=0), ValueError,
     "needs targets, but `y` is None"),
    ("dataset_without_y", lambda: model().fit(ds(x), verbose=0), ValueError,
     "needs targets"),
    ("x_wrong_last_dim", lambda: model().fit(np.ones((8, 3), "float32"), y, verbose=0),
     ValueError, "expected axis -1 of input shape to have value 4"),
    ("x_rank1", lambda: model().fit(np.ones(8, "float32"), y, verbose=0), ValueError,
     "expected min_ndim=2, found ndim=1"),
    ("x_strings", lambda: model().fit(np.full((8, 4), "a"), y, verbose=0),
     tf.errors.UnimplementedError, "Cast string to float32"),
    ("x_ragged_lists", lambda: model().fit([[1, 2], [3]], y, verbose=0), ValueError,
     "Failed to find data adapter that can handle input"),
    ("x_scalar", lambda: model().fit(np.float32(1), y, verbose=0), ValueError,
     "Failed to find data adapter that can handle input: <class 'numpy.float32'>"),
    ("x_iterator_with_y", lambda: model().fit(iter([(x, y)]), y, verbose=0), ValueError,
     "`y` argument is not supported when using python generator as input"),
    ("x_dict_for_sequential", lambda: model().fit({"a": x}, y, verbose=0), ValueError,
     r"expects 1 input\(s\), but it received 1 input tensors in a dict"),
    ("dataset_of_dicts", lambda: model().fit(ds({"a": x, "b": y}), verbose=0), ValueError,
     r"expects 1 input\(s\), but it received 2 input tensors in a dict"),
    ("dataset_of_4_tuples", lambda: model().fit(ds(x, y, y, y), verbose=0), ValueError,
     r"`\(x, y\)`, or `\(x, y, sample_weight\)`"),
    ("dataset_unbatched",
     lambda: model().fit(tf.data.Dataset.from_tensor_slices((x, y)), verbose=0), ValueError,
     "expected min_ndim=2, found ndim=1"),
    ("dataset_empty", lambda: model().fit(ds(x, y).take(0), verbose=0), ValueError,
     "Expected input data to be non-empty"),
    ("dataset_with_y", lambda: model().fit(ds(x, y), y, verbose=0), ValueError,
     "`y` argument is not supported when using dataset"),
    ("batch_size_0", lambda: model().fit(x, y, batch_size=0, verbose=0), ValueError,
     "Expected batch_size to be positive. Received is 0"),
    ("batch_size_negative", lambda: model().fit(x, y, batch_size=-1, verbose=0), ValueError,
     "Expected batch_size to be positive. Received is -1"),
    ("batch_size_float", lambda: model().fit(x, y, batch_size=2.5, verbose=0), TypeError,
     "`batch_size` must be an integer, got 2.5"),
    ("batch_size_str", lambda: model().fit(x, y, batch_size="2", verbose=0), TypeError,
     "`batch_size` must be an integer"),
    ("epochs_negative", lambda: model().fit(x, y, epochs=-1, verbose=0), ValueError,
     "Expected epochs to be positive. Received is -1"),
    ("epochs_0", lambda: model().fit(x, y, epochs=0, verbose=0), ValueError,
     "Expected epochs to be positive"),
    ("epochs_float", lambda: model().fit(x, y, epochs=1.5, verbose=0), TypeError,
     "`epochs` must be an integer, got 1.5"),
    ("epochs_str", lambda: model().fit(x, y, epochs="2", verbose=0), TypeError,
     "`epochs` must be an integer"),
    ("steps_per_epoch_0", lambda: model().fit(x, y, steps_per_epoch=0, verbose=0), ValueError,
     "steps_per_epoch must be positive, None or -1. Received 0"),
    ("validation_split_1", lambda: model().fit(x, y, validation_split=1.0, verbose=0),
     ValueError, r"must be in \[0, 1\), got 1.0"),
    # Keras only fails later, on "Expected input data to be non-empty".
    ("validation_split_negative", lambda: model().fit(x, y, validation_split=-0.5, verbose=0),
     ValueError, r"`validation_split` must be in \[0, 1\), got -0.5"),
    ("validation_split_2", lambda: model().fit(x, y, validation_split=2, verbose=0),
     ValueError, r"must be in \[0, 1\)"),
    ("validation_split_str", lambda: model().fit(x, y, validation_split="a", verbose=0),
     TypeError, "`validation_split` must be a float"),
    ("validation_split_too_few", lambda: model().fit(x[:1], y[:1], validation_split=0.5,
                                                     verbose=0),
     ValueError, "not sufficient to split it"),
    ("validation_split_dataset", lambda: model().fit(ds(x, y), validation_split=0.5,
                                                     verbose=0),
     ValueError, "only supported for Tensors or NumPy arrays"),
    # Keras: an IndexError ("tuple index out of range").
    ("validation_data_int", lambda: model().fit(x, y, validation_data=3, verbose=0),
     ValueError, "`validation_data` argument, it must contain either 2 items"),
    ("validation_data_4_tuple", lambda: model().fit(x, y, validation_data=(x, y, y, y),
                                                    verbose=0),
     ValueError, "`validation_data` argument"),
    ("validation_data_mismatch", lambda: model().fit(x, y, validation_data=(x, y[:3]),
                                                     verbose=0),
     ValueError, "Data cardinality is ambiguous"),
    # Keras: AttributeError "'int' object has no attribute 'set_model'".
    ("callback_int", lambda: model().fit(x, y, callbacks=[3], verbose=0), TypeError,
     "Callbacks must be tf.keras.callbacks.Callback instances; received 3"),
    ("callback_str", lambda: model().fit(x, y, callbacks="early", verbose=0), TypeError,
     "received 'early'"),
    ("callback_class_not_instance",
     lambda: model().fit(x, y, callbacks=[keras.callbacks.History], verbose=0), TypeError,
     "Callbacks must be .* instances"),
    ("class_weight", lambda: model().fit(x, y, class_weight={0: 1.0, 2: 1.0}, verbose=0),
     ValueError, "Expected `class_weight` to be a dict with keys from 0 to one less"),
    ("sparse_label_out_of_range",
     lambda: model("sparse_categorical_crossentropy", units=3).fit(x, np.full(8, 5),
                                                                   verbose=0),
     IAE, r"label value of 5 which is outside the valid range of \[0, 3\)"),
    ("sparse_label_negative",
     lambda: model("sparse_categorical_crossentropy", units=3).fit(x, np.full(8, -1),
                                                                   verbose=0),
     IAE, "label value of -1"),
    ("categorical_shape_mismatch",
     lambda: model("categorical_crossentropy", units=3).fit(x, np.ones((8, 2)), verbose=0),
     ValueError, r"Shapes \(None, 2\) and \(None, 3\) are incompatible"),
    ("sample_weight_strings",
     lambda: model().fit(x, y, sample_weight=np.full(8, "a"), verbose=0),
     tf.errors.UnimplementedError, "Cast string to float32"),
    ("evaluate_batch_size_0", lambda: model().evaluate(x, y, batch_size=0, verbose=0),
     ValueError, "Expected batch_size to be positive"),
    ("evaluate_steps_negative", lambda: model().evaluate(x, y, steps=-3, verbose=0),
     ValueError, "steps must be positive"),
    ("evaluate_xy_mismatch", lambda: model().evaluate(x, y[:3], verbose=0), ValueError,
     "Data cardinality is ambiguous"),
    # Keras: KeyError "pop from an empty set".
    ("predict_none", lambda: model().predict(None, verbose=0), ValueError,
     "Expected input data `x`, got None"),
    ("predict_wrong_dim", lambda: model().predict(np.ones((2, 3)), verbose=0), ValueError,
     "expected axis -1 of input shape to have value 4"),
    ("predict_batch_size_0", lambda: model().predict(x, batch_size=0, verbose=0), ValueError,
     "Expected batch_size to be positive"),
    ("predict_batch_size_float", lambda: model().predict(x, batch_size=2.5, verbose=0),
     TypeError, "`batch_size` must be an integer"),
    ("predict_empty", lambda: model().predict(np.ones((0, 4), "float32"), verbose=0),
     ValueError, "Expected input data to be non-empty"),
    ("train_on_batch_mismatch", lambda: model().train_on_batch(x, y[:3]), ValueError,
     "Data cardinality is ambiguous"),
]

OPTIMIZERS_LOSSES_METRICS = [
    ("optimizers_get_unknown", lambda: keras.optimizers.get("nope"), ValueError, "nope"),
    ("optimizer_lr_str", lambda: keras.optimizers.SGD(learning_rate="a"), TypeError,
     "`learning_rate` must be a number"),
    ("optimizer_momentum_2", lambda: keras.optimizers.SGD(momentum=2.0), ValueError,
     r"`momentum` must be between \[0, 1\]"),
    ("optimizer_kwarg_unknown", lambda: keras.optimizers.SGD(foo=1), TypeError,
     "foo is not a valid argument"),
    ("optimizer_two_clipnorms", lambda: keras.optimizers.SGD(clipnorm=1.0,
                                                             global_clipnorm=1.0),
     ValueError, "At most one of `clipnorm` and `global_clipnorm`"),
    ("apply_gradients_shape",
     lambda: keras.optimizers.SGD().apply_gradients([(tf.ones([3]), tf.Variable([1.0, 2.0]))]),
     IAE, r"var and grad do not have the same shape \[2\] \[3\]"),
    ("apply_gradients_dtype",
     lambda: keras.optimizers.SGD().apply_gradients(
         [(tf.ones([2], tf.float64), tf.Variable([1.0, 2.0]))]), IAE, "has dtype float64"),
    ("apply_gradients_all_none",
     lambda: keras.optimizers.SGD().apply_gradients([(None, tf.Variable([1.0]))]),
     ValueError, "No gradients provided for any variable"),
    # Keras: AttributeError "'EagerTensor' object has no attribute '_unique_id'".
    ("apply_gradients_to_tensor",
     lambda: keras.optimizers.SGD().apply_gradients([(tf.ones([2]), tf.ones([2]))]),
     TypeError, r"\(gradient, tf.Variable\) pairs"),
    ("minimize_tensor_without_tape",
     lambda: keras.optimizers.SGD().minimize(tf.constant(3.0), [tf.Variable(1.0)]),
     ValueError, "`tape` is required when a `Tensor` loss is passed"),
    ("schedule_boundaries_values",
     lambda: keras.optimizers.schedules.PiecewiseConstantDecay([1, 2], [0.1]), ValueError,
     "length of boundaries should be 1 less than the length of values"),
    ("losses_get_unknown", lambda: keras.losses.get("nope"), ValueError,
     "Unknown loss function: 'nope'"),
    ("loss_reduction_unknown", lambda: keras.losses.MeanSquaredError(reduction="avg"),
     ValueError, "Invalid Reduction Key: avg"),
    ("mse_shape_mismatch",
     lambda: keras.losses.MeanSquaredError()(tf.ones([2, 3]), tf.ones([2, 4])), IAE,
     r"Incompatible shapes.*SquaredDifference"),
    ("mse_strings",
     lambda: keras.losses.MeanSquaredError()(tf.constant(["a"]), tf.constant(["b"])), IAE,
     "string is not in the list of allowed values"),
    ("mse_none", lambda: keras.losses.MeanSquaredError()(None, tf.ones([2])), ValueError,
     r"Attempt to convert a value \(None\)"),
    ("scce_label_out_of_range",
     lambda: keras.losses.SparseCategoricalCrossentropy()(tf.constant([5]), tf.ones([1, 3])),
     IAE, "label value of 5"),
    ("cce_shape_mismatch",
     lambda: keras.losses.CategoricalCrossentropy()(tf.ones([2, 2]), tf.ones([2, 3])),
     ValueError, r"Shapes \(2, 2\) and \(2, 3\) are incompatible"),
    ("metrics_get_int", lambda: keras.metrics.get(3), ValueError,
     "Could not interpret metric identifier: 3"),
    ("mean_metric_strings", lambda: keras.metrics.Mean().update_state(tf.constant(["a"])),
     tf.errors.UnimplementedError, "Cast string to float32"),
    ("mean_metric_sample_weight_shape",
     lambda: keras.metrics.Mean().update_state(tf.ones([3]), sample_weight=tf.ones([2])),
     IAE, "Incompatible shapes"),
    ("accuracy_shape_mismatch",
     lambda: keras.metrics.Accuracy().update_state(tf.ones([3]), tf.ones([4])), ValueError,
     r"Shapes \(4,\) and \(3,\) are incompatible"),
    ("metric_string_dtype", lambda: keras.metrics.Mean(dtype="string"), ValueError,
     "Expected numeric or boolean dtype"),
    ("early_stopping_mode", lambda: keras.callbacks.ModelCheckpoint("w", save_freq="sometimes"),
     ValueError, "Unrecognized save_freq: sometimes"),
]


@pytest.mark.parametrize("call, exc, pattern",
                         [c[1:] for c in LAYERS + COMPILE + FIT + OPTIMIZERS_LOSSES_METRICS],
                         ids=[c[0] for c in LAYERS + COMPILE + FIT + OPTIMIZERS_LOSSES_METRICS])
def test_bad_input(call, exc, pattern):
  check(call, exc, pattern)


def test_compile_accepts_one_metric_not_in_a_list():
  # Keras 2 takes `metrics='mae'` as one metric; it used to be a TypeError here.
  m = model(metrics="mae")
  logs = m.fit(x, y, verbose=0).history
  assert sorted(logs) == ["loss", "mae"]


def test_dense_casts_integer_inputs_like_keras():
  out = keras.layers.Dense(2)(tf.ones([1, 3], tf.int32))
  assert out.dtype == tf.float32 and out.shape == [1, 2]


def weights_of(m):
  return [w.copy() for w in m.get_weights()]


def same(a, b):
  return len(a) == len(b) and all(np.array_equal(u, v) for u, v in zip(a, b))


def test_failed_set_weights_changes_nothing():
  layer = built_dense()
  before = weights_of(layer)
  check(lambda: layer.set_weights([np.zeros((3, 2)), np.zeros(5)]), ValueError,
        r"weight shape \(2,\) is not compatible with provided weight shape \(5,\)")
  assert same(before, weights_of(layer))


@pytest.mark.parametrize("kwargs, exc", [
    ({"validation_data": 3}, ValueError),
    ({"validation_data": (x, y[:3])}, ValueError),
    ({"epochs": -1}, ValueError),
    ({"batch_size": 0}, ValueError),
    ({"callbacks": [3]}, TypeError),
    ({"validation_split": 1.5}, ValueError),
], ids=["validation_data", "validation_mismatch", "epochs", "batch_size", "callbacks",
        "validation_split"])
def test_failed_fit_changes_nothing(kwargs, exc):
  # Arguments are checked before the first step, so the weights and the optimizer's
  # step count are those of before the call.
  m = model()
  m.fit(x, y, verbose=0)
  before, steps = weights_of(m), int(m.optimizer.iterations.numpy())
  with pytest.raises(exc):
    m.fit(x, y, verbose=0, **kwargs)
  assert same(before, weights_of(m))
  assert int(m.optimizer.iterations.numpy()) == steps


def test_failed_first_batch_changes_nothing():
  # The loss fails (label 5 of 3 classes) before the optimizer applies anything.
  m = model("sparse_categorical_crossentropy", units=3)
  before = weights_of(m)
  with pytest.raises(IAE):
    m.fit(x, np.full(8, 5), verbose=0)
  assert same(before, weights_of(m))
  assert int(m.optimizer.iterations.numpy()) == 0


def test_failed_load_weights_changes_nothing(tmp_path):
  src = keras.Sequential([keras.layers.Dense(2, input_shape=(4,)), keras.layers.Dense(1)])
  src.save_weights(str(tmp_path / "w"))
  other = keras.Sequential([keras.layers.Dense(2, input_shape=(4,)), keras.layers.Dense(3)])
  before = weights_of(other)
  check(lambda: other.load_weights(str(tmp_path / "w")), ValueError,
        r"incompatible tensor with shape \(1,\) when attempting to restore variable with shape "
        r"\(3,\)")
  assert same(before, weights_of(other))


@pytest.mark.parametrize("call, exc, pattern", [
    (lambda p: model().load_weights(str(p / "missing" / "w")), tf.errors.NotFoundError,
     "Failed to find any matching files"),
    (lambda p: model().load_weights(str(p / "w.h5")), FileNotFoundError, "w.h5"),
    (lambda p: keras.Sequential([keras.layers.Dense(1)]).save(str(p / "m")), ValueError,
     "has not been built yet"),
    (lambda p: keras.models.load_model(str(p / "missing")), OSError,
     "No file or directory found at"),
    (lambda p: model().save(None), TypeError, "`filepath` must be a path"),
], ids=["load_weights_missing", "load_weights_h5", "save_unbuilt", "load_model_missing",
        "save_path_none"])
def test_bad_paths(tmp_path, call, exc, pattern):
  check(lambda: call(tmp_path), exc, pattern)
