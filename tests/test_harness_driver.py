"""The parts of `loopspec run --harness` that need no real binary: the mock model, the script,
the hooks file, the connect trace, and how the report finds divergences."""

from __future__ import annotations

import http.client
import json
import os
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import attrs
import pytest
from node_requirements import Need

from loopspec.model.config import LoopConfig
from loopspec.properties.cli.main import main
from loopspec.properties.cli.scenario import ScenarioError, load_scenario
from loopspec.properties.harnesses import cli as harness_cli
from loopspec.properties.harnesses import hook_audit
from loopspec.properties.harnesses.cli import load_hooks
from loopspec.properties.harnesses.compaction import (
    COMPACT_COMMAND,
    COMPACT_REQUEST_START,
    whole_history,
)
from loopspec.properties.harnesses.conform_driver import HOOK_PROGRAM, Session
from loopspec.properties.harnesses.mock_model import (
    MAX_ASKS,
    STUCK_TEXT,
    MockModel,
    StuckReply,
    replies_in_anthropic_history,
    replies_in_responses_history,
)
from loopspec.properties.harnesses.model_stream import StreamCall, scripted_blocks
from loopspec.properties.harnesses.report import report_lines, session_view
from loopspec.properties.harnesses.script import (
    Harness,
    HarnessScript,
    ScriptedCall,
    ScriptedReply,
    ScriptedText,
    load_harness_script,
    script_from_scenario,
)
from loopspec.properties.harnesses.session import (
    OBSERVER_ID,
    HarnessError,
    SessionRequest,
    binary_of,
    connect_tracer,
    drive,
    parse_connects,
    read_audit,
    wrapped_hooks,
)

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = ROOT / "examples" / "claude-code-adapter" / "scenarios"
ONE_CALL = HarnessScript(
    "print",
    (
        ScriptedReply((ScriptedText("Printing."), ScriptedCall("c1", {"command": "echo a"}))),
        ScriptedReply((ScriptedText("Done."),)),
    ),
)


def _post(port: int, path: str, body: Any) -> tuple[int, str]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        connection.request("POST", path, json.dumps(body), {"Content-Type": "application/json"})
        response = connection.getresponse()
        return response.status, response.read().decode()
    finally:
        connection.close()


def _events(stream: str) -> list[dict[str, Any]]:
    return [json.loads(line[6:]) for line in stream.splitlines() if line.startswith("data: ")]


def test_the_reply_is_chosen_by_the_history_so_a_retry_gets_the_same_answer() -> None:
    """The reply index is the number of model replies the request's history holds."""
    assert replies_in_anthropic_history({"messages": [{"role": "user"}]}) == 0
    messages = [{"role": "user"}, {"role": "assistant"}, {"role": "user"}]
    assert replies_in_anthropic_history({"messages": messages}) == 1
    items = [
        {"type": "message", "role": "user"},
        {"type": "message", "role": "assistant"},
        {"type": "function_call"},
        {"type": "function_call"},
        {"type": "function_call_output"},
        {"type": "function_call_output"},
        {"type": "reasoning"},
    ]
    assert replies_in_responses_history({"input": items}) == 2
    assert replies_in_responses_history({"input": "text"}) == 0


def test_mock_streams_anthropic_messages_with_the_call_arguments() -> None:
    """Claude Code's endpoint: message_start, a tool_use block whose input arrives as one
    input_json_delta, stop_reason tool_use; the request is recorded."""
    mock = MockModel(Harness.CLAUDE_CODE, ONE_CALL.replies).start()
    try:
        status, body = _post(mock.port, "/v1/messages?beta=true", {"messages": [], "model": "m"})
        again, _ = _post(mock.port, "/v1/other", {})
    finally:
        mock.close()
    assert (status, again) == (200, 404)
    events = _events(body)
    assert events[0]["type"] == "message_start"
    starts = [e["content_block"] for e in events if e["type"] == "content_block_start"]
    assert starts[1] == {"type": "tool_use", "id": "c1", "name": "Bash", "input": {}}
    deltas = [e["delta"] for e in events if e["type"] == "content_block_delta"]
    assert json.loads(deltas[1]["partial_json"]) == {"command": "echo a"}
    assert events[-2]["delta"]["stop_reason"] == "tool_use"
    assert len(mock.model_requests()) == 1
    assert len(mock.requests) == 2


def test_ABORT_1_a_message_claude_code_wrote_itself_does_not_skip_the_next_scripted_reply() -> None:
    """ABORT-1, REC-1: resuming after an interrupt or a crash, Claude Code sends an assistant
    message it wrote itself (`No response requested.`) as the model's. Counted as a reply, it
    made the mock answer the resumed turn past the script ("no more replies") instead of the
    turn's scripted reply, so the session `run --harness` showed was not the scenario's. A
    served text, a call and a message without content still count."""
    messages: list[dict[str, Any]] = [
        {"role": "user", "content": "print"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "c1", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "c1"}]},
        {"role": "user", "content": [{"type": "text", "text": "[Request interrupted by user]"}]},
        {"role": "assistant", "content": [{"type": "text", "text": "No response requested."}]},
        {"role": "user", "content": "go on"},
    ]
    mock = MockModel(Harness.CLAUDE_CODE, ONE_CALL.replies).start()
    try:
        _, body = _post(mock.port, "/v1/messages", {"messages": messages, "model": "m"})
    finally:
        mock.close()
    texts = [e["delta"]["text"] for e in _events(body) if e["type"] == "content_block_delta"]
    assert "".join(texts) == "Done."
    assert replies_in_anthropic_history({"messages": messages}) == 2
    served = frozenset({"Done."})
    done = {"role": "assistant", "content": [{"type": "text", "text": "Done."}]}
    assert replies_in_anthropic_history({"messages": [*messages, done]}, served) == 2
    assert replies_in_anthropic_history({"messages": [{"role": "assistant"}]}, served) == 1


REUSED_ID = HarnessScript(
    "print two words",
    (
        ScriptedReply((ScriptedCall("call_0", {"command": "echo one"}),)),
        ScriptedReply((ScriptedCall("call_0", {"command": "echo two"}),)),
        ScriptedReply((ScriptedText("Printed both."),)),
    ),
)


def _streamed_text(body: str) -> str:
    return "".join(
        e["delta"].get("text", "") for e in _events(body) if e["type"] == "content_block_delta"
    )


def test_EXE_1_a_reply_claude_code_emptied_of_a_reused_call_id_counts_as_given() -> None:
    """EXE-1: a reply whose only call reuses an earlier reply's id (`call_0`, as local models
    number calls) is left out of Claude Code 2.1.332's next request, `[Tool use interrupted]`
    and `(no content)` in its place (seen 2026-12-05). Read as text the CLI wrote itself, it
    left the count at one reply, so the mock gave reply 2 again and `run --harness claude-code`
    looped until its 180 s timeout; the request is answered with reply 3."""
    one = {"role": "assistant", "content": [{"type": "tool_use", "id": "call_0", "input": {}}]}
    messages: list[dict[str, Any]] = [
        {"role": "user", "content": [{"type": "text", "text": "print two words"}]},
        one,
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "call_0"}]},
        {"role": "assistant", "content": [{"type": "text", "text": "[Tool use interrupted]"}]},
        {"role": "user", "content": [{"type": "text", "text": "(no content)"}]},
    ]
    mock = MockModel(Harness.CLAUDE_CODE, REUSED_ID.replies).start()
    try:
        _, body = _post(mock.port, "/v1/messages", {"messages": messages, "model": "m"})
    finally:
        mock.close()
    assert _streamed_text(body) == "Printed both."
    assert mock.stuck is None


COMPACTED = HarnessScript(
    "one",
    (
        ScriptedReply((ScriptedCall("c1", {"command": "echo one"}),)),
        ScriptedReply((ScriptedText("1"),)),
        ScriptedReply((ScriptedText("<summary>one printed</summary>"),)),
        ScriptedReply((ScriptedCall("c3", {"command": "echo three"}),)),
        ScriptedReply((ScriptedText("3"),)),
    ),
)


def _user(*texts: str) -> dict[str, Any]:
    return {"role": "user", "content": [{"type": "text", "text": text} for text in texts]}


def test_the_mock_model_and_the_report_follow_claude_codes_compact() -> None:
    """Claude Code 2.1.332's /compact asks for the summary with the history up to the turn's
    last result, its own words last, and each later request holds the summary, the last reply
    and its record of the command, not the calls before. Counting replies, the mock answered the
    summary request with the turn's last reply again ("1", asked for twice) and the next turn
    with that reply too, so the run's third turn never ran its call; and `run`'s report read
    the first turn's call as missing from the history (ADJ-3, RW-1)."""
    call: dict[str, Any] = {
        "role": "assistant",
        "content": [{"type": "tool_use", "id": "c1", "input": {}}],
    }
    result = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "c1"}]}
    summarize = {
        **result,
        "content": [*result["content"], *_user(COMPACT_REQUEST_START)["content"]],
    }
    compacted: list[dict[str, Any]] = [
        {"role": "user", "content": "This session is being continued... one printed"},
        {"role": "assistant", "content": [{"type": "text", "text": "1"}]},
        _user(f"{COMPACT_COMMAND}\n<command-message>compact</command-message>"),
        _user("Three."),
    ]
    asked = [
        [_user("One.")],
        [_user("One."), call, result],
        [_user("One."), call, summarize],
        [_user("One."), call, summarize],  # a retry
        compacted,
        [*compacted, {**call, "content": [{"type": "tool_use", "id": "c3", "input": {}}]}],
    ]
    mock = MockModel(Harness.CLAUDE_CODE, COMPACTED.replies).start()
    try:
        bodies = [_post(mock.port, "/v1/messages", {"messages": m, "model": "m"})[1] for m in asked]
    finally:
        mock.close()
    starts = [
        [e["content_block"] for e in _events(b) if e["type"] == "content_block_start"]
        for b in bodies
    ]
    assert [_streamed_text(b) for b in bodies] == [
        "",
        "1",
        "<summary>one printed</summary>",
        "<summary>one printed</summary>",
        "",
        "3",
    ]
    assert starts[4][-1]["id"] == "c3"
    whole = whole_history([{"messages": m} for m in asked])
    assert whole["messages"] == [_user("One."), call, result, _user("Three."), asked[-1][-1]]


