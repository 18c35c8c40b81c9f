"""tf.random: the public random namespace (re-exports only)."""
import types as _types

from tensorlet.ops.random_ops import (  # noqa: F401
    Algorithm, Generator, categorical, create_rng_state, gamma, get_global_generator, normal,
    poisson, set_global_generator, set_seed, shuffle, stateless_categorical,
    stateless_fold_in, stateless_normal, stateless_split, stateless_truncated_normal,
    stateless_uniform, truncated_normal, uniform)

experimental = _types.SimpleNamespace(
    Algorithm=Algorithm, Generator=Generator, create_rng_state=create_rng_state,
    get_global_generator=get_global_generator, set_global_generator=set_global_generator,
    stateless_fold_in=stateless_fold_in, stateless_split=stateless_split)


from tensorlet._unsupported import getattr_for as _getattr_for  # noqa: E402
__getattr__ = _getattr_for("tf.random", __name__)
