"""tf.experimental: the names tensorlet implements (Optional for now)."""


def __getattr__(name):
  if name == "Optional":
    from tensorlet.data.optional import Optional
    return Optional
  raise AttributeError(f"tf.experimental.{name} is not implemented in tensorlet")
