"""Rewrites the call's `command` to argv[1], after sleeping argv[2] seconds (default 0).

The replacement is the whole input, as the protocol requires: every other field is echoed.
"""

import json
import sys
import time

payload = json.load(sys.stdin)
time.sleep(float(sys.argv[2]) if len(sys.argv) > 2 else 0.0)
updated = dict(payload["tool_input"], command=sys.argv[1])
answer = {
    "hookSpecificOutput": {
        "hookEventName": payload["hook_event_name"],
        "permissionDecision": "allow",
        "updatedInput": updated,
    }
}
print(json.dumps(answer))
