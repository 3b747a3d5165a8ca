"""The reference model of the loop: its state machine, its events and their wire form, the
log invariants (`invariants`, over `facts`).

`PlainRecord`, the base of the small records `loopspec check` builds on its way, is here, in the
package every module of the model is imported through, so that a check imports no module for it
alone (each costs a small log's check a hundredth of the interpreter's start). Those records
were NamedTuples; but `typing` (which `typing.NamedTuple` lives in) imports `re`, `enum`,
`contextlib` and more, and with them doubled `loopspec check`'s start-up
(`tests/test_check_startup.py`). A subclass names its fields in `__slots__`, in order (its repr
and equality follow it), and sets them in its `__init__`; it is equal to, hashed as and shown as
a NamedTuple of the same fields would be (equal only to a record of its own class, though, and
no tuple: it neither unpacks nor indexes).
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing's own flag, which type checkers read by name: see above
if TYPE_CHECKING:
    from typing import Self


class PlainRecord:
    """Fields in `__slots__`, equality and hash by their values, a NamedTuple's repr."""

    __slots__: tuple[str, ...] = ()

    def _values(self) -> tuple[object, ...]:
        return tuple(getattr(self, name) for name in self.__slots__)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, PlainRecord) or type(other) is not type(self):
            return NotImplemented
        return self._values() == other._values()

    def __hash__(self) -> int:
        return hash(self._values())

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__slots__)
        return f"{type(self).__name__}({fields})"

    def _replace(self, **changes: object) -> Self:
        """A copy with `changes` made, as a NamedTuple's `_replace` gives."""
        copy = object.__new__(type(self))
        for name in self.__slots__:
            object.__setattr__(copy, name, changes.pop(name, getattr(self, name)))
        if changes:
            raise TypeError(f"{type(self).__name__} has no field {', '.join(changes)}")
        return copy
