"""HIST-1 on the real Claude Code and Codex CLIs: the conform driver declares `history` and
reports what each CLI's model requests really carried (`properties/harnesses/request_history`).

Without a binary: request bodies written here by hand, in each API's shape (a short stand-in
for each vendor reminder and instruction, never a CLI's own prompt), are read back into the
protocol's messages; the history a command reports is the last request's, held to the log's
history, then the log's messages after that request's end; and under the `claude-code`
profile a transcript's 'API Error' reply that the requests leave out is the known divergence
HIST-1, and a call reusing an earlier reply's call id left out with its result (placeholders in
their place) is HIST-1:reused-call-id, while any other message left out is a counterexample.
The real binaries are driven by `test_real_harness_conform.py` (its random programs and the
HIST-1 cases, which declare and compare the history now).
"""

from __future__ import annotations

import json
from typing import Any

from loopspec.model.commands import ModelReplies, SubmitUser, ToolFinishes, ToolSucceeded
from loopspec.model.messages import TextBlock, ToolCallBlock
from loopspec.properties.conformance.history_change import ReportedHistory
from loopspec.properties.conformance.history_own_log import OWN_LOG, OwnLogHistory
from loopspec.properties.conformance.history_rule import history_rule
from loopspec.properties.conformance.target import ModelTarget, Observation
from loopspec.properties.harnesses.cli_wire import tool_command
from loopspec.properties.harnesses.conform_driver import CAPABILITIES
from loopspec.properties.harnesses.request_history import (
    RequestHistory,
    as_sent,
    sent_messages,
)
from loopspec.properties.harnesses.script import Harness
from loopspec.properties.harnesses.session import turn_argv
from loopspec.properties.profiles import PROFILES
from loopspec.properties.stateful.strategies import CONFIGS

CLAUDE, CODEX = Harness.CLAUDE_CODE, Harness.CODEX
READ_A = '{"file_path":"a.txt"}'
DATE = "<system-reminder>\nToday's date is 2026-01-01.\n</system-reminder>"
TOKENS = "<system-reminder>\n<total_tokens>9 tokens left</total_tokens>\n</system-reminder>"
HOOK_NOTE = "<system-reminder>\nPostToolUse:Bash hook additional context: note\n</system-reminder>"


def _plain(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in m.items() if k != "id"} for m in messages]


def _user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": [{"type": "text", "text": text}], "source": {"kind": "user"}}


def _result(call_id: str, *texts: str, failed: bool = False) -> dict[str, Any]:
    block = {
        "type": "tool-result",
        "toolCallId": call_id,
        "content": [{"type": "text", "text": text} for text in texts],
        "isError": failed,
    }
    return {"role": "user", "content": [block], "source": {"kind": "tool", "callId": call_id}}


def _reply(harness: Harness, model: str, *blocks: dict[str, Any]) -> dict[str, Any]:
    source = {"kind": "model", "provider": harness.value, "model": model}
    return {"role": "assistant", "content": list(blocks), "source": source}


def _call(call_id: str, name: str, arguments: str) -> dict[str, Any]:
    return {"type": "tool-call", "id": call_id, "name": name, "arguments": arguments}


def test_HIST_1_the_driver_declares_history() -> None:
    """HIST-1 is observable on both real CLIs: the driver declares `history`."""
    assert "history" in CAPABILITIES


def test_HIST_1_a_claude_code_request_is_read_back_without_its_own_reminders() -> None:
    """HIST-1: Claude Code's reminders are dropped (a user turn's, and a tool result's but a
    hook's), the newline it adds joining the next user message is not the user's, a `thinking`
    block is reasoning and a `Bash` call is the call its command carries."""
    shell = {"command": tool_command("tac", "c1", "read", READ_A)}
    body = {
        "model": "claude-x",
        "messages": [
            {
                "role": "user",
                "content": [{"type": "text", "text": DATE}, {"type": "text", "text": "hi"}],
            },
            {
                "role": "assistant",
                "content": [
                    {"type": "thinking", "thinking": "hm", "signature": "s"},
                    {"type": "text", "text": "ok"},
                    {"type": "tool_use", "id": "c1", "name": "Bash", "input": shell},
                ],
            },
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": "c1",
                        "content": f"A\n\n{HOOK_NOTE}\n\n{TOKENS}",
                        "is_error": False,
                    },
                    {"type": "text", "text": "stop\n"},
                    {"type": "text", "text": "[Request interrupted by user]"},
                ],
            },
        ],
    }
    assert _plain(sent_messages(CLAUDE, body)) == [
        _user("hi"),
        _reply(
            CLAUDE,
            "claude-x",
            {"type": "reasoning", "text": "hm"},
            {"type": "text", "text": "ok"},
            _call("c1", "read", READ_A),
        ),
        _result("c1", "A", HOOK_NOTE),
        _user("stop"),
        _user("[Request interrupted by user]"),
    ]


