"""Provider projections against the independent provider validators (rules HIST-2, HIST-3).

The strategy builds histories the way the loop writes them: turns of user message(s), then
tool steps (an assistant message with calls, one result per call in model order, optional
post-tool context), then a closing assistant message without calls, an interrupted text-only
message, or nothing (the turn was aborted). Negative controls break exactly one pairing rule
and check that the relevant validator notices.
"""

from __future__ import annotations

import json
from collections.abc import Callable

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st

from loopspec.model.jsonvalue import FrozenMap
from loopspec.model.messages import (
    AssistantMessage,
    ContentBlock,
    Message,
    OpaqueBlock,
    ReasoningBlock,
    TextBlock,
    ToolCallBlock,
    ToolResultBlock,
    ToolResultMessage,
    UserMessage,
    model_source,
    plugin_source,
    tool_source,
    user_source,
)
from loopspec.model.projections import (
    RAW_ARGUMENTS_KEY,
    JsonObject,
    to_anthropic_messages,
    to_openai_chat_messages,
    to_openai_responses_input,
)
from loopspec.model.pure.pairing import results_in_call_order
from loopspec.properties.validators.provider_rules import (
    anthropic_problems,
    openai_chat_problems,
    openai_responses_problems,
)

History = tuple[Message, ...]
Projection = Callable[[History], list[JsonObject]]
Validator = Callable[[list[JsonObject]], list[str]]

PROVIDERS: dict[str, tuple[Projection, Validator]] = {
    "anthropic": (to_anthropic_messages, anthropic_problems),
    "chat": (to_openai_chat_messages, openai_chat_problems),
    "responses": (to_openai_responses_input, openai_responses_problems),
}

# ---------------------------------------------------------------------------------------------
# Strategies

IMAGE = OpaqueBlock("image", FrozenMap({"source": FrozenMap({"type": "url", "url": "u"})}))

json_scalars = st.none() | st.booleans() | st.integers() | st.text(max_size=6)
object_arguments = st.dictionaries(st.text(max_size=5), json_scalars, max_size=3).map(json.dumps)
other_arguments = st.sampled_from(["", "  ", "{not json", "[1, 2]", "42", "null", '"s"', "{"])
arguments = st.one_of(object_arguments, other_arguments)
tool_names = st.sampled_from(["read", "edit", "bash", "grep"])
# Model text may be blank (the Anthropic projection drops blank text). A user's text is drawn
# not blank: a blank one (TURN-1) before a reply leaves Anthropic a request breaking its role
# order, as HIST-2 says (test_provider_rules.py). A context is drawn not blank either: an empty
# one is no context (ADJ-4), and a whitespace one joins its step's results' user turn, where
# leaving it out breaks nothing.
texts = st.text(max_size=12)
user_texts = st.text(min_size=1, max_size=12).filter(str.strip)


@st.composite
def reasoning_blocks(draw: st.DrawFn) -> ReasoningBlock:
    if draw(st.booleans()):
        return ReasoningBlock(draw(texts), FrozenMap({"signature": draw(user_texts)}))
    return ReasoningBlock(draw(texts))


class Ids:
    """A per-history counter, so call ids are unique across the whole history as providers
    issue them (the loop never reuses one)."""

    def __init__(self) -> None:
        self.n = 0

    def next(self, prefix: str) -> str:
        self.n += 1
        return f"{prefix}_{self.n}"


def _user(ids: Ids, text: str, *, context: bool = False) -> UserMessage:
    source = plugin_source("hooks") if context else user_source()
    return UserMessage(ids.next("msg"), (TextBlock(text),), source)


def _assistant(ids: Ids, content: tuple[ContentBlock, ...]) -> AssistantMessage:
    return AssistantMessage(ids.next("msg"), content, model_source("p", "m"))


def _result(ids: Ids, call_id: str, text: str, is_error: bool | None) -> ToolResultMessage:
    block = ToolResultBlock(call_id, (TextBlock(text),), is_error=is_error)
    return ToolResultMessage(ids.next("msg"), block, tool_source(call_id))


