"""Everything that checks an implementation against the model.

- `logcheck` — `loopspec check`: recorded session logs held to the log invariants, offline;
- `conformance` — `loopspec conform` / `replay`: any implementation driven beside the model;
- `profiles` — the known divergences of real harnesses (dsh), for profiled conformance;
- `stateful` — Hypothesis strategies and state machines for the model and the bundled impl;
- `validators` — strict ACP validation and provider pairing rules;
- `cli` — the `loopspec` command line;
- `spec_doc` — SPEC.md's generated sections; `crosshair_gate` — the CrossHair run of `make test`;
  `pytest_plugin` — `pytest --loopspec-impl=...`; `target_signals` — the interrupts a target and a
  harness's CLI start with.
"""
