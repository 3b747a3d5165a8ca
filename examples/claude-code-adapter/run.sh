#!/bin/sh
# The driver-protocol adapter of the pinned real CLI, for `loopspec conform --cmd` (see
# properties/harnesses/conform_driver.py): run from any working directory of a checkout where
# `make harnesses` installed the binary; it uses the checkout's .venv when there is one.
here=$(CDPATH= cd -- "$(dirname -- "$0")" && pwd)
root=$(dirname "$(dirname "$here")")
python="$root/.venv/bin/python"
[ -x "$python" ] || python=python3
PYTHONPATH="$root${PYTHONPATH:+:$PYTHONPATH}" exec "$python" \
    -m loopspec.properties.harnesses.conform_driver claude-code "$@"
