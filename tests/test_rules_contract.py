"""TEXT, EXE-2/5, SCHED-2, ABORT-3, HOOK-8, TURN-3, STEP-2: the rules conform compares, shown."""

from __future__ import annotations

import json
import re
import subprocess
import unicodedata
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from node_requirements import Need
from spec_helpers import PLAIN, clean, results, run, with_hooks

from loopspec.impl.hookbridge.settings import HookSettingsError, load_settings
from loopspec.model.commands import (
    Abort,
    Allow,
    ApprovalAnswers,
    Ask,
    Command,
    Crash,
    Deny,
    HookAnswers,
    ModelFails,
    ModelReplies,
    Pass,
    PostBlock,
    PostContext,
    Recover,
    SubmitUser,
    ToolFailed,
    ToolFinishes,
    ToolSucceeded,
)
from loopspec.model.config import HookSpec, LoopConfig, ToolSpec, matcher_problem
from loopspec.model.errors import InvalidEventError
from loopspec.model.events import (
    ApprovalAsked,
    ApprovalDecided,
    AssistantMessageRecorded,
    HookInvoked,
    HookResulted,
    StepEnded,
    StepStarted,
    TurnEnded,
    TurnStarted,
    UserMessageRecorded,
)
from loopspec.model.jsonvalue import EMPTY, FrozenMap, parse_arguments
from loopspec.model.messages import AssistantMessage, TextBlock, ToolCallBlock, model_source
from loopspec.model.prefix import IN_TURN_TYPES
from loopspec.model.repair import interrupted_turn_closers
from loopspec.model.wording import WORDING, quoted_keys

ROOT = Path(__file__).resolve().parent.parent
SPEC = (ROOT / "SPEC.md").read_text(encoding="utf-8")
BASH = ToolCallBlock("c1", "bash", '{"command":"ls"}')
READ = ToolCallBlock("c2", "read", '{"file_path":"a"}')
GHOST = ToolCallBlock("c9", "ghost", '{"x":1}')
GREP = ToolSpec("grep", concurrency_safe=True, required_keys=("pattern",))


def _result(config: LoopConfig, program: list[Command], call_id: str) -> tuple[str, object]:
    """The text and error info of the result a program committed for `call_id`."""
    state = run(config, program)
    assert not clean(state.log)
    found = [r for r in results(state.log) if r.call_id == call_id]
    assert len(found) == 1, [r.call_id for r in results(state.log)]
    info = None if found[0].error is None else dict(found[0].error)
    return found[0].message.text, info


def _row(situation_start: str) -> tuple[str, object]:
    rows = [row for row in WORDING if row.situation.startswith(situation_start)]
    assert len(rows) == 1, situation_start
    row = rows[0]
    info = None if row.error_name is None else {"name": row.error_name, "code": row.error_code}
    return row.text, info


def _fill(template: tuple[str, object], **values: str) -> tuple[str, object]:
    text, info = template
    return text.format(**values), info


H1 = HookSpec("h1", "PreToolUse", "bash|ghost")
H2 = HookSpec("h2", "PreToolUse", "bash")
TWO_HOOKS = with_hooks(H1, H2)
START: list[Command] = [SubmitUser("go")]


def _approval(outcome: str) -> tuple[str, object]:
    config = with_hooks(H1)
    program = [*START, ModelReplies((BASH,)), HookAnswers(Ask()), ApprovalAnswers(outcome)]
    return _result(config, program, "c1")


