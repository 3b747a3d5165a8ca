"""SPEC.md and the code agree: every rule is tested, every cited rule exists, tables are fresh."""

from __future__ import annotations

import ast
import functools
import re
from pathlib import Path

import pytest

from loopspec.model.events import CORE_TYPES
from loopspec.model.invariants import INVARIANTS
from loopspec.model.transitions import TRANSITIONS
from loopspec.properties.spec_doc import splice_generated_sections
from loopspec.properties.spec_rules import rule_ids_in_spec
from loopspec.properties.stateful.state_checks import STATE_CHECKS

ROOT = Path(__file__).resolve().parent.parent
SPEC = (ROOT / "SPEC.md").read_text(encoding="utf-8")
RULE_ID = re.compile(r"\b([A-Z]+-\d+)\b")


@functools.cache
def _parsed(path: Path) -> ast.Module:
    """A source file's syntax tree, parsed once for all the tests here (parsing every module
    and test file was most of their cost, and four tests read the same trees)."""
    return ast.parse(path.read_text(encoding="utf-8"))


@functools.cache
def _test_file_nodes() -> tuple[ast.AST, ...]:
    """The functions, classes and assignments of every test file under tests/, in file order
    (walked once: two tests read them)."""
    kinds = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Assign
    return tuple(
        node
        for path in sorted((ROOT / "tests").rglob("test_*.py"))
        for node in ast.walk(_parsed(path))
        if isinstance(node, kinds)
    )


def _test_texts() -> str:
    """Every test function's name and docstring, under tests/."""
    texts = []
    for node in _test_file_nodes():
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            texts.append(node.name.replace("_", "-"))
            texts.append(ast.get_docstring(node) or "")
        elif isinstance(node, ast.Assign):
            texts.extend(
                t.id.replace("_", "-")
                for t in node.targets
                if isinstance(t, ast.Name) and t.id.startswith("test_")
            )
    return "\n".join(texts)


@pytest.mark.no_cover
def test_MODEL_1_every_spec_rule_has_a_test() -> None:
    """Traceability: each rule heading's ID appears in a test name or docstring."""
    texts = _test_texts()
    untested = [rule for rule in rule_ids_in_spec(SPEC) if not re.search(rf"\b{rule}(?!\d)", texts)]
    assert not untested, f"rules without a test: {untested}"


def test_MODEL_1_rule_ids_are_unique_in_the_spec() -> None:
    """Traceability: no rule is specified twice."""
    ids = rule_ids_in_spec(SPEC)
    assert len(ids) == len(set(ids))


def test_MODEL_1_every_rule_the_code_cites_is_specified() -> None:
    """Traceability: rule IDs in the model, invariants and transition table all have headings."""
    specified = set(rule_ids_in_spec(SPEC))
    cited = {rule for inv in INVARIANTS for rule in inv.rule_ids}
    cited |= {rule for row in TRANSITIONS for rule in row.rules}
    for path in (ROOT / "model").rglob("*.py"):
        cited |= set(re.findall(r'rule_id="([A-Z]+-\d+)"', path.read_text(encoding="utf-8")))
    assert cited - specified == set()


def test_MODEL_1_generated_sections_are_current() -> None:
    """Traceability: SPEC.md's transition table and invariant registry match the code."""
    assert splice_generated_sections(SPEC) == SPEC, "run `make spec`"


def test_MODEL_1_every_invariant_is_described_in_the_spec() -> None:
    """Traceability: each registered invariant is named in SPEC.md."""
    missing = [inv.name for inv in INVARIANTS if f"`{inv.name}`" not in SPEC]
    assert not missing


@functools.cache
def _definitions(
    folders: tuple[str, ...] = ("model", "impl", "properties"),
) -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """Names defined at module level per module (by every dotted suffix of its name, e.g.
    `decisions`, `pure.decisions`), and names defined in each class body. Computed once per
    set of folders: the tests only read them."""
    modules: dict[str, set[str]] = {}
    classes: dict[str, set[str]] = {}
    for folder in folders:
        for path in (ROOT / folder).rglob("*.py"):
            tree = _parsed(path)
            top: set[str] = set()
            for node in tree.body:
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                    top.add(node.name)
                elif isinstance(node, ast.Assign | ast.AnnAssign):
                    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                    top |= {t.id for t in targets if isinstance(t, ast.Name)}
            for found in ast.walk(tree):
                if isinstance(found, ast.ClassDef):
                    members = classes.setdefault(found.name, set())
                    for item in found.body:
                        if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
                            members.add(item.name)
                        elif isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                            members.add(item.target.id)
            parts = path.relative_to(ROOT).with_suffix("").parts
            for start in range(len(parts)):
                modules.setdefault(".".join(parts[start:]), set()).update(top)
    return modules, classes


def _test_names() -> set[str]:
    return {
        node.name
        for node in _test_file_nodes()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
    }


def _every_name(modules: dict[str, set[str]], classes: dict[str, set[str]]) -> set[str]:
    """Every name defined anywhere: module level, classes, invariants and state checks."""
    every = set().union(*modules.values()) | set(classes)
    return every | {inv.name for inv in INVARIANTS} | {c.__name__ for c in STATE_CHECKS}


def _pointer_problem(
    token: str,
    modules: dict[str, set[str]],
    classes: dict[str, set[str]],
    tests: set[str],
    known: set[str],
) -> str | None:
    """Why a backticked token of a Where line names nothing, or None when it resolves."""
    if token.startswith("test_") and token.endswith("*"):
        prefix = token.rstrip("*")
        return None if any(name.startswith(prefix) for name in tests) else "no such test"
    if "/" in token:
        return None if (ROOT / token).exists() else "no such path"
    if "." in token:
        owner, _, member = token.rpartition(".")
        if member in modules.get(owner, set()) or member in classes.get(owner, set()):
            return None
        return f"{owner} defines no {member}"
    return None if token in known else "not defined anywhere"


