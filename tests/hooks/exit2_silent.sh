#!/usr/bin/env bash
# Exit 2 without saying why (Claude Code still blocks; Codex marks the hook Failed).
cat >/dev/null
exit 2
