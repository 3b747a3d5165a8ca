#!/usr/bin/env bash
# Wants the user to confirm the call.
cat >/dev/null
printf '%s\n' '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "ask", "permissionDecisionReason": "deletes files"}}'
