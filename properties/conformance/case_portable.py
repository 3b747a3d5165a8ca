"""What a saved case file may say about the machine and the person that wrote it.

A case is made to be attached to a public bug report, and replay never runs the target it
records (SAFE-1): the recorded `--cmd` and a breakage's one-line `what` are there for a
reader, who needs what the loop is, not where it lay. So before a case is written, a path in
them inside the folder conform ran in is written relative to it (`./run.sh`), one elsewhere in
the home folder from `~` (the user's name is in the home path), one anywhere else keeps only
its last name (`<path>/main.mjs`: `/srv/alice/...` or `/Volumes/acme-eng/...` names a person
or an organisation's layout, as a Windows path from its drive or a share does, with either
separator, written `<path>` and its last name after its own separator; a program in a system
`bin` folder, `/usr/bin/node`, or in Windows' own folder, and a device, `/dev/null`, are kept
whole), and the value of a
`NAME=VALUE` or `--name=VALUE` word, or of the word after a `--name` option, whose name says
it is a secret (token, secret, password, key, auth, credential, cookie) is hidden, and so is a
value shaped as a provider's key wherever it is (`sk-...`, `ghp_...`), what follows `Bearer`,
and a URL's password (`https://user:PASSWORD@`, as a DATABASE_URL or a git remote holds one).
Nothing else in a case comes from the machine: no environment, host name, user name or time
(`epochMs` is the scripted clock's fixed start), and a hook is a name whose answers the program
scripts, never a command line.

What the console prints (a `rerun:` line, a setup error) is read on the machine it ran on and
names the paths outside both folders as typed (`portable`), so that line still runs there; a
case file and a replay's JSON document, written for others, hide them too (`shared`).
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Final

HIDDEN: Final = "<hidden>"
"""What a secret's value is written as."""

ELSEWHERE: Final = "<path>"
"""What a shared case writes for the folders of a path outside the working and home folders."""

# A name that says its value is a secret: these anywhere in it (APIKEY, GITHUB_TOKEN,
# HTTP_AUTHORIZATION), or these as a whole part between `_` and `-` (API_KEY, X-AUTH, but not
# KEYBOARD or AUTHOR).
_SECRET_ANYWHERE = r"token|secret|passw(?:or)?d|credential|apikey|cookie|authorization"
_SECRET_PART = r"key|auth|pass|pwd"
_SECRET_NAME: Final = (
    rf"[A-Za-z0-9_-]*?(?:{_SECRET_ANYWHERE}|(?<![A-Za-z0-9])(?:{_SECRET_PART})(?![A-Za-z0-9]))"
    r"[A-Za-z0-9_-]*"
)
# NAME=VALUE (an `env` assignment) or --NAME=VALUE, the value a shell word: quoted or bare.
_SECRET_ASSIGNMENT: Final = re.compile(
    rf"(?i)(?<![\w?&-])(?P<name>-{{0,2}}{_SECRET_NAME}=)(?P<value>'[^']*'|\"[^\"]*\"|[^\s'\"]+)"
)
# A URL query's parameter (`?api_key=...&model=x`): its value ends at the next `&` or `#`.
_SECRET_QUERY_PARAMETER: Final = re.compile(
    rf"(?i)(?<=[?&])(?P<name>{_SECRET_NAME}=)(?P<value>[^\s&#'\"]+)"
)


# --NAME VALUE, the option's name saying the next word is a secret (`--api-key sk-...`,
# `--token abc`), the value a shell word that is no option. Not a negated flag (`--no-auth`) nor
# one naming where the secret is (`--token-file`, `--api-key-env`): the word after is no secret.
_SECRET_OPTION: Final = re.compile(
    rf"(?i)(?<![\w-])(?P<option>--?(?!-*no-){_SECRET_NAME})(?P<space>\s+)"
    r"(?P<value>'[^']*'|\"[^\"]*\"|[^\s'\"-][^\s'\"]*)"
)
_NAMES_WHERE: Final = re.compile(r"(?i)[_-](?:file|path|dir|env|var|name)$")
# Names that say a token or key is counted or sized, not given: MAX_TOKENS, --max-tokens,
# --token-limit, --key-size. A model's budget hidden made the rerun line unrunnable.
_NAMES_A_MEASURE: Final = re.compile(
    r"(?i)tokens|(?:^|[_-])(?:max|min)[_-]"
    r"|[_-](?:count|limit|size|budget|len|length|bits|port|timeout|ttl)=?$"
)

