"""The conformance suite the pytest plugin runs (`pytest --loopspec-impl=MODULE:FACTORY`).

Not collected by loopspec's own test run: the plugin adds this file only when a target is given.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, settings
from hypothesis.stateful import run_state_machine_as_test

from loopspec.properties.conformance.machine import conformance_machine
from loopspec.properties.conformance.run import close_factory, resolve_target


def test_target_conforms_to_the_model(request: pytest.FixtureRequest) -> None:
    """Every random command program gives the same observations from the target and the model."""
    factory, _ = resolve_target(
        request.config.getoption("--loopspec-impl"), request.config.getoption("--loopspec-cmd")
    )
    profile = settings()
    try:
        run_state_machine_as_test(
            conformance_machine(factory),
            settings=settings(profile, deadline=None, suppress_health_check=list(HealthCheck)),
        )
    finally:
        close_factory(factory)
