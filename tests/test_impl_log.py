"""`impl`'s session log: append rules, commit units on disk, the reader, repair (LOG, REC)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import pytest
import zstandard
from hypothesis import given
from hypothesis import strategies as st

from loopspec.impl.clock import FixedClock
from loopspec.impl.errors import CorruptLog, ImplError, NotJsonData, SessionLocked
from loopspec.impl.framing import close_lines, encode_event, unit_marker, without_marker
from loopspec.impl.log_file import LockedLogFile
from loopspec.impl.log_reader import json_line, parse_log, parse_unit_wires, read_log
from loopspec.impl.log_writer import BUFFERED, SYNCED, WRITTEN, Durability, UnitWriter
from loopspec.impl.opening import SessionInfo, open_log
from loopspec.impl.repair import closers
from loopspec.impl.session_log import SessionLog
from loopspec.model.events import (
    AssistantMessageRecorded,
    Event,
    OpaqueEvent,
    StepStarted,
    ToolCallRecorded,
    TurnStarted,
)
from loopspec.model.jsonvalue import FrozenMap
from loopspec.model.messages import AssistantMessage, TextBlock, ToolCallBlock
from loopspec.model.repair import interrupted_turn_closers
from loopspec.model.state import LoopState
from loopspec.model.transitions import step
from loopspec.model.wire import event_to_wire
from loopspec.properties.cli.demo_scenario import DEMO_COMMANDS, DEMO_CONFIG

CLOCK = FixedClock(1_700_000_000_000)
SESSION = SessionInfo("s", "/w")


class MemorySink:
    """Collects units, each as its framed lines, instead of writing them."""

    def __init__(self) -> None:
        self.units: list[list[bytes]] = []

    def write_unit(self, unit: bytes) -> None:
        self.units.append(unit.splitlines())


def demo_log() -> tuple[Event, ...]:
    state = LoopState(DEMO_CONFIG)
    for command in DEMO_COMMANDS:
        state = step(state, command)
    return state.log


def write_units(path: Path, units: Sequence[Sequence[Event]]) -> None:
    """A log file holding `units`, written by impl's own writer."""
    opened = open_log(path, WRITTEN, SESSION, CLOCK)
    for unit in units:
        for event in unit:
            opened.log.add(event)
        opened.log.commit()
    opened.writer.close()


def opening_units() -> list[list[Event]]:
    reply = AssistantMessage(
        "m2",
        (ToolCallBlock("c1", "read", "{}"), ToolCallBlock("c2", "read", "{}")),
        FrozenMap({"kind": "model"}),
    )
    return [
        [TurnStarted(0, 1, 1), StepStarted(1, 1, 1, 1)],
        [
            AssistantMessageRecorded(2, 1, 1, 1, reply),
            ToolCallRecorded(3, 1, 1, 1, "c1", "read", "{}"),
            ToolCallRecorded(4, 1, 1, 1, "c2", "read", "{}"),
        ],
    ]


# --- appending ---------------------------------------------------------------------------


def test_LOG_1_seqs_are_contiguous() -> None:
    """LOG-1: an event whose seq is not the next one is refused."""
    log = SessionLog(MemorySink())
    log.add(TurnStarted(0, 1, 1))
    with pytest.raises(ValueError, match="LOG-1"):
        log.add(StepStarted(2, 1, 1, 1))


def test_LOG_1_a_slice_of_the_committed_events_is_what_the_whole_log_holds_there() -> None:
    """LOG-1: `events_between` (what conformance reads after each command) is a slice of
    `events`, never an uncommitted event."""
    log = SessionLog(MemorySink())
    log.add(TurnStarted(0, 1, 1))
    log.add(StepStarted(1, 1, 1, 1))
    log.commit()
    log.add(StepStarted(2, 1, 1, 2))
    assert log.events_between(0, 5) == tuple(log.events) == log.events_between(0, 2)
    assert log.events_between(1, 2) == tuple(log.events[1:2])


@pytest.mark.parametrize(
    ("data", "path"),
    [
        ({"values": {1, 2}}, "$.data.values"),
        ({"ratio": float("nan")}, "$.data.ratio"),
        ({"nested": [{"when": object()}]}, "$.data.nested[0].when"),
        ({"big": 10**4300}, "$.data.big"),
    ],
)
def test_LOG_3_non_json_data_is_refused_with_a_clear_error(data: object, path: str) -> None:
    """LOG-3: data JSON cannot carry is refused on append, naming where it sits; nothing lands."""
    log = SessionLog(MemorySink())
    with pytest.raises(NotJsonData) as refused:
        log.add(OpaqueEvent("plugin/note", 0, 1, data))  # type: ignore[arg-type]
    assert refused.value.path == path
    assert log.next_seq == 0


