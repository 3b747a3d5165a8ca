"""loopspec installed as a user installs it: a wheel, a fresh venv, a project of the user's own.

The wheel is built from this checkout and installed by pip into a new virtual environment
outside the repository that sees its declared dependencies (and pytest) and nothing else, and
every verb a user starts with is run from a directory that also holds the user's own packages
named `model` and `impl` — names loopspec must not take. The wheel must hold exactly one
top-level package, `loopspec`, with every subpackage of the source tree, SPEC.md and `py.typed`.

The dependencies are not installed a second time (pip resolving and unpacking them cost ~6 s of
CPU): the distributions the wheel's `Requires-Dist` names, and theirs, transitively, are taken
from the environment running the tests (the pinned versions `make test` installs), each checked
against every requirement that names it, and only their files are linked into a folder the
user's venv reads. A module importing a package no declared dependency brings fails here as it
would in a user's venv.
"""

from __future__ import annotations

import email.parser
import importlib.metadata
import json
import os
import re
import subprocess
import sys
import tomllib
import zipfile
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parent.parent
SOURCE_PACKAGES = ("model", "impl", "properties")

USER_MODEL = 'OWNER = "the user"\n'
USER_ADAPTER = '''\
"""The user's adapter module, found in the current directory like `python -m` finds modules."""

import model  # the user's own package, not loopspec's

from loopspec.properties.conformance.impl_target import bundled_target

assert model.OWNER == "the user", model.__file__


def make_target():
    return bundled_target()
'''
# The user's own Hypothesis profile, which the plugin's suite runs with (a short CI budget).
USER_CONFTEST = """\
from hypothesis import settings

settings.register_profile("users-ci", max_examples=20, derandomize=True, database=None)
settings.load_profile("users-ci")
"""
# A wrong loop: the bundled implementation, but the audit record of every call goes missing.
WRONG_LOOP = """\
import attrs

from loopspec.properties.conformance.impl_target import bundled_target


class DropsCallRecords:
    def __init__(self):
        self._inner = bundled_target()
        self.name = "drops-call-records"

    def reset(self, config):
        return self._inner.reset(config)

    def apply(self, command):
        seen = self._inner.apply(command)
        kept = tuple(e for e in seen.events if e.get("type") != "tool/call")
        if len(kept) == len(seen.events):
            return seen
        return attrs.evolve(seen, events=kept, commits=(len(kept),) if kept else ())

    def close(self):
        self._inner.close()


def make_target():
    return DropsCallRecords()
"""


# Where the processes of this file keep bytecode: a folder of this module's own, empty at its
# start, so they compile what they import as a fresh venv would, once; each compiled every
# dependency (Hypothesis, pytest, pydantic) again before (0.9 s of the file's 8.7 s of CPU).
_BYTECODE: list[Path] = []


