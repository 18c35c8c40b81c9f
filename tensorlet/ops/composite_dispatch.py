"""Former home of composite dispatch, now one mechanism in ops/dispatch.py (kept as an
alias for modules that still import it by this name)."""
from tensorlet.ops.dispatch import (  # noqa: F401
    add_dispatch_support, call, composite_fallback, dispatch_for, elementwise)