def test_HIST_1_a_codex_request_is_read_back_without_its_instructions() -> None:
    """HIST-1: Codex's developer instructions and tagged context are dropped; a developer
    message holding a hook's context is that context; a run of model items is one reply; an
    item of a kind no reader knows is shown, not dropped."""
    call = {"cmd": tool_command("/b/loopspec-tool", "c1", "read", READ_A)}
    body = {
        "input": [
            {
                "type": "message",
                "role": "developer",
                "content": [{"type": "input_text", "text": "Be brief."}],
            },
            {
                "type": "message",
                "role": "user",
                "content": [
                    {
                        "type": "input_text",
                        "text": "<environment_context>\n  <cwd>/w</cwd>\n</environment_context>",
                    }
                ],
            },
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]},
            {"type": "reasoning", "summary": [{"type": "summary_text", "text": "hm"}]},
            {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": "ok"}],
            },
            {
                "type": "function_call",
                "call_id": "c1",
                "name": "exec_command",
                "arguments": json.dumps(call),
            },
            {
                "type": "message",
                "role": "developer",
                "content": [{"type": "input_text", "text": "note"}],
            },
            {"type": "function_call_output", "call_id": "c1", "output": "A"},
            {"type": "web_search_call", "id": "w1"},
        ]
    }
    context = {**_user("note"), "source": {"kind": "plugin", "plugin": "tool-context"}}
    unread = {
        **_user('{"id": "w1", "type": "web_search_call"}'),
        "source": {"kind": "plugin", "plugin": "wire:web_search_call"},
    }
    assert _plain(sent_messages(CODEX, body, hook_contexts={"note"})) == [
        _user("hi"),
        _reply(
            CODEX,
            "",
            {"type": "reasoning", "text": "hm"},
            {"type": "text", "text": "ok"},
            _call("c1", "read", READ_A),
        ),
        context,
        _result("c1", "A"),
        unread,
    ]


def test_HIST_1_what_the_anthropic_wire_cannot_carry_is_reported_as_the_log_holds_it() -> None:
    """HIST-1: a blank reply (the Anthropic API refuses a blank text, so Claude Code leaves it
    out) is reported as the log holds it, as are sources and ids; a message the request leaves
    out that the wire could carry is not, and the request's own messages follow from there."""
    blank = {**_reply(CLAUDE, "m", {"type": "text", "text": "  "}), "id": "a2"}
    error = {
        **_reply(CLAUDE, "<synthetic>", {"type": "text", "text": "API Error: 400"}),
        "id": "a3",
    }
    logged = [{**_user("hi"), "id": "u1"}, blank, error, {**_user("again"), "id": "u4"}]
    sent = sent_messages(
        CLAUDE,
        {
            "model": "m",
            "messages": [
                {
                    "role": "user",
                    "content": [{"type": "text", "text": "hi"}, {"type": "text", "text": "again"}],
                }
            ],
        },
    )
    assert as_sent(CLAUDE, sent[:1], logged[:2]) == logged[:2]
    reported = as_sent(CLAUDE, sent, logged)
    assert reported[:2] == logged[:2]
    assert _plain(reported[2:]) == [_user("again")]
    # Codex's wire carries a blank text: there it is compared.
    codex_blank = {**blank, "source": {**blank["source"], "provider": "codex"}}
    again = {**_user("again"), "id": "u5"}
    assert as_sent(CLAUDE, sent[1:], [blank, again]) == [blank, again]
    assert as_sent(CODEX, sent[1:], [codex_blank, again]) == [again]
    # After a message left out, the request's end still lines up: the log's messages after it
    # (a reply to the next prompt) follow, and only the message left out is missing.
    reply = {**_reply(CLAUDE, "m", {"type": "text", "text": "ok"}), "id": "a6"}
    assert as_sent(CLAUDE, sent, [*logged, reply]) == [*logged[:2], logged[3], reply]