def _read_as_json_reads(line: bytes) -> tuple[str, str]:
    """What `json.loads` makes of `line` (its value as JSON, or its error), and what the log
    reader makes of it, alike."""
    outcomes = []
    for read in (json.loads, json_line):
        try:
            outcomes.append(json.dumps(read(line)))
        except (ValueError, RecursionError) as error:
            outcomes.append(f"{type(error).__name__}: {error}")
    first, second = outcomes
    return first, second


_LINE = '{"type":"plugin/note","seq":1,"data":{"text":"a note"}}'


@pytest.mark.parametrize(
    "line",
    [
        _LINE.replace("a note", "caf\u00e9 \U0001f600").encode(),
        _LINE.encode("utf-16-le"),  # json detects it by its zero bytes (and UTF-8 reads it)
        _LINE.encode("utf-16-be"),
        _LINE.encode("utf-32"),
        _LINE.encode("utf-8-sig"),
        b'{"text":"\xff"}',  # not UTF-8 at all
        b'{"text":"' + "\ud800".encode("utf-8", "surrogatepass") + b'"}',  # a lone surrogate
        b'{"a":1} \r',
        b'{"a":1}\x1c',  # blank to str.strip, not to json
        b'{"a":1} {"b":2}',
        b'{"a":NaN,"b":-Infinity}',
        b'{"a":',
        b"{",
        b"",
        b"[1]",
    ],
)
def test_LOG_3_a_log_line_reads_as_json_reads_it(line: bytes) -> None:
    """LOG-3: the reader's quick path for a UTF-8 line gives what `json.loads` gives, value or
    refusal, for every line, in any encoding json detects."""
    expected, read = _read_as_json_reads(line)
    assert read == expected


@given(st.binary(max_size=40).map(lambda tail: b"{" + tail))
def test_LOG_3_any_bytes_read_as_json_reads_them(line: bytes) -> None:
    """LOG-3: the same for any bytes that open an object, the lines the quick path takes."""
    expected, read = _read_as_json_reads(line)
    assert read == expected


def test_LOG_3_stored_events_are_deep_frozen_copies() -> None:
    """LOG-3: the stored event shares nothing mutable with what the caller passed."""
    sink = MemorySink()
    log = SessionLog(sink)
    items: list[object] = [1, {"k": "v"}]
    stored = log.add(OpaqueEvent("plugin/note", 0, 1, {"items": items}))  # type: ignore[arg-type]
    items.append(2)
    log.commit()
    assert isinstance(stored, OpaqueEvent)
    assert stored.data == FrozenMap({"items": (1, FrozenMap({"k": "v"}))})
    assert json.loads(sink.units[0][0])["data"] == {"items": [1, {"k": "v"}]}


def test_LOG_8_a_unit_is_published_only_once_written() -> None:
    """LOG-8: subscribers and readers see a unit only after the sink took it whole."""
    sink = MemorySink()
    log = SessionLog(sink)
    published: list[list[int]] = []
    log.subscribe(lambda unit: published.append([event.seq for event in unit]))
    for event in opening_units()[0]:
        log.add(event)
    assert log.events == ()
    assert not published
    log.commit()
    assert published == [[0, 1]]
    assert log.unit_ends == (2,)
    assert [len(unit) for unit in sink.units] == [2]


# --- units on disk and the reader --------------------------------------------------------


def test_LOG_8_multi_event_units_are_marked_on_disk(tmp_path: Path) -> None:
    """LOG-8: each event of an n-event unit carries `unit: [k, n]`; single events carry none."""
    path = tmp_path / "log.jsonl"
    write_units(path, [*opening_units(), [TurnStarted(5, 1, 2)]])
    lines = [json.loads(line) for line in path.read_bytes().splitlines()]
    assert [line.get("unit") for line in lines[1:]] == [
        [1, 2],
        [2, 2],
        [1, 3],
        [2, 3],
        [3, 3],
        None,
    ]
    parsed = read_log(path)
    assert parsed.unit_ends == (2, 5, 6)
    assert event_to_wire(parsed.events[0]) == event_to_wire(TurnStarted(0, 1, 1))


