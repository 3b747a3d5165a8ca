#!/usr/bin/env bash
# A deny labelled for the wrong hook point: its fields must not count.
cat >/dev/null
echo '{"hookSpecificOutput": {"hookEventName": "PostToolUse", "permissionDecision": "deny", "permissionDecisionReason": "meant for another event"}}'