def test_TEXT_1_every_wording_row_is_what_the_model_writes() -> None:
    """TEXT-1: each row of the wording table, filled in, is the exact result a program gets."""
    invalid = ToolCallBlock("c1", "bash", "[1]")
    missing = ToolCallBlock("c1", "bash", '{"cmd":"ls"}')
    seen: dict[str, tuple[tuple[str, object], tuple[str, object]]] = {}
    seen["arguments are not"] = (
        _result(PLAIN, [*START, ModelReplies((invalid,))], "c1"),
        _fill(_row("arguments are not"), tool="bash"),
    )
    seen["a known tool's"] = (
        _result(PLAIN, [*START, ModelReplies((missing,))], "c1"),
        _fill(_row("a known tool's"), tool="bash", keys="'command'"),
    )
    deny_both = [*START, ModelReplies((BASH,)), HookAnswers(Deny("a")), HookAnswers(Deny("b"))]
    seen["a PreToolUse hook denied"] = (
        _result(TWO_HOOKS, deny_both, "c1"),
        _fill(_row("a PreToolUse hook denied"), reasons="a; b"),
    )
    deny_silent = [*START, ModelReplies((BASH,)), HookAnswers(Deny("")), HookAnswers(Pass())]
    seen["a deny whose"] = (_result(TWO_HOOKS, deny_silent, "c1"), _row("a deny whose"))
    post_silent = [
        *START,
        ModelReplies((BASH,)),
        ToolFinishes("c1", ToolSucceeded("x"), (PostBlock(""),)),
    ]
    seen["a PostToolUse block whose"] = (
        _result(with_hooks(HookSpec("p1", "PostToolUse", "bash")), post_silent, "c1"),
        _row("a PostToolUse block whose"),
    )
    refused = [
        *START,
        ModelReplies((BASH,)),
        HookAnswers(Allow(updated_input=FrozenMap({"x": 1}))),
        HookAnswers(Pass()),
    ]
    seen["the winning rewrite"] = (
        _result(TWO_HOOKS, refused, "c1"),
        _fill(
            _row("the winning rewrite"),
            hook="h1",
            tool="bash",
            problem="missing required 'command'",
        ),
    )
    seen["the tool is not registered"] = (
        _result(PLAIN, [*START, ModelReplies((GHOST,))], "c9"),
        _fill(_row("the tool is not registered"), tool="ghost"),
    )
    for outcome in ("rejected", "cancelled", "unavailable"):
        key = f"approval answered `{outcome}`"
        seen[key] = (_approval(outcome), _fill(_row(key), tool="bash"))
    pending = [*START, ModelReplies((BASH,)), HookAnswers(Ask()), Abort()]
    seen["an abort found"] = (_result(with_hooks(H1), pending, "c1"), _row("an abort found"))
    late = [*START, ModelReplies((BASH,)), Abort(), ToolFinishes("c1", ToolSucceeded("x"))]
    seen["a body succeeded"] = (_result(PLAIN, late, "c1"), _row("a body succeeded"))
    failed = [*START, ModelReplies((BASH,)), ToolFinishes("c1", ToolFailed("boom", "EACCES"))]
    text, info = _row("a tool body failed")
    seen["a tool body failed"] = (
        _result(PLAIN, failed, "c1"),
        (text.format(message="boom"), {"name": "ToolError", "code": "EACCES"}),
    )
    assert info == {"name": "{errorName}", "code": "{code}"}
    crashed = [*START, ModelReplies((BASH,)), Crash(), Recover()]
    seen["repair: the call's"] = (_result(PLAIN, crashed, "c1"), _row("repair: the call's"))
    # A call the reply shows but no tool/call records: only a foreign log has one.
    reply = AssistantMessage("m1", (BASH,), model_source("p", "m"))
    foreign = (
        TurnStarted(0, 0, 1),
        StepStarted(1, 0, 1, 1),
        AssistantMessageRecorded(2, 0, 1, 1, reply),
    )
    closer = interrupted_turn_closers(foreign)[0]
    assert closer.__class__.__name__ == "ToolResultRecorded"
    seen["repair: the call was never"] = (
        (closer.message.text, dict(closer.error or EMPTY)),  # type: ignore[union-attr]
        _row("repair: the call was never"),
    )
    assert len(seen) == len(WORDING), sorted(seen)
    for situation, (actual, expected) in seen.items():
        assert actual == expected, situation


NOT_PRINTED = ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp")


def _quoted_as_the_spec_says(key: str) -> str:
    """A missing key quoted as SPEC.md section 9 tells a loop in another language to, from its
    words alone."""
    quote = '"' if "'" in key and '"' not in key else "'"
    escapes = {"\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r"}
    written = []
    for character in key:
        category = unicodedata.category(character)
        if character in escapes:
            written.append(escapes[character])
        elif character == "'" and quote == "'":
            written.append("\\'")
        elif category in NOT_PRINTED or (category == "Zs" and character != " "):
            point = ord(character)
            if point < 0x100:
                written.append(f"\\x{point:02x}")
            elif point < 0x10000:
                written.append(f"\\u{point:04x}")
            else:
                written.append(f"\\U{point:08x}")
        else:
            written.append(character)
    return quote + "".join(written) + quote


