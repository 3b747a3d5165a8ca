"""`loopspec --version` reads the installed wheel's metadata beside the package, or, in an
editable install, the metadata importlib.metadata would find first on `sys.path`, without
importing importlib.metadata (which cost `--version` ~40 ms, 5.3x `python -c pass` in
instructions), and says what importlib.metadata would say."""

from __future__ import annotations

import importlib.metadata
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import loopspec
from loopspec.version_lookup import version_beside, version_on_path


def _install_metadata(folder: Path, version: str, name: str = "loopspec") -> None:
    info = folder / f"{name}-{version}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.4\nName: {name}\nVersion: {version}\n\nVersion: not this one\n",
        encoding="utf-8",
    )


def test_the_version_of_the_one_wheel_installed_beside_the_package(tmp_path: Path) -> None:
    _install_metadata(tmp_path, "3.2.1")
    _install_metadata(tmp_path, "9.9.9", name="loopspec_other")
    assert version_beside(str(tmp_path)) == "3.2.1"


def test_no_version_beside_a_package_without_one_or_with_two(tmp_path: Path) -> None:
    """None, so that importlib.metadata is asked: no wheel's metadata there (an editable
    install, a source tree), two (which one is this copy is not known), or none readable."""
    assert version_beside(str(tmp_path)) is None
    assert version_beside(str(tmp_path / "missing")) is None
    _install_metadata(tmp_path, "1.0.0")
    _install_metadata(tmp_path, "2.0.0")
    assert version_beside(str(tmp_path)) is None
    unreadable = tmp_path / "unreadable"
    unreadable.mkdir()
    (unreadable / "loopspec-1.0.0.dist-info").mkdir()
    assert version_beside(str(unreadable)) is None


def test_the_version_is_the_one_importlib_metadata_finds() -> None:
    assert loopspec.__version__ == importlib.metadata.version("loopspec")


def test_version_imports_no_importlib_metadata_where_a_wheel_is_installed(tmp_path: Path) -> None:
    """A copy of the package beside one wheel's metadata answers `--version` with that
    metadata's version, importlib.metadata never imported."""
    site = tmp_path / "site-packages"
    site.mkdir()
    package = Path(loopspec.__file__).parent
    (site / "loopspec").mkdir()
    for module in ("__init__.py", "version_lookup.py"):
        (site / "loopspec" / module).write_bytes((package / module).read_bytes())
    _install_metadata(site, "7.7.7")
    probe = (
        "import sys, loopspec\nprint(loopspec.__version__, 'importlib.metadata' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-S", "-c", probe],
        capture_output=True,
        text=True,
        check=True,
        cwd=site,
    )
    assert done.stdout.split() == ["7.7.7", "False"]


def _folders(tmp_path: Path, *holding: tuple[str, ...] | str) -> list[str]:
    """A `sys.path` of folders in `tmp_path`, each holding the metadata folders named (a
    string: a file of that name, as a zip file on the path is)."""
    folders = []
    for index, names in enumerate(holding):
        folder = tmp_path / f"entry{index}"
        if isinstance(names, str):
            folder.write_text(names)
        else:
            folder.mkdir()
            for name in names:
                (folder / name).mkdir()
                version = name.partition("-")[2].rpartition(".")[0] or "0.0.1"
                metadata = f"Metadata-Version: 2.4\nName: loopspec\nVersion: {version}\n\n"
                (folder / name / ("PKG-INFO" if "egg" in name else "METADATA")).write_text(metadata)
        folders.append(str(folder))
    return folders


@pytest.mark.parametrize(
    ("holding", "version"),
    [
        ((), None),
        (((), ("loopspec-3.2.1.dist-info",), ("loopspec-9.9.9.dist-info",)), "3.2.1"),
        ((("loopspec_other-1.0.dist-info", "LoopSpec-4.0.dist-info"),), "4.0"),
        ((("loopspec.egg-info",), ("loopspec-3.2.1.dist-info",)), "0.0.1"),
        ((("loopspec-1.0.dist-info", "loopspec-2.0.dist-info"),), None),
        (("a zip file", ("loopspec-3.2.1.dist-info",)), None),
    ],
    ids=["none", "first-folder's", "any-case", "egg-first", "two", "zip-first"],
)
def test_the_version_on_the_path_is_the_one_importlib_metadata_finds_or_none(
    tmp_path: Path, holding: tuple[tuple[str, ...] | str, ...], version: str | None
) -> None:
    """The first folder holding loopspec's metadata answers where it is one wheel's (None
    where importlib.metadata might find another: it is then asked); what it answers is what
    importlib.metadata finds on the same path."""
    folders = [str(tmp_path / "missing"), *_folders(tmp_path, *holding)]
    assert version_on_path(folders) == version
    if version is not None:
        found = importlib.metadata.distributions(name="loopspec", path=folders)
        assert next(iter(found)).version == version


def test_version_is_answered_without_argparse() -> None:
    """`loopspec --version` prints what argparse's `--version` printed, and exits 0, without
    importing argparse (with the gettext and locale its messages look up, ~3 ms) or, in this
    editable install, importlib.metadata (run without the current folder on the path, where a
    wheel's build leaves `loopspec.egg-info`)."""
    probe = (
        "import contextlib, io, json, sys\n"
        "from loopspec.properties.cli.main import main\n"
        "out = io.StringIO()\n"
        "code = None\n"
        "try:\n"
        "    with contextlib.redirect_stdout(out):\n"
        "        main(['--version'])\n"
        "except SystemExit as exited:\n"
        "    code = exited.code\n"
        "imported = [name in sys.modules for name in ('argparse', 'importlib.metadata')]\n"
        "print(json.dumps([out.getvalue(), code, imported]))\n"
    )
    environment = {name: value for name, value in os.environ.items() if name != "PYTHONPATH"}
    done = subprocess.run(
        [sys.executable, "-P", "-c", probe],
        capture_output=True,
        text=True,
        check=True,
        env=environment,
    )
    assert json.loads(done.stdout) == [f"loopspec {loopspec.__version__}\n", 0, [False, False]]


def test_an_egg_info_file_on_the_path_is_left_to_importlib_metadata(tmp_path: Path) -> None:
    """An `.egg-info` that is a file (an old install's), which importlib.metadata reads whole,
    answers None: importlib.metadata is asked, not a METADATA or PKG-INFO inside it."""
    (tmp_path / "loopspec.egg-info").write_text(
        "Metadata-Version: 1.0\nName: loopspec\nVersion: 5\n"
    )
    assert version_on_path([str(tmp_path)]) is None
    found = importlib.metadata.distributions(name="loopspec", path=[str(tmp_path)])
    assert next(iter(found)).version == "5"
