"""Which operator mutants of the pure core does a CrossHair budget kill? (issue #15, item 7)

`make crosshair` (properties/crosshair_gate.py) spends its whole per-condition budget on every
postcondition of the correct code, so its CPU is the budget times the number of postconditions;
a smaller budget, or an iteration cap (`--max_uninteresting_iterations`), is a weaker search.
This script measures how much weaker: it writes one copy of a pure module per mutant (one
operator changed in one contracted function: a comparison, `+`/`-`, `and`/`or`, a dropped `not`,
an integer off by one, a flipped bool, an emptied string, `max`/`min`, `continue`/`break`), runs
`crosshair check <copy>.<function>` with the options given after `--`, and prints which mutants
each budget kills (exit 1 of crosshair: a counterexample).

    .venv/bin/python benchmarks/crosshair_mutants.py --out A.jsonl -- --per_condition_timeout 2
    .venv/bin/python benchmarks/crosshair_mutants.py --out B.jsonl --only-killed-in A.jsonl \\
        -- --per_condition_timeout 1
    .venv/bin/python benchmarks/crosshair_mutants.py --compare A.jsonl B.jsonl

A budget loses nothing only if it kills every mutant the gate's budget kills. CrossHair's search
is randomized, so rerun the mutants that differ (`--only`) before concluding. Each mutant costs up
to the budget times its function's postconditions (about 150 mutants: 5 to 10 minutes of CPU
at 2 s); a mutant that loops forever (`end += 0`) is stopped after `--hang` seconds.

Session 15: 155 mutants; 112 were killed at 2 s per condition (one, `end += 0`, can loop).
At 1 s, three of them live in about half the runs: `fenced_console` a backtick short
(`+ <-> -` killed in 2 of 6 runs, `int - 1` in 2 of 5) and `may_start` counting its cap
inclusively with all five postconditions stated (3 of 7); at 2 s each died in every run (6, 5
and 5 runs). An iteration cap (`--max_uninteresting_iterations`) with the 2 s budget is cheaper
(the decisions module: 11 s of CPU at 20 iterations, 30 s without a cap) but at 10 iterations
five mutants lived that 2 s kills (four of `signal_of`, whose search stalled within 0.2 s); at
50 they die, and the decisions and pairing modules cost 27 s each, as without a cap (30 and
26). So the gate's budget stays at 2 s.
"""

from __future__ import annotations

import argparse
import ast
import copy
import importlib.util
import json
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from loopspec.properties.crosshair_gate import PURE_MODULES

SWAPPED: dict[type[ast.cmpop], type[ast.cmpop]] = {
    ast.Lt: ast.LtE,
    ast.LtE: ast.Lt,
    ast.Gt: ast.GtE,
    ast.GtE: ast.Gt,
    ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq,
    ast.In: ast.NotIn,
    ast.NotIn: ast.In,
    ast.Is: ast.IsNot,
    ast.IsNot: ast.Is,
}


def body_nodes(function: ast.FunctionDef) -> list[ast.AST]:
    """The function's nodes in walk order, its docstring (the contracts) left out."""
    return [node for statement in function.body[1:] for node in ast.walk(statement)]


def mutations(node: ast.AST) -> Iterator[tuple[str, ast.AST]]:
    """Each way to mutate `node`: a description and the node that replaces it."""
    match node:
        case ast.Compare(ops=ops):
            for index, operator in enumerate(ops):
                if type(operator) in SWAPPED:
                    changed = copy.deepcopy(node)
                    swapped = SWAPPED[type(operator)]
                    changed.ops[index] = swapped()
                    yield f"{type(operator).__name__} -> {swapped.__name__}", changed
        case ast.BinOp(left=left, op=ast.Add() | ast.Sub() as operator, right=right):
            other = ast.Sub() if isinstance(operator, ast.Add) else ast.Add()
            yield "+ <-> -", ast.BinOp(left, other, right)
        case ast.BoolOp(op=operator, values=values):
            yield (
                "and <-> or",
                ast.BoolOp(ast.Or() if isinstance(operator, ast.And) else ast.And(), values),
            )
        case ast.UnaryOp(op=ast.Not(), operand=operand):
            yield "not dropped", operand
        case ast.Constant(value=bool() as flag):
            yield "bool flipped", ast.Constant(not flag)
        case ast.Constant(value=int() as number):
            yield "int + 1", ast.Constant(number + 1)
            yield "int - 1", ast.Constant(number - 1)
        case ast.Constant(value=str() as text):
            yield "string emptied" if text else "string filled", ast.Constant("" if text else "x")
        case ast.Name(id="max" | "min" as name):
            yield "max <-> min", ast.Name("min" if name == "max" else "max", ast.Load())
        case ast.Continue():
            yield "continue -> break", ast.Break()
        case _:
            # Every other node is left as it is: these operators are the mutants' whole range.
            return