def test_TEXT_1_missing_keys_are_quoted_as_section_9_spells_it_out() -> None:
    """A stranger's loop quotes missing keys from SPEC.md's words, not from Python's repr: those
    words, followed to the letter, quote every character below U+3100 and a sample of the rest,
    and keys holding quotes, as the model does."""
    assert "categories Cc, Cf, Cs, Co, Cn, Zl, Zp, and Zs but the space" in " ".join(SPEC.split())
    keys = [chr(point) for point in range(0x3100)]
    keys += [chr(point) for point in range(0x3100, 0x110000, 89)]
    keys += ["it's", 'say "hi"', 'it\'s "x"', "a\x00b", "n\u00e4me", "tab\there"]
    for key in keys:
        assert _quoted_as_the_spec_says(key) == quoted_keys([key]), ascii(key)
    assert quoted_keys(["path", "it's"]) == "'path', \"it's\""


def test_TEXT_1_the_wording_table_in_the_spec_is_generated() -> None:
    """TEXT-1: every wording row appears in SPEC.md's generated wording section."""
    section = SPEC.split("<!-- generated:wording -->")[1].split("<!-- end generated:wording")[0]
    for row in WORDING:
        assert row.text.replace("|", "\\|") in section


def test_EXE_5_invalid_input_is_reported_before_an_unknown_tool() -> None:
    """EXE-5: an unknown tool with non-object arguments is invalid input and no hook sees it."""
    config = with_hooks(H1)
    ghost = ToolCallBlock("c9", "ghost", "not json")
    state = run(config, [*START, ModelReplies((ghost,))])
    assert not any(isinstance(e, HookInvoked) for e in state.log)
    (result,) = results(state.log)
    assert result.error_code == "INVALID_TOOL_INPUT"


def test_EXE_5_hooks_and_approval_judge_an_unknown_tool_before_it_fails() -> None:
    """EXE-5: hooks run for an unregistered name; a deny wins; an allowed call fails unknown."""
    config = with_hooks(H1)
    denied = run(config, [*START, ModelReplies((GHOST,)), HookAnswers(Deny("no"))])
    assert [r.message.text for r in results(denied.log)] == ["Error: no"]
    asked = run(config, [*START, ModelReplies((GHOST,)), HookAnswers(Ask("sure?"))])
    assert any(isinstance(e, ApprovalAsked) for e in asked.log)
    assert not results(asked.log)
    approved = run(
        config,
        [
            *START,
            ModelReplies((GHOST,)),
            HookAnswers(Ask("sure?")),
            ApprovalAnswers("allowed-once"),
        ],
    )
    (result,) = results(approved.log)
    assert result.error_code == "UNKNOWN_TOOL"
    assert not approved.executions


def test_SCHED_2_a_pending_approval_holds_every_later_call() -> None:
    """SCHED-2: while call 1 waits for approval, a safe call, a denied and an invalid one wait."""
    asker = HookSpec("asker", "PreToolUse", "bash")
    denier = HookSpec("denier", "PreToolUse", "grep")
    config = LoopConfig(tools=(*PLAIN.tools, GREP), hooks=(asker, denier))
    later_safe = ToolCallBlock("c2", "read", '{"file_path":"a"}')
    later_denied = ToolCallBlock("c3", "grep", '{"pattern":"x"}')
    later_invalid = ToolCallBlock("c4", "read", "[]")
    reply = ModelReplies((BASH, later_safe, later_denied, later_invalid))
    waiting = run(config, [*START, reply, HookAnswers(Ask()), HookAnswers(Deny("no"))])
    assert not waiting.executions
    assert not results(waiting.log)
    answered = run(
        config,
        [*START, reply, HookAnswers(Ask()), HookAnswers(Deny("no")), ApprovalAnswers("rejected")],
    )
    assert [e.call_id for e in answered.executions] == ["c2"]
    assert [r.call_id for r in results(answered.log)] == ["c1"]


