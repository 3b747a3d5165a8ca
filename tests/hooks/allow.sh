#!/usr/bin/env bash
# Allows the call without touching its input.
cat >/dev/null
printf '%s\n' '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow", "permissionDecisionReason": "looks harmless"}}'
