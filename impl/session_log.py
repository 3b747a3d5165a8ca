"""The open session's log in memory: append-only, contiguous seqs, committed in whole units.

The loop `add`s events to the open unit and `commit`s the unit when it is about to wait for the
outside world. On `add`, an event is checked (its seq is the next one, rule LOG-1; its data is
lossless JSON, rule LOG-3, refused with `NotJsonData` naming the path) and stored deep-frozen,
so memory holds exactly what the file will, and nothing the caller keeps can change it. An event
built only of exact frozen JSON types (every one the loop builds) is written straight from its
fields (`event_lines`), a pass that is also its immutability and JSON check, and stored as it
is. Any other event takes the reference path: its wire object, encoded by the C encoder, which
refuses what JSON cannot carry (only then, or for a `-0.0` it would write, does the path-naming
check walk the data); it is stored as it is when deeply frozen, else as a copy rebuilt from its
wire object. Either way the event's line is encoded on `add` but for its ending (the closing
brace, and the unit marker on a unit of several events, which is known only at the commit). On
`commit`, the endings are filled in, the unit goes to the sink as one piece of bytes, and only
then becomes visible: to `events`, and to every subscriber (history, presentation).
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterable, Sequence
from functools import partial
from typing import Protocol

import attrs

from loopspec.impl.errors import LoopDiscarded, NotJsonData
from loopspec.impl.event_lines import NOT_PLAIN, OPEN_LINE_WRITERS
from loopspec.impl.framing import UNIT_KEY, close_lines, encode_event
from loopspec.impl.snapshot import check_json
from loopspec.model.events import Event
from loopspec.model.jsonvalue import FrozenMap
from loopspec.model.wire import event_from_wire, event_to_wire

UnitListener = Callable[[Sequence[Event]], None]


class UnitSink(Protocol):
    """Where committed units go (the durable writer, or memory in tests and benchmarks)."""

    def write_unit(self, unit: bytes) -> None:
        """Store one unit's framed lines (`framing.close_lines`), whole, before returning."""


class SessionLog:
    """Committed events, the unit being built, and the subscribers to tell about commits."""

    def __init__(
        self, sink: UnitSink, events: Sequence[Event] = (), unit_ends: Sequence[int] = ()
    ) -> None:
        self._write_unit = sink.write_unit  # read once: a commit calls it every time
        self._events: list[Event] = list(events)
        self._unit_ends: list[int] = list(unit_ends)
        self._pending: list[Event] = []
        # The open unit's lines as `close_lines` takes them: each open line, then a slot for
        # its ending.
        self._lines: list[bytes] = []
        self._listeners: list[UnitListener] = []
        self._usable = True
        self._next_seq = len(self._events)

    @property
    def next_seq(self) -> int:
        """The seq the next added event must carry."""
        return self._next_seq

    @property
    def events(self) -> Sequence[Event]:
        """The committed events (a read-only view)."""
        return tuple(self._events)

    def events_between(self, start: int, stop: int) -> tuple[Event, ...]:
        """The committed events `start` up to `stop` (a slice, without copying the whole log)."""
        return tuple(self._events[start:stop])

    def unit_ends_after(self, start: int) -> tuple[int, ...]:
        """Where the committed units that end after event `start` end: the last few, found from
        the end of the list (a reader that keeps up asks for one or two)."""
        ends = self._unit_ends
        index = len(ends)
        while index and ends[index - 1] > start:
            index -= 1
        return tuple(ends[index:])

    @property
    def unit_ends(self) -> tuple[int, ...]:
        """Where each committed unit ended (event counts)."""
        return tuple(self._unit_ends)

    @property
    def last_time(self) -> int | None:
        """The time of the last event added, committed or not."""
        last = self._pending[-1] if self._pending else (self._events[-1] if self._events else None)
        return None if last is None else last.time

    def subscribe(self, listener: UnitListener) -> None:
        """Call `listener(events)` after every commit with the unit's events."""
        self._listeners.append(listener)

    def add(self, event: Event) -> Event:
        """Add `event` to the open unit; return the stored (deep-frozen) copy."""
        if not self._usable:
            raise LoopDiscarded("this log accepts no more events")
        if event.seq != self._next_seq:
            raise ValueError(f"[LOG-1] event seq {event.seq} where {self._next_seq} is due")
        # An event of exact frozen JSON types (every one the loop builds) is written straight
        # from its fields and kept as it is; anything else takes the reference path. The
        # writer is looked up here rather than through `event_lines.open_event_line`: this runs
        # for every event, and a Python call costs as much as writing a short event's line.
        write = OPEN_LINE_WRITERS.get(type(event))
        try:
            line = None if write is None else write(event).encode()
        except NOT_PLAIN:
            line = None
        if line is None:
            line, event = _reference_line(event)
            line = line[:-1]  # the line's closing brace: the commit writes it
        self._lines += (line, b"")
        self._pending.append(event)
        self._next_seq += 1
        return event

    def commit(self) -> None:
        """Write the open unit whole, then publish it; nothing happens for an empty unit."""
        if not self._pending:
            return
        if not self._usable:
            raise LoopDiscarded("this log accepts no more events")
        unit = self._pending
        try:
            self._write_unit(close_lines(self._lines))
        except BaseException:
            # The file may now hold part of the unit; appending after it would bury the damage.
            self._usable = False
            raise
        self._pending, self._lines = [], []
        self._events.extend(unit)
        self._unit_ends.append(len(self._events))
        for listener in self._listeners:
            listener(unit)

    def discard(self) -> None:
        """Forget the open unit and accept nothing more (the process is considered dead)."""
        self._pending, self._lines = [], []
        self._next_seq = len(self._events)
        self._usable = False


