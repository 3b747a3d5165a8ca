#!/usr/bin/env bash
# Blocks a tool result after the fact.
cat >/dev/null
echo '{"decision": "block", "reason": "the output contains a secret"}'
