"""`loopspec --version` reads the installed wheel's metadata beside the package, without
importing importlib.metadata (which cost `--version` ~40 ms), and says what importlib.metadata
would say."""

from __future__ import annotations

import importlib.metadata
import json
import subprocess
import sys
from pathlib import Path

import loopspec
from loopspec import version_beside


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
    (site / "loopspec" / "__init__.py").write_bytes((package / "__init__.py").read_bytes())
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


def test_version_is_answered_without_argparse() -> None:
    """`loopspec --version` prints what argparse's `--version` printed, and exits 0, without
    importing argparse (with the gettext and locale its messages look up, ~3 ms)."""
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
        "print(json.dumps([out.getvalue(), code, 'argparse' in sys.modules]))\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert json.loads(done.stdout) == [f"loopspec {loopspec.__version__}\n", 0, False]
