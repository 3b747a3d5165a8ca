"""`conform --seed N` draws the same programs whatever else the process loaded.

Hypothesis draws now and then from the literals of loaded modules it takes for the user's code
(`loopspec.properties.conformance.source_literals`): a user's `--impl` module holding
integers such as 150 or 200 handed conform other programs for the same seed, and so did
loopspec from a wheel against loopspec from a checkout.
"""

from __future__ import annotations

import importlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Literal

import pytest
from batches import BATCH_SEED
from hypothesis import given, seed, settings
from hypothesis import strategies as st
from hypothesis.internal.conjecture import providers

import loopspec
from loopspec.properties.conformance.source_literals import without_source_literals

# A target that writes each command conform sends to it to $RECORD (one line each), else the
# model's answers: it draws the programs the bundled implementation does (the same 2,599
# commands at --seed 1), in 1.4 s of CPU a run where the implementation took 1.7 s.
_RECORDING_TARGET = """
import os

from loopspec.properties.conformance.target import ModelTarget
{extra_import}

class Recording:
    def __init__(self):
        self.inner = ModelTarget()
        self.name = "recording"

    def __getattr__(self, attribute):
        return getattr(self.inner, attribute)

    def _record(self, line):
        with open(os.environ["RECORD"], "a", encoding="utf-8") as out:
            out.write(line + "\\n")

    def reset(self, config):
        self._record("reset " + repr(config))
        return self.inner.reset(config)

    def apply(self, command):
        self._record(repr(command))
        return self.inner.apply(command)


def make():
    return Recording()
"""

# Every integer a draw below 255 can take from the pool (Hypothesis keeps none under 100).
_LITERALS = "LIMITS = (" + ", ".join(str(n) for n in range(100, 255)) + ")\n"


def _programs(folder: Path, module: str, package_root: Path) -> list[str]:
    """The commands `conform --impl MODULE:make --seed 1` sends, from a fresh process that
    imports loopspec from `package_root`."""
    record = folder / f"{module}.{package_root.name}.sent"
    env = {
        **os.environ,
        "RECORD": str(record),
        "PYTHONPATH": os.pathsep.join([str(package_root), str(folder)]),
    }
    argv = [sys.executable, "-m", "loopspec", "conform", "--impl", f"{module}:make"]
    argv += ["--examples", "100", "--seed", "1", "--format", "json"]
    done = subprocess.run(argv, cwd=folder, env=env, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["conformant"] is True
    return record.read_text(encoding="utf-8").splitlines()


def test_the_same_seed_draws_the_same_programs_wherever_conform_runs(tmp_path: Path) -> None:
    """From this checkout and from a copy as pip installs it, with and without a module of
    literals loaded (with none from loopspec, one such literal changed the programs)."""
    checkout = Path(loopspec.__file__).resolve().parent.parent
    installed = tmp_path / "venv" / "site-packages"
    shutil.copytree(
        checkout / "loopspec", installed / "loopspec", ignore=shutil.ignore_patterns("__pycache__")
    )
    (tmp_path / "limits.py").write_text(_LITERALS, encoding="utf-8")
    (tmp_path / "plain.py").write_text(_RECORDING_TARGET.format(extra_import=""), "utf-8")
    (tmp_path / "with_limits.py").write_text(
        _RECORDING_TARGET.format(extra_import="import limits  # noqa: F401"), "utf-8"
    )
    plain = _programs(tmp_path, "plain", installed)
    assert len(plain) > 500  # the random programs were run, not only the sweeps
    assert _programs(tmp_path, "with_limits", installed) == plain
    assert _programs(tmp_path, "plain", checkout) == plain


def test_the_pool_is_empty_inside_and_back_after() -> None:
    """Fails if Hypothesis renames or moves what `without_source_literals` swaps."""
    before = providers._get_local_constants
    key: tuple[Literal["integer"], tuple[str]] = ("integer", ("a key",))
    providers.CONSTANTS_CACHE[key] = ((), (150,))
    with without_source_literals():
        pool = providers._get_local_constants()
        assert not pool.integers
        assert not pool.strings
        assert key not in providers.CONSTANTS_CACHE
        providers.CONSTANTS_CACHE[key] = ((), ())
    assert providers._get_local_constants is before
    assert key not in providers.CONSTANTS_CACHE


def _drawn_below_255() -> list[int]:
    """The integers a fixed batch of 200 examples draws from 0 to 254."""
    drawn: list[int] = []

    @seed(BATCH_SEED)
    @settings(max_examples=200, database=None, derandomize=False)
    @given(st.integers(0, 254))
    def draw(value: int) -> None:
        drawn.append(value)

    draw()
    return drawn


@pytest.mark.no_cover
def test_a_fixed_batch_of_the_suite_ignores_a_new_module_of_literals(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`conftest.py` keeps the pool out of the suite's draws: a maintainer's new literal
    leaves every fixed batch (`batches.py`) as it was."""
    before = _drawn_below_255()
    (tmp_path / "more_limits.py").write_text(_LITERALS, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    importlib.import_module("more_limits")
    assert _drawn_below_255() == before
