"""Reading a tool result's words and blocks: reasons given, missing keys quoted, a body's
error words, what a block kept; the result rule's helpers that read one result alone."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from loopspec.model.commands import (
    Command,
    PostBlock,
    PostContext,
    ToolFailed,
    ToolFinishes,
    ToolSucceeded,
)
from loopspec.model.config import LoopConfig
from loopspec.model.wording import (
    APPROVAL_DENIALS,
    ERROR_PREFIX,
    REASON_SEPARATOR,
    REWRITE_REFUSED_WORDS,
)
from loopspec.properties.conformance.blame.history import (
    LOOP_ERROR_CODES,
    model_steps,
    result_content,
    result_text,
)
from loopspec.properties.conformance.event_fields import Event, call_id_of, data_of


def every_reason_given(want: Event, got: Event | None) -> bool:
    """Whether the target's denial, though worded otherwise, gives every reason the model's
    joins: the merge kept every denying hook's reason (HOOK-2) and only how they are joined
    (the separator, the order) differs, which DEC-1 states."""
    mine, theirs = result_text(want), result_text(got)
    reasons = mine.removeprefix(ERROR_PREFIX).split(REASON_SEPARATOR)
    return theirs != mine and all(theirs.count(r) >= reasons.count(r) for r in reasons)


def _result_parts(event: Event | None) -> int:
    """How many blocks a tool/result's message holds."""
    return len(_result_blocks(event))


def _result_blocks(event: Event | None) -> list[Any]:
    """The blocks a tool/result's message holds (its one tool-result block's content)."""
    if event is None:
        return []
    content = data_of(event).get("message", {}).get("content")
    if not isinstance(content, list) or not content or not isinstance(content[0], dict):
        return []
    parts = content[0].get("content")
    return parts if isinstance(parts, list) else []


def context_in_result(command: ToolFinishes, want: Event, got: Event | None) -> bool:
    """Whether the target's result holds more than the model's where a PostToolUse hook of the
    call gave a context: the context delivered inside the result (ADJ-4)."""
    gave_context = any(isinstance(verdict, PostContext) for verdict in command.post)
    return gave_context and _result_parts(got) > _result_parts(want)


_MISSING_KEYS = "missing required "


def keys_quoted_otherwise(want: Event, got: Event | None) -> str:
    """Words on the missing keys of an INVALID_TOOL_INPUT result quoted otherwise than the
    model quotes them, as Python's `repr` does (EXE-5), when the texts differ there alone."""
    wanted, written = result_text(want), result_text(got)
    if _MISSING_KEYS not in wanted or _MISSING_KEYS not in written:
        return ""
    (before, _, ours), (their_before, _, theirs) = (
        wanted.partition(_MISSING_KEYS),
        written.partition(_MISSING_KEYS),
    )
    if before != their_before:
        return ""
    listed, their_listed = ours.split(", "), theirs.split(", ")
    if listed != their_listed and sorted(listed) == sorted(their_listed):
        # The same keys, quoted alike, in another order (a set difference, or sorted).
        return (
            f"; the missing keys are the same, in another order: {ours}, as the tool's "
            f"requiredKeys list them, where the target's are {theirs} (a set's order, or "
            "sorted, is not the tool's)"
        )
    return (
        "; the missing keys differ in how they are quoted: each as Python's repr writes a "
        "string (a control character escaped, \\x00 or \\t, a key holding ' in double quotes, "
        f"other characters as they are), here {json.dumps(ours, ensure_ascii=False)} as a "
        f"JSON string, where the target's are {json.dumps(theirs, ensure_ascii=False)}"
    )


def refused_rewrite_worded_otherwise(want: Event, got: Event | None) -> str | None:
    """`keys_quoted_otherwise`'s words when both results refuse the same hook's input to the
    same tool for the same missing keys, listed or quoted otherwise; None otherwise (another
    hook, another input or another problem is HOOK-6's or HOOK-3's)."""
    wanted, written = result_text(want), result_text(got)
    if REWRITE_REFUSED_WORDS not in wanted or _MISSING_KEYS not in wanted:
        return None
    ours, theirs = wanted.partition(_MISSING_KEYS)[2], written.partition(_MISSING_KEYS)[2]
    if ours == theirs:
        return None
    keys, their_keys = (
        sorted(key.strip("'\"") for key in listing.split(", ")) for listing in (ours, theirs)
    )
    if keys != their_keys:
        return None
    return keys_quoted_otherwise(want, got) or None


def body_error_words(want: Event, got: Event | None) -> str | None:
    """What the target wrote as a failed body's `{name, code}` against what the body gave,
    when the result's content agrees and only its error info differs (EXE-4); None otherwise.
    A loop naming every failure ToolError read as a wrong text ("Error: <message>")."""
    wanted = data_of(want).get("error")
    if got is None or result_content(got) != result_content(want):
        return None
    written = data_of(got).get("error")
    if wanted is None and written is not None:
        content = data_of(want).get("message", {}).get("content")
        block = content[0] if isinstance(content, list) and content else None
        if isinstance(block, dict) and block.get("isError") is True:
            return (
                f"the target writes {json.dumps(written)} as tool/result.error where the body "
                "failed without a code: a failed body's result carries {name, code} only when "
                "the body reported a code (SPEC.md section 9)"
            )
    if not isinstance(wanted, dict) or wanted.get("code") in LOOP_ERROR_CODES:
        return None
    if written == wanted:
        return None
    rule = (
        "a failed body's result keeps the body's own errorName and code as tool/result.error "
        "(SPEC.md section 9)"
    )
    differences = [
        f"{field} {json.dumps(written.get(field))} where the body's is "
        + json.dumps(wanted.get(field))
        for field in ("name", "code")
        if isinstance(written, dict) and written.get(field) != wanted.get(field)
    ]
    if differences:
        return f"the target gives the error {' and '.join(differences)}: {rule}"
    # No error info, another JSON type, or the same name and code with members of its own.
    what = "writes no error info" if written is None else f"writes {json.dumps(written)}"
    return f"the target {what} where the body failed with {json.dumps(wanted)}: {rule}"