def _where(section: str) -> str:
    """A rule's **Where.**: its line and the list of pointers after it, up to a blank line."""
    lines = section.splitlines()
    start = next((at for at, line in enumerate(lines) if line.startswith("**Where.**")), None)
    if start is None:
        return ""
    block = [lines[start]]
    for line in lines[start + 1 :]:
        if not line.strip():
            break
        block.append(line)
    return "\n".join(block)


# Words a line of a Where may hold before a reader loses its thread (REC-1's was one line of
# 285 words); a longer Where is a short line of pointers and a list.
WHERE_LINE_WORDS = 80


def test_MODEL_1_where_lines_are_short() -> None:
    """Traceability: no line of a Where, its lead or a list item, runs past WHERE_LINE_WORDS."""
    long_lines = [
        f"{section.split(' ', 1)[0]}: {len(line.split())} words: {line[:60]}"
        for section in re.split(r"^### ", SPEC, flags=re.MULTILINE)[1:]
        for line in _where(section).splitlines()
        if len(line.split()) > WHERE_LINE_WORDS
    ]
    assert not long_lines, "\n".join(long_lines)


def test_MODEL_1_a_where_list_is_read_whole() -> None:
    """Traceability: the pointers of a Where's list items are read (and so checked) too."""
    rec_1 = next(s for s in re.split(r"^### ", SPEC, flags=re.MULTILINE) if s.startswith("REC-1 "))
    assert "`impl/clock.py`" in _where(rec_1)


@pytest.mark.no_cover
def test_MODEL_1_every_where_pointer_resolves() -> None:
    """Traceability: each rule's Where line names files that exist, functions, classes and
    invariants that are defined, and test prefixes that some test carries."""
    modules, classes = _definitions()
    tests = _test_names()
    known = _every_name(modules, classes)
    broken: list[str] = []
    for section in re.split(r"^### ", SPEC, flags=re.MULTILINE)[1:]:
        rule = section.split(" ", 1)[0]
        where = _where(section)
        assert where, f"{rule} has no Where line"
        for token in re.findall(r"`([^`]+)`", where):
            problem = _pointer_problem(token, modules, classes, tests, known)
            if problem is not None:
                broken.append(f"{rule}: `{token}`: {problem}")
    assert not broken, "\n".join(broken)


def test_MODEL_1_names_a_where_pointer_gives_a_file_are_defined_in_that_file() -> None:
    """Traceability: in "`path.py` (`name`, `Class.member`)" each name is defined in that file,
    not only somewhere (code that moves to another module must take its pointers along)."""
    modules, classes = _definitions()
    broken: list[str] = []
    for pointer in re.finditer(r"`([^`]+)\.py` \(([^)]*)\)", SPEC):
        defined = modules.get(pointer.group(1).replace("/", "."), set())
        for name in re.findall(r"`([^`]+)`", pointer.group(2)):
            owner, _, member = name.rpartition(".")
            found = member in classes.get(owner, set()) if owner else name in defined
            if not found or (owner and owner not in defined):
                broken.append(f"`{pointer.group(1)}.py` does not define `{name}`")
    assert not broken, "\n".join(broken)


def test_MODEL_1_where_pointers_are_where_section_2_says() -> None:
    """Traceability: section 2 tells a reader where a Where line's names live, and they are
    there: every `module.name` in the model's own modules (a newcomer meeting
    `dispatch._commit_ready` could not tell it from `impl/batch.py`'s method of that name)."""
    how_to_read = SPEC.split("## 2. How to read the rules", 1)[1].split("\n## 3.", 1)[0]
    assert "a\n  `module.name` is code of the reference model, in `model/`" in how_to_read
    model_modules, _ = _definitions(("model",))
    _, classes = _definitions()
    elsewhere: list[str] = []
    for section in re.split(r"^### ", SPEC, flags=re.MULTILINE)[1:]:
        where = _where(section)
        for token in re.findall(r"`([^`]+)`", where):
            owner, _, member = token.rpartition(".")
            if not owner or "/" in token or owner in classes:
                continue
            if member not in model_modules.get(owner, set()):
                elsewhere.append(f"{section.split(' ', 1)[0]}: `{token}`")
    assert not elsewhere, "\n".join(elsewhere)


def test_MODEL_1_section_2_lists_every_rule_an_invariant_holds_only_in_part() -> None:
    """Traceability: section 2 lists the rules an invariant holds a log to only in part, whose
    **Where.** says "what a log alone shows": a reader of `check`'s rules_checked learns there
    which rules' Where to read for the part left to conform. RW-2 and HOOK-1 were missing."""
    how_to_read = SPEC.split("## 2. How to read the rules", 1)[1].split("\n## 3.", 1)[0]
    found = re.search(r"only part of its rule \(([^)]*)\)", " ".join(how_to_read.split()))
    assert found is not None
    listed = set(found.group(1).split(", "))
    partial = set()
    for section in re.split(r"^### ", SPEC, flags=re.MULTILINE)[1:]:
        where = _where(section)
        if "what a log alone shows" in where:
            partial.add(section.split(" ", 1)[0])
    assert listed == partial


def test_MODEL_1_the_event_catalogue_lists_every_core_type() -> None:
    """Traceability: SPEC.md's generated event catalogue has a row for every core event type."""
    catalogue = SPEC.split("<!-- generated:events -->")[1].split("<!-- end generated:events")[0]
    rows = re.findall(r"^\| `([a-z]+/[a-z]+)` \|", catalogue, flags=re.MULTILINE)
    assert rows == list(CORE_TYPES)
