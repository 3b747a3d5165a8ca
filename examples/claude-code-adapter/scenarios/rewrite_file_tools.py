"""A PreToolUse hook for Claude Code's file tools: it rewrites a Write's content (adding a
line) and an Edit's new text (to `two`), and hands a Read back the input it saw.

Each answer is `permissionDecision: allow` with the whole input as `updatedInput`, as Claude
Code handed it to the hook: a relative `file_path` arrives made absolute.
"""

import json
import sys

request = json.load(sys.stdin)
updated = dict(request.get("tool_input") or {})
tool = request.get("tool_name")
if tool == "Write":
    updated["content"] = str(updated.get("content", "")) + "added by the hook\n"
elif tool == "Edit":
    updated["new_string"] = "two"
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
