"""Leaves the model a note about the tool's response, after sleeping argv[1] seconds."""

import json
import sys
import time

payload = json.load(sys.stdin)
time.sleep(float(sys.argv[1]) if len(sys.argv) > 1 else 0.0)
note = f"{payload['tool_name']} said {payload['tool_response']!r}"
answer = {"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": note}}
print(json.dumps(answer))
