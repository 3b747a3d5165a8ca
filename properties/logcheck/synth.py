"""Session logs in the dsh wire format, produced by the reference model.

The checker's fixtures and benchmarks need logs that keep every rule. Rather than writing them by
hand, they are *run*: `model_rows` steps the model through commands and returns its log as wire
rows. `as_harness_writes` then dresses a model log the way a real dsh harness writes it — stream
chunks before each reply (single `assistant/chunk` rows and compact `*-chunks` rows), request and
inbox plugin events, a session title — without changing anything the rules read, so the result
still keeps every rule. `repeat_turns` renumbers a balanced log over and over to make logs of any
length quickly (the benchmarks' million-event logs).

Rows are plain JSON objects (`dict`); a row is an event, or a compact row standing for
several chunk events (`loopspec.properties.logcheck.compact_rows`).
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from loopspec.impl.framing import UNIT_KEY
from loopspec.model.commands import Command
from loopspec.model.config import LoopConfig
from loopspec.model.state import LoopState
from loopspec.model.transitions import step
from loopspec.model.wire import event_to_wire
from loopspec.properties.logcheck import MARKED_VERSION
from loopspec.properties.logcheck.compact_rows import COUNT_FIELDS, is_compact

Row = dict[str, Any]

HEADER: Row = {
    "type": "session",
    "version": 0,
    "id": "0f6c2a3e-5b1d-4c8e-9a7f-3d2e1b0c9a88",
    "createdAt": 1_700_000_000_000,
    "cwd": "/workspace",
}
# The header of a log that marks its commits (`marked_model_rows`).
MARKED_HEADER: Row = {**HEADER, "version": MARKED_VERSION}


def model_rows(config: LoopConfig, commands: Iterable[Command]) -> list[Row]:
    """The model's log after `commands`, as wire rows."""
    return [event_to_wire(event) for event in _run(config, commands).log]


def marked_model_rows(config: LoopConfig, commands: Iterable[Command]) -> list[Row]:
    """The model's log after `commands` as `loopspec run` writes it, to follow `MARKED_HEADER`:
    every event of a commit of n >= 2 events marked `unit: [k, n]` (`loopspec.impl.framing`)."""
    state = _run(config, commands)
    rows = [event_to_wire(event) for event in state.log]
    start = 0
    for end in state.commit_ends:
        if end - start > 1:
            for k, row in enumerate(rows[start:end], start=1):
                row[UNIT_KEY] = [k, end - start]
        start = end
    return rows


def _run(config: LoopConfig, commands: Iterable[Command]) -> LoopState:
    state = LoopState(config)
    for command in commands:
        state = step(state, command)
    return state


def row_span(row: Row) -> int:
    """How many events a row stands for."""
    if is_compact(row):
        return len(row["data"][COUNT_FIELDS[row["type"]]])
    return 1


def jsonl(header: Row | None, rows: Iterable[Row]) -> str:
    """The text of a log file: the header line (if any), then one row per line."""
    lines = [] if header is None else [json.dumps(header, ensure_ascii=False)]
    lines.extend(json.dumps(row, ensure_ascii=False) for row in rows)
    return "".join(line + "\n" for line in lines)


# ---------------------------------------------------------------------------------------------
# Renumbering: seqs become indices again after rows were added, and citations follow.


def renumber(rows: Sequence[Row]) -> list[Row]:
    """Copies of `rows` with contiguous seqs from 0; citations follow the events they cite.

    A row whose `seq` is None is new: it gets the next seq. `sourceEventSeqs` and replace spans
    are mapped from old seqs to new ones.
    """
    mapping: dict[int, int] = {}
    renumbered: list[Row] = []
    seq = 0
    for row in rows:
        new = dict(row)
        if is_compact(row):
            new["seq0"] = seq
        else:
            if row.get("seq") is not None:
                mapping[row["seq"]] = seq
            new["seq"] = seq
            _map_citations(new, mapping)
        renumbered.append(new)
        seq += row_span(row)
    return renumbered


def _map_citations(row: Row, mapping: dict[int, int]) -> None:
    if "sourceEventSeqs" in row:
        row["sourceEventSeqs"] = [mapping[s] for s in row["sourceEventSeqs"]]
    op = row.get("surfaceOp")
    if isinstance(op, dict):
        row["surfaceOp"] = {**op, "start": mapping[op["start"]], "end": mapping[op["end"]]}


# ---------------------------------------------------------------------------------------------
# What a real harness adds around the model's events.


def _chunk(turn: int, step_no: int, chunk: Row) -> Row:
    return {
        "type": "assistant/chunk",
        "seq": None,
        "time": 0,
        "data": {"turn": turn, "step": step_no, "chunk": chunk},
    }


