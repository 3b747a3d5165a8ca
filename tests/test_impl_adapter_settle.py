"""Conform's adapter for the bundled implementation settles each command before observing it."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path

from loopspec.model.commands import SubmitUser
from loopspec.model.events import Event
from loopspec.properties.cli.demo_scenario import DEMO_CONFIG
from loopspec.properties.conformance.impl_adapter import ImplAdapter


def test_a_command_settles_only_when_nothing_is_left_to_run(tmp_path: Path) -> None:
    """What reacting to a command sets going on the event loop, however many iterations it
    takes, runs before the command is observed, not after the next command: here a commit's
    listener that goes on for six iterations (a settle of a fixed number of iterations stopped
    after the first, the turn being parked)."""
    links_run: list[int] = []

    def link(number: int) -> None:
        links_run.append(number)
        if number < 6:
            asyncio.get_running_loop().call_soon(link, number + 1)

    def on_commit(_unit: Sequence[Event]) -> None:
        asyncio.get_running_loop().call_soon(link, 1)

    adapter = ImplAdapter(DEMO_CONFIG, tmp_path, on_commit=on_commit)
    try:
        adapter.apply(SubmitUser("hello"))
        assert links_run == [1, 2, 3, 4, 5, 6]
    finally:
        adapter.close()