def test_SCHED_2_the_approval_is_asked_only_when_the_call_could_start() -> None:
    """SCHED-2: an exclusive call that asks waits for earlier running calls before it asks."""
    config = with_hooks(HookSpec("asker", "PreToolUse", "bash"))
    state = run(config, [*START, ModelReplies((READ, BASH)), HookAnswers(Ask())])
    assert not any(isinstance(e, ApprovalAsked) for e in state.log)
    state = run(
        config,
        [
            *START,
            ModelReplies((READ, BASH)),
            HookAnswers(Ask()),
            ToolFinishes("c2", ToolSucceeded("A")),
            ApprovalAnswers("allowed-once"),
        ],
    )
    assert any(isinstance(e, ApprovalAsked) for e in state.log)
    # Nothing starts while it waits, so the cap still allows it: the answer starts it at once.
    assert [e.call_id for e in state.executions] == ["c2", "c1"]


@pytest.mark.parametrize("cause", ["user", "parent", "hook", "disposed"])
def test_ABORT_3_the_turn_end_names_the_aborts_cause(cause: str) -> None:
    """ABORT-3: every abort path ends the turn with the cause the Abort carried."""
    config = with_hooks(H1)
    programs: list[list[Command]] = [
        [*START, Abort(cause)],
        [*START, ModelReplies((BASH,)), Abort(cause)],
        [*START, ModelReplies((READ,)), Abort(cause), ToolFinishes("c2", ToolSucceeded("A"))],
        [*START, ModelReplies((BASH,)), HookAnswers(Ask()), Abort(cause)],
    ]
    for program in programs:
        state = run(config, program)
        ends = [e for e in state.log if isinstance(e, TurnEnded)]
        assert dict(ends[-1].reason) == {"kind": "aborted", "reason": FrozenMap({"kind": cause})}


def test_ABORT_3_a_cancelled_reply_is_the_users_and_a_pending_approval_is_cancelled() -> None:
    """ABORT-3: a stream cancelled without an Abort ends with cause user; an abort cancels the
    pending approval before the call's ABORTED_BEFORE_DISPATCH result."""
    state = run(PLAIN, [*START, ModelReplies((TextBlock("part"),), "cancelled")])
    end = state.log[-1]
    assert isinstance(end, TurnEnded)
    assert end.reason["reason"] == FrozenMap({"kind": "user"})
    state = run(with_hooks(H1), [*START, ModelReplies((BASH,)), HookAnswers(Ask()), Abort()])
    decided = [i for i, e in enumerate(state.log) if isinstance(e, ApprovalDecided)]
    (result,) = results(state.log)
    assert len(decided) == 1
    assert state.log[decided[0]].outcome == "cancelled"  # type: ignore[union-attr]
    assert decided[0] < state.log.index(result)
    assert result.error_code == "ABORTED_BEFORE_DISPATCH"


@pytest.mark.parametrize(
    "raw",
    ['{"x":-0.0}', "1e400", '{"n":1e400}', "[NaN]", "not json", "1" * 4301],
)
def test_EXE_2_json_without_a_lossless_value_stays_the_raw_string(raw: str) -> None:
    """EXE-2: valid JSON with no lossless value (-0, infinity, huge ints) stays raw, like bad
    JSON; such a call is invalid input for every tool."""
    assert parse_arguments(raw) == raw
    call = ToolCallBlock("c1", "bash", raw)
    state = run(PLAIN, [*START, ModelReplies((call,))])
    (result,) = results(state.log)
    assert result.error_code == "INVALID_TOOL_INPUT"


@pytest.mark.parametrize("raw", ["", " ", "\n\t ", "\u2003"])
def test_EXE_2_blank_arguments_are_the_empty_object(raw: str) -> None:
    """EXE-2: empty or whitespace-only arguments mean {}."""
    assert parse_arguments(raw) == EMPTY


def test_TURN_3_the_spec_names_exactly_the_types_the_checker_encloses() -> None:
    """TURN-3: the rule text lists every type the checker requires inside a turn, and no other."""
    rule = SPEC.split("### TURN-3 ")[1].split("**Why.**")[0]
    named = set(re.findall(r"`([a-z]+/[a-z-]+)`", rule.split("may appear between turns")[0]))
    named.discard("user/message")
    assert "`hook/*`" in rule
    assert named == set(IN_TURN_TYPES) - {"hook/invoked", "hook/result"}


