"""tf.strings: the public string namespace (re-exports only)."""
from tensorlet.ops.string_ops import (  # noqa: F401
    as_string, format, join, length, lower, reduce_join, regex_full_match,
    regex_replace, strip, substr, to_number, unicode_encode, upper)
from tensorlet.ops.string_hash_ops import to_hash_bucket_fast, to_hash_bucket_strong  # noqa: F401
from tensorlet.ragged.ragged_string_ops import (  # noqa: F401
    bytes_split, ngrams, split, unicode_decode, unicode_split)


from tensorlet._unsupported import getattr_for as _getattr_for  # noqa: E402
__getattr__ = _getattr_for("tf.strings", __name__)

from tensorlet.ops import dispatch as _dispatch  # noqa: E402
_dispatch.install(globals(), "strings")  # ragged and Keras symbolic arguments dispatch
