"""tf.nest (re-exports only)."""
from tensorlet._nest import (assert_same_structure, flatten, flatten_with_paths,  # noqa: F401
                             is_nested, map_structure, pack_sequence_as)


from tensorlet._unsupported import getattr_for as _getattr_for  # noqa: E402
__getattr__ = _getattr_for("tf.nest", __name__)
