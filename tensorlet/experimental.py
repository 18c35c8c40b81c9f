"""tf.experimental: the names tensorlet implements (Optional for now)."""


def __getattr__(name):
  if name == "Optional":
    from tensorlet.data.optional import Optional
    return Optional
  from tensorlet._unsupported import missing
  raise missing("tf.experimental", name, __name__)
