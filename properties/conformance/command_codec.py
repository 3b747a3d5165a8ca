"""Commands and configurations as JSON: the language-neutral form the driver protocol carries.

`command_to_json` / `command_from_json` and `config_to_json` / `config_from_json` are exact
inverses. Decoding validates everything and raises `ProtocolError` naming the JSON path, so a
peer that speaks the protocol wrongly is told where.

Shapes (every object has a `kind`):

    {"kind": "SubmitUser", "text": str}
    {"kind": "ModelReplies", "finish": "completed"|"max-tokens"|"cancelled",
     "blocks": [{"type": "text"|"reasoning", "text": str}
                | {"type": "tool-call", "id": str, "name": str, "arguments": str}]}
    {"kind": "ModelFails", "message": str, "code": str}
    {"kind": "HookAnswers", "verdict": VERDICT, "audit"?: AUDIT}
    {"kind": "ApprovalAnswers", "outcome": "allowed-once"|"rejected"|"cancelled"|"unavailable"}
    {"kind": "ToolFinishes", "callId": str, "outcome": OUTCOME, "post": [POST_VERDICT, ...]}
    {"kind": "Abort", "cause": "user"|"parent"|"hook"|"disposed"}
    {"kind": "Crash"}  {"kind": "Recover"}

    VERDICT      = {"decision": "pass"} | {"decision": "allow", "updatedInput"?: JSON,
                    "reason"?: str} | {"decision": "ask", "reason"?: str, "updatedInput"?: JSON}
                  | {"decision": "deny", "reason": str}
    AUDIT        = {"decision"?: str, "exitCode"?: int, "stderrSummary"?: str, "durationMs": num}
    OUTCOME      = {"ok": true, "text": str, "contexts": [str], "meta"?: JSON}
                  | {"ok": false, "message": str, "code"?: str, "errorName": str}
    POST_VERDICT = {"decision": "pass"} | {"decision": "context", "text": str}
                  | {"decision": "block", "reason": str}   (each may carry "audit")
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, assert_never

from loopspec.model.commands import (
    Abort,
    Allow,
    ApprovalAnswers,
    Ask,
    Command,
    Crash,
    Deny,
    HookAnswers,
    HookAudit,
    ModelFails,
    ModelReplies,
    Pass,
    PostBlock,
    PostContext,
    PostPass,
    PostVerdict,
    PreVerdict,
    Recover,
    ReplyBlock,
    SubmitUser,
    ToolFailed,
    ToolFinishes,
    ToolOutcome,
    ToolSucceeded,
)
from loopspec.model.config import HookSpec, LoopConfig, ToolSpec
from loopspec.model.errors import InvalidEventError, LoopSpecError
from loopspec.model.jsonvalue import JsonValue, thaw
from loopspec.model.messages import ReasoningBlock, TextBlock, ToolCallBlock

JsonObject = dict[str, Any]


class ProtocolError(LoopSpecError):
    """A peer sent JSON that is not a valid protocol message."""

    def __init__(self, message: str) -> None:
        super().__init__(message, rule_id="PROTO-1")


def _obj(value: object, path: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise ProtocolError(f"{path} must be an object")
    return value


def _str(obj: Mapping[str, Any], key: str, path: str) -> str:
    value = obj.get(key)
    if not isinstance(value, str):
        raise ProtocolError(f"{path}.{key} must be a string")
    return value


def _opt_str(obj: Mapping[str, Any], key: str, path: str) -> str | None:
    return None if obj.get(key) is None else _str(obj, key, path)


def _int(obj: Mapping[str, Any], key: str, path: str) -> int:
    value = obj.get(key)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ProtocolError(f"{path}.{key} must be an integer")
    return value


def _list(obj: Mapping[str, Any], key: str, path: str) -> list[Any]:
    value = obj.get(key, [])
    if not isinstance(value, list):
        raise ProtocolError(f"{path}.{key} must be an array")
    return value


def _plain(value: JsonValue) -> object:
    return thaw(value)


# ---------------------------------------------------------------------------------------------
# Encoding.


def _audit_to_json(audit: HookAudit | None) -> JsonObject:
    if audit is None:
        return {}
    wire: JsonObject = {"durationMs": audit.duration_ms}
    if audit.decision is not None:
        wire["decision"] = audit.decision
    if audit.exit_code is not None:
        wire["exitCode"] = audit.exit_code
    if audit.stderr_summary is not None:
        wire["stderrSummary"] = audit.stderr_summary
    return {"audit": wire}


def verdict_to_json(verdict: PreVerdict) -> JsonObject:
    """A PreToolUse verdict as JSON."""
    match verdict:
        case Pass():
            return {"decision": "pass"}
        case Allow() | Ask():
            wire: JsonObject = {"decision": verdict.TAG}
            if verdict.updated_input is not None:
                wire["updatedInput"] = _plain(verdict.updated_input)
            if verdict.reason is not None:
                wire["reason"] = verdict.reason
            return wire
        case Deny():
            return {"decision": "deny", "reason": verdict.reason}
        case _:
            assert_never(verdict)


def post_to_json(verdict: PostVerdict) -> JsonObject:
    """A PostToolUse verdict as JSON."""
    match verdict:
        case PostPass():
            return {"decision": "pass", **_audit_to_json(verdict.audit)}
        case PostContext():
            return {"decision": "context", "text": verdict.text, **_audit_to_json(verdict.audit)}
        case PostBlock():
            return {"decision": "block", "reason": verdict.reason, **_audit_to_json(verdict.audit)}
        case _:
            assert_never(verdict)


def _outcome_to_json(outcome: ToolOutcome) -> JsonObject:
    match outcome:
        case ToolSucceeded():
            wire: JsonObject = {
                "ok": True,
                "text": outcome.text,
                "contexts": list(outcome.contexts),
            }
            if outcome.meta is not None:
                wire["meta"] = _plain(outcome.meta)
            return wire
        case ToolFailed():
            failed: JsonObject = {
                "ok": False,
                "message": outcome.message,
                "errorName": outcome.error_name,
            }
            if outcome.code is not None:
                failed["code"] = outcome.code
            return failed
        case _:
            assert_never(outcome)


def _block_to_json(block: ReplyBlock) -> JsonObject:
    match block:
        case TextBlock() | ReasoningBlock():
            return {"type": block.TYPE, "text": block.text}
        case ToolCallBlock():
            return {
                "type": "tool-call",
                "id": block.id,
                "name": block.name,
                "arguments": block.arguments,
            }
        case _:
            assert_never(block)


def command_to_json(command: Command) -> JsonObject:
    """One command as a JSON object."""
    match command:
        case SubmitUser():
            return {"kind": command.NAME, "text": command.text}
        case ModelReplies():
            return {
                "kind": command.NAME,
                "finish": command.finish,
                "blocks": [_block_to_json(b) for b in command.blocks],
            }
        case ModelFails():
            return {"kind": command.NAME, "message": command.message, "code": command.code}
        case HookAnswers():
            return {
                "kind": command.NAME,
                "verdict": verdict_to_json(command.verdict),
                **_audit_to_json(command.audit),
            }
        case ApprovalAnswers():
            return {"kind": command.NAME, "outcome": command.outcome}
        case ToolFinishes():
            return {
                "kind": command.NAME,
                "callId": command.call_id,
                "outcome": _outcome_to_json(command.outcome),
                "post": [post_to_json(v) for v in command.post],
            }
        case Abort():
            return {"kind": command.NAME, "cause": command.cause}
        case Crash() | Recover():
            return {"kind": command.NAME}
        case _:
            assert_never(command)


# ---------------------------------------------------------------------------------------------
# Decoding.


def _audit_from_json(obj: Mapping[str, Any], path: str) -> HookAudit | None:
    if obj.get("audit") is None:
        return None
    audit = _obj(obj["audit"], path + ".audit")
    duration = audit.get("durationMs", 0.0)
    if isinstance(duration, bool) or not isinstance(duration, int | float):
        raise ProtocolError(f"{path}.audit.durationMs must be a number")
    exit_code = audit.get("exitCode")
    if exit_code is not None and (isinstance(exit_code, bool) or not isinstance(exit_code, int)):
        raise ProtocolError(f"{path}.audit.exitCode must be an integer")
    return HookAudit(
        _opt_str(audit, "decision", path + ".audit"),
        exit_code,
        _opt_str(audit, "stderrSummary", path + ".audit"),
        float(duration),
    )


def verdict_from_json(value: object, path: str) -> PreVerdict:
    """A PreToolUse verdict from JSON."""
    obj = _obj(value, path)
    decision = _str(obj, "decision", path)
    if decision == "pass":
        return Pass()
    if decision == "allow":
        return Allow(obj.get("updatedInput"), _opt_str(obj, "reason", path))
    if decision == "ask":
        return Ask(_opt_str(obj, "reason", path), obj.get("updatedInput"))
    if decision == "deny":
        return Deny(_str(obj, "reason", path))
    raise ProtocolError(f"{path}.decision must be pass, allow, ask or deny, not {decision!r}")


def post_from_json(value: object, path: str) -> PostVerdict:
    """A PostToolUse verdict from JSON."""
    obj = _obj(value, path)
    decision = _str(obj, "decision", path)
    audit = _audit_from_json(obj, path)
    if decision == "pass":
        return PostPass(audit)
    if decision == "context":
        return PostContext(_str(obj, "text", path), audit)
    if decision == "block":
        return PostBlock(_str(obj, "reason", path), audit)
    raise ProtocolError(f"{path}.decision must be pass, context or block, not {decision!r}")


def _outcome_from_json(value: object, path: str) -> ToolOutcome:
    obj = _obj(value, path)
    if obj.get("ok") is True:
        contexts = _list(obj, "contexts", path)
        if not all(isinstance(c, str) for c in contexts):
            raise ProtocolError(f"{path}.contexts must be strings")
        return ToolSucceeded(_str(obj, "text", path), tuple(contexts), obj.get("meta"))
    if obj.get("ok") is False:
        return ToolFailed(
            _str(obj, "message", path),
            _opt_str(obj, "code", path),
            _opt_str(obj, "errorName", path) or "ToolError",
        )
    raise ProtocolError(f"{path}.ok must be true or false")


def _block_from_json(value: object, path: str) -> ReplyBlock:
    obj = _obj(value, path)
    kind = _str(obj, "type", path)
    if kind == "text":
        return TextBlock(_str(obj, "text", path))
    if kind == "reasoning":
        return ReasoningBlock(_str(obj, "text", path))
    if kind == "tool-call":
        return ToolCallBlock(
            _str(obj, "id", path), _str(obj, "name", path), _str(obj, "arguments", path)
        )
    raise ProtocolError(f"{path}.type must be text, reasoning or tool-call, not {kind!r}")


def command_from_json(value: object, path: str = "$") -> Command:
    """One command from its JSON object; `ProtocolError` names what is wrong."""
    obj = _obj(value, path)
    kind = _str(obj, "kind", path)
    try:
        return _decode(kind, obj, path)
    except InvalidEventError as error:
        raise ProtocolError(f"{path}: {error.message}") from error


def _decode(kind: str, obj: Mapping[str, Any], path: str) -> Command:
    if kind == "SubmitUser":
        return SubmitUser(_str(obj, "text", path))
    if kind == "ModelReplies":
        blocks = _list(obj, "blocks", path)
        return ModelReplies(
            tuple(_block_from_json(b, f"{path}.blocks[{i}]") for i, b in enumerate(blocks)),
            _str(obj, "finish", path),
        )
    if kind == "ModelFails":
        return ModelFails(_str(obj, "message", path), _str(obj, "code", path))
    if kind == "HookAnswers":
        return HookAnswers(
            verdict_from_json(obj.get("verdict"), path + ".verdict"), _audit_from_json(obj, path)
        )
    if kind == "ApprovalAnswers":
        return ApprovalAnswers(_str(obj, "outcome", path))
    if kind == "ToolFinishes":
        post = _list(obj, "post", path)
        return ToolFinishes(
            _str(obj, "callId", path),
            _outcome_from_json(obj.get("outcome"), path + ".outcome"),
            tuple(post_from_json(v, f"{path}.post[{i}]") for i, v in enumerate(post)),
        )
    if kind == "Abort":
        return Abort(_str(obj, "cause", path))
    if kind == "Crash":
        return Crash()
    if kind == "Recover":
        return Recover()
    raise ProtocolError(f"{path}.kind: unknown command {kind!r}")


# ---------------------------------------------------------------------------------------------
# Configuration.


def config_to_json(config: LoopConfig) -> JsonObject:
    """A loop configuration as JSON."""
    return {
        "tools": [
            {
                "name": t.name,
                "concurrencySafe": t.concurrency_safe,
                "requiredKeys": list(t.required_keys),
            }
            for t in config.tools
        ],
        "hooks": [
            {
                "handlerId": h.handler_id,
                "point": h.point,
                "matcher": h.matcher,
                "dialect": h.dialect,
            }
            for h in config.hooks
        ],
        "maxParallel": config.max_parallel,
        "provider": config.provider,
        "model": config.model,
        "epochMs": config.epoch_ms,
    }


def config_from_json(value: object, path: str = "$.config") -> LoopConfig:
    """A loop configuration from JSON."""
    obj = _obj(value, path)
    try:
        tools = tuple(
            ToolSpec(
                _str(t, "name", p),
                bool(t.get("concurrencySafe", False)),
                tuple(str(k) for k in _list(t, "requiredKeys", p)),
            )
            for i, raw in enumerate(_list(obj, "tools", path))
            for p, t in [(f"{path}.tools[{i}]", _obj(raw, f"{path}.tools[{i}]"))]
        )
        hooks = tuple(
            HookSpec(
                _str(h, "handlerId", p),
                _str(h, "point", p),
                _str(h, "matcher", p),
                _str(h, "dialect", p),
            )
            for i, raw in enumerate(_list(obj, "hooks", path))
            for p, h in [(f"{path}.hooks[{i}]", _obj(raw, f"{path}.hooks[{i}]"))]
        )
        return LoopConfig(
            tools,
            hooks,
            _int(obj, "maxParallel", path),
            _str(obj, "provider", path),
            _str(obj, "model", path),
            _int(obj, "epochMs", path),
        )
    except InvalidEventError as error:
        raise ProtocolError(f"{path}: {error.message}") from error
