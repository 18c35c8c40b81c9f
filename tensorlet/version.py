"""tf.version: which TensorFlow API this is, and that tensorlet implements it.

VERSION is the TensorFlow release whose behaviour tensorlet reproduces, with
tensorlet's own version as the PEP 440 local label, so version checks written
for TF 2.x keep working while the string says what is installed.
"""
import sys as _sys

TENSORLET_VERSION = "0.1.0"
TF_API_VERSION = "2.21.0"
VERSION = f"{TF_API_VERSION}+tensorlet.{TENSORLET_VERSION}"
GIT_VERSION = f"tensorlet-v{TENSORLET_VERSION}"
COMPILER_VERSION = (f"none: tensorlet is pure Python {_sys.version.split()[0]} on NumPy "
                    f"(no compiled kernels)")
