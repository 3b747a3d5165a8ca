"""`loopspec check` on a recorded ACP stream (`logcheck.acp_stream`): ACP-1, RW-1, ADJ-2, ADJ-3.

The fixture under tests/fixtures/acp/ is written by hand in the shape Zed's Claude Code bridge
(0.16.2) was seen to send, with none of its text; the other recordings are built here from it.
"""

from __future__ import annotations

import contextlib
import copy
import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from loopspec.properties.cli.main import main
from loopspec.properties.logcheck.checker import LogReport
from loopspec.properties.logcheck.report import summary_text
from loopspec.properties.validators import acp_strict

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "acp" / "rewritten-call-approved.jsonl"
SESSION = "sess-1"


def _fixture() -> list[dict[str, Any]]:
    return [json.loads(line) for line in FIXTURE.read_text(encoding="utf-8").splitlines()]


def _update(update: dict[str, Any]) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "method": "session/update",
        "params": {"sessionId": SESSION, "update": update},
    }


def _card(call: str, raw_input: dict[str, Any], status: str = "pending") -> dict[str, Any]:
    return _update(
        {
            "toolCallId": call,
            "sessionUpdate": "tool_call",
            "rawInput": raw_input,
            "status": status,
            "title": "`" + str(raw_input.get("command", "")) + "`",
            "kind": "execute",
        }
    )


def _status(call: str, status: str) -> dict[str, Any]:
    return _update({"toolCallId": call, "sessionUpdate": "tool_call_update", "status": status})


def _prompt(request: int) -> dict[str, Any]:
    params = {"sessionId": SESSION, "prompt": [{"type": "text", "text": "go"}]}
    return {"jsonrpc": "2.0", "id": request, "method": "session/prompt", "params": params}


def _stop(request: int, reason: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request, "result": {"stopReason": reason}}


def _asking(tool_call: dict[str, Any]) -> dict[str, Any]:
    """A permission request (id 0) for `tool_call`, with one option, which allows."""
    params = {
        "sessionId": SESSION,
        "options": [{"kind": "allow_once", "name": "Allow", "optionId": "allow"}],
        "toolCall": tool_call,
    }
    return {"jsonrpc": "2.0", "id": 0, "method": "session/request_permission", "params": params}


def _check(
    tmp_path: Path, messages: list[dict[str, Any]], capsys: pytest.CaptureFixture[str]
) -> tuple[int, dict[str, Any]]:
    path = tmp_path / "recording.jsonl"
    path.write_text("".join(json.dumps(m) + "\n" for m in messages), encoding="utf-8")
    code = main(["check", "--format", "json", str(path)])
    (log,) = json.loads(capsys.readouterr().out)["logs"]
    return code, log


def _rules(log: dict[str, Any]) -> list[tuple[str, int]]:
    return [(v["rule"], v["line"]) for v in log["violations"]]


