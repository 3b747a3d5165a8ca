"""The side-by-side reader report of a harness session, and the divergences it shows.

From a session's result document (see `session.run_inside`) this finds, for every scripted
call: what the model asked for (the script), what each PreToolUse hook saw and answered and when
it finished (the hook audit), what ran (the PostToolUse observer's `tool_input`, which the
harness fills with the input it executed), what the next model request's history carried, and
what the transcript or rollout recorded (read by `loopspec check`'s dialects), a call reusing an
earlier call's id named `<id>#<n>` in each of them (`CallNames`). It then states the
divergences from the model:

- RW-1: what ran differs from what the history or the log's call record holds;
- HOOK-3: with several rewriting hooks, what ran is not the input of the last hook in configured
  order (the harness took the one that finished last), or a rewrite was dropped;
- ORD-3: the next request carries a reply's results in another order than its calls;
- HOOK-6: the call ran although the rewrite in effect (the last supplied in configured order,
  none under a deny) is not a JSON object, which the model refuses naming the hook;
- DEC-1: a call a hook denied ran anyway (denied as the model reads the hook's dialect: a
  `deny` decision, and also exit 2 or `decision: block` where the dialect reads them so);
- HOOK-5: Codex ran a call as a patch itself (its rollout's `FileChange`: an `apply_patch`
  heredoc sent to its shell) and no PostToolUse hook, the observer among them, judged it;
- ADJ-3: the next request carries a call without its result;
- HIST-1: a call reusing an earlier call's id ran, and the next request holds neither it nor
  its result (Claude Code leaves it out);
- ADJ-1: the next request carries a model-visible message (a developer or user message, a
  hook's context) between a reply's calls and their results;
- REC-1 (after a crash), ABORT-1 (after an abort), HIST-1 (otherwise): the history holds an
  assistant message the model never wrote (a repair or an abort may add results, nothing the
  model would read as its own words).

Then every violation `loopspec check` finds in the log the harness wrote (the report prints
them) counts too, unless the comparisons above already name its rule: the log can show what the
requests cannot (a Codex rollout records no hook for a rewrite that ran: RW-2). So the summary
line and the exit status of `loopspec run --harness` are one verdict, the one `check` gives on
that log and more, never a pass beside a check line that reports a broken rule.
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import attrs

from loopspec.impl.hook_fault_kinds import FaultKind
from loopspec.impl.hookbridge.audit import run_audit
from loopspec.impl.hookbridge.faults import HookFault
from loopspec.impl.hookbridge.post_tool_use import read_post_tool_use
from loopspec.impl.hookbridge.pre_tool_use import read_pre_tool_use
from loopspec.impl.hookbridge.process import ProcessOutcome
from loopspec.impl.recorded_faults import FAILED_WORD
from loopspec.model.commands import Allow, Ask, Deny
from loopspec.model.config import PRE_TOOL_USE
from loopspec.properties.harnesses.cli_wire import text_of
from loopspec.properties.harnesses.compaction import whole_history
from loopspec.properties.harnesses.hook_ids import ConfiguredHook, configured_hooks
from loopspec.properties.harnesses.mock_model import EXHAUSTED_TEXT, asks_the_model
from loopspec.properties.harnesses.profiles import KNOWN
from loopspec.properties.harnesses.rewrite_fate import (
    Ignored,
    InEffect,
    Overridden,
    Refused,
    RewriteFate,
    Unused,
    rewrite_words,
)
from loopspec.properties.harnesses.script import (
    Harness,
    HarnessScript,
    ScriptedCall,
    ScriptedText,
)
from loopspec.properties.harnesses.session import OBSERVER_ID
from loopspec.properties.logcheck.checker import LogReport, NoticeKind, check_stream
from loopspec.properties.logcheck.claude_code import same_file_input
from loopspec.properties.logcheck.harness_logs import RESUME_WORDS
from loopspec.properties.logcheck.hook_faults import HookRuns
from loopspec.properties.profiles.runs import reused_call_id

MAX_SHOWN = 100
# The hook id column: `claude-code:PostToolUse:1` and room to spare, as the bundled run's.
ID_WIDTH = 26
# What "ran" says for a call no PostToolUse observer saw: it never ran, or never finished.
NOT_REPORTED_RUN = "(no PostToolUse: never ran, or never finished)"
# The fault of a hook the harness killed before it exited, as the bundled audit names a timeout.
KILLED = (
    f"{FaultKind.TIMEOUT}: the harness killed it before it exited (its hook timeout, or an abort)"
)


@attrs.frozen
class Divergence:
    """A rule the real loop broke in this session, for one call."""

    rule_id: str
    call_id: str
    message: str


@attrs.frozen
class HookAnswer:
    """One hook invocation from the audit."""

    hook_id: str
    event: str
    call_id: str
    seen_input: Any
    updated_input: Any
    decision: str | None
    started: float
    finished: float
    fault: HookFault | None = None
    """What is wrong with the hook's own output, read as the model reads its dialect (HOOK-7)."""
    rewrites: bool = False
    """Whether the model would run `updated_input`: a well-formed rewrite it honours."""
    summary: str | None = None
    """The fault or note, and stderr's gist, as the bundled loop's audit would show them."""
    word: str | None = None
    """The decision word the bundled loop's audit records for the same output (`error` for a
    fault without a decision)."""
    denies: bool = False
    """Whether the model reads the answer as a deny: `permissionDecision: deny`, and also exit
    2 or `decision: block` where the dialect reads them so, which `permissionDecision` does
    not show."""


