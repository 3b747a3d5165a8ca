"""Run real Claude Code and Codex command hooks and read their answers as the model's verdicts.

The subprocess half of the rewrite loop: the loop asks, the bridge runs the hooks and answers
with typed verdicts (`loopspec.model.commands.PreVerdict` / `PostVerdict`) plus an audit record per
run.
Merging several answers is the loop's job (rules HOOK-2, HOOK-3, HOOK-6); the bridge makes that
merge deterministic by returning the runs in configured order, never in completion order.

Public API
----------
    settings = load_settings(path, dialect=None)          # or parse_settings(document, ...)
    settings = settings.combine(other_settings)            # several files, ids renumbered
    bridge = HookBridge(settings, *, session_id, cwd, transcript_path=None, fail_closed=False,
                        permission_mode="default", model="", env=None, output_cap=1 MiB)
    bridge.specs() -> tuple[HookSpec, ...]                  # for LoopConfig(hooks=...)
    bridge.command(handler_id) -> HookCommand               # .command, .timeout_s, .dialect
    bridge.matching(point, tool_name) -> tuple[HookCommand, ...]
    await bridge.pre_tool_use(call_id, tool_name, tool_input, *, turn_id="")
        -> tuple[PreHookRun, ...]     # .handler_id, .verdict: PreVerdict, .audit, .answer()
    await bridge.post_tool_use(call_id, tool_name, tool_input, tool_response, *, turn_id="")
        -> tuple[PostHookRun, ...]    # .handler_id, .verdict: PostVerdict (audit attached), .audit

`PreHookRun.answer()` is the `HookAnswers` command for the model. Each `HookRunAudit` has the
`decision` word for `hook/result.decision`, `exit_code` (None when killed), `stderr_summary`
(first line, capped), `duration_ms`, `fault`, `updated_input` (as supplied) and `fail_closed`;
`as_hook_audit()` gives the model's `HookAudit`, naming any fault in its stderr summary.
Cancelling a call (an abort) kills every hook process group it started. Each hook gets a fresh
`LOOPSPEC_PROCESS_TOKEN` in its environment; when it exits (or is killed), its group and every
process carrying the token, `setsid` children included, are killed, and its answer is what it
printed before exiting (rule SAFE-3). `env=None` passes hooks this process's whole environment,
as Claude Code and Codex do; pass a reduced mapping to keep secrets from them (rule SAFE-6).

Settings
--------
The Claude Code `settings.json` shape, for both dialects (a Codex `hooks.json` is the same):
`{"dialect"?: "claude-code"|"codex", "hooks": {"PreToolUse"|"PostToolUse": [{"matcher"?: regex,
"hooks": [{"type": "command", "command": str, "timeout"?: seconds (60), "failClosed"?: bool}]}]}}`.
The dialect comes from the top-level `"dialect"` key or the loader's `dialect=` argument (they
must agree when both are given; default claude-code). The matcher is a regex matched against the
whole tool name; "", "*" or absent match every tool. Other events are skipped (listed in
`HookSettings.skipped_events`); a handler that is not `"type": "command"` is an error, because
skipping a policy hook would run what it was meant to stop. Invalid settings raise
`HookSettingsError` (a `LoopSpecError`) naming the file and the JSON path, and no rule (no rule
of SPEC.md states the settings format), except HOOK-8 for a matcher; a file that cannot be read
names SAFE-4 (a device, a directory, over the cap) or, when the system refused it, no rule.
Handler ids are `<dialect>:<point>:<n>`, n counting from 1 across all matcher groups of that
point.

Reading answers
---------------
Exit 0 with stdout starting with `{` (Codex: also `[`) is a JSON answer; other stdout is ignored.
A `hookSpecificOutput` whose `hookEventName` is not the firing point has its fields ignored.
PreToolUse, Claude Code: `permissionDecision` allow / deny / ask with `permissionDecisionReason`
and `updatedInput` (a whole replacement; JSON null = absent); legacy top-level `decision`
approve / block; `updatedInput` alone is an allow carrying the rewrite; `continue: false` denies.
`defer` maps to `Ask` (decision word "defer"), without any `updatedInput`: in an interactive loop
"defer to the normal permission flow" means asking the user, and it keeps defer's rank above
allow (Claude Code: deny > defer > ask > allow), which `Pass` would lose.
PreToolUse, Codex: `updatedInput` only with allow; see the fault table. An explicit
`permissionDecision: "deny"` always denies, also when it carries `updatedInput` (ignored) or no
reason: reading it as "no decision" would run the call the hook refused; the flaw is recorded as
an `unsupported` fault on the deny.
Exit 2 denies (word "block") with stderr as the reason. PostToolUse: `decision: "block"` +
`reason` is `PostBlock`; `hookSpecificOutput.additionalContext` is `PostContext`; both at once is
one `PostBlock` whose reason is followed by the context (one verdict per hook; the block is the
stricter answer and both peers show the model the context too). Exit 2 is `PostBlock(stderr)`.
Claude Code 2.1.332 reads a JSON answer after exit 2 too, against its documentation (observed
with the pinned CLI): a deny's or a block's reason replaces stderr, a context joins stderr's
block; any other answer leaves stderr the reason. The Claude Code dialect reads it so.
PreToolUse `additionalContext` and PostToolUse `updatedToolOutput` are not modelled.

Faults (rule HOOK-7)
--------------------
Every fault is recorded in the audit (`fault`, and in `as_hook_audit().stderr_summary`). By
default it has the dialect's documented outcome; with `fail_closed` (the bridge's, or a hook's
own `failClosed`) any fault gives `Deny` / `PostBlock` naming the hook and the fault instead.
Exit code in the audit is None for the killed rows (timeout, output-too-large, signal). A sound
hook's own stderr that reads like a fault or a note (`crash: recovered`) is written `stderr: ...`,
so the log tells a fault from it exactly (`impl.recorded_faults.recorded_fault`): `loopspec
check` notes each hook that failed, as `loopspec run` does.

| fault                    | Claude Code  | Codex        | fail-closed | audit decision word    |
|--------------------------|--------------|--------------|-------------|------------------------|
| timeout                  | no decision  | no decision  | deny, block | error / deny, block    |
| crash                    | no decision  | no decision  | deny, block | error / deny, block    |
| spawn-failed             | no decision  | no decision  | deny, block | error / deny, block    |
| output-too-large         | no decision  | no decision  | deny, block | error / deny, block    |
| invalid-json             | no decision  | no decision  | deny, block | error / deny, block    |
| invalid-output (1)       | no decision  | no decision  | deny, block | error / deny, block    |
| unsupported (2)          | not a fault  | no decision  | deny, block | error / deny, block    |
| wrong-event (3)          | fields off   | fields off   | deny, block | as read / deny, block  |
| non-object-updated-input | kept (4)     | kept (4)     | deny        | allow, ask / deny      |

"no decision" is `Pass` (PreToolUse) or `PostPass` (PostToolUse), the peers' fail-open; "deny,
block" is `Deny` (PreToolUse) or `PostBlock` (PostToolUse). When each fault happens: timeout = no
exit within the hook's timeout (process group SIGKILLed); crash = exit code other than 0 and 2,
or death by a signal; spawn-failed = `/bin/sh` could not start; output-too-large = stdout or
stderr over the cap (process group SIGKILLed at once); invalid-json = stdout looks like JSON but
is not a JSON object, is nested more than 200 deep, or holds a lone surrogate (no text);
invalid-output = a JSON object that breaks the dialect's output schema.
(1) wrong field types, unknown decision values; Codex also: unknown keys, `defer`.
(2) allow without updatedInput, ask, legacy approve, exit 2 without stderr, updatedInput without
allow, block without a reason, reason without a decision, continue:false / stopReason /
suppressOutput in PreToolUse, suppressOutput / updatedMCPToolOutput in PostToolUse.
(3) `hookSpecificOutput` is ignored; the rest of the answer still counts (a legacy top-level
decision, say), usually leaving `pass`.
(4) the `Allow`/`Ask` carries the non-object input, so the loop's HOOK-6 check refuses the call
with a reason naming the hook: loopspec's documented outcome (SPEC §3). Codex gets there only
with allow; ask or no decision with an `updatedInput` is unsupported (2), deny still denies.

Notes (no fault)
----------------
Some answers Claude Code reads without a fault lose what the hook meant: a key it does not
define (`updatedinput`: the rewrite is dropped), text before the JSON (nothing is read), JSON
on stdout after exit 2 (stderr is the reason, unless Claude Code read a deny, a block or a
context from it), a refusal on stderr after exit 0 (no
decision; stderr that only logs gets no note). They keep their documented outcome, also under
fail-closed, and the audit's `note` says what was lost (`note: ...` in
`as_hook_audit().stderr_summary`, so in the log and in `loopspec run`), with the key meant when
a typo is close to one. A Python traceback on stderr is summarised by its last line.
"""

