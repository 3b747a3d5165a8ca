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

`--gate-budgets` runs each mutant at its function's budget in the gate (`BUDGETS`) instead of
one budget for all. `--kill-times ROUNDS` measures instead, per mutant and round (a fresh
process each), the least CPU seconds CrossHair took to break any one of its function's
postconditions: every condition at 0.25 s, then at 0.75 s, then at 2 s, until one breaks (none:
not killed at 2 s). The gate's per-function budgets are chosen from these times:

    .venv/bin/python benchmarks/crosshair_mutants.py --kill-times 2 --out K.jsonl
    .venv/bin/python benchmarks/crosshair_mutants.py --gate-budgets --out G.jsonl \
        --only-killed-in A.jsonl

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
26). So the gate's budget stayed at 2 s for every function.

Session 18 (`--kill-times` over the 112 mutants 2 s kills, two rounds for the first 61 and one
for the rest, on a heavily loaded machine): 108 died in every round, the slowest after 1.53 s
of CPU (`results_in_call_order`), most within 0.3 s; four lived a round at 2 s (an emptied "/"
in `normalize_absolute`, one of `workspace_relative` and the two backtick-short fences of
`fenced_console`). The gate's per-function budgets (`crosshair_gate.BUDGETS`) come from these
times; at those budgets (`--gate-budgets`) all 112 were killed, and the postconditions' budgets
add up to 81 s where 2 s each was 126 s.
"""

from __future__ import annotations

import argparse
import ast
import copy
import importlib
import importlib.util
import json
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from loopspec.properties.crosshair_gate import PURE_MODULES, budget_of

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


# Budgets tried in turn for every postcondition of a mutant's function: most mutants die within
# the first, so measuring them costs little more than their kill times.
KILL_TIME_CAPS = (0.25, 0.75, 2.0)


def kill_time(folder: str, target: str) -> float | None:
    """In this process: the least CPU seconds CrossHair takes to break one of the target's
    postconditions (None: none broken within the last cap). Each condition is analyzed at each
    cap in turn until one is broken; a cap is cut to the least time found so far."""
    from crosshair.core_and_libs import analyze_function  # noqa: PLC0415 (heavy; worker only)
    from crosshair.options import AnalysisOptionSet  # noqa: PLC0415
    from crosshair.statespace import MessageType  # noqa: PLC0415

    sys.path.insert(0, folder)
    module, name = target.split(".")
    function = getattr(importlib.import_module(module), name)
    passed = (MessageType.CONFIRMED, MessageType.CANNOT_CONFIRM, MessageType.PRE_UNSAT)
    best: float | None = None
    for cap in KILL_TIME_CAPS:
        # The per-path timeout crosshair check derives from a 2 s budget, at every cap.
        paths = max(KILL_TIME_CAPS) ** 0.5
        conditions = len(analyze_function(function, AnalysisOptionSet(per_condition_timeout=cap)))
        for index in range(conditions):
            budget = cap if best is None else min(cap, best)
            options = AnalysisOptionSet(per_condition_timeout=budget, per_path_timeout=paths)
            checkable = analyze_function(function, options)[index]
            started = time.process_time()
            messages = list(checkable.analyze())
            spent = time.process_time() - started
            if any(message.state not in passed for message in messages):
                best = spent if best is None else min(best, spent)
        if best is not None:
            return round(best, 3)
    return None


def run_kill_times(
    mutant: dict[str, str], rounds: int, folder: Path, hang: float
) -> dict[str, object]:
    """Each round's kill time of one mutant, each in a fresh process (None: survived or hung)."""
    times: list[float | None] = []
    for _ in range(rounds):
        command = [sys.executable, __file__, "--kill-time-of", str(folder), mutant["target"]]
        try:
            done = subprocess.run(
                command, capture_output=True, text=True, timeout=hang, check=False
            )
        except subprocess.TimeoutExpired:
            times.append(None)
            continue
        if done.returncode != 0:
            raise SystemExit(f"{mutant['mutant']}: kill-time worker failed: {done.stderr[-600:]}")
        times.append(json.loads(done.stdout))
    return mutant | {"kill_times": times}


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


def print_kill_times(
    mutants: list[dict[str, str]], rounds: int, folder: Path, args: argparse.Namespace
) -> int:
    """Each mutant's kill times as they come, then per function the slowest kill of a mutant
    killed in every round and how many mutants some round left alive."""
    slowest: dict[str, float] = {}
    alive: dict[str, int] = {}
    with ThreadPoolExecutor(args.jobs) as pool:
        for row in pool.map(lambda m: run_kill_times(m, rounds, folder, args.hang), mutants):
            times = row["kill_times"]
            assert isinstance(times, list)
            function = str(row["target"]).split(".")[1]
            print(f"{row['mutant']} {row['what']}: {times}", flush=True)
            if None in times:
                alive[function] = alive.get(function, 0) + 1
            else:
                slowest[function] = max(slowest.get(function, 0.0), *times)
            if args.out:
                with args.out.open("a", encoding="utf-8") as out:
                    out.write(json.dumps(row) + "\n")
    for function in sorted(slowest.keys() | alive.keys()):
        kill = f"{slowest[function]:.2f} s" if function in slowest else "-"
        print(f"{function}: slowest kill {kill}; {alive.get(function, 0)} not killed every round")
    return 0


def main() -> int:
    """Write the mutants, run CrossHair on each with the given options, print the outcomes."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, help="append each mutant's row here (JSON Lines)")
    parser.add_argument("--only", help="comma-separated mutant names (m007_decisions,...)")
    parser.add_argument("--only-killed-in", type=Path, help="only the mutants this run killed")
    parser.add_argument("--jobs", type=int, default=2, help="CrossHair processes at once")
    parser.add_argument("--hang", type=float, default=120, help="seconds before a mutant hangs")
    parser.add_argument("--compare", nargs=2, type=Path, metavar=("OLDER", "NEWER"))
    parser.add_argument(
        "--gate-budgets",
        action="store_true",
        help="each mutant at its function's budget in the gate (options after -- are added)",
    )
    parser.add_argument(
        "--kill-times",
        type=int,
        metavar="ROUNDS",
        help="per mutant and round, the least CPU seconds to a counterexample (one condition)",
    )
    parser.add_argument("--kill-time-of", nargs=2, metavar=("FOLDER", "TARGET"), help="worker")
    parser.add_argument("options", nargs="*", help="crosshair check options, after --")
    args = parser.parse_args()
    if args.compare:
        return compare(*args.compare)
    if args.kill_time_of:
        print(json.dumps(kill_time(*args.kill_time_of)))
        return 0
    with tempfile.TemporaryDirectory(prefix="crosshair-mutants-") as scratch:
        mutants = write_mutants(Path(scratch))
        if args.only:
            wanted = set(args.only.split(","))
            mutants = [m for m in mutants if m["mutant"] in wanted]
        if args.only_killed_in:
            killed = {n for n, r in load(args.only_killed_in).items() if r["outcome"] == "killed"}
            mutants = [m for m in mutants if m["mutant"] in killed]
        if args.kill_times:
            return print_kill_times(mutants, args.kill_times, Path(scratch), args)

        def options_of(mutant: dict[str, str]) -> list[str]:
            if not args.gate_budgets:
                return list(args.options)
            budget = budget_of(mutant["target"].split(".")[1], None)
            return ["--per_condition_timeout", str(budget), *args.options]

        with ThreadPoolExecutor(args.jobs) as pool:
            rows = pool.map(lambda m: run_one(m, options_of(m), Path(scratch), args.hang), mutants)
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
