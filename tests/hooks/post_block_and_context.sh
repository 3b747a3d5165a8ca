#!/usr/bin/env bash
# Blocks a result and also leaves the model a note.
cat >/dev/null
echo '{"decision": "block", "reason": "the output contains a secret", "hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "rotate the key before retrying"}}'
