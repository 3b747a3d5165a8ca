"""How the conform driver's calls, and the CLIs' own messages, look in what a real CLI writes
and sends: read by the log readers (`conform_driver`) and the request reader
(`request_history`) alike.

Every tool call of a reply reaches the CLI as a call of its shell tool whose command runs the
blocking tool program with the call id, the tool name and the arguments (`tool_command`);
`decoded_call` reads them back from a transcript's, a rollout's or a request's shell call.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path

TOOL_PROGRAM = "loopspec-tool"
# The name a concurrency-safe call's tool program has on Claude Code's PATH: a command Claude
# Code reads as read-only, which it runs beside others (see `conform_driver`'s docstring).
SAFE_TOOL_PROGRAM = "tac"
# How Codex 0.171.0 and Claude Code 2.1.332 begin the user message each writes when a turn is
# interrupted (Claude Code: "[Request interrupted by user]", "... for tool use]").
ABORT_NOTICE = "<turn_aborted>"
CLAUDE_ABORT_NOTICE = "[Request interrupted by user"
# What Claude Code 2.1.332 sends in place of an assistant turn, or a user turn, it left with no
# block (a reply whose every call reuses an earlier reply's call id, and those calls' results).
CLAUDE_EMPTIED_REPLY = "[Tool use interrupted]"
CLAUDE_EMPTIED_TURN = "(no content)"


# The mark of a tool program's word carried as hex (`program_word`).
HEX_WORD = "hex:"


def tool_command(program: Path | str, call_id: str, name: str, arguments: str) -> str:
    """The shell command that runs call `call_id` of tool `name` with `arguments`."""
    return shlex.join([str(program), *map(program_word, (call_id, name, arguments))])


def program_word(text: str) -> str:
    """`text` (a call id, a tool name, arguments) as a word of the tool program's command.
    Claude Code 2.1.332 reads a `tac` command as not read-only, and so runs it alone, when a
    single-quoted word holds a `'` (quoted as `'"'"'`) and, past a `"` after it, a character
    its command checker suspects (`\\`, `$`, `;`, `#`, `*`, `>`, a backtick, a non-ASCII
    letter, another `'`): text holding a `'` travels as the hex of its UTF-8 after HEX_WORD
    (every program's, so the word reads back alike whichever program ran it), and so does text
    beginning with that mark, so that `text_of_word` reads every word back exactly."""
    if "'" not in text and not text.startswith(HEX_WORD):
        return text
    return HEX_WORD + text.encode("utf-8", "surrogatepass").hex()


def text_of_word(word: str) -> str:
    """The text a word of the tool program's command carries (`program_word`)."""
    if not word.startswith(HEX_WORD):
        return word
    try:
        return bytes.fromhex(word.removeprefix(HEX_WORD)).decode("utf-8", "surrogatepass")
    except ValueError:  # (UnicodeDecodeError is one) not a word `program_word` wrote
        return word


def decoded_call(command: object) -> tuple[str, str] | None:
    """(tool name, arguments) a shell command made by `tool_command` carries, or None."""
    if not isinstance(command, str):
        return None
    try:
        words = shlex.split(command)
    except ValueError:
        return None
    if len(words) != 4 or Path(words[0]).name not in (TOOL_PROGRAM, SAFE_TOOL_PROGRAM):
        return None
    return text_of_word(words[2]), text_of_word(words[3])


def shell_command_of(tool_input: object) -> object:
    """The command of a shell call's input (Claude Code `command`, Codex `cmd`)."""
    if isinstance(tool_input, dict):
        return tool_input.get("command", tool_input.get("cmd"))
    return None


def tagged_context(text: str) -> bool:
    """Codex's own user-role context (`<environment_context>...`), not the user's words."""
    stripped = text.strip()
    return stripped.startswith("<") and stripped.endswith(">") and "\n" in stripped


def text_of(content: object) -> str:
    """The text a CLI's message content holds: a string as it is, a list of blocks as their
    `text` fields joined, anything else as its JSON."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(b.get("text", "")) for b in content if isinstance(b, dict))
    return json.dumps(content)
