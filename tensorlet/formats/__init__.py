"""File formats and their errors, below the ops that read and write them: the
tf.train.Example wire format, the protocol-buffer messages, OS errors as TF errors."""
