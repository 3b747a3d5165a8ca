"""PROTO-1: a wrong `commits` in an answer is explained, not only refused.

`commits: [0]` with no events was refused with the schema's words alone, "0 is less than the
minimum of 1", which do not say what the numbers count; commits that do not add up to the events
said so without saying what they should be. Both now say what a commit count is (LOG-8) and what
this answer's would be.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from loopspec.model.commands import SubmitUser
from loopspec.model.config import LoopConfig
from loopspec.properties.conformance.process_target import ProcessTarget, ProcessTargetError

MEANING = (
    "commits holds the size of each atomic commit the appended events form, in order (LOG-8): "
    "each at least 1, together the number of events"
)


def _answering_commits(tmp_path: Path, commits: list[int]) -> list[str]:
    """A target accepting every command with no events and `commits` as given."""
    script = tmp_path / "target.py"
    observed = {"type": "observed", "accepted": True, "events": [], "commits": commits}
    observed_json = json.dumps(json.dumps(observed))  # a Python string literal of the JSON
    script.write_text(
        "import json, sys\n"
        "for line in sys.stdin:\n"
        "    m = json.loads(line)\n"
        "    if m['type'] == 'reset':\n"
        "        out = {'type': 'ready', 'implementation': 'x', 'capabilities': []}\n"
        "    elif m['type'] == 'command':\n"
        f"        out = dict(json.loads({observed_json}), seq=m['seq'], executed=[])\n"
        "    else:\n"
        "        out = {'type': 'bye'}\n"
        "    print(json.dumps(out), flush=True)\n",
        encoding="utf-8",
    )
    return [sys.executable, str(script)]


@pytest.mark.parametrize(
    ("commits", "said"),
    [
        ([0], "breaks the protocol schema at commits/0: 0 is less than the minimum of 1; "),
        ([2], "commits [2] do not add up to the 0 event(s) appended; "),
    ],
)
def test_PROTO_1_a_wrong_commit_count_says_what_commits_hold(
    tmp_path: Path, commits: list[int], said: str
) -> None:
    """PROTO-1: with no events, the answer is told `commits` is []."""
    with ProcessTarget(_answering_commits(tmp_path, commits), name="t") as target:
        target.reset(LoopConfig())
        with pytest.raises(ProcessTargetError) as raised:
            target.apply(SubmitUser("hi"))
    first = str(raised.value).splitlines()[0]
    assert first.endswith(f"{said}{MEANING}: with no event appended, commits is []"), first