def _json(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return None


class CallNames:
    """Names each call of one source by its id, a later call reusing an id (local models number
    calls `call_0` anew in each reply) as conform names it (`reused_call_id`: `call_0#2`), so
    sources that each hold every call once, in order, name the same call alike."""

    def __init__(self) -> None:
        self._uses: dict[str, int] = {}

    def new_call(self, call_id: str) -> str:
        """The name of the call that uses `call_id` next."""
        use = self._uses[call_id] = self._uses.get(call_id, 0) + 1
        return call_id if use == 1 else reused_call_id(call_id, use)

    def latest(self, call_id: str) -> str:
        """The name of the latest call that used `call_id` (what a result for it answers)."""
        use = self._uses.get(call_id, 1)
        return call_id if use == 1 else reused_call_id(call_id, use)


def scripted_call_names(script: HarnessScript) -> list[tuple[str, ScriptedCall]]:
    """Every scripted call, in order, with its name in the report (`CallNames`)."""
    names = CallNames()
    return [(names.new_call(call.call_id), call) for call in script.calls()]


@attrs.frozen
class HookRun:
    """What names the call a hook ran for: the hook, its event, the call id it saw, its start."""

    hook_id: str
    event: str
    call_id: str
    started: float


def _killed_runs(unfinished: Sequence[Mapping[str, Any]]) -> list[HookRun]:
    """The hooks the harness killed before they answered, as `HookRun`s."""
    runs = []
    for record in unfinished:
        stdin = _json(record["stdin"])
        stdin = stdin if isinstance(stdin, dict) else {}
        event, call_id = str(stdin.get("hook_event_name", "?")), str(stdin.get("tool_use_id", "?"))
        runs.append(HookRun(str(record["hook"]), event, call_id, float(record["started"])))
    return runs


def _call_names_by_use(runs: Sequence[HookRun]) -> list[str]:
    """The name (`CallNames`) of the call each of `runs` ran for, taken by start: a hook that
    already ran for an id, or a PreToolUse hook after the id's PostToolUse, runs for the next
    call reusing it (each hook runs once per call, the PreToolUse ones before it runs)."""
    names = CallNames()
    # Per call id: the (hook, event) pairs that ran for its latest call.
    ran_for: dict[str, set[tuple[str, str]]] = {}
    named = [""] * len(runs)
    for index in sorted(range(len(runs)), key=lambda k: runs[k].started):
        run = runs[index]
        seen = ran_for.get(run.call_id)
        posted = seen is not None and any(event != PRE_TOOL_USE for _, event in seen)
        if (
            seen is None
            or (run.hook_id, run.event) in seen
            or (run.event == PRE_TOOL_USE and posted)
        ):
            seen = ran_for[run.call_id] = set()
            named[index] = names.new_call(run.call_id)
        else:
            named[index] = names.latest(run.call_id)
        seen.add((run.hook_id, run.event))
    return named


def hook_answers(audit: Sequence[Mapping[str, Any]], harness: Harness) -> list[HookAnswer]:
    """The audit records as answers, in the order the hooks started, each read as the model
    reads the harness's hook dialect: a malformed answer is the hook's fault, not a decision."""
    answers = []
    for record in audit:
        stdin = _json(record["stdin"])
        stdin = stdin if isinstance(stdin, dict) else {}
        stdout = _json(record["stdout"])
        specific = stdout.get("hookSpecificOutput") if isinstance(stdout, dict) else None
        specific = specific if isinstance(specific, dict) else {}
        decision = specific.get("permissionDecision")
        event = str(stdin.get("hook_event_name", "?"))
        answer = HookAnswer(
            str(record["hook"]),
            event,
            str(stdin.get("tool_use_id", "?")),
            stdin.get("tool_input"),
            specific.get("updatedInput"),
            decision if isinstance(decision, str) else None,
            float(record["started"]),
            float(record["finished"]),
        )
        answers.append(_as_the_model_reads(answer, record, harness))
    return answers


def _as_the_model_reads(
    answer: HookAnswer, record: Mapping[str, Any], harness: Harness
) -> HookAnswer:
    if answer.hook_id == OBSERVER_ID:
        return answer
    exit_code = int(record["exitCode"])
    outcome = ProcessOutcome(
        exit_code=exit_code if exit_code >= 0 else None,
        signal=-exit_code if exit_code < 0 else None,
        stdout=str(record["stdout"]).encode(),
        stderr=str(record["stderr"]).encode(),
        duration_ms=(answer.finished - answer.started) * 1000,
    )
    # The harness enforced the hook's timeout itself: a record exists only for a hook that
    # exited, so no timeout and no output cap applies here.
    if answer.event == PRE_TOOL_USE:
        pre = read_pre_tool_use(harness.value, outcome, float("inf"), 1 << 62)
        verdict = pre.verdict
        honoured = (
            isinstance(verdict, Allow | Ask)
            and verdict.updated_input is not None
            and (pre.fault is None or pre.fault.kind != FaultKind.NON_OBJECT_INPUT)
        )
        denies = isinstance(verdict, Deny)
        decision = pre.decision if pre.fault is not None or denies else answer.decision
        read = attrs.evolve(
            answer, decision=decision, fault=pre.fault, rewrites=honoured, denies=denies
        )
        word = pre.decision
    else:
        post = read_post_tool_use(harness.value, outcome, float("inf"), 1 << 62)
        # A block or a context has the model's audit word (a PostToolUse answer holds no
        # permissionDecision, so each read as no decision); a pass or a fault shows the JSON's.
        decided = post.fault is None and post.decision != "pass"
        decision = post.decision if decided else answer.decision
        read, word = attrs.evolve(answer, decision=decision, fault=post.fault), post.decision
    # The summary the bundled loop's audit gives the same output: the fault or note, stderr.
    audit = run_audit(
        outcome,
        handler_id=answer.hook_id,
        point=answer.event,
        dialect=harness.value,
        call_id=answer.call_id,
        decision=word,
        fault=read.fault,
    )
    return attrs.evolve(read, summary=audit.as_hook_audit().stderr_summary, word=word)


def configured_order(hooks: Mapping[str, Any] | None, harness: Harness) -> list[str]:
    """The PreToolUse hook ids in configured order."""
    return [h.hook_id for h in configured_hooks(hooks, harness.value) if h.event == PRE_TOOL_USE]


def _compared(value: Any, work: str) -> Any:
    """What of a call's input the report compares: a shell call's command; a file tool's input
    as check compares Claude Code's (`same_file_input`, against the CLI's working folder `work`:
    its hooks see the absolute path, the history and transcript keep the model's)."""
    if not isinstance(value, dict):
        return value
    if "command" in value or "cmd" in value:
        return value.get("command", value.get("cmd"))
    return same_file_input(value, work)


def _where_they_differ(ran: Any, held: Any) -> tuple[Any, Any]:
    """Of two inputs compared (`_compared`), the members whose values differ, each side's (a
    file tool's input is long, its path the same); two that are not both objects whole."""
    if not isinstance(ran, dict) or not isinstance(held, dict):
        return ran, held
    differ = [
        key for key in {**ran, **held} if key not in ran or key not in held or ran[key] != held[key]
    ]
    return (
        {key: ran[key] for key in differ if key in ran},
        {key: held[key] for key in differ if key in held},
    )


@attrs.frozen
class HistoryView:
    """What the last model request carried: each call's input, the results in order, the
    text of every assistant message, and each other model-visible message that sits between
    calls and their results (what it is, and the calls still awaiting results there)."""

    calls: dict[str, Any]
    call_order: list[str]
    results: list[tuple[str, str]]
    assistant_texts: list[str]
    between: list[tuple[str, tuple[str, ...]]] = attrs.field(factory=list)


def history_view(harness: Harness, body: Any) -> HistoryView:
    """The calls and results in a model request's history, a call reusing an earlier call's id
    named as `CallNames` names it, a result as answering the latest call of its id."""
    calls: dict[str, Any] = {}
    results: list[tuple[str, str]] = []
    texts: list[str] = []
    between: list[tuple[str, tuple[str, ...]]] = []
    names = CallNames()
    # Calls of the latest reply still awaiting their results, in call order (ADJ-1).
    awaiting: list[str] = []
    match harness:
        case Harness.CLAUDE_CODE:
            for message in body.get("messages", []) if isinstance(body, dict) else []:
                content = message.get("content")
                blocks = content if isinstance(content, list) else []
                carries_results = any(b.get("type") == "tool_result" for b in blocks)
                if message.get("role") == "assistant":
                    awaiting = []
                elif awaiting and not carries_results:
                    # Text riding with results belongs to the result message (ADJ-1 holds);
                    # a user message of its own between a call and its result does not.
                    between.append(("a user message", tuple(awaiting)))
                for block in blocks:
                    if message.get("role") == "assistant" and block.get("type") == "text":
                        texts.append(str(block.get("text")))
                    elif block.get("type") == "tool_use":
                        name = names.new_call(str(block["id"]))
                        calls[name] = block.get("input")
                        awaiting.append(name)
                    elif block.get("type") == "tool_result":
                        name = names.latest(str(block["tool_use_id"]))
                        results.append((name, text_of(block.get("content"))))
                        awaiting = [c for c in awaiting if c != name]
        case Harness.CODEX:
            for item in body.get("input", []) if isinstance(body, dict) else []:
                if item.get("type") == "message" and item.get("role") == "assistant":
                    texts.append(text_of(item.get("content")))
                    awaiting = []
                elif item.get("type") == "function_call":
                    name = names.new_call(str(item["call_id"]))
                    calls[name] = _json(str(item.get("arguments", "")))
                    awaiting.append(name)
                elif item.get("type") == "function_call_output":
                    name = names.latest(str(item["call_id"]))
                    results.append((name, text_of(item.get("output"))))
                    awaiting = [c for c in awaiting if c != name]
                elif item.get("type") == "message" and awaiting:
                    between.append((f"a {item.get('role', 'unknown')} message", tuple(awaiting)))
    return HistoryView(calls, list(calls), results, texts, between)


def _short(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value)
    text = text.replace("\n", "\\n")
    return text if len(text) <= MAX_SHOWN else text[:MAX_SHOWN] + "..."


@attrs.frozen
class SessionView:
    """Everything the report prints, already worked out."""

    harness: Harness
    script: HarnessScript
    answers: list[HookAnswer]
    ran: dict[str, Any]
    history: HistoryView
    log_calls: dict[str, Any]
    log_report: LogReport | None
    divergences: list[Divergence]
    configured: list[ConfiguredHook] = attrs.field(factory=list)
    hooks_source: str = "hooks file"
    """The hooks file as the user named it, for the ids' settings entries."""
    killed_calls: list[str] = attrs.field(factory=list)
    """The call each hook the harness killed ran for (the result's `unfinished`, in order),
    named as the answers' calls are."""
    patched: dict[str, int] = attrs.field(factory=dict)
    """`LogCalls.patched`."""


@attrs.frozen
class LogCalls:
    """Each call's input as the transcript's tool_use or the rollout's function_call holds it,
    and the calls it records a result for, named as `CallNames` names them."""

    inputs: dict[str, Any]
    answered: set[str]
    patched: dict[str, int] = attrs.field(factory=dict)
    """The calls Codex applied as a patch itself, with the line of the `FileChange` item that
    says so: an `apply_patch` heredoc sent through its shell tool, which runs no PostToolUse
    hook (HOOK-5; Codex 0.171.0, observed offline 2026-12-06)."""


def _log_calls(harness: Harness, text: str) -> LogCalls:
    inputs: dict[str, Any] = {}
    answered: set[str] = set()
    patched: dict[str, int] = {}
    names = CallNames()
    # One record a line, split at "\n" alone: a record's strings may hold U+2028 and its kin
    # unescaped, where `str.splitlines` would split it (and lose a result that says one).
    for number, line in enumerate(text.split("\n"), start=1):
        record = _json(line)
        if not isinstance(record, dict):
            continue
        match harness:
            case Harness.CLAUDE_CODE:
                message = record.get("message")
                content = message.get("content") if isinstance(message, dict) else None
                for block in content if isinstance(content, list) else []:
                    if not isinstance(block, dict):
                        continue
                    if record.get("type") == "assistant" and block.get("type") == "tool_use":
                        inputs[names.new_call(str(block["id"]))] = block.get("input")
                    elif record.get("type") == "user" and block.get("type") == "tool_result":
                        answered.add(names.latest(str(block.get("tool_use_id"))))
            case Harness.CODEX:
                payload = record.get("payload")
                if not isinstance(payload, dict):
                    continue
                item = payload.get("item")
                if (
                    record.get("type") == "event_msg"
                    and payload.get("type") == "item_completed"
                    and isinstance(item, dict)
                    and item.get("type") == "FileChange"
                ):
                    patched[names.latest(str(item.get("id")))] = number
                if record.get("type") != "response_item":
                    continue
                if payload.get("type") == "function_call":
                    name = names.new_call(str(payload["call_id"]))
                    inputs[name] = _json(str(payload.get("arguments")))
                elif payload.get("type") == "function_call_output":
                    answered.add(names.latest(str(payload.get("call_id"))))
    return LogCalls(inputs, answered, patched)


def session_view(
    harness: Harness,
    script: HarnessScript,
    hooks: Mapping[str, Any] | None,
    result: Mapping[str, Any],
    *,
    hooks_source: str = "hooks file",
) -> SessionView:
    """Work out what every reader held and which rules broke; `hooks_source` names the hooks
    file in the report's list of which hook is which."""
    answers = hook_answers(result["audit"], harness)
    killed = _killed_runs(result["unfinished"])
    names = _call_names_by_use(
        [HookRun(a.hook_id, a.event, a.call_id, a.started) for a in answers] + killed
    )
    answers = [
        attrs.evolve(a, call_id=name)
        for a, name in zip(answers, names[: len(answers)], strict=True)
    ]
    ran = {a.call_id: a.seen_input for a in answers if a.hook_id == OBSERVER_ID}
    requests = [r for r in result["requests"] if asks_the_model(harness, r["method"], r["path"])]
    # After Claude Code's /compact no request holds the calls before it: the summary request's.
    history = history_view(harness, whole_history([r["body"] for r in requests]))
    logs = result["logs"]
    log_text = logs[0]["text"] if logs else ""
    log_report = (
        check_stream(logs[0]["path"], io.BytesIO(log_text.encode()), None) if logs else None
    )
    log_calls = _log_calls(harness, log_text)
    compared = list(
        _divergences(
            script,
            answers=answers,
            ran=ran,
            history=history,
            log_calls=log_calls.inputs,
            log_results=log_calls.answered if logs else None,
            patched=log_calls.patched,
            # An invented reply is read against what the loop was repairing or stopping.
            invented_rule="REC-1"
            if result["crashed"]
            else "ABORT-1"
            if result.get("aborted")
            else "HIST-1",
            order=configured_order(hooks, harness),
            work=str(result.get("work", "")),
        )
    )
    refused = list(_blank_prompts_refused(harness, script, result))
    divergences = refused + compared + list(_found_in_log(log_report, compared))
    return SessionView(
        harness,
        script,
        answers,
        ran,
        history,
        log_calls.inputs,
        log_report,
        divergences,
        configured_hooks(hooks, harness.value),
        hooks_source,
        names[len(answers) :],
        log_calls.patched,
    )


# Claude Code's refusal of a blank `-p` prompt, for a result that does not say which turn failed.
_BLANK_REFUSAL = "Input contained only whitespace"


def blank_turn_refused(
    harness: Harness, script: HarnessScript, result: Mapping[str, Any]
) -> int | None:
    """The turn (from 1) whose blank prompt Claude Code refused, failing it: a turn failed (an
    exit code no crash or abort explains) and its prompt is blank (`failedTurn`, from
    `run_inside`; without it, Claude Code's own refusal words on stderr). None on Codex, and
    where a turn with a prompt failed: that failure is the CLI's, not the blank prompt's."""
    if harness is not Harness.CLAUDE_CODE or result.get("exitCode", 0) == 0:
        return None
    blank = [n for n, prompt in enumerate(script.prompts) if not prompt.strip()]
    failed = result.get("failedTurn")
    if isinstance(failed, int):
        return failed + 1 if failed in blank else None
    refused = _BLANK_REFUSAL in str(result.get("stderr", ""))
    return blank[0] + 1 if refused and blank else None


def _blank_prompts_refused(
    harness: Harness, script: HarnessScript, result: Mapping[str, Any]
) -> Iterator[Divergence]:
    """TURN-1 where Claude Code refused a turn's blank prompt (`Input contained only
    whitespace`), opening no turn, where a prompt opens a turn, blank or not."""
    turn = blank_turn_refused(harness, script, result)
    if turn is None:
        return
    said = [line for line in str(result.get("stderr", "")).splitlines() if line.strip()]
    words = f" ({said[-1].strip()})" if said else ""
    yield Divergence(
        "TURN-1",
        "-",
        f"the CLI exited {result.get('exitCode', 0)}{words} where the blank prompt of turn "
        f"{turn} was to open a turn: a prompt opens a turn, blank or not",
    )


def _found_in_log(report: LogReport | None, compared: list[Divergence]) -> Iterator[Divergence]:
    """The violations `check` finds in the harness's log whose rule the comparisons did not
    name (those are the same finding, read from the request or the hook audit): the report
    prints every check line, so the verdict counts each rule they name."""
    named = {divergence.rule_id for divergence in compared}
    for found in report.violations if report is not None else []:
        violation = found.violation
        if violation.rule_id not in named:
            yield Divergence(violation.rule_id, f"log line {found.line}", violation.message)


def unfollowed_calls(script: HarnessScript, history: HistoryView) -> list[str]:
    """The calls no model request followed: the last request's history holds neither the call
    nor any later scripted call, nor a result of one (the CLI ended before asking the model
    again: a turn aborted or crashed while the call ran, the run's last). Nothing the model
    reads shows what became of them, so no rule of the request's history is judged there. A
    call reusing an earlier call's id is not one: Claude Code leaves it out of the requests
    that follow (HIST-1)."""
    named = scripted_call_names(script)
    held = set(history.calls) | {name for name, _ in history.results}
    return [
        name
        for at, (name, call) in enumerate(named)
        if name == call.call_id and held.isdisjoint(later for later, _ in named[at:])
    ]


def _divergences(
    script: HarnessScript,
    *,
    log_results: set[str] | None,
    invented_rule: str,
    answers: list[HookAnswer],
    ran: dict[str, Any],
    history: HistoryView,
    log_calls: dict[str, Any],
    order: list[str],
    work: str,
    patched: Mapping[str, int],
) -> Iterator[Divergence]:
    unfollowed = set(unfollowed_calls(script, history))
    for name, call in scripted_call_names(script):
        denied_by = [a.hook_id for a in answers if a.call_id == name and a.denies]
        if denied_by and (name in ran or name in patched):
            yield Divergence("DEC-1", name, f"ran although {', '.join(denied_by)} denied it")
        if name in patched and name not in ran:
            yield Divergence(
                "HOOK-5",
                name,
                f"Codex ran it as a patch itself (the FileChange at log line "
                f"{patched[name]}) and ran no PostToolUse hook for it, loopspec's observer "
                "matching Bash among them: the PostToolUse hooks matching a call that ran "
                "judge its result",
            )
        answered_in_history = name in {c for c, _ in history.results}
        # A call reusing an earlier call's id of which the history holds nothing (Claude Code
        # leaves it out with its result, whether it ran or not): the request shows no such
        # call, so none unanswered (ADJ-3).
        left_out = name != call.call_id and name not in history.calls and not answered_in_history
        if left_out:
            yield Divergence(
                "HIST-1",
                name,
                "ran, but the next request leaves out the call and its result: the model "
                "never reads what it returned"
                if name in ran
                else "the next request leaves out the call and its result: the model never "
                "reads that it asked for it, nor what became of it",
            )
        elif name in unfollowed:
            pass  # no request shows what became of it (`unfollowed_calls`)
        elif not answered_in_history:
            yield Divergence("ADJ-3", name, "the next request carries the call without a result")
        elif log_results is not None and name not in log_results:
            yield Divergence(
                "REC-1",
                name,
                "the next request carries a result the log never recorded (a repair that is "
                "not durable: the log keeps the call unanswered)",
            )
        if name not in ran:
            continue
        executed = _compared(ran[name], work)
        held = {
            "the next request's history": _compared(history.calls.get(name), work),
            "the log's call record": _compared(log_calls.get(name), work),
        }
        if left_out or name in unfollowed:
            del held["the next request's history"]  # no record of the call there (HIST-1)
        for reader, value in held.items():
            if value != executed:
                ran_part, held_part = _where_they_differ(executed, value)
                yield Divergence(
                    "RW-1",
                    name,
                    f"ran {_short(ran_part)} but {reader} holds {_short(held_part)}",
                )
        rewrites = [
            a
            for a in answers
            if a.call_id == name and a.event == "PreToolUse" and a.rewrites and a.hook_id in order
        ]
        if any(a.denies for a in answers if a.call_id == name):
            continue
        refused = _refused_rewrite(answers, name, order)
        if refused is not None:
            refuser, fault = refused
            yield Divergence(
                "HOOK-6",
                name,
                f"ran {_short(executed)}, but {refuser.hook_id}'s updatedInput, the rewrite in "
                f"effect, is not a JSON object ({_short(refuser.updated_input)}): the model "
                "refuses the call, naming the hook. The hook's output is malformed (HOOK-7: "
                f"{fault.describe()}); the harness ignored it and ran the model's input",
            )
            continue
        if rewrites:
            winner = max(rewrites, key=lambda a: order.index(a.hook_id))
            expected = _compared(winner.updated_input, work)
            if executed != expected:
                last_done = max(rewrites, key=lambda a: a.finished)
                took = (
                    f"{last_done.hook_id}'s, which finished last"
                    if _compared(last_done.updated_input, work) == executed
                    else "no hook's rewrite"
                )
                yield Divergence(
                    "HOOK-3",
                    name,
                    f"ran {_short(executed)} ({took}); the last hook in configured order, "
                    f"{winner.hook_id}, supplied {_short(expected)}",
                )
    for what, waiting in history.between:
        yield Divergence(
            "ADJ-1",
            ",".join(waiting),
            f"the next request carries {what} between the call and its result",
        )
    scripted = {b.text for r in script.replies for b in r.blocks if isinstance(b, ScriptedText)}
    for text in history.assistant_texts:
        if text not in scripted and text != EXHAUSTED_TEXT:
            # Claude Code's resume words are its crash repair's, whatever cut the turn (one it
            # misread as cut: a reply holding no text, which it leaves off the branch), as
            # `check` reads them in its transcript.
            resumed = text == RESUME_WORDS and invented_rule == "HIST-1"
            yield Divergence(
                "REC-1" if resumed else invented_rule,
                "-",
                f"the history holds an assistant message the model never wrote: {_short(text)}",
            )
    names = iter(scripted_call_names(script))
    for reply in script.replies:
        ids = [next(names)[0] for b in reply.blocks if isinstance(b, ScriptedCall)]
        answered = [c for c, _ in history.results if c in ids]
        if len(ids) > 1 and answered != [c for c in ids if c in answered]:
            yield Divergence(
                "ORD-3",
                ",".join(ids),
                f"the model called {', '.join(ids)}; the next request carries their results "
                f"as {', '.join(answered)}",
            )


def _refused_rewrite(
    answers: list[HookAnswer], call_id: str, order: list[str]
) -> tuple[HookAnswer, HookFault] | None:
    """The call's rewrite in effect with its fault, when HOOK-6 refuses it (not an object): the
    last one in configured order of those supplied, honoured or not (`winning_rewrite`)."""
    supplied = [
        a
        for a in answers
        if a.call_id == call_id
        and a.event == "PreToolUse"
        and a.hook_id in order
        and (a.rewrites or _non_object_fault(a) is not None)
    ]
    winner = max(supplied, key=lambda a: order.index(a.hook_id), default=None)
    fault = None if winner is None else _non_object_fault(winner)
    return None if winner is None or fault is None else (winner, fault)


def _rewrite_fate(answer: HookAnswer, answers: list[HookAnswer], order: list[str]) -> RewriteFate:
    """What the model does with `answer`'s updatedInput, beside the other answers for its call:
    the same reading `_divergences` holds the harness to."""
    if answer.hook_id not in order or (not answer.rewrites and _non_object_fault(answer) is None):
        return Ignored()
    if any(a.denies for a in answers if a.call_id == answer.call_id):
        return Unused()
    supplied = [
        a
        for a in answers
        if a.call_id == answer.call_id
        and a.hook_id in order
        and (a.rewrites or _non_object_fault(a) is not None)
    ]
    winner = max(supplied, key=lambda a: order.index(a.hook_id))
    if winner is not answer:
        return Overridden(winner.hook_id)
    return Refused() if _non_object_fault(answer) is not None else InEffect()


def _non_object_fault(answer: HookAnswer) -> HookFault | None:
    fault = answer.fault
    return fault if fault is not None and fault.kind == FaultKind.NON_OBJECT_INPUT else None


def report_lines(view: SessionView, result: Mapping[str, Any]) -> list[str]:
    """The printed report."""
    lines = [
        f"{view.harness.value}: exit {result['exitCode']} in {result['seconds']:.2f} s, "
        f"{result['turns']} turn(s)"
        + (" (timed out)" if result["timedOut"] else "")
        + "".join(
            f"; turn {n + 1} crashed (SIGKILL), {_then(n, result)}" for n in result["crashed"]
        )
        + "".join(
            f"; turn {n + 1} aborted (SIGINT), {_then(n, result)}"
            for n in result.get("aborted", [])
        ),
        *offline_lines(result),
        "",
        "== hooks (audit: what each hook saw and answered, by start) ==",
    ]
    killed = [
        (record, view.killed_calls[k] if k < len(view.killed_calls) else None)
        for k, record in enumerate(result["unfinished"])
        if record["hook"] != OBSERVER_ID
    ]
    unfinished = [record for record, _ in killed]
    order = [hook.hook_id for hook in view.configured if hook.event == PRE_TOOL_USE]
    starts = [a.started for a in view.answers] + [float(r["started"]) for r in unfinished]
    first = min(starts, default=0.0)
    # (start, line): killed hooks and answers alike, listed by when they started.
    hook_lines: list[tuple[float, str]] = []
    # Each hook's faults, noted after the audit as `check` and the bundled run note them.
    hook_runs = HookRuns()
    for record, named in killed:
        stdin = _json(record["stdin"])
        stdin = stdin if isinstance(stdin, dict) else {}
        started = float(record["started"])
        call_id = named or str(stdin.get("tool_use_id", "?"))
        hook_runs.see(str(record["hook"]), FAILED_WORD, KILLED, call_id=call_id)
        hook_lines.append(
            (
                started,
                f"  {record['hook']:<{ID_WIDTH}} call {call_id}: saw "
                f"{_short(stdin.get('tool_input'))}; no answer: the harness killed it before "
                "it exited (its timeout for the hook, or an abort), which the model reads as "
                f"no decision (HOOK-7 timeout) [+{started - first:.2f}s..]",
            )
        )
    for answer in view.answers:
        if answer.hook_id == OBSERVER_ID:
            continue
        said = answer.decision or "no decision"
        if answer.summary is not None:
            said += f" ({answer.summary})"
        hook_runs.see(answer.hook_id, answer.word or "pass", answer.summary, call_id=answer.call_id)
        if answer.updated_input is not None:
            fate = _rewrite_fate(answer, view.answers, order)
            said += rewrite_words(_short(answer.updated_input), fate)
        hook_lines.append(
            (
                answer.started,
                f"  {answer.hook_id:<{ID_WIDTH}} call {answer.call_id}: saw "
                f"{_short(answer.seen_input)}; {said} "
                f"[+{answer.started - first:.2f}s..+{answer.finished - first:.2f}s]",
            )
        )
    lines += [line for _, line in sorted(hook_lines, key=lambda started_line: started_line[0])]
    lines += _which_hook_is_which(
        view, {a.hook_id for a in view.answers} | {str(r["hook"]) for r in unfinished}
    )
    lines += [f"  HOOK-7: {note}" for _, note in hook_runs.notes()]
    lines.append("\n== calls: model asked / ran / next request's history / log record ==")
    unfollowed = unfollowed_calls(view.script, view.history)
    for name, call in scripted_call_names(view.script):
        reused = "" if name == call.call_id else f" (id {call.call_id} again, a later call)"
        lines.append(f"  {name}{reused}")
        lines.append(f"    model asked : {_short(call.arguments)}")
        if name not in view.ran and name in view.patched:
            lines.append(
                f"    ran         : (a patch Codex ran itself: the FileChange at log line "
                f"{view.patched[name]}; no PostToolUse)"
            )
        else:
            lines.append(f"    ran         : {_short(view.ran.get(name, NOT_REPORTED_RUN))}")
        held = (
            "(no request followed it: the CLI asked the model nothing after its reply)"
            if name in unfollowed
            else _short(view.history.calls.get(name))
        )
        lines.append(f"    history     : {held}")
        lines.append(f"    log record  : {_short(view.log_calls.get(name))}")
    lines.append("\n== next request's history: results in order ==")
    for call_id, text in view.history.results:
        lines.append(f"  {call_id}: {_short(text)}")
    lines.append(f"\n== the log it wrote: {result['logs'][0]['path'] if result['logs'] else '-'}")
    if view.log_report is not None:
        for found in view.log_report.violations:
            violation = found.violation
            lines.append(f"  check line {found.line}: {violation.rule_id}: {violation.message}")
        # An input error ends check's reading of the log: what follows it was not judged, so
        # "no violation" alone would overstate what check found.
        for error in view.log_report.errors:
            where = "check" if error.line is None else f"check line {error.line}"
            lines.append(f"  {where}: error {error.kind}: {error.message} (not judged past it)")
        faults = []
        for notice in view.log_report.notices:
            if notice.kind == NoticeKind.HOOK_FAULT:  # its words are the HOOK-7 notes above
                faults.append(str(notice.line))
                continue
            where = "check" if notice.line is None else f"check line {notice.line}"
            lines.append(f"  {where}: notice {notice.kind}: {notice.message}")
        if faults:
            lines.append(
                f"  check: notice hook-fault at line(s) {', '.join(faults)}: the hooks' faults "
                "it reads from the log, noted after the hook audit above (HOOK-7)"
            )
        if not view.log_report.violations:
            lines.append("  check: no violation it can show")
    lines.append(f"\n== divergences from the model: {len(view.divergences)} ==")
    known = KNOWN[view.harness]
    for divergence in view.divergences:
        entry = known.get(divergence.rule_id)
        label = f" (known {entry.kind.value})" if entry else " (NOT a known divergence)"
        lines.append(f"  [{divergence.rule_id}] {divergence.call_id}: {divergence.message}{label}")
    if unfollowed:
        lines.append(
            f"  not judged: {', '.join(unfollowed)}: no model request followed (the CLI ended "
            "before asking the model again), so no history shows what became of the call "
            "(ADJ-3, ORD-3); the log's record of it is checked above"
        )
    return lines


def _then(turn: int, result: Mapping[str, Any]) -> str:
    """What came after turn `turn` (from 0) was cut: the next turn resuming it, or nothing."""
    return "the next resumed it" if turn + 1 < result["turns"] else "the last turn: none resumed it"


def _which_hook_is_which(view: SessionView, ran: set[str]) -> list[str]:
    """Each id that ran tied to its command and settings entry, as the bundled run ends its
    hook audit: an id alone does not say which of several scripts answered."""
    shown = [hook for hook in view.configured if hook.hook_id in ran]
    if not shown:
        return []
    return ["  where:"] + [
        f"    {hook.hook_id} = {hook.command} ({view.hooks_source}: {hook.where})" for hook in shown
    ]


def offline_lines(result: Mapping[str, Any]) -> list[str]:
    """What proves the run stayed offline: the namespace, and every traced connect."""
    port = result["mockPort"]
    connects = result["connects"]
    elsewhere = [
        c for c in connects if not (c["address"] in ("127.0.0.1", "::1") and c["port"] == port)
    ]
    lines = [f"offline: {result['isolation']}"]
    if not result["traced"]:
        lines.append("offline: connects not traced (strace unavailable)")
    elif elsewhere:
        shown = ", ".join(f"{c['address']}:{c['port']} ({c['result']})" for c in elsewhere)
        lines.append(f"offline: {len(elsewhere)} connect(s) not to the mock: {shown}")
    else:
        lines.append(
            f"offline: all {len(connects)} connects went to the mock model at 127.0.0.1:{port}"
        )
    others = [r for r in result["requests"] if r["method"] != "POST"]
    model = len(result["requests"]) - len(others)
    lines.append(f"offline: the mock answered {model} model request(s), {len(others)} other(s)")
    return lines