@st.composite
def tool_step(draw: st.DrawFn, ids: Ids) -> list[Message]:
    """One step: an assistant message with 1..3 calls, then their results in model order."""
    content: list[ContentBlock] = []
    if draw(st.booleans()):
        content.append(draw(reasoning_blocks()))
    if draw(st.booleans()):
        content.append(TextBlock(draw(texts)))
    calls = [
        ToolCallBlock(ids.next("call"), draw(tool_names), draw(arguments))
        for _ in range(draw(st.integers(1, 3)))
    ]
    for call in calls:
        content.append(call)
        if draw(st.integers(0, 4)) == 0:  # models occasionally write text between calls
            content.append(TextBlock(draw(texts)))
    step: list[Message] = [_assistant(ids, tuple(content))]
    for call in calls:
        result = _result(ids, call.id, draw(texts), draw(st.sampled_from([False, True, None])))
        if draw(st.integers(0, 5)) == 0:  # an image the tool returned
            result = attrs.evolve(
                result, result=attrs.evolve(result.result, content=(*result.result.content, IMAGE))
            )
        step.append(result)
    if draw(st.booleans()):
        step.append(_user(ids, draw(user_texts), context=True))
    return step


@st.composite
def turn(draw: st.DrawFn, ids: Ids) -> list[Message]:
    messages: list[Message] = [_user(ids, draw(user_texts)) for _ in range(draw(st.integers(1, 2)))]
    if draw(st.integers(0, 4)) == 0:
        messages.append(UserMessage(ids.next("msg"), (TextBlock("look"), IMAGE), user_source()))
    for _ in range(draw(st.integers(0, 3))):
        messages += draw(tool_step(ids))
    ending = draw(st.sampled_from(["final", "interrupted", "aborted"]))
    if ending == "final":
        reasoning = (draw(reasoning_blocks()),) if draw(st.booleans()) else ()
        messages.append(_assistant(ids, (*reasoning, TextBlock(draw(texts)))))
    elif ending == "interrupted":
        interrupted = _assistant(ids, (TextBlock(draw(texts)),))
        messages.append(attrs.evolve(interrupted, extra=FrozenMap({"interrupted": True})))
    return messages


@st.composite
def histories(draw: st.DrawFn) -> History:
    ids = Ids()
    messages: list[Message] = []
    for _ in range(draw(st.integers(1, 3))):
        messages += draw(turn(ids))
    return tuple(messages)


histories_with_calls = histories().filter(
    lambda h: any(isinstance(m, ToolResultMessage) for m in h)
)


def _calls(history: History) -> list[ToolCallBlock]:
    return [c for m in history if isinstance(m, AssistantMessage) for c in m.tool_calls]


def _result_positions(history: History) -> list[int]:
    return [i for i, m in enumerate(history) if isinstance(m, ToolResultMessage)]


def _assistant_position(history: History, call_id: str) -> int:
    return next(
        i
        for i, m in enumerate(history)
        if isinstance(m, AssistantMessage) and any(c.id == call_id for c in m.tool_calls)
    )


def _is_user(message: Message) -> bool:
    return isinstance(message, UserMessage)


def _all_problems(history: History) -> dict[str, list[str]]:
    return {name: check(project(history)) for name, (project, check) in PROVIDERS.items()}


# ---------------------------------------------------------------------------------------------
# HIST-2: well-formed histories project to requests every provider accepts


def anthropic_accepts_wellformed_history(history: History) -> None:
    """HIST-2: the Anthropic projection of a loop-shaped history has no pairing problems."""
    assert anthropic_problems(to_anthropic_messages(history)) == []


def openai_chat_accepts_wellformed_history(history: History) -> None:
    """HIST-2: the Chat Completions projection of a loop-shaped history has no problems."""
    assert openai_chat_problems(to_openai_chat_messages(history)) == []


def openai_responses_accepts_wellformed_history(history: History) -> None:
    """HIST-2: the Responses projection has no problems, even under the stricter adjacency."""
    assert openai_responses_problems(to_openai_responses_input(history)) == []


