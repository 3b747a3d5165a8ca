"""pytest plugin: `pytest --loopspec-impl=package.module:factory` runs the conformance suite.

The factory returns a `loopspec.properties.conformance.target.ConformanceTarget`, for example an
adapter around your own loop. The suite is `loopspec.properties.conformance.suite`; it uses the
active Hypothesis profile, so `HYPOTHESIS_PROFILE=thorough` runs it long.
"""

from __future__ import annotations

from pathlib import Path

import pytest

SUITE = Path(__file__).with_name("conformance") / "suite.py"


def pytest_addoption(parser: pytest.Parser) -> None:
    """Add `--loopspec-impl` and `--loopspec-cmd`."""
    group = parser.getgroup("loopspec", "check a tool-call loop against the loopspec model")
    group.addoption(
        "--loopspec-impl",
        metavar="MODULE:FACTORY",
        default=None,
        help="run the conformance suite against this ConformanceTarget factory",
    )
    group.addoption(
        "--loopspec-cmd",
        metavar="COMMAND",
        default=None,
        help="run the conformance suite against a driver-protocol process",
    )
    group.addoption(
        "--loopspec-case-dir",
        metavar="DIR",
        default="loopspec-cases",
        help="where a failing program is saved as a replayable case (default loopspec-cases/)",
    )


def pytest_configure(config: pytest.Config) -> None:
    """Add the suite to what pytest collects when a target was given."""
    if config.getoption("--loopspec-impl") or config.getoption("--loopspec-cmd"):
        config.args.append(str(SUITE))
