#!/usr/bin/env bash
# Fails the ordinary way: exit 1 with an error on stderr.
cat >/dev/null
echo "boom: the policy file is missing" >&2
echo "second line of the trace" >&2
exit 1