def _reference_line(event: Event) -> tuple[bytes, Event]:
    """The event's line by way of its wire object, and the event to store: itself when deeply
    frozen, else a frozen copy rebuilt from the wire object. Refuses what JSON cannot carry."""
    try:
        wire = event_to_wire(event)
    except RecursionError as error:
        raise NotJsonData("$.data", "nested too deeply") from error
    if UNIT_KEY in wire:
        raise ValueError(f"the envelope field {UNIT_KEY!r} is reserved for commit framing")
    try:
        encoded = encode_event(wire)
    except (ValueError, TypeError, RecursionError):
        check_json(wire)  # names where the value JSON cannot carry sits
        raise
    if b"-0.0" in encoded:  # JSON writes a negative zero, but readers may lose its sign
        check_json(wire)
    return encoded, event if _deeply_frozen(event) else event_from_wire(wire)


_SCALARS = frozenset({str, int, float, bool, type(None)})
FieldReader = Callable[[object], Iterable[object]]
# Per attrs class: a reader of all its field values when the class is frozen, None when not.
_FIELD_READERS: dict[type, FieldReader | None] = {}


def _field_reader(kind: type) -> FieldReader | None:
    if kind in _FIELD_READERS:
        return _FIELD_READERS[kind]
    reader: FieldReader | None = None
    # attrs gives a frozen class its own `__setattr__`, which refuses every assignment.
    if attrs.has(kind) and kind.__setattr__.__name__ == "_frozen_setattrs":
        names = [field.name for field in attrs.fields(kind)]
        # One C-level getter for every field at once; with a single name it returns the bare
        # value, so that case is wrapped.
        getter = operator.attrgetter(*names) if names else None
        if getter is None:
            reader = _no_fields
        elif len(names) == 1:
            reader = partial(_one_field, getter)
        else:
            reader = getter
    _FIELD_READERS[kind] = reader
    return reader


def _no_fields(_value: object) -> tuple[object, ...]:
    return ()


def _one_field(getter: Callable[[object], object], value: object) -> tuple[object, ...]:
    return (getter(value),)


def _deeply_frozen(value: object) -> bool:
    """Whether `value` is built only of immutable parts: scalars, tuples, `FrozenMap`s with
    string keys, and frozen attrs instances of those (as every event the loop builds is)."""
    # Exact types only (a subclass may add mutable state), and scalars tested inline rather
    # than by recursing: they are most of what an event holds.
    scalars = _SCALARS
    kind = type(value)
    if kind in scalars:
        return True
    items: Iterable[object]
    if type(value) is tuple:
        items = value
    elif type(value) is FrozenMap:
        # Its read-only view, read directly: the `Mapping` methods cost a Python call per item.
        for key, entry in value._items.items():
            if type(key) is not str or (type(entry) not in scalars and not _deeply_frozen(entry)):
                return False
        return True
    else:
        reader = _field_reader(kind)
        if reader is None:
            return False
        items = reader(value)
    for item in items:
        # Most fields are scalars or empty `extra` maps: they cost no call.
        if type(item) in scalars or (type(item) is FrozenMap and not item._items):
            continue
        if not _deeply_frozen(item):
            return False
    return True
