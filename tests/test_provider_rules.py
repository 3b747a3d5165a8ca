"""Worked examples for the projection merge rules and the provider validators (HIST-2, HIST-3).

The property tests in test_projections.py cover generated histories; these pin each documented
decision and each validator message to one small, readable case.
"""

from __future__ import annotations

import pytest

from loopspec import spec_text
from loopspec.model.commands import ModelReplies, SubmitUser
from loopspec.model.config import LoopConfig
from loopspec.model.derive import derive_messages
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
    UnprojectableMessageError,
    to_anthropic_messages,
    to_openai_chat_messages,
    to_openai_responses_input,
)
from loopspec.model.pure.pairing import (
    orphan_results,
    repeated_ids,
    results_in_call_order,
    unanswered_calls,
)
from loopspec.model.wire import event_from_wire
from loopspec.properties.logcheck.synth import model_rows
from loopspec.properties.validators.provider_rules import (
    anthropic_problems,
    openai_chat_problems,
    openai_responses_problems,
)

Wire = dict[str, object]

IMAGE = OpaqueBlock("image", FrozenMap({"source": FrozenMap({"type": "url", "url": "u"})}))


def user(text: str, *, context: bool = False) -> UserMessage:
    return UserMessage(None, (TextBlock(text),), plugin_source("x") if context else user_source())


def assistant(*content: ContentBlock) -> AssistantMessage:
    return AssistantMessage(None, content, model_source("p", "m"))


def call(call_id: str, arguments: str = "{}") -> ToolCallBlock:
    return ToolCallBlock(call_id, "read", arguments)


def result(call_id: str, text: str = "ok", *, is_error: bool = False) -> ToolResultMessage:
    block = ToolResultBlock(call_id, (TextBlock(text),), is_error=is_error)
    return ToolResultMessage(None, block, tool_source(call_id))


TWO_CALLS: tuple[Message, ...] = (
    user("go"),
    assistant(TextBlock("reading"), call("c1"), call("c2")),
    result("c1"),
    result("c2", "boom", is_error=True),
    user("post-tool context", context=True),
    assistant(TextBlock("done")),
)

# ---------------------------------------------------------------------------------------------
# Anthropic merge rules


def test_HIST_2_anthropic_results_and_following_context_share_one_user_message() -> None:
    """HIST-2: a step's results form one user message, results first, context after them."""
    sent = to_anthropic_messages(TWO_CALLS)
    assert [m["role"] for m in sent] == ["user", "assistant", "user", "assistant"]
    assert sent[2]["content"] == [
        {"type": "tool_result", "tool_use_id": "c1", "content": "ok", "is_error": False},
        {"type": "tool_result", "tool_use_id": "c2", "content": "boom", "is_error": True},
        {"type": "text", "text": "post-tool context"},
    ]
    assert anthropic_problems(sent) == []


@pytest.mark.parametrize(
    ("arguments", "sent_input"),
    [
        ('{"path": "a"}', {"path": "a"}),
        ("", {}),
        ("{not json", {"_raw_arguments": "{not json"}),
        ("[1, 2]", {"_raw_arguments": "[1, 2]"}),
        ("7", {"_raw_arguments": "7"}),
    ],
)
def test_HIST_3_anthropic_input_is_the_object_or_the_wrapped_raw_text(
    arguments: str, sent_input: object
) -> None:
    """HIST-3: object arguments are sent as parsed; anything else keeps its raw text."""
    sent = to_anthropic_messages((user("go"), assistant(call("c1", arguments)), result("c1")))
    assert sent[1]["content"] == [
        {"type": "tool_use", "id": "c1", "name": "read", "input": sent_input}
    ]


def test_HIST_2_anthropic_keeps_signed_thinking_and_drops_unsigned_and_blank_text() -> None:
    """HIST-2: unsigned reasoning and blank text have no accepted Anthropic form."""
    signed = ReasoningBlock("plan", FrozenMap({"signature": "sig"}))
    history = (
        user("go"),
        assistant(ReasoningBlock("no signature"), signed, TextBlock("  "), call("c1")),
        result("c1"),
    )
    sent = to_anthropic_messages(history)
    assert sent[1]["content"] == [
        {"type": "thinking", "thinking": "plan", "signature": "sig"},
        {"type": "tool_use", "id": "c1", "name": "read", "input": {}},
    ]