from typing import TYPE_CHECKING

# The names below are imported when first asked for, not with the package: `reaping` (which
# `loopspec replay`, `conform` and `run` import to end their descendants) lives here, and
# importing it ran this file, whose bridge imports asyncio, attrs and the hook readers — a
# third of a bundled-impl replay's start-up, for a run that starts no hook.
if TYPE_CHECKING:
    from loopspec.impl.hook_fault_kinds import FaultKind
    from loopspec.impl.hookbridge.audit import HookRunAudit
    from loopspec.impl.hookbridge.bridge import (
        DEFAULT_OUTPUT_CAP,
        HookBridge,
        PostHookRun,
        PreHookRun,
    )
    from loopspec.impl.hookbridge.faults import HookFault
    from loopspec.impl.hookbridge.settings import (
        CLAUDE_CODE,
        CODEX,
        DEFAULT_TIMEOUT_S,
        HookCommand,
        HookSettings,
        HookSettingsError,
        load_settings,
        parse_settings,
    )

_HOME = {
    "FaultKind": "loopspec.impl.hook_fault_kinds",
    "HookRunAudit": "loopspec.impl.hookbridge.audit",
    **dict.fromkeys(
        ("DEFAULT_OUTPUT_CAP", "HookBridge", "PostHookRun", "PreHookRun"),
        "loopspec.impl.hookbridge.bridge",
    ),
    "HookFault": "loopspec.impl.hookbridge.faults",
    **dict.fromkeys(
        (
            "CLAUDE_CODE",
            "CODEX",
            "DEFAULT_TIMEOUT_S",
            "HookCommand",
            "HookSettings",
            "HookSettingsError",
            "load_settings",
            "parse_settings",
        ),
        "loopspec.impl.hookbridge.settings",
    ),
}
"""The module each public name of the package is defined in."""


# Hidden from mypy, which reads the imports above instead: a module `__getattr__` it saw would
# let any misspelt name of the package through as an `object`.
if not TYPE_CHECKING:

    def __getattr__(name: str) -> object:
        """The public name `name`, imported from its module on first use (PEP 562)."""
        home = _HOME.get(name)
        if home is None:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        import importlib  # noqa: PLC0415 (only when a name is first asked for)

        value = getattr(importlib.import_module(home), name)
        globals()[name] = value  # asked once: later lookups find it without this function
        return value

    def __dir__() -> list[str]:
        """The package's names, those not yet imported included: `dir()`, `help()` and `python
        -m pydoc` list what they find here, and showed none of the public API."""
        return sorted({*globals(), *_HOME})


__all__ = [
    "CLAUDE_CODE",
    "CODEX",
    "DEFAULT_OUTPUT_CAP",
    "DEFAULT_TIMEOUT_S",
    "FaultKind",
    "HookBridge",
    "HookCommand",
    "HookFault",
    "HookRunAudit",
    "HookSettings",
    "HookSettingsError",
    "PostHookRun",
    "PreHookRun",
    "load_settings",
    "parse_settings",
]
