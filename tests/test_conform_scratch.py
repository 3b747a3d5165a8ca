"""The bundled target's scratch files: one working directory serves program after program, each
program starting on an empty one, and the log is read back whatever the size of a command's
bytes (`impl_adapter._read_from` reads in chunks). One event loop, likewise, serves program after
program, each starting with nothing scheduled on it.
"""

from __future__ import annotations

import asyncio
import os
import selectors
import socket
from typing import Any

import pytest

from loopspec.model.commands import Crash, Recover, SubmitUser
from loopspec.properties.cli.demo_scenario import DEMO_CONFIG
from loopspec.properties.conformance import impl_adapter
from loopspec.properties.conformance.impl_target import bundled_target


def _files_of_one_program(text: str) -> tuple[str, list[str], tuple[int, ...]]:
    """Run one SubmitUser on a fresh bundled target: the directory it worked in, the files there
    while it ran, and the seqs of the events it reported."""
    target = bundled_target()
    target.reset(DEMO_CONFIG)
    seen = target.apply(SubmitUser(text))
    program_dir = target._program_dir
    assert program_dir is not None
    files = sorted(path.name for path in program_dir.iterdir())
    target.close()
    return str(program_dir), files, tuple(int(event["seq"]) for event in seen.events)


def test_MODEL_1_each_program_starts_on_an_empty_log_in_the_directory_the_last_one_left() -> None:
    first_dir, first_files, first_seqs = _files_of_one_program("first")
    second_dir, second_files, second_seqs = _files_of_one_program("second")
    # The directory is reused, not made and removed per program ...
    assert second_dir == first_dir
    assert first_files == second_files == ["session.jsonl"]
    # ... and the second program's log does not continue the first's.
    assert first_seqs[0] == second_seqs[0] == 0


def test_MODEL_1_targets_open_at_once_each_work_in_their_own_directory() -> None:
    one, other = bundled_target(), bundled_target()
    for target in (one, other):
        target.reset(DEMO_CONFIG)
        assert target.apply(SubmitUser("hello")).events[0]["seq"] == 0
    assert one._program_dir is not None
    assert one._program_dir != other._program_dir
    one.close()
    other.close()


def _event_loop_of_one_program(text: str) -> asyncio.AbstractEventLoop:
    """Run one SubmitUser on a fresh bundled target: the event loop its adapter ran on."""
    target = bundled_target()
    target.reset(DEMO_CONFIG)
    target.apply(SubmitUser(text))
    adapter = target._adapter
    assert isinstance(adapter, impl_adapter.ImplAdapter)
    loop = adapter._event_loop
    target.close()
    return loop


def test_MODEL_1_each_program_runs_on_the_event_loop_the_last_one_left_idle() -> None:
    first = _event_loop_of_one_program("first")
    assert _event_loop_of_one_program("second") is first
    assert not first.is_closed()


def test_MODEL_1_targets_open_at_once_each_run_on_their_own_event_loop() -> None:
    one, other = bundled_target(), bundled_target()
    loops = []
    for target in (one, other):
        target.reset(DEMO_CONFIG)
        target.apply(SubmitUser("hello"))
        assert isinstance(target._adapter, impl_adapter.ImplAdapter)
        loops.append(target._adapter._event_loop)
    one.close()
    one.close()  # closed twice, its event loop is still handed out once
    other.close()
    assert loops[0] is not loops[1]
    taken = impl_adapter._event_loop(), impl_adapter._event_loop()
    assert taken[0] is not taken[1]
    for loop in taken:
        loop.close()


def test_MODEL_1_an_event_loop_left_with_something_to_run_is_closed_not_reused() -> None:
    target = bundled_target()
    target.reset(DEMO_CONFIG)
    target.apply(SubmitUser("hello"))
    assert isinstance(target._adapter, impl_adapter.ImplAdapter)
    loop = target._adapter._event_loop
    loop.call_later(3600, print, "left over")  # a timer the program left behind
    target.close()
    assert loop.is_closed()
    assert _event_loop_of_one_program("next") is not loop


def test_MODEL_1_a_directory_that_will_not_empty_is_not_used_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    target = bundled_target()
    target.reset(DEMO_CONFIG)
    target.apply(SubmitUser("hello"))
    program_dir = target._program_dir
    assert program_dir is not None

    real_unlink = os.unlink
    refused: list[object] = []

    def refuse_once(path: str, *args: Any, **kwargs: Any) -> None:
        if not refused:
            refused.append(path)
            raise PermissionError(f"{path}: not allowed")
        real_unlink(path, *args, **kwargs)

    monkeypatch.setattr(os, "unlink", refuse_once)
    target.close()
    monkeypatch.undo()
    assert refused
    assert not program_dir.exists()
    again = bundled_target()
    again.reset(DEMO_CONFIG)
    again.apply(SubmitUser("hello"))
    assert again._program_dir != program_dir
    again.close()


def test_LOG_8_a_command_s_bytes_are_read_back_whole_wherever_a_read_ends(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A small chunk, so that over these text lengths the log's end falls at every place in a
    # chunk: just before, at and after a chunk's end, one chunk or several.
    chunk = 32
    monkeypatch.setattr(impl_adapter, "_READ_CHUNK", chunk)
    for length in range(3 * chunk):
        text = "x" * length
        target = bundled_target()
        target.reset(DEMO_CONFIG)
        submitted = target.apply(SubmitUser(text))
        assert submitted.commits == (3,), length
        assert submitted.events[2]["data"]["content"][0]["text"] == text, length
        # The next read starts where this one ended, inside a chunk.
        target.apply(Crash())
        recovered = target.apply(Recover())
        assert [event["seq"] for event in recovered.events] == [3, 4], length
        target.close()


def test_LOG_8_after_a_crash_the_repair_closers_are_read_back_from_the_offset_reached() -> None:
    target = bundled_target()
    target.reset(DEMO_CONFIG)
    before = target.apply(SubmitUser("hello"))
    target.apply(Crash())
    recovered = target.apply(Recover())
    seqs = [int(event["seq"]) for event in recovered.events]
    assert seqs, "crash repair appended closers: they are what Recover added"
    assert seqs[0] == len(before.events)
    assert seqs == list(range(seqs[0], seqs[0] + len(seqs)))
    target.close()


def test_MODEL_1_settling_a_command_polls_for_no_io_while_none_is_registered(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    polls: list[float | None] = []
    real_select = selectors.DefaultSelector.select

    def counted(
        self: selectors.BaseSelector, timeout: float | None = None
    ) -> list[tuple[selectors.SelectorKey, int]]:
        polls.append(timeout)
        return real_select(self, timeout)  # type: ignore[arg-type]

    monkeypatch.setattr(selectors.DefaultSelector, "select", counted)
    target = bundled_target()
    target.reset(DEMO_CONFIG)
    seen = target.apply(SubmitUser("hello"))
    target.close()
    assert [event["type"] for event in seen.events] == ["turn/start", "step/start", "user/message"]
    assert polls == []


def test_MODEL_1_a_registered_socket_is_still_polled() -> None:
    selector = impl_adapter._NoIdlePolling()
    wake_up, _peer = socket.socketpair()
    readable, writer = socket.socketpair()
    with selector, wake_up, _peer, readable, writer:
        selector.register(wake_up, selectors.EVENT_READ)
        assert selector.select(0) == []
        selector.register(readable, selectors.EVENT_READ)
        writer.send(b"x")
        assert [key.fileobj for key, _events in selector.select(0)] == [readable]
