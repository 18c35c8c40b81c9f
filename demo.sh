#!/usr/bin/env bash
# The main demo on a fresh machine: makes .venv, installs tensorlet with the
# demo's extras (scikit-learn's bundled digits, TensorBoard's event format), runs it.
set -euo pipefail
cd "$(dirname "$0")"
if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
.venv/bin/python -m pip install -q --disable-pip-version-check -e ".[demo]"
exec .venv/bin/python examples/demo.py "$@"
