"""Count options of the verbs (`--examples`, `--steps`, `--max-violations`, ...): a value that is
not a whole number >= 1 is argparse's usage error (exit 2), not something the verb runs with.

Kept apart from the verbs' modules so a verb importing it pulls in nothing else (`check`'s
start-up stays the interpreter's)."""

from __future__ import annotations

import argparse
import math


def at_least_one(text: str) -> int:
    """A count option's value: a usage error (argparse's, exit 2) unless a whole number >= 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1: {value}")
    return value


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not math.isfinite(value):  # nan, inf: they bound nothing
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}")
    return value


def seconds_at_least_zero(text: str) -> float:
    """A time budget's value (`conform --max-seconds`): a number of seconds >= 0."""
    value = _seconds(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be at least 0: {text}")
    return value


def seconds_above_zero(text: str) -> float:
    """A timeout's value (`--answer-timeout`): a number of seconds > 0."""
    value = _seconds(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be more than 0: {text}")
    return value
