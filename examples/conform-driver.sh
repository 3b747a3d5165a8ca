#!/bin/sh
# Runs the driver-protocol adapter of a pinned real CLI (claude-code or codex, the first argument;
# see properties/harnesses/conform_driver.py) for the adapters' run.sh: with the checkout's .venv
# when there is one, else the first python3 on PATH, which may lack loopspec or what it imports.
# What a machine lacks ends in status 69 and what to do (the driver protocol's setup error), not a
# Python stack trace that loopspec would have to report as the target's PROTO-1.
harness=$1
shift
here=$(CDPATH= cd -- "$(dirname -- "$0")" && pwd)
root=$(dirname "$here")
python="$root/.venv/bin/python"
if [ ! -x "$python" ]; then
  python=$(command -v python3) || {
    echo "$harness-adapter: no Python to run it: $root has no .venv (make venv there makes one) and no python3 is on PATH" >&2
    exit 69
  }
fi
PYTHONPATH="$root${PYTHONPATH:+:$PYTHONPATH}" exec "$python" -c '
import sys
python, root, harness = sys.executable, sys.argv[1], sys.argv[2]
venv = f"run make venv in {root}, which makes the .venv the adapter uses"
if sys.version_info < (3, 11):
    sys.stderr.write(f"{harness}-adapter: loopspec needs Python 3.11 or later, and {python} is "
                     f"{sys.version.split()[0]}: {venv} (with a python3 of 3.11 or later)\n")
    sys.exit(69)
try:
    from loopspec.properties.harnesses.conform_driver import main
except ModuleNotFoundError as missing:
    sys.stderr.write(f"{harness}-adapter: loopspec is not installed for {python} ({missing}): "
                     f"{venv}, or install loopspec for that Python\n")
    sys.exit(69)
sys.exit(main(sys.argv[2:]))
' "$root" "$harness" "$@"