def _model_events() -> list[dict[str, Any]]:
    model = ModelTarget()
    model.reset(CONFIGS[0])
    events: list[dict[str, Any]] = []
    for command in (
        SubmitUser("hi"),
        ModelReplies((TextBlock("ok"), ToolCallBlock("c1", "read", READ_A))),
        ToolFinishes("c1", ToolSucceeded("A")),
    ):
        events += model.apply(command).events
    return events


def test_HIST_1_a_history_is_the_last_request_then_what_the_log_gained_since() -> None:
    """HIST-1: before any request the log's history is reported; after one, that request's
    messages, then the log's after its end (a reply, its result) until the CLI asks again,
    each change sent once (`kept` and `appended`); a request that leaves out a message the log
    holds before its end is reported as it is, so the comparison finds it."""
    events = _model_events()
    history = RequestHistory(CLAUDE)
    first = history.change(events[:3], ())
    assert (first["kept"], _plain(first["appended"])) == (0, [_user("hi")])
    history.asked({"model": "m", "messages": [{"role": "user", "content": "hi"}]})
    asked = history.change(events[:3], ())
    assert asked == {"kept": 1, "appended": []}
    replied = history.change(events, ())
    assert replied["kept"] == 1
    assert [m["role"] for m in replied["appended"]] == ["assistant", "user"]
    assert replied["appended"][1]["source"] == {"kind": "tool", "callId": "c1"}
    history.asked(
        {
            "model": "m",
            "messages": [
                {
                    "role": "user",
                    "content": [{"type": "tool_result", "tool_use_id": "c1", "content": "A"}],
                }
            ],
        }
    )
    skipped = history.change(events, ())
    assert skipped["kept"] == 0
    assert [m["source"]["kind"] for m in skipped["appended"]] == ["tool"]


def _assistant_event(seq: int, text: str, model: str) -> dict[str, Any]:
    message = {**_reply(CLAUDE, model, {"type": "text", "text": text}), "id": f"a{seq}"}
    data = {"turn": 1, "step": 1, "message": message}
    return {"type": "assistant/message", "seq": seq, "time": 0, "data": data, "surfaceOp": "append"}


def _api_error_left_out(reply_model: str) -> tuple[OwnLogHistory, list[str | None]]:
    """A transcript holding an assistant message the next request leaves out, fed to the own-
    log comparison of the claude-code profile: what each command's comparison found."""
    own = OwnLogHistory(PROFILES["claude-code"].history_erasers)
    reported = ReportedHistory()
    events = _model_events()[:3]
    prompt = events[2]["data"]
    observations = [
        (events, [prompt]),
        ([_assistant_event(3, "API Error: 400 overloaded", reply_model)], []),
    ]
    found: list[str | None] = []
    kept = 1
    for index, (appended_events, appended) in enumerate(observations):
        change = reported.change(0 if index == 0 else kept, appended)
        result = own.feed(Observation(True, events=tuple(appended_events), history=change))
        found.append(None if result is None else result[0])
    return own, found


def test_HIST_1_claude_code_api_error_reply_left_out_of_requests_is_known() -> None:
    """HIST-1: Claude Code's transcript keeps a failed request as an assistant message
    ('API Error: ...', model <synthetic>) that no request carries: under its profile that is
    the known divergence HIST-1, shown; a reply of the model's left out is a counterexample."""
    own, found = _api_error_left_out("<synthetic>")
    assert found == [None, None]
    assert own.shown == {"HIST-1"}
    own, found = _api_error_left_out("claude-x")
    assert found == [None, "HIST-1"]
    assert own.shown == set()


def test_HIST_1_codex_resumes_its_own_session_by_id() -> None:
    """HIST-1: a later turn resumes Codex's session by its id; `resume --last` skipped a
    session whose first prompt was empty and started a new one, whose request carried none of
    the earlier turns (a random program on the real binary, `""` then `"ok"`, was blamed)."""
    base = ["codex", "exec", "--json"]
    later = turn_argv(CODEX, base, "ok", first=False, session="0190-id")
    assert later == ["codex", "exec", "resume", "0190-id", "--json", "ok"]
    assert turn_argv(CODEX, base, "", first=True, session=None) == ["codex", "exec", "--json", ""]


