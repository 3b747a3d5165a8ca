#!/usr/bin/env bash
# The deprecated top-level form of an approval.
cat >/dev/null
echo '{"decision": "approve", "reason": "legacy policy says yes"}'
