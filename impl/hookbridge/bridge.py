"""`HookBridge`: run every matching command hook for one call, concurrently, in configured order.

Hooks of one call start together (as both peers run them), but the runs come back in configured
order whatever order they finish in. That is the half of the determinism fix (Claude Code #83353,
Codex #35713) a bridge can give: the loop merges them by configured order (rules HOOK-2, HOOK-3),
so completion order can no longer decide anything.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Mapping
from pathlib import Path

import attrs

from loopspec.impl.hookbridge.audit import HookRunAudit, run_audit
from loopspec.impl.hookbridge.faults import HookFault
from loopspec.impl.hookbridge.payload import CallFacts, SessionFacts, payload_bytes
from loopspec.impl.hookbridge.post_tool_use import read_post_tool_use
from loopspec.impl.hookbridge.pre_tool_use import read_pre_tool_use
from loopspec.impl.hookbridge.process import ProcessOutcome, run_shell
from loopspec.impl.hookbridge.settings import CLAUDE_CODE, HookCommand, HookSettings
from loopspec.model.commands import Deny, HookAnswers, PostBlock, PostVerdict, PreVerdict
from loopspec.model.config import POST_TOOL_USE, PRE_TOOL_USE, HookSpec
from loopspec.model.jsonvalue import JsonValue, freeze

DEFAULT_OUTPUT_CAP = 1024 * 1024
"""Bytes of stdout, and separately of stderr, a hook may print; more is a fault."""


@attrs.frozen
class PreHookRun:
    """One PreToolUse hook's answer for one call, with its audit."""

    handler_id: str
    verdict: PreVerdict
    audit: HookRunAudit

    def answer(self) -> HookAnswers:
        """The model command that feeds this answer, with its audit, to the loop."""
        return HookAnswers(self.verdict, self.audit.as_hook_audit())


@attrs.frozen
class PostHookRun:
    """One PostToolUse hook's judgement of one result; the verdict carries the model's audit."""

    handler_id: str
    verdict: PostVerdict
    audit: HookRunAudit


def _closed_reason(hook: HookCommand, fault: HookFault) -> str:
    return f"{hook.point} hook {hook.handler_id} is fail-closed and failed: {fault.describe()}"


