"""Hand edits of a case file, a scenario and a hooks file, as a person makes them in an editor:
each refusal is one line naming the file, the line (and the column where the fault is in the
JSON text itself), the member's path and what was expected, exit 2, never a traceback.

(tests/test_case_sharing.py and tests/test_case_from_chat.py hold the case's other edits;
this table holds those a scenario or hooks file named no line for, or that ran anyway.)
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from test_cli_run import SCENARIO as CLI_RUN_SCENARIO

from loopspec.properties.cli.main import main

CASE = Path(__file__).parent / "regressions" / "claude-code-RW-1.json"

SCENARIO = json.dumps(
    {
        "tools": [
            {
                "name": "bash",
                "concurrencySafe": False,
                "requiredKeys": ["command"],
                "inputSchema": {
                    "properties": {"command": {"type": "string"}},
                    "required": ["command"],
                },
            }
        ],
        "maxParallel": 2,
        # test_cli_run's session: the user's, the model's and the tools' parts alike.
        **{part: CLI_RUN_SCENARIO[part] for part in ("turns", "results", "approvals")},
    },
    indent=2,
)

# A scenario a real CLI can play (`run --harness`): bash calls, no results or approvals.
HARNESS_SCENARIO = json.dumps(
    {
        "turns": [
            {
                "user": "list",
                "crashAfterSeconds": 2,
                "cutAfterFile": "running.flag",
                "replies": [
                    {
                        "blocks": [
                            {
                                "type": "tool-call",
                                "id": "c1",
                                "name": "bash",
                                "arguments": '{"command": "touch running.flag; sleep 5"}',
                            }
                        ],
                        "finish": "completed",
                    }
                ],
            },
            {"user": "again", "replies": []},
        ]
    },
    indent=2,
)

SETTINGS = json.dumps(
    {
        "hooks": {
            "PreToolUse": [
                {"matcher": "Bash", "hooks": [{"type": "command", "command": "true", "timeout": 5}]}
            ]
        }
    },
    indent=2,
)


def _edit(old: str, new: str) -> Callable[[str], str]:
    def edited(text: str) -> str:
        assert old in text, old
        return text.replace(old, new, 1)

    return edited


_DEEP = "[" * 300 + "]" * 300
_DEEPER_THAN_THE_STACK = "[" * 100_000 + "]" * 100_000
_MEMBERS = "tools, maxParallel, cwd, turns, results, approvals, defaultApproval"
_HANDLER = "$.hooks.PreToolUse[0].hooks[0]"
_NO_EVENT = (
    "no hook event (did you mean PreToolUse?); loopspec runs PreToolUse and PostToolUse, and "
    "leaves the others Claude Code and Codex have (Stop, SessionStart...)"
)
_PROMPT = '"type": "prompt",\n            "prompt": "safe?"'
_NOT_A_HANDLER_MEMBER = (
    "not a member of a hook handler loopspec reads (did you mean {}?); it reads type, command, "
    "timeout, failClosed, and leaves alone the others real settings hold"
)

# (file edited, the edit, what follows `loopspec: error: ` (the file as FILE), or "" when the
# edited file is run: exit 0).
EDITS: dict[str, tuple[str, Callable[[str], str], str]] = {
    # A call's arguments (a string) holding JSON nested deeper than the stack: replay under
    # the claude-code and codex profiles ended in a RecursionError's traceback, exit 3.
    "case: arguments nested past the stack": (
        "case",
        _edit('"{\\"command\\":\\"ls\\"}"', f'"{_DEEPER_THAN_THE_STACK}"'),
        "",
    ),
    "case: nested too deeply": (
        "case",
        _edit('"command": "echo rewritten"', f'"command": {_DEEP}'),
        "[SAFE-4] FILE:91: the case file is refused: JSON nested deeper than 200 levels: "
        "column 217",
    ),
    "case: a number as a string": (
        "case",
        _edit('"maxParallel": 1', '"maxParallel": "1"'),
        '[PROTO-1] FILE:60: $.config.maxParallel must be an integer, not "1"',
    ),
    "case: an object for a string": (
        "case",
        _edit('"arguments": "{\\"command\\":\\"ls\\"}"', '"arguments": {"command": "ls"}'),
        # A call's arguments written as the object: said as the string the model writes.
        "[PROTO-1] FILE:82: $.commands[1].blocks[1].arguments must be a string, not an object: "
        "a call's arguments are the model's raw text, the JSON written as a string, "
        '"{\\"command\\": \\"ls\\"}"',
    ),
    "case: a list around the case": (
        "case",
        lambda text: f"[{text}]",
        "FILE:1: $ must be an object, not an array: a loopspec case file is one JSON object",
    ),
    "case: a boolean as a string": (
        "case",
        _edit('"ok": true', '"ok": "true"'),
        '[PROTO-1] FILE:105: $.commands[4].outcome.ok must be true or false, not "true" (did '
        "you mean true?)",
    ),
    "case: a quote left unescaped": (
        "case",
        _edit('"text": "A"', '"text": "say "A""'),
        "FILE:106: the case file is not JSON: a string's closing quote (\") is followed by more "
        'text: a " inside a string is written \\": column 23',
    ),
    "scenario: a comma left by a cut": (
        "scenario",
        _edit('"text": "removed"', '"text": "removed",'),
        "FILE:52: the scenario is not JSON: a comma before the closing } (left behind when what "
        "followed it was cut?): delete it: column 24",
    ),
    # Replayed with a profile whose implementation cannot take the case: the command was named
    # by its number alone, where a fault of the case's own names its line.
    "case: a profile that cannot replay it": (
        "case --profile dsh",
        lambda text: text,
        "FILE:86: command #3 of the case (HookAnswers) needs the capability rewrite, which the "
        "dsh profile's implementation (@deepseek-ai/dsh-agent-loop@0.1.0-rc.8 through "
        "examples/dsh-adapter) does not declare: the profile does not describe it, so the case "
        "cannot be replayed with it (replay with the profile of the implementation the case was "
        "recorded on, or --profile none to compare whole)",
    ),
    "scenario: a member misspelt": (
        "scenario",
        _edit('"tools"', '"tool"'),
        f"FILE:2: $.tool is not a member here (did you mean tools?); the members here are "
        f"{_MEMBERS}",
    ),
    "scenario: a member added to a turn": (
        "scenario",
        _edit('"user": "clean the build",', '"user": "clean the build", "note": "x",'),
        "FILE:24: $.turns[0].note is not a member here; the members here are user, replies, "
        "crashAfterSeconds, abortAfterSeconds, cutAfterFile",
    ),
    "scenario: a number as a string": (
        "scenario",
        _edit('"maxParallel": 2', '"maxParallel": "2"'),
        'FILE:21: $.maxParallel must be an integer, not "2"',
    ),
    "scenario: a result's call renamed": (
        "scenario",
        _edit('"results": {\n    "c1"', '"results": {\n    "c2"'),
        "FILE:50: $.results.c2 names no call the replies make; the calls are c1",
    ),
    "scenario: an approval's call renamed": (
        "scenario",
        _edit('"approvals": {\n    "c1"', '"approvals": {\n    "c9"'),
        "FILE:56: $.approvals.c9 names no call the replies make; the calls are c1",
    ),
    "scenario: a result's boolean as a string": (
        "scenario",
        _edit('"ok": true', '"ok": "true"'),
        '[PROTO-1] FILE:51: $.results.c1.ok must be true or false, not "true" (did you mean true?)',
    ),
    "scenario: nested too deeply": (
        "scenario",
        _edit('"text": "removed"', f'"text": {_DEEP}'),
        "[SAFE-4] FILE:52: the scenario is refused: JSON nested deeper than 200 levels: column 212",
    ),
    # `run --harness`'s own refusals of a scenario named the file and the path, no line.
    "harness scenario: results kept": (
        "scenario --harness",
        lambda text: SCENARIO,
        "FILE:49: $.results does not apply to a real harness: the command itself decides a "
        "call's output and timing, the hooks decide approval; take it out",
    ),
    "harness scenario: a tool not bash": (
        "scenario --harness",
        _edit('"name": "bash"', '"name": "Grep"'),
        'FILE:13: $.turns[0].replies[0].blocks[0].name is "Grep": a harness run drives only '
        "calls of bash (the CLI's shell tool), and on claude-code of read, write and edit (its "
        "Read, Write and Edit)",
    ),
    "harness scenario: arguments without a command": (
        "scenario --harness",
        _edit('{\\"command\\": \\"touch', '{\\"cmd\\": \\"touch'),
        "FILE:14: $.turns[0].replies[0].blocks[0].arguments must be a JSON object with a "
        'string `command` (the shell command the harness runs), not "{\\"cmd\\": \\"touch '
        'running.flag; sleep 5\\"}"',
    ),
    "harness scenario: a crash time below zero": (
        "scenario --harness",
        _edit('"crashAfterSeconds": 2', '"crashAfterSeconds": -2'),
        "FILE:5: $.turns[0].crashAfterSeconds must be a positive number of seconds, not -2",
    ),
    "harness scenario: a crash and an abort": (
        "scenario --harness",
        _edit('"crashAfterSeconds": 2,', '"crashAfterSeconds": 2, "abortAfterSeconds": 1,'),
        "FILE:5: $.turns[0].abortAfterSeconds: a turn may crash (crashAfterSeconds) or abort, "
        "not both",
    ),
    "harness scenario: a cut file in another folder": (
        "scenario --harness",
        _edit('"cutAfterFile": "running.flag"', '"cutAfterFile": "../running.flag"'),
        "FILE:6: $.turns[0].cutAfterFile must be a plain file name in the working directory, "
        'not "../running.flag"',
    ),
    "harness hooks: a handler without its command": (
        "hooks --harness",
        _edit('"command": "true",', ""),
        f'FILE:7: {_HANDLER} must be a command hook, {{"type": "command", "command": "..."}}, '
        "with a string `command`",
    ),
    # The real CLI ignores a misspelt key as it does an unknown one: the harness run refuses
    # it in the bundled loop's words.
    "harness hooks: a group's matcher misspelt": (
        "hooks --harness",
        _edit('"matcher"', '"matchers"'),
        "FILE:5: $.hooks.PreToolUse[0].matchers: not a member of a matcher group loopspec "
        "reads (did you mean matcher?); it reads matcher, hooks, and leaves alone the others "
        "real settings hold",
    ),
    "hooks: a number as a string": (
        "hooks",
        _edit('"timeout": 5', '"timeout": "5"'),
        f"FILE:10: {_HANDLER}.timeout: must be a number of seconds",
    ),
    "hooks: a required member cut": (
        "hooks",
        _edit('"command": "true",', ""),
        f"FILE:7: {_HANDLER}.command: must be a non-empty string",
    ),
    "hooks: a matcher no regex": (
        "hooks",
        _edit('"matcher": "Bash"', '"matcher": "(*"'),
        "[HOOK-8] FILE:5: $.hooks.PreToolUse[0].matcher: not a valid regex: nothing to repeat "
        "at position 1",
    ),
    "hooks: a quote left unescaped": (
        "hooks",
        _edit('"command": "true"', '"command": "echo "hi""'),
        "FILE:9: the hooks file is not JSON: a string's closing quote (\") is followed by more "
        'text: a " inside a string is written \\": column 31',
    ),
    # A misspelt event ran no hook, and was named only where no hook ran at all (a note);
    # in lower case (`pretooluse`, a ratio of 0.7) it was not named.
    "hooks: an event misspelt": (
        "hooks",
        _edit('"PreToolUse"', '"PreToolUs"'),
        f"FILE:3: $.hooks.PreToolUs: {_NO_EVENT}",
    ),
    "hooks: an event in lower case": (
        "hooks",
        _edit('"PreToolUse"', '"pretooluse"'),
        f"FILE:3: $.hooks.pretooluse: {_NO_EVENT}",
    ),
    # An event a letter from one of Claude Code's that loopspec does not run was left as the
    # harness's own, silently, where Claude Code drops it too: its hooks ran nowhere.
    "hooks: an event loopspec leaves alone misspelt": (
        "hooks",
        _edit('"PreToolUse": [', '"PostToolUseFailur": [], "PreToolUse": ['),
        "FILE:3: $.hooks.PostToolUseFailur: no hook event (did you mean PostToolUseFailure?): "
        "Claude Code ignores an event it does not know, and its hooks never run; loopspec runs "
        "PreToolUse and PostToolUse, and leaves the others Claude Code and Codex have",
    ),
    "harness hooks: a handler's member loopspec leaves alone misspelt": (
        "hooks --harness",
        _edit('"timeout": 5', '"timeout": 5, "statusMesage": "checking"'),
        f"FILE:10: {_HANDLER}.statusMesage: not a member of a hook handler real settings hold "
        "(did you mean statusMessage?): Claude Code ignores one it does not know; loopspec "
        "reads type, command, timeout, failClosed, and leaves alone the others real settings "
        "hold",
    ),
    # Codex's timeoutSec in lower case was offered loopspec's `timeout`, near as 0.82.
    "hooks: a member loopspec leaves alone in lower case": (
        "hooks",
        _edit('"timeout": 5', '"timeoutsec": 5'),
        f"FILE:10: {_HANDLER}.timeoutsec: not a member of a hook handler real settings hold "
        "(did you mean timeoutSec?): Claude Code ignores one it does not know; loopspec reads "
        "type, command, timeout, failClosed, and leaves alone the others real settings hold",
    ),
    # A hook of another type was refused as lacking a command, not as what it is, and one
    # written with a command anyway was driven as its own type, never audited.
    "harness hooks: a prompt hook": (
        "hooks --harness",
        _edit('"type": "command",\n            "command": "true"', _PROMPT),
        f'FILE:8: {_HANDLER}.type: is "prompt": a harness run takes command hooks only ("type": '
        '"command"), the hooks whose answers it shows',
    ),
    "harness hooks: an http hook with a command": (
        "hooks --harness",
        _edit('"type": "command"', '"type": "http", "url": "http://127.0.0.1:9/"'),
        f'FILE:8: {_HANDLER}.type: is "http": a harness run takes command hooks only ("type": '
        '"command"), the hooks whose answers it shows',
    ),
    "harness hooks: a handler's type cut": (
        "hooks --harness",
        _edit('"type": "command",', ""),
        f'FILE:7: {_HANDLER}.type: is missing: a harness run takes command hooks only ("type": '
        '"command"), the hooks whose answers it shows',
    ),
    # A misspelt member of a group or handler was ignored: the group matched every tool, the
    # handler ran with the default timeout, or lacked a type.
    "hooks: a group's matcher misspelt": (
        "hooks",
        _edit('"matcher"', '"matchers"'),
        "FILE:5: $.hooks.PreToolUse[0].matchers: not a member of a matcher group loopspec "
        "reads (did you mean matcher?); it reads matcher, hooks, and leaves alone the others "
        "real settings hold",
    ),
    "hooks: a handler's timeout misspelt": (
        "hooks",
        _edit('"timeout"', '"timout"'),
        f"FILE:10: {_HANDLER}.timout: {_NOT_A_HANDLER_MEMBER.format('timeout')}",
    ),
    "hooks: a handler's type misspelt": (
        "hooks",
        _edit('"type"', '"tyep"'),
        f"FILE:8: {_HANDLER}.tyep: {_NOT_A_HANDLER_MEMBER.format('type')}",
    ),
    # A type left out or another kind of hook was "not type None", "not type 'prompt'".
    "hooks: a handler's type cut": (
        "hooks",
        _edit('"type": "command",', ""),
        f'FILE:7: {_HANDLER}.type: is missing: only command hooks are supported ("type": '
        '"command")',
    ),
    "hooks: a prompt hook": (
        "hooks",
        _edit('"type": "command"', '"type": "prompt"'),
        f'FILE:8: {_HANDLER}.type: is "prompt": only command hooks are supported ("type": '
        '"command")',
    ),
    # Real settings carry members and events loopspec does not read, some near one it reads.
    "hooks: real settings' own members": (
        "hooks",
        _edit(
            '"timeout": 5',
            '"timeout": 5, "statusMessage": "checking", "async": false, "once": false, '
            '"if": "Bash(git *)", "timeoutSec": 5',
        ),
        "",
    ),
    "hooks: real settings' own events": (
        "hooks",
        _edit(
            '"hooks": {',
            '"permissions": {"allow": ["Bash(ls)"]}, "hooks": {"PostToolUseFailure": [], '
            '"Stop": [{"hooks": [{"type": "prompt", "prompt": "done?", "model": "haiku"}]}], ',
        ),
        "",
    ),
    "hooks: a list for the object": (
        "hooks",
        lambda text: f"[{text}]",
        "FILE:1: $: settings must be a JSON object",
    ),
}


@pytest.mark.parametrize("edit", EDITS)
def test_PROTO_1_SAFE_4_HOOK_8_EXE_2_a_hand_edit_names_its_file_line_and_path_or_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], edit: str
) -> None:
    """PROTO-1, SAFE-4, HOOK-8, EXE-2: a scenario's or a hooks file's fault named the file and
    the JSON path but no line, so a person counted a path like $.turns[0].replies[1] out by
    hand; a misspelt scenario member (`tool`), one added to a turn, or a result or approval
    for a call id renamed in its reply alone ran anyway, exit 0, the calls with empty output;
    a boolean given as the string "true" was met with "did you mean True?", Python's spelling,
    and a scenario's result as "$.results.c1.outcome.ok", a member the file does not have;
    nesting past SAFE-4's bound named no line; a scenario's or hooks file's comma left by a cut
    and any file's quote left unescaped in a string were said in the parser's words ("Expecting
    ',' delimiter"); a case's call arguments nested deeper than the stack ended a profile's
    replay in a traceback (EXE-2: such text is kept as text); and `run --harness`'s own
    refusals of a scenario (results kept, a call of another tool, a crash time) or of a hooks
    file named the file and the path but no line; and a hooks file's misspelt event, group
    member or handler member was ignored (an event's hooks not run, a group matching every
    tool, a default timeout), while real settings' own members and events still run."""
    kind, change, said = EDITS[edit]
    log = tmp_path / "out.jsonl"
    scenario = tmp_path / "scenario.json"
    scenario.write_text(HARNESS_SCENARIO if "harness" in kind else SCENARIO, encoding="utf-8")
    edited = tmp_path / f"{kind.split()[0]}.json"
    case = CASE.read_text(encoding="utf-8")
    source = {
        "case": case,
        "case --profile dsh": case,
        "scenario": SCENARIO,
        "scenario --harness": HARNESS_SCENARIO,
        "hooks": SETTINGS,
        "hooks --harness": SETTINGS,
    }
    edited.write_text(change(source[kind]), encoding="utf-8")
    argv = {
        "case": ["replay", str(edited), "--bundled"],
        "case --profile dsh": ["replay", str(edited), "--bundled", "--profile", "dsh"],
        "scenario": ["run", str(edited), "--log", str(log)],
        "scenario --harness": ["run", str(edited), "--harness", "claude-code", "--log", str(log)],
        "hooks": ["run", str(scenario), "--hooks", str(edited), "--log", str(log)],
        "hooks --harness": [
            *("run", str(scenario), "--harness", "claude-code"),
            *("--hooks", str(edited), "--log", str(log)),
        ],
    }[kind]
    status = main(argv)
    err = capsys.readouterr().err
    if not said:
        assert (status, err) == (0, "")
        if kind == "case":  # and under the other profile that compares call arguments
            assert main([*argv, "--profile", "codex"]) == 0
        return
    assert (status, err) == (2, f"loopspec: error: {said.replace('FILE', str(edited))}\n")
    assert not log.exists()