def test_HIST_1_a_claude_code_result_sent_trimmed_is_the_one_its_transcript_holds() -> None:
    """HIST-1: Claude Code trims a tool result's text as it sends it, where its transcript keeps
    the whitespace (measured: a body's "  x" sent as "x", a denial "PreToolUse:Bash hook error:
    " with a reason of whitespace sent without it); the request's result is the log's, reported
    as the log holds it, not as a second result the log lacks. Codex's wire is compared whole."""
    call = {**_reply(CLAUDE, "m", _call("c1", "bash", '{"command":"ls"}')), "id": "a1"}
    kept = {**_result("c1", "  x"), "id": "r2"}
    denied = {**_result("c1", "PreToolUse:Bash hook error:  ", failed=True), "id": "r2"}
    for logged in (kept, denied):
        text = logged["content"][0]["content"][0]["text"]
        trimmed = {**logged, "content": [{**logged["content"][0], "content": []}]}
        trimmed["content"][0]["content"] = [{"type": "text", "text": text.strip()}]
        assert as_sent(CLAUDE, [call, trimmed], [call, logged]) == [call, logged]
        assert as_sent(CODEX, [call, trimmed], [call, logged]) == [call, trimmed]


def _own_log_words(logged: list[dict[str, Any]], reported: list[dict[str, Any]]) -> str:
    """What the own-log comparison says of a reported history that differs from the log's."""
    found = history_rule(
        ReportedHistory().change(0, logged), ReportedHistory().change(0, reported), OWN_LOG
    )
    assert found is not None
    return f"{found[0]} {found[1]}"


def test_HIST_1_a_request_ending_on_a_changed_message_is_reported_changed() -> None:
    """HIST-1: a request whose last message is the log's next one changed (a tool result of the
    same call with other text; the log's reply to that request after it) reports it in the
    log's message's place, so conform says what the log holds there and what was sent. It was
    reported after the request's own, as well as the log's, and read as a result the log
    lacks: a user looked for an extra message the request never held. A last message of
    another slot (a user message where the log's next is a reply) is still one added."""
    prompt = _user("hi")
    call = _reply(CODEX, "", _call("c1", "read", READ_A))
    logged = [prompt, call, _result("c1", "A"), _reply(CODEX, "", {"type": "text", "text": "ok"})]
    changed = [prompt, call, _result("c1", "B")]
    reported = as_sent(CODEX, changed, logged)
    assert reported == [*changed, logged[3]]
    words = _own_log_words(logged, reported)
    assert words.startswith("HIST-1 message #3 of the history")
    assert "(user (the result of call c1)) differs at $.content[0].content[0].text" in words
    assert """its own log's "A", the target's "B\"""" in words
    added = [*logged[:3], _user("more")]
    reported = as_sent(CODEX, added, logged)
    assert reported == [*added, logged[3]]
    words = _own_log_words(logged, reported)
    assert "message #4 of the history" in words
    assert (
        "the target sends a user message its own log's history does not hold, "
        '[{"type": "text", "text": "more"}]' in words
    )


READ_B, READ_C = '{"file_path":"b.txt"}', '{"file_path":"c.txt"}'
# A reply of Claude Code's source (its transcript's and its requests'), for the own-log checks.
CLAUDE_SOURCE = {"kind": "model", "provider": "claude-code", "model": "m"}


def _reused_id_log(*later: ToolCallBlock | TextBlock) -> list[dict[str, Any]]:
    """The log of a prompt, a reply calling c0 and its result, then a reply of `later` whose
    call reuses or not c0, its result and a last reply, as Claude Code's transcript gives it."""
    model = ModelTarget()
    model.reset(CONFIGS[0])
    events: list[dict[str, Any]] = []
    call = next(block for block in later if isinstance(block, ToolCallBlock))
    for command in (
        SubmitUser("read both"),
        ModelReplies((ToolCallBlock("c0", "read", READ_A),)),
        ToolFinishes("c0", ToolSucceeded("first")),
        ModelReplies(later),
        ToolFinishes(call.id, ToolSucceeded("second")),
        ModelReplies((TextBlock("done"),)),
    ):
        events += model.apply(command).events
    for event in events:
        if event["type"] == "assistant/message":
            event["data"]["message"]["source"] = CLAUDE_SOURCE
    return events


def _claude_request(*turns: tuple[str, list[dict[str, Any]] | str]) -> dict[str, Any]:
    return {"model": "m", "messages": [{"role": r, "content": c} for r, c in turns]}


FIRST_CALL_REQUESTED: list[tuple[str, list[dict[str, Any]] | str]] = [
    ("user", [{"type": "text", "text": TOKENS}, {"type": "text", "text": "read both"}]),
    (
        "assistant",
        [
            {
                "type": "tool_use",
                "id": "c0",
                "name": "Bash",
                "input": {"command": tool_command("tac", "c0", "read", READ_A)},
            }
        ],
    ),
    ("user", [{"type": "tool_result", "tool_use_id": "c0", "content": "first"}]),
]


