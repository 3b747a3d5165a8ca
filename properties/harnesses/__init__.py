"""Driving the real Claude Code and Codex CLIs offline from a scripted scenario.

`loopspec run SCENARIO --harness claude-code|codex --hooks SETTINGS` runs the pinned binary
installed under `examples/claude-code-adapter/` or `examples/codex-adapter/` (`npm ci` there)
against `mock_model`, a scripted model server on 127.0.0.1, with its own temporary `HOME`, the
hooks of SETTINGS running as real processes and shell commands whose output and finishing order
the scenario controls. `session` does one run and collects what every reader held: what ran (the
hook-visible executions), what the next model request's history held, what the transcript or
rollout recorded, what the hook audit saw; `report` prints them side by side. The run happens in
a network namespace with only loopback when `unshare -n` works, and every `connect` the binary
makes is traced, so the report can say which addresses were contacted.
"""