class Replace(ast.NodeTransformer):
    """Replaces one node (by identity) with another."""

    def __init__(self, target: ast.AST, replacement: ast.AST) -> None:
        self.target = target
        self.replacement = replacement

    def visit(self, node: ast.AST) -> ast.AST:
        if node is self.target:
            return self.replacement
        visited: ast.AST = super().visit(node)
        return visited


def write_mutants(folder: Path) -> list[dict[str, str]]:
    """One module copy per mutant of each contracted function of the pure modules."""
    written: list[dict[str, str]] = []
    for module in PURE_MODULES:
        spec = importlib.util.find_spec(module)
        assert spec is not None
        assert spec.origin is not None
        tree = ast.parse(Path(spec.origin).read_text(encoding="utf-8"))
        for position, function in enumerate(tree.body):
            if not isinstance(function, ast.FunctionDef):
                continue
            if "post:" not in (ast.get_docstring(function) or ""):
                continue
            for index, node in enumerate(body_nodes(function)):
                for what, replacement in mutations(node):
                    mutated = copy.deepcopy(tree)
                    copied = mutated.body[position]
                    assert isinstance(copied, ast.FunctionDef)
                    target = body_nodes(copied)[index]
                    Replace(target, replacement).visit(mutated)
                    stem = f"m{len(written):03d}_{module.rsplit('.', 1)[1]}"
                    source = ast.unparse(ast.fix_missing_locations(mutated))
                    (folder / f"{stem}.py").write_text(source, encoding="utf-8")
                    line = getattr(node, "lineno", 0)
                    written.append(
                        {"mutant": stem, "target": f"{stem}.{function.name}",
                         "what": f"{function.name} line {line}: {what}"}
                    )  # fmt: skip
    return written


def run_one(
    mutant: dict[str, str], options: list[str], folder: Path, hang: float
) -> dict[str, str]:
    """CrossHair on one mutant: killed (a counterexample), survived, hung or failed."""
    command = [sys.executable, "-m", "crosshair", "check", mutant["target"], *options]
    try:
        done = subprocess.run(
            command, cwd=folder, capture_output=True, text=True, timeout=hang, check=False
        )
    except subprocess.TimeoutExpired:
        return mutant | {"outcome": "hung"}
    outcome = {0: "survived", 1: "killed"}.get(done.returncode, "failed")
    return mutant | {"outcome": outcome}


def load(path: Path) -> dict[str, dict[str, object]]:
    """Rows of an earlier run, by mutant."""
    rows = (json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line)
    return {str(row["mutant"]): row for row in rows}


def compare(older: Path, newer: Path) -> int:
    """Print the mutants `older` kills and `newer` does not; exit 1 when there are any."""
    before, after = load(older), load(newer)
    lost = [
        name
        for name, row in before.items()
        if row["outcome"] == "killed" and after.get(name, {}).get("outcome") not in ("killed", None)
    ]
    for name in lost:
        outcome = after[name]["outcome"]
        print(f"{name} ({before[name]['what']}): killed by {older}, {outcome} by {newer}")
    shared = [name for name in before if name in after]
    print(f"{len(shared)} mutants in both runs; {len(lost)} killed by {older} only")
    return 1 if lost else 0


def main() -> int:
    """Write the mutants, run CrossHair on each with the given options, print the outcomes."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, help="append each mutant's row here (JSON Lines)")
    parser.add_argument("--only", help="comma-separated mutant names (m007_decisions,...)")
    parser.add_argument("--only-killed-in", type=Path, help="only the mutants this run killed")
    parser.add_argument("--jobs", type=int, default=2, help="CrossHair processes at once")
    parser.add_argument("--hang", type=float, default=120, help="seconds before a mutant hangs")
    parser.add_argument("--compare", nargs=2, type=Path, metavar=("OLDER", "NEWER"))
    parser.add_argument("options", nargs="*", help="crosshair check options, after --")
    args = parser.parse_args()
    if args.compare:
        return compare(*args.compare)
    with tempfile.TemporaryDirectory(prefix="crosshair-mutants-") as scratch:
        mutants = write_mutants(Path(scratch))
        if args.only:
            wanted = set(args.only.split(","))
            mutants = [m for m in mutants if m["mutant"] in wanted]
        if args.only_killed_in:
            killed = {n for n, r in load(args.only_killed_in).items() if r["outcome"] == "killed"}
            mutants = [m for m in mutants if m["mutant"] in killed]
        with ThreadPoolExecutor(args.jobs) as pool:
            rows = pool.map(lambda m: run_one(m, args.options, Path(scratch), args.hang), mutants)
            tally: dict[str, int] = {}
            for row in rows:
                print(f"{row['mutant']} {row['what']}: {row['outcome']}", flush=True)
                tally[str(row["outcome"])] = tally.get(str(row["outcome"]), 0) + 1
                if args.out:
                    with args.out.open("a", encoding="utf-8") as out:
                        out.write(json.dumps(row) + "\n")
    print(", ".join(f"{count} {outcome}" for outcome, count in sorted(tally.items())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
