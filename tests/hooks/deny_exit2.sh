#!/usr/bin/env bash
# Blocks the call the exit-code way: exit 2, the reason on stderr.
cat >/dev/null
echo "rm is not allowed in this repository" >&2
exit 2