def test_a_summary_request_in_the_message_recording_the_last_compact_is_read_whole() -> None:
    """A second `/compact` whose summary request shares its last user message with the record of
    the first (consecutive user messages merged) left no message after that record: reading the
    history whole raised IndexError, and `run --harness`'s report with it."""
    record, request = _user(COMPACT_COMMAND), _user(f"{COMPACT_REQUEST_START} Summarize.")
    merged = {**record, "content": [*record["content"], *request["content"]]}
    asked = [[_user("One."), merged], [_user("Two.")]]
    whole = whole_history([{"messages": m} for m in asked])
    assert whole == {"messages": [_user("Two.")]}


def test_a_reply_asked_for_again_and_again_stops_the_run_naming_the_scenario_and_reply(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A history that stops growing (as Claude Code's did past a reused call id) had the mock
    give one reply ~550 times until the run's 180 s timeout. Past `MAX_ASKS` requests for one
    reply the mock answers text that ends the turn, every later request too, and `run` stops
    with exit 2 naming the scenario, the reply and the count, its log removed."""
    history = {"messages": [{"role": "user", "content": "print two words"}], "model": "m"}
    mock = MockModel(Harness.CLAUDE_CODE, REUSED_ID.replies).start()
    try:
        answers = [_post(mock.port, "/v1/messages", history)[1] for _ in range(MAX_ASKS + 2)]
    finally:
        mock.close()
    assert "call_0" in answers[MAX_ASKS - 1]
    assert [_streamed_text(a) for a in answers[MAX_ASKS:]] == [STUCK_TEXT] * 2
    assert mock.stuck == StuckReply(0, MAX_ASKS + 1)

    scenario = tmp_path / "reused.json"
    scenario.write_text((SCENARIOS / "one-call.json").read_text())
    stuck = {"logs": [], "stuck": attrs.asdict(StuckReply(1, MAX_ASKS + 1))}
    monkeypatch.setattr(harness_cli, "drive", lambda request: stuck)
    log = tmp_path / "run.jsonl"
    code = main(["run", str(scenario), "--harness", "claude-code", "--log", str(log)])
    error = capsys.readouterr().err
    assert code == 2
    assert f"{scenario}: claude-code asked for reply 2 of its 2 {MAX_ASKS + 1} times" in error
    assert "Traceback" not in error
    assert not log.exists()


def test_PROTO_1_TURN_1_a_cli_that_fails_before_asking_the_model_is_no_pass(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """PROTO-1: a CLI that exits 1 at its start (a broken install, a flag it refuses), never
    asking the model, was reported as `exit 1` above no call judged and no divergence, exit 0,
    its stderr shown nowhere. `run` stops with exit 2 quoting its stderr, its log removed; a
    CLI that failed after asking is reported as before. TURN-1: where the failed turn's prompt
    is blank, which Claude Code refuses so (`Input contained only whitespace`), the report names
    TURN-1 with its words, exit 1; a blank prompt on Codex, or in a turn that did not fail, hid
    the failed start as TURN-1, exit 1. A request is the model's by the harness's own endpoint
    (`asks_the_model`)."""
    failed = {
        **_result([], {"messages": []}),
        "exitCode": 1,
        "requests": [],
        "stderr": "starting\nError: unknown option '--include-hook-events'\n",
    }
    monkeypatch.setattr(harness_cli, "drive", lambda request: failed)
    log = tmp_path / "run.jsonl"
    scenario = str(SCENARIOS / "one-call.json")
    code = main(["run", scenario, "--harness", "claude-code", "--log", str(log)])
    error = capsys.readouterr().err
    assert code == 2
    assert (
        "[PROTO-1] claude-code exited 1 before asking the model anything, so none of the scenario "
        "was played; its stderr: starting | Error: unknown option '--include-hook-events'"
    ) in error
    assert not log.exists()
    asked = {**failed, "requests": _result([], {"messages": []})["requests"]}
    monkeypatch.setattr(harness_cli, "drive", lambda request: asked)
    assert main(["run", scenario, "--harness", "claude-code", "--log", str(log)]) != 2
    log.unlink()
    # Claude Code's endpoint is no model request of Codex's (either harness's counted).
    assert main(["run", scenario, "--harness", "codex", "--log", str(log)]) == 2
    assert "[PROTO-1] codex exited 1 before asking" in capsys.readouterr().err
    blank = tmp_path / "blank.json"
    blank.write_text((SCENARIOS / "one-call.json").read_text().replace("Print a word.", " "))
    second_blank = tmp_path / "second-blank.json"
    two_turns = (SCENARIOS / "two-turns.json").read_text()
    second_blank.write_text(two_turns.replace("Now print two.", " "))
    # A blank prompt elsewhere than the failed turn, or on Codex, hides no failed start.
    for scenario_file, harness, failed_turn in (
        (blank, "codex", 0),
        (second_blank, "claude-code", 0),
        (second_blank, "claude-code", None),
    ):
        ran = {**failed, "failedTurn": failed_turn}
        monkeypatch.setattr(harness_cli, "drive", lambda request, ran=ran: ran)
        code = main(["run", str(scenario_file), "--harness", harness, "--log", str(log)])
        assert code == 2, (scenario_file.name, harness, failed_turn)
        assert f"[PROTO-1] {harness} exited 1 before asking" in capsys.readouterr().err
    refused = {**failed, "failedTurn": 0}
    monkeypatch.setattr(harness_cli, "drive", lambda request: refused)
    assert main(["run", str(blank), "--harness", "claude-code", "--log", str(log)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert (
        "  [TURN-1] -: the CLI exited 1 (Error: unknown option '--include-hook-events') where the "
        "blank prompt of turn 1 was to open a turn: a prompt opens a turn, blank or not (known "
        "design difference)"
    ) in out
    # It said the log "(~/no log in the run's HOME)" was copied.
    assert out[-1] == f"claude-code wrote no log in the run's HOME: {log} is left empty"


def test_mock_streams_openai_responses_with_an_exec_command_call() -> None:
    """Codex's endpoint: a function_call item for exec_command with `{"cmd": ...}`, then
    response.completed carrying the output and usage; past the script it says so."""
    mock = MockModel(Harness.CODEX, ONE_CALL.replies).start()
    try:
        _, first = _post(mock.port, "/v1/responses", {"input": []})
        history = [{"type": "message", "role": "assistant"}, {"type": "function_call"}]
        history += [{"type": "function_call_output"}]
        history += [{"type": "message", "role": "assistant"}]
        _, past = _post(mock.port, "/v1/responses", {"input": history})
    finally:
        mock.close()
    done = _events(first)[-1]
    assert done["type"] == "response.completed"
    call = done["response"]["output"][1]
    assert (call["type"], call["name"], call["call_id"]) == ("function_call", "exec_command", "c1")
    assert json.loads(call["arguments"]) == {"cmd": "echo a"}
    assert "no more replies" in _events(past)[-1]["response"]["output"][0]["content"][0]["text"]


def test_a_harness_scenario_has_turns_of_calls_its_cli_offers(tmp_path: Path) -> None:
    """The shipped scenarios load, Claude Code's file tools as its Read, Write and Edit;
    results/approvals, tools the CLI does not offer the mock model (a file tool on Codex, which
    has none), a file tool's input that is no object and no turns are refused with the file,
    the line and the JSON path."""
    script = script_from_scenario(load_scenario(SCENARIOS / "two-calls.json"), Harness.CODEX)
    assert [c.command for c in script.calls()] == ["sleep 1.5; echo slow", "echo fast"]
    files = load_harness_script(SCENARIOS / "file-tools.json", Harness.CLAUDE_CODE)
    streamed = [scripted_blocks(Harness.CLAUDE_CODE, reply) for reply in files.replies]
    calls = [b for blocks in streamed for b in blocks if isinstance(b, StreamCall)]
    assert [c.name for c in calls] == ["Write", "Edit", "Read"]
    assert calls[0].tool_input == {"file_path": "notes.txt", "content": "first line\nsecond line\n"}
    document = json.loads((SCENARIOS / "one-call.json").read_text())
    text = json.dumps(document)
    bad = {
        "results": ({**document, "results": {"toolu_print": {"ok": True, "text": "x"}}}, "CC"),
        "tool": (json.loads(text.replace('"name": "bash"', '"name": "grep"')), "CC"),
        "file-tool": (json.loads(text.replace('"name": "bash"', '"name": "read"')), "CODEX"),
        "input": (
            json.loads(
                text.replace('"name": "bash"', '"name": "write"')
                .replace('"arguments": "{', '"arguments": "[{')
                .replace('}", ', '}]", ', 1)
            ),
            "CC",
        ),
        "turns": ({**document, "turns": []}, "CC"),
    }
    for name, (content, on) in bad.items():
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(content))
        with pytest.raises(ScenarioError) as error:
            load_harness_script(path, Harness.CODEX if on == "CODEX" else Harness.CLAUDE_CODE)
        assert str(error.value).startswith(f"{path}:1: $."), name  # (a file of one line)
    assert "Codex 0.171.0 offers a mock model no file tool" in _refusal(tmp_path, "file-tool")
    assert "must be a JSON object (the input Claude Code's Write" in _refusal(tmp_path, "input")


def _refusal(folder: Path, name: str) -> str:
    harness = Harness.CODEX if name == "file-tool" else Harness.CLAUDE_CODE
    with pytest.raises(ScenarioError) as error:
        load_harness_script(folder / f"{name}.json", harness)
    return str(error.value)


def test_hooks_file_errors_name_the_file_and_the_part(tmp_path: Path) -> None:
    """A hooks file that is not `{"hooks": {EVENT: [{hooks: [{command}]}]}}` is a one-line error
    naming the file, the line and the part."""
    path = tmp_path / "hooks.json"
    for content, part in (
        ("[]", "$ must be an object"),
        ("{}", "$.hooks"),
        ('{"hooks": {"PreToolUse": {}}}', "$.hooks.PreToolUse"),
        ('{"hooks": {"PreToolUse": [{"hooks": [{"type": "command"}]}]}}', "[0].hooks[0] must"),
    ):
        path.write_text(content)
        with pytest.raises(HarnessError) as error:
            load_hooks(path)
        assert part in str(error.value)
        assert str(error.value).startswith(f"{path}:1: $")


def test_every_hook_is_wrapped_for_the_audit_and_an_observer_records_what_ran() -> None:
    """Each configured command runs through hook_audit under the id the bundled loop gives it;
    a PostToolUse observer is added."""
    hooks = json.loads((SCENARIOS / "two-rewrites.json").read_text())
    wrapped = wrapped_hooks(hooks, Path("/audit"), SCENARIOS, harness=Harness.CLAUDE_CODE)
    first, second = wrapped["PreToolUse"][0]["hooks"]
    assert "claude-code:PreToolUse:1" in first["command"]
    assert "claude-code:PreToolUse:2" in second["command"]
    assert "hook_audit.py" in first["command"]
    assert OBSERVER_ID in wrapped["PostToolUse"][-1]["hooks"][0]["command"]


def test_connects_are_read_from_the_strace_output() -> None:
    """Every inet connect, its address, port and result; unix sockets are not network. A
    connect another process's line cut in two (`<unfinished ...>`, then `<... connect
    resumed>`) is read whole: line by line, it was lost."""
    trace = "\n".join(
        [
            "12 connect(3, {sa_family=AF_INET, sin_port=htons(4000), "
            'sin_addr=inet_addr("127.0.0.1")}, 16) = -1 EINPROGRESS (Operation now in progress)',
            '13 connect(4, {sa_family=AF_INET, sin_port=htons(443), sin_addr=inet_addr("1.2.3.4")}'
            ", 16) = -1 ENETUNREACH (Network is unreachable)",
            '14 connect(5, {sa_family=AF_UNIX, sun_path="/run/x"}, 110) = 0',
            '15 connect(6, {sa_family=AF_INET, sin_port=htons(80), sin_addr=inet_addr("5.6.7.8")}'
            ", 16 <unfinished ...>",
            "16 set_robust_list(0x7f3a2c1fe9e0, 24) = 0",
            "15 <... connect resumed>)            = -1 ECONNREFUSED (Connection refused)",
        ]
    )
    found = parse_connects(trace)
    assert [(c["address"], c["port"]) for c in found] == [
        ("127.0.0.1", 4000),
        ("1.2.3.4", 443),
        ("5.6.7.8", 80),
    ]
    assert found[1]["result"] == "ENETUNREACH (Network is unreachable)"
    assert found[2]["result"] == "ECONNREFUSED (Connection refused)"


def test_the_tracer_sees_every_connect_of_the_process_tree(tmp_path: Path) -> None:
    """The strace command a run traces the CLI with (seccomp-filtered where strace allows) sees a
    connect made by a grandchild, as a hook's would be, with its address and result."""
    if shutil.which("strace") is None:
        pytest.skip("strace is not installed: harness runs say their connects are not traced")
    trace = tmp_path / "connects.txt"
    connect = "import socket; socket.socket().connect_ex(('127.0.0.1', 9))"
    grandchild = shlex.join([sys.executable, "-c", connect])
    subprocess.run([*connect_tracer(), "-o", str(trace), "--", "sh", "-c", grandchild], check=True)
    found = parse_connects(trace.read_text(encoding="utf-8"))
    assert [(c["address"], c["port"]) for c in found] == [("127.0.0.1", 9)]
    assert found[0]["result"].startswith("ECONNREFUSED")


def test_a_harness_session_process_imports_no_loop() -> None:
    """The process each harness run starts (`python -m ...harnesses.session`) needs the script's
    data, the mock and the tracer, not the bundled loop or the scenario reader: importing them
    cost every run ~0.6 s of CPU before the CLI started."""
    script = (
        "import json, sys\nimport loopspec.properties.harnesses.session\n"
        "print(json.dumps(sorted(sys.modules)))"
    )
    done = subprocess.run([sys.executable, "-c", script], check=True, capture_output=True)
    loaded = set(json.loads(done.stdout.decode().splitlines()[-1]))
    heavy = ("loopspec.impl", "loopspec.properties.cli", "loopspec.properties.conformance")
    assert {m for m in loaded if m.startswith(heavy)} == set()


def test_HOOK_7_harness_hooks_are_named_as_the_bundled_run_names_them_with_their_entry() -> None:
    """`run --harness` named hooks `PreToolUse[0][0]` and the bundled run
    `claude-code:PreToolUse:1`: two names for one hook. Now both number a point's hooks in
    configured order, and the report ties each id that ran to its command and JSON path."""
    first = {"type": "command", "command": "./guard.sh"}
    second = {"type": "command", "command": "./rewrite.py"}
    hooks = {"hooks": {"PreToolUse": [{"hooks": [first]}, {"matcher": "Bash", "hooks": [second]}]}}
    wrapped = wrapped_hooks(hooks, Path("/audit"), None, harness=Harness.CODEX)
    ids = [hook_audit.hook_of(group["hooks"][0]["command"]) for group in wrapped["PreToolUse"]]
    assert ids == [("codex:PreToolUse:1", "./guard.sh"), ("codex:PreToolUse:2", "./rewrite.py")]
    original = {"command": "rm -rf build"}
    result = _ran_original(
        original, _audit("codex:PreToolUse:2", "PreToolUse", original, None, 1.0)
    )
    view = session_view(Harness.CODEX, ONE_CALL, hooks, result, hooks_source="hooks.json")
    lines = report_lines(view, result)
    where = lines.index("  where:")
    assert lines[where - 1].startswith("  codex:PreToolUse:2         call c1: saw ")
    assert lines[where + 1] == (
        "    codex:PreToolUse:2 = ./rewrite.py (hooks.json: $.hooks.PreToolUse[1].hooks[0])"
    )
    assert lines[where + 2].startswith("\n== calls:")  # hooks that did not run are not listed


def test_a_missing_binary_is_a_clear_error_naming_npm_ci(tmp_path: Path) -> None:
    """No installed binary: the run stops before starting anything, saying how to install."""
    with pytest.raises(HarnessError) as error:
        drive(SessionRequest(Harness.CODEX, ONE_CALL, None, tmp_path))
    assert "npm ci" in str(error.value)
    assert str(tmp_path) in str(error.value)


def test_an_existing_log_path_is_refused_not_replaced(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """--log names a file that exists: exit 2, one line, the file untouched."""
    log = tmp_path / "kept.jsonl"
    log.write_text("mine\n")
    code = main(["run", str(SCENARIOS / "one-call.json"), "--harness", "codex", "--log", str(log)])
    assert code == 2
    assert "exists" in capsys.readouterr().err
    assert log.read_text() == "mine\n"


def _result(audit: list[dict[str, Any]], history: dict[str, Any]) -> dict[str, Any]:
    return {
        "exitCode": 0,
        "timedOut": False,
        "seconds": 1.0,
        "turns": 1,
        "crashed": [],
        "mockPort": 4000,
        "isolation": "test",
        "traced": True,
        "connects": [{"address": "1.2.3.4", "port": 443, "result": "ENETUNREACH"}],
        "requests": [{"method": "POST", "path": "/v1/messages", "body": history}],
        "logs": [],
        "audit": audit,
        "unfinished": [],
    }


def _audit(
    hook: str,
    event: str,
    seen: Any,
    answer: Any,
    finished: float,
    *,
    stdout: str | None = None,
    call_id: str = "c1",
    started: float = 0.0,
) -> dict[str, Any]:
    """A record as `hook_audit` writes it; `stdout` replaces the JSON of `answer` verbatim."""
    stdin = {"hook_event_name": event, "tool_use_id": call_id, "tool_input": seen}
    return {
        "hook": hook,
        "stdin": json.dumps(stdin),
        "stdout": stdout if stdout is not None else json.dumps(answer) if answer else "",
        "stderr": "",
        "exitCode": 0,
        "started": started,
        "finished": finished,
    }


def _rewrite(command: Any) -> dict[str, Any]:
    return {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "allow",
            "updatedInput": {"command": command} if isinstance(command, str) else command,
        }
    }


def _ran_original(original: dict[str, Any], *audit: dict[str, Any]) -> dict[str, Any]:
    """A Claude Code session whose one call ran the model's input, with `audit`'s hooks."""
    history = {
        "messages": [
            {"role": "assistant", "content": [{"type": "tool_use", "id": "c1", "input": original}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "c1"}]},
        ]
    }
    observed = _audit(OBSERVER_ID, "PostToolUse", original, None, 2.5)
    return _result([*audit, observed], history)


def test_HOOK_6_report_blames_a_non_object_rewrite_on_the_hook_not_HOOK_3() -> None:
    """A hook's updatedInput that is a string: Claude Code ignores it and runs the model's
    input. The model refuses such a call (HOOK-6); that is the divergence, and the report says
    the hook's output is malformed, not that Claude Code took the wrong rewrite (HOOK-3)."""
    original = {"command": "rm -rf build"}
    bad = _rewrite("rm -rf build --dry-run")
    bad["hookSpecificOutput"]["updatedInput"] = "rm -rf build --dry-run"
    result = _ran_original(
        original, _audit("claude-code:PreToolUse:1", "PreToolUse", original, bad, 1.0)
    )
    hooks = {"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "x"}]}]}}
    view = session_view(Harness.CLAUDE_CODE, ONE_CALL, hooks, result)
    # The fixture has no transcript, so RW-1 also says the log's call record lacks the input.
    named = [d for d in view.divergences if d.rule_id != "RW-1"]
    assert [(d.rule_id, d.call_id) for d in named] == [("HOOK-6", "c1")]
    assert "non-object-updated-input" in named[0].message
    hook_line = next(
        line for line in report_lines(view, result) if "claude-code:PreToolUse:1" in line
    )
    assert "; allow (non-object-updated-input: " in hook_line


def test_HOOK_6_report_blames_a_non_object_rewrite_only_where_the_model_would_refuse_it() -> None:
    """HOOK-6 refuses the winning rewrite only: the last hook in configured order that supplied
    one, and none under a deny (DEC-1). A non-object updatedInput followed by a later hook's
    sound rewrite runs that rewrite; one beside a deny is denied. The report blamed HOOK-6 on
    any non-object updatedInput, 'the model refuses the call, naming the hook', in both."""
    original = {"command": "rm -rf build"}
    bad = _rewrite("rm -rf build --dry-run")
    bad["hookSpecificOutput"]["updatedInput"] = "rm -rf build --dry-run"
    two = [{"type": "command", "command": "x"}, {"type": "command", "command": "y"}]
    hooks = {"hooks": {"PreToolUse": [{"hooks": two}]}}
    later = {"command": "echo later"}
    deny = {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny"}}
    sessions = {
        "a later sound rewrite wins": (
            [_audit("claude-code:PreToolUse:2", "PreToolUse", original, _rewrite(later), 1.0)],
            later,
            [],
        ),
        "a deny wins": (
            [_audit("claude-code:PreToolUse:2", "PreToolUse", original, deny, 1.0)],
            original,
            ["DEC-1"],
        ),
    }
    for what, (others, ran, expected) in sessions.items():
        audit = [_audit("claude-code:PreToolUse:1", "PreToolUse", original, bad, 1.0), *others]
        result = _ran_original(original, *audit)
        result["audit"][-1] = _audit(OBSERVER_ID, "PostToolUse", ran, None, 2.5)
        view = session_view(Harness.CLAUDE_CODE, ONE_CALL, hooks, result)
        named = [d.rule_id for d in view.divergences if d.rule_id != "RW-1"]
        assert named == expected, what


def test_DEC_1_report_reads_a_deny_by_exit_2_or_legacy_block_as_the_model_does() -> None:
    """A Claude Code hook denies by exiting 2 with its reason on stderr, or with the legacy
    `{"decision": "block"}`; the model reads both as a deny. The report took the decision from
    `permissionDecision` alone: such a hook was 'no decision', and a harness that ran the call
    anyway was not blamed on DEC-1."""
    original = {"command": "rm -rf build"}
    by_exit_2 = _audit("claude-code:PreToolUse:1", "PreToolUse", original, None, 1.0)
    by_exit_2.update(exitCode=2, stderr="rm is not allowed here\n")
    legacy = _audit("claude-code:PreToolUse:2", "PreToolUse", original, {"decision": "block"}, 1.0)
    result = _ran_original(original, by_exit_2, legacy)
    view = session_view(Harness.CLAUDE_CODE, ONE_CALL, None, result)
    named = [(d.rule_id, d.message) for d in view.divergences if d.rule_id != "RW-1"]
    assert named == [
        ("DEC-1", "ran although claude-code:PreToolUse:1, claude-code:PreToolUse:2 denied it")
    ]
    lines = [line for line in report_lines(view, result) if "call c1: saw" in line]
    assert "; block (rm is not allowed here) [" in lines[0]
    assert "; block [" in lines[1]


def test_HOOK_7_report_reads_a_malformed_answer_as_the_model_does_not_as_a_decision() -> None:
    """`permissionDecision: "block"` (a legacy word in the new field) is no decision in Claude
    Code: the call runs. The report named it `block`, as if the hook had blocked the call."""
    original = {"command": "rm -rf build"}
    wrong_word = {
        "hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "block"}
    }
    two_objects = json.dumps(_rewrite("echo a")) + "\n" + json.dumps({"systemMessage": "x"})
    result = _ran_original(
        original,
        _audit("claude-code:PreToolUse:1", "PreToolUse", original, wrong_word, 1.0),
        _audit("claude-code:PreToolUse:2", "PreToolUse", original, None, 1.0, stdout=two_objects),
    )
    view = session_view(Harness.CLAUDE_CODE, ONE_CALL, None, result)
    assert [d.rule_id for d in view.divergences if d.rule_id != "RW-1"] == []
    report = report_lines(view, result)
    lines = [line for line in report if "call c1: saw" in line]
    assert "; error (invalid-output:" in lines[0]
    assert "; error (invalid-json:" in lines[1]
    # Each faulty hook is noted after the audit as `check` and the bundled run note it (HOOK-7).
    notes = [line for line in report if line.startswith("  HOOK-7: ")]
    assert [note.split(" failed ")[0] for note in notes] == [
        "  HOOK-7: hook claude-code:PreToolUse:1",
        "  HOOK-7: hook claude-code:PreToolUse:2",
    ]
    assert (
        "in its only run: its own output or process went wrong (call c1, invalid-output:"
        in (notes[0])
    )


def test_HOOK_3_report_says_on_each_hook_line_what_became_of_its_rewrite() -> None:
    """`-> INPUT` closed every hook line that printed an updatedInput, also when the model
    never uses it: after exit 2 (stdout unread), beside another hook's deny, under a later
    hook's rewrite. Each line now says which, as the bundled run's do."""
    original = {"command": "rm -rf build"}
    three = [{"type": "command", "command": c} for c in ("x", "y", "z")]
    hooks = {"hooks": {"PreToolUse": [{"hooks": three}]}}

    def lines_of(*audit: dict[str, Any]) -> list[str]:
        result = _ran_original(original, *audit)
        view = session_view(Harness.CLAUDE_CODE, ONE_CALL, hooks, result)
        return [line for line in report_lines(view, result) if "call c1: saw" in line]

    first = _audit("claude-code:PreToolUse:1", "PreToolUse", original, _rewrite("echo 1"), 1.0)
    second = _audit("claude-code:PreToolUse:2", "PreToolUse", original, _rewrite("echo 2"), 1.0)
    by_exit_2 = _audit("claude-code:PreToolUse:3", "PreToolUse", original, _rewrite("echo 3"), 1.0)
    by_exit_2.update(exitCode=2, stderr="no\n")
    overridden, in_effect = lines_of(first, second)
    assert overridden.split("; ", 1)[1].startswith(
        'allow -> {"command": "echo 1"}, overridden by claude-code:PreToolUse:2\'s, later in '
        "configured order ["
    )
    assert in_effect.split("; ", 1)[1].startswith('allow -> {"command": "echo 2"} [')
    unused, denied = lines_of(first, by_exit_2)
    assert ", unused: the call is denied [" in unused
    assert denied.startswith("  claude-code:PreToolUse:3")
    assert denied.endswith(
        '(stderr: no)) -> {"command": "echo 3"}, ignored: the answer as read '
        "supplies no input [+0.00s..+1.00s]"
    )
    wrong_event = _rewrite("echo 4")
    wrong_event["hookSpecificOutput"]["hookEventName"] = "PostToolUse"
    (ignored,) = lines_of(
        _audit("claude-code:PreToolUse:1", "PreToolUse", original, wrong_event, 1.0)
    )
    assert '-> {"command": "echo 4"}, ignored: the answer as read supplies no input [' in ignored


def test_HOOK_3_RW_1_report_compares_what_ran_with_configured_order_and_history() -> None:
    """HOOK-3: two hooks rewrote; what ran is the first configured hook's (it finished last),
    not the last configured one's. RW-1: the history keeps the model's input. A connect that
    did not go to the mock is named."""
    hooks = json.loads((SCENARIOS / "two-rewrites.json").read_text())
    original = {"command": "echo a"}
    audit = [
        _audit("claude-code:PreToolUse:1", "PreToolUse", original, _rewrite("echo first"), 2.0),
        _audit("claude-code:PreToolUse:2", "PreToolUse", original, _rewrite("echo last"), 1.0),
        _audit(OBSERVER_ID, "PostToolUse", {"command": "echo first"}, None, 2.5),
    ]
    history = {
        "messages": [
            {"role": "assistant", "content": [{"type": "tool_use", "id": "c1", "input": original}]},
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "c1", "content": "first"}],
            },
        ]
    }
    result = _result(audit, history)
    view = session_view(Harness.CLAUDE_CODE, ONE_CALL, hooks, result)
    assert [(d.rule_id, d.call_id) for d in view.divergences] == [
        ("RW-1", "c1"),
        ("RW-1", "c1"),
        ("HOOK-3", "c1"),
    ]
    assert "claude-code:PreToolUse:1's, which finished last" in view.divergences[2].message
    lines = report_lines(view, result)
    assert "offline: 1 connect(s) not to the mock: 1.2.3.4:443 (ENETUNREACH)" in lines


def test_RW_1_report_compares_a_file_tools_input_as_claude_code_runs_it() -> None:
    """RW-1 for Claude Code's file tools: what ran is the whole input, its relative path made
    absolute under the CLI's folder (as Claude Code hands its hooks the path) and an Edit's
    `replace_all: false` its default, both left as the model gave them in the history; a
    hook's content then differs, named by the member that differs. It compared a command
    alone, which a file tool's input has not, so a Write a hook rewrote read as agreeing. An
    absolute path naming the same file is normalized, as check does (`same_file_input`)."""
    asked = {"file_path": "notes.txt", "content": "one\n"}
    script = HarnessScript(
        "note",
        (
            ScriptedReply((ScriptedCall("c1", asked, "write"),)),
            ScriptedReply((ScriptedText("Ok."),)),
        ),
    )
    for content, found in (("one\n", []), ("hooked\n", ["RW-1", "RW-1"])):
        ran = {"file_path": "/w/notes.txt", "content": content}
        result = _ran_file_tool(asked, ran, "Write")
        view = session_view(Harness.CLAUDE_CODE, script, None, result)
        assert [d.rule_id for d in view.divergences] == found, content
    assert view.divergences[0].message == (
        'ran {"content": "hooked\\n"} but the next request\'s history holds {"content": "one\\n"}'
    )
    edit = {"file_path": "n.txt", "old_string": "a", "new_string": "b"}
    script = HarnessScript(
        "fix", (ScriptedReply((ScriptedCall("c1", edit, "edit"),)), ScriptedReply(()))
    )
    result = _ran_file_tool(
        {**edit, "replace_all": False}, {**edit, "file_path": "/w/n.txt"}, "Edit"
    )
    assert session_view(Harness.CLAUDE_CODE, script, None, result).divergences == []
    # An absolute path is normalized as check normalizes it: it read as RW-1 here alone.
    spelled = {"file_path": "/w/x/../notes.txt", "content": "one\n"}
    script = HarnessScript(
        "note", (ScriptedReply((ScriptedCall("c1", spelled, "write"),)), ScriptedReply(()))
    )
    result = _ran_file_tool(spelled, {**spelled, "file_path": "/w/notes.txt"}, "Write")
    assert session_view(Harness.CLAUDE_CODE, script, None, result).divergences == []


def _result_block(call_id: str) -> dict[str, Any]:
    return {"type": "tool_result", "tool_use_id": call_id, "content": "done"}


def _ran_file_tool(recorded: dict[str, Any], ran: dict[str, Any], tool: str) -> dict[str, Any]:
    """A Claude Code session in folder /w whose one call of `tool`, recorded in the history and
    the transcript as `recorded`, ran `ran`."""
    result = {**_ran_original(recorded), "work": "/w"}
    result["audit"][-1] = _audit(OBSERVER_ID, "PostToolUse", ran, None, 2.5)
    call = {"type": "tool_use", "id": "c1", "name": tool, "input": recorded}
    records = [
        {"type": "assistant", "uuid": "a1", "message": {"id": "m1", "content": [call]}},
        {"type": "user", "uuid": "u1", "message": {"content": [_result_block("c1")]}},
    ]
    text = "".join(json.dumps(record) + "\n" for record in records)
    result["logs"] = [{"path": ".claude/projects/p/s.jsonl", "text": text}]
    return result


def test_ADJ_3_is_not_named_for_a_call_no_request_followed() -> None:
    """ADJ-3: a turn aborted while its call ran, the run's last: the CLI asked the model nothing
    more, and the report said "the next request carries the call without a result" (ADJ-3)
    from the one request there was, the one its reply answered (seen on both CLIs). It says no
    request followed, names no rule, and that no turn resumed the aborted one."""
    first_request = {"messages": [{"role": "user", "content": "print"}]}
    result = {**_result([], first_request), "aborted": [0]}
    result["logs"] = [{"path": ".claude/projects/p/s.jsonl", "text": ""}]
    view = session_view(Harness.CLAUDE_CODE, ONE_CALL, None, result)
    # Nor REC-1's "the next request carries a result the log never recorded" (a crash there).
    assert view.divergences == []
    lines = report_lines(view, result)
    assert lines[0].endswith("turn 1 aborted (SIGINT), the last turn: none resumed it")
    assert (
        "    history     : (no request followed it: the CLI asked the model nothing after its "
        "reply)" in lines
    )
    assert lines[-1].startswith("  not judged: c1: no model request followed (the CLI ended")


def test_ORD_3_report_reads_result_order_from_the_next_request() -> None:
    """ORD-3: results in the next request in another order than the reply's calls."""
    script = HarnessScript(
        "two",
        (
            ScriptedReply(
                (ScriptedCall("c1", {"command": "a"}), ScriptedCall("c2", {"command": "b"}))
            ),
        ),
    )
    body = {
        "input": [
            {"type": "function_call", "call_id": "c1", "arguments": '{"cmd": "a"}'},
            {"type": "function_call", "call_id": "c2", "arguments": '{"cmd": "b"}'},
            {"type": "function_call_output", "call_id": "c2", "output": "B"},
            {"type": "function_call_output", "call_id": "c1", "output": "A"},
        ]
    }
    result = _result([], body)
    result["requests"][0]["path"] = "/v1/responses"
    view = session_view(Harness.CODEX, script, None, result)
    assert [d.rule_id for d in view.divergences] == ["ORD-3"]


def test_REC_1_report_names_a_repair_the_log_never_recorded_and_invented_replies() -> None:
    """REC-1: the next request carries a result for a call the rollout leaves unanswered (a
    repair that is not durable), and an assistant message the script never wrote."""
    script = HarnessScript(
        "long",
        (ScriptedReply((ScriptedCall("c1", {"command": "long"}),)),),
        ("go on",),
        (8.0,),
    )
    body = {
        "input": [
            {"type": "function_call", "call_id": "c1", "arguments": '{"cmd": "long"}'},
            {"type": "function_call_output", "call_id": "c1", "output": "aborted"},
            {"type": "message", "role": "assistant", "content": [{"text": "No response."}]},
            {"type": "message", "role": "user", "content": [{"text": "go on"}]},
        ]
    }
    call = {"type": "function_call", "call_id": "c1", "arguments": '{"cmd": "long"}'}
    rollout = json.dumps({"timestamp": "t", "type": "response_item", "payload": call}) + "\n"
    result = _result([], body)
    result["requests"][0]["path"] = "/v1/responses"
    result["logs"] = [{"path": ".codex/sessions/rollout-x.jsonl", "text": rollout}]
    result["crashed"] = [0]
    view = session_view(Harness.CODEX, script, None, result)
    assert [(d.rule_id, d.call_id) for d in view.divergences] == [("REC-1", "c1"), ("REC-1", "-")]
    assert "turn 1 crashed (SIGKILL)" in report_lines(view, result)[0]


def _rollout(*records: tuple[str, dict[str, Any]]) -> str:
    """A hand-written Codex rollout: one `{timestamp, type, payload}` line per record."""
    lines = [{"timestamp": "t", "type": kind, "payload": payload} for kind, payload in records]
    return "".join(json.dumps(line) + "\n" for line in lines)


CONTEXT = {"type": "message", "role": "developer", "content": [{"text": "checked by policy"}]}
PRINT_CALL = {"type": "function_call", "call_id": "c1", "arguments": '{"cmd": "echo a"}'}
PRINT_OUTPUT = {"type": "function_call_output", "call_id": "c1", "output": "a"}


def _observed(command: str) -> list[dict[str, Any]]:
    """The audit of a call whose PostToolUse observer saw `command` run."""
    return [_audit(OBSERVER_ID, "PostToolUse", {"command": command}, None, 1.0)]


@pytest.mark.parametrize("separator", ["\u2028", "\u2029", "\x85", "\x1c"])
def test_REC_1_report_reads_a_result_holding_a_line_separator_as_recorded(separator: str) -> None:
    """REC-1: a rollout's output holding U+2028 (a printf's output, written unescaped as Codex's
    and Claude Code's JSON writers do) is the call's recorded result; `run --harness` read the
    record as two broken lines and blamed a repair the log never recorded (seen 2026-12-06)."""
    output = {"type": "function_call_output", "call_id": "c1", "output": f"a{separator}b"}
    body = {"input": [PRINT_CALL, output]}
    result = _result(_observed("echo a"), body)
    result["requests"][0]["path"] = "/v1/responses"
    rollout = _rollout(("response_item", PRINT_CALL))
    line = {"timestamp": "t", "type": "response_item", "payload": output}
    rollout += json.dumps(line, ensure_ascii=False) + "\n"
    result["logs"] = [{"path": ".codex/sessions/rollout-x.jsonl", "text": rollout}]
    view = session_view(Harness.CODEX, ONE_CALL, None, result)
    assert view.divergences == []


def test_REC_1_report_names_claude_codes_resume_words_after_a_turn_no_cut_ended() -> None:
    """REC-1: Claude Code resumed after a reply holding no text (no crash, no interrupt) sends
    its own `No response requested.` as the model's (seen 2026-12-06). The report named it
    HIST-1 beside check's REC-1 on the same message, two verdicts of one fault: those are its
    crash repair's words, whatever cut the turn."""
    script = HarnessScript(
        "say nothing",
        (ScriptedReply((ScriptedText(""),)), ScriptedReply((ScriptedText("x"),))),
        ("again",),
    )
    body = {
        "messages": [
            {"role": "user", "content": "say nothing"},
            {"role": "assistant", "content": [{"type": "text", "text": "No response requested."}]},
            {"role": "user", "content": "again"},
        ]
    }
    view = session_view(Harness.CLAUDE_CODE, script, None, _result([], body))
    assert [(d.rule_id, d.call_id) for d in view.divergences] == [("REC-1", "-")]


def test_ADJ_1_report_finds_a_context_between_call_and_result_in_the_next_request() -> None:
    """ADJ-1: Codex sends a PostToolUse hook's context as a developer message between the call
    and its output. The report names it from the request (what the model read), once although
    `check` finds it in the rollout too, so the summary and the exit status say what the check
    line says (they said 0 divergences). A context inside the result message (Claude Code's
    way) keeps ADJ-1."""
    body = {"input": [PRINT_CALL, CONTEXT, PRINT_OUTPUT]}
    result = _result(_observed("echo a"), body)
    result["requests"][0]["path"] = "/v1/responses"
    rollout = _rollout(("response_item", PRINT_CALL), ("response_item", CONTEXT))
    rollout += _rollout(("response_item", PRINT_OUTPUT))
    result["logs"] = [{"path": ".codex/sessions/rollout-x.jsonl", "text": rollout}]
    view = session_view(Harness.CODEX, ONE_CALL, None, result)
    assert [(d.rule_id, d.call_id) for d in view.divergences] == [("ADJ-1", "c1")]
    assert "a developer message between the call and its result" in view.divergences[0].message
    lines = report_lines(view, result)
    assert "== divergences from the model: 1 ==" in "\n".join(lines)
    assert any(x.startswith("  check line 2: ADJ-1: a developer message lands") for x in lines)
    assert lines[-1].endswith("(known bug)")

    claude_body = {
        "messages": [
            {"role": "assistant", "content": [{"type": "tool_use", "id": "c1", "input": {}}]},
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "c1", "content": "a"},
                    {"type": "text", "text": "hook additional context: checked by policy"},
                ],
            },
        ]
    }
    kept = session_view(Harness.CLAUDE_CODE, ONE_CALL, None, _result([], claude_body))
    assert [d.rule_id for d in kept.divergences] == []
    claude_body["messages"].insert(1, {"role": "user", "content": "checked by policy"})
    broken = session_view(Harness.CLAUDE_CODE, ONE_CALL, None, _result([], claude_body))
    assert [(d.rule_id, d.call_id) for d in broken.divergences] == [("ADJ-1", "c1")]


TWO_HOOKS = {
    "hooks": {
        "PreToolUse": [
            {"hooks": [{"type": "command", "command": "a"}, {"type": "command", "command": "b"}]}
        ]
    }
}


def _history_leaving_out_the_second_call(
    call_one: dict[str, Any], answer: dict[str, Any]
) -> dict[str, Any]:
    """The next request Claude Code sends after a reply reusing `call_0`: the first call and
    its result, then `[Tool use interrupted]` where the second call and its result would be."""
    return {
        "messages": [
            {"role": "user", "content": [{"type": "text", "text": "print two words"}]},
            {"role": "assistant", "content": [call_one]},
            {"role": "user", "content": [answer]},
            {"role": "assistant", "content": [{"type": "text", "text": "[Tool use interrupted]"}]},
            {"role": "user", "content": [{"type": "text", "text": "(no content)"}]},
        ]
    }


def _reused_id_audit(*, first_denied: bool = False) -> list[dict[str, Any]]:
    """Two PreToolUse hooks and the observer for REUSED_ID's `call_0` twice, by start; with
    `first_denied` the second hook denies the first call, which then never runs."""
    deny = {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny"}}
    audit = []
    for start, command in ((0.0, "echo one"), (1.0, "echo two")):
        seen = {"command": command}
        denies = first_denied and command == "echo one"
        hooks: list[tuple[str, Any]] = [
            ("claude-code:PreToolUse:1", None),
            ("claude-code:PreToolUse:2", deny if denies else None),
        ]
        for k, (hook, answer) in enumerate(hooks):
            at = start + k / 100
            audit.append(
                _audit(hook, "PreToolUse", seen, answer, at + 0.2, call_id="call_0", started=at)
            )
        if not denies:
            audit.append(
                _audit(
                    OBSERVER_ID,
                    "PostToolUse",
                    seen,
                    None,
                    start + 0.4,
                    call_id="call_0",
                    started=start + 0.3,
                )
            )
    return audit


def test_HIST_1_a_reused_call_id_is_its_own_call_in_every_source_not_a_false_RW_1() -> None:
    """RW-1: with replies numbering calls anew (`call_0`, then `call_0` again, as local models
    do), the report keyed what ran, the history, the transcript and the hooks by the id, so
    the second call's input overwrote the first's and `run --harness claude-code` blamed RW-1
    twice (`ran echo two but the next request's history holds echo one`) where call 1 ran
    `echo one` and the history held it. Each later use is `call_0#2`, as conform names it, in
    every source alike: what Claude Code really does is leave that call out of the next request
    with its result (the known HIST-1)."""
    call_one = {"type": "tool_use", "id": "call_0", "input": {"command": "echo one"}}
    call_two = {"type": "tool_use", "id": "call_0", "input": {"command": "echo two"}}
    answer = {"type": "tool_result", "tool_use_id": "call_0", "content": "one"}
    history = _history_leaving_out_the_second_call(call_one, answer)
    transcript = "".join(
        json.dumps({"type": kind, "message": {"role": kind, "content": [block]}}) + "\n"
        for kind, block in (
            ("assistant", call_one),
            ("user", answer),
            ("assistant", call_two),
            ("user", {**answer, "content": "two"}),
        )
    )
    result = _result(_reused_id_audit(), history)
    result["logs"] = [{"path": ".claude/projects/p/s.jsonl", "text": transcript}]
    view = session_view(Harness.CLAUDE_CODE, REUSED_ID, TWO_HOOKS, result)
    assert [(d.rule_id, d.call_id) for d in view.divergences] == [
        ("HIST-1", "call_0#2"),
        ("HIST-1", "-"),
    ]
    assert "leaves out the call and its result" in view.divergences[0].message
    assert view.ran == {"call_0": {"command": "echo one"}, "call_0#2": {"command": "echo two"}}
    assert view.log_calls == {"call_0": call_one["input"], "call_0#2": call_two["input"]}
    lines = report_lines(view, result)
    table = lines.index("  call_0#2 (id call_0 again, a later call)")
    assert lines[table - 5 : table + 5] == [
        "  call_0",
        '    model asked : {"command": "echo one"}',
        '    ran         : {"command": "echo one"}',
        '    history     : {"command": "echo one"}',
        '    log record  : {"command": "echo one"}',
        "  call_0#2 (id call_0 again, a later call)",
        '    model asked : {"command": "echo two"}',
        '    ran         : {"command": "echo two"}',
        "    history     : null",
        '    log record  : {"command": "echo two"}',
    ]
    hook_calls = [line.split(": saw")[0].split()[-1] for line in lines if "PreToolUse:" in line]
    assert hook_calls[:4] == ["call_0", "call_0", "call_0#2", "call_0#2"]


def test_HIST_1_a_reused_call_id_left_out_unrun_is_not_a_call_shown_unanswered() -> None:
    """ADJ-3: the second `call_0` never ran (no PostToolUse seen) and Claude Code's next
    request leaves it out with any result, `[Tool use interrupted]` in its place; the report
    said ADJ-3 "the next request carries the call without a result" of a call it does not
    carry. It is HIST-1, the request leaving out both, as for such a call that ran."""
    audit = [a for a in _reused_id_audit() if a["started"] < 1.3]  # the second run unseen
    call_one = {"type": "tool_use", "id": "call_0", "input": {"command": "echo one"}}
    answer = {"type": "tool_result", "tool_use_id": "call_0", "content": "one"}
    history = _history_leaving_out_the_second_call(call_one, answer)
    result = _result(audit, history)
    transcript = "".join(
        json.dumps({"type": kind, "message": {"role": kind, "content": [block]}}) + "\n"
        for kind, block in (("assistant", call_one), ("user", answer))
    )
    result["logs"] = [{"path": ".claude/projects/p/s.jsonl", "text": transcript}]
    view = session_view(Harness.CLAUDE_CODE, REUSED_ID, TWO_HOOKS, result)
    assert view.ran == {"call_0": {"command": "echo one"}}
    assert [(d.rule_id, d.call_id) for d in view.divergences] == [
        ("HIST-1", "call_0#2"),
        ("HIST-1", "-"),
    ]
    assert view.divergences[0].message.startswith(
        "the next request leaves out the call and its result"
    )


def test_HOOK_7_a_hook_killed_on_a_call_reusing_an_id_is_listed_on_that_call() -> None:
    """A hook the harness killed (no answer) while the second `call_0`'s hooks ran is listed
    on `call_0#2`, the call it ran for, as the answers beside it are."""
    audit = _reused_id_audit()
    killed = audit.pop(3)  # the second call's first PreToolUse hook
    result = _result(audit, {"messages": []})
    result["unfinished"] = [{**killed, "command": "a"}]
    view = session_view(Harness.CLAUDE_CODE, REUSED_ID, TWO_HOOKS, result)
    hook_lines = [line for line in report_lines(view, result) if "PreToolUse:" in line]
    calls = [line.split(": saw")[0].split()[-1] for line in hook_lines[:4]]
    assert calls == ["call_0", "call_0", "call_0#2", "call_0#2"]
    assert "no answer: the harness killed it" in hook_lines[2]


def test_DEC_1_a_deny_of_a_call_is_not_read_on_a_later_call_reusing_its_id() -> None:
    """DEC-1: a hook denied the first `call_0` (it never ran) and the second `call_0` ran; read
    by id, the deny and the run were one call, `ran although ... denied it`. Codex carries both
    calls and results in the next request and its rollout: no divergence."""
    items: list[dict[str, Any]] = []
    for command, output in (("echo one", "denied"), ("echo two", "two")):
        arguments = json.dumps({"cmd": command})
        items.append({"type": "function_call", "call_id": "call_0", "arguments": arguments})
        items.append({"type": "function_call_output", "call_id": "call_0", "output": output})
    body = {"input": items}
    result = _result(_reused_id_audit(first_denied=True), body)
    result["requests"][0]["path"] = "/v1/responses"
    result["logs"] = [
        {
            "path": ".codex/sessions/rollout-x.jsonl",
            "text": _rollout(*(("response_item", item) for item in items)),
        }
    ]
    view = session_view(Harness.CODEX, REUSED_ID, TWO_HOOKS, result)
    assert [(d.rule_id, d.call_id) for d in view.divergences] == []
    assert view.ran == {"call_0#2": {"command": "echo two"}}
    assert view.history.results == [("call_0", "denied"), ("call_0#2", "two")]


def test_RW_2_the_verdict_counts_what_check_finds_in_the_log_and_the_report_does_not() -> None:
    """RW-2: a rewrite ran (the observer saw `echo b`) while the history and the rollout's call
    keep `echo a`; the report's comparisons find RW-1 twice, and `check` finds RW-1 and RW-2 in
    the rollout, which names no hook for the input that ran. The check line for RW-2 counts in
    the verdict (a divergence of its own, at its log line); the RW-1 check line is the finding
    the comparisons already made."""
    body = {"input": [PRINT_CALL, PRINT_OUTPUT]}
    result = _result(_observed("echo b"), body)
    result["requests"][0]["path"] = "/v1/responses"
    executed = {"type": "CommandExecution", "id": "c1", "command": ["/bin/bash", "-lc", "echo b"]}
    ran = {"type": "item_completed", "item": executed}
    rollout = _rollout(
        ("response_item", PRINT_CALL), ("event_msg", ran), ("response_item", PRINT_OUTPUT)
    )
    result["logs"] = [{"path": ".codex/sessions/rollout-x.jsonl", "text": rollout}]
    view = session_view(Harness.CODEX, ONE_CALL, None, result)
    assert [(d.rule_id, d.call_id) for d in view.divergences] == [
        ("RW-1", "c1"),
        ("RW-1", "c1"),
        ("RW-2", "log line 2"),
    ]
    assert view.log_report is not None
    assert [f.violation.rule_id for f in view.log_report.violations] == ["RW-1", "RW-2"]
    lines = report_lines(view, result)
    assert "== divergences from the model: 3 ==" in "\n".join(lines)
    assert lines[-1].startswith("  [RW-2] log line 2: call c1 ran another input")


def test_HOOK_5_a_patch_codex_runs_itself_is_named_where_no_post_tool_use_hook_ran() -> None:
    """HOOK-5: Codex 0.171.0 runs an `apply_patch` heredoc sent through its shell tool as a
    patch itself (a `FileChange` item in the rollout, no command run) and runs no PostToolUse
    hook for it (observed offline, 2026-12-06), so the observer saw nothing and the report said
    the call never ran. It names the patch's line and HOOK-5; a deny the patch ran despite is
    DEC-1's."""
    patch = "apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: a.txt\n+a\n*** End Patch\nEOF"
    call = {**PRINT_CALL, "arguments": json.dumps({"cmd": patch})}
    result = _result([], {"input": [call, PRINT_OUTPUT]})
    result["requests"][0]["path"] = "/v1/responses"
    change = {"type": "FileChange", "id": "c1", "changes": {}, "status": "completed"}
    rollout = _rollout(
        ("response_item", call),
        ("event_msg", {"type": "item_completed", "item": change}),
        ("response_item", PRINT_OUTPUT),
    )
    result["logs"] = [{"path": ".codex/sessions/rollout-x.jsonl", "text": rollout}]
    script = HarnessScript(
        "patch", (ScriptedReply((ScriptedCall("c1", {"command": patch}),)), ScriptedReply(()))
    )
    view = session_view(Harness.CODEX, script, None, result)
    assert [(d.rule_id, d.call_id) for d in view.divergences] == [("HOOK-5", "c1")]
    assert (
        "(the FileChange at log line 2) and ran no PostToolUse hook" in view.divergences[0].message
    )
    lines = report_lines(view, result)
    assert (
        "    ran         : (a patch Codex ran itself: the FileChange at log line 2; no PostToolUse)"
        in lines
    )
    assert lines[-1].endswith("judge its result (NOT a known divergence)")
    deny = _deny_answer()
    result["audit"] = [_audit("codex:PreToolUse:1", "PreToolUse", {"command": patch}, deny, 1.0)]
    view = session_view(Harness.CODEX, script, None, result)
    assert [d.rule_id for d in view.divergences] == ["DEC-1", "HOOK-5"]


def _deny_answer() -> dict[str, Any]:
    return {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": "no",
        }
    }


def test_LOG_8_a_log_check_cannot_read_to_its_end_is_said_so_in_the_report() -> None:
    """LOG-8: a CLI killed mid-write leaves a torn last line, which it skips on resuming; the
    report prints check's notice for it (and the others: a call still awaiting its result). It
    printed 'check: no violation it can show' as if every line had been judged."""
    body = {"input": [PRINT_CALL, PRINT_OUTPUT]}
    result = _result(_observed("echo a"), body)
    result["requests"][0]["path"] = "/v1/responses"
    rollout = _rollout(("response_item", PRINT_CALL)) + '{"timestamp": "t", "type": "resp'
    result["logs"] = [{"path": ".codex/sessions/rollout-x.jsonl", "text": rollout}]
    lines = report_lines(session_view(Harness.CODEX, ONE_CALL, None, result), result)
    assert any(
        x.startswith("  check line 2: notice torn-commit: line 2 stops short")
        and x.endswith(
            "which Codex skips when it reads the log to resume the session; check skips it too"
        )
        for x in lines
    )


def test_crash_and_abort_keys_are_checked(tmp_path: Path) -> None:
    """`crashAfterSeconds` / `abortAfterSeconds` must be positive numbers, not both on a turn;
    `cutAfterFile` a plain file name. The shipped crash scenario reads as a crash on turn 1,
    counted from the file its command creates."""
    script = load_harness_script(SCENARIOS / "crash-resume.json", Harness.CLAUDE_CODE)
    assert (script.crash_after_turn(0), script.cut_start_file(0)) == (2.0, "running.flag")
    assert (script.crash_after_turn(1), script.abort_after_turn(0)) == (None, None)
    document = json.loads((SCENARIOS / "crash-resume.json").read_text())
    first = document["turns"][0]
    for change, words in (
        ({"crashAfterSeconds": -1}, "positive number"),
        ({"crashAfterSeconds": True}, "positive number"),
        ({"abortAfterSeconds": 1}, "not both"),
        ({"cutAfterFile": "../escape"}, "plain file name"),
    ):
        turns = [{**first, **change}, *document["turns"][1:]]
        path = tmp_path / "bad.json"
        path.write_text(json.dumps({**document, "turns": turns}))
        with pytest.raises(ScenarioError) as error:
            load_harness_script(path, Harness.CLAUDE_CODE)
        assert words in str(error.value)


def test_a_missing_cli_says_how_to_install_it_or_that_this_copy_cannot(tmp_path: Path) -> None:
    """`--harness` without the pinned CLI: in a checkout, `npm ci` in the adapter folder; in an
    installed copy (a wheel ships no adapter folders), that it needs a checkout — never a
    command to run in a folder that does not exist."""
    checkout = tmp_path / "checkout"
    checkout.mkdir()
    (checkout / "package-lock.json").write_text("{}", encoding="utf-8")
    with pytest.raises(HarnessError) as in_checkout:
        binary_of(Harness.CODEX, checkout)
    assert f"run `npm ci` in {checkout}" in str(in_checkout.value)
    installed = tmp_path / "site-packages" / "loopspec" / "examples" / "codex-adapter"
    with pytest.raises(HarnessError) as in_wheel:
        binary_of(Harness.CODEX, installed)
    assert "pinned in a loopspec checkout's examples/codex-adapter (`npm ci` there" in str(
        in_wheel.value
    )
    assert f"this copy of loopspec has no {installed}" in str(in_wheel.value)
    assert f"run `npm ci` in {installed}" not in str(in_wheel.value)


def _wrap(audit_dir: Path, command: str) -> subprocess.Popen[bytes]:
    stdin = {"hook_event_name": "PreToolUse", "tool_use_id": "c1", "tool_input": {"command": "x"}}
    wrapper = subprocess.Popen(
        [
            sys.executable,
            hook_audit.__file__,
            str(audit_dir),
            "claude-code:PreToolUse:1",
            "--",
            command,
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        start_new_session=True,
    )
    assert wrapper.stdin is not None
    wrapper.stdin.write(json.dumps(stdin).encode())
    wrapper.stdin.close()
    return wrapper


def test_HOOK_7_a_hook_the_harness_killed_is_reported_as_never_answering(tmp_path: Path) -> None:
    """A hook Claude Code kills at its timeout left no audit record, so the report's hook
    section was empty, as if no hook had run. The wrapper now leaves an unfinished record
    until the hook exits; one that answers leaves only its answer."""
    answered = tmp_path / "answered"
    answered.mkdir()
    assert _wrap(answered, "true").wait(timeout=30) == 0
    assert [p.suffix for p in answered.iterdir()] == [".json"]
    killed = tmp_path / "killed"
    killed.mkdir()
    wrapper = _wrap(killed, "sleep 30")
    deadline = time.monotonic() + 30
    while not list(killed.glob("*" + hook_audit.UNFINISHED)) and time.monotonic() < deadline:
        time.sleep(0.05)
    os.killpg(wrapper.pid, signal.SIGKILL)  # as the harness kills a hook past its timeout
    wrapper.wait(timeout=30)
    (marker,) = killed.iterdir()
    result = _result([], {"messages": []})
    result["unfinished"] = [json.loads(marker.read_text(encoding="utf-8"))]
    view = session_view(Harness.CLAUDE_CODE, ONE_CALL, None, result)
    lines = report_lines(view, result)
    hook_lines = [line for line in lines if line.startswith("  claude-code:PreToolUse:1")]
    assert len(hook_lines) == 1
    assert 'call c1: saw {"command": "x"}; no answer: the harness killed it' in hook_lines[0]
    assert "(HOOK-7 timeout)" in hook_lines[0]
    [note] = [line for line in lines if line.startswith("  HOOK-7: ")]
    assert note.startswith(
        "  HOOK-7: hook claude-code:PreToolUse:1 failed in its only run: its own output or "
        "process went wrong (call c1, timeout: the harness killed it before it exited"
    )


def test_HOOK_7_a_record_torn_by_a_kill_reads_as_a_hook_that_never_answered(
    tmp_path: Path,
) -> None:
    """A kill landing while the wrapper wrote its answer's record left half a JSON document,
    and reading the audit ended the session in a JSONDecodeError traceback. The wrapper passes
    the answer on only after the record, so the CLI never got it: its marker stands, and a
    marker torn in its turn is a run whose command never started."""
    stdin = {"hook_event_name": "PreToolUse", "tool_use_id": "c1", "tool_input": {"command": "x"}}
    seen = {"hook": "claude-code:PreToolUse:1", "command": "x", "stdin": json.dumps(stdin)}
    (tmp_path / f"1.000000-7{hook_audit.UNFINISHED}").write_text(
        json.dumps({**seen, "started": 1.0}), encoding="utf-8"
    )
    whole = json.dumps({**seen, "started": 1.0, "stdout": "", "exitCode": 0, "finished": 2.0})
    (tmp_path / "2.000000-7.json").write_text(whole[: len(whole) // 2], encoding="utf-8")
    torn_marker = json.dumps({**seen, "started": 3.0})
    (tmp_path / f"3.000000-8{hook_audit.UNFINISHED}").write_text(torn_marker[:20], "utf-8")
    records, unfinished = read_audit(tmp_path)
    assert records == []
    assert unfinished == [{**seen, "started": 1.0}]
    result = _result([], {"messages": []})
    result["unfinished"] = unfinished
    view = session_view(Harness.CLAUDE_CODE, ONE_CALL, None, result)
    hook_lines = [line for line in report_lines(view, result) if ": saw " in line]
    assert len(hook_lines) == 1
    assert "no answer: the harness killed it" in hook_lines[0]


def test_HOOK_7_a_killed_hook_is_listed_by_its_start_among_the_answers() -> None:
    """The hook section is ordered by start; a hook the harness killed was listed first even
    when it started after every hook that answered (the second call's, say)."""
    original = {"command": "rm -rf build"}
    result = _ran_original(
        original, _audit("claude-code:PreToolUse:1", "PreToolUse", original, None, 1.0)
    )
    stdin = {"hook_event_name": "PreToolUse", "tool_use_id": "c2", "tool_input": original}
    late = {
        "hook": "claude-code:PreToolUse:1",
        "command": "x",
        "stdin": json.dumps(stdin),
        "started": 5.0,
    }
    result["unfinished"] = [late]
    view = session_view(Harness.CLAUDE_CODE, ONE_CALL, None, result)
    hook_lines = [line for line in report_lines(view, result) if ": saw " in line]
    assert [line.split(": saw", 1)[0].split()[-1] for line in hook_lines] == ["c1", "c2"]
    assert hook_lines[1].endswith("[+5.00s..]")


def test_HOOK_7_report_notes_an_answer_the_dialect_reads_but_drops() -> None:
    """Text printed before the JSON: Claude Code reads none of it, and the report said only
    'no decision'. A PostToolUse answer with a word no PostToolUse reader knows is shown, not
    refused as a bad audit word."""
    original = {"command": "rm -rf build"}
    answer = json.dumps(_rewrite("rm -rf build --dry-run"))
    odd = {"hookSpecificOutput": {"hookEventName": "PostToolUse", "permissionDecision": "xyz"}}
    result = _ran_original(
        original,
        _audit(
            "claude-code:PreToolUse:1", "PreToolUse", original, None, 1.0, stdout=f"ok\n{answer}"
        ),
        _audit("claude-code:PostToolUse:1", "PostToolUse", original, odd, 2.0),
    )
    view = session_view(Harness.CLAUDE_CODE, ONE_CALL, None, result)
    lines = [line for line in report_lines(view, result) if "call c1: saw" in line]
    noted = "; no decision (note: stdout does not start with '{', so none of it is an answer: "
    assert noted + "the JSON object on line 2 was ignored" in lines[0]
    assert "claude-code:PostToolUse:1" in lines[1]


@pytest.mark.parametrize("harness", [Harness.CLAUDE_CODE, Harness.CODEX])
def test_DEC_3_ADJ_4_report_says_a_post_tool_use_hook_blocked_or_gave_a_context(
    harness: Harness,
) -> None:
    """DEC-3, ADJ-4: a PostToolUse hook that blocks or gives a context was listed as 'no
    decision' (its answer has no permissionDecision, the word read for a PreToolUse hook),
    while the next request held its block's reason or its context (seen on both CLIs). Each
    now has the word the model's audit records (a context's is `allow`), as `run` prints it."""
    original = {"command": "rm -rf build"}
    context = {"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "c"}}
    block = {"decision": "block", "reason": "no"}
    result = _ran_original(
        original,
        _audit(f"{harness.value}:PostToolUse:1", "PostToolUse", original, context, 1.0),
        _audit(f"{harness.value}:PostToolUse:2", "PostToolUse", original, block, 1.5),
        _audit(f"{harness.value}:PostToolUse:3", "PostToolUse", original, None, 2.0),
    )
    view = session_view(harness, ONE_CALL, None, result)
    lines = [line for line in report_lines(view, result) if "call c1: saw" in line]
    said = [line.split("; ", 1)[1].split(" [+")[0] for line in lines]
    assert said == ["allow", "block", "no decision"]


@pytest.mark.needs(Need.CLAUDE_CODE)
def test_PROTO_1_a_harness_conform_session_starts_where_tmpdir_is_long(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """PROTO-1: a conform session of a real harness binds its control socket, which the hook
    and tool programs it writes connect to, where TMPDIR is long (a CI's build folder). A Unix
    socket's path holds 107 bytes: the bind failed ("AF_UNIX path too long") and every harness
    conform run with it; the socket now lies in a folder of its own in /tmp, removed with the
    session."""
    long_tmp = tmp_path / ("t" * 60)
    long_tmp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(long_tmp))
    session = Session(Harness.CLAUDE_CODE, LoopConfig())
    socket_path = session.control.path
    try:
        assert session.root.is_relative_to(long_tmp)
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
            client.connect(str(socket_path))
        hook = (session.bin / HOOK_PROGRAM).read_text(encoding="utf-8")
        assert shlex.quote(str(socket_path)) in hook
    finally:
        session.close()
    assert not socket_path.parent.exists()


def test_HOOK_7_report_notes_each_hook_fault_once_not_again_under_the_log() -> None:
    """HOOK-7: a faulty hook is noted after the hook audit; the log section says that check
    read the faults from the log too, at which lines, without repeating the notes."""
    original = {"command": "ls"}
    result = _ran_original(
        original,
        _audit("claude-code:PreToolUse:1", "PreToolUse", original, None, 1.0, stdout="{oops"),
    )
    transcript = ROOT / "tests/fixtures/logs/claude-code/valid"
    transcript /= "hook-faults-a-crash-broken-json-a-timeout.jsonl"
    result["logs"] = [{"path": str(transcript), "text": transcript.read_text()}]
    lines = report_lines(session_view(Harness.CLAUDE_CODE, ONE_CALL, None, result), result)
    went_wrong = [line for line in lines if "its own output or process went wrong" in line]
    assert [line.split(" failed ")[0] for line in went_wrong] == [
        "  HOOK-7: hook claude-code:PreToolUse:1"
    ]
    assert "  check: notice hook-fault at line(s) 6, 8, 15: " in "\n".join(lines)
