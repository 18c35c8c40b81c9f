"""tf.summary: TensorBoard event files (scalars, histograms, images, text, graphs).

Writing needs the `tensorboard` package (the `summary` extra), whose protobuf
messages the event files are made of; it is imported on the first writer.

Example:
  >>> writer = tf.summary.create_file_writer("logs")
  >>> with writer.as_default():
  ...   written = tf.summary.scalar("loss", 0.25, step=1)
  >>> bool(written)
  True
"""
from tensorlet.summary import experimental
from tensorlet.summary._api import (flush, histogram, image, record_if, scalar,
                                    should_record_summaries, text, write)
from tensorlet.summary._trace import graph, trace_export, trace_off, trace_on
from tensorlet.summary._writer import SummaryWriter, create_file_writer, create_noop_writer

__all__ = ["SummaryWriter", "create_file_writer", "create_noop_writer", "experimental",
           "flush", "graph", "histogram", "image", "record_if", "scalar",
           "should_record_summaries", "text", "trace_export", "trace_off", "trace_on", "write"]


from tensorlet._unsupported import getattr_for as _getattr_for  # noqa: E402
__getattr__ = _getattr_for("tf.summary", __name__)