def test_HIST_2_anthropic_result_with_an_image_sends_a_block_list() -> None:
    """HIST-2: a result holding an opaque block keeps it, as a content block list."""
    block = ToolResultBlock("c1", (TextBlock("see"), IMAGE))
    history = (user("go"), assistant(call("c1")), ToolResultMessage(None, block, tool_source("c1")))
    sent = to_anthropic_messages(history)
    assert sent[2]["content"] == [
        {
            "type": "tool_result",
            "tool_use_id": "c1",
            "content": [
                {"type": "text", "text": "see"},
                {"type": "image", "source": {"type": "url", "url": "u"}},
            ],
            "is_error": False,
        }
    ]


def test_HIST_2_anthropic_consecutive_assistants_are_not_merged() -> None:
    """HIST-2: merging assistants would hide a missing result; the validator sees it instead."""
    history = (user("go"), assistant(call("c1")), assistant(TextBlock("oops")), result("c1"))
    problems = anthropic_problems(to_anthropic_messages(history))
    assert any("without `tool_result` blocks" in p for p in problems)


@pytest.mark.parametrize(
    "message",
    [
        UserMessage(None, (call("c1"),), user_source()),
        UserMessage(None, (ReasoningBlock("x"),), user_source()),
        AssistantMessage(None, (ToolResultBlock("c1", ()),), model_source("p", "m")),
    ],
)
def test_HIST_2_blocks_a_role_cannot_carry_are_refused(message: Message) -> None:
    """HIST-2: no projection guesses a wire form for a misplaced block."""
    for project in (to_anthropic_messages, to_openai_chat_messages, to_openai_responses_input):
        with pytest.raises(UnprojectableMessageError) as raised:
            project((message,))
        assert raised.value.rule_id == "HIST-2"


def test_HIST_2_empty_messages_are_dropped_and_opaque_assistant_blocks_pass_to_anthropic() -> None:
    """HIST-2: a message with nothing sendable is left out; foreign blocks reach Anthropic only."""
    server_block = OpaqueBlock("server_tool_use", FrozenMap({"id": "s1", "type": "ignored"}))
    history = (
        user("go"),
        UserMessage(None, (), user_source()),
        assistant(ReasoningBlock("unsigned"), server_block),
    )
    assert to_anthropic_messages(history)[1] == {
        "role": "assistant",
        "content": [{"type": "server_tool_use", "id": "s1"}],
    }
    assert to_openai_chat_messages(history) == [{"role": "user", "content": "go"}]
    assert to_openai_responses_input(history) == [
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "go"}]}
    ]


# ---------------------------------------------------------------------------------------------
# OpenAI shapes


def test_HIST_2_chat_shape_of_a_tool_step() -> None:
    """HIST-2: raw argument strings, one tool message per call, reasoning dropped."""
    history = (
        user("go"),
        assistant(ReasoningBlock("hm"), call("c1", "{bad")),
        result("c1"),
        assistant(TextBlock("a"), TextBlock("b")),
    )
    sent = to_openai_chat_messages(history)
    assert sent == [
        {"role": "user", "content": "go"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "read", "arguments": "{bad"}}
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "ok"},
        {
            "role": "assistant",
            "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}],
        },
    ]
    assert openai_chat_problems(sent) == []


def test_HIST_2_responses_puts_an_assistants_text_before_its_calls() -> None:
    """HIST-2: text written between calls moves ahead so calls stay next to their outputs."""
    history = (
        user("go"),
        assistant(call("c1"), TextBlock("between"), call("c2")),
        result("c1"),
        result("c2"),
    )
    sent = to_openai_responses_input(history)
    assert [(i["type"], i.get("call_id")) for i in sent] == [
        ("message", None),
        ("message", None),
        ("function_call", "c1"),
        ("function_call", "c2"),
        ("function_call_output", "c1"),
        ("function_call_output", "c2"),
    ]
    assert openai_responses_problems(sent) == []


# ---------------------------------------------------------------------------------------------
# Validator wording and shape checks