# A value shaped as a provider's key whatever holds it (a bare argument, a header, a URL's
# query): OpenAI and Anthropic `sk-`, GitHub `ghp_`/`github_pat_`, GitLab `glpat-`, Slack
# `xox?-`, AWS `AKIA`, Google `AIza`, and the model hosts a loop is given a key for: Hugging
# Face `hf_`, Groq `gsk_`, xAI `xai-`, Replicate `r8_`, Perplexity `pplx-`; and what follows an
# HTTP `Bearer` or `Basic`.
_KEY_SHAPED: Final = re.compile(
    r"(?<![\w-])(?:sk-[A-Za-z0-9_-]{20,}|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_\w{20,}"
    r"|glpat-[A-Za-z0-9_-]{20,}|xox[abprs]-[A-Za-z0-9-]{10,}|AKIA[0-9A-Z]{16}"
    r"|AIza[0-9A-Za-z_-]{35}"
    # At about their lengths (hf_ 34, r8_ 37, gsk_ 52, pplx- 48, xai- 80): hf_model.py is no key.
    r"|(?:hf|r8)_[A-Za-z0-9]{30,}|(?:gsk_|xai-|pplx-)[A-Za-z0-9]{40,})"
)
_HTTP_CREDENTIALS: Final = re.compile(r"(?P<scheme>\b(?:Bearer|Basic)\s+)(?P<value>[^\s'\"]+)")


def _hide_option_value(found: re.Match[str]) -> str:
    if _NAMES_WHERE.search(found["option"]) or _NAMES_A_MEASURE.search(found["option"]):
        return found.group()
    return found["option"] + found["space"] + HIDDEN


def _hide_assigned_value(found: re.Match[str]) -> str:
    if _NAMES_A_MEASURE.search(found["name"]):
        return found.group()
    return found["name"] + HIDDEN


# A URL's user information with a password: the scheme, the user and `:`, then the password up
# to the `@` before the host (a port is followed by `/` or the end, never by `@`).
_URL_PASSWORD: Final = re.compile(
    r"(?i)(?P<user>\b[a-z][a-z0-9+.-]*://[^\s/:@'\"]*:)(?P<password>[^\s/@'\"]+)(?=@)"
)


def _prefix_pattern(folder: str) -> re.Pattern[str]:
    """`folder` as a whole path at the start of a path in text: not inside a longer name."""
    return re.compile(rf"(?<![\w.~/-]){re.escape(folder)}(?=/|$|[^\w.-])")


def _folders() -> list[tuple[str, str]]:
    """The folders this machine's paths are written from, the deepest first: where conform
    runs (written `.`), then the home folder (`~`); the root is never one."""
    here, home = os.getcwd(), os.path.expanduser("~")
    # Each also as the other spelling a path to it is typed in: a home behind a symbolic link
    # (/home -> /usr/home, an automounted share) is typed either way, and the shell's $PWD
    # keeps the links `cd` followed, where the working folder has them resolved.
    logical = os.environ.get("PWD", "")
    named = [(here, "."), (str(Path(here).resolve()), ".")]
    if logical and Path(logical).resolve() == Path(here).resolve():
        named.append((logical, "."))
    named += [(home, "~"), (str(Path(home).resolve()), "~")]
    usable = [(folder.rstrip("/"), shown) for folder, shown in named if folder.rstrip("/")]
    return sorted(dict(usable).items(), key=lambda item: -len(item[0]))


# A path from the working folder once it is written `.`, through `..` or `.`: `./../loop.mjs`
# is typed `../loop.mjs`, `././loop.mjs` is `./loop.mjs`.
_UP_FROM_HERE: Final = re.compile(r"(?<![\w.~/-])\./(?=\.\.?(?:/|$|[^\w.-]))")


def portable(text: str) -> str:
    """`text` as a shared case may hold it: paths from the working and home folders, secrets'
    values hidden."""
    for folder, shown in _folders():
        text = _prefix_pattern(folder).sub(shown, text)
    text = _UP_FROM_HERE.sub("", text)
    text = _SECRET_QUERY_PARAMETER.sub(_hide_assigned_value, text)
    text = _SECRET_ASSIGNMENT.sub(_hide_assigned_value, text)
    text = _SECRET_OPTION.sub(_hide_option_value, text)
    text = _HTTP_CREDENTIALS.sub(lambda found: found["scheme"] + HIDDEN, text)
    text = _KEY_SHAPED.sub(HIDDEN, text)
    return _URL_PASSWORD.sub(lambda found: found["user"] + HIDDEN, text)


