#!/usr/bin/env bash
# No opinion, said by printing nothing.
cat >/dev/null
exit 0