def test_HIST_2_anthropic_problem_texts_quote_the_api() -> None:
    """HIST-2: missing and orphan results carry the API's own error text."""
    missing: list[Wire] = [
        {"role": "user", "content": "go"},
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "t1", "name": "r", "input": {}}],
        },
        {"role": "user", "content": "next"},
    ]
    assert anthropic_problems(missing) == [
        "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: "
        "t1. Each `tool_use` block must have a corresponding `tool_result` block in the next "
        "message."
    ]
    orphan: list[Wire] = [
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t9"}]}
    ]
    assert anthropic_problems(orphan) == [
        "messages.0.content.0: unexpected `tool_use_id` found in `tool_result` blocks: t9. Each "
        "`tool_result` block must have a corresponding `tool_use` block in the previous message."
    ]


def test_HIST_2_anthropic_shape_problems() -> None:
    """HIST-2: roles, empty content, object input, signatures, duplicate ids."""
    use = {"type": "tool_use", "id": "t1", "name": "r", "input": "raw"}
    messages: list[Wire] = [
        {"role": "assistant", "content": [use, {"type": "thinking", "thinking": "x"}]},
        {"role": "assistant", "content": []},
        {"role": "system", "content": "s"},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1"}] * 2},
        {"role": "assistant", "content": [use | {"input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1"}]},
        {"role": "user", "content": None},
        {"role": "assistant", "content": [{"type": "tool_result", "tool_use_id": "t1"}]},
        {"role": "user", "content": [use | {"input": {}}]},
    ]
    problems = "\n".join(anthropic_problems(messages))
    for expected in (
        "messages.0: the first message must use the 'user' role",
        "messages.1: roles must alternate",
        "messages.1: message content must be non-empty",
        "messages.2.role: must be 'user' or 'assistant'",
        "messages.0.content.0.input: `tool_use` input must be a JSON object",
        "messages.0.content.1.signature: a `thinking` block needs its signature",
        "messages.3: more than one `tool_result` answers t1",
        "messages: `tool_use` ids must be unique; t1 is repeated",
        "messages.6: message content must be non-empty",
        "messages.7.content.0: `tool_result` blocks may only appear in user messages",
        "messages.8.content.0: `tool_use` blocks may only appear in assistant messages",
    ):
        assert expected in problems


def test_HIST_2_chat_problem_texts_quote_the_api() -> None:
    """HIST-2: unanswered calls and orphan tool messages carry the API's own error text."""
    tool_call = {"id": "c1", "type": "function", "function": {"name": "r", "arguments": "{}"}}
    messages: list[Wire] = [
        {"role": "tool", "tool_call_id": "c0", "content": ""},
        {"role": "assistant", "content": None, "tool_calls": [tool_call]},
        {"role": "tool", "tool_call_id": "c7", "content": ""},
        {"role": "user", "content": "hi"},
    ]
    assert openai_chat_problems(messages) == [
        "messages.[0].role: Invalid parameter: messages with role 'tool' must be a response to a "
        "preceeding message with 'tool_calls'.",
        "messages.[2].tool_call_id: 'c7' is not among the 'tool_calls' of message [1]",
        "messages.[1].role: An assistant message with 'tool_calls' must be followed by tool "
        "messages responding to each 'tool_call_id'. The following tool_call_ids did not have "
        "response messages: c1",
    ]


def test_HIST_2_chat_shape_problems() -> None:
    """HIST-2: empty or malformed tool_calls, an empty assistant, a repeated response."""
    good = {"id": "c1", "type": "function", "function": {"name": "r", "arguments": "{}"}}
    messages: list[Wire] = [
        {"role": "assistant", "content": None, "tool_calls": []},
        {"role": "assistant", "content": None, "tool_calls": [good, {"id": "c2", "type": "x"}]},
        {"role": "tool", "tool_call_id": "c1", "content": ""},
        {"role": "tool", "tool_call_id": "c1", "content": ""},
        {"role": "tool", "tool_call_id": "c2", "content": ""},
    ]
    problems = "\n".join(openai_chat_problems(messages))
    assert "messages.[0].tool_calls: must be a non-empty list when present" in problems
    assert "messages.[0]: an assistant message needs content or tool_calls" in problems
    assert "messages.[1].tool_calls.[1]: malformed function tool call" in problems
    assert "messages.[3]: a second tool message responds to c1" in problems


