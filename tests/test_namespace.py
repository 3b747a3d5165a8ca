"""Everything in this repository names loopspec's parts by their installed names.

The source folders model/, impl/ and properties/ are importable only as `loopspec.model`,
`loopspec.impl` and `loopspec.properties` once installed; an import of the bare folder name
would work in a checkout and die in a user's venv (or, worse, import the user's own `model`).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BARE = frozenset({"model", "impl", "properties"})
SKIPPED = frozenset({".venv", "node_modules", ".git", "loopspec", "build"})


def _python_files() -> list[Path]:
    found = []
    for path in sorted(ROOT.rglob("*.py")):
        parts = path.relative_to(ROOT).parts
        if not SKIPPED & set(parts) and "fixtures" not in parts:
            found.append(path)
    return found


def bare_imports(source: str) -> list[str]:
    """Absolute imports (statements or `import_module("...")`) of a bare folder name."""
    named: list[str] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            named += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            named.append(node.module)
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute | ast.Name)
            and getattr(node.func, "attr", getattr(node.func, "id", "")) == "import_module"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            named.append(node.args[0].value)
    return [name for name in named if name.split(".")[0] in BARE]


@pytest.mark.parametrize("path", _python_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_module_imports_a_bare_folder_name(path: Path) -> None:
    """`from model.x import y` must be `from loopspec.model.x import y`."""
    assert bare_imports(path.read_text(encoding="utf-8")) == []


def test_the_scan_sees_every_import_form() -> None:
    """Control: each form of a bare import is caught, the namespaced ones are not."""
    caught = "import model\nfrom impl.x import y\nimportlib.import_module('properties.cli')"
    assert bare_imports(caught) == ["model", "impl.x", "properties.cli"]
    assert bare_imports("import loopspec.model\nfrom loopspec.impl import x") == []


def test_build_files_run_modules_by_their_installed_names() -> None:
    """Makefile, CI and pyproject name modules as `loopspec.*` too."""
    for name in ("Makefile", ".ci/run", "pyproject.toml"):
        text = (ROOT / name).read_text(encoding="utf-8")
        assert not re.search(r"-m (model|impl|properties)\b", text), name
        assert not re.search(r'"(model|impl|properties)\.[a-z_.]+(:\w+)?"', text), name
