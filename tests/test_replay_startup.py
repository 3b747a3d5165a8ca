"""`loopspec replay` on the bundled implementation imports only what a replay runs.

Correctness tests, not timed ones (`benchmarks/bench_cli.py` measures the time): each asks a
fresh interpreter which modules a replay left in `sys.modules`. A replay generates no program
(no Hypothesis, no conformance machine, no strategies), checks no `--cmd` target's answers
against the driver protocol's schema (no jsonschema) and runs no command hook (no hook bridge:
`reaping`, which every verb starting processes imports, lives in its package). Each was
imported at load time, a half of a replay's start-up; conform still imports all of them.
"""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
from pathlib import Path

import pytest
from test_check_startup import loaded_of, modules_after

from loopspec.impl import hookbridge

NEVER_FOR_REPLAY = (
    "hypothesis",
    "jsonschema",
    "loopspec.impl.hookbridge.audit",
    "loopspec.impl.hookbridge.bridge",
    "loopspec.impl.hookbridge.settings",
    "loopspec.properties.conformance.machine",
    "loopspec.properties.conformance.presentation_sweep",
    "loopspec.properties.conformance.situation_sweep",
    "loopspec.properties.stateful",
    "pydantic",
)
REGRESSIONS = Path(__file__).parent / "regressions"
# (the cases, the options after them): one case, in text and in JSON, and two at once.
REPLAYS = {
    "text": (["dsh-abort-drops-queued-input.json"], ["--bundled"]),
    "json": (["claude-code-ABORT-1.json"], ["--format", "json", "--bundled"]),
    "two": (
        ["dsh-hook-audit-shape.json", "codex-ABORT-1.json"],
        ["--profile", "none", "--bundled"],
    ),
}


@pytest.mark.parametrize("run", list(REPLAYS))
def test_replaying_a_case_on_the_bundled_impl_imports_no_generator_schema_or_hook_bridge(
    run: str,
) -> None:
    """The replay runs to its verdict (exit 0, no divergence: the bundled implementation keeps
    the rules each case was saved for breaking) without any of `NEVER_FOR_REPLAY`."""
    cases, options = REPLAYS[run]
    paths = [str(REGRESSIONS / case) for case in cases]
    modules = modules_after(
        "import contextlib, io\n"
        "from loopspec.properties.cli.main import main\n"
        "out = io.StringIO()\n"
        "with contextlib.redirect_stdout(out):\n"
        f"    status = main(['replay', *{paths!r}, *{options!r}])\n"
        "assert status == 0, out.getvalue()"
    )
    assert "loopspec.properties.conformance.impl_adapter" in modules  # it did replay
    assert "loopspec.impl.hookbridge.reaping" in modules  # and ended its descendants
    assert loaded_of(modules, NEVER_FOR_REPLAY) == set()


def test_the_hook_bridge_package_gives_each_of_its_names_from_its_module() -> None:
    """`loopspec.impl.hookbridge` imports its modules when a name is first asked for: every
    name it exports is its home module's object, and a name it lacks is an AttributeError."""
    for name in hookbridge.__all__:
        home = importlib.import_module(hookbridge._HOME[name])
        assert getattr(hookbridge, name) is getattr(home, name), name
    with pytest.raises(AttributeError, match="no attribute 'HookBridges'"):
        _ = hookbridge.HookBridges  # type: ignore[attr-defined]


def test_the_hook_bridge_package_shows_its_names_before_they_are_imported() -> None:
    """`dir()`, `help()` and `python -m pydoc` on the lazy package list its public API in a
    fresh interpreter, where no name has been asked for yet: they showed no class or function."""
    script = (
        "import json, pydoc, sys\n"
        "from loopspec.impl import hookbridge\n"
        "print(json.dumps(dir(hookbridge)))\n"
        "print(json.dumps('loopspec.impl.hookbridge.bridge' in sys.modules))\n"
        "print(pydoc.render_doc(hookbridge, renderer=pydoc.plaintext))"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], check=True, capture_output=True, text=True
    )
    names, imported_before, doc = done.stdout.split("\n", 2)
    assert json.loads(imported_before) is False  # dir() itself imported nothing
    assert set(hookbridge.__all__) <= set(json.loads(names))
    for shown in ("class HookBridge", "class HookSettingsError", "load_settings(", "CLAUDE_CODE"):
        assert shown in doc, shown