def result_order_within_a_step_is_not_a_provider_rule(
    history: History, data: st.DataObject
) -> None:
    """HIST-2: providers pair by id, so swapping two results of one step is still accepted.

    (Model order is the loop's own rule; this keeps the validators from over-claiming.)
    """
    positions = _result_positions(history)
    adjacent = [p for p in positions if p + 1 in positions]
    if not adjacent:
        return
    i = data.draw(st.sampled_from(adjacent))
    swapped = list(history)
    swapped[i], swapped[i + 1] = swapped[i + 1], swapped[i]
    assert _all_problems(tuple(swapped)) == {"anthropic": [], "chat": [], "responses": []}


# ---------------------------------------------------------------------------------------------
# HIST-3: ids, names and arguments reach the provider exactly as the history carries them


def _expected_anthropic_input(arguments: str) -> object:
    if arguments.strip() == "":
        return {}
    try:
        parsed = json.loads(arguments)
    except ValueError:
        return {RAW_ARGUMENTS_KEY: arguments}
    return parsed if isinstance(parsed, dict) else {RAW_ARGUMENTS_KEY: arguments}


def projections_preserve_call_ids_names_and_arguments(history: History) -> None:
    """HIST-3: every call reaches every provider with its id, name and arguments unchanged."""
    calls = _calls(history)
    anthropic = [
        (b["id"], b["name"], b["input"])
        for m in to_anthropic_messages(history)
        if m["role"] == "assistant"
        for b in _blocks(m)
        if b["type"] == "tool_use"
    ]
    assert anthropic == [(c.id, c.name, _expected_anthropic_input(c.arguments)) for c in calls]

    raw = [(c.id, c.name, c.arguments) for c in calls]
    chat = [
        (tc["id"], _obj(tc["function"])["name"], _obj(tc["function"])["arguments"])
        for m in to_openai_chat_messages(history)
        for tc in _blocks(m, "tool_calls")
    ]
    assert chat == raw
    responses = [
        (item["call_id"], item["name"], item["arguments"])
        for item in to_openai_responses_input(history)
        if item["type"] == "function_call"
    ]
    assert responses == raw


def projections_keep_results_in_model_order(history: History) -> None:
    """HIST-3: results reach every provider in model call order, with their error flag."""
    call_ids = tuple(c.id for c in _calls(history))
    results = [m for m in history if isinstance(m, ToolResultMessage)]
    anthropic = [
        (b["tool_use_id"], b["is_error"])
        for m in to_anthropic_messages(history)
        for b in _blocks(m)
        if b["type"] == "tool_result"
    ]
    assert anthropic == [(r.call_id, r.result.failed) for r in results]
    assert results_in_call_order(call_ids, tuple(str(i) for i, _ in anthropic))

    chat = [m["tool_call_id"] for m in to_openai_chat_messages(history) if m["role"] == "tool"]
    responses = [
        i["call_id"]
        for i in to_openai_responses_input(history)
        if i["type"] == "function_call_output"
    ]
    assert chat == responses == [r.call_id for r in results]


def rewritten_input_reaches_every_provider(history: History, data: st.DataObject) -> None:
    """HIST-3: a rewrite written into the history's call block is what each provider receives,
    and the edited request is still accepted (providers pair by id only)."""
    new_arguments = data.draw(arguments, label="new arguments")
    target = data.draw(st.sampled_from(_calls(history)))
    rewritten = tuple(_rewrite_call(m, target.id, new_arguments) for m in history)
    assert _all_problems(rewritten) == {"anthropic": [], "chat": [], "responses": []}
    sent = [
        args
        for m in to_openai_chat_messages(rewritten)
        for tc in _blocks(m, "tool_calls")
        if tc["id"] == target.id
        for args in [_obj(tc["function"])["arguments"]]
    ]
    assert sent == [new_arguments]
    sent_input = [
        b["input"]
        for m in to_anthropic_messages(rewritten)
        for b in _blocks(m)
        if b.get("id") == target.id
    ]
    assert sent_input == [_expected_anthropic_input(new_arguments)]


