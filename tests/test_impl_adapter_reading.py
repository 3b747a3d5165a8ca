"""How conform's adapter for the bundled implementation reads back what each command appended.

`ImplAdapter.observe_added` holds the appended bytes to the reference spelling of the events the
live loop committed, and reads them with the implementation's reader only when they differ, so
these tests hold both ways to what reading the whole file says, and a file that differs from
what the loop committed to a refusal."""

from __future__ import annotations

from pathlib import Path

import pytest

from loopspec.impl.errors import CorruptLog
from loopspec.model.commands import SubmitUser
from loopspec.properties.cli.demo_scenario import DEMO_COMMANDS, DEMO_CONFIG
from loopspec.properties.conformance import impl_adapter
from loopspec.properties.conformance.impl_adapter import AdapterRefused, ImplAdapter


def test_added_pieces_make_up_the_whole_log(tmp_path: Path) -> None:
    """Every command's added events and unit ends, put together, are the log as read whole,
    across the demo's crash and recovery."""
    adapter = ImplAdapter(DEMO_CONFIG, tmp_path)
    events: list[object] = []
    ends: list[int] = []
    try:
        for command in DEMO_COMMANDS:
            try:
                adapter.apply(command)
            except AdapterRefused:
                continue
            added = adapter.observe_added()
            events += added.events
            ends += added.unit_ends
        whole = adapter.observe()
    finally:
        adapter.close()
    assert len(whole.unit_ends) > len(DEMO_COMMANDS) // 2  # the demo commits many units
    assert tuple(events) == whole.log
    assert tuple(ends) == whole.unit_ends


def test_ordinary_commands_are_not_parsed_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A live loop's appended bytes, spelled as the reference writer spells its events, are
    taken without the line-by-line parse (most of what reading back cost a command)."""

    def refuse(*_args: object, **_kwargs: object) -> object:
        raise AssertionError("parsed back")

    adapter = ImplAdapter(DEMO_CONFIG, tmp_path)
    try:
        adapter.apply(DEMO_COMMANDS[0])
        adapter.observe_added()  # the header, then the first unit
        monkeypatch.setattr(impl_adapter, "parse_unit_wires", refuse)
        added = 0
        for command in DEMO_COMMANDS[1:4]:
            adapter.apply(command)
            added += len(adapter.observe_added().events)
        assert added
    finally:
        adapter.close()


def _tampered(tmp_path: Path, old: bytes, new: bytes) -> ImplAdapter:
    """An adapter whose log had `old` replaced by `new` on disk after the first command."""
    adapter = ImplAdapter(DEMO_CONFIG, tmp_path)
    adapter.apply(SubmitUser("say hello"))
    path = tmp_path / "session.jsonl"
    data = path.read_bytes()
    assert old in data
    path.write_bytes(data.replace(old, new))
    return adapter


def test_a_file_that_differs_from_what_the_loop_committed_is_refused(tmp_path: Path) -> None:
    adapter = _tampered(tmp_path, b'"say hello"', b'"say jello"')
    try:
        with pytest.raises(AssertionError, match="does not hold what the loop committed"):
            adapter.observe_added()
    finally:
        adapter.close()


def test_a_key_given_twice_on_disk_is_refused(tmp_path: Path) -> None:
    """The same event, read back equal, but spelled with a key twice (LOG-3)."""
    adapter = _tampered(tmp_path, b'"say hello"', b'"say hello","text":"say hello"')
    try:
        with pytest.raises(CorruptLog, match="given twice"):
            adapter.observe_added()
    finally:
        adapter.close()
