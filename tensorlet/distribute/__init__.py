"""tf.distribute (being built; see collectives.py for the cross-worker interface)."""