# An absolute path (a Windows one from its drive, `C:/Users/...` or `C:\Users\...`, or a share's,
# `\\server\share\...`; a `file:///` URL's), not inside a longer word, another URL
# (`https://host/a`, `//host`) or a `<path>` already written: it runs to a space, a quote or a
# list's `:` (`PYTHONPATH=/a:/b`).
_ABSOLUTE_PATH: Final = re.compile(
    r"(?:(?<=file://)|(?<![\w.~/<>-]))(?:[A-Za-z]:)?/(?!/)[^\s'\":;,]+"
    r"|(?<![\w.~/\\<>-])(?:[A-Za-z]:\\|\\\\(?=[^\s'\":;,\\]+\\))[^\s'\":;,]+"
)
_SEPARATORS: Final = "/\\"
# A Windows installation's own folders, which name no one (`C:\Windows\System32\cmd.exe`).
_WINDOWS_SYSTEM_FOLDER: Final = re.compile(r"(?i)[a-z]:\\windows(?:\\system32)?")
# Folders whose files say nothing of the person or the organisation: where an interpreter is
# installed (`/usr/bin/python3`, Homebrew's `/opt/homebrew/bin/node`), and the devices.
_SYSTEM_FOLDERS: Final = frozenset(
    {"/bin", "/sbin", "/usr/bin", "/usr/sbin", "/usr/local/bin", "/opt/homebrew/bin"}
)


def _last_name_only(found: re.Match[str]) -> str:
    path = found.group()
    # Either separator, as Windows reads both: `C:\Users\bob\loop\main.mjs` named Bob.
    named = path.rstrip(_SEPARATORS)
    cut = max(named.rfind("/"), named.rfind("\\"))
    folder, separator, name = named[:cut], named[cut : cut + 1], named[cut + 1 :]
    if (
        folder in ("", *_SYSTEM_FOLDERS)
        or len(folder) == 2
        or path.startswith("/dev/")
        or _WINDOWS_SYSTEM_FOLDER.fullmatch(folder)
    ):
        return path  # a top folder (`/srv`, `C:/tools`) names no one
    return f"{ELSEWHERE}{separator}{name}{path[len(named) :]}"


def shared(text: str) -> str:
    """`text` as a case file holds it: `portable`, and a path outside the working and home
    folders written as `<path>/` and its last name."""
    return _ABSOLUTE_PATH.sub(_last_name_only, portable(text))


def portable_target(target: dict[str, str]) -> dict[str, str]:
    """The target as the console names it: a `--cmd` made portable; an `--impl` is a module
    name."""
    return {kind: portable(named) if kind == "cmd" else named for kind, named in target.items()}


def shared_target(target: dict[str, str]) -> dict[str, str]:
    """The target a case records: a `--cmd` as `shared` writes it."""
    return {kind: shared(named) if kind == "cmd" else named for kind, named in target.items()}


def put_back_words(shown: str) -> str:
    """What to put back in a command line written as a case or the console shows it before it
    is run (`each <hidden> put back as the secret it stands for`); "" when nothing."""
    wanted = []
    if HIDDEN in shown:
        wanted.append(f"each {HIDDEN} put back as the secret it stands for")
    if ELSEWHERE in shown:
        put = "" if wanted else " put back"
        wanted.append(f"each {ELSEWHERE}{put} as the folder it stands for")
    return " and ".join(wanted)


def put_back_note(shown: str) -> str:
    """What a command line shown as a case records it needs before it is run (`put_back_words`),
    as a note; "" when nothing. Copied as it stands, it would run the loop with the word
    `<hidden>` for a token, or a file in the folder `<path>`."""
    words = put_back_words(shown)
    return f" (with {words})" if words else ""


def labelled(label: str, command: str) -> str:
    """`label: command`, the note `put_back_note` gives in the label: after the command, a
    line copied whole from its colon on was a shell syntax error at the note's `(`."""
    return f"{label}{put_back_note(command)}: {command}"


def hidden_left(option: str, command: str) -> str:
    """Why a command line holding `<hidden>` or `<path>` is not run: pasted from a case or a
    rerun line, it would hand the loop that word for a token, and the run would say nothing of
    it, or look for a file in a folder named `<path>`."""
    if HIDDEN in command:
        return (
            f"{option} holds {HIDDEN}, which a case and a rerun line write in place of a "
            "secret's value: put the secret back (or leave out the word, if the loop runs "
            "without it)"
        )
    return (
        f"{option} holds {ELSEWHERE}, which a case writes in place of the folders of a path "
        "outside the folder conform ran in and the home folder: write where that file is on "
        "this machine"
    )
