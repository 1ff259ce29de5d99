#!/usr/bin/env bash
# Creates (or refreshes) the virtual environment of the Python binding in
# target/python-venv with the pinned requirements, and installs the package
# from bindings/python with pip (maturin builds the pyo3 extension in
# release mode). Usage: scripts/python-venv.sh [extra requirements files...]
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=target/python-venv
PYTHON=${PYTHON:-python3}
# The build backend runs the venv's maturin binary.
export PATH="$PWD/$VENV/bin:$PATH"
if [ ! -x "$VENV/bin/python" ]; then
    "$PYTHON" -m venv "$VENV"
fi
"$VENV/bin/python" -m pip install -q --disable-pip-version-check -r bindings/python/requirements-test.txt "${@/#/-r}"
# --no-build-isolation: build with the pinned maturin already in the venv;
# cargo's own target dir (bindings/python/target) keeps rebuilds incremental.
"$VENV/bin/python" -m pip install -q --disable-pip-version-check --no-build-isolation --force-reinstall --no-deps ./bindings/python