def failure_info_kept_by_a_block(
    want: Event,
    got: Event | None,
    command: Command,
    program: Sequence[Command] = (),
    config: LoopConfig | None = None,
) -> str | None:
    """The words for a blocked result that keeps the error info of a body that failed with a
    code, or of a success an abort made ABORTED, its content the model's (the block reasons),
    where a block's result has none (DEC-3: it replaces the body's result); None otherwise, as
    for a body that gave no code, whose error info is wrong blocked or not (EXE-4). A result
    held behind an earlier call's (ORD-3) commits on another command than its outcome, which
    `program` replayed finds."""
    written = None if got is None else data_of(got).get("error")
    if (
        written is None
        or data_of(want).get("error") is not None
        or result_content(got) != result_content(want)
    ):
        return None
    call_id = call_id_of(want)
    outcome = (
        command.outcome
        if isinstance(command, ToolFinishes) and command.call_id == call_id
        else _outcome_taken(call_id, program, config)
    )
    if isinstance(outcome, ToolSucceeded) and isinstance(written, dict):
        if written.get("code") != "ABORTED":
            return None
        # A success after the abort is an ABORTED error (ABORT-1) until its block replaces it.
        return (
            f"the target keeps the error info {json.dumps(written)} of a success that landed "
            "after the abort (ABORT-1), on a result a PostToolUse hook blocked: a block "
            "replaces the result whole, and the blocked result carries no error info"
        )
    if not isinstance(outcome, ToolFailed) or outcome.code is None:
        return None
    body = {"name": outcome.error_name, "code": outcome.code}
    # Error info of its own (a null code) is written where none belongs, not the body's kept.
    kept = (
        f"keeps the failed body's error info, {json.dumps(written)},"
        if written == body
        else f"writes the error info {json.dumps(written)} (the failed body's is "
        f"{json.dumps(body)})"
    )
    return (
        f"the target {kept} on a result a PostToolUse hook blocked: a block replaces the "
        "body's result whole, its {name, code} as its content and meta, and the blocked result "
        "carries no error info"
    )


def _outcome_taken(
    call_id: str | None, program: Sequence[Command], config: LoopConfig | None
) -> object:
    """The outcome of the last ToolFinishes for `call_id` that the model took, `program`
    replayed on it (None without `config`, or when it took none)."""
    if config is None:
        return None
    taken = None
    for replayed in model_steps(program, config):
        sent = replayed.sent
        if replayed.refusal is None and isinstance(sent, ToolFinishes) and sent.call_id == call_id:
            taken = sent.outcome
    return taken


def error_name(event: Event | None) -> object:
    """A tool/result's error name, None when it carries none."""
    error = data_of(event).get("error")
    return error.get("name") if isinstance(error, dict) else None


def approval_words_for_an_abort(got: Event | None) -> str:
    """Words saying the target's text is an approval's answer, when it is one ("" otherwise):
    an abort stops a call, which no one rejected, and the model reading it so apologizes for
    a refusal that never came."""
    text = result_text(got) if got is not None else ""
    for outcome, words in APPROVAL_DENIALS.items():
        before, _, after = words.partition("{tool}")
        if text.startswith(ERROR_PREFIX + before) and text.endswith(after):
            return (
                f", where the target's is the words of an approval answered {outcome}: the "
                "abort stopped the call, nobody refused it"
            )
    return ""


def meta_kept_by_a_block(want: Event, got: Event | None) -> str:
    """Words saying a blocked result carries none of the body's meta, when the target's keeps
    it ("" otherwise): the block replaces the result whole (DEC-3)."""
    if "meta" in data_of(want) or got is None or "meta" not in data_of(got):
        return ""
    return (
        f", and carries none of the body's meta, where the target's result keeps "
        f"{json.dumps(data_of(got).get('meta'))}"
    )


def block_reasons_counted(want: Event, got: Event | None) -> str:
    """Words on how many blocks a blocked result holds on each side, when that differs ("" when
    it does not): one per blocking hook that gave a reason (DEC-3)."""
    mine, theirs = _result_parts(want), _result_parts(got)
    if mine == theirs or mine < 2:
        return ""
    shown = ", ".join(
        json.dumps(block.get("text")) for block in _result_blocks(want) if isinstance(block, dict)
    )
    return (
        f", one text block for each blocking hook that gave one, in configured order: {mine} "
        f"here ({shown}), where the target's result holds {theirs}"
    )


def blocked_by(command: ToolFinishes) -> str | None:
    """Why the result is the block reasons where a PostToolUse verdict of `command` blocks it;
    None when none does. The audit's word need not say block: a hook that failed under
    fail-closed blocks with the word error (HOOK-7), which a loop may take for no decision."""
    blocks = [verdict for verdict in command.post if isinstance(verdict, PostBlock)]
    if not blocks:
        return None
    failed = [v for v in blocks if v.audit is not None and v.audit.decision == "error"]
    return "a PostToolUse hook blocked it, so the block reasons replace it" + (
        ", a hook whose audit records error among them: a hook that failed under fail-closed "
        "blocks the result (HOOK-7), and its verdict, not its audit's word, is what the loop "
        "acts on"
        if failed
        else ""
    )