@pytest.mark.parametrize("size", [1, 2, 3, 300])
def test_LOG_8_units_of_every_size_are_marked_alike(size: int) -> None:
    """LOG-8: framing a unit (a small one, or one too large for the cache of line endings)
    closes each event's open line and marks its k-th line `unit: [k, size]` (a lone event's
    line: no marker), leaving the event's object otherwise as it was, the same way every
    time."""
    encoded = [
        encode_event({"type": "note", "seq": seq, "data": {"n": seq}}) for seq in range(size)
    ]
    for _ in range(2):  # the second framing reads the cached endings, where there are any
        parts = [part for line in encoded for part in (line.removesuffix(b"}"), b"")]
        lines = close_lines(parts).splitlines(keepends=True)
        assert len(lines) == size
        for k, (line, original) in enumerate(zip(lines, encoded, strict=True), start=1):
            assert line.endswith(b"}\n")
            assert line.count(b"\n") == 1
            decoded = json.loads(line)
            assert unit_marker(decoded) == (None if size == 1 else (k, size))
            assert without_marker(decoded) == json.loads(original)
            if size == 1:
                assert line == original + b"\n"


def test_LOG_8_a_torn_last_line_is_cut_and_reported(tmp_path: Path) -> None:
    """LOG-8: a last line without its newline is dropped; opening truncates it and says so."""
    path = tmp_path / "log.jsonl"
    write_units(path, opening_units()[:1])
    whole = path.read_bytes()
    path.write_bytes(whole + b'{"type":"step/end","se')
    parsed = read_log(path)
    assert parsed.damage.torn_bytes == len(b'{"type":"step/end","se')
    assert parsed.valid_bytes == len(whole)
    assert len(parsed.events) == 2
    assert "torn last line" in parsed.damage.describe()
    opened = open_log(path, WRITTEN, SESSION, CLOCK)
    opened.writer.close()
    assert opened.damage.torn_bytes > 0
    assert path.read_bytes() == whole


def test_LOG_8_an_unfinished_unit_is_dropped_whole(tmp_path: Path) -> None:
    """LOG-8: the lines of a unit whose last line never came are all dropped (no partial reply)."""
    path = tmp_path / "log.jsonl"
    write_units(path, opening_units())
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join(lines[:5]))  # header, the first unit, two lines of the second
    parsed = read_log(path)
    assert parsed.damage.unfinished_unit_events == 2
    assert [event.seq for event in parsed.events] == [0, 1]
    assert parsed.valid_bytes == len(b"".join(lines[:3]))


def test_LOG_8_a_marker_written_null_is_no_marker_to_both_readers(tmp_path: Path) -> None:
    """LOG-8: a line whose `unit` is null is an event committed alone, as check reads it, to
    both of impl's readers: each reads the same event without the key. The reader of appended
    units (conform's) kept `"unit": null` in the wire object, which then differed from the
    event the loop committed."""
    path = tmp_path / "log.jsonl"
    write_units(path, [[TurnStarted(0, 1, 1)], [StepStarted(1, 1, 1, 1)]])
    header, first, *rest = path.read_bytes().splitlines(keepends=True)
    nulled = first.replace(b"}\n", b',"unit":null}\n')
    assert nulled != first
    parsed = parse_log(b"".join([header, nulled, *rest]))
    wires, unit_ends, size = parse_unit_wires(b"".join([nulled, *rest]), 0, 2)
    assert wires == [event_to_wire(event) for event in parsed.events]
    assert wires[0] == event_to_wire(TurnStarted(0, 1, 1))
    assert unit_ends == [1, 2]
    assert list(parsed.unit_ends) == unit_ends
    assert size == len(nulled) + sum(map(len, rest))


def test_LOG_8_damage_a_crash_cannot_explain_is_refused(tmp_path: Path) -> None:
    """LOG-8: a garbled line or a broken unit in the middle is corruption, not a torn tail."""
    path = tmp_path / "log.jsonl"
    write_units(path, [*opening_units(), [TurnStarted(5, 1, 2)]])
    lines = path.read_bytes().splitlines(keepends=True)
    with pytest.raises(CorruptLog, match="line 3"):
        parse_log(b"".join([*lines[:2], b"not json\n", *lines[3:]]))
    restarted = lines[4].replace(b'"unit":[2,3]', b'"unit":[1,3]')
    with pytest.raises(CorruptLog, match="out of sequence"):
        parse_log(b"".join([*lines[:4], restarted, *lines[5:]]))
    with pytest.raises(CorruptLog, match="seq"):
        parse_log(b"".join([lines[0], *lines[3:]]))


