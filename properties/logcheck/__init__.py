"""The offline log checker behind `loopspec check`.

It holds recorded session logs to the rules a log invariant carries, streaming, with the invariant
registry the model's own tests run (`loopspec.model.invariants`). `files` finds and opens logs
(`.jsonl`, `.jsonl.zst`, directories, stdin), `dialect` recognises layouts, `compact_rows` unfolds
dsh's compact chunk rows, `checker` judges, `report` prints text or JSON and picks the exit code.
`synth` writes logs in the same wire format from the model, for tests and benchmarks.

The checker's default bounds are here, in the package every part of it imports, so that
`loopspec check --help` shows them without importing the checker (and the model it runs), and
a check imports no module for them alone (each module costs a small log's check a hundredth of
the interpreter's start).
"""

DEFAULT_MAX_LINE_BYTES = 16 * 1024 * 1024
DEFAULT_MAX_VIOLATIONS = 1000
MAX_TRACKED_HOOKS = 1000
"""Distinct hook ids whose runs are counted (`hook_faults.HookRuns`, and the checker's judge of
hook/result before it); a log naming more (none configures so many) gets its later hooks'
faults noted without a count of their runs, so memory stays bounded."""
