"""What a loop written in another language from the docs alone (a Perl loop, JSON::PP) got
wrong first, and how loopspec tells it: each test pins a report or a documented claim."""

from __future__ import annotations

import sys

import pytest

from loopspec.model.config import LoopConfig
from loopspec.properties.conformance.process_target import ProcessTarget, ProcessTargetError


def _python(code: str) -> list[str]:
    """A fake implementation: this Python running `code`."""
    return [sys.executable, "-c", code]


def test_PROTO_1_an_answer_in_latin_1_is_named_an_encoding_fault_not_a_stray_print() -> None:
    """PROTO-1: JSON::PP without ->utf8 writes "é" as the byte 0xE9. The report said "not a
    JSON line ... write debugging output to stderr", which sent the author looking for a print;
    it names the byte, the encoding it reads as, and UTF-8."""
    code = (
        "import sys; sys.stdin.readline();"
        "sys.stdout.buffer.write("
        '\'{"type": "ready", "implementation": "caf\\u00e9", "capabilities": []}\\n\''
        ".encode('latin-1')); sys.stdout.flush(); sys.stdin.read()"
    )
    target = ProcessTarget(_python(code), name="latin-1")
    with pytest.raises(ProcessTargetError) as caught:
        target.reset(LoopConfig())
    target.close()
    message = str(caught.value)
    assert caught.value.rule_id == "PROTO-1"
    assert "is not UTF-8 (byte 0xe9 at offset 40), though it reads as JSON in Latin-1" in message
    assert "debugging output" not in message