@pytest.mark.parametrize("blank", [b"\n", b"  \t\n", b"\n\n"])
def test_LOG_4_blank_lines_that_end_a_log_are_cut_and_hold_no_event(
    blank: bytes, tmp_path: Path
) -> None:
    """LOG-4: blank lines at the end of a log are no events (dsh drops them on reopening too):
    the reader leaves them out of the bytes it keeps, and opening cuts them, so that what it
    appends next does not follow a blank line. They were read as an event and refused."""
    path = tmp_path / "log.jsonl"
    write_units(path, opening_units())
    whole = path.read_bytes()
    path.write_bytes(whole + blank)
    parsed = read_log(path)
    assert parsed.valid_bytes == len(whole)
    assert parsed.damage.clean
    assert [event.seq for event in parsed.events] == [0, 1, 2, 3, 4]
    open_log(path, WRITTEN, SESSION, CLOCK).writer.close()
    assert path.read_bytes() == whole


@pytest.mark.parametrize("blank", [b"\n", b"   \n"])
def test_LOG_4_a_blank_line_with_lines_after_it_is_refused_naming_it(
    blank: bytes, tmp_path: Path
) -> None:
    """LOG-4: a blank line in the middle of a log is corruption, said as such (check reports it
    as an input error too: dsh refuses such a log, or drops every line after the blank one)."""
    path = tmp_path / "log.jsonl"
    write_units(path, opening_units())
    lines = path.read_bytes().splitlines(keepends=True)
    with pytest.raises(CorruptLog, match="line 4 is blank, with lines after it"):
        parse_log(b"".join([*lines[:3], blank, *lines[3:]]))


def test_LOG_3_a_line_giving_a_key_twice_is_refused_not_read_keeping_the_last(
    tmp_path: Path,
) -> None:
    """LOG-3: the impl's reader of its log read a line whose object gives a key twice keeping
    the last value (a turn/start "turn": 9 then "turn": 1 read as turn 1), where check refuses
    it; reopening such a log is refused, naming the line and the JSON path."""
    path = tmp_path / "log.jsonl"
    write_units(path, [*opening_units(), [TurnStarted(5, 1, 2)]])
    lines = path.read_bytes().splitlines(keepends=True)
    assert b'"turn":' in lines[1]
    twice = lines[1].replace(b'"turn":', b'"turn":9,"turn":', 1)
    with pytest.raises(CorruptLog, match=r"line 2: \$\.data\.turn is given twice in its object"):
        parse_log(b"".join([lines[0], twice, *lines[2:]]))


def test_LOG_5_a_log_without_a_complete_header_starts_anew(tmp_path: Path) -> None:
    """LOG-5: a crash while writing the header leaves a session that never started."""
    path = tmp_path / "log.jsonl"
    path.write_bytes(b'{"type":"sess')
    opened = open_log(path, WRITTEN, SESSION, CLOCK)
    opened.writer.close()
    header = json.loads(path.read_bytes().splitlines()[0])
    assert (header["type"], header["id"]) == ("session", "s")