def test_STEP_2_step_end_closes_exactly_the_open_step() -> None:
    """STEP-2: every step/end the model writes names the open (turn, step); a mismatched one
    is reported."""
    state = run(PLAIN, [*START, ModelReplies((READ,)), ToolFinishes("c2", ToolSucceeded("A"))])
    starts = [(e.turn, e.step) for e in state.log if isinstance(e, StepStarted)]
    ends = [(e.turn, e.step) for e in state.log if isinstance(e, StepEnded)]
    assert ends == starts[: len(ends)]
    wrong = [*state.log[:-1]]
    index = next(i for i, e in enumerate(wrong) if isinstance(e, StepEnded))
    event = wrong[index]
    assert isinstance(event, StepEnded)
    wrong[index] = StepEnded(event.seq, event.time, event.turn, event.step + 1)
    assert "STEP-2" in {v.rule_id for v in clean(tuple(wrong))}


# -- HOOK-8 --------------------------------------------------------------------------------------

PORTABLE = ["bash", "bash|write", ".*", "(?i)BASH|ghost", "mcp__.*__write", "[a-c]+_x?", "a{2,3}"]
NOT_PORTABLE = ["\\d+", "a$", "^a", "(?<=a)b", "(?P<n>a)", "[\\w]", "a{,2}", "é", "a b"]


@pytest.mark.parametrize("matcher", PORTABLE)
def test_HOOK_8_portable_matchers_are_accepted(matcher: str) -> None:
    """HOOK-8: matchers inside the subset construct."""
    assert matcher_problem(matcher) is None
    HookSpec("h", "PreToolUse", matcher)


@pytest.mark.parametrize("matcher", NOT_PORTABLE)
def test_HOOK_8_other_matchers_are_refused(matcher: str) -> None:
    """HOOK-8: a matcher outside the subset cannot be configured."""
    with pytest.raises(InvalidEventError) as refused:
        HookSpec("h", "PreToolUse", matcher)
    assert refused.value.rule_id == "HOOK-8"


_ATOMS = st.sampled_from(["a", "b", "_", "-", ".", "\\.", "[a-c]", "[^b]", "(?:a|b)", "(b)"])
_QUANT = st.sampled_from(["", "", "*", "+", "?", "{1,2}", "*?"])
_NAMES = st.text(alphabet="abcAB_-.", max_size=5)


@st.composite
def _portable(draw: st.DrawFn) -> str:
    branches = [
        "".join(draw(_ATOMS) + draw(_QUANT) for _ in range(draw(st.integers(1, 3))))
        for _ in range(draw(st.integers(1, 2)))
    ]
    return ("(?i)" if draw(st.booleans()) else "") + "|".join(branches)


# Answers each line of cases (matcher, names) with a line of whether each name matches, as
# ECMAScript reads the matcher (a leading `(?i)` meaning the `i` flag).
ECMASCRIPT_MATCHER = (
    "const lines = require('readline').createInterface({ input: process.stdin });"
    "lines.on('line', (line) => console.log(JSON.stringify(JSON.parse(line).map(([m, names]) => {"
    " const i = m.startsWith('(?i)'); const body = i ? m.slice(4) : m;"
    " const re = new RegExp('^(?:' + body + ')$', i ? 'iu' : 'u');"
    " return names.map((n) => re.test(n)); }))));"
)