@pytest.fixture(scope="module", autouse=True)
def _bytecode_folder(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    _BYTECODE.append(tmp_path_factory.mktemp("pycache"))
    yield
    _BYTECODE.clear()


def _run(argv: Sequence[str], cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV"))}
    env["PYTHONPYCACHEPREFIX"] = str(_BYTECODE[-1])
    env["PY_COLORS"] = "0"  # pytest's text uncoloured where a CI asks for colour (FORCE_COLOR)
    return subprocess.run(
        list(argv), cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, check=False
    )


def _requirements(dist: importlib.metadata.Distribution, extras: set[str]) -> list[Requirement]:
    """What `dist` requires when installed with `extras` (none: its plain dependencies)."""
    wanted = []
    for line in dist.requires or []:
        requirement = Requirement(line)
        marker = requirement.marker
        if marker is None or any(marker.evaluate({"extra": e}) for e in {"", *extras}):
            wanted.append(requirement)
    return wanted


def _declared_closure(wheel: Path) -> list[importlib.metadata.Distribution]:
    """The installed distributions the wheel's declared dependencies and pytest need,
    transitively; each version must satisfy every requirement that names it."""
    archive = zipfile.ZipFile(wheel)
    (metadata,) = [n for n in archive.namelist() if n.endswith(".dist-info/METADATA")]
    fields = email.parser.Parser().parsestr(archive.read(metadata).decode())
    declared = [Requirement(line) for line in fields.get_all("Requires-Dist", [])]
    pending = [r for r in declared if r.marker is None or r.marker.evaluate({"extra": ""})]
    assert pending, "the wheel declares no dependencies"
    pending.append(Requirement("pytest"))
    found: dict[str, importlib.metadata.Distribution] = {}
    while pending:
        requirement = pending.pop()
        dist = importlib.metadata.distribution(requirement.name)
        assert requirement.specifier.contains(dist.version, prereleases=True), (
            f"{requirement} is declared, but {dist.version} is installed"
        )
        key = dist.metadata["Name"].lower().replace("_", "-")
        if key not in found:
            found[key] = dist
            pending.extend(_requirements(dist, set(requirement.extras)))
    return list(found.values())


def _link_dependencies(wheel: Path, folder: Path) -> None:
    """Link each package and module of the declared closure into `folder` (top-level names),
    and the bytecode of its single-file modules (compiling typing_extensions alone cost each
    process of the user's venv ~0.1 s)."""
    (folder / "__pycache__").mkdir(parents=True)
    for dist in _declared_closure(wheel):
        assert dist.files is not None, f"{dist.metadata['Name']} lists no files (no RECORD)"
        for top in sorted({f.parts[0] for f in dist.files} - {"..", "__pycache__"}):
            link, target = folder / top, Path(str(dist.locate_file(top)))
            if not link.exists() and target.exists():
                link.symlink_to(target)
        for compiled in (f for f in dist.files if f.parts[0] == "__pycache__"):
            link, target = folder / compiled, Path(str(dist.locate_file(compiled)))
            if not link.exists() and target.exists():
                link.symlink_to(target)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel built from this checkout."""
    out = tmp_path_factory.mktemp("wheelhouse")
    built = _run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
         "-w", str(out), str(ROOT)],
        cwd=out,
    )  # fmt: skip
    assert built.returncode == 0, built.stderr
    (path,) = out.glob("loopspec-*.whl")
    return path


@pytest.fixture(scope="module")
def user_env(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv outside the repository with the wheel installed, seeing its declared
    dependencies and pytest."""
    venv = tmp_path_factory.mktemp("user") / "venv"
    # Without pip: seeding the venv with its own pip (ensurepip) costs ~7 CPU seconds and nothing
    # here runs it; this checkout's pip installs into the venv's interpreter (`--python`).
    made = _run([sys.executable, "-m", "venv", "--without-pip", str(venv)], cwd=venv.parent)
    assert made.returncode == 0, made.stderr
    dependencies = venv.parent / "dependencies"
    _link_dependencies(wheel, dependencies)
    (site,) = (venv / "lib").glob("python3*/site-packages")
    (site / "declared_dependencies.pth").write_text(f"{dependencies}\n", encoding="utf-8")
    installed = _run(
        [sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "install", "-q",
         "--disable-pip-version-check", "--no-deps", str(wheel)],
        cwd=venv.parent,
        timeout=600,
    )  # fmt: skip
    assert installed.returncode == 0, installed.stdout + installed.stderr
    return venv


@pytest.fixture(scope="module")
def project(user_env: Path) -> Path:
    """The user's project: packages named `model` and `impl`, an adapter, a wrong loop, a log."""
    where = user_env.parent / "project"
    for package in ("model", "impl"):
        (where / package).mkdir(parents=True)
        (where / package / "__init__.py").write_text(USER_MODEL, encoding="utf-8")
    (where / "my_adapter.py").write_text(USER_ADAPTER, encoding="utf-8")
    (where / "wrong_loop.py").write_text(WRONG_LOOP, encoding="utf-8")
    (where / "conftest.py").write_text(USER_CONFTEST, encoding="utf-8")
    fixture = ROOT / "tests" / "fixtures" / "logs" / "valid" / "model-demo.jsonl"
    (where / "session.jsonl").write_bytes(fixture.read_bytes())
    return where


def _loopspec(user_env: Path, project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return _run([str(user_env / "bin" / "loopspec"), *args], cwd=project)


def test_the_wheel_holds_one_top_level_package_and_every_source_file(wheel: Path) -> None:
    """Package discovery: every module of model/, impl/, properties/ under `loopspec/`, nothing
    else at the top, SPEC.md and py.typed inside."""
    names = set(zipfile.ZipFile(wheel).namelist())
    top = {name.split("/", 1)[0] for name in names}
    assert top == {"loopspec", wheel.name.split("-")[0] + "-" + wheel.name.split("-")[1]
                   + ".dist-info"}  # fmt: skip
    expected = {
        "loopspec/" + path.relative_to(ROOT).as_posix()
        for package in SOURCE_PACKAGES
        for path in (ROOT / package).rglob("*.py")
    }
    assert expected - names == set()
    assert {"loopspec/SPEC.md", "loopspec/py.typed", "loopspec/model/py.typed"} <= names
    spec = zipfile.ZipFile(wheel).read("loopspec/SPEC.md").decode()
    assert spec == (ROOT / "SPEC.md").read_text(encoding="utf-8")


def test_the_wheel_carries_the_license_it_declares(wheel: Path) -> None:
    """The wheel's metadata declares the MIT license and the wheel ships its text (it declared
    MIT with no license file anywhere, so a user had a name and no terms)."""
    archive = zipfile.ZipFile(wheel)
    (metadata,) = [n for n in archive.namelist() if n.endswith(".dist-info/METADATA")]
    fields = email.parser.Parser().parsestr(archive.read(metadata).decode())
    assert fields["License-Expression"] == "MIT", fields["License-Expression"]
    assert fields.get_all("License-File") == ["LICENSE"], fields.get_all("License-File")
    (text,) = [n for n in archive.namelist() if n.endswith(".dist-info/licenses/LICENSE")]
    shipped = archive.read(text).decode()
    assert shipped.startswith("MIT License\n")
    assert "WITHOUT WARRANTY OF ANY KIND" in shipped
    assert shipped == (ROOT / "LICENSE").read_text(encoding="utf-8")


def test_the_wheel_names_the_pythons_it_requires(wheel: Path) -> None:
    """The version classifiers start at Requires-Python's floor, run without a gap, and name
    the Python running this test, and the README names the same versions: what pip, PyPI and
    the README say is what the code runs on (the README said only "3.11+" for `make demo`)."""
    archive = zipfile.ZipFile(wheel)
    (metadata,) = [n for n in archive.namelist() if n.endswith(".dist-info/METADATA")]
    fields = email.parser.Parser().parsestr(archive.read(metadata).decode())
    floor = re.fullmatch(r">=3\.(\d+)", fields["Requires-Python"])
    assert floor, fields["Requires-Python"]
    prefix = "Programming Language :: Python :: 3."
    minors = sorted(
        int(c.removeprefix(prefix))
        for c in fields.get_all("Classifier", [])
        if c.startswith(prefix) and c.removeprefix(prefix).isdigit()
    )
    assert minors, "the wheel names no Python version it runs on"
    assert minors == list(range(int(floor[1]), minors[-1] + 1)), minors
    assert sys.version_info.minor in minors, f"3.{sys.version_info.minor} is not named"
    named = [f"3.{minor}" for minor in minors]
    said = f"runs on Python {', '.join(named[:-1])} and {named[-1]}"
    assert said in (ROOT / "README.md").read_text(encoding="utf-8"), f"README: '{said}'"


def test_nothing_but_loopspec_lands_in_site_packages(user_env: Path) -> None:
    """The generic names stay free for the user's own packages."""
    (site,) = (user_env / "lib").glob("python3*/site-packages")
    assert not {"model", "impl", "properties"} & {p.name for p in site.iterdir()}


def test_the_venv_sees_the_declared_dependencies_and_no_other_package(user_env: Path) -> None:
    """The declared dependencies and pytest import in the user's venv; the development tools
    installed next to them here (mypy, CrossHair, ruff, coverage) do not."""
    probe = (
        "import importlib.util as u; "
        "print(' '.join(n for n in ('attrs', 'cattrs', 'hypothesis', 'jsonschema', 'zstandard', "
        "'acp', 'pytest', 'mypy', 'crosshair', 'ruff', 'coverage') if u.find_spec(n)))"
    )
    found = _run([str(user_env / "bin" / "python"), "-c", probe], cwd=user_env.parent)
    assert found.returncode == 0, found.stderr
    importable = ["attrs", "cattrs", "hypothesis", "jsonschema", "zstandard", "acp", "pytest"]
    assert found.stdout.split() == importable


def test_version_and_help_from_a_users_project(user_env: Path, project: Path) -> None:
    """`--version` and `--help` work, and `--help` lists every verb with the exit codes."""
    version = _loopspec(user_env, project, "--version")
    assert version.returncode == 0, version.stderr
    assert re.fullmatch(r"loopspec \d+\.\d+\.\d+\S*\n", version.stdout)
    shown = _loopspec(user_env, project, "--help")
    assert shown.returncode == 0, shown.stderr
    for verb in ("conform", "replay", "check", "run", "schema", "spec", "demo"):
        assert f"    {verb} " in shown.stdout
    assert "exit status" in shown.stdout


def test_conform_check_and_schema_work_installed(user_env: Path, project: Path) -> None:
    """The main verbs run with only the declared dependencies."""
    conform = _loopspec(user_env, project, "conform", "--examples", "20")
    assert conform.returncode == 0, conform.stdout + conform.stderr
    checked = _loopspec(user_env, project, "check", "session.jsonl")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    schema = _loopspec(user_env, project, "schema")
    assert schema.returncode == 0, schema.stderr
    assert json.loads(schema.stdout)["$schema"]


def test_impl_factories_are_found_in_the_current_directory(user_env: Path, project: Path) -> None:
    """`--impl my_adapter:make_target` imports the user's module like `python -m` does, and the
    user's `model` package stays the user's."""
    conform = _loopspec(
        user_env, project, "conform", "--impl", "my_adapter:make_target", "--examples", "10"
    )
    assert conform.returncode == 0, conform.stdout + conform.stderr


def test_the_pytest_plugin_runs_against_a_users_adapter(user_env: Path, project: Path) -> None:
    """`pytest --loopspec-impl=...` in the user's venv, from the user's project."""
    ran = _run(
        [str(user_env / "bin" / "python"), "-m", "pytest", "-q", "-p", "no:cacheprovider",
         "--loopspec-impl=my_adapter:make_target"],
        cwd=project,
    )  # fmt: skip
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert re.search(r"\b1 passed\b", ran.stdout)


def test_a_counterexample_quotes_the_shipped_spec(user_env: Path, project: Path) -> None:
    """SPEC.md is package data: the report of a wrong loop quotes the broken rule's text."""
    found = _loopspec(
        user_env, project, "conform", "--impl", "wrong_loop:make_target", "--examples", "20"
    )
    assert found.returncode == 1, found.stdout + found.stderr
    assert re.search(r"^\s*### [A-Z]+-\d+ \w", found.stdout, re.M), found.stdout
    assert "Traceback" not in found.stderr


@pytest.mark.parametrize(
    "argv",
    [
        ("check", "missing.jsonl"),
        ("check", "my_adapter.py"),
        ("conform", "--examples", "many"),
        ("conform", "--impl", "no_such_module:make"),
        ("replay", "my_adapter.py"),
        ("run", "missing-scenario.json", "--hooks", "missing-settings.json"),
    ],
    ids=" ".join,
)
def test_bad_input_is_one_sentence_and_exit_2(
    user_env: Path, project: Path, argv: tuple[str, ...]
) -> None:
    """Installed, from the user's project: a missing file, a wrong type, a bad target."""
    before = {p: p.read_bytes() for p in project.rglob("*") if p.is_file()}
    done = _loopspec(user_env, project, *argv)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    assert (done.stdout + done.stderr).strip(), "an error says what went wrong"
    assert {p: p.read_bytes() for p in project.rglob("*") if p.is_file()} == before


def test_the_editable_install_names_this_checkout_and_builds_without_a_warning(
    tmp_path: Path,
) -> None:
    """`make venv`'s `pip install -e` (setuptools' build_editable, with the pinned setuptools)
    builds a wheel whose one .pth file names this checkout: setuptools' import finder for
    `loopspec`, built before, printed "BuildBackendWarning: Editable installation ... folders
    in your working directory with the same name as your package" in a fresh clone's first
    `make demo`, and imported pathlib, re and enum in every Python process the venv started."""
    build = "import sys; from setuptools import build_meta; build_meta.build_editable(sys.argv[1])"
    done = _run([sys.executable, "-c", build, str(tmp_path)], cwd=ROOT)
    assert done.returncode == 0, done.stderr
    warned = re.findall(r"\w*(?:Warning|InformationOnly): .*", done.stdout + done.stderr)
    assert warned == []
    (editable,) = tmp_path.glob("loopspec-*.whl")
    with zipfile.ZipFile(editable) as wheel:
        paths = [wheel.read(name) for name in wheel.namelist() if name.endswith(".pth")]
    assert paths == [f"{ROOT}\n".encode()]


def test_make_harnesses_lets_npm_run_each_install_script_its_pinned_clis_have() -> None:
    """Every package with an install script in a lockfile `make harnesses` runs `npm ci` on is
    named in that folder's package.json `allowScripts`: npm 11.19 warned "1 package has install
    scripts not yet covered by allowScripts" on a fresh clone's `make test` (it still ran it), and
    npm's install-scripts page says such scripts are blocked by default, which would leave
    Claude Code's bin/claude.exe its placeholder, not the CLI."""
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    folders = re.findall(r"^\t\$\(call npm_ci,(examples/[\w-]+),", makefile, re.M)
    assert "examples/claude-code-adapter" in folders, folders
    unallowed = {}
    for folder in folders:
        lock = json.loads((ROOT / folder / "package-lock.json").read_text(encoding="utf-8"))
        manifest = json.loads((ROOT / folder / "package.json").read_text(encoding="utf-8"))
        scripted = {
            path.removeprefix("node_modules/")
            for path, entry in lock["packages"].items()
            if entry.get("hasInstallScript")
        }
        # An entry is a name, or name@version (the leading @ of a scope is the name's).
        allowed = {
            entry[0] + entry[1:].split("@")[0]
            for entry, allow in manifest.get("allowScripts", {}).items()
            if allow is True
        }
        unallowed[folder] = sorted(scripted - allowed)
    assert unallowed == {folder: [] for folder in folders}


def test_the_pinned_setuptools_is_one_the_build_system_accepts() -> None:
    """`make venv` and the wheel above build without build isolation, with the setuptools the dev
    extra pins (the Makefile reads the pin from pyproject.toml and installs it beside pip): pip
    then no longer installs what `[build-system] requires` asks for, so the pin must satisfy it
    (a floor raised past the pin would otherwise build with a setuptools it refuses). It reads
    requires-python's floor too, and refuses an older python3 first."""
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    (pinned,) = [
        Requirement(text)
        for text in pyproject["project"]["optional-dependencies"]["dev"]
        if Requirement(text).name == "setuptools"
    ]
    (version,) = [spec.version for spec in pinned.specifier if spec.operator == "=="]
    for text in pyproject["build-system"]["requires"]:
        wanted = Requirement(text)
        if wanted.name == "setuptools":
            assert wanted.specifier.contains(version), f"setuptools=={version} is not {wanted}"
    recipe = subprocess.run(
        ["make", "--dry-run", "--always-make", "venv"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert f"--upgrade pip 'setuptools=={version}'" in recipe, recipe
    assert "--no-build-isolation -e '.[dev]'" in recipe, recipe
    # Before the venv is made, the recipe refuses a python3 older than requires-python's floor.
    floor = pyproject["project"]["requires-python"].removeprefix(">=")
    assert f'sys.version_info < tuple(map(int, "{floor}".split(".")))' in recipe, recipe
    assert f"loopspec needs {floor} or later" in recipe, recipe
