"""Targets the pytest-plugin test points the plugin at (importable via PYTHONPATH=tests)."""

from __future__ import annotations

from mutants import MUTANTS, MutantTarget


def turn_end_with_step_open() -> MutantTarget:
    """A loop that writes turn/end before step/end."""
    return MutantTarget(next(m for m in MUTANTS if m.name == "turn-end-with-step-open"))
