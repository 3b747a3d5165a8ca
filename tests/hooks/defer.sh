#!/usr/bin/env bash
# Defers the decision to the normal permission flow.
cat >/dev/null
printf '%s\n' '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "defer", "permissionDecisionReason": "not my call"}}'
