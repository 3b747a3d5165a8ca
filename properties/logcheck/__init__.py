"""The offline log checker behind `loopspec check`.

It holds recorded session logs to the rules a log invariant carries, streaming, with the invariant
registry the model's own tests run (`loopspec.model.invariants`). `files` finds and opens logs
(`.jsonl`, `.jsonl.zst`, directories, stdin), `dialect` recognises layouts, `compact_rows` unfolds
dsh's compact chunk rows, `checker` judges, `report` prints text or JSON and picks the exit code.
`synth` writes logs in the same wire format from the model, for tests and benchmarks.
"""
