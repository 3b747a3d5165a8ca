"""`impl/` shares the model's vocabulary and none of its logic (the evidence boundary).

Agreement between `impl` and the model only means something if `impl` did not get its answers
from the model. Every module under `impl/` may import these model modules only: the wire and
data types and the command vocabulary. The transition function, handlers, rewrite, dispatch,
repair, derivation, invariants, facts, presenters, ACP bridge and replay stay out of reach.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
IMPL = ROOT / "impl"
PACKAGES = frozenset({"loopspec", "loopspec.model", "loopspec.impl", "loopspec.properties"})

ALLOWED_MODEL_MODULES = frozenset(
    {
        "loopspec.model.events",
        "loopspec.model.wire",
        "loopspec.model.log_layout",  # the wire's layout: keys, tags, order, nothing decided
        "loopspec.model.messages",
        "loopspec.model.views",
        "loopspec.model.jsonvalue",
        "loopspec.model.json_text",  # JSON text read and written as json does, without it
        "loopspec.model.repeated_keys",  # JSON's: a key given twice in an object (LOG-3)
        "loopspec.model.json_location",  # where a JSON path lies in a file: its line
        "loopspec.model.near_miss",  # the name a misspelt one likely meant, and its words
        "loopspec.model.errors",
        "loopspec.model.commands",
        "loopspec.model.config",
    }
)


def imported_modules(source: str, package: str) -> set[str]:
    """Every module an `import` or `from ... import` in `source` names, relative ones resolved."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                anchor = ".".join(parts[: len(parts) - node.level + 1])
                base = f"{anchor}.{base}" if base else anchor
            found.add(base)
            # `from loopspec.model import transitions` names `loopspec.model.transitions`.
            found.update(f"{base}.{alias.name}" for alias in node.names if base in PACKAGES)
        elif isinstance(node, ast.Call) and _dynamic_import(node.func) and node.args:
            name = node.args[0]
            if isinstance(name, ast.Constant) and isinstance(name.value, str):
                found.add(name.value)
    return found


def _dynamic_import(function: ast.expr) -> bool:
    if isinstance(function, ast.Name):
        return function.id in ("__import__", "import_module")
    return isinstance(function, ast.Attribute) and function.attr == "import_module"


def forbidden(modules: set[str]) -> set[str]:
    """The imports that cross the boundary."""
    return {
        name
        for name in modules
        if name.startswith("loopspec.model.") and name not in ALLOWED_MODEL_MODULES
    } | {
        name
        for name in modules
        if name == "loopspec.properties" or name.startswith("loopspec.properties.")
    }


IMPL_MODULES = sorted(IMPL.rglob("*.py"))


@pytest.mark.parametrize("path", IMPL_MODULES, ids=lambda p: str(p.relative_to(ROOT)))
def test_MODEL_1_impl_imports_only_the_models_vocabulary(path: Path) -> None:
    """No `impl` module imports model logic (or the test tooling in `properties`)."""
    package = ".".join(("loopspec", *path.relative_to(ROOT).with_suffix("").parts[:-1]))
    crossing = forbidden(imported_modules(path.read_text(encoding="utf-8"), package))
    assert not crossing, f"{path.relative_to(ROOT)} imports {sorted(crossing)}"


@pytest.mark.parametrize(
    "source",
    [
        "import loopspec.model.transitions",
        "from loopspec.model.transitions import step",
        "from loopspec.model import derive",
        "from ...model import derive",
        "from loopspec.model.pure.decisions import may_start",
        "from loopspec.properties.stateful.strategies import CONFIGS",
        "importlib.import_module('loopspec.model.replay')",
        "__import__('loopspec.model.acp')",
    ],
)
def test_MODEL_1_the_boundary_check_sees_every_import_form(source: str) -> None:
    """Control: each way of importing model logic is caught."""
    assert forbidden(imported_modules(source, "loopspec.impl.sub"))


def test_MODEL_1_the_vocabulary_may_be_imported() -> None:
    """Control: the shared wire and data types pass."""
    source = (
        "from loopspec.model.events import Event\n"
        "import loopspec.model.wire\n"
        "from loopspec.model import commands\n"
        "from ..model import errors"
    )
    assert not forbidden(imported_modules(source, "loopspec.impl"))