def _own_log_finds(
    events: list[dict[str, Any]], request: dict[str, Any]
) -> tuple[str | None, set[str]]:
    """The rule the claude-code profile's own-log comparison finds when the CLI's last request
    is `request` (the driver's report of it: `RequestHistory`), and the divergences shown."""
    history = RequestHistory(CLAUDE)
    history.asked(request)
    own = OwnLogHistory(PROFILES["claude-code"].history_erasers)
    change = ReportedHistory().change(0, history.now(events, ()))
    found = own.feed(Observation(True, events=tuple(events), history=change))
    return (None if found is None else found[0]), own.shown


def test_HIST_1_claude_code_leaving_out_a_call_of_a_reused_id_is_known() -> None:
    """HIST-1: Claude Code leaves a call whose id an earlier reply's call used out of every
    request, its result too, sending a reply left with nothing as '[Tool use interrupted]' and
    a user turn left with nothing as '(no content)' (measured on 2.1.332: local models number
    calls call_0 anew in each reply). Under its profile that is the known divergence
    HIST-1:reused-call-id, shown, where the reply held only the call and where it held a text
    too (the request sends the text alone)."""
    only_call = _reused_id_log(ToolCallBlock("c0", "read", READ_B))
    interrupted = _claude_request(
        *FIRST_CALL_REQUESTED,
        ("assistant", [{"type": "text", "text": "[Tool use interrupted]"}]),
        ("user", "(no content)"),
    )
    assert _own_log_finds(only_call, interrupted) == (None, {"HIST-1:reused-call-id"})
    with_text = _reused_id_log(TextBlock("and b"), ToolCallBlock("c0", "read", READ_B))
    text_alone = _claude_request(
        *FIRST_CALL_REQUESTED,
        ("assistant", [{"type": "text", "text": "and b"}]),
        ("user", [{"type": "text", "text": "(no content)"}]),
    )
    assert _own_log_finds(with_text, text_alone) == (None, {"HIST-1:reused-call-id"})


def test_HIST_1_claude_code_another_history_fault_beside_a_reused_id_is_blamed() -> None:
    """HIST-1: the profile's reused-id entry erases only that call, its result and the
    placeholders it leaves: a request that also leaves out the first call's result, or that
    sends '[Tool use interrupted]' for a reply whose call reuses no id, is still HIST-1."""
    only_call = _reused_id_log(ToolCallBlock("c0", "read", READ_B))
    first_result_left_out = _claude_request(
        *FIRST_CALL_REQUESTED[:2],
        ("assistant", [{"type": "text", "text": "[Tool use interrupted]"}]),
        ("user", "(no content)"),
    )
    assert _own_log_finds(only_call, first_result_left_out)[0] == "HIST-1"
    fresh_id = _reused_id_log(ToolCallBlock("c1", "read", READ_C))
    fresh_call_left_out = _claude_request(
        *FIRST_CALL_REQUESTED,
        ("assistant", [{"type": "text", "text": "[Tool use interrupted]"}]),
        ("user", "(no content)"),
    )
    assert _own_log_finds(fresh_id, fresh_call_left_out) == ("HIST-1", set())


def test_HIST_1_claude_code_reused_id_entry_keeps_a_repeated_result_of_another_id() -> None:
    """HIST-1: beside a reused id, a request repeating the result of a call whose id no reply
    reused still differs from the log once the reused-id entry has erased what it explains."""
    (erase,) = [e for k, e in PROFILES["claude-code"].history_erasers if k.endswith("call-id")]
    prompt = _user("read")
    both_calls = _reply(CLAUDE, "m", _call("c0", "read", READ_A), _call("c1", "read", READ_B))
    first, other = _result("c0", "A"), _result("c1", "B")
    reused = _reply(CLAUDE, "m", _call("c0", "read", READ_C))
    log = [prompt, both_calls, first, other, reused, _result("c0", "C")]
    interrupted = _reply(CLAUDE, "m", {"type": "text", "text": "[Tool use interrupted]"})
    placeholders = [interrupted, _user("(no content)")]
    assert erase(log, [*log[:4], *placeholders]) == (log[:4], log[:4])
    assert erase(log, [*log[:4], other, *placeholders]) == (log[:4], [*log[:4], other])