@pytest.fixture(scope="module")
def ecmascript_matcher() -> Iterator[subprocess.Popen[str]]:
    """One node process for every example (starting node for each cost ~0.1 s of CPU)."""
    node = subprocess.Popen(
        ["node", "-e", ECMASCRIPT_MATCHER],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        yield node
    finally:
        assert node.stdin is not None
        node.stdin.close()
        assert node.wait(timeout=30) == 0


@pytest.mark.needs(Need.NODE)
@settings(max_examples=20, deadline=None)
@given(cases=st.lists(st.tuples(_portable(), st.lists(_NAMES, min_size=1, max_size=6)), min_size=5))
def test_HOOK_8_python_and_ecmascript_agree_inside_the_subset(
    ecmascript_matcher: subprocess.Popen[str], cases: list[tuple[str, list[str]]]
) -> None:
    """HOOK-8: generated portable matchers fire for the same names in Python and in node."""
    for matcher, _names in cases:
        assert matcher_problem(matcher) is None, matcher
    assert ecmascript_matcher.stdin is not None
    assert ecmascript_matcher.stdout is not None
    ecmascript_matcher.stdin.write(json.dumps(cases) + "\n")
    ecmascript_matcher.stdin.flush()
    answer = ecmascript_matcher.stdout.readline()
    assert answer, "node answered nothing"
    in_node = json.loads(answer)
    in_python = [[HookSpec("h", "PreToolUse", m).matches(n) for n in names] for m, names in cases]
    assert in_python == in_node


@pytest.mark.parametrize("matcher", ["[z-a]", "a{3,2}", "(a"])
def test_HOOK_8_a_matcher_no_regex_engine_compiles_is_refused_naming_HOOK_8(matcher: str) -> None:
    """HOOK-8: a matcher whose characters are of the subset but which Python's `re` (and
    ECMAScript) cannot compile, a range or bounds out of order or a group left open, is no
    portable regular expression: the model refused it naming HOOK-1, a rule about hooks' audit,
    where the hooks settings reader names HOOK-8 for the same matcher."""
    with pytest.raises(InvalidEventError) as refused:
        HookSpec("h", "PreToolUse", matcher)
    assert refused.value.rule_id == "HOOK-8"
    assert "not a valid regex" in str(refused.value)


def test_HOOK_8_the_model_config_refuses_before_any_loop_runs() -> None:
    """HOOK-8: a loop configuration with a non-portable matcher is refused at construction."""
    with pytest.raises(InvalidEventError):
        LoopConfig(hooks=(HookSpec("h", "PreToolUse", "\\w+"),))


def test_HOOK_8_a_settings_file_with_a_non_portable_matcher_is_refused(tmp_path: Path) -> None:
    """HOOK-8: the hook bridge refuses a settings file whose matcher is outside the subset,
    naming the file and the JSON path, before any hook runs."""
    document = {
        "hooks": {
            "PreToolUse": [
                {"matcher": "Bash\\d", "hooks": [{"type": "command", "command": "guard.sh"}]}
            ]
        }
    }
    path = tmp_path / "settings.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    with pytest.raises(HookSettingsError) as raised:
        load_settings(path)
    assert raised.value.json_path == "$.hooks.PreToolUse[0].matcher"
    assert raised.value.rule_id == "HOOK-8"
    assert "portable" in raised.value.problem
    assert str(path) in str(raised.value)


def test_TEXT_2_sources_decision_words_and_reasons_are_the_specified_ones() -> None:
    """TEXT-2: message sources, hook decision words, the audit defaults and turn/end reasons."""
    post = HookSpec("post", "PostToolUse", "read")
    pre = HookSpec("pre", "PreToolUse", "bash")
    config = with_hooks(pre, post)
    program: list[Command] = [
        *START,
        ModelReplies((READ, BASH)),
        HookAnswers(Deny("no")),
        ToolFinishes("c2", ToolSucceeded("A", contexts=("deferred",)), (PostContext("note"),)),
    ]
    state = run(config, program)
    sources = [dict(e.message.source) for e in state.log if hasattr(e, "message")]
    assert {"kind": "user"} in sources
    assert {"kind": "model", "provider": "scripted", "model": "scripted-model"} in sources
    assert {"kind": "tool", "callId": "c2"} in sources
    contexts = [e.message for e in state.log if isinstance(e, UserMessageRecorded) and e.seq > 3]
    assert [(dict(m.source), m.content) for m in contexts] == [
        ({"kind": "plugin", "plugin": "tool-context"}, (TextBlock("deferred"),)),
        ({"kind": "plugin", "plugin": "tool-context"}, (TextBlock("note"),)),
    ]
    answers = [(e.point, e.decision, e.duration_ms, e.exit_code, e.stderr_summary)
               for e in state.log if isinstance(e, HookResulted)]  # fmt: skip
    assert answers == [
        ("PreToolUse", "deny", 0.0, None, "no"),
        ("PostToolUse", "allow", 0.0, None, None),
    ]
    invoked = [e.matcher for e in state.log if isinstance(e, HookInvoked)]
    assert invoked == ["bash", "read"]
    failed = run(PLAIN, [*START, ModelFails("overloaded", "OVERLOADED")])
    end = failed.log[-1]
    assert isinstance(end, TurnEnded)
    assert end.reason == FrozenMap(
        {"kind": "error", "error": FrozenMap({"message": "overloaded", "code": "OVERLOADED"})}
    )
