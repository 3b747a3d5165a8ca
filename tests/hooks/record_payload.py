"""Saves its stdin payload and CLAUDE_PROJECT_DIR to the file argv[1]; has no opinion."""

import json
import os
import sys

record = {"payload": json.load(sys.stdin), "project_dir": os.environ.get("CLAUDE_PROJECT_DIR")}
with open(sys.argv[1], "w", encoding="utf-8") as out:
    json.dump(record, out)
print("{}")
