"""pytest plugin: `pytest --loopspec-impl=package.module:factory` runs the conformance suite.

The factory returns a `loopspec.properties.conformance.target.ConformanceTarget`, for example an
adapter around your own loop; `--loopspec-cmd=COMMAND` runs a driver-protocol process instead.
The suite is `loopspec.properties.conformance.suite`; it runs as many programs as the active
Hypothesis profile's `max_examples`, so a profile registered in your `conftest.py` and chosen
with `--hypothesis-profile=NAME` sizes it (loopspec's own `ci`, `dev` and `thorough` profiles
exist only in its repository's tests).
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
