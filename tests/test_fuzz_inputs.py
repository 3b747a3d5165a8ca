"""Generated bad input thrown at every verb and every file a user supplies (rules SAFE-1..5).

Each attempt writes one generated file (a scenario, a hooks settings file, a case file, a log,
or the lines a `--cmd` target answers with) into a fresh directory, runs the verb in this
process with stdout and stderr encoded strictly as UTF-8 (as a terminal would), and asserts:

- the exit code is 0, 1 or 2, and nothing escaped `main` (no traceback);
- no file in the directory changed except the output path the verb was given;
- no process started for the attempt is alive afterwards (every one carries a marker variable
  in its environment, looked for in /proc);
- the run ended (each attempt is bounded by a hang guard, not timed).

The memory bound is asserted in separate processes with an address-space limit
(`MEMORY_LIMIT`), fed inputs that are endless or larger than the caps SPEC.md SAFE-4 states
(scenario and case files 16 MiB, hooks settings 4 MiB, a target line 16 MiB, a log line
`--max-line-bytes`). The examples are derandomized, so every run throws the same inputs.
Outcomes are counted in `OUTCOMES` and printed by the last test (`pytest -s` shows them).
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import resource
import shlex
import signal
import subprocess
import sys
import tempfile
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from types import FrameType
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from loopspec.impl.log_reader import parse_log
from loopspec.properties.cli.main import main

ROOT = Path(__file__).resolve().parent.parent
REGRESSION = ROOT / "tests" / "regressions" / "dsh-duplicate-call-ids.json"
MARK_VARIABLE = "LOOPSPEC_FUZZ_MARK"
HANG_GUARD_S = 60
MEMORY_LIMIT = 1536 * 1024 * 1024
"""Address space a whole `loopspec` process may use while fed endless or oversized input."""
OUTCOMES: Counter[str] = Counter()

FUZZ = settings(
    derandomize=True,
    database=None,
    deadline=None,
    max_examples=40,
    suppress_health_check=list(HealthCheck),
    print_blob=True,
)

SCENARIO: dict[str, Any] = {
    "tools": [{"name": "bash", "concurrencySafe": False, "requiredKeys": ["command"]}],
    "maxParallel": 4,
    "turns": [
        {
            "user": "list",
            "replies": [
                {
                    "blocks": [
                        {"type": "text", "text": "looking"},
                        {
                            "type": "tool-call",
                            "id": "c1",
                            "name": "bash",
                            "arguments": '{"command": "ls"}',
                        },
                    ],
                    "finish": "completed",
                },
                {"blocks": [{"type": "text", "text": "done"}], "finish": "completed"},
            ],
        }
    ],
    "results": {"c1": {"ok": True, "text": "a b"}},
    "approvals": {"c1": "allowed-once"},
    "defaultApproval": "rejected",
}
HOOK_COMMANDS = (
    "cat >/dev/null",
    'printf \'%s\' \'{"hookSpecificOutput": {"hookEventName": "PreToolUse", '
    '"permissionDecision": "deny", "permissionDecisionReason": "no"}}\'',
    "setsid sleep 30 & echo '{}'",
    "setsid sh -c 'sleep 30' >/dev/null 2>&1 & exit 2",
    "head -c 100000 /dev/zero",
    "exit 7",
    "sleep 30",
)
SETTINGS: dict[str, Any] = {
    "hooks": {
        "PreToolUse": [
            {"matcher": "bash", "hooks": [{"type": "command", "command": "cat >/dev/null"}]}
        ],
        "PostToolUse": [{"hooks": [{"type": "command", "command": "true", "timeout": 2}]}],
    }
}

# --- generating bad documents --------------------------------------------------------------------

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.sampled_from([0, -1, 1e308, -0.0, 10**400, 1.5, 2**63]),
    st.text(max_size=12),
    st.sampled_from(["", "x\ud800y", "\x1b[2J", "../../etc/passwd", "*", "(", "c1", "bash"]),
)
json_values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=8,
)


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield prefix
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _paths(item, (*prefix, index))


def _replaced(document: Any, path: tuple[Any, ...], value: Any) -> Any:
    if not path:
        return value
    head, rest = path[0], path[1:]
    if isinstance(document, dict):
        return {**document, head: _replaced(document[head], rest, value)}
    copy = list(document)
    copy[head] = _replaced(copy[head], rest, value)
    return copy


@st.composite
def mutated(draw: st.DrawFn, base: Any) -> bytes:
    """`base` with a few subtrees replaced, as JSON text; sometimes damaged as bytes too."""
    document = base
    for _ in range(draw(st.integers(min_value=1, max_value=3))):
        path = draw(st.sampled_from(list(_paths(document))))
        document = _replaced(document, path, draw(json_values))
    text = json.dumps(document, ensure_ascii=draw(st.booleans()), allow_nan=True)
    data = text.encode("utf-8", "surrogatepass")
    damage = draw(st.sampled_from(["none", "none", "truncate", "deep", "bytes", "number"]))
    if damage == "truncate":
        data = data[: draw(st.integers(min_value=0, max_value=len(data)))]
    elif damage == "deep":
        depth = draw(st.sampled_from([150, 250, 5000, 100_000]))
        data = data[:-1] + b', "deep": ' + b"[" * depth + b"]" * depth + b"}"
    elif damage == "bytes":
        at = draw(st.integers(min_value=0, max_value=len(data)))
        data = data[:at] + draw(st.binary(min_size=1, max_size=6)) + data[at:]
    elif damage == "number":
        data = data[:-1] + b', "maxParallel": 1' + b"0" * 400 + b"}"
    return data


# --- running one attempt -------------------------------------------------------------------------


def _snapshot(directory: Path) -> dict[str, str]:
    found = {}
    for path in sorted(directory.rglob("*")):
        if path.is_symlink() or not path.is_file():
            found[str(path)] = "special"
            continue
        found[str(path)] = hashlib.sha256(path.read_bytes()).hexdigest()
    return found


def _marked_alive(mark: str) -> list[int]:
    needle = f"{MARK_VARIABLE}={mark}".encode()
    alive = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            environ = Path(entry.path, "environ").read_bytes()
            state = Path(entry.path, "stat").read_bytes()
        except OSError:
            continue
        if needle in environ.split(b"\0") and state[state.rfind(b")") + 2 :][:1] not in b"ZXx":
            alive.append(int(entry.name))
    return alive


def _hang_guard(signum: int, frame: FrameType | None) -> None:
    raise AssertionError(f"an attempt ran past the {HANG_GUARD_S} s hang guard")


def attempt(
    verb: str,
    argv: list[str],
    directory: Path,
    output: Path | None = None,
    new_files_in: Path | None = None,
) -> int:
    """Run one verb on generated input; assert the SAFE promises; the exit code.

    `output` may change; files may be added under `new_files_in` (conform's case folder: a
    target broken mid-program leaves the case that replays it), none changed."""
    before = _snapshot(directory)
    mark = uuid.uuid4().hex
    os.environ[MARK_VARIABLE] = mark
    out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="strict")
    err = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="strict")
    previous = signal.signal(signal.SIGALRM, _hang_guard)
    signal.alarm(HANG_GUARD_S)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main(argv)
            except SystemExit as exit_:  # argparse's usage errors
                code = exit_.code if isinstance(exit_.code, int) else 2
            out.flush()
            err.flush()
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
        del os.environ[MARK_VARIABLE]
    assert code in (0, 1, 2), f"{verb}: exit {code}"
    errors = err.buffer.getvalue().decode("utf-8")
    assert "Traceback" not in errors
    after = _snapshot(directory)
    if output is not None:
        before.pop(str(output), None)
        after.pop(str(output), None)
    if new_files_in is not None:
        for added in set(after) - set(before):
            if Path(added) == new_files_in or new_files_in in Path(added).parents:
                del after[added]
    assert after == before, f"{verb} changed files other than its output"
    assert _marked_alive(mark) == [], f"{verb} left processes alive"
    OUTCOMES[f"{verb} exit {code}"] += 1
    return code


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _fresh(parent: Path) -> Path:
    return Path(tempfile.mkdtemp(dir=parent))


# --- the verbs -----------------------------------------------------------------------------------


@pytest.mark.no_cover
@FUZZ
@given(data=mutated({**SCENARIO}))
def test_SAFE_4_fuzz_run_scenarios(workdir: Path, data: bytes) -> None:
    """SAFE-4: `run` on generated scenario files."""
    directory = _fresh(workdir)
    scenario = directory / "scenario.json"
    scenario.write_bytes(data)
    log = directory / "out.jsonl"
    attempt("run scenario", ["run", str(scenario), "--log", str(log)], directory, log)


# Coverage off: deterministic tests cover every model arc this does (benchmarks/coverage_owners.py).
@pytest.mark.no_cover
@FUZZ
@given(
    data=mutated(SETTINGS),
    commands=st.lists(st.sampled_from(HOOK_COMMANDS), min_size=1, max_size=2),
    fail_closed=st.booleans(),
    well_formed=st.booleans(),
)
def test_SAFE_4_fuzz_run_hooks_settings(
    workdir: Path, *, data: bytes, commands: list[str], fail_closed: bool, well_formed: bool
) -> None:
    """SAFE-3, SAFE-4: `run --hooks` on generated settings, or on well-formed settings whose
    hooks misbehave (hang, crash, flood, leave `setsid` children behind)."""
    directory = _fresh(workdir)
    scenario = directory / "scenario.json"
    scenario.write_text(json.dumps({**SCENARIO, "cwd": str(directory)}), encoding="utf-8")
    handlers = [{"type": "command", "command": c, "timeout": 1} for c in commands]
    real = {"hooks": {"PreToolUse": [{"matcher": "bash", "hooks": handlers}]}}
    hooks = directory / "hooks.json"
    hooks.write_bytes(json.dumps(real).encode() if well_formed else data)
    log = directory / "out.jsonl"
    argv = ["run", str(scenario), "--log", str(log), "--hooks", str(hooks)]
    attempt("run hooks", [*argv, "--fail-closed"] if fail_closed else argv, directory, log)


CASE = json.loads(REGRESSION.read_text(encoding="utf-8"))


# Coverage off: deterministic tests cover every model arc this does (benchmarks/coverage_owners.py).
@pytest.mark.no_cover
@FUZZ
@given(data=mutated(CASE))
def test_SAFE_1_fuzz_replay_case_files(workdir: Path, data: bytes) -> None:
    """SAFE-1, SAFE-4: `replay` on generated case files: never runs their target."""
    directory = _fresh(workdir)
    case = directory / "case.json"
    case.write_bytes(data.replace(b"examples/dsh-adapter/run.sh", b"touch ran-by-replay"))
    attempt("replay", ["replay", str(case)], directory)
    assert not (workdir / "ran-by-replay").exists()
    assert not (directory / "ran-by-replay").exists()


def _valid_log(directory: Path) -> bytes:
    scenario = directory / "s.json"
    scenario.write_text(json.dumps({**SCENARIO, "cwd": str(directory)}), encoding="utf-8")
    log = directory / "valid.jsonl"
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["run", str(scenario), "--log", str(log)]) == 0
    data = log.read_bytes()
    log.unlink()
    scenario.unlink()
    return data


@pytest.mark.no_cover
@FUZZ
@given(
    cut=st.integers(min_value=0, max_value=4000),
    junk=st.binary(max_size=40),
    line=st.integers(min_value=0, max_value=30),
    suffix=st.sampled_from([".jsonl", ".jsonl.zst"]),
    append=st.booleans(),
    damage=st.sampled_from(["bytes", "swap", "drop", "repeat"]),
)
def test_SAFE_2_fuzz_logs_for_check_and_run(
    workdir: Path,
    *,
    cut: int,
    junk: bytes,
    line: int,
    suffix: str,
    append: bool,
    damage: str,
) -> None:
    """SAFE-2, SAFE-4: damaged logs for `check`, and as the --log `run` is asked to append to:
    bytes cut and spliced into a line, or whole lines swapped, dropped or repeated."""
    directory = _fresh(workdir)
    lines = _valid_log(directory).splitlines(keepends=True)
    line = min(line, len(lines) - 2)
    if damage == "bytes":
        lines[line] = lines[line][: cut % (len(lines[line]) + 1)] + junk
    elif damage == "swap":
        lines[line], lines[line + 1] = lines[line + 1], lines[line]
    elif damage == "drop":
        del lines[line]
    else:
        lines.insert(line, lines[line])
    log = directory / f"damaged{suffix}"
    log.write_bytes(b"".join(lines))
    attempt("check", ["check", str(log)], directory)
    if append:
        scenario = directory / "scenario.json"
        scenario.write_text(json.dumps({**SCENARIO, "cwd": str(directory)}), encoding="utf-8")
        before = log.read_bytes()
        code = attempt(
            "run --log damaged", ["run", str(scenario), "--log", str(log)], directory, log
        )
        if code != 0:
            assert log.read_bytes() == before  # refused: untouched (SAFE-2)
        else:
            # Appended to: only a crash tail (LOG-8) may have been cut.
            assert log.read_bytes().startswith(before[: parse_log(before).valid_bytes])


READY = {
    "type": "ready",
    "protocol": 1,
    "implementation": "fuzz",
    "capabilities": ["pre-hooks"],
}


# Coverage off: deterministic tests cover every model arc this does (benchmarks/coverage_owners.py).
@pytest.mark.no_cover
@settings(FUZZ, max_examples=15)
@given(
    answer=st.one_of(
        json_values.map(lambda value: json.dumps(value).encode()),
        st.binary(max_size=60),
        st.sampled_from(
            [
                b"[" * 100_000 + b"]" * 100_000,
                b'{"type": "observed", "seq": 0}',
                b'{"type": "observed", "seq": 0, "accepted": true, "events": [], '
                b'"commits": [1], "executed": []}',
                b"\xff\xfe",
                b"",
            ]
        ),
    ),
    newline=st.booleans(),
    leave_child=st.booleans(),
    ready=st.booleans(),
)
def test_SAFE_5_fuzz_target_output(
    workdir: Path, answer: bytes, newline: bool, leave_child: bool, ready: bool
) -> None:
    """SAFE-3, SAFE-5: `conform --cmd` with a target answering generated lines."""
    directory = _fresh(workdir)
    (directory / "ready.txt").write_bytes((json.dumps(READY).encode() if ready else answer) + b"\n")
    (directory / "answer.txt").write_bytes(answer + (b"\n" if newline else b""))
    child = "setsid sleep 60 & " if leave_child else ""
    script = f"{child}read a; cat ready.txt; read b; cat answer.txt"
    argv = ["conform", "--cmd", f"sh -c {shlex.quote(script)}", "--examples", "1", "--steps", "2"]
    os.chdir(directory)
    try:
        argv += ["--case-dir", "cases"]
        attempt("conform --cmd", argv, directory, new_files_in=directory / "cases")
    finally:
        os.chdir(workdir)


@pytest.mark.parametrize(
    "argv",
    [
        ["check", "--max-line-bytes", "9" * 30, "x"],
        ["check", "--max-violations", "-5", "x"],
        ["conform", "--cmd", "python3 'abc"],
        ["conform", "--cmd", ""],
        ["conform", "--examples", "0"],
        ["conform", "--steps", "0"],
        ["conform", "--exhaustive", "-1"],
        ["demo", "--examples", "0"],
        ["conform", "--impl", "nonexistent_module:factory"],
        ["conform", "--impl", "os:getcwd"],
        ["conform", "--impl", "no-colon"],
        ["replay", "missing.json"],
        ["run", "missing.json"],
        ["run", "."],
        ["spec", "--check", "missing.md"],
        ["spec", "--check", "/dev/zero"],
        ["spec", "--write", "/dev/zero"],
        ["spec", "--check", "."],
        ["schema", "--bogus"],
        ["demo", "--bogus"],
        ["nonsense-verb"],
        [],
    ],
)
def test_SAFE_4_fuzz_bad_arguments(workdir: Path, argv: list[str]) -> None:
    """SAFE-4: malformed arguments to every verb: exit 2, no traceback."""
    assert attempt(" ".join(argv[:1]) or "(none)", argv, workdir) == 2


# --- the memory bound, in separate processes -----------------------------------------------------


def _limited() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


@pytest.mark.no_cover
@pytest.mark.parametrize(
    ("name", "argv"),
    [
        ("scenario /dev/zero", ["run", "/dev/zero", "--log", "out.jsonl"]),
        ("scenario over the cap", ["run", "big.json", "--log", "out.jsonl"]),
        ("hooks over the cap", ["run", "small.json", "--hooks", "big.json", "--log", "o.jsonl"]),
        ("case over the cap", ["replay", "big.json"]),
        ("case /dev/zero", ["replay", "/dev/zero"]),
        ("target endless line", ["conform", "--cmd", "cat /dev/zero", "--examples", "1"]),
        ("log endless line", ["check", "big.jsonl"]),
    ],
)
def test_SAFE_4_memory_stays_bounded_on_endless_and_oversized_input(
    tmp_path: Path, name: str, argv: list[str]
) -> None:
    """SAFE-4: endless or oversized input under an address-space limit: exit 2, no traceback."""
    inputs: dict[str, Callable[[], bytes]] = {
        "big.json": lambda: b"[" * (17 * 1024 * 1024),
        "big.jsonl": lambda: b"x" * (80 * 1024 * 1024),
        "small.json": lambda: json.dumps(SCENARIO).encode(),
    }
    # Only the files this command line reads: writing all 97 MB for each case was most of the
    # in-process cost of these tests.
    for file_name, content in inputs.items():
        if file_name in argv:
            (tmp_path / file_name).write_bytes(content())
    done = subprocess.run(
        [sys.executable, "-m", "loopspec.properties.cli.main", *argv],
        capture_output=True,
        timeout=HANG_GUARD_S,
        cwd=tmp_path,
        preexec_fn=_limited,
        check=False,
    )
    stderr = done.stderr.decode("utf-8", "replace")
    assert done.returncode == 2, stderr
    assert "Traceback" not in stderr
    assert "MemoryError" not in stderr
    OUTCOMES[f"memory-capped {name} exit {done.returncode}"] += 1


def test_SAFE_4_fuzz_outcomes_are_reported() -> None:
    """SAFE-4: the counts of every attempt above, by verb and exit code (`pytest -s`)."""
    total = sum(OUTCOMES.values())
    print(f"\nfuzz attempts: {total}")
    for outcome, count in sorted(OUTCOMES.items()):
        print(f"  {count:>5}  {outcome}")
    assert total == 0 or all(" exit " in outcome for outcome in OUTCOMES)