def _stream_rows(reply: Row) -> list[Row]:
    """The chunk rows a harness writes while a reply streams in, block by block."""
    data = reply["data"]
    turn, step_no = data["turn"], data["step"]
    rows: list[Row] = []
    for index, block in enumerate(data["message"]["content"]):
        kind = block.get("type")
        if kind not in ("text", "reasoning", "tool-call"):
            continue
        rows.append(
            _chunk(turn, step_no, {"type": "block-start", "index": index, "blockType": kind})
        )
        if kind == "tool-call":
            pieces = _split(block["arguments"])
            extra = {"id": block["id"], "name": block["name"], "args": pieces}
            compact_type = "tool-call-chunks"
        else:
            pieces = _split(block["text"])
            extra = {"texts": pieces}
            compact_type = f"{kind}-chunks"
        if len(pieces) == 1:
            delta = {"type": "text-delta", "index": index, "text": pieces[0]}
            rows.append(_chunk(turn, step_no, delta))
        else:
            dt = [1] * (len(pieces) - 1)
            data_row = {"turn": turn, "step": step_no, "index": index, "dt": dt, **extra}
            rows.append({"type": compact_type, "seq0": None, "time0": 0, "data": data_row})
        rows.append(_chunk(turn, step_no, {"type": "block-end", "index": index, "block": block}))
    usage = {"type": "usage", "usage": {"inputTokens": 10, "outputTokens": 5}}
    rows.append(_chunk(turn, step_no, usage))
    rows.append(_chunk(turn, step_no, {"type": "finish", "reason": {"kind": "stop"}}))
    return rows


def _split(text: str) -> list[str]:
    """A text cut into stream deltas of up to four characters (never none)."""
    return [text[i : i + 4] for i in range(0, len(text), 4)] or [""]


def _request_rows() -> list[Row]:
    config = {"provider": "scripted", "model": "scripted-model"}
    header = {"config": config, "system": "{{system}}", "tools": "{{tools}}"}
    return [
        {"type": "request/header", "seq": None, "time": 0, "data": {"header": header}},
        {"type": "request/context", "seq": None, "time": 0, "data": config},
    ]


def as_harness_writes(rows: Sequence[Row]) -> list[Row]:
    """`rows` dressed as a dsh harness writes them; every rule still holds.

    Inbox splices before each turn, a session title after the first user message, and for each
    step with a reply: request events and the reply's stream chunks right after the step's
    opening user messages, the reply citing its chunks in `sourceEventSeqs`.
    """
    dressed: list[Row] = []
    chunks_of: dict[int, list[Row]] = {}
    titled = False
    for index, row in enumerate(rows):
        kind = row["type"]
        if kind == "turn/start":
            splice = {"target": "next-turn", "start": 0, "inserted": []}
            dressed.append({"type": "agent/inbox/spliced", "seq": None, "time": 0, "data": splice})
        dressed.append(row)
        if kind == "user/message" and not titled:
            titled = True
            title = {"title": "{{title}}", "source": {"kind": "fallback"}}
            dressed.append({"type": "session/title", "seq": None, "time": 0, "data": title})
        if kind in ("step/start", "user/message") and _next_type(rows, index) != "user/message":
            reply = _reply_of_step(rows, index)
            if reply is not None and id(reply) not in chunks_of:
                stream = _stream_rows(reply)
                chunks_of[id(reply)] = stream
                dressed.extend(_request_rows())
                dressed.extend(stream)
    renumbered = renumber(dressed)
    return _cite_chunks(dressed, renumbered, chunks_of)


def _next_type(rows: Sequence[Row], index: int) -> str | None:
    return rows[index + 1]["type"] if index + 1 < len(rows) else None


def _reply_of_step(rows: Sequence[Row], index: int) -> Row | None:
    """The step's assistant/message after `index`, if one comes before the step ends."""
    for row in rows[index + 1 :]:
        if row["type"] == "assistant/message":
            return row
        if row["type"] in ("step/end", "step/start", "turn/end"):
            return None
    return None


def _cite_chunks(old: Sequence[Row], new: list[Row], chunks_of: dict[int, list[Row]]) -> list[Row]:
    position = {id(row): i for i, row in enumerate(old)}
    for row in old:
        stream = chunks_of.get(id(row))
        if stream is None:
            continue
        cited: list[int] = []
        for chunk in stream:
            fresh = new[position[id(chunk)]]
            first = fresh["seq0"] if is_compact(fresh) else fresh["seq"]
            cited.extend(range(first, first + row_span(fresh)))
        new[position[id(row)]]["sourceEventSeqs"] = cited
    return new


# ---------------------------------------------------------------------------------------------
# Long logs.


def repeat_turns(rows: Sequence[Row], events: int) -> Iterator[Row]:
    """`rows` (balanced turns, seqs from 0) repeated with shifted seqs and turns, `events` long.

    The last repetition is cut at a row boundary, so the count may fall a little short.
    """
    span = sum(row_span(row) for row in rows)
    turns = sum(1 for row in rows if row["type"] == "turn/start")
    if span == 0 or turns == 0:
        return
    produced = 0
    for round_no in range(events // span + 1):
        for row in rows:
            if produced + row_span(row) > events:
                return
            yield _shifted(row, round_no * span, round_no * turns)
            produced += row_span(row)


def _shifted(row: Row, seq_offset: int, turn_offset: int) -> Row:
    shifted = copy.copy(row)
    if is_compact(row):
        shifted["seq0"] = row["seq0"] + seq_offset
    else:
        shifted["seq"] = row["seq"] + seq_offset
    data = row.get("data")
    if isinstance(data, dict) and type(data.get("turn")) is int:
        shifted["data"] = {**data, "turn": data["turn"] + turn_offset}
    if "sourceEventSeqs" in row:
        shifted["sourceEventSeqs"] = [s + seq_offset for s in row["sourceEventSeqs"]]
    op = row.get("surfaceOp")
    if isinstance(op, dict):
        shifted["surfaceOp"] = {
            **op,
            "start": op["start"] + seq_offset,
            "end": op["end"] + seq_offset,
        }
    return shifted