def signed_thinking_is_replayed_verbatim_and_in_place(history: History) -> None:
    """HIST-3: signed reasoning reaches Anthropic unedited, in its original block position."""
    expected: list[tuple[str, object, object]] = []
    for m in history:
        if not isinstance(m, AssistantMessage):
            continue
        for block in m.content:
            if isinstance(block, ReasoningBlock) and block.extra.get("signature"):
                expected.append(("thinking", block.text, block.extra["signature"]))
            elif isinstance(block, ToolCallBlock):
                expected.append(("tool_use", block.id, None))
    sent = [
        (b["type"], b["thinking"], b["signature"])
        if b["type"] == "thinking"
        else ("tool_use", b["id"], None)
        for m in to_anthropic_messages(history)
        for b in _blocks(m)
        if b["type"] in ("thinking", "tool_use")
    ]
    assert sent == expected


def test_HIST_2_chat_keeps_one_text_a_string_and_an_image_a_part_beside_the_text() -> None:
    """HIST-2: in Chat Completions a user message with an image is a list of parts (the image
    passed through as it came), and an assistant message of one text is that string."""
    user = UserMessage("m1", (TextBlock("look"), IMAGE), user_source())
    reply = AssistantMessage("m2", (TextBlock("a cat"),), model_source("p", "m"))
    image = {"type": "image", "source": {"type": "url", "url": "u"}}
    assert to_openai_chat_messages([user, reply]) == [
        {"role": "user", "content": [{"type": "text", "text": "look"}, image]},
        {"role": "assistant", "content": "a cat"},
    ]
    assert openai_chat_problems(to_openai_chat_messages([user, reply])) == []


# Drawing a history is most of each check's cost (about 1.2 s of 1.3 s per 60 histories), so
# every check of one well-formed history runs on the same draw: each still sees as many
# histories as when it was a test of its own.
# Coverage off: deterministic tests cover every model arc this does (benchmarks/coverage_owners.py).
@pytest.mark.no_cover
@given(histories(), st.data())
def test_HIST_2_HIST_3_every_projection_of_a_wellformed_history_is_accepted_and_faithful(
    history: History, data: st.DataObject
) -> None:
    """HIST-2, HIST-3: each provider accepts the projection of a loop-shaped history, and each
    projection carries its calls, results and signed reasoning as the history holds them; a
    result answering no call, added to it, is rejected."""
    anthropic_accepts_wellformed_history(history)
    openai_chat_accepts_wellformed_history(history)
    openai_responses_accepts_wellformed_history(history)
    projections_preserve_call_ids_names_and_arguments(history)
    projections_keep_results_in_model_order(history)
    signed_thinking_is_replayed_verbatim_and_in_place(history)
    orphan_result_is_reported(history, data)


# ---------------------------------------------------------------------------------------------
# HIST-2 negative controls: one broken pairing rule, reported by every validator it concerns


def context_between_call_and_result_is_reported(history: History, data: st.DataObject) -> None:
    """HIST-2: a context message between a call and its result breaks every provider."""
    text = data.draw(st.text(min_size=1, max_size=8), label="context text")
    i = data.draw(st.sampled_from(_result_positions(history)))
    broken = (*history[:i], _user(Ids(), f"context {text}", context=True), *history[i:])
    problems = _all_problems(broken)
    assert any("must come first" in p for p in problems["anthropic"]), problems
    assert any("did not have response messages" in p for p in problems["chat"]), problems
    assert any("stricter reading" in p for p in problems["responses"]), problems


def missing_result_is_reported(history: History, data: st.DataObject) -> None:
    """HIST-2: a call with no result is rejected by every provider."""
    i = data.draw(st.sampled_from(_result_positions(history)))
    broken = history[:i] + history[i + 1 :]
    problems = _all_problems(broken)
    assert any("without `tool_result` blocks" in p for p in problems["anthropic"]), problems
    assert any("did not have response messages" in p for p in problems["chat"]), problems
    assert any("No tool output found" in p for p in problems["responses"]), problems