class HookBridge:
    """Runs configured command hooks and reads their answers as the model's verdicts."""

    def __init__(
        self,
        settings: HookSettings,
        *,
        session_id: str,
        cwd: str | os.PathLike[str],
        transcript_path: str | os.PathLike[str] | None = None,
        fail_closed: bool = False,
        permission_mode: str = "default",
        model: str = "",
        env: Mapping[str, str] | None = None,
        output_cap: int = DEFAULT_OUTPUT_CAP,
    ) -> None:
        if output_cap < 1:
            raise ValueError("output_cap must be at least one byte")
        self._hooks = settings.hooks
        self._specs = tuple(hook.spec() for hook in self._hooks)
        self._session = SessionFacts(
            session_id,
            str(Path(cwd)),
            None if transcript_path is None else str(Path(transcript_path)),
            permission_mode,
            model,
        )
        self._fail_closed = fail_closed
        self._env = dict(os.environ if env is None else env)
        self._cap = output_cap

    def specs(self) -> tuple[HookSpec, ...]:
        """Every hook as the model configures it (`LoopConfig.hooks`), in configured order."""
        return self._specs

    def command(self, handler_id: str) -> HookCommand:
        """The configured command behind `handler_id` (KeyError when there is none)."""
        for hook in self._hooks:
            if hook.handler_id == handler_id:
                return hook
        raise KeyError(handler_id)

    def matching(self, point: str, tool_name: str) -> tuple[HookCommand, ...]:
        """The hooks that fire at `point` for `tool_name`, in configured order.

        Matched exactly as the model matches them, so the loop expects one answer per run.
        """
        return tuple(
            hook
            for hook, spec in zip(self._hooks, self._specs, strict=True)
            if spec.point == point and spec.matches(tool_name)
        )

    def fails_closed(self, hook: HookCommand) -> bool:
        """The policy for `hook`: its own `failClosed` when set, else the bridge's."""
        own = hook.declared.fail_closed
        return self._fail_closed if own is None else own

    async def pre_tool_use(
        self, call_id: str, tool_name: str, tool_input: object, *, turn_id: str = ""
    ) -> tuple[PreHookRun, ...]:
        """Run every matching PreToolUse hook for one call; the runs in configured order."""
        call = CallFacts(PRE_TOOL_USE, call_id, tool_name, freeze(tool_input), None, turn_id)
        hooks = self.matching(PRE_TOOL_USE, tool_name)
        return tuple(await asyncio.gather(*(self._pre_one(hook, call) for hook in hooks)))

    async def post_tool_use(
        self,
        call_id: str,
        tool_name: str,
        tool_input: object,
        tool_response: object,
        *,
        turn_id: str = "",
    ) -> tuple[PostHookRun, ...]:
        """Run every matching PostToolUse hook for one result; the runs in configured order."""
        frozen_input, frozen_response = freeze(tool_input), freeze(tool_response)
        call = CallFacts(POST_TOOL_USE, call_id, tool_name, frozen_input, frozen_response, turn_id)
        hooks = self.matching(POST_TOOL_USE, tool_name)
        return tuple(await asyncio.gather(*(self._post_one(hook, call) for hook in hooks)))

    async def _execute(self, hook: HookCommand, call: CallFacts) -> ProcessOutcome:
        env = dict(self._env)
        if hook.dialect == CLAUDE_CODE:
            env["CLAUDE_PROJECT_DIR"] = self._session.cwd
        return await run_shell(
            hook.command,
            stdin=payload_bytes(hook.dialect, self._session, call),
            cwd=self._session.cwd,
            env=env,
            timeout_s=hook.timeout_s,
            output_cap=self._cap,
        )

    def _audit(
        self,
        *,
        hook: HookCommand,
        call: CallFacts,
        outcome: ProcessOutcome,
        decision: str,
        fault: HookFault | None,
        updated_input: JsonValue = None,
    ) -> HookRunAudit:
        return run_audit(
            outcome,
            handler_id=hook.handler_id,
            point=hook.point,
            dialect=hook.dialect,
            call_id=call.call_id,
            decision=decision,
            fault=fault,
            updated_input=updated_input,
            fail_closed=self.fails_closed(hook),
        )

    async def _pre_one(self, hook: HookCommand, call: CallFacts) -> PreHookRun:
        outcome = await self._execute(hook, call)
        reading = read_pre_tool_use(hook.dialect, outcome, hook.timeout_s, self._cap)
        verdict, decision = reading.verdict, reading.decision
        if reading.fault is not None and self.fails_closed(hook):
            verdict, decision = Deny(_closed_reason(hook, reading.fault)), Deny.TAG
        audit = self._audit(
            hook=hook,
            call=call,
            outcome=outcome,
            decision=decision,
            fault=reading.fault,
            updated_input=reading.updated_input,
        )
        return PreHookRun(hook.handler_id, verdict, audit)

    async def _post_one(self, hook: HookCommand, call: CallFacts) -> PostHookRun:
        outcome = await self._execute(hook, call)
        reading = read_post_tool_use(hook.dialect, outcome, hook.timeout_s, self._cap)
        verdict, decision = reading.verdict, reading.decision
        if reading.fault is not None and self.fails_closed(hook):
            verdict, decision = PostBlock(_closed_reason(hook, reading.fault)), PostBlock.TAG
        audit = self._audit(
            hook=hook, call=call, outcome=outcome, decision=decision, fault=reading.fault
        )
        audited = attrs.evolve(verdict, audit=audit.as_hook_audit())
        return PostHookRun(hook.handler_id, audited, audit)
