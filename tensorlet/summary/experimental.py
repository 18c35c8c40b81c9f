"""tf.summary.experimental: the default step and summary_scope."""
from tensorlet.summary._api import get_step, set_step, summary_scope

__all__ = ["get_step", "set_step", "summary_scope"]