def result_before_its_call_is_reported(history: History, data: st.DataObject) -> None:
    """HIST-2: a result moved in front of its call is out of order for every provider."""
    i = data.draw(st.sampled_from(_result_positions(history)))
    moved = history[i]
    assert isinstance(moved, ToolResultMessage)
    rest = history[:i] + history[i + 1 :]
    at = _assistant_position(rest, moved.call_id)
    broken = (*rest[:at], moved, *rest[at:])
    problems = _all_problems(broken)
    assert any("unexpected `tool_use_id`" in p for p in problems["anthropic"]), problems
    assert any("did not have response messages" in p for p in problems["chat"]), problems
    assert any("No tool call found" in p for p in problems["responses"]), problems


def result_after_a_later_user_message_is_reported(history: History, data: st.DataObject) -> None:
    """HIST-2: a result delivered after a later user message misses its slot.

    (A user message, because every projection keeps one: Responses has no boundary between two
    steps' call items, so a result moved past only a later call step is invisible there.)
    """
    later = {
        p: next((q for q in range(p + 1, len(history)) if _is_user(history[q])), None)
        for p in _result_positions(history)
    }
    movable = [p for p, q in later.items() if q is not None]
    if not movable:
        return
    i = data.draw(st.sampled_from(movable))
    after = later[i]
    assert after is not None
    broken = (*history[:i], *history[i + 1 : after + 1], history[i], *history[after + 1 :])
    problems = _all_problems(broken)
    assert problems["anthropic"], problems
    assert any("did not have response messages" in p for p in problems["chat"]), problems
    assert any("stricter reading" in p for p in problems["responses"]), problems


def orphan_result_is_reported(history: History, data: st.DataObject) -> None:
    """HIST-2: a result answering no call is rejected by every provider."""
    i = data.draw(st.integers(1, len(history)))
    orphan = _result(Ids(), "call_orphan", "late", False)
    broken = (*history[:i], orphan, *history[i:])
    problems = _all_problems(broken)
    assert any("unexpected `tool_use_id`" in p for p in problems["anthropic"]), problems
    assert any(
        "preceeding message with 'tool_calls'" in p or "is not among the 'tool_calls'" in p
        for p in problems["chat"]
    ), problems
    assert any("No tool call found" in p for p in problems["responses"]), problems


# ---------------------------------------------------------------------------------------------
# Helpers for reading the plain-dict projections under mypy --strict


def _obj(value: object) -> JsonObject:
    assert isinstance(value, dict)
    return value


def _blocks(message: JsonObject, key: str = "content") -> list[JsonObject]:
    value = message.get(key)
    if not isinstance(value, list):
        return []
    return [_obj(item) for item in value]


def _rewrite_call(message: Message, call_id: str, new_arguments: str) -> Message:
    if not isinstance(message, AssistantMessage):
        return message
    content = tuple(
        attrs.evolve(b, arguments=new_arguments)
        if isinstance(b, ToolCallBlock) and b.id == call_id
        else b
        for b in message.content
    )
    return attrs.evolve(message, content=content)


# As above: one drawn history with calls serves every edit of it, each edit drawing its own
# position (and texts) from `data`, as its own test did.
# Coverage off: deterministic tests cover every model arc this does (benchmarks/coverage_owners.py).
@pytest.mark.no_cover
@given(histories_with_calls, st.data())
def test_HIST_2_HIST_3_every_edit_of_a_history_with_calls_is_judged_as_providers_would(
    history: History, data: st.DataObject
) -> None:
    """HIST-2, HIST-3: edits providers accept (two results of a step swapped, a call's input
    rewritten) are accepted, and each edit that breaks pairing (a context message between call
    and result, a result missing, moved before its call or after a later user message) is
    reported by every provider."""
    result_order_within_a_step_is_not_a_provider_rule(history, data)
    rewritten_input_reaches_every_provider(history, data)
    context_between_call_and_result_is_reported(history, data)
    missing_result_is_reported(history, data)
    result_before_its_call_is_reported(history, data)
    result_after_a_later_user_message_is_reported(history, data)