def test_HIST_2_responses_problem_texts_quote_the_api() -> None:
    """HIST-2: unanswered calls and orphan outputs carry the API's own error text."""
    items: list[Wire] = [
        {"type": "function_call_output", "call_id": "c1", "output": ""},
        {"type": "function_call", "call_id": "c1", "name": "r", "arguments": "{}"},
        {"type": "function_call", "call_id": "c1", "name": "r", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "c2", "output": ""},
        {"type": "function_call_output"},
    ]
    assert openai_responses_problems(items) == [
        "input[0]: No tool call found for function call output with call_id c1.",
        "input[3]: No tool call found for function call output with call_id c2.",
        "input[4].call_id: a function_call_output item needs a string call_id",
        "input: No tool output found for function call c1.",
        "input: function_call call_id c1 is repeated",
    ]


def test_HIST_2_responses_stricter_adjacency() -> None:
    """HIST-2 (stricter reading): a message between a call group and its outputs is reported."""
    items: list[Wire] = [
        {"type": "function_call", "call_id": "c1", "name": "r", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "c1", "output": ""},
        {"type": "function_call_output", "call_id": "c1", "output": ""},
        {"type": "function_call", "call_id": "c2", "name": "r", "arguments": "{}"},
        {"role": "user", "content": "hi"},
        {"type": "function_call_output", "call_id": "c2", "output": ""},
    ]
    assert openai_responses_problems(items) == [
        "input[2]: a second function_call_output answers c1",
        "input[4]: a 'message' item sits between function calls c2 and their outputs "
        "(stricter reading)",
    ]


# ---------------------------------------------------------------------------------------------
# Pairing helpers (CrossHair checks their contracts; these are readable examples)


def test_HIST_2_pairing_helpers_examples() -> None:
    """HIST-2: the id arithmetic the validators share."""
    assert unanswered_calls(("a", "b", "a"), ("b",)) == ("a",)
    assert orphan_results(("a",), ("z", "a", "z")) == ("z",)
    assert repeated_ids(("a", "b", "a", "a")) == ("a",)
    assert results_in_call_order(("a", "b", "c"), ("a", "x", "c"))
    assert not results_in_call_order(("a", "b"), ("b", "a"))
    assert not results_in_call_order(("a", "b"), ("a", "a"))


@pytest.mark.parametrize("blank", ["", " \n"])
def test_HIST_2_a_blank_users_message_is_sent_to_openai_and_left_out_for_anthropic(
    blank: str,
) -> None:
    """HIST-2 with TURN-1: a blank SubmitUser opens a turn with a blank user message, in the
    history the model derives. Chat and Responses carry it; Anthropic, which refuses a blank
    text block, gets the request without it, which starts with the reply (first turn) or holds
    two replies side by side (later turn): its role order, not a pairing rule, as SPEC.md's
    HIST-2 says (it said every projection of a valid history passes, and the projection tests
    drew no blank user text)."""
    replies = (ModelReplies((TextBlock("first"),)), ModelReplies((TextBlock("second"),)))
    rows = model_rows(LoopConfig(), [c for reply in replies for c in (SubmitUser(blank), reply)])
    history = derive_messages([event_from_wire(row) for row in rows])
    assert [type(m).__name__ for m in history] == ["UserMessage", "AssistantMessage"] * 2
    assert openai_chat_problems(to_openai_chat_messages(history)) == []
    assert openai_responses_problems(to_openai_responses_input(history)) == []
    sent = to_anthropic_messages(history)
    assert [m["role"] for m in sent] == ["assistant", "assistant"]
    assert anthropic_problems(sent) == [
        "messages.0: the first message must use the 'user' role",
        "messages.1: roles must alternate between 'user' and 'assistant' (stricter reading)",
    ]
    rule = " ".join(spec_text().split("### HIST-2 ")[1].split("**Why.**")[0].split())
    assert "a blank `SubmitUser` opens a turn with (TURN-1)" in rule
    assert "breaks Anthropic's role order but no pairing rule" in rule
