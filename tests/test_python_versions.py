"""What reads or runs differently on the Pythons loopspec supports (3.11, 3.12 and 3.13), checked
on whichever Python runs the tests: a difference only a newer Python shows is named in the test."""

from __future__ import annotations

import argparse
import ast
import os
import re
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.version import Version

from loopspec.properties.cli.parser import build_parser
from loopspec.properties.conformance.impl_target import bundled_target
from loopspec.properties.conformance.report_documents import document_schema
from loopspec.properties.conformance.run import _a_target as conformance_target

ROOT = Path(__file__).resolve().parent.parent

# Folders holding no source of ours: installed packages, built copies, caches.
_NOT_OURS = frozenset({".git", ".venv", "node_modules", "build", "dist", ".hypothesis"})

# A \u or \U escape of a UTF-16 surrogate (U+D800 to U+DFFF) in source, its backslash not
# itself escaped: only a file holding one is parsed (parsing every file costs a second).
_SURROGATE_ESCAPE = re.compile(r"(?<!\\)(?:\\\\)*\\(?:u|U0000)[dD][89a-fA-F]")


def _our_python_files() -> list[Path]:
    found = []
    for folder, subfolders, files in os.walk(ROOT):
        subfolders[:] = [name for name in subfolders if name not in _NOT_OURS]
        found += [Path(folder, name) for name in files if name.endswith(".py")]
    return found


def _docstrings(tree: ast.Module) -> list[tuple[int, str]]:
    owners = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
    ]
    found = []
    for owner in owners:
        first = owner.body[0] if owner.body else None
        if (
            isinstance(first, ast.Expr)
            and isinstance(first.value, ast.Constant)
            and isinstance(first.value.value, str)
        ):
            found.append((first.lineno, first.value.value))
    return found


@pytest.mark.no_cover
def test_no_docstring_holds_a_lone_surrogate() -> None:
    """Python 3.13 compiles a docstring by encoding it as UTF-8 (to strip its indentation), which a
    lone surrogate cannot be: a module with `\\ud800` escaped in a docstring does not compile, and
    on 3.13 pytest stopped collecting at tests/test_rust_outsider.py (make test ran nothing).
    3.11 and 3.12 compile it, so the docstrings are read here."""
    broken = []
    for path in _our_python_files():
        source = path.read_text(encoding="utf-8")
        if not _SURROGATE_ESCAPE.search(source):
            continue
        for line, text in _docstrings(ast.parse(source, filename=str(path))):
            try:
                text.encode("utf-8")
            except UnicodeEncodeError:
                broken.append(f"{path.relative_to(ROOT)}:{line}")
    assert not broken, f"docstrings holding a lone surrogate (escape the backslash): {broken}"


@pytest.fixture(scope="module")
def verb_parsers() -> dict[str, argparse.ArgumentParser]:
    """The top level's parser and each verb's (a parser asks for the width when it formats)."""
    parser = build_parser("*")
    (verbs,) = (a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return {"loopspec": parser, **verbs.choices}


@pytest.mark.parametrize("columns", [40, 60, 80, 100])
def test_usage_keeps_a_group_of_exclusive_options_on_one_line(
    columns: int, verb_parsers: dict[str, argparse.ArgumentParser], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Python 3.13 wraps usage inside a group of exclusive options, `[--bundled |` on one line and
    `--cmd COMMAND]` on the next, where 3.11 and 3.12 keep the group whole: usage (in --help and
    every usage error) differed by Python version. Only 3.13 can show it here."""
    monkeypatch.setenv("COLUMNS", str(columns))
    split = {}
    for verb, parser in verb_parsers.items():
        usage = parser.format_usage()
        for line in usage.splitlines():
            opened = sum(map(line.count, "[(")) - sum(map(line.count, "])"))
            if opened:
                split[verb] = usage
    assert not split, f"usage lines that break a group: {split}"
    replay_usage = verb_parsers["replay"].format_usage()
    assert "[--bundled | --impl MODULE:FACTORY | --cmd COMMAND]" in replay_usage


# The first release of each compiled dependency we declare with a wheel for a Python (pip
# download --only-binary=:all: on that Python): a floor below it asks that Python for a C build.
_FIRST_WHEEL = {"zstandard": {"3.11": "0.19", "3.12": "0.22", "3.13": "0.23"}}


def test_each_pythons_floor_of_a_compiled_dependency_has_a_wheel_for_it() -> None:
    """pyproject's `zstandard>=0.22` let a 3.13 user (or a lowest-versions resolve) take 0.22,
    which has no 3.13 wheel; each Python the classifiers name now gets a floor with one."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    prefix = "Programming Language :: Python :: "
    pythons = [
        c.removeprefix(prefix)
        for c in project["classifiers"]
        if c.startswith(prefix) and c.removeprefix(prefix).count(".") == 1
    ]
    assert pythons, project["classifiers"]
    wrong = []
    for dependency, first_wheels in _FIRST_WHEEL.items():
        for python in pythons:
            environment = {"python_version": python}
            floors = [
                Version(spec.version)
                for text in project["dependencies"]
                if (requirement := Requirement(text)).name == dependency
                and (requirement.marker is None or requirement.marker.evaluate(environment))
                for spec in requirement.specifier
                if spec.operator == ">="
            ]
            first = Version(first_wheels[python])
            if len(floors) != 1 or floors[0] < first:
                wrong.append(f"{dependency} on {python}: {floors}")
    assert not wrong, wrong


def _descriptions(schema: object) -> list[str]:
    match schema:
        case dict():
            found = [schema["description"]] if isinstance(schema.get("description"), str) else []
            return found + [text for value in schema.values() for text in _descriptions(value)]
        case list():
            return [text for value in schema for text in _descriptions(value)]
        case _:
            return []


@pytest.mark.parametrize("verb", ["conform", "replay"])
def test_a_schema_description_reads_the_same_on_every_python(verb: str) -> None:
    """`loopspec schema conform` described the exhaustive pass's document with its docstring as
    compiled: indented lines on 3.11 and 3.12 ("of\\n    the bounded-exhaustive pass"), flush
    left on 3.13, which removes a docstring's indentation. No line of a description is indented
    now, on any Python."""
    descriptions = _descriptions(document_schema(verb))
    assert any("\n" in text for text in descriptions)  # a docstring of more than one line
    indented = [text for text in descriptions if re.search(r"\n[ \t]", text)]
    assert not indented, indented


class _Wrapper:
    """A target wrapping the bundled one, its other members handed on by __getattr__."""

    def __init__(self) -> None:
        self.inner = bundled_target()
        self.name = "wrapper"

    def __getattr__(self, member: str) -> object:
        return getattr(self.inner, member)


def test_a_target_handing_members_on_with_getattr_is_a_target_on_every_python() -> None:
    """Python 3.12 and later check a runtime protocol without calling __getattr__: conform
    refused a wrapper whose close came from the target it wraps, "not a ConformanceTarget (it
    has no )", a target 3.11 took. Only 3.12 and 3.13 can show it."""
    wrapper = _Wrapper()
    accepted: object = conformance_target(wrapper)
    assert accepted is wrapper
    with pytest.raises(TypeError, match=r"not a ConformanceTarget \(it has no name, reset"):
        conformance_target(object())