def test_RW_1_check_acp_recording_blames_a_card_showing_another_input_than_approved(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The bridge's card keeps the model's input while the permission request approves the
    hook's rewrite: RW-1 at the line that ends the call, naming the card and the request."""
    assert main(["check", str(FIXTURE)]) == 1
    out = capsys.readouterr().out
    assert f"{FIXTURE}:11: RW-1: call_1 ended showing the input" in out
    assert '{"command": "touch rewritten.txt"}' in out
    assert "[lines 11, 7, 8]" in out
    assert f"{FIXTURE}: ACP recording; not checkable from such a recording" in out


def test_RW_1_check_acp_recording_passes_a_card_updated_to_the_approved_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A bridge that updates the card to the input it approves keeps RW-1; a rejected request
    approves nothing, so a card showing another input then is not blamed either."""
    messages = _fixture()
    fixed = copy.deepcopy(messages)
    update = _update(
        {
            "toolCallId": "call_1",
            "sessionUpdate": "tool_call_update",
            "rawInput": {"command": "touch rewritten.txt"},
            "title": "`touch rewritten.txt`",
        }
    )
    fixed.insert(9, update)
    code, log = _check(tmp_path, fixed, capsys)
    assert (code, log["violations"], log["dialect"]) == (0, [], "acp")
    rejected = copy.deepcopy(messages)
    rejected[8]["result"]["outcome"]["optionId"] = "reject"
    rejected[10]["params"]["update"]["status"] = "failed"
    code, log = _check(tmp_path, rejected, capsys)
    assert (code, log["violations"]) == (0, [])


@pytest.mark.parametrize(
    ("shown", "blamed"), [(True, [("RW-1", 11)]), (1.0, []), (1, [])], ids=["true", "1.0", "1"]
)
def test_RW_1_check_acp_recording_compares_a_card_s_input_as_section_2_compares_values(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], shown: object, blamed: list[Any]
) -> None:
    """The card ends showing `"timeout": true` where its permission request approved
    `"timeout": 1`: another input (SPEC.md section 2: true is not 1), which passed, compared
    with Python's ==. `1.0` is the number 1, as check holds a log's readers to it (the
    presenter draws another card for it, VIEW-3's, section 12)."""
    messages = _fixture()
    messages[6]["params"]["update"]["rawInput"] = {"command": "ls", "timeout": shown}
    messages[7]["params"]["toolCall"]["rawInput"] = {"command": "ls", "timeout": 1}
    code, log = _check(tmp_path, messages, capsys)
    assert (code, _rules(log)) == (1 if blamed else 0, blamed)


def test_ACP_1_check_acp_recording_validates_tool_call_messages_strictly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A card whose kind ACP does not have, which the SDK's parser silently drops, and a
    permission request with an explicit null, are ACP-1 at their lines. Another update is held
    to the schema alone: a plan entry whose status ACP does not have (an editor drops the plan)
    is ACP-1, a command list with Zed's `"input": null`, which the schema allows and the SDK's
    round trip leaves out, is not, nor is an update of a kind a newer ACP may have."""
    card = _card("call_1", {"command": "ls"})
    card["params"]["update"]["kind"] = "shell"
    request = _asking({"toolCallId": "call_2", "rawInput": {"command": "ls"}, "title": None})
    command = {"name": "init", "description": "Set up", "input": None}
    commands = _update(
        {"sessionUpdate": "available_commands_update", "availableCommands": [command]}
    )
    entry = {"content": "Run the tests", "priority": "medium", "status": "done"}
    plan = _update({"sessionUpdate": "plan", "entries": [entry]})
    newer = _update({"sessionUpdate": "weather_update", "sunny": True})
    messages = [_prompt(1), card, request, commands, plan, newer]
    code, log = _check(tmp_path, messages, capsys)
    assert code == 1
    assert _rules(log) == [("ACP-1", 2), ("ACP-1", 3), ("ACP-1", 5)]
    assert "$.update.kind" in log["violations"][0]["message"]
    assert "title is null" in log["violations"][1]["message"]
    assert (
        'the plan update is not valid ACP: schema: at $.update.entries[0].status: "done"'
        in (log["violations"][2]["message"])
    )
    assert "ACP-1" in log["rules_checked"]


def test_ADJ_2_check_acp_recording_blames_an_update_for_a_call_never_shown(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    messages = [_prompt(1), _card("call_1", {"command": "ls"}), _status("call_9", "completed")]
    code, log = _check(tmp_path, messages, capsys)
    assert (code, _rules(log)) == (1, [("ADJ-2", 3)])
    assert "call_9" in log["violations"][0]["message"]


def test_ADJ_3_check_acp_recording_blames_a_turn_that_ends_with_a_card_unfinished(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A turn that ends `end_turn` with a card still pending breaks ADJ-3; the same turn ended
    by a cancel does not (ACP has the editor mark the unfinished cards cancelled), nor does one
    whose cards all got a final status."""
    shown = [_prompt(1), _card("call_1", {"command": "sleep 9"})]
    code, log = _check(tmp_path, [*shown, _stop(1, "end_turn")], capsys)
    assert (code, _rules(log)) == (1, [("ADJ-3", 3)])
    assert log["violations"][0]["event_lines"] == [3, 2]
    assert main(["check", "--format", "json", str(_written(tmp_path, shown))]) == 0
    capsys.readouterr()
    code, log = _check(tmp_path, [*shown, _cancel(), _stop(1, "cancelled")], capsys)
    assert (code, log["violations"]) == (0, [])
    finished = [*shown, _status("call_1", "failed"), _stop(1, "end_turn")]
    code, log = _check(tmp_path, finished, capsys)
    assert (code, log["violations"]) == (0, [])


def _written(tmp_path: Path, messages: list[dict[str, Any]]) -> Path:
    path = tmp_path / "cut.jsonl"
    path.write_text("".join(json.dumps(m) + "\n" for m in messages), encoding="utf-8")
    return path


def test_ACP_1_check_acp_recording_refuses_a_line_that_is_no_json_rpc_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Bad input is an input error naming the line, exit 2, never a traceback."""
    code, log = _check(tmp_path, [_prompt(1), {"method": "session/update"}], capsys)
    assert code == 2
    (error,) = log["errors"]
    assert (error["line"], error["kind"], error["rule"]) == (2, "bad-event", "ACP-1")
    assert "JSON-RPC 2.0" in error["message"]
    path = tmp_path / "torn.jsonl"
    path.write_text(json.dumps(_prompt(1)) + "\n[1, 2\n{}\n", encoding="utf-8")
    assert main(["check", str(path)]) == 2
    out = capsys.readouterr().out
    assert f"{path}:2: error invalid-json ACP-1: invalid JSON at column 6: Expecting" in out


def test_RW_1_the_acp_recording_docs_check_md_writes_by_hand_says_what_it_says(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """docs/check.md's hand-written recording is read as one and reported as the page says:
    RW-1 at line 8, naming the card at line 4 and the permission request at line 5; with the
    page's fix (the card updated to the hook's input) after line 4, nothing."""
    page = (Path(__file__).resolve().parent.parent / "docs" / "check.md").read_text("utf-8")
    section = page.split("## ACP recordings: what an editor was sent", 1)[1].split("\n## ", 1)[0]
    block, fix = re.findall(r"```json\n(.*?)```", section, re.DOTALL)
    messages = [json.loads(line) for line in block.splitlines()]
    code, log = _check(tmp_path, messages, capsys)
    assert (code, log["dialect"], _rules(log)) == (1, "acp", [("RW-1", 8)])
    assert log["violations"][0]["event_lines"] == [8, 4, 5]
    code, log = _check(tmp_path, [*messages[:4], json.loads(fix), *messages[4:]], capsys)
    assert (code, log["violations"]) == (0, [])


def test_ACP_1_check_acp_recording_reports_values_nested_too_deeply_without_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A card whose rawInput nests 300 lists deep, which the ACP SDK cannot write back (its
    serializer stops past 255), is ACP-1; a request id that is a list is read, not a crash; a
    line nested past what check reads (512 levels) is an input error (SAFE-4), exit 2."""
    deep = "[" * 300 + "]" * 300
    card = (
        '{"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": "s1", "update":'
        ' {"sessionUpdate": "tool_call", "toolCallId": "call_1", "title": "t", "rawInput": '
        + deep
        + "}}}"
    )
    lines = [
        json.dumps(_prompt(1)),
        card,
        json.dumps({"jsonrpc": "2.0", "id": [1], "result": {"stopReason": "end_turn"}}),
        # 513 levels: read on Python 3.11 and after, and refused alike by each
        '{"jsonrpc": "2.0", "id": 1, "result": ' + "[" * 512 + "]" * 512 + "}",
    ]
    path = tmp_path / "deep.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert main(["check", "--format", "json", str(path)]) == 2
    (log,) = json.loads(capsys.readouterr().out)["logs"]
    assert _rules(log) == [("ACP-1", 2)]
    assert "could not write the payload back" in log["violations"][0]["message"]
    assert [(e["line"], e["rule"]) for e in log["errors"]] == [(4, "SAFE-4")]


def _terminal_run(command: str, args: list[str] | None = None) -> list[dict[str, Any]]:
    """A card for `touch original.txt` that embeds a terminal created for `command`, as Zed's
    bridge runs mcp__acp__Bash for an editor with terminals: no permission request (a hook
    allowed the call)."""
    create: dict[str, Any] = {"sessionId": SESSION, "command": command}
    if args is not None:
        create["args"] = args
    embed = {
        "toolCallId": "call_1",
        "sessionUpdate": "tool_call_update",
        "status": "in_progress",
        "content": [{"type": "terminal", "terminalId": "term_1"}],
    }
    return [
        _prompt(1),
        _card("call_1", {"command": "touch original.txt", "timeout": 60000}),
        {"jsonrpc": "2.0", "id": 0, "method": "terminal/create", "params": create},
        {"jsonrpc": "2.0", "id": 0, "result": {"terminalId": "term_1"}},
        _update(embed),
        _status("call_1", "completed"),
        _stop(1, "end_turn"),
    ]


def test_RW_1_check_acp_recording_blames_a_card_whose_terminal_ran_another_command(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A hook's rewrite allowed without asking shows only in the terminal the card embeds:
    RW-1 where the call ends, naming the card, the terminal/create and the embedding update.
    The same command run, or one given as a program and its args (which a card's command
    string cannot be held to), is not blamed; a command line run by a shell, `bash -lc LINE`
    (as Codex runs its commands), is LINE, and held to the card's."""
    code, log = _check(tmp_path, _terminal_run("touch rewritten.txt"), capsys)
    assert (code, _rules(log)) == (1, [("RW-1", 6)])
    assert log["violations"][0]["event_lines"] == [6, 2, 3, 5]
    assert '"touch rewritten.txt"' in log["violations"][0]["message"]
    code, log = _check(tmp_path, _terminal_run("touch original.txt"), capsys)
    assert (code, log["violations"]) == (0, [])
    code, log = _check(tmp_path, _terminal_run("touch", ["rewritten.txt"]), capsys)
    assert (code, log["violations"]) == (0, [])
    code, log = _check(tmp_path, _terminal_run("/bin/bash", ["-lc", "touch rewritten.txt"]), capsys)
    assert (code, _rules(log)) == (1, [("RW-1", 6)])
    code, log = _check(tmp_path, _terminal_run("sh", ["-c", "touch original.txt"]), capsys)
    assert (code, log["violations"]) == (0, [])


def test_RW_1_check_acp_recording_judges_every_terminal_a_card_embedded(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A card showing a hook's rewrite embeds a terminal made for the model's input, then one
    for the rewrite's (in a later update, or both in one): RW-1 names the first, which ran
    another command than the card's. It passed, 0 violations: only the last terminal was
    compared. Two terminals of the card's command pass."""
    messages = _terminal_run("touch original.txt")
    messages[1] = _card("call_1", {"command": "touch rewritten.txt"})
    create = {"sessionId": SESSION, "command": "touch rewritten.txt"}
    second = [
        {"jsonrpc": "2.0", "id": 2, "method": "terminal/create", "params": create},
        {"jsonrpc": "2.0", "id": 2, "result": {"terminalId": "term_2"}},
        _update({**messages[4]["params"]["update"], "content": [
            {"type": "terminal", "terminalId": "term_2"}]}),
    ]  # fmt: skip
    code, log = _check(tmp_path, [*messages[:5], *second, *messages[5:]], capsys)
    assert (code, _rules(log)) == (1, [("RW-1", 9)])
    assert log["violations"][0]["message"] == (
        'call_1 ended showing the command "touch rewritten.txt" on its card, but the terminal '
        '"term_1" it showed at line 5 ran "touch original.txt": the editor showed one command '
        "while another ran"
    )
    assert log["violations"][0]["event_lines"] == [9, 2, 3, 5]
    both = {"type": "terminal", "terminalId": "term_1"}
    second[2]["params"]["update"]["content"].insert(0, both)
    code, log = _check(tmp_path, [*messages[:4], *second, *messages[5:]], capsys)
    assert (code, _rules(log)) == (1, [("RW-1", 8)])
    messages[2]["params"]["command"] = "touch rewritten.txt"
    code, log = _check(tmp_path, [*messages[:5], *second, *messages[5:]], capsys)
    assert (code, log["violations"]) == (0, [])


RECORDER = Path(__file__).resolve().parent.parent / "examples" / "acp-recorder" / "record_acp.py"
# An agent that answers a prompt with one call's card, its end and the turn's end.
FAKE_AGENT = """
import json, sys
for line in sys.stdin:
    message = json.loads(line)
    if message.get("method") != "session/prompt":
        continue
    session = message["params"]["sessionId"]
    for update in (
        {"sessionUpdate": "tool_call", "toolCallId": "call_1", "title": "ls", "kind": "execute"},
        {"sessionUpdate": "tool_call_update", "toolCallId": "call_1", "status": "completed"},
    ):
        note = {"jsonrpc": "2.0", "method": "session/update",
                "params": {"sessionId": session, "update": update}}
        print(json.dumps(note), flush=True)
    print(json.dumps({"jsonrpc": "2.0", "id": message["id"],
                      "result": {"stopReason": "end_turn"}}), flush=True)
"""


def test_ACP_1_the_acp_recorder_records_both_directions_in_order_for_check(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """examples/acp-recorder passes the editor's lines and the agent's unchanged and records
    both, each before it is passed on, in one file `check` reads as an ACP recording."""
    prompt = json.dumps(_prompt(7)) + "\n"
    ran = subprocess.run(
        [sys.executable, str(RECORDER), str(tmp_path / "rec"), sys.executable, "-c", FAKE_AGENT],
        input=prompt.encode(),
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert ran.returncode == 0, ran.stderr
    answered = [json.loads(line) for line in ran.stdout.decode().splitlines()]
    assert [m.get("method", "result") for m in answered] == [
        "session/update",
        "session/update",
        "result",
    ]
    (recording,) = (tmp_path / "rec").glob("acp-*.jsonl")
    lines = recording.read_text(encoding="utf-8").splitlines()
    assert [json.loads(line) for line in lines] == [json.loads(prompt), *answered]
    assert main(["check", "--format", "json", str(recording)]) == 0
    (log,) = json.loads(capsys.readouterr().out)["logs"]
    assert (log["dialect"], log["events"], log["violations"]) == ("acp", 4, [])
    missing = subprocess.run(
        [sys.executable, str(RECORDER), str(tmp_path / "rec"), str(tmp_path / "no-agent")],
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert missing.returncode == 127
    assert b"cannot start" in missing.stderr


def test_ACP_1_the_acp_recorder_ends_with_the_status_of_an_agent_that_ends_first(
    tmp_path: Path,
) -> None:
    """An agent that exits while the editor is still connected: the recorder ends with the
    agent's status. It aborted in Python's shutdown (a fatal error on stdin's lock, exit 134),
    its thread passing the editor's lines still blocked reading them."""
    recorder = subprocess.Popen(
        [sys.executable, str(RECORDER), str(tmp_path / "rec"), sys.executable, "-c", "exit(3)"],
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    assert recorder.stdin is not None
    assert recorder.stderr is not None
    try:
        recorder.wait(timeout=60)  # the editor's end, stdin, stays open meanwhile
    finally:
        recorder.kill()
        recorder.stdin.close()
    assert (recorder.returncode, recorder.stderr.read()) == (3, b"")
    recorder.stderr.close()


def test_ACP_1_check_acp_recording_reads_values_of_any_type_where_acp_has_strings(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An update whose kind is an object, or that names none, and a session/update whose
    params are no object, are ACP-1 at their lines; an answer choosing an option by an object
    allows nothing, so the call's end completed is DEC-2's. Each raised a TypeError
    (unhashable) before, a traceback."""
    untagged = _update({"toolCallId": "call_2", "title": "t"})
    tagged_by_object = _update({"sessionUpdate": {"kind": "tool_call"}, "toolCallId": "call_3"})
    request = _asking({"toolCallId": "call_1", "rawInput": {"command": "rm x"}})
    answer = {
        "jsonrpc": "2.0",
        "id": 0,
        "result": {"outcome": {"outcome": "selected", "optionId": {}}},
    }
    messages = [
        _prompt(1),
        untagged,
        tagged_by_object,
        {"jsonrpc": "2.0", "method": "session/update", "params": []},
        _card("call_1", {"command": "ls"}),
        request,
        answer,
        _status("call_1", "completed"),
        _stop(1, "end_turn"),
    ]
    code, log = _check(tmp_path, messages, capsys)
    assert (code, _rules(log)) == (
        1,
        [("ACP-1", 2), ("ACP-1", 3), ("ACP-1", 4), ("DEC-2", 8)],
    )
    assert "no sessionUpdate" in log["violations"][0]["message"]


def test_ACP_1_the_acp_recorder_passes_the_editors_sigterm_on_to_the_agent(
    tmp_path: Path,
) -> None:
    """An editor ends an agent with SIGTERM: the recorder passes it on and exits as the agent
    did (143), where the agent outlived it (Zed's bridge does not end when its input does)."""
    agent = "import os, sys, time\nprint(os.getpid(), flush=True)\ntime.sleep(60)\n"
    recorder = subprocess.Popen(
        [sys.executable, str(RECORDER), str(tmp_path / "rec"), sys.executable, "-c", agent],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    )
    assert recorder.stdout is not None
    agent_pid = int(recorder.stdout.readline())
    recorder.send_signal(signal.SIGTERM)
    try:
        assert recorder.wait(timeout=30) == 143
        with pytest.raises(ProcessLookupError):
            os.kill(agent_pid, 0)
    finally:  # an agent the recorder left running is ended here, not left to the machine
        with contextlib.suppress(ProcessLookupError):
            os.kill(agent_pid, signal.SIGKILL)


NEW_FILE = "/workspace/new.txt"


def _write_card(content: list[dict[str, Any]], kind: str = "edit") -> dict[str, Any]:
    """The whole Write card of Zed's bridge (its input and a diff of the new file, with
    `"oldText": null` as the bridge writes it)."""
    diff = {"type": "diff", "path": NEW_FILE, "oldText": None, "newText": "hello\n"}
    card = _card("call_1", {"file_path": NEW_FILE, "content": "hello\n"})
    card["params"]["update"].update(
        {"title": f"Write {NEW_FILE}", "kind": kind, "content": [diff, *content]}
    )
    return card


def _write_file(request: int, content: str, path: str = NEW_FILE) -> list[dict[str, Any]]:
    """The bridge's fs/write_text_file request and the editor's answer."""
    params = {"sessionId": SESSION, "path": path, "content": content}
    return [
        {"jsonrpc": "2.0", "id": request, "method": "fs/write_text_file", "params": params},
        {"jsonrpc": "2.0", "id": request, "result": {}},
    ]


def test_RW_1_check_acp_recording_blames_a_card_whose_diff_is_not_what_the_editor_wrote(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A hook's rewrite of a Write allowed without asking shows only in what the editor is asked
    to write: the card's diff keeps the model's text. RW-1 where the call ends, naming the
    diff's and the write's lines; the text written as shown, a last update replacing the diff
    after the write (Zed's Edit shows the hunk it parsed back, for a file with no last newline
    with jsdiff's marker as a line), is not blamed. The model's text shown as the file was
    written is RW-1 though a last update shows the written text: the editor showed the other."""
    shown = [_prompt(1), _write_card([])]
    ended = [_status("call_1", "completed"), _stop(1, "end_turn")]
    code, log = _check(tmp_path, [*shown, *_write_file(0, "rewritten\n"), *ended], capsys)
    assert (code, _rules(log)) == (1, [("RW-1", 5)])
    assert log["violations"][0]["event_lines"] == [5, 2, 3]
    written = '"hello\\n", but the editor was asked to write "rewritten\\n" there'
    assert written in log["violations"][0]["message"]
    code, log = _check(tmp_path, [*shown, *_write_file(0, "hello\n"), *ended], capsys)
    assert (code, log["violations"]) == (0, [])
    replaced = _update(
        {
            "toolCallId": "call_1",
            "sessionUpdate": "tool_call_update",
            "status": "completed",
            "content": [
                {
                    "type": "diff",
                    "path": NEW_FILE,
                    "newText": "rewritten\n No newline at end of file",
                }
            ],
        }
    )
    as_written = _write_card([])
    as_written["params"]["update"]["content"][0]["newText"] = "rewritten"
    after = [*_write_file(0, "rewritten"), replaced, _stop(1, "end_turn")]
    code, log = _check(tmp_path, [_prompt(1), as_written, *after], capsys)
    assert (code, log["violations"]) == (0, [])
    # The model's text shown as the file was written, replaced by the written one after it
    # (the update ending the call): RW-1, where only the last content was read (it passed).
    code, log = _check(tmp_path, [*shown, *after], capsys)
    assert (code, _rules(log)) == (1, [("RW-1", 5)])
    assert log["violations"][0]["message"] == (
        'call_1 showed a diff of "/workspace/new.txt" whose new text is "hello\\n" (line 2) '
        'when the editor was asked to write "rewritten" there (line 3), and only then showed '
        "another: the editor showed one change while another was made"
    )
    assert log["violations"][0]["event_lines"] == [5, 2, 3]


def test_RW_1_check_acp_recording_follows_a_card_through_a_message_that_is_not_valid_acp(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Zed's bridge shows a Write first with an empty rawInput, then whole; here the whole
    card's kind is none of ACP's (ACP-1: the SDK drops it). The card is followed on as the SDK
    reads that message: the approved input is the card's, so only ACP-1, where it was also
    RW-1 against the stale empty rawInput; and the rewritten text the editor is asked to write
    is still RW-1 against the diff that message showed."""
    starting = _card("call_1", {})
    whole = _write_card([], kind="write")
    request = _asking(
        {"toolCallId": "call_1", "rawInput": {"file_path": NEW_FILE, "content": "hello\n"}}
    )
    answer = {
        "jsonrpc": "2.0",
        "id": 0,
        "result": {"outcome": {"outcome": "selected", "optionId": "allow"}},
    }
    shown = [_prompt(1), starting, whole, request, answer]
    ended = [_status("call_1", "completed"), _stop(1, "end_turn")]
    code, log = _check(tmp_path, [*shown, *_write_file(1, "hello\n"), *ended], capsys)
    assert (code, _rules(log)) == (1, [("ACP-1", 3)])
    assert "$.update.kind" in log["violations"][0]["message"]
    code, log = _check(tmp_path, [*shown, *_write_file(1, "rewritten\n"), *ended], capsys)
    assert (code, _rules(log)) == (1, [("ACP-1", 3), ("RW-1", 8)])
    assert log["violations"][1]["event_lines"] == [8, 3, 6]


def test_ACP_1_check_acp_recording_reads_a_recording_whose_last_line_was_cut_as_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An editor killed as its recorder wrote leaves a last line cut mid-JSON, no newline: a
    notice naming the line, the lines before it checked (their violations kept), no input
    error and no ACP-1 (the agent sent that line whole). The same cut line followed by more is
    still an input error."""
    whole = [_prompt(1), _card("call_1", {"command": "ls"}), _status("call_9", "completed")]
    text = "".join(json.dumps(m) + "\n" for m in whole) + json.dumps(_stop(1, "end_turn"))[:25]
    path = tmp_path / "killed.jsonl"
    path.write_text(text, encoding="utf-8")
    assert main(["check", str(path)]) == 1
    out = capsys.readouterr().out
    assert f"{path}:3: ADJ-2:" in out
    assert f"{path}:4: notice torn-commit: line 4 stops short (25 bytes, no newline): " in out
    assert "error" not in out
    path.write_text(text + "\n" + json.dumps(_stop(1, "end_turn")) + "\n", encoding="utf-8")
    assert main(["check", str(path)]) == 2
    assert f"{path}:4: error invalid-json ACP-1: invalid JSON" in capsys.readouterr().out


def _answer(request: int, option: str) -> dict[str, Any]:
    """The editor's answer to the permission request `request`: the option `option` chosen."""
    outcome = {"outcome": "selected", "optionId": option}
    return {"jsonrpc": "2.0", "id": request, "result": {"outcome": outcome}}


def test_RW_1_check_acp_recording_finds_whose_write_it_was_when_the_other_card_asked_after(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Two Write cards of one file in one reply, the first allowed without asking: its write
    comes while both show a diff of the file. The second is first asked permission after the
    write, so it had not run: the write is the first's, whose diff keeps the model's text (a
    hook's rewrite) - RW-1 at that request, naming the first card's end, its diff and the
    write. A second card whose request is unanswered at the write is ruled out at once (RW-1
    at the first's end); the text written as shown is not blamed."""
    second = _write_card([])
    second["params"]["update"]["toolCallId"] = "call_2"
    second["params"]["update"]["content"][0]["newText"] = "second\n"
    second["params"]["update"]["rawInput"]["content"] = "second\n"
    shown = [_prompt(1), _write_card([]), second]
    asked = _asking({"toolCallId": "call_2", "rawInput": second["params"]["update"]["rawInput"]})
    asked["id"] = 7
    first_ended = _status("call_1", "completed")
    later = [asked, _answer(7, "allow"), _status("call_2", "completed"), _stop(1, "end_turn")]
    messages = [*shown, *_write_file(0, "rewritten\n"), first_ended, *later]
    code, log = _check(tmp_path, messages, capsys)
    assert (code, _rules(log)) == (1, [("RW-1", 7)])
    assert log["violations"][0]["event_lines"] == [7, 6, 2, 4]
    assert "call_1 ended showing a diff" in log["violations"][0]["message"]
    waiting = [*shown, asked, *_write_file(0, "rewritten\n"), first_ended, *later[1:]]
    code, log = _check(tmp_path, waiting, capsys)
    assert (code, _rules(log)) == (1, [("RW-1", 7)])
    assert log["violations"][0]["event_lines"] == [7, 2, 5]
    as_shown = [*shown, *_write_file(0, "hello\n"), first_ended, *later]
    code, log = _check(tmp_path, as_shown, capsys)
    assert (code, log["violations"]) == (0, [])


def test_RW_1_check_acp_recording_blames_a_write_neither_of_two_cards_shows(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Two Write cards of one file, neither ever asked (a hook allowing both): whose write it
    was is not known, but when both end showing a diff whose text it does not hold, the one
    that asked for it showed another change: RW-1 where the last ends, naming both cards' ends
    and diffs and the write. A write one of them shows is not blamed (it may be that one's)."""
    second = _write_card([])
    second["params"]["update"]["toolCallId"] = "call_2"
    second["params"]["update"]["content"][0]["newText"] = "second\n"
    shown = [_prompt(1), _write_card([]), second]
    ended = [_status("call_1", "completed"), _status("call_2", "completed"), _stop(1, "end_turn")]
    code, log = _check(tmp_path, [*shown, *_write_file(0, "rewritten\n"), *ended], capsys)
    assert (code, _rules(log)) == (1, [("RW-1", 7)])
    assert log["violations"][0]["event_lines"] == [7, 6, 2, 3, 4]
    assert log["violations"][0]["message"].startswith("call_1 and call_2 ended each showing")
    code, log = _check(tmp_path, [*shown, *_write_file(0, "second\n"), *ended], capsys)
    assert (code, log["violations"]) == (0, [])


def test_ADJ_3_check_acp_recording_holds_no_turn_whose_prompt_failed_to_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A prompt answered with a JSON-RPC error (Claude Code 2.1.332 after a reject) ended its
    turn with `error`, which ADJ-3 exempts: a card it left pending is not blamed, and the
    report says ADJ-3 is checked in part for that reason."""
    failed = {"jsonrpc": "2.0", "id": 1, "error": {"code": -32603, "message": "Internal error"}}
    messages = [_prompt(1), _card("call_1", {"command": "sleep 9"}), failed]
    code, log = _check(tmp_path, messages, capsys)
    assert (code, log["violations"]) == (0, [])
    assert "JSON-RPC error" in log["rules_checked_in_part"]["ADJ-3"]


def test_RW_1_check_acp_recording_blames_exit_plan_mode_approved_without_the_plan_shown(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Claude Code 2.1.332 under Zed's bridge: ExitPlanMode's card shows the model's plan while
    the permission request, the input the CLI ran, is `{}`. The user approves leaving plan mode
    on a plan the CLI did not take (it reads its plan file): RW-1 where the call ends, as for
    any approved input the card does not show (docs/harnesses.md)."""
    card = _card("call_1", {"plan": "1. touch planned.txt"})
    card["params"]["update"].update({"title": "Ready to code?", "kind": "switch_mode"})
    asked = _asking({"toolCallId": "call_1", "rawInput": {}, "title": "Ready to code?"})
    asked["params"]["options"] = [
        {"kind": "allow_once", "name": "Yes, and manually approve edits", "optionId": "default"},
        {"kind": "reject_once", "name": "No, keep planning", "optionId": "plan"},
    ]
    ended = [_status("call_1", "completed"), _stop(1, "end_turn")]
    code, log = _check(tmp_path, [_prompt(1), card, asked, _answer(0, "default"), *ended], capsys)
    assert (code, _rules(log)) == (1, [("RW-1", 5)])
    assert "the permission request approved {}" in log["violations"][0]["message"]
    kept_planning = [_prompt(1), card, asked, _answer(0, "plan"), _status("call_1", "failed")]
    code, log = _check(tmp_path, kept_planning, capsys)
    assert (code, log["violations"]) == (0, [])


def _refused(option: str = "reject") -> list[dict[str, Any]]:
    """A prompt, a card for `rm -rf build`, its permission request (id 0, allow or reject)
    and the editor's answer choosing `option`."""
    asked = _asking({"toolCallId": "call_1", "rawInput": {"command": "rm -rf build"}})
    asked["params"]["options"].append(
        {"kind": "reject_once", "name": "Reject", "optionId": "reject"}
    )
    return [_prompt(1), _card("call_1", {"command": "rm -rf build"}), asked, _answer(0, option)]


def test_DEC_2_check_acp_recording_blames_a_call_that_ran_after_its_permission_was_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A bridge that runs a call the editor refused: DEC-2 where the card ends `completed`
    (naming the refusing answer), where a terminal is created for the command only the
    refused card shows (or, created otherwise, where the card ends showing it), and where the
    editor is asked to write the file only the refused card shows; a run blamed where it
    started is not blamed again where its card ends `completed`. Refused and
    ended `failed` with nothing run, or answered `cancelled` and left, it keeps DEC-2."""
    ended = [_status("call_1", "completed"), _stop(1, "end_turn")]
    code, log = _check(tmp_path, [*_refused(), *ended], capsys)
    assert (code, _rules(log)) == (1, [("DEC-2", 5)])
    assert log["violations"][0]["event_lines"] == [5, 4]
    assert (
        'answered with "reject", an option of kind reject_once (line 4)'
        in (log["violations"][0]["message"])
    )
    cancelled = {"jsonrpc": "2.0", "id": 0, "result": {"outcome": {"outcome": "cancelled"}}}
    code, log = _check(tmp_path, [*_refused()[:3], cancelled, *ended], capsys)
    assert (code, _rules(log)) == (1, [("DEC-2", 5)])
    assert "answered cancelled" in log["violations"][0]["message"]
    terminal = _terminal_run("rm -rf build")[2:5]  # created, answered, embedded
    failed = [_status("call_1", "failed"), _stop(1, "end_turn")]
    code, log = _check(tmp_path, [*_refused(), *terminal, *failed], capsys)
    assert (code, _rules(log)) == (1, [("DEC-2", 5)])  # at the terminal/create: it ran there
    assert log["violations"][0]["event_lines"] == [5, 4]
    code, log = _check(tmp_path, [*_refused(), *terminal, *ended], capsys)
    assert _rules(log) == [("DEC-2", 5)]  # its end completed is not blamed again
    terminal[0]["params"]["args"] = ["-rf", "build"]  # a split command: known by the card alone
    terminal[0]["params"]["command"] = "rm"
    code, log = _check(tmp_path, [*_refused(), *terminal, *failed], capsys)
    assert (code, _rules(log)) == (1, [("DEC-2", 8)])
    assert log["violations"][0]["event_lines"] == [8, 5, 4]
    card = _write_card([])
    asked = _asking({"toolCallId": "call_1", "rawInput": {"file_path": NEW_FILE}})
    asked["params"]["options"] = [{"kind": "reject_once", "name": "No", "optionId": "no"}]
    messages = [_prompt(1), card, asked, _answer(0, "no"), *_write_file(1, "hello\n"), *failed]
    code, log = _check(tmp_path, messages, capsys)
    assert (code, _rules(log)) == (1, [("DEC-2", 5)])
    assert "only call_1's card shows a diff of" in log["violations"][0]["message"]
    code, log = _check(tmp_path, [*_refused(), *failed], capsys)
    assert (code, log["violations"]) == (0, [])


def test_DEC_2_check_acp_recording_blames_a_permission_request_for_a_call_that_ended(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A bridge asking permission under the id of a call that already ended (the request meant
    for the next call): the editor asks about a finished card. DEC-2 at the request."""
    first = [_prompt(1), _card("call_1", {"command": "echo one"}), _status("call_1", "completed")]
    asked = _asking({"toolCallId": "call_1", "rawInput": {"command": "echo two"}})
    code, log = _check(tmp_path, [*first, asked, _answer(0, "allow")], capsys)
    assert (code, _rules(log)) == (1, [("DEC-2", 4)])
    assert "names call_1, whose card ended completed (line 3)" in log["violations"][0]["message"]


def test_ADJ_2_check_acp_recording_blames_an_update_that_changes_a_card_after_its_end(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An update that reopens a card that ended, ends it otherwise, or replaces its content
    (late output) answers the call again: ADJ-2 once per card, at the first such update. An
    update repeating the end, or carrying only `_meta`, changes nothing the editor shows."""
    ended = [_prompt(1), _card("call_1", {"command": "ls"}), _status("call_1", "completed")]
    reopened = [*ended, _status("call_1", "in_progress"), _status("call_1", "completed")]
    code, log = _check(tmp_path, [*reopened, _stop(1, "end_turn")], capsys)
    assert (code, _rules(log)) == (1, [("ADJ-2", 4)])
    assert (
        "reopens it as in_progress after its card ended completed (line 3)"
        in (log["violations"][0]["message"])
    )
    late = _update(
        {
            "toolCallId": "call_1",
            "sessionUpdate": "tool_call_update",
            "content": [{"type": "content", "content": {"type": "text", "text": "late"}}],
        }
    )
    code, log = _check(tmp_path, [*ended, late], capsys)
    assert (code, _rules(log)) == (1, [("ADJ-2", 4)])
    assert "replaces its content" in log["violations"][0]["message"]
    meta = _update({"toolCallId": "call_1", "sessionUpdate": "tool_call_update", "_meta": {}})
    code, log = _check(tmp_path, [*ended, meta, _status("call_1", "completed")], capsys)
    assert (code, log["violations"]) == (0, [])


def test_ACP_1_check_acp_recording_blames_a_call_id_reused_in_its_session_but_not_a_replay(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A second call shown under the id of one that ended (a bridge numbering calls per turn)
    is ACP-1 (ACP makes a toolCallId unique in its session), and judged as a call of its own:
    left pending at the end of its turn, ADJ-3. The same card replayed by `session/load`
    before the load is answered is the history shown again, not judged."""
    ended = [_prompt(1), _card("call_1", {"command": "ls"}), _status("call_1", "completed")]
    again = [
        _stop(1, "end_turn"),
        _prompt(2),
        _card("call_1", {"command": "pwd"}),
        _stop(2, "end_turn"),
    ]
    code, log = _check(tmp_path, [*ended, *again], capsys)
    assert (code, _rules(log)) == (1, [("ACP-1", 6), ("ADJ-3", 7)])
    assert (
        "reuses the id of a call whose card ended completed (line 3)"
        in (log["violations"][0]["message"])
    )
    load = {"sessionId": SESSION, "cwd": "/workspace", "mcpServers": []}
    replay = [
        {"jsonrpc": "2.0", "id": 5, "method": "session/load", "params": load},
        _card("call_1", {"command": "ls"}),
        _status("call_1", "completed"),
        {"jsonrpc": "2.0", "id": 5, "result": {}},
    ]
    code, log = _check(tmp_path, [*ended, _stop(1, "end_turn"), *replay], capsys)
    assert (code, log["violations"]) == (0, [])


def test_ACP_1_check_acp_recording_blames_an_unreadable_card_once_not_its_updates(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A tool_call the ACP SDK cannot read (a null title) is ACP-1 at its line; the updates of
    its call are not each blamed on ADJ-2 as naming a call no tool_call showed, and its end
    is judged as any (a turn ending with it pending: ADJ-3)."""
    card = _card("call_1", {"command": "ls"})
    card["params"]["update"]["title"] = None
    running = _status("call_1", "in_progress")
    code, log = _check(
        tmp_path, [_prompt(1), card, running, _status("call_1", "completed")], capsys
    )
    assert (code, _rules(log)) == (1, [("ACP-1", 2)])
    code, log = _check(tmp_path, [_prompt(1), card, running, _stop(1, "end_turn")], capsys)
    assert (code, _rules(log)) == (1, [("ACP-1", 2), ("ADJ-3", 4)])


def test_ADJ_3_check_acp_recording_says_a_card_only_a_permission_request_showed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A permission request naming a call no tool_call showed makes the editor show a card of
    it (ACP lets a request show the call); left pending at the turn's end, ADJ-3 says that
    only that request showed it, so a wrong id in the request is found."""
    asked = _asking({"toolCallId": "call_1-perm", "rawInput": {"command": "ls"}})
    messages = [_prompt(1), _card("call_1", {"command": "ls"}), asked, _answer(0, "allow")]
    code, log = _check(
        tmp_path, [*messages, _status("call_1", "completed"), _stop(1, "end_turn")], capsys
    )
    assert (code, _rules(log)) == (1, [("ADJ-3", 6)])
    assert (
        "call_1-perm (shown by the permission request at line 3 alone"
        in (log["violations"][0]["message"])
    )


def test_DEC_2_check_acp_recording_blames_a_call_run_before_its_permission_was_answered(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A bridge that starts the call's terminal, or has the editor write its file, before it
    asks permission or while the request waits, or ends the card `completed` with the request
    unanswered (it did not wait for the answer): the call ran unapproved, DEC-2 where it ends,
    allowed afterwards or not (where the terminal or the write is asked for, while the request
    waits). Asked, allowed, then run, it keeps DEC-2."""
    card = _card("call_1", {"command": "rm -rf build"})
    asked = _asking({"toolCallId": "call_1", "rawInput": {"command": "rm -rf build"}})
    terminal = _terminal_run("rm -rf build")[2:5]  # created, answered, embedded
    ended = [_status("call_1", "completed"), _stop(1, "end_turn")]
    early = [_prompt(1), card, *terminal, asked, _answer(0, "allow"), *ended]
    code, log = _check(tmp_path, early, capsys)
    assert (code, _rules(log)) == (1, [("DEC-2", 8)])
    assert (
        "a terminal created (line 3) before its permission request (line 6)"
        in (log["violations"][0]["message"])
    )
    waiting = [_prompt(1), card, asked, *terminal, _answer(0, "allow"), *ended]
    code, log = _check(tmp_path, waiting, capsys)
    assert (code, _rules(log)) == (1, [("DEC-2", 4)])  # at the terminal/create
    assert (
        "while its permission request (line 3) was unanswered" in (log["violations"][0]["message"])
    )
    code, log = _check(
        tmp_path, [_prompt(1), card, asked, _answer(0, "allow"), *terminal, *ended], capsys
    )
    assert (code, log["violations"]) == (0, [])
    code, log = _check(tmp_path, [_prompt(1), card, asked, *ended], capsys)
    assert (code, _rules(log)) == (1, [("DEC-2", 4)])
    assert (
        "ended completed while its permission request (line 3) was unanswered"
        in (log["violations"][0]["message"])
    )
    write_asked = _asking({"toolCallId": "call_1", "rawInput": {"file_path": NEW_FILE}})
    written_first = [_prompt(1), _write_card([]), *_write_file(1, "hello\n"), write_asked]
    code, log = _check(tmp_path, [*written_first, _answer(0, "allow"), *ended], capsys)
    assert (code, _rules(log)) == (1, [("DEC-2", 7)])
    assert (
        f'asked to write "{NEW_FILE}" (line 3) before its permission request (line 5)'
        in (log["violations"][0]["message"])
    )
    written_waiting = [_prompt(1), _write_card([]), write_asked, *_write_file(1, "hello\n")]
    code, log = _check(tmp_path, written_waiting, capsys)
    assert (code, _rules(log)) == (1, [("DEC-2", 4)])
    assert (
        "while its permission request (line 3) was unanswered" in (log["violations"][0]["message"])
    )


def test_ADJ_2_check_acp_recording_says_an_update_names_another_session_than_its_card(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An update sent under another session's id than its card's: ADJ-2, saying which session
    showed the call, so the bridge author finds the session mixed up and not the call."""
    wrong = _status("call_1", "completed")
    wrong["params"]["sessionId"] = "sess-0"
    code, log = _check(tmp_path, [_prompt(1), _card("call_1", {"command": "ls"}), wrong], capsys)
    assert (code, _rules(log)) == (1, [("ADJ-2", 3)])
    assert (
        'in session "sess-0": a tool_call showed it in session "sess-1" (line 2)'
        in (log["violations"][0]["message"])
    )


def test_ADJ_3_check_acp_recording_says_a_card_was_left_open_by_a_status_acp_lacks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A bridge ending a card with a status ACP does not have (`cancelled`): ACP-1 at that
    update, which the editor reads without it, and ADJ-3 where the turn ends with the card
    still open says which line sent that status, so the one fix is found from either."""
    cancelled = _status("call_1", "cancelled")
    messages = [_prompt(1), _card("call_1", {"command": "ls"}), cancelled, _stop(1, "end_turn")]
    code, log = _check(tmp_path, messages, capsys)
    assert (code, _rules(log)) == (1, [("ACP-1", 3), ("ADJ-3", 4)])
    assert log["violations"][0]["message"].startswith("the tool_call_update is not valid ACP")
    assert (
        'call_1 (line 3 sent the status "cancelled", which ACP does not have)'
        in (log["violations"][1]["message"])
    )


def test_ACP_1_check_acp_recording_counts_its_lines_as_messages_not_events(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A recording holds JSON-RPC messages, not a loop's events: `-v` and the summary count
    them so, and a run over logs and recordings counts each apart."""
    assert main(["check", "-v", str(FIXTURE)]) == 1
    out = capsys.readouterr().out
    assert f"{FIXTURE}: violations, 13 messages in 13 lines" in out
    assert out.endswith("checked 1 ACP recording, 13 messages: 1 violation (RW-1: 1)\n")
    log, recording = LogReport("a.jsonl"), LogReport("b.jsonl")
    log.events, recording.events, recording.dialect = 40, 7, "acp"
    assert summary_text([log, recording]) == (
        "checked 1 log, 40 events, and 1 ACP recording, 7 messages: 0 violations"
    )


EDITED = "/workspace/a.py"


def _edit_card(old_text: str, new_text: str) -> dict[str, Any]:
    """Zed's Edit card: the model's old_string and new_string as a diff of the file."""
    raw = {"file_path": EDITED, "old_string": old_text, "new_string": new_text}
    card = _card("call_1", raw)
    diff = {"type": "diff", "path": EDITED, "oldText": old_text, "newText": new_text}
    card["params"]["update"].update({"title": "Edit a.py", "kind": "edit", "content": [diff]})
    return card


def _read_file(request: int, content: str, **part: int) -> list[dict[str, Any]]:
    """The bridge's fs/read_text_file request of the edited file and the editor's answer."""
    params = {"sessionId": SESSION, "path": EDITED, **part}
    return [
        {"jsonrpc": "2.0", "id": request, "method": "fs/read_text_file", "params": params},
        {"jsonrpc": "2.0", "id": request, "result": {"content": content}},
    ]


def _ended_with(old_text: str, new_text: str) -> dict[str, Any]:
    """The update ending the Edit completed, showing its change as `old_text` -> `new_text`."""
    update = _status("call_1", "completed")
    diff = {"type": "diff", "path": EDITED, "oldText": old_text, "newText": new_text}
    update["params"]["update"]["content"] = [diff]
    return update


def test_RW_1_check_acp_recording_blames_an_edit_whose_old_text_the_file_did_not_hold(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An Edit card replacing `x = 1` in a file the bridge read while the card was open as
    holding `x = 3` (a stale card: the edit that wrote the file replaced something else):
    RW-1 where the call ends, naming the diff, the read and the write. The file as read, its
    lines CRLF or its quotes typographic, a read of some lines only, or one before the card
    (the file may have changed since) is not blamed."""
    card = _edit_card("x = 1", "x = 2")
    written = _write_file(3, "x = 2\ny = 1\n", EDITED)
    ended = [_status("call_1", "completed"), _stop(1, "end_turn")]
    code, log = _check(
        tmp_path, [_prompt(1), card, *_read_file(2, "x = 3\ny = 1\n"), *written, *ended], capsys
    )
    assert (code, _rules(log)) == (1, [("RW-1", 7)])
    assert log["violations"][0]["event_lines"] == [7, 2, 4, 5]
    message = log["violations"][0]["message"]
    assert 'replaces "x = 1", but the file held "x = 3\\ny = 1\\n" when the editor' in message
    for read in (
        _read_file(2, "x = 1\ny = 1\n"),
        _read_file(2, "x = 1\r\ny = 1\r\n"),
        _read_file(2, "x = 3\n", line=5, limit=1),
    ):
        code, log = _check(tmp_path, [_prompt(1), card, *read, *written, *ended], capsys)
        assert (code, log["violations"]) == (0, [])
    quoted = _edit_card('s = "a"', 's = "b"')
    read = _read_file(2, "s = \u201ca\u201d\n")
    written_quoted = _write_file(3, 's = "b"\n', EDITED)
    code, log = _check(tmp_path, [_prompt(1), quoted, *read, *written_quoted, *ended], capsys)
    assert (code, log["violations"]) == (0, [])
    before = [_prompt(1), *_read_file(2, "x = 3\n"), card, *written, *ended]
    code, log = _check(tmp_path, before, capsys)
    assert (code, log["violations"]) == (0, [])
    fresher = copy.deepcopy(card)
    fresher["params"]["update"]["sessionUpdate"] = "tool_call_update"
    fresher["params"]["update"]["content"][0]["oldText"] = "x = 3"
    fresher["params"]["update"]["status"] = "in_progress"
    read = _read_file(2, "x = 3\ny = 1\n")
    code, log = _check(tmp_path, [_prompt(1), card, fresher, *read, *written, *ended], capsys)
    assert (code, log["violations"]) == (0, [])


def test_RW_1_check_acp_recording_blames_an_edit_ending_with_another_change_than_shown(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An Edit card showing `x = 1` replaced that ends showing a change of a text which does
    not hold it: RW-1 at the end, naming the diff shown first. The hunk of the whole lines
    around it (Zed's bridge parses its unified diff back), or several hunks, are not blamed."""
    card = _edit_card("x = 1\n", "x = 2\n")
    code, log = _check(tmp_path, [_prompt(1), card, _ended_with("y = 5", "y = 6")], capsys)
    assert (code, _rules(log)) == (1, [("RW-1", 3)])
    assert log["violations"][0]["event_lines"] == [3, 2]
    assert 'showed it replacing "x = 1\\n" (line 2)' in log["violations"][0]["message"]
    hunk = _ended_with("w = 0\nx = 1\ny = 1", "w = 0\nx = 2\ny = 1")
    code, log = _check(tmp_path, [_prompt(1), card, hunk], capsys)
    assert (code, log["violations"]) == (0, [])
    hunks = _ended_with("a = 0", "a = 1")
    hunks["params"]["update"]["content"].append(
        {"type": "diff", "path": EDITED, "oldText": "b = 0", "newText": "b = 1"}
    )
    code, log = _check(tmp_path, [_prompt(1), card, hunks], capsys)
    assert (code, log["violations"]) == (0, [])


def _cancel() -> dict[str, Any]:
    return {"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": SESSION}}


def test_ADJ_2_check_acp_recording_blames_an_update_after_a_cancelled_turn_was_answered(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A turn answered `cancelled` ends its unfinished cards (the editor marks them
    cancelled): a card the agent then ends completed is ADJ-2 at that update. Ended before
    the answer, after the editor's cancel, it is not blamed: ACP lets an agent send a cancelled
    turn's updates until it answers the prompt."""
    shown = [_prompt(1), _card("call_1", {"command": "ls"}), _cancel()]
    late = [*shown, _stop(1, "cancelled"), _status("call_1", "completed")]
    code, log = _check(tmp_path, late, capsys)
    assert (code, _rules(log)) == (1, [("ADJ-2", 5)])
    message = log["violations"][0]["message"]
    assert message.startswith("the tool_call_update for call_1 ends it completed after its turn")
    assert "answered cancelled (line 4)" in message
    code, log = _check(
        tmp_path, [*shown, _status("call_1", "completed"), _stop(1, "cancelled")], capsys
    )
    assert (code, log["violations"]) == (0, [])


def _initialize(capabilities: dict[str, Any]) -> dict[str, Any]:
    params = {"protocolVersion": 1, "clientCapabilities": capabilities}
    return {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": params}


def test_ACP_2_check_acp_recording_blames_a_terminal_the_editor_did_not_declare(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An editor whose initialize declares no terminal is sent a terminal/create and a card
    showing the terminal: ACP-2 at each, naming the initialize; the terminal's later requests
    are not blamed again. ACP-1 for an fs request it declared no fs for. Declared (a card's
    terminal by Zed's `_meta.terminal_output` too), or with no initialize recorded, nothing."""
    run = _terminal_run("touch original.txt")
    messages = [_initialize({"fs": {"readTextFile": True}}), *run]
    code, log = _check(tmp_path, messages, capsys)
    assert (code, _rules(log)) == (1, [("ACP-2", 4), ("ACP-2", 6)])
    assert log["violations"][0]["event_lines"] == [4, 1]
    assert log["violations"][0]["message"].startswith(
        "the agent sent terminal/create, but the editor's initialize (line 1) declared no "
        "terminal among its clientCapabilities"
    )
    assert (
        "declared neither terminal nor _meta.terminal_output" in (log["violations"][1]["message"])
    )
    wait = {"sessionId": SESSION, "terminalId": "term-1"}
    waiting = {"jsonrpc": "2.0", "id": 9, "method": "terminal/wait_for_exit", "params": wait}
    writing = _write_file(8, "hello\n")
    code, log = _check(tmp_path, [*messages, waiting, *writing], capsys)
    assert _rules(log) == [("ACP-2", 4), ("ACP-2", 6), ("ACP-1", 10)]
    assert "declared no fs.writeTextFile" in log["violations"][2]["message"]
    for capabilities in ({"terminal": True}, {"terminal": True, "_meta": {"x": 1}}):
        code, log = _check(tmp_path, [_initialize(capabilities), *run], capsys)
        assert (code, log["violations"]) == (0, [])
    streamed = [_initialize({"_meta": {"terminal_output": True}}), *run[:2], *run[4:]]
    code, log = _check(tmp_path, streamed, capsys)
    assert (code, log["violations"]) == (0, [])
    code, log = _check(tmp_path, run, capsys)
    assert (code, log["violations"]) == (0, [])


def test_ACP_1_check_acp_recording_blames_a_relative_path_once_at_its_source(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """ACP's file paths are absolute: an fs request's path and a terminal's cwd that are
    relative are ACP-1 at their lines. A session the editor gave a relative cwd is blamed there
    alone, not the agent's paths under it; Windows paths from a drive or a share are absolute."""
    reading = _read_file(5, "x = 1\n")
    reading[0]["params"]["path"] = "a.py"
    created = _terminal_run("ls")[2]
    created["params"]["cwd"] = "."
    messages = [_prompt(1), *reading, created]
    code, log = _check(tmp_path, messages, capsys)
    assert _rules(log) == [("ACP-1", 2), ("ACP-1", 4)]
    said = [v["message"] for v in log["violations"]]
    assert said[0].startswith('the fs/read_text_file request\'s path is "a.py"')
    assert said[1].startswith('the terminal/create request\'s cwd is "."')
    new = {"jsonrpc": "2.0", "id": 7, "method": "session/new", "params": {"cwd": "work"}}
    code, log = _check(tmp_path, [new, *messages], capsys)
    assert _rules(log) == [("ACP-1", 1)]
    assert "the agent's paths under it are not judged" in log["violations"][0]["message"]
    created["params"]["cwd"] = "C:\\w"
    reading[0]["params"]["path"] = "\\\\s\\a"
    code, log = _check(tmp_path, [_prompt(1), *reading, created], capsys)
    assert (code, log["violations"]) == (0, [])


def test_VIEW_4_check_acp_recording_passes_a_cards_relative_location_and_diff_path(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """VIEW-4 keeps a card's locations and diff paths as the call's arguments give them, as
    dsh's bridge does and SPEC section 12's table shows (`Read a.txt` locates `a.txt`): a bridge
    forwarding a relative one, on a card or in a permission request, does what the model does,
    though ACP asks for absolute paths, so check does not blame it."""
    card = _edit_card("x = 1", "x = 2")
    card["params"]["update"]["locations"] = [{"path": "a.py"}]
    asked = _asking({"toolCallId": "call_1", "content": [_diff("src/a.py")]})
    code, log = _check(tmp_path, [_prompt(1), card, asked], capsys)
    assert (code, log["violations"]) == (0, [])


def _diff(path: str) -> dict[str, Any]:
    return {"type": "diff", "path": path, "oldText": "x = 1", "newText": "x = 2"}


def test_ACP_1_check_acp_recording_blames_a_stop_reason_acp_does_not_have(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A prompt answered with a stop reason the pinned ACP lacks: ACP-1 at the answer, which
    an editor cannot read; ACP's own are not blamed."""
    code, log = _check(tmp_path, [_prompt(1), _stop(1, "done")], capsys)
    assert (code, _rules(log)) == (1, [("ACP-1", 2)])
    assert '"done" is not one of ["end_turn"' in log["violations"][0]["message"]
    for reason in ("end_turn", "max_tokens", "max_turn_requests", "refusal", "cancelled"):
        code, log = _check(tmp_path, [_prompt(1), _cancel(), _stop(1, reason)], capsys)
        assert (code, log["violations"]) == (0, [])


def test_DEC_2_check_acp_recording_blames_options_that_allow_and_refuse_under_one_id(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A permission request whose reject option shares the optionId of its allow option: the
    editor's answer names the id alone, so a refusal reads as an allow. DEC-2 at the request;
    two allowing options under one id are not blamed (either one allows)."""
    asked = _asking({"toolCallId": "call_1", "rawInput": {"command": "ls"}})
    asked["params"]["options"].append({"kind": "reject_once", "name": "No", "optionId": "allow"})
    code, log = _check(tmp_path, [_prompt(1), _card("call_1", {"command": "ls"}), asked], capsys)
    assert (code, _rules(log)) == (1, [("DEC-2", 3)])
    assert 'under one optionId, "allow"' in log["violations"][0]["message"]
    asked["params"]["options"][1]["kind"] = "allow_always"
    code, log = _check(tmp_path, [_prompt(1), _card("call_1", {"command": "ls"}), asked], capsys)
    assert (code, log["violations"]) == (0, [])


def test_ACP_1_check_acp_recording_blames_a_terminal_no_create_made_and_a_second_answer(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """For an editor that declared terminals, a card showing a terminal id no terminal/create
    answered (the editor has no such terminal to show) is ACP-1 at the card; under Zed's
    `_meta.terminal_output` the agent names its own terminals, and is not blamed. A prompt
    answered twice is ACP-1 at the second answer, naming the first and the prompt; a new
    prompt under an id answered before is answered once."""
    run = _terminal_run("touch original.txt")
    run[4]["params"]["update"]["content"][0]["terminalId"] = "term_9"
    code, log = _check(tmp_path, [_initialize({"terminal": True}), *run], capsys)
    assert (code, _rules(log)) == (1, [("ACP-1", 6)])
    assert log["violations"][0]["message"].startswith(
        'call_1\'s card shows the terminal "term_9", which no terminal/create answered'
    )
    streamed = _initialize({"terminal": True, "_meta": {"terminal_output": True}})
    code, log = _check(tmp_path, [streamed, *run], capsys)
    assert (code, log["violations"]) == (0, [])
    twice = [_prompt(1), _stop(1, "end_turn"), _stop(1, "end_turn")]
    code, log = _check(tmp_path, twice, capsys)
    assert (code, _rules(log)) == (1, [("ACP-1", 3)])
    assert log["violations"][0]["event_lines"] == [3, 2, 1]
    code, log = _check(tmp_path, [*twice[:2], _prompt(1), _stop(1, "end_turn")], capsys)
    assert (code, log["violations"]) == (0, [])


def test_ACP_1_a_card_s_terminal_names_the_editor_answer_that_made_none(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An editor that answered the agent's terminal/create with `terminal_id` (not ACP's
    `terminalId`) made no terminal ACP reads: the card then showing that id is ACP-1 at the
    card, naming the answer and the request, where check said no terminal/create answered
    (one was, not in ACP's shape). The editor's answer itself is not judged."""
    run = _terminal_run("touch original.txt")
    run[3]["result"] = {"terminal_id": "term_1"}
    # Answered, so that the create's id 0 is no longer the initialize's too.
    initialized = {"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": 1}}
    code, log = _check(tmp_path, [_initialize({"terminal": True}), initialized, *run], capsys)
    assert (code, _rules(log)) == (1, [("ACP-1", 7)])
    (violation,) = log["violations"]
    assert violation["message"] == (
        "call_1's card shows the terminal \"term_1\", but the editor's answer at line 6 to the "
        'terminal/create at line 5 gave no terminalId ACP reads (its result: {"terminal_id": '
        '"term_1"}): no terminal was made, and the card\'s "term_1" has nothing behind it; an '
        "editor shows only a terminal it created"
    )
    assert violation["event_lines"] == [7, 6, 5]


def _asked(request: int, call: str, command: str) -> dict[str, Any]:
    """The permission request `request` for `call`, showing `command`."""
    asked = _asking({"toolCallId": call, "rawInput": {"command": command}})
    asked["id"] = request
    return asked


def test_ACP_1_check_acp_recording_blames_a_permission_request_id_reused_while_pending(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Two permission requests sent with one id, the first unanswered (a bridge numbering its
    requests per call): the editor's answer names the id alone. ACP-1 at the second, naming
    the first; the answers are read in order, so neither call is blamed for running
    unanswered. An id used again once its request was answered is not blamed."""
    cards = [_prompt(1), _card("call_1", {"command": "ls"}), _card("call_2", {"command": "pwd"})]
    ended = [_status("call_1", "completed"), _status("call_2", "completed"), _stop(1, "end_turn")]
    both = [_asked(7, "call_1", "ls"), _asked(7, "call_2", "pwd"), _answer(7, "allow")]
    code, log = _check(tmp_path, [*cards, *both, _answer(7, "allow"), *ended], capsys)
    assert (code, _rules(log)) == (1, [("ACP-1", 5)])
    assert log["violations"][0]["event_lines"] == [5, 4]
    assert log["violations"][0]["message"].startswith(
        "the session/request_permission reuses the id 7 of the permission request at line 4, "
        "still unanswered"
    )
    after = [both[0], both[2], both[1], _answer(7, "allow")]
    code, log = _check(tmp_path, [*cards, *after, *ended], capsys)
    assert (code, log["violations"]) == (0, [])


def test_ACP_1_check_acp_recording_blames_a_second_call_asking_under_an_open_calls_id(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A permission request about another input for a call whose request is unanswered: two
    calls of one batch given one toolCallId (the editor shows one card for both). ACP-1 at
    the second request; the same input asked again is not blamed."""
    shown = [_prompt(1), _card("call_1", {"command": "ls"}), _asked(7, "call_1", "ls")]
    code, log = _check(tmp_path, [*shown, _asked(8, "call_1", "pwd")], capsys)
    assert (code, _rules(log)) == (1, [("ACP-1", 4)])
    assert log["violations"][0]["event_lines"] == [4, 3]
    message = log["violations"][0]["message"]
    assert "with another rawInput than its request at line 3, still unanswered" in message
    code, log = _check(tmp_path, [*shown, _asked(8, "call_1", "ls")], capsys)
    assert (code, log["violations"]) == (0, [])


def _session_new(request: int, session: str) -> list[dict[str, Any]]:
    """The editor's session/new and the agent's answer naming `session`."""
    new = {"jsonrpc": "2.0", "id": request, "method": "session/new", "params": {"cwd": "/w"}}
    return [new, {"jsonrpc": "2.0", "id": request, "result": {"sessionId": session}}]


def test_ACP_1_check_acp_recording_blames_a_session_the_editor_does_not_know(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A bridge sending a call's updates under its own name for the session: ACP-1 once, at
    its first message there (the editor shows nothing of it), not ADJ-2 at each update; the
    card left open in the editor's session is ADJ-3 saying where its updates went. A session
    the editor was given (session/new's answer) or named itself (session/load) is known; a
    recording without the editor's initialize is not judged so."""
    start = [_initialize({}), *_session_new(1, SESSION), _prompt(2)]
    astray = _status("call_1", "completed")
    astray["params"]["sessionId"] = "internal-1"
    shown = [_card("call_1", {"command": "ls"}), astray, astray, _stop(2, "end_turn")]
    code, log = _check(tmp_path, [*start, *shown], capsys)
    assert (code, _rules(log)) == (1, [("ACP-1", 6), ("ADJ-3", 8)])
    said = [v["message"] for v in log["violations"]]
    assert said[0].startswith('the session/update names the session "internal-1", which')
    assert 'call_1 (line 6 named it under the session "internal-1", which the editor' in said[1]
    code, log = _check(tmp_path, [*start[1:], *shown], capsys)
    assert _rules(log) == [("ADJ-2", 5), ("ADJ-2", 6), ("ADJ-3", 7)]
    edit = _edit_card("x = 1", "x = 2")
    edit["params"]["sessionId"] = "internal-1"
    writing = _initialize({"fs": {"writeTextFile": True}})
    written = [writing, *start[1:], edit, *_write_file(4, "x = 2\n", EDITED)]  # rightly named
    code, log = _check(tmp_path, written, capsys)
    assert _rules(log) == [("ACP-1", 5)]
    load = {"jsonrpc": "2.0", "id": 3, "method": "session/load", "params": {"sessionId": "s-2"}}
    loaded = _status("call_1", "completed")
    loaded["params"]["sessionId"] = "s-2"
    ended = [_card("call_1", {"command": "ls"}), _status("call_1", "completed")]
    messages = [*start, *ended, _stop(2, "end_turn"), load, loaded]
    code, log = _check(tmp_path, messages, capsys)
    assert _rules(log) == [("ADJ-2", 9)]  # an update of a call s-2 never showed, not ACP-1


def test_RW_1_check_acp_recording_blames_a_card_showing_another_calls_terminal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A bridge that reuses the last call's terminal: the card of `pwd`, allowed, embeds the
    terminal created for the earlier call's command. RW-1 (the card shows one command, the
    terminal ran another), not DEC-2: that terminal was made before `pwd` was asked about,
    but it is not what `pwd` ran."""
    run = _terminal_run("touch original.txt")
    embedded = copy.deepcopy(run[4])
    embedded["params"]["update"]["toolCallId"] = "call_2"
    second = [
        _prompt(2),
        _card("call_2", {"command": "pwd"}),
        _asked(5, "call_2", "pwd"),
        _answer(5, "allow"),
        embedded,
        _status("call_2", "completed"),
    ]
    code, log = _check(tmp_path, [_initialize({"terminal": True}), *run, *second], capsys)
    assert (code, _rules(log)) == (1, [("RW-1", 14)])
    assert log["violations"][0]["message"].startswith(
        'call_2 ended showing the command "pwd" on its card, but the terminal it shows ran '
        '"touch original.txt"'
    )


def test_RW_1_check_acp_recording_blames_an_edit_ending_with_another_files_diff(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Two Edits' results crossed: the card of the edit of a.py, which the editor was asked
    to write, ends showing a diff of b.py alone. RW-1 where it ends, naming the write; a diff
    of the file written, or a relative path (VIEW-4 keeps a card's as the arguments give it),
    is not blamed."""
    shown = [_prompt(1), _edit_card("x = 1", "x = 2"), *_write_file(4, "x = 2\n", EDITED)]
    crossed = _ended_with("y = 1", "y = 2")
    crossed["params"]["update"]["content"][0]["path"] = "/workspace/b.py"
    code, log = _check(tmp_path, [*shown, crossed], capsys)
    assert (code, _rules(log)) == (1, [("RW-1", 5)])
    assert log["violations"][0]["event_lines"] == [5, 3]
    assert log["violations"][0]["message"].startswith(
        'call_1 ended showing a diff of "/workspace/b.py", but the editor was asked to write '
        '"/workspace/a.py" for it (line 3)'
    )
    crossed["params"]["update"]["content"][0]["path"] = "b.py"
    code, log = _check(tmp_path, [*shown, crossed], capsys)
    assert (code, log["violations"]) == (0, [])
    code, log = _check(tmp_path, [*shown, _ended_with("x = 1", "x = 2")], capsys)
    assert (code, log["violations"]) == (0, [])


def test_ACP_1_check_acp_recording_blames_a_write_naming_another_session_than_its_card(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A bridge mixing its sessions' ids: the write of the file only an open card of sess-1
    shows names sess-2. ACP-1 at the write, naming the card; the write is still that card's,
    so a text it does not show is RW-1 at its end. A write no card of any session shows is not
    judged (a call may write a file its card shows no diff of)."""
    written = _write_file(4, "x = 2\n", EDITED)
    written[0]["params"]["sessionId"] = "sess-2"
    shown = [_prompt(1), _edit_card("x = 1", "x = 2"), *written]
    code, log = _check(tmp_path, shown, capsys)
    assert (code, _rules(log)) == (1, [("ACP-1", 3)])
    assert log["violations"][0]["message"].startswith(
        'the fs/write_text_file names the session "sess-2", but the one open card showing a '
        'diff of "/workspace/a.py" is call_1\'s, in the session "sess-1" (line 2)'
    )
    written[0]["params"]["content"] = "x = 3\n"
    code, log = _check(tmp_path, [*shown, _status("call_1", "completed")], capsys)
    assert _rules(log) == [("ACP-1", 3), ("RW-1", 5)]
    unshown = [_prompt(1), _card("call_1", {"command": "ls"}), *written]
    code, log = _check(tmp_path, unshown, capsys)
    assert (code, log["violations"]) == (0, [])


def test_ADJ_3_check_acp_recording_says_a_cancel_came_before_an_end_turn_answer(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A prompt answered end_turn after the editor's cancel, a card still open: ADJ-3, whose
    words name the cancel (the agent either answered before reading it, leaving the card open,
    or read it and should have answered cancelled). Its cards ended, end_turn after a cancel
    is not judged: the two may cross on the pipe."""
    shown = [_prompt(1), _card("call_1", {"command": "ls"}), _cancel()]
    code, log = _check(tmp_path, [*shown, _stop(1, "end_turn")], capsys)
    assert (code, _rules(log)) == (1, [("ADJ-3", 4)])
    assert log["violations"][0]["event_lines"] == [4, 2, 3]
    message = log["violations"][0]["message"]
    assert "; the editor's session/cancel (line 3) came before this answer: an agent" in message
    ended = [*shown, _status("call_1", "completed"), _stop(1, "end_turn")]
    code, log = _check(tmp_path, ended, capsys)
    assert (code, log["violations"]) == (0, [])
    again = [*ended, _prompt(2), _card("call_2", {"command": "pwd"}), _stop(2, "end_turn")]
    code, log = _check(tmp_path, again, capsys)
    assert "session/cancel" not in log["violations"][0]["message"]


def test_RW_1_check_acp_recording_passes_a_diff_written_with_the_files_line_breaks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A bridge keeping a CRLF file's line breaks, or Claude Code's Edit the file's typographic
    quotes, writes the card's new text with them: the change shown is the change made, and
    is not blamed. Another text written is RW-1, as is a last line break dropped."""
    card = _edit_card("x = 1\ny = 0", "x = 2\ny = '1'")
    ended = [_status("call_1", "completed"), _stop(1, "end_turn")]
    for kept in ("x = 2\r\ny = '1'\r\n", "x = 2\ny = \u20181\u2019\n"):
        written = _write_file(3, kept, EDITED)
        code, log = _check(tmp_path, [_prompt(1), card, *written, *ended], capsys)
        assert (code, log["violations"]) == (0, [])
    card = _edit_card("x = 1\n", "x = 2\n")
    for other in ("x = 3\r\n", "x = 2"):
        written = _write_file(3, other, EDITED)
        code, log = _check(tmp_path, [_prompt(1), card, *written, *ended], capsys)
        assert (code, _rules(log)) == (1, [("RW-1", 5)])


def _created(request: int, command: str) -> list[dict[str, Any]]:
    """The bridge's terminal/create for `command` and the editor's answer (term_1)."""
    params = {"sessionId": SESSION, "command": command}
    return [
        {"jsonrpc": "2.0", "id": request, "method": "terminal/create", "params": params},
        {"jsonrpc": "2.0", "id": request, "result": {"terminalId": "term_1"}},
    ]


def test_DEC_2_check_acp_recording_blames_a_refused_command_run_in_a_terminal_not_shown(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A bridge whose refusal falls through to running the command, its card ended `failed`
    without the terminal: DEC-2 at the terminal/create of the command only the refused card
    shows, as for a write; the card then embedding it is not blamed again. Unanswered, it is
    DEC-2 too; a card allowed to run the same command, or another command, is not blamed."""
    failed = [_status("call_1", "failed"), _stop(1, "end_turn")]
    code, log = _check(tmp_path, [*_refused(), *_created(5, "rm -rf build"), *failed], capsys)
    assert (code, _rules(log)) == (1, [("DEC-2", 5)])
    assert log["violations"][0]["event_lines"] == [5, 4]
    assert log["violations"][0]["message"].startswith(
        'the editor was asked to create a terminal running "rm -rf build", which only '
        "call_1's card shows as its command, after its permission request was answered with "
        '"reject"'
    )
    shown = _update(
        {
            "toolCallId": "call_1",
            "sessionUpdate": "tool_call_update",
            "content": [{"type": "terminal", "terminalId": "term_1"}],
        }
    )
    code, log = _check(
        tmp_path, [*_refused(), *_created(5, "rm -rf build"), shown, *failed], capsys
    )
    assert _rules(log) == [("DEC-2", 5)]
    code, log = _check(tmp_path, [*_refused()[:3], *_created(5, "rm -rf build")], capsys)
    assert _rules(log) == [("DEC-2", 4)]
    assert "while its permission request (line 3) was unanswered" in log["violations"][0]["message"]
    allowed = [*_refused("allow"), *_created(5, "rm -rf build"), *failed]
    code, log = _check(tmp_path, allowed, capsys)
    assert (code, log["violations"]) == (0, [])
    code, log = _check(tmp_path, [*_refused(), *_created(5, "ls"), *failed], capsys)
    assert (code, log["violations"]) == (0, [])


def test_DEC_2_check_acp_recording_blames_a_refused_call_run_after_its_card_ended_failed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A bridge that ends a refused card failed, then runs the call it had queued anyway: the
    terminal of the command, or the write of the file, that only that card of the turn shows
    (its diff's change made) is DEC-2's there, naming the end, where check passed it: no open
    card showed it. Allowed, or another command or text, it passes."""
    failed = _status("call_1", "failed")
    code, log = _check(tmp_path, [*_refused(), failed, *_created(5, "rm -rf build")], capsys)
    assert (code, _rules(log)) == (1, [("DEC-2", 6)])
    assert log["violations"][0]["message"].startswith(
        'the editor was asked to create a terminal running "rm -rf build", which only '
        "call_1's card shows as its command, ended failed at line 5, after its permission "
        'request was answered with "reject"'
    )
    code, log = _check(tmp_path, [*_refused(), failed, *_created(5, "ls")], capsys)
    assert (code, log["violations"]) == (0, [])
    shown = _write_card([])
    asked = _refusable({"toolCallId": "call_1", "rawInput": shown["params"]["update"]["rawInput"]})
    refused = [_prompt(1), shown, asked, _answer(0, "reject"), failed]
    code, log = _check(tmp_path, [*refused, *_write_file(1, "hello\n")], capsys)
    assert (code, _rules(log)) == (1, [("DEC-2", 6)])
    assert (
        "which only call_1's card shows a diff of, ended failed at line 5"
        in (log["violations"][0]["message"])
    )
    allowed = [*refused[:3], _answer(0, "allow"), failed, *_write_file(1, "hello\n")]
    for kept in ([*refused, *_write_file(1, "other\n")], allowed):
        code, log = _check(tmp_path, kept, capsys)
        assert (code, log["violations"]) == (0, [])


def test_ACP_1_check_acp_recording_blames_a_turn_answered_cancelled_that_no_one_cancelled(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A bridge answering `cancelled` for a turn it stopped itself, with no cancel of the
    editor: ACP's cancelled says the client cancelled the turn via session/cancel. ACP-1 at
    the answer, naming the prompt; a cancel of an earlier turn does not count, and one by
    ACP's `$/cancel_request` naming the prompt does."""
    shown = [_prompt(1), _card("call_1", {"command": "ls"})]
    code, log = _check(tmp_path, [*shown, _stop(1, "cancelled")], capsys)
    assert (code, _rules(log)) == (1, [("ACP-1", 3)])
    assert log["violations"][0]["event_lines"] == [3, 1]
    assert log["violations"][0]["message"].startswith(
        "the session/prompt at line 1 is answered cancelled, but the editor sent no "
        "session/cancel for its session since"
    )
    earlier = [_prompt(0), _cancel(), _stop(0, "cancelled")]
    code, log = _check(tmp_path, [*earlier, *shown, _stop(1, "cancelled")], capsys)
    assert _rules(log) == [("ACP-1", 6)]
    by_id = {"jsonrpc": "2.0", "method": "$/cancel_request", "params": {"requestId": 1}}
    code, log = _check(tmp_path, [*shown, by_id, _stop(1, "cancelled")], capsys)
    assert (code, log["violations"]) == (0, [])


def test_ACP_1_check_acp_recording_blames_a_method_that_is_no_string_without_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A message whose `method` is an array or an object (a bridge writing its method table's
    entry): ACP-1 at its line, naming what it is, where check stopped on an internal error."""
    for method, kind in ((["session/update"], "an array"), ({"name": "x"}, "an object")):
        odd = {"jsonrpc": "2.0", "id": 2, "method": method, "params": {}}
        code, log = _check(tmp_path, [_prompt(1), odd, _stop(1, "end_turn")], capsys)
        assert (code, _rules(log)) == (1, [("ACP-1", 2)])
        assert log["violations"][0]["message"] == (
            f"the message's method is {kind}, not a string: JSON-RPC names a method by one"
        )


def test_RW_1_check_acp_recording_reads_a_terminal_whose_args_hold_no_strings(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A terminal/create of a shell whose first arg is an array or an object, not a flag:
    its command is not compared with the card's (the split is no `SHELL -c LINE`), where
    check stopped on an internal error. ACP's args are strings: the request alone is ACP-1's."""
    for flag in (["-c"], {"flag": "-c"}):
        run = _terminal_run("bash", ["-c", "touch original.txt"])
        run[2]["params"]["args"][0] = flag
        code, log = _check(tmp_path, run, capsys)
        assert (code, _rules(log)) == (1, [("ACP-1", 3)])
        assert "terminal/create request is not valid ACP" in log["violations"][0]["message"]


def _ran(request: int, call: str, command: str, terminal: str) -> list[dict[str, Any]]:
    """A card for `command`, the terminal created for it (request `request`) and shown on it,
    and its end `completed`."""
    create = {"sessionId": SESSION, "command": command}
    embed = {
        "toolCallId": call,
        "sessionUpdate": "tool_call_update",
        "content": [{"type": "terminal", "terminalId": terminal}],
    }
    return [
        _card(call, {"command": command}),
        {"jsonrpc": "2.0", "id": request, "method": "terminal/create", "params": create},
        {"jsonrpc": "2.0", "id": request, "result": {"terminalId": terminal}},
        _update(embed),
        _status(call, "completed"),
    ]


def _refusable(tool_call: dict[str, Any]) -> dict[str, Any]:
    """A permission request (id 0) for `tool_call` offering an allow and a reject."""
    asked = _asking(tool_call)
    asked["params"]["options"].append(
        {"kind": "reject_once", "name": "Reject", "optionId": "reject"}
    )
    return asked


def test_ABORT_1_check_acp_recording_blames_a_call_started_after_the_agent_read_the_cancel(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A bridge that drops the editor's session/cancel and runs the rest of its batch: the
    cancel and the agent's messages cross on the pipe, so a call started after the cancel is
    judged only once the agent named something the editor answered after it (the terminal of
    `make`, created after the cancel): the next call's terminal/create is ABORT-1 there, once,
    naming the cancel and that message; so is a card shown after it that ends completed
    without a terminal. The first call after the cancel is not blamed: it may have started
    before the agent read the cancel."""
    first = _ran(0, "call_1", "sleep 1", "term_1")
    started = [_prompt(1), *first[:4], _cancel(), first[4], *_ran(1, "call_2", "make", "term_2")]
    rest = [*_ran(2, "call_3", "make install", "term_3"), _stop(1, "cancelled")]
    code, log = _check(tmp_path, [*started, *rest], capsys)
    assert (code, _rules(log)) == (1, [("ABORT-1", 14)])
    assert log["violations"][0]["event_lines"] == [14, 6, 11]
    assert log["violations"][0]["message"] == (
        'the agent asked the editor to create a terminal running "make install" after the '
        "editor's session/cancel (line 6), which it had read: line 11 names the terminal "
        '"term_2", created by the editor\'s answer at line 10, after the cancel: after a cancel '
        "no call starts"
    )
    code, log = _check(tmp_path, [*started, _stop(1, "cancelled")], capsys)
    assert (code, log["violations"]) == (0, [])
    unrun = [_card("call_3", {"command": "echo"}), _status("call_3", "completed")]
    code, log = _check(tmp_path, [*started, *unrun, _stop(1, "cancelled")], capsys)
    assert _rules(log) == [("ABORT-1", 14)]
    assert log["violations"][0]["message"].startswith(
        "call_3 ended completed, its card first shown at line 13 after the editor's "
        "session/cancel (line 6)"
    )


def _embed(call: str, *terminals: str) -> dict[str, Any]:
    content = [{"type": "terminal", "terminalId": terminal} for terminal in terminals]
    return _update({"toolCallId": call, "sessionUpdate": "tool_call_update", "content": content})


def test_ABORT_1_check_acp_recording_leaves_a_call_running_before_the_cancel_its_terminals(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A call whose terminal was made before the agent read the cancel started before it: its
    card shown late (ACP lets a card come once its call ran) ending completed, and a second
    terminal of its own after the proof (its command again, or one embedded by its card), are
    no call started. A terminal no card's command places, made while such a call runs, is
    judged by the card that embeds it: a card that ran nothing before is ABORT-1's there."""
    create = _request(0, "terminal/create", {"sessionId": SESSION, "command": "make"})
    made = [create, _result(0, {"terminalId": "term_1"})]
    late = _card("call_1", {"command": "make"}, "in_progress")
    late["params"]["update"]["content"] = [{"type": "terminal", "terminalId": "term_1"}]
    proof = _ran(1, "call_2", "make test", "term_2")
    shown_late = [_prompt(1), *made, _cancel(), *proof, late, _status("call_1", "completed")]
    code, log = _check(tmp_path, [*shown_late, _stop(1, "cancelled")], capsys)
    assert (code, log["violations"]) == (0, [])
    third = _result(2, {"terminalId": "term_3"})
    end = [_status("call_1", "completed"), proof[4], _stop(1, "cancelled")]
    # A card whose command a terminal runs again, and one (a script's) with no command.
    for raw_input, command in (({"command": "make"}, "make"), ({"script": "b.sh"}, "make b")):
        running = [_prompt(1), _card("call_1", raw_input), *made, _embed("call_1", "term_1")]
        crossed = [*running, _cancel(), *proof[:4]]
        second = _request(2, "terminal/create", {"sessionId": SESSION, "command": command})
        ran = [*crossed, second, third, _embed("call_1", "term_1", "term_3"), *end]
        code, log = _check(tmp_path, ran, capsys)
        assert (code, log["violations"]) == (0, [])
    other = [_card("call_3", {"command": "make check"}), _embed("call_3", "term_3")]
    code, log = _check(tmp_path, [*crossed, second, third, *other, *end], capsys)
    assert (code, _rules(log)) == (1, [("ABORT-1", 14)])
    assert log["violations"][0]["event_lines"] == [14, 11, 6, 10]
    assert log["violations"][0]["message"].startswith(
        'the agent asked the editor to create a terminal running "make b" after the '
        "editor's session/cancel (line 6), which it had read: line 10 names"
    )


def test_DEC_2_check_acp_recording_blames_a_write_made_before_the_card_that_asks_for_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A bridge that writes the file as soon as the model's input is whole, then shows the
    card and asks: the write, which no open card showed, holds the text the card then shows
    of that file, so it was the card's call's, run before its permission request (DEC-2 where
    the card ends, refused). Not asked, or showing another change than the write made, it is
    not judged: ACP lets a card come once its call ran, and a write names no call."""
    asked = _refusable({"toolCallId": "call_1", "rawInput": {"file_path": NEW_FILE}})
    refused = [asked, _answer(0, "reject"), _status("call_1", "failed"), _stop(1, "end_turn")]
    written = [_prompt(1), *_write_file(0, "hello\n"), _write_card([])]
    code, log = _check(tmp_path, [*written, *refused], capsys)
    assert (code, _rules(log)) == (1, [("DEC-2", 7)])
    assert log["violations"][0]["message"] == (
        'call_1 ended with the editor asked to write "/workspace/new.txt" (line 2) before its '
        "permission request (line 5): a call runs only once allowed"
    )
    unasked = [_status("call_1", "completed"), _stop(1, "end_turn")]
    code, log = _check(tmp_path, [*written, *unasked], capsys)
    assert (code, log["violations"]) == (0, [])
    other = [_prompt(1), *_write_file(0, "other\n"), _write_card([]), *refused]
    code, log = _check(tmp_path, other, capsys)
    assert (code, log["violations"]) == (0, [])
    # An earlier write (another call's, shown by no diff) already holding the Edit's new text,
    # its old text still there: not the Edit's change.
    earlier = [_prompt(1), *_write_file(0, "x = 1\ny = 2\n", EDITED), _edit_card("x = 1", "y = 2")]
    code, log = _check(tmp_path, [*earlier, *refused], capsys)
    assert (code, log["violations"]) == (0, [])
    made = [_prompt(1), *_write_file(0, "y = 2\n", EDITED), _edit_card("x = 1", "y = 2")]
    code, log = _check(tmp_path, [*made, *refused], capsys)
    assert _rules(log) == [("DEC-2", 7)]


def test_ACP_1_check_acp_recording_reads_the_agents_cancel_request_as_withdrawing_its_own(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each side numbers its own requests: a bridge that gives up waiting for its permission
    request (id 0) withdraws it with `$/cancel_request` naming 0, the id of the editor's
    prompt too, and answers the prompt `cancelled` itself. Read as the agent's withdrawal, not
    the editor's cancel: ACP-1 at the answer, naming both. Once the agent's request was
    answered, a `$/cancel_request` naming the prompt's id is the editor's cancel."""
    withdraw = {"jsonrpc": "2.0", "method": "$/cancel_request", "params": {"requestId": 0}}
    refused = {"jsonrpc": "2.0", "id": 0, "error": {"code": -32800, "message": "cancelled"}}
    shown = [_prompt(0), _card("call_1", {"command": "ls"})]
    asked = _asking({"toolCallId": "call_1", "rawInput": {"command": "ls"}})
    ended = [_status("call_1", "failed"), _stop(0, "cancelled")]
    code, log = _check(tmp_path, [*shown, asked, withdraw, refused, *ended], capsys)
    assert (code, _rules(log)) == (1, [("ACP-1", 7)])
    assert log["violations"][0]["event_lines"] == [7, 1, 4, 3]
    assert log["violations"][0]["message"].endswith(
        "; the $/cancel_request at line 4 withdrew the agent's request of that id (line 3): "
        "each side numbers its own"
    )
    code, log = _check(tmp_path, [*shown, asked, _answer(0, "allow"), withdraw, *ended], capsys)
    assert (code, log["violations"]) == (0, [])


def test_ACP_1_check_acp_recording_blames_a_replay_sent_after_the_load_was_answered(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A bridge that answers session/load, then replays the history: its cards come in no
    turn, where ACP has the replay before the answer. ACP-1 at the first, once a load; a
    prompt's cards after it are judged as any."""
    load = {"sessionId": SESSION, "cwd": "/workspace", "mcpServers": []}
    late = [
        {"jsonrpc": "2.0", "id": 5, "method": "session/load", "params": load},
        {"jsonrpc": "2.0", "id": 5, "result": {}},
        _card("call_1", {"command": "ls"}),
        _status("call_1", "completed"),
        _card("call_2", {"command": "pwd"}),
        _status("call_2", "completed"),
    ]
    turn = [_prompt(1), *_ran(0, "call_3", "make", "term_1"), _stop(1, "end_turn")]
    code, log = _check(tmp_path, [*late, *turn], capsys)
    assert (code, _rules(log)) == (1, [("ACP-1", 3)])
    assert log["violations"][0]["message"] == (
        "the tool_call for call_1 comes after the session/load was answered (line 2) and "
        "before any prompt: an agent replays a loaded session's history before it answers the "
        "load, and shows a new call only within a prompt turn"
    )


def test_ACP_1_check_acp_recording_blames_a_call_shown_between_two_turns(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A bridge showing a background call after it answered the prompt and before the next:
    the call is in no turn, and a card left running there was judged by none (check passed
    it). ACP-1 at the first such tool_call, once between two turns, as after a load; the
    next turn's cards are judged as any."""
    first = [_prompt(1), *_ran(0, "call_1", "make", "term_1"), _stop(1, "end_turn")]
    late = [_card("bg_1", {"command": "tail -f log"}), _card("bg_2", {"command": "top"})]
    second = [_prompt(2), *_ran(1, "call_2", "ls", "term_2"), _stop(2, "end_turn")]
    code, log = _check(tmp_path, [*first, *late, *second], capsys)
    assert (code, _rules(log)) == (1, [("ACP-1", 8)])
    assert log["violations"][0]["message"] == (
        "the tool_call for bg_1 comes after the session/prompt was answered (line 7) and "
        "before the next prompt: an agent shows a call only within a prompt turn, which its "
        "answer ends, and the editor has no turn to end this card"
    )
    code, log = _check(tmp_path, [*first, *second], capsys)
    assert (code, log["violations"]) == (0, [])
    # Before the first prompt of a session the editor opened: in no turn either.
    opened = [*_fixture()[:4], *late[:1], _prompt(2), _stop(2, "end_turn")]
    code, log = _check(tmp_path, opened, capsys)
    assert (code, _rules(log)) == (1, [("ACP-1", 5)])
    assert log["violations"][0]["message"].startswith(
        "the tool_call for bg_1 comes after the session/new was answered (line 4) and before "
        "any prompt"
    )


def test_RW_1_check_acp_recording_blames_a_diff_of_another_folder_than_the_file_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A bridge resolving a Write's path against its own working folder for the card: the
    card's diff shows /tmp/new.txt while the editor is asked to write /workspace/new.txt,
    which the card's rawInput names. The write is that card's: RW-1 where it ends; refused,
    the write is DEC-2's at once."""
    card = _write_card([])
    card["params"]["update"]["content"][0]["path"] = "/tmp/new.txt"
    ended = [_status("call_1", "completed"), _stop(1, "end_turn")]
    code, log = _check(tmp_path, [_prompt(1), card, *_write_file(0, "hello\n"), *ended], capsys)
    assert (code, _rules(log)) == (1, [("RW-1", 5)])
    assert log["violations"][0]["message"].startswith(
        'call_1 ended showing a diff of "/tmp/new.txt", but the editor was asked to write '
        '"/workspace/new.txt" for it (line 3)'
    )
    asked = _refusable({"toolCallId": "call_1", "rawInput": {"file_path": NEW_FILE}})
    refused = [_prompt(1), card, asked, _answer(0, "reject"), *_write_file(1, "hello\n")]
    code, log = _check(tmp_path, refused, capsys)
    assert _rules(log) == [("DEC-2", 5)]
    words = log["violations"][0]["message"]
    assert "which only call_1's card names in its rawInput, after" in words


def test_DEC_2_check_acp_recording_blames_a_turn_answered_while_its_permission_request_waits(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A bridge that stops waiting for its permission request, ends the card `failed` and
    answers the prompt `end_turn`, leaving the editor asking about a turn that ended: DEC-2
    at the answer, naming the request. Withdrawn with `$/cancel_request` first, or answered
    `cancelled` after the editor's cancel (the editor answers its requests then), it is not
    blamed; nor is a call already blamed for running unapproved, blamed once."""
    asked = [_prompt(1), _card("call_1", {"command": "ls"}), _refusable({"toolCallId": "call_1"})]
    failed = _status("call_1", "failed")
    code, log = _check(tmp_path, [*asked, failed, _stop(1, "end_turn")], capsys)
    assert (code, _rules(log)) == (1, [("DEC-2", 5)])
    assert log["violations"][0]["message"] == (
        'the session/prompt at line 1 is answered "end_turn" while the permission request '
        "about call_1 (line 3) is unanswered: a request is pending no longer than its call's "
        "turn, and the editor still asks about it (an agent that stops waiting withdraws it "
        "with $/cancel_request)"
    )
    withdraw = {"jsonrpc": "2.0", "method": "$/cancel_request", "params": {"requestId": 0}}
    code, log = _check(tmp_path, [*asked, withdraw, failed, _stop(1, "end_turn")], capsys)
    assert (code, log["violations"]) == (0, [])
    code, log = _check(tmp_path, [*asked, _cancel(), failed, _stop(1, "cancelled")], capsys)
    assert (code, log["violations"]) == (0, [])


def test_ACP_1_check_acp_recording_blames_a_terminal_request_after_its_release(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A bridge asking for a terminal's output after it released it (its cleanup run before
    the last read): ACP makes a released terminal's id invalid for every terminal request.
    ACP-1 there, naming the release; a release alone, or a request before it, passes."""
    terminal = {"sessionId": SESSION, "terminalId": "term_1"}
    run = _ran(0, "call_1", "make", "term_1")
    release = [
        {"jsonrpc": "2.0", "id": 1, "method": "terminal/release", "params": terminal},
        {"jsonrpc": "2.0", "id": 1, "result": {}},
    ]
    output = [
        {"jsonrpc": "2.0", "id": 2, "method": "terminal/output", "params": terminal},
        {"jsonrpc": "2.0", "id": 2, "error": {"code": -32602, "message": "no terminal"}},
    ]
    late = [_prompt(1), *run[:4], *release, *output, run[4], _stop(1, "end_turn")]
    code, log = _check(tmp_path, late, capsys)
    assert (code, _rules(log)) == (1, [("ACP-1", 8)])
    assert log["violations"][0]["message"] == (
        'the terminal/output names the terminal "term_1", which the agent released at line '
        "6: a released terminal's id names none for any terminal request"
    )
    early = [_prompt(1), *run[:4], *output, *release, run[4], _stop(1, "end_turn")]
    code, log = _check(tmp_path, early, capsys)
    assert (code, log["violations"]) == (0, [])


def _result(request: int | str, result: object) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request, "result": result}


def _request(request: int | str, method: str, params: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request, "method": method, "params": params}


def test_ACP_1_check_acp_recording_holds_the_agents_answers_to_acps_schema(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An agent's answer to the editor's initialize, session/new, session/set_mode or prompt,
    or its JSON-RPC error, that the pinned ACP schema refuses (an editor cannot read the
    session's id, the protocol version): ACP-1 at the answer, naming the method, the request's
    line and the field. A null answer where ACP's SDK reads one as {} passes."""
    initialize, initialized, new, _created = _fixture()[:4]
    set_mode = _request(3, "session/set_mode", {"sessionId": SESSION, "modeId": "plan"})
    fine = [initialize, initialized, new, _result(2, {"sessionId": SESSION}), set_mode]
    code, log = _check(
        tmp_path, [*fine, _result(3, None), _prompt(4), _stop(4, "end_turn")], capsys
    )
    assert (code, log["violations"]) == (0, [])
    broken = [
        initialize,
        _result(1, {"protocolVersion": "1"}),
        new,
        _result(2, {"session": SESSION}),
        set_mode,
        _result(3, "done"),
        _prompt(4),
        _result(4, {"stop": "end_turn"}),
        _prompt(5),
        {"jsonrpc": "2.0", "id": 5, "error": {"code": "overloaded"}},
    ]
    code, log = _check(tmp_path, broken, capsys)
    assert (code, _rules(log)) == (
        1,
        [("ACP-1", 2), ("ACP-1", 4), ("ACP-1", 6), ("ACP-1", 8), ("ACP-1", 10)],
    )
    messages = [violation["message"] for violation in log["violations"]]
    assert messages[0] == (
        "the agent's answer to the editor's initialize (line 1) is not valid ACP: schema: at "
        '$.protocolVersion: "1" is not of type "integer"'
    )
    assert messages[1] == (
        "the agent's answer to the editor's session/new (line 3) is not valid ACP: schema: at "
        '$: "sessionId" is a required property'
    )
    assert "session/set_mode (line 5)" in messages[2]
    assert 'at $: "stopReason" is a required property' in messages[3]
    assert messages[4].startswith(
        "the agent's error answering the editor's session/prompt (line 9)"
    )
    assert log["violations"][1]["event_lines"] == [4, 3]
    both = {**_result(2, {"sessionId": SESSION}), "error": {"code": -32603, "message": "x"}}
    code, log = _check(tmp_path, [initialize, {"jsonrpc": "2.0", "id": 1}, new, both], capsys)
    assert (code, _rules(log)) == (1, [("ACP-1", 2), ("ACP-1", 4)])
    assert log["violations"][0]["message"].endswith(
        "it holds no result nor error, where JSON-RPC has exactly one"
    )
    assert "holds both a result and an error" in log["violations"][1]["message"]


def test_ACP_1_check_acp_recording_holds_the_agents_file_and_terminal_requests_to_acps_schema(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An agent's fs/* or terminal/* request whose params the pinned ACP schema refuses (no
    sessionId, a command given as a list): ACP-1 at the request, naming the method and field."""
    initialize, initialized, new, created = _fixture()[:4]
    initialize = copy.deepcopy(initialize)
    initialize["params"]["clientCapabilities"] = {
        "fs": {"readTextFile": True, "writeTextFile": True},
        "terminal": True,
    }
    start = [initialize, initialized, new, created, _prompt(3)]
    read = _request(0, "fs/read_text_file", {"sessionId": SESSION, "path": "/workspace/a"})
    create = _request(1, "terminal/create", {"sessionId": SESSION, "command": "make"})
    answers = [_result(0, {"content": "a"}), _result(1, {"terminalId": "t1"})]
    good = [*start, read, create, *answers, _stop(3, "end_turn")]
    code, log = _check(tmp_path, good, capsys)
    assert (code, log["violations"]) == (0, [])
    del read["params"]["sessionId"]
    create["params"]["command"] = ["make"]
    code, log = _check(tmp_path, [*start, read, create, *answers, _stop(3, "end_turn")], capsys)
    assert (code, _rules(log)) == (1, [("ACP-1", 6), ("ACP-1", 7)])
    assert [violation["message"] for violation in log["violations"]] == [
        'the agent\'s fs/read_text_file request is not valid ACP: schema: at $: "sessionId" is '
        "a required property",
        "the agent's terminal/create request is not valid ACP: schema: at $.command: "
        '["make"] is not of type "string"',
    ]


def test_ACP_1_check_acp_recording_reads_an_id_both_sides_await_by_what_the_answer_fits(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each side numbers its own requests: the editor's answer to the agent's read, under the
    id of the editor's pending session/load, is not the agent's answer to the load (its
    `content` is no fault there); the agent's answer after it is still held to the schema."""
    initialize, initialized = _fixture()[:2]
    initialize = copy.deepcopy(initialize)
    initialize["params"]["clientCapabilities"]["fs"]["readTextFile"] = True
    load_params = {"sessionId": SESSION, "cwd": "/workspace", "mcpServers": []}
    load = _request(2, "session/load", load_params)
    read = _request(2, "fs/read_text_file", {"sessionId": SESSION, "path": "/workspace/a"})
    crossed = [initialize, initialized, load, read, _result(2, {"content": "a"})]
    code, log = _check(tmp_path, [*crossed, _result(2, {})], capsys)
    assert (code, log["violations"]) == (0, [])
    code, log = _check(tmp_path, [*crossed, _result(2, {"modes": "plan"})], capsys)
    assert (code, _rules(log)) == (1, [("ACP-1", 6)])
    assert "the editor's session/load (line 3)" in log["violations"][0]["message"]


def test_ACP_1_check_acp_recording_blames_an_agents_request_the_editor_cannot_answer(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A request of the agent's sent with no id (a notification, never answered) or an id ACP
    does not have (1.5), and a session/update sent with an id (ACP's is a notification): ACP-1
    at each. A string id, and a session/update without one, pass."""
    initialize, initialized, new, created = _fixture()[:4]
    initialize = copy.deepcopy(initialize)
    initialize["params"]["clientCapabilities"]["fs"]["readTextFile"] = True
    read = _request(0, "fs/read_text_file", {"sessionId": SESSION, "path": "/workspace/a"})
    chunk = _update(
        {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "a"}}
    )
    start = [initialize, initialized, new, created, _prompt(3)]
    fine = [{**read, "id": "r1"}, _result("r1", {"content": "a"}), chunk]
    code, log = _check(tmp_path, [*start, *fine, _stop(3, "end_turn")], capsys)
    assert (code, log["violations"]) == (0, [])
    unnumbered = {key: value for key, value in read.items() if key != "id"}
    broken = [unnumbered, {**read, "id": 1.5}, {**chunk, "id": 9}, _stop(3, "end_turn")]
    code, log = _check(tmp_path, [*start, *broken], capsys)
    assert (code, _rules(log)) == (1, [("ACP-1", 6), ("ACP-1", 7), ("ACP-1", 8)])
    assert [violation["message"] for violation in log["violations"]] == [
        "the agent's fs/read_text_file carries no id: a JSON-RPC request without one is a "
        "notification, never answered",
        "the agent's fs/read_text_file carries the id 1.5, which is no integer nor string as "
        "ACP's request ids are",
        "the agent's session/update carries an id: ACP's session/update is a notification, "
        "which no one answers",
    ]


def test_ACP_1_check_acp_recording_leaves_the_answer_to_a_method_acp_lacks_unjudged(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An agent's extension request (`_zed/ping`) under the id of the editor's pending
    session/new: the editor's error answering it, which names no message, is not the agent's
    answer to session/new, and the agent's answer after it is still held to the schema."""
    initialize, initialized, new, _created = _fixture()[:4]
    ping = {"jsonrpc": "2.0", "id": 2, "method": "_zed/ping", "params": {}}
    refused = {"jsonrpc": "2.0", "id": 2, "error": {"code": -32601}}
    crossed = [initialize, initialized, new, ping, refused]
    code, log = _check(tmp_path, [*crossed, _result(2, {"sessionId": SESSION})], capsys)
    assert (code, log["violations"]) == (0, [])
    code, log = _check(tmp_path, [*crossed, _result(2, {})], capsys)
    assert (code, _rules(log)) == (1, [("ACP-1", 6)])


def test_DEC_2_check_acp_recording_reads_an_answer_choosing_no_offered_option_as_allowing_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The editor's answer to a permission request with no outcome, or selecting an id the
    request did not offer: the call is not allowed, so its end completed is DEC-2's, naming
    the answer (where check said the request was unanswered, or nothing). An allow passes."""
    request = _asking({"toolCallId": "call_1", "rawInput": {"command": "ls"}})
    start = [_prompt(1), _card("call_1", {"command": "ls"}), request]
    end = [_status("call_1", "completed"), _stop(1, "end_turn")]
    allowed = _result(0, {"outcome": {"outcome": "selected", "optionId": "allow"}})
    code, log = _check(tmp_path, [*start, allowed, *end], capsys)
    assert (code, log["violations"]) == (0, [])
    for answer, said in (
        ({"optionId": "allow"}, '{"optionId": "allow"}'),
        ({"outcome": {"outcome": "selected", "optionId": "yes"}}, '"optionId": "yes"'),
    ):
        code, log = _check(tmp_path, [*start, _result(0, answer), *end], capsys)
        assert (code, _rules(log)) == (1, [("DEC-2", 5)])
        message = log["violations"][0]["message"]
        assert message.startswith("call_1 ended completed, but its permission request was ")
        assert "answered choosing none of its options (" in message
        assert said in message


def test_ACP_1_check_acp_recording_blames_an_editors_request_the_agent_answered_twice(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The agent answering the editor's session/new again (a second session the editor never
    asked for): ACP-1 at the second answer, naming the first and the request. The editor's
    answer to the agent's read under that id, and an id the editor uses anew, pass."""
    initialize, initialized, new, created = _fixture()[:4]
    again = _result(2, {"sessionId": "sess-2"})
    code, log = _check(tmp_path, [initialize, initialized, new, created, again], capsys)
    assert (code, _rules(log)) == (1, [("ACP-1", 5)])
    assert log["violations"][0]["message"] == (
        "the editor's session/new at line 3 is answered again, after its answer at line 4: a "
        "JSON-RPC request is answered once"
    )
    assert log["violations"][0]["event_lines"] == [5, 4, 3]
    initialize = copy.deepcopy(initialize)
    initialize["params"]["clientCapabilities"]["fs"]["readTextFile"] = True
    read = _request(2, "fs/read_text_file", {"sessionId": SESSION, "path": "/workspace/a"})
    fine = [initialize, initialized, new, created, read, _result(2, {"content": "a"}), new, again]
    code, log = _check(tmp_path, fine, capsys)
    assert (code, log["violations"]) == (0, [])


def test_ACP_1_DEC_2_check_acp_recording_keeps_the_agents_request_waiting_past_its_ids_answer(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each side numbers its own requests: the agent's answer to the editor's request of an
    id its own request also holds leaves that request awaiting the editor's answer, where it
    took the request for answered. The editor's answer after it was then blamed ACP-1 as the
    agent answering again, a permission request left unanswered at the turn's end went
    unblamed (DEC-2), and a load's replay after the editor answered a read under the load's id
    was blamed ACP-1 as sent after the load was answered."""
    initialize, initialized, new, created = _fixture()[:4]
    initialize = copy.deepcopy(initialize)
    initialize["params"]["clientCapabilities"]["fs"]["readTextFile"] = True
    start = [initialize, initialized, new, created, _prompt(3)]
    read = _request(2, "fs/read_text_file", {"sessionId": SESSION, "path": "/workspace/a"})
    again = [new, read, _result(2, {"sessionId": SESSION}), _result(2, {"content": "a"})]
    code, log = _check(tmp_path, [*start, *again, _stop(3, "end_turn")], capsys)
    assert (code, log["violations"]) == (0, [])
    asked = _asking({"toolCallId": "call_1", "rawInput": {"command": "ls"}})
    set_mode = _request(0, "session/set_mode", {"sessionId": SESSION, "modeId": "plan"})
    crossed = [*start, _card("call_1", {"command": "ls"}), asked, set_mode, _result(0, {})]
    allowed = _result(0, {"outcome": {"outcome": "selected", "optionId": "allow"}})
    end = [_status("call_1", "completed"), _stop(3, "end_turn")]
    code, log = _check(tmp_path, [*crossed, allowed, *end], capsys)
    assert (code, log["violations"]) == (0, [])
    code, log = _check(
        tmp_path, [*crossed, _status("call_1", "failed"), _stop(3, "end_turn")], capsys
    )
    assert (code, _rules(log)) == (1, [("DEC-2", 11)])
    load_params = {"sessionId": SESSION, "cwd": "/workspace", "mcpServers": []}
    load = _request(2, "session/load", load_params)
    replay = [_card("call_1", {"command": "ls"}), _status("call_1", "completed")]
    loaded = [initialize, initialized, load, read, _result(2, {"content": "a"}), *replay]
    code, log = _check(tmp_path, [*loaded, _result(2, {})], capsys)
    assert (code, log["violations"]) == (0, [])


def test_REC_1_check_acp_recording_blames_a_load_whose_replay_leaves_a_card_running(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A bridge replaying a loaded session's history with a call it never answered (pending,
    in_progress) and answering the load: the editor shows the card running with no turn to end
    it, where a reopened session gives such a call a result (REC-1). Once a load, at its
    answer, naming the cards; an end sent in the next turn is not blamed again. Replayed
    ended, or answered with an error (nothing loaded), it passes. A replay running a call
    again is REC-1's too, where check passed it."""
    initialize, initialized = _fixture()[:2]
    load_params = {"sessionId": SESSION, "cwd": "/workspace", "mcpServers": []}
    load = _request(2, "session/load", load_params)
    ended = [_card("call_2", {"command": "pwd"}), _status("call_2", "completed")]
    replay = [_card("call_1", {"command": "ls"}, "in_progress"), *ended]
    late = [_prompt(3), _status("call_1", "failed"), _stop(3, "end_turn")]
    code, log = _check(
        tmp_path, [initialize, initialized, load, *replay, _result(2, {}), *late], capsys
    )
    assert (code, _rules(log)) == (1, [("REC-1", 7)])
    assert log["violations"][0]["message"] == (
        "the session/load at line 3 is answered with call_1, which its replay showed (line 4), "
        "still in_progress: a reopened session gives each call of its history without a "
        "result one (an error, its card failed), and the editor shows this card running with "
        "no turn to end it"
    )
    assert log["violations"][0]["event_lines"] == [7, 4, 3]
    assert "REC-1" in log["rules_checked_in_part"]
    closed = [*replay[:1], _status("call_1", "failed"), *ended, _result(2, {})]
    code, log = _check(tmp_path, [initialize, initialized, load, *closed], capsys)
    assert (code, log["violations"]) == (0, [])
    failed = {"jsonrpc": "2.0", "id": 2, "error": {"code": -32603, "message": "no session"}}
    code, log = _check(tmp_path, [initialize, initialized, load, *replay, failed], capsys)
    assert (code, log["violations"]) == (0, [])
    # A replay that runs a recorded call again (its terminal made anew, twice): REC-1 at the
    # first run, once a load.
    rerun = [*_ran(0, "call_1", "make", "term_1"), *_ran(1, "call_2", "ls", "term_2")]
    terminals = _initialize({"terminal": True})
    code, log = _check(tmp_path, [terminals, initialized, load, *rerun, _result(2, {})], capsys)
    assert (code, _rules(log)) == (1, [("REC-1", 5)])
    assert log["violations"][0]["message"].startswith(
        'the agent asked the editor to create a terminal running "make" while the '
        "session/load at line 3 replayed the history, before it was answered"
    )
    asked = _asking({"toolCallId": "call_1", "rawInput": {"command": "ls"}})
    code, log = _check(tmp_path, [initialize, initialized, load, *replay[:1], asked], capsys)
    assert _rules(log) == [("REC-1", 5)]
    assert log["violations"][0]["message"].startswith(
        "the agent asked the editor's permission to run call_1 while the session/load"
    )


def _misspelt(message: dict[str, Any], **changed: str) -> dict[str, Any]:
    """`message` with its method, or its update's sessionUpdate, renamed."""
    renamed = copy.deepcopy(message)
    if "kind" in changed:
        renamed["params"]["update"]["sessionUpdate"] = changed["kind"]
    if "method" in changed:
        renamed["method"] = changed["method"]
    return renamed


_NOT_FOUND = {"jsonrpc": "2.0", "id": 0, "error": {"code": -32601, "message": "Method not found"}}


@pytest.mark.parametrize(
    ("sent", "said"),
    [
        # The editor's prompt misspelt: the agent answers method-not-found.
        (
            [_misspelt(_prompt(0), method="session/prompts"), _NOT_FOUND],
            "the editor's session/prompt",
        ),
        # The agent's read misspelt, which the editor refuses.
        (
            [_request(0, "fs/read_text", {"sessionId": SESSION, "path": "/a"}), _NOT_FOUND],
            "the agent's fs/read_text_file",
        ),
        # A card shown under a misspelt method or kind: its end names a call the editor shows.
        (
            [
                _misspelt(_card("call_1", {}), method="session/udpate"),
                _status("call_1", "completed"),
            ],
            "the agent's session/update",
        ),
        (
            [_misspelt(_card("call_1", {}), kind="tool_cal"), _status("call_1", "completed")],
            '"tool_call"',
        ),
        # A card's end under a misspelt kind: the editor shows the card running, one fault.
        (
            [
                _card("call_1", {}),
                _misspelt(_status("call_1", "completed"), kind="tool_call_updat"),
            ],
            '"tool_call_update"',
        ),
        (
            [_update({"sessionUpdate": "agent_message", "content": {"type": "text", "text": "a"}})],
            '"agent_message_chunk"',
        ),
    ],
)
def test_ACP_1_check_acp_recording_names_a_misspelt_method_or_kind_and_the_nearest_real_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], sent: list[dict[str, Any]], said: str
) -> None:
    """A method or sessionUpdate kind the pinned ACP lacks whose name misspells one it has:
    ACP-1 at its line naming it and the nearest real one, where check passed it or blamed
    only what followed (ADJ-2 for the card's end, ADJ-3 for a turn its end never reached). A
    name close to none (a newer ACP's, Zed's session/set_model) is not judged, nor is an
    extension's (`_` first)."""
    code, log = _check(tmp_path, [_prompt(1), *sent, _stop(1, "end_turn")], capsys)
    misspelt = 3 if said == '"tool_call_update"' else 2  # (the card's end, after the card)
    assert (code, _rules(log)) == (1, [("ACP-1", misspelt)])
    assert f"the nearest is {said}" in log["violations"][0]["message"]


def test_ACP_1_check_acp_recording_passes_a_newer_acps_method_or_kind_and_an_extensions(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Names close to none of the pinned ACP's: a newer ACP's update kind, Zed's model picker
    (session/set_model, which is close to session/set_mode yet no misspelling of it), and an
    extension's method pass; so does session/stop, unstable ACP's name for session/close before
    it was renamed, which was ACP-1's as a misspelling of session/list."""
    newer = _update({"sessionUpdate": "future_update", "detail": 1})
    ping = {"jsonrpc": "2.0", "method": "_zed/ping_session", "params": {}}
    set_model = _request(0, "session/set_model", {"sessionId": SESSION, "modelId": "m"})
    stop = _request(2, "session/stop", {"sessionId": SESSION})
    sent = [_prompt(1), newer, ping, set_model, _result(0, None), _stop(1, "end_turn")]
    code, log = _check(tmp_path, [*sent, stop, _result(2, {})], capsys)
    assert (code, log["violations"]) == (0, [])


def test_ACP_1_the_methods_a_misspelling_is_held_to_are_the_pinned_acps() -> None:
    """The names an unknown method may misspell are the pinned ACP's (the SDK's acp.meta, each
    with the side that sends it): a newer SDK that adds or renames one fails here, so that a
    method of the older or newer ACP (kept in `_OTHER_ACP_METHODS`) is not then called a
    misspelling of its neighbour. Each of those is judged none."""
    sent_by = {
        "agent": (
            "elicitation/complete elicitation/create fs/read_text_file fs/write_text_file "
            "mcp/connect mcp/disconnect session/request_permission session/update "
            "terminal/create terminal/kill terminal/output terminal/release "
            "terminal/wait_for_exit"
        ),
        "editor": (
            "authenticate document/didChange document/didClose document/didFocus "
            "document/didOpen document/didSave initialize logout mcp/message nes/accept "
            "nes/close nes/reject nes/start nes/suggest providers/disable providers/list "
            "providers/set session/cancel session/close session/delete session/fork "
            "session/list session/load session/new session/prompt session/resume "
            "session/set_config_option session/set_mode"
        ),
        "either side": "$/cancel_request",
    }
    assert acp_strict._methods() == {
        method: side for side, names in sent_by.items() for method in names.split()
    }
    for other in sorted(acp_strict._OTHER_ACP_METHODS):
        assert other not in acp_strict._methods()
        assert acp_strict.misspelt_method(other) is None, other
    assert acp_strict.misspelt_method("session/prompts") == ("session/prompt", "editor")


def test_ACP_1_check_acp_recording_holds_more_of_the_agents_answers_to_their_shape(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The agent's answers to methods the pinned ACP has that check let pass unjudged
    (logout, providers/list), and to session/set_model, which it lacks and whose answer is an
    object with no required field: ACP-1 at a malformed one, naming the request. A null
    answer passes where the answer has no required field."""
    set_model = _request(2, "session/set_model", {"sessionId": SESSION, "modelId": "m"})
    sent = [
        set_model,
        _result(2, "ok"),
        _request(3, "logout", {}),
        _result(3, []),
        _request(4, "providers/list", {}),
        _result(4, {}),
        _request(5, "logout", {}),
        _result(5, None),
    ]
    code, log = _check(tmp_path, sent, capsys)
    assert (code, _rules(log)) == (1, [("ACP-1", 2), ("ACP-1", 4), ("ACP-1", 6)])
    assert [violation["message"] for violation in log["violations"]] == [
        "the agent's answer to the editor's session/set_model (line 1) is not valid ACP: "
        'schema: at $: "ok" is not of type "object"',
        "the agent's answer to the editor's logout (line 3) is not valid ACP: schema: at $: "
        '[] is not of type "object"',
        "the agent's answer to the editor's providers/list (line 5) is not valid ACP: schema: "
        'at $: "providers" is a required property',
    ]


def test_ACP_1_check_acp_recording_reads_session_close_as_a_cancel_and_the_session_as_closed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """ACP's session/close cancels the session's turn (as session/cancel) and frees the
    session: a prompt answered cancelled after it passes, where check blamed ACP-1 for a
    cancelled answer with no cancel; an agent's update naming the session once the close was
    answered is ACP-1's, once a close, and not judged further (its card's late end is no
    ADJ-2 besides). A load naming the session opens it again."""
    initialize, initialized, new, created = _fixture()[:4]
    close = _request(7, "session/close", {"sessionId": SESSION})
    turn = [initialize, initialized, new, created, _prompt(3), _card("call_1", {"command": "ls"})]
    closed = [*turn, close, _stop(3, "cancelled"), _result(7, {})]
    code, log = _check(tmp_path, closed, capsys)
    assert (code, log["violations"]) == (0, [])
    late = [_status("call_1", "completed"), _status("call_1", "completed")]
    code, log = _check(tmp_path, [*closed, *late], capsys)
    assert (code, _rules(log)) == (1, [("ACP-1", 10)])
    assert log["violations"][0]["message"] == (
        'the session/update names the session "sess-1", which the editor closed '
        "(session/close at line 7, answered at line 9): an agent ends a closed session's work, "
        "and the editor shows nothing more of it"
    )
    load_params = {"sessionId": SESSION, "cwd": "/workspace", "mcpServers": []}
    reopened = [
        _request(8, "session/load", load_params),
        _card("call_2", {}),
        _status("call_2", "completed"),
    ]
    code, log = _check(tmp_path, [*closed, *reopened, _result(8, {})], capsys)
    assert (code, log["violations"]) == (0, [])
