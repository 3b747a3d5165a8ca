"""The checker's default bounds, kept apart from the checker so that `loopspec check --help`
can show them without importing the checker (and the model it runs)."""

from __future__ import annotations

DEFAULT_MAX_LINE_BYTES = 16 * 1024 * 1024
DEFAULT_MAX_VIOLATIONS = 1000
