#!/usr/bin/env bash
# Starts a JSON answer and never finishes it.
cat >/dev/null
printf '%s\n' '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": '
