#!/usr/bin/env bash
# A PostToolUse note labelled for the wrong hook point: it must not reach the model.
cat >/dev/null
echo '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": "misfiled note"}}'
