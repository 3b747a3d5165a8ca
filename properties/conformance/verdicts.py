"""The words a verdict is said in, one spelling each: conform's first and last lines and its JSON
`verdict`, the pytest plugin's failures of the random suite and of a saved case, and demo's
line. A CI step or a test matching one of them meets the same words wherever it is printed."""

from __future__ import annotations

from enum import StrEnum
from typing import Final


class Verdict(StrEnum):
    """How a run, or a saved case's replay under pytest, ended."""

    CONFORMANT = "CONFORMANT"
    """No program diverged (exit 0)."""
    COUNTEREXAMPLE = "COUNTEREXAMPLE"
    """A program diverged, and again when it was rerun to confirm and shrink it (exit 1)."""
    DIVERGED_ONCE = "DIVERGED ONCE, NOT WHEN RERUN"
    """A program diverged, and not when it was rerun: the target answered one program two ways
    (exit 2); its case's replay may pass."""
    DIVERGES = "DIVERGES"
    """A saved case replayed under pytest still diverges."""


def run_verdict(*, conformant: bool, unrepeated: bool) -> Verdict:
    """A conformance run's verdict: `unrepeated` when its divergence did not happen again."""
    if conformant:
        return Verdict.CONFORMANT
    return Verdict.DIVERGED_ONCE if unrepeated else Verdict.COUNTEREXAMPLE


RUN_VERDICTS: Final = (Verdict.CONFORMANT, Verdict.COUNTEREXAMPLE, Verdict.DIVERGED_ONCE)
"""What a conformance run ends with: conform's JSON `verdict` holds one of them."""