def test_LOG_8_compressed_logs_read_like_plain_ones(tmp_path: Path) -> None:
    """A `.jsonl.zst` log (one frame or several) reads to the same events and units."""
    plain_path = tmp_path / "log.jsonl"
    write_units(plain_path, opening_units())
    data = plain_path.read_bytes()
    single = tmp_path / "one.jsonl.zst"
    single.write_bytes(zstandard.ZstdCompressor().compress(data))
    middle = data.index(b"\n", len(data) // 2) + 1
    framed = tmp_path / "two.jsonl.zst"
    compressor = zstandard.ZstdCompressor()
    framed.write_bytes(compressor.compress(data[:middle]) + compressor.compress(data[middle:]))
    expected = read_log(plain_path)
    for path in (single, framed):
        parsed = read_log(path)
        assert parsed.events == expected.events
        assert parsed.unit_ends == expected.unit_ends
        assert parsed.damage.clean


def test_LOG_8_a_cut_compressed_stream_reads_its_decodable_prefix(tmp_path: Path) -> None:
    """A compressed log cut mid-frame is read as far as it decodes, and reported."""
    plain_path = tmp_path / "log.jsonl"
    write_units(plain_path, opening_units())
    compressed = zstandard.ZstdCompressor().compress(plain_path.read_bytes())
    cut = tmp_path / "cut.jsonl.zst"
    cut.write_bytes(compressed[:-4])
    parsed = read_log(cut)
    assert parsed.damage.truncated_stream
    assert not parsed.damage.clean
    garbage = tmp_path / "garbage.jsonl.zst"
    garbage.write_bytes(b"not zstd at all")
    with pytest.raises(CorruptLog):
        read_log(garbage)
    with pytest.raises(ImplError, match="compressed"):
        open_log(cut, WRITTEN, SESSION, CLOCK)


# --- the file and the writer -------------------------------------------------------------


def test_LOG_8_one_live_writer_per_log(tmp_path: Path) -> None:
    """A second opener is refused while the first holds the file, and may open after it."""
    path = tmp_path / "log.jsonl"
    first = open_log(path, WRITTEN, SESSION, CLOCK)
    with pytest.raises(SessionLocked):
        open_log(path, WRITTEN, SESSION, CLOCK)
    first.writer.abandon()
    open_log(path, WRITTEN, SESSION, CLOCK).writer.close()


def test_LOG_8_durability_policies(tmp_path: Path) -> None:
    """Per-commit writes reach the file at once; buffered ones only on flush."""
    path = tmp_path / "log.jsonl"
    file = LockedLogFile.open(path)
    writer = UnitWriter(file, BUFFERED)
    writer.write_unit(close_lines([b'{"a":1', b""]))
    assert path.read_bytes() == b""
    writer.flush()
    assert path.read_bytes() == b'{"a":1}\n'
    writer.close()
    file = LockedLogFile.open(path)
    writer = UnitWriter(file, SYNCED)
    writer.write_unit(close_lines([b'{"b":2', b"", b'{"c":3', b""]))
    assert path.read_bytes().endswith(b'{"b":2,"unit":[1,2]}\n{"c":3,"unit":[2,2]}\n')
    writer.abandon()
    with pytest.raises(ValueError, match="synced before it is written"):
        Durability(sync_every_commit=True, write_every_commit=False)


# --- crash repair ------------------------------------------------------------------------


def test_REC_1_repair_closes_the_open_turn_as_the_model_does() -> None:
    """REC-1: for every prefix of a real log, impl's closers are the model's, event for event."""
    log = demo_log()
    for end in range(len(log) + 1):
        prefix = log[:end]
        assert tuple(closers(prefix)) == interrupted_turn_closers(prefix), f"prefix {end}"


def test_REC_1_closers_carry_the_last_events_time_and_a_reply_without_records() -> None:
    """REC-1: closer time is the last event's; a call never recorded is TOOL_NOT_STARTED."""
    units = opening_units()
    reply_only = (*units[0], units[1][0], units[1][1])
    made = closers(reply_only)
    assert [type(event).__name__ for event in made] == [
        "ToolResultRecorded",
        "ToolResultRecorded",
        "StepEnded",
        "TurnEnded",
    ]
    assert all(event.time == reply_only[-1].time for event in made)
    codes = [event_to_wire(event)["data"].get("error", {}).get("code") for event in made[:2]]
    assert codes == ["TOOL_OUTCOME_UNKNOWN", "TOOL_NOT_STARTED"]
    assert tuple(made) == interrupted_turn_closers(reply_only)
    assert closers(()) == []
    text_only = AssistantMessage("m9", (TextBlock("hi"),), FrozenMap({"kind": "model"}))
    assert len(closers((*units[0], AssistantMessageRecorded(2, 1, 1, 1, text_only)))) == 2


@pytest.mark.parametrize("created_at", [b"1e999", b"-1e999"])
def test_LOG_5_a_header_whose_createdAt_is_infinite_is_a_corrupt_log_not_a_crash(
    tmp_path: Path, created_at: bytes
) -> None:
    """LOG-5: `createdAt` is a number of milliseconds; json reads 1e999 as an infinity, which the
    header's reader turned into an int and crashed on (OverflowError, a traceback from
    `loopspec run --log` on such a log). It is refused as a corrupt log naming LOG-5."""
    path = tmp_path / "log.jsonl"
    write_units(path, opening_units())
    lines = path.read_bytes().splitlines(keepends=True)
    header = json.loads(lines[0])
    broken = lines[0].replace(str(header["createdAt"]).encode(), created_at)
    with pytest.raises(CorruptLog, match=r"\[LOG-5\] session.createdAt must be a finite number"):
        parse_log(b"".join([broken, *lines[1:]]))
