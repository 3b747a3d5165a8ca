"""One offline session of a real harness: mock model, temporary HOME, real hooks, traced connects.

`drive(request)` is what callers use. It writes the request to a temporary directory and runs
`python -m loopspec.properties.harnesses.session REQUEST RESULT` — inside `unshare -n` with
loopback brought up when the kernel allows it, so the binary has no route anywhere but
127.0.0.1 — and reads back the `SessionResult`. The inner process starts `MockModel`, writes the
harness's configuration and the hooks (each wrapped by `hook_audit`), runs the binary headless
under `strace -e trace=connect` when strace exists, and gathers what every reader held.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

import attrs

from loopspec.model.errors import NO_RULE_BROKEN, LoopSpecError
from loopspec.properties.harnesses import hook_audit
from loopspec.properties.harnesses.hook_ids import configured_hooks
from loopspec.properties.harnesses.mock_model import MockModel
from loopspec.properties.harnesses.script import (
    CLAUDE_FILE_TOOLS,
    Harness,
    HarnessScript,
    ScriptedCall,
    ScriptedReply,
    ScriptedText,
)
from loopspec.properties.target_signals import children_start_with_default_interrupts
from loopspec.properties.unfilled_files import removed_at_sigterm

REPO_ROOT = Path(__file__).resolve().parents[2]
OBSERVER_ID = "loopspec-observer"
ADAPTER_DIRS = {
    Harness.CLAUDE_CODE: "examples/claude-code-adapter",
    Harness.CODEX: "examples/codex-adapter",
}
BINARIES = {
    Harness.CLAUDE_CODE: "node_modules/@anthropic-ai/claude-code/bin/claude.exe",
    Harness.CODEX: (
        "node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex"
    ),
}
CLAUDE_MODEL = "claude-sonnet-4-5"
DEFAULT_TIMEOUT = 180.0
ABORT_GRACE = 15.0  # seconds an interrupted CLI gets to wind down before it is killed
ISOLATED = "network namespace with loopback only (unshare -n)"
NOT_ISOLATED = (
    "no network namespace (unshare -n unavailable); other hosts go to a closed proxy port, "
    "connects traced"
)
_CONNECT = re.compile(
    r"connect\(\d+, \{sa_family=(AF_INET6?), sin6?_port=htons\((\d+)\), "
    r"(?:inet_pton\(AF_INET6, \"([^\"]+)\"|sin_addr=inet_addr\(\"([^\"]+)\"\)).*= (-?\d+)(.*)$"
)


# A system call strace cut in two: its first line's end, and the line resuming it.
_UNFINISHED = " <unfinished ...>"
_RESUMED = re.compile(r"^(\d+) +<\.\.\. \w+ resumed>(.*)$")


class HarnessError(LoopSpecError):
    """A harness run that cannot happen. A session the real CLI failed is PROTO-1's (a broken
    target, SAFE-5); what the user handed in (a binary not installed, a bad hooks file, a log
    path taken) names no rule, as the bundled loop's hooks file does; a file that cannot be
    read names SAFE-4 or no rule, as `UserFileError.rule_id` says."""

    def __init__(self, message: str, *, rule_id: str = NO_RULE_BROKEN) -> None:
        super().__init__(message, rule_id=rule_id)


@attrs.frozen
class SessionRequest:
    """What to run: the harness, its script, the hook settings (a Claude Code settings.json
    document, or None) and the adapter folder holding the installed binary."""

    harness: Harness
    script: HarnessScript
    hooks: Mapping[str, Any] | None
    adapter_dir: Path
    timeout: float = DEFAULT_TIMEOUT
    hooks_dir: Path | None = None  # the settings file's folder: $LOOPSPEC_HOOKS_DIR in commands


def binary_of(harness: Harness, adapter_dir: Path) -> Path:
    """The installed binary; `HarnessError` naming the install command when it is missing."""
    binary = adapter_dir / BINARIES[harness]
    if binary.is_file():
        return binary
    if not (adapter_dir / "package-lock.json").is_file():
        # An installed loopspec (a wheel) ships no adapter folders: `npm ci` has nowhere to run.
        raise HarnessError(
            f"{harness.value} is not installed: --harness drives the CLI pinned in a loopspec "
            f"checkout's {ADAPTER_DIRS[harness]} (`npm ci` there, or `make harnesses`), and "
            f"this copy of loopspec has no {adapter_dir}"
        )
    raise HarnessError(
        f"{harness.value} is not installed: {binary} is missing; run `npm ci` in {adapter_dir}"
    )


def default_adapter_dir(harness: Harness) -> Path:
    """The example folder that pins the harness, in this checkout."""
    return REPO_ROOT / ADAPTER_DIRS[harness]


# ---------------------------------------------------------------------------------------------
# The outer side: isolate, run the inner process, read the result.


SESSION_END_GRACE = 5.0
"""How long a session stopped by Ctrl-C has to end its CLI and remove its folder."""


def _session_run(
    inner: list[str], env: dict[str, str], limit: float
) -> subprocess.CompletedProcess[str]:
    """Run the inner session process (`main`) to its end, at most `limit` seconds; Ctrl-C
    gives it `SESSION_END_GRACE` to end its CLI and remove its folder, where `subprocess.run`
    killed it a quarter of a second in and left that folder in TMPDIR."""
    with subprocess.Popen(
        inner,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        # As every process's output is read: UTF-8 whatever this locale's encoding (an ASCII
        # one failed on the first non-ASCII byte, a Latin-1 one garbled it).
        encoding="utf-8",
        errors="replace",
        env=env,
    ) as process:
        try:
            stdout, stderr = process.communicate(timeout=limit)
        except subprocess.TimeoutExpired:
            process.kill()
            process.communicate()
            raise
        except KeyboardInterrupt:
            process.terminate()  # said again where the Ctrl-C reached loopspec alone
            try:
                process.communicate(timeout=SESSION_END_GRACE)
            except subprocess.TimeoutExpired:
                process.kill()
            raise
    return subprocess.CompletedProcess(inner, process.returncode, stdout, stderr)


def network_namespace_works() -> bool:
    """Whether `unshare -n` can make a namespace here (root, or user namespaces allowed)."""
    if shutil.which("unshare") is None or shutil.which("ip") is None:
        return False
    probe = subprocess.run(
        ["unshare", "-n", "--", "ip", "link", "set", "lo", "up"],
        capture_output=True,
        check=False,
    )
    return probe.returncode == 0


def drive(request: SessionRequest) -> dict[str, Any]:
    """Run one session offline; the result document (see `run_inside`)."""
    binary_of(request.harness, request.adapter_dir)
    with (
        tempfile.TemporaryDirectory(prefix=f"loopspec-{request.harness.value}-") as tmp,
        removed_at_sigterm(Path(tmp)),
    ):
        request_path, result_path = Path(tmp) / "request.json", Path(tmp) / "result.json"
        request_path.write_text(json.dumps(_request_to_json(request)), encoding="utf-8")
        inner = [sys.executable, "-m", "loopspec.properties.harnesses.session"]
        inner += [str(request_path), str(result_path)]
        isolated = network_namespace_works()
        if isolated:
            inner = ["unshare", "-n", "--", "sh", "-c", 'ip link set lo up && exec "$@"', "sh"]
            inner += [sys.executable, "-m", "loopspec.properties.harnesses.session"]
            inner += [str(request_path), str(result_path)]
        env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
        # Each turn is bounded by its own timeout (and kill); this bounds the whole session.
        limit = (request.timeout + ABORT_GRACE) * len(request.script.prompts) + 60.0
        try:
            done = _session_run(inner, env, limit)
        except subprocess.TimeoutExpired:
            raise HarnessError(
                f"the {request.harness.value} session did not end within {limit:.0f} s",
                rule_id="PROTO-1",
            ) from None
        if done.returncode != 0 or not result_path.exists():
            tail = (done.stderr or done.stdout).strip().splitlines()[-5:]
            raise HarnessError(
                f"the {request.harness.value} session failed (exit {done.returncode}): "
                + " | ".join(tail),
                rule_id="PROTO-1",
            )
        result: dict[str, Any] = json.loads(result_path.read_text(encoding="utf-8"))
        result["isolation"] = ISOLATED if isolated else NOT_ISOLATED
        return result


def _request_to_json(request: SessionRequest) -> dict[str, Any]:
    replies = []
    for reply in request.script.replies:
        blocks: list[dict[str, Any]] = []
        for block in reply.blocks:
            match block:
                case ScriptedText(text):
                    blocks.append({"text": text})
                case ScriptedCall(call_id, arguments, tool):
                    blocks.append({"id": call_id, "arguments": arguments, "tool": tool})
        replies.append(blocks)
    return {
        "harness": request.harness.value,
        "prompts": list(request.script.prompts),
        "crashAfter": list(request.script.crash_after),
        "abortAfter": list(request.script.abort_after),
        "cutStartFiles": list(request.script.cut_start_files),
        "replies": replies,
        "hooks": request.hooks,
        "adapterDir": str(request.adapter_dir),
        "timeout": request.timeout,
        "hooksDir": str(request.hooks_dir) if request.hooks_dir else None,
    }


def _request_from_json(document: Mapping[str, Any]) -> SessionRequest:
    replies = []
    for blocks in document["replies"]:
        scripted: list[ScriptedText | ScriptedCall] = []
        for block in blocks:
            if "text" in block:
                scripted.append(ScriptedText(block["text"]))
            else:
                scripted.append(ScriptedCall(block["id"], block["arguments"], block["tool"]))
        replies.append(ScriptedReply(tuple(scripted)))
    return SessionRequest(
        Harness(document["harness"]),
        HarnessScript(
            document["prompts"][0],
            tuple(replies),
            tuple(document["prompts"][1:]),
            tuple(document["crashAfter"]),
            tuple(document["abortAfter"]),
            tuple(document["cutStartFiles"]),
        ),
        document["hooks"],
        Path(document["adapterDir"]),
        float(document["timeout"]),
        Path(document["hooksDir"]) if document["hooksDir"] else None,
    )


# ---------------------------------------------------------------------------------------------
# The inner side: one run, inside the namespace.


def _wrapped(command: str, hook_id: str, audit_dir: Path, hooks_dir: Path | None) -> str:
    return hook_audit.wrapped(command, hook_id, str(audit_dir), str(hooks_dir or ""))


def wrapped_hooks(
    hooks: Mapping[str, Any] | None,
    audit_dir: Path,
    hooks_dir: Path | None = None,
    observed: tuple[str, ...] = ("PostToolUse",),
    *,
    harness: Harness,
) -> dict[str, Any]:
    """The settings' `hooks` with every command run through `hook_audit`, ids as the bundled
    loop gives them (`hook_ids`), plus an observer on each `observed` event (PostToolUse, and
    Claude Code's PostToolUseFailure for a command that fails) that records what ran."""
    ids = iter(configured_hooks(hooks, harness.value))
    wrapped: dict[str, Any] = {}
    events = (hooks or {}).get("hooks", {})
    for event, groups in events.items():
        wrapped[event] = []
        for group in groups:
            handlers = []
            for handler in group.get("hooks", []):
                hook_id = next(ids).hook_id  # the same walk as configured_hooks'
                command = _wrapped(str(handler["command"]), hook_id, audit_dir, hooks_dir)
                handlers.append({**handler, "command": command})
            wrapped[event].append({**group, "hooks": handlers})
    observer = {"type": "command", "command": _wrapped("true", OBSERVER_ID, audit_dir, None)}
    # Claude Code's file tools are observed too (the scripts offer them only there).
    matcher = (
        "Bash|" + "|".join(CLAUDE_FILE_TOOLS.values()) if harness == Harness.CLAUDE_CODE else "Bash"
    )
    for event in observed:
        wrapped.setdefault(event, []).append({"matcher": matcher, "hooks": [observer]})
    return wrapped


# Outside a network namespace, clients that honour proxy variables are sent to a closed port
# (discard, 9) for anything but loopback, so a connection elsewhere is refused, not made.
REFUSING_PROXY = "http://127.0.0.1:9"


def _base_env(home: Path) -> dict[str, str]:
    return {
        "HOME": str(home),
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "LANG": "C.UTF-8",
        "TERM": "dumb",
        "TMPDIR": str(home / "tmp"),
        "HTTP_PROXY": REFUSING_PROXY,
        "HTTPS_PROXY": REFUSING_PROXY,
        "ALL_PROXY": REFUSING_PROXY,
        "http_proxy": REFUSING_PROXY,
        "https_proxy": REFUSING_PROXY,
        "all_proxy": REFUSING_PROXY,
        "NO_PROXY": "127.0.0.1,localhost",
        "no_proxy": "127.0.0.1,localhost",
    }


# A CLI's base command line (before the turn's own arguments) and its environment.
Setup = tuple[list[str], dict[str, str]]


def cli_setup(request: SessionRequest, home: Path, work: Path, audit: Path, port: int) -> Setup:
    """Prepare `request.harness` to run offline against the mock model on `port`: its settings
    and hooks under `home` and `work` (hook audits go to `audit`); its base command line and
    environment. Both the scripted runs and the conform driver start the CLI this way."""
    match request.harness:
        case Harness.CLAUDE_CODE:
            return _claude_setup(request, home, work, audit, port)
        case Harness.CODEX:
            return _codex_setup(request, home, work, audit, port)


def _claude_setup(request: SessionRequest, home: Path, work: Path, audit: Path, port: int) -> Setup:
    (home / ".claude").mkdir(parents=True)
    observed = ("PostToolUse", "PostToolUseFailure")
    wrapped = wrapped_hooks(
        request.hooks, audit, request.hooks_dir, observed, harness=request.harness
    )
    settings = {"hooks": wrapped}
    (home / ".claude" / "settings.json").write_text(json.dumps(settings), encoding="utf-8")
    env = _base_env(home) | {
        "ANTHROPIC_BASE_URL": f"http://127.0.0.1:{port}",
        "ANTHROPIC_API_KEY": "mock-key",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_TELEMETRY": "1",
        "DISABLE_AUTOUPDATER": "1",
        "DISABLE_ERROR_REPORTING": "1",
        "DISABLE_BUG_COMMAND": "1",
        "CLAUDE_CODE_ENABLE_TELEMETRY": "0",
    }
    argv = [
        str(binary_of(request.harness, request.adapter_dir)),
        "--output-format",
        "stream-json",
        "--verbose",
        "--model",
        CLAUDE_MODEL,
        "--allowedTools",
        # The file tools too: a headless run asks no one, and their calls are scripted.
        "Bash,Read,Write,Edit",
        "--include-hook-events",
    ]
    return argv, env


def _codex_setup(request: SessionRequest, home: Path, work: Path, audit: Path, port: int) -> Setup:
    (home / ".codex").mkdir(parents=True)
    config = f"""\
model = "mock-model"
model_provider = "mock"
approval_policy = "never"
sandbox_mode = "danger-full-access"
check_for_update_on_startup = false

[model_providers.mock]
name = "mock"
base_url = "http://127.0.0.1:{port}/v1"
wire_api = "responses"
env_key = "MOCK_API_KEY"
request_max_retries = 0
stream_max_retries = 0

[analytics]
enabled = false

[feedback]
enabled = false

[features]
plugins = false
remote_plugin = false
plugin_sharing = false
apps = false

[projects."{work}"]
trust_level = "trusted"
"""
    (home / ".codex" / "config.toml").write_text(config, encoding="utf-8")
    (work / ".codex").mkdir()
    hooks = {
        "hooks": wrapped_hooks(request.hooks, audit, request.hooks_dir, harness=request.harness)
    }
    (work / ".codex" / "hooks.json").write_text(json.dumps(hooks), encoding="utf-8")
    env = _base_env(home) | {"MOCK_API_KEY": "mock-key"}
    argv = [
        str(binary_of(request.harness, request.adapter_dir)),
        "exec",
        "--json",
        "--skip-git-repo-check",
        "--dangerously-bypass-approvals-and-sandbox",
        "--dangerously-bypass-hook-trust",
    ]
    return argv, env


def turn_argv(
    harness: Harness, base: list[str], prompt: str, *, first: bool, session: str | None = None
) -> list[str]:
    """The command line of one turn: the first starts the session, later ones resume it (the
    run's HOME holds only this session, so "the most recent" is it). Codex resumes `session`,
    its id, when given: `resume --last` skips a session whose first prompt was empty and starts
    a new one, whose requests carry none of the earlier turns."""
    match harness:
        case Harness.CLAUDE_CODE:
            return [*base, "-p", prompt, *([] if first else ["--continue"])]
        case Harness.CODEX:
            binary, command, *flags = base
            resume = ["resume", session or "--last"]
            return [binary, command, *([] if first else resume), *flags, prompt]


def parse_connects(trace: str) -> list[dict[str, Any]]:
    """The inet connects in an `strace -e trace=connect` output: address, port, result."""
    found = []
    for line in _whole_calls(trace):
        match = _CONNECT.search(line)
        if match:
            family, port, address6, address4, code, rest = match.groups()
            result = "ok" if code == "0" else (rest.strip() or f"returned {code}")
            found.append(
                {
                    "family": family,
                    "address": address6 or address4,
                    "port": int(port),
                    "result": result,
                }
            )
    return found


def _whole_calls(trace: str) -> Iterator[str]:
    """Each line of `trace`, a system call another process's line cut in two (`strace -f`
    writes `PID connect(... <unfinished ...>`, then `PID <... connect resumed>) = 0` after
    the other line) joined back into one: read line by line, such a connect was lost."""
    begun: dict[str, str] = {}
    for line in trace.splitlines():
        if line.endswith(_UNFINISHED):
            begun[line.split(" ", 1)[0]] = line.removesuffix(_UNFINISHED)
            continue
        resumed = _RESUMED.match(line)
        if resumed is not None and resumed.group(1) in begun:
            yield begun.pop(resumed.group(1)) + resumed.group(2)
            continue
        yield line


def _logs_written(harness: Harness, home: Path) -> list[Path]:
    match harness:
        case Harness.CLAUDE_CODE:
            found = list((home / ".claude" / "projects").glob("*/*.jsonl"))
        case Harness.CODEX:
            found = list((home / ".codex" / "sessions").glob("**/rollout-*.jsonl"))
    # The newest first: a resumed session may be written to a new file holding all turns.
    return sorted(found, key=lambda path: path.stat().st_mtime_ns, reverse=True)


# System calls a process makes as it starts (libc's set_tid_address, glibc and musl alike), a
# glibc thread (set_robust_list) and a Rust thread (sigaltstack), traced beside connect only so
# that each new tracee reaches its first seccomp stop at once: strace steps a forked process or
# a new thread at every system call until then (it cannot know it has the filter), which a
# thread that never connects never reached. Codex's musl binary and its threads ran stepped:
# a two-turn Codex run took 2.2 s of CPU traced, 0.7 s untraced, 1.0 s now (least of two).
_STARTS = "set_tid_address,set_robust_list,sigaltstack"


@functools.cache
def connect_tracer() -> list[str]:
    """strace's command line for tracing every connect of a process tree. With --seccomp-bpf
    (strace 5.3+) the kernel stops the CLI only at a connect (and at `_STARTS`) instead of at
    every system call, which took a sixth of a Claude Code run's CPU; the connects traced are
    the same. An older strace, which rejects the flag, traces connects alone without it."""
    tracing = ["strace", "-f", "-qq", "-e"]
    filtered = [*tracing, f"trace=connect,{_STARTS}", "--seccomp-bpf"]
    probe = subprocess.run(
        [*filtered, "-o", os.devnull, "--", "true"], capture_output=True, check=False
    )
    return filtered if probe.returncode == 0 else [*tracing, "trace=connect"]


def run_inside(request: SessionRequest, root: Path) -> dict[str, Any]:
    """Run the session with `root` as scratch space; the result document."""
    home, work, audit = root / "home", root / "work", root / "audit"
    for folder in (home / "tmp", work, audit):
        folder.mkdir(parents=True)
    mock = MockModel(request.harness, request.script.replies).start()
    try:
        base, env = cli_setup(request, home, work, audit, mock.port)
        traced = shutil.which("strace") is not None
        tracer = connect_tracer() if traced else []
        started = time.monotonic()
        turns = []
        crashed: list[int] = []
        aborted: list[int] = []
        for number, prompt in enumerate(request.script.prompts):
            argv = turn_argv(request.harness, base, prompt, first=number == 0)
            trace = root / f"connects-{number}.txt"
            if traced:
                argv = [*tracer, "-o", str(trace), "--", *argv]
            crash = request.script.crash_after_turn(number)
            abort = request.script.abort_after_turn(number)
            start = request.script.cut_start_file(number)
            cut = (
                Cut(signal.SIGKILL, crash, start)
                if crash is not None
                else Cut(signal.SIGINT, abort, start)
                if abort is not None
                else None
            )
            turns.append(_run_turn(argv, work, env, request.timeout, cut))
            if crash is not None:
                crashed.append(number)
            if abort is not None:
                aborted.append(number)
        seconds = time.monotonic() - started
    finally:
        mock.close()
    connects = []
    for trace in sorted(root.glob("connects-*.txt")):
        connects.extend(parse_connects(trace.read_text("utf-8")))
    logs = _logs_written(request.harness, home)
    records, unfinished = read_audit(audit)
    # A crash or an abort is on purpose: its exit code and its kill are no failure.
    cut_turns = {*crashed, *aborted}
    failed = [code for n, (code, _, _, _) in enumerate(turns) if code != 0 and n not in cut_turns]
    return {
        "harness": request.harness.value,
        "exitCode": failed[0] if failed else 0,
        # Which turn's exit code that is: a report reads that turn's prompt (a blank one).
        "failedTurn": next(
            (n for n, (code, _, _, _) in enumerate(turns) if code != 0 and n not in cut_turns),
            None,
        ),
        "timedOut": any(out for n, (_, out, _, _) in enumerate(turns) if n not in cut_turns),
        "crashed": crashed,
        "aborted": aborted,
        "seconds": seconds,
        "turns": len(turns),
        "mockPort": mock.port,
        "stuck": attrs.asdict(mock.stuck) if mock.stuck else None,
        "requests": [{"method": r.method, "path": r.path, "body": r.body} for r in mock.requests],
        "stdout": "".join(stdout for _, _, stdout, _ in turns),
        "stderr": "".join(stderr for _, _, _, stderr in turns)[-4000:],
        "logs": [{"path": str(p.relative_to(home)), "text": p.read_text("utf-8")} for p in logs],
        "audit": records,
        "unfinished": unfinished,
        "traced": traced,
        "connects": connects,
        "work": str(work),
    }


def read_audit(audit: Path) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The hook records `hook_audit` left in `audit`: the answered ones and those of hooks that
    never answered, each by start. A kill can land while the wrapper writes (the CLI's hook
    timeout, an abort, a crash): an answer cut short is read as no answer, since its
    unfinished marker is still there, and a torn marker as no run at all, since the wrapper
    writes it before it starts the command."""
    records = _whole_records(audit.glob("*.json"))
    records.sort(key=lambda record: record["started"])
    answered = {(record["hook"], record["started"]) for record in records}
    unfinished = sorted(
        (
            r
            for r in _whole_records(audit.glob("*" + hook_audit.UNFINISHED))
            if (r["hook"], r["started"]) not in answered
        ),
        key=lambda record: record["started"],
    )
    return records, unfinished


def _whole_records(paths: Iterable[Path]) -> list[dict[str, Any]]:
    whole = []
    for path in paths:
        try:
            record = json.loads(path.read_text(encoding="utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError):
            continue
        if isinstance(record, dict) and {"hook", "started"} <= record.keys():
            whole.append(record)
    return whole


@attrs.frozen
class Cut:
    """How a turn is cut short: `signal` (SIGKILL, a crash; SIGINT, an abort) `seconds` after
    the turn started, or after `start_file` appeared in the working directory."""

    signal: signal.Signals
    seconds: float
    start_file: str | None = None


def _run_turn(
    argv: list[str], work: Path, env: dict[str, str], timeout: float, cut: Cut | None
) -> tuple[int, bool, str, str]:
    """Run one turn's process; exit code, whether it was killed, stdout, stderr. With `cut`,
    its process group gets the cut's signal when due; after SIGINT it has `ABORT_GRACE` seconds
    to end before it is killed."""
    # The SIGINT of an abort's cut reaches the CLI however loopspec was started.
    children_start_with_default_interrupts()
    process = subprocess.Popen(
        argv,
        cwd=work,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        encoding="utf-8",  # what the CLI writes (its LANG is C.UTF-8), whatever ours is
        errors="replace",
        start_new_session=True,
    )
    try:
        return _turn_awaited(process, work, timeout, cut)
    except BaseException:
        # The session ended while the turn ran (SIGTERM, Ctrl-C: `main`): the CLI, in a session
        # of its own, ends with it, before the session's folder it writes in is removed.
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        raise


def _turn_awaited(
    process: subprocess.Popen[str], work: Path, timeout: float, cut: Cut | None
) -> tuple[int, bool, str, str]:
    """`_run_turn`'s wait for its process, and its cut."""
    if cut is not None:
        deadline = time.monotonic() + timeout
        # Read while waiting (communicate with a timeout keeps what it read): a full pipe would
        # stall the CLI before it ever starts the call the cut is meant for.
        while cut.start_file and not (work / cut.start_file).exists():
            if time.monotonic() > deadline:
                break
            try:
                stdout, stderr = process.communicate(timeout=0.1)
                return process.returncode, False, stdout, stderr
            except subprocess.TimeoutExpired:
                continue
        try:
            stdout, stderr = process.communicate(timeout=cut.seconds)
            return process.returncode, False, stdout, stderr
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, cut.signal)
        if cut.signal == signal.SIGKILL:
            stdout, stderr = process.communicate()
            return process.returncode, False, stdout, stderr
        timeout = ABORT_GRACE
    try:
        stdout, stderr = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        stdout, stderr = process.communicate()
        return process.returncode, True, stdout, stderr
    return process.returncode, False, stdout, stderr


