"""A key given twice in one JSON object. JSON leaves it undefined and every parser here keeps
the last silently, so the first value is lost without a word (LOG-3): each reader of a user's
JSON text (a log line `impl` reads back, a driver answer, a case, scenario or hooks file)
refuses it, by `repeated_key` and `RepeatedKey`.

A module of its own, apart from JSON text's reading (`json_text`): `loopspec check`, which reads the
last of two as dsh does (SPEC LOG-3), imports none of it (tests/test_check_startup.py).
"""

from __future__ import annotations

from loopspec.model.json_text import JSON_SPACE, SCANNERS, loads


def keys_may_repeat(text: str, value: object) -> bool:
    """Whether an object in `value`, parsed from the valid JSON text `text`, holds a key twice.

    Cheaper than a walk of the text (`_first_repeat`): a repeat is a member the parse dropped,
    so the objects parsed hold as many keys as the text writes members exactly when no key
    repeats. The keys are counted only until they reach the text's colons, a bound on its
    members; then against a closer bound, its `":`; the members are counted exactly only when
    neither is met."""
    colons = text.count(":")
    keys = 0
    pending = [value]
    while pending:
        item = pending.pop()
        if type(item) is dict:
            keys += len(item)
            if keys >= colons:
                return False
            pending.extend(item.values())
        elif type(item) is list:
            pending.extend(item)
    # Each member's colon follows its key's closing quote, or space after it. A quote in a
    # string is escaped, so `":` not after a backslash are members (or strings that start with a
    # colon), unless the backslash is itself escaped: those are counted back in, to stay a bound.
    members = text.count('":') - text.count('\\":') + text.count('\\\\":') + text.count(" :")
    # (Other space before a colon is rare: a text holding any is counted exactly.)
    spaced = "\t" in text or "\r" in text or text.count("\n") > text.endswith("\n")
    if keys >= members and not spaced:
        return False
    return keys < _members_written(text)


def _members_written(text: str) -> int:
    """How many members the objects in the valid JSON text `text` write, repeats counted: its
    colons outside strings."""
    if "\\" in text:
        # Escapes pair left to right, so an escaped backslash goes first; then every quote left
        # delimits a string.
        text = text.replace("\\\\", "").replace('\\"', "")
    return "".join(text.split('"')[::2]).count(":")


class RepeatedKey(ValueError):
    """A JSON text holding an object with a key twice; `path` and `line` (1-based) say where
    the repeat is (`repeated_key`)."""

    def __init__(self, path: str, line: int) -> None:
        self.path = path
        self.line = line
        super().__init__(given_twice(path))


def given_twice(path: str) -> str:
    """The words of every reader that refuses a key given twice (`RepeatedKey`)."""
    return (
        f"{path} is given twice in its object; a JSON reader keeps only the last, so the first "
        "would be ignored"
    )


def repeated_key(text: str, value: object) -> RepeatedKey | None:
    """Where the valid JSON text `text`, parsed as `value`, first gives a key its object already
    holds, or None when no key repeats: every reader of a user's JSON text asks it."""
    return _first_repeat(text) if keys_may_repeat(text, value) else None


def _first_repeat(text: str) -> RepeatedKey | None:
    """`repeated_key`, read from the text alone: a walk of it in Python, in the order written."""
    if not SCANNERS:
        loads("0")  # makes the scanner of scalars and strings
    scan = SCANNERS[0]
    # The containers open at `index`, each with the path to it and, for an object, its keys.
    open_paths: list[tuple[str, set[str] | None, int]] = []
    index = _skip_space(text, 0)
    path = "$"
    while True:
        opening = text[index]
        if opening == "{":
            open_paths.append((path, set(), 0))
            index = _skip_space(text, index + 1)
        elif opening == "[":
            open_paths.append((path, None, 0))
            index = _skip_space(text, index + 1)
        else:
            _, index = scan(text, index)
            index = _skip_space(text, index)
        # Past a value, or just inside a container: close what ends here, then read the next
        # member's key or the next item.
        while True:
            if not open_paths:
                return None
            parent, keys, count = open_paths[-1]
            if text[index] in "}]":
                open_paths.pop()
                index = _skip_space(text, index + 1)
                continue
            if count:
                index = _skip_space(text, index + 1)  # the comma
            open_paths[-1] = (parent, keys, count + 1)
            break
        if keys is None:
            path = f"{parent}[{count}]"
            continue
        key, after = scan(text, index)
        assert isinstance(key, str)
        path = f"{parent}.{key}"
        if key in keys:
            return RepeatedKey(path, text.count("\n", 0, index) + 1)
        keys.add(key)
        index = _skip_space(text, _skip_space(text, after) + 1)  # past the colon


def _skip_space(text: str, index: int) -> int:
    while index < len(text) and text[index] in JSON_SPACE:
        index += 1
    return index
