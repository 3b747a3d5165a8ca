"""The system's own words for why it refused a file, as every verb quotes them.

A module of its own, importing nothing, so `loopspec check` can word an unreadable log without
loading what reading user files needs.
"""

from __future__ import annotations


def system_reason(error: OSError) -> str:
    """Why the system refused, in its own words and lower case as every verb words it
    ("permission denied"): the line quoting it names the path already, and Python's
    "[Errno 13] ...: 'path'" repeats the path behind a number no reader needs."""
    said = error.strerror or str(error)
    return said[:1].lower() + said[1:]
