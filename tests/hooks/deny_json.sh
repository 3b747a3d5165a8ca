#!/usr/bin/env bash
# Denies the call the JSON way, with a reason for the model.
cat >/dev/null
printf '%s\n' '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "production is off limits"}}'
