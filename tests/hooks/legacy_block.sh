#!/usr/bin/env bash
# The deprecated top-level form of a block.
cat >/dev/null
echo '{"decision": "block", "reason": "legacy policy says no"}'
