"""Programs reaching each situation over many fixed batches, and the reach test's minimums.

Run by hand: `.venv/bin/python benchmarks/bench_reach.py [--batches N]`.

`tests/test_generation_reach.py` requires each situation of its `OFTEN` table to be reached by
at least so many of the first fixed batch's programs. A change of the draws moves every fixed
batch, so a minimum read off one batch fails on the next draw change where the situation is as
common as before. This counts, per situation, the programs of each of batches 0 to N-1 (batch 0
is the test's) that reach it (`reached_in_batch`, the test's own count), and prints the least,
the median and `MINIMUM_RULE`'s minimum beside the table's; then the table's minimums as they
would be re-set, to paste into the test.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

# tests/ is on the path only from here on.
from bench_kills import load_every_loopspec_module
from test_generation_reach import OFTEN, SITUATIONS, minimum_over, reached_in_batch

from loopspec.properties.conformance.source_literals import without_source_literals


def main() -> None:
    """Count each batch's programs per situation; print the table and the minimums."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batches", type=int, default=20, help="batches 0..N-1 (default 20)")
    args = parser.parse_args()
    load_every_loopspec_module()
    per_batch: list[Counter[str]] = []
    with without_source_literals():
        for batch in range(args.batches):
            reached, _idle = reached_in_batch(batch)
            per_batch.append(reached)
    print(f"programs reaching each situation, of 200 per batch, batches 0..{args.batches - 1}")
    print(f"{'least':>6}{'median':>7}{'batch 0':>8}{'minimum':>8}{'now':>5}  situation")
    for situation in SITUATIONS:
        counts = [reached[situation] for reached in per_batch]
        now = OFTEN.get(situation)
        least = minimum_over(counts) if now is not None else None
        print(
            f"{min(counts):>6}{statistics.median(counts):>7g}{counts[0]:>8}"
            f"{'' if least is None else least:>8}{'' if now is None else now:>5}  {situation}"
        )
    print("OFTEN's minimums re-set:")
    for situation in OFTEN:
        print(f"    {situation!r}: {minimum_over([r[situation] for r in per_batch])},")


if __name__ == "__main__":
    main()