SESSION_ENDING = (signal.SIGTERM, signal.SIGHUP, signal.SIGINT)
"""What ends a session early: loopspec ending its descendants (SIGTERM), its terminal closed,
a Ctrl-C."""


def _ended_once(signum: int, _frame: object) -> None:
    """Unwind the session (its CLI ended, its folder removed); later endings are ignored, so
    that they do not cut that in turn. Its default action left the folder in TMPDIR."""
    _ignore(SESSION_ENDING)
    raise SystemExit(128 + signum)


def _ignore(signals: Iterable[signal.Signals]) -> None:
    for signum in signals:
        signal.signal(signum, signal.SIG_IGN)


def main(argv: list[str]) -> int:
    """`python -m loopspec.properties.harnesses.session REQUEST RESULT`."""
    for signum in SESSION_ENDING:
        if signal.getsignal(signum) is not signal.SIG_IGN:  # `nohup`'s SIGHUP stays ignored
            signal.signal(signum, _ended_once)
    request = _request_from_json(json.loads(Path(argv[0]).read_text(encoding="utf-8")))
    with tempfile.TemporaryDirectory(prefix="loopspec-session-") as root:
        try:
            result = run_inside(request, Path(root))
        finally:
            _ignore(SESSION_ENDING)  # the folder's removal is not cut short, nor the result's
    Path(argv[1]).write_text(json.dumps(result), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
