"""The test files conftest runs with coverage's tracer paused (UNTRACED_FILES, #15 item 7)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import attrs
import pytest
from conftest import UNTRACED_FILES, pytest_collection_modifyitems

TESTS = Path(__file__).resolve().parent


@attrs.define
class _Item:
    """What the hook reads of a collected test: its file, and the markers it is given."""

    path: Path
    markers: list[pytest.MarkDecorator] = attrs.field(factory=list)

    def add_marker(self, marker: pytest.MarkDecorator) -> None:
        self.markers.append(marker)

    def iter_markers(self, name: str) -> Iterator[pytest.Mark]:
        """The hook also reads a test's `needs` markers (tests/node_requirements.py)."""
        return (marker.mark for marker in self.markers if marker.name == name)


def test_every_untraced_file_is_a_test_file_here() -> None:
    """A name no test file has (a file renamed or removed) is stale: its tests would be traced
    again under the new name, unproven either way."""
    assert sorted(name for name in UNTRACED_FILES if not (TESTS / name).is_file()) == []


def test_tests_of_an_untraced_file_are_marked_no_cover_and_no_other_test_is() -> None:
    untraced = _Item(TESTS / sorted(UNTRACED_FILES)[0])
    traced = _Item(Path(__file__))
    pytest_collection_modifyitems([untraced, traced])  # type: ignore[list-item]  # stand-ins
    assert [marker.name for marker in untraced.markers] == ["no_cover"]
    assert traced.markers == []
