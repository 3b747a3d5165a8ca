"""Random scripted programs on the real Claude Code and Codex loops: only known divergences.

Each example is a random script — one or two replies of one to three shell calls whose finishing
order varies (`sleep 0 / 0.3 / 0.8; echo TAG`), then a closing text — and up to two PreToolUse
hooks (passthrough, rewrite, a rewrite answering late, deny), played offline by
`loopspec.properties.harnesses`. The report's divergences and the rules `check` finds in the
transcript or rollout must all be known divergences of that loop
(`loopspec.properties.harnesses.profiles`); anything else fails with the report. A small number
of programs runs by default; the `thorough` Hypothesis profile runs many more.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from node_requirements import Need
from test_real_harnesses import harness  # noqa: F401 -- the installed-harness fixture

from loopspec.properties.harnesses.profiles import unknown_rules
from loopspec.properties.harnesses.report import report_lines, session_view
from loopspec.properties.harnesses.script import (
    Harness,
    HarnessScript,
    ScriptedCall,
    ScriptedReply,
    ScriptedText,
)
from loopspec.properties.harnesses.session import SessionRequest, default_adapter_dir, drive
from loopspec.properties.logcheck.checker import check_stream

ROOT = Path(__file__).resolve().parent.parent
HOOKS_DIR = ROOT / "examples" / "claude-code-adapter" / "scenarios"
# A handful by default (each program is a real session of a few seconds); many when thorough.
PROGRAMS = max(2, settings().max_examples // 80)
DENY = (
    'cat > /dev/null; echo \'{"hookSpecificOutput": {"hookEventName": "PreToolUse", '
    '"permissionDecision": "deny", "permissionDecisionReason": "no"}}\''
)


def hook_command(kind: str, index: int) -> str:
    """The command of a hook of `kind`; `index` keeps equal kinds distinct (Claude Code runs
    identical commands as one hook)."""
    rewrite = 'python3 "$LOOPSPEC_HOOKS_DIR/rewrite_hook.py"'
    commands = {
        "passthrough": f"cat > /dev/null; echo '{{}}' # {index}",
        "rewrite": f"{rewrite} 'echo rewritten-{index}'",
        "late-rewrite": f"{rewrite} 'echo late-rewritten-{index}' 0.5",
        "deny": f"{DENY} # {index}",
    }
    return commands[kind]


HOOK_KINDS = ["passthrough", "rewrite", "late-rewrite", "deny"]

programs = st.tuples(
    st.lists(
        st.lists(st.sampled_from(["0", "0.3", "0.8"]), min_size=1, max_size=3),
        min_size=1,
        max_size=2,
    ),
    st.lists(st.sampled_from(HOOK_KINDS), max_size=2),
)


def build(replies: list[list[str]], hooks: list[str]) -> tuple[HarnessScript, dict[str, Any]]:
    """The script and hook settings of a generated program."""
    scripted = []
    for r, delays in enumerate(replies):
        calls = tuple(
            ScriptedCall(
                f"toolu_r{r}c{c}",
                {"command": f"sleep {delay}; echo r{r}c{c}", "description": f"step {r}.{c}"},
            )
            for c, delay in enumerate(delays)
        )
        scripted.append(ScriptedReply(calls))
    scripted.append(ScriptedReply((ScriptedText("Done."),)))
    handlers = [{"type": "command", "command": hook_command(k, i)} for i, k in enumerate(hooks)]
    settings_document: dict[str, Any] = {"hooks": {}}
    if handlers:
        settings_document["hooks"]["PreToolUse"] = [{"matcher": "Bash", "hooks": handlers}]
    return HarnessScript("Do the steps.", tuple(scripted)), settings_document


@pytest.mark.needs(Need.ITS_HARNESS)
@settings(
    max_examples=PROGRAMS,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(program=programs)
def test_MODEL_1_random_programs_show_only_known_divergences(
    harness: str,  # noqa: F811 -- the fixture imported above
    program: tuple[list[list[str]], list[str]],
) -> None:
    """Random programs on each real loop: every divergence the report names and every rule
    `check` finds in the log is a known divergence of that loop (profiles.KNOWN)."""
    chosen = Harness(harness)
    script, hooks = build(*program)
    request = SessionRequest(
        chosen, script, hooks, default_adapter_dir(chosen), hooks_dir=HOOKS_DIR
    )
    result = drive(request)
    view = session_view(chosen, script, hooks, result)
    text = "\n".join(report_lines(view, result))
    assert result["exitCode"] == 0, text
    assert not result["timedOut"], text
    assert unknown_rules(chosen, [d.rule_id for d in view.divergences]) == [], text
    log = result["logs"][0]
    report = check_stream(log["path"], io.BytesIO(log["text"].encode()))
    found = [f.violation.rule_id for f in report.violations]
    assert unknown_rules(chosen, found) == [], json.dumps(found) + "\n" + text
    assert report.errors == [], text
