"""A PreToolUse hook that rewrites the shell command to argv[1], after sleeping argv[2] seconds.

It supplies the whole input (`updatedInput` replaces the input, so other fields are echoed)
with `permissionDecision: allow`, the form both Claude Code and Codex accept.
"""

import json
import sys
import time

request = json.load(sys.stdin)
time.sleep(float(sys.argv[2]) if len(sys.argv) > 2 else 0.0)
updated = dict(request.get("tool_input") or {}, command=sys.argv[1])
print(
    json.dumps(
        {
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "allow",
                "updatedInput": updated,
            }
        }
    )
)
