"""`impl`: a real tool-call loop on asyncio, held to the model by conformance tests.

It shares the model's vocabulary (events, wire codec, messages, views, commands, config) and
none of its logic: `tests/test_impl_boundary.py` fails if any module here imports the model's
transitions, rewrite, dispatch, repair, derivation, invariants, presenters, bridge or replay.

Start with `agent_loop.AgentLoop.open(path, settings=..., tools=..., provider=...,
hook_runner=..., approver=...)`; `demo.py` (`python -m loopspec.impl.demo`) plays a whole session.

The loop
    agent_loop   one open session: submit, abort, settled; opening repairs a crash
    turn         one turn: steps, model requests, what each kind of reply leads to
    rewrite_phase  PreToolUse hooks before any identity, then the reply sealed in one unit
    batch        one step's calls: gate, approvals, parallel bodies, model-order results, abort
    results      how a settled call becomes its result (errors, PostToolUse rulings, abort)
    policy       merging PreToolUse votes into a call's ruling (decision, effective input)
    tools        the registry and `ToolExecution` (sealed identity, frozen arguments, stages)
    seams        Provider, HookRunner, Approver: the outside world's interfaces
    scripted     a world that answers when told (tests, the demo, the conformance adapter)
    waiting      the one place the loop blocks, which is where a commit unit ends
    context      what the parts of one loop share; `replies`, `hooks`, `clock`, `errors`

The log
    session_log  append-only events in memory, checked (LOG-1, LOG-3), committed in units
    recorder     builds the loop's events (seq, time, `m<seq>` message ids)
    framing      units on disk: one event per line, `"unit": [k, n]` on multi-event units
    log_writer   the durable writer and its `Durability` policy (write / fdatasync per commit)
    log_file     the locked file (one live writer), appends, tail truncation
    log_reader   `.jsonl` / `.jsonl.zst`, torn-line and unfinished-unit detection
    opening      lock, read, cut the crash tail, or start a new session
    repair       the closers of a turn a crash left open
    history      the model-visible history, updated as units commit
    snapshot     deep-frozen JSON (read-only mappings and tuples)

What a UI sees
    presenters, text_shapes, acp_bridge, presentation: views and ACP payloads, emitted live as
    units commit and identical to a replay of the log.

`hookbridge/` runs real Claude Code and Codex command hooks (see its own docstring).
"""
