"""Floods argv[1] (stdout or stderr) with 2 MiB, more than the bridge's 1 MiB cap."""

import sys

sys.stdin.read()
stream = sys.stdout if sys.argv[1] == "stdout" else sys.stderr
stream.write("{" + "x" * (2 * 1024 * 1024))
stream.flush()
