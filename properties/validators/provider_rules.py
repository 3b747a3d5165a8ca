"""Independent validators of each provider's call/result pairing rules (rule HIST-2).

Each validator reads a request the way the provider's server does: plain dicts, no knowledge of
how they were built (nothing here calls `loopspec.model.projections`), tolerant of any shape (a
malformed
field is a problem to report, never a crash). It returns one string per problem; an empty list
means the provider would accept the request's message structure.

Where a provider's error text is known from issue reports (research notes, peers.md section 5)
the problem string quotes it after the location prefix; the prefix indices are ours. Rules
marked "(stricter reading)" go beyond what the provider is known to enforce and are
checked on purpose:

- Anthropic: roles strictly alternate (the API nowadays merges consecutive same-role turns).
- Responses: a step's outputs directly follow its call group (the API pairs by `call_id` only;
  whether it also wants adjacency is unconfirmed, so we keep them adjacent).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from loopspec.model.pure.pairing import orphan_results, repeated_ids, unanswered_calls

Wire = Mapping[str, object]


def _mappings(value: object) -> list[Wire]:
    """The mapping entries of a JSON list (anything else in it is not a block)."""
    if not isinstance(value, list):
        return []
    return [item for item in value if isinstance(item, Mapping)]


def _text(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _joined(ids: Sequence[str]) -> str:
    return ", ".join(ids)


# ---------------------------------------------------------------------------------------------
# Anthropic Messages API


def _anthropic_blocks(message: Wire) -> list[Wire]:
    content = message.get("content")
    if isinstance(content, str):
        # String content is shorthand for one text block.
        return [{"type": "text", "text": content}]
    return _mappings(content)


def _tool_use_ids(message: Wire) -> tuple[str, ...]:
    if message.get("role") != "assistant":
        return ()
    blocks = _anthropic_blocks(message)
    return tuple(_text(b.get("id")) or "" for b in blocks if b.get("type") == "tool_use")


def _tool_result_ids(message: Wire) -> tuple[str, ...]:
    blocks = _anthropic_blocks(message)
    return tuple(
        _text(b.get("tool_use_id")) or "" for b in blocks if b.get("type") == "tool_result"
    )


def _anthropic_roles(messages: Sequence[Wire]) -> list[str]:
    problems: list[str] = []
    previous: object = None
    for i, message in enumerate(messages):
        role = message.get("role")
        if role not in ("user", "assistant"):
            problems.append(f"messages.{i}.role: must be 'user' or 'assistant', got {role!r}")
        elif i == 0 and role != "user":
            problems.append("messages.0: the first message must use the 'user' role")
        elif role == previous:
            problems.append(
                f"messages.{i}: roles must alternate between 'user' and 'assistant' "
                "(stricter reading)"
            )
        previous = role
    return problems


def _anthropic_block_shapes(i: int, message: Wire) -> list[str]:
    problems: list[str] = []
    role = message.get("role")
    blocks = _anthropic_blocks(message)
    if not blocks:
        problems.append(f"messages.{i}: message content must be non-empty")
    for j, block in enumerate(blocks):
        kind = block.get("type")
        where = f"messages.{i}.content.{j}"
        if kind == "tool_use" and role != "assistant":
            problems.append(f"{where}: `tool_use` blocks may only appear in assistant messages")
        if kind == "tool_use" and not isinstance(block.get("input"), Mapping):
            problems.append(f"{where}.input: `tool_use` input must be a JSON object")
        if kind == "tool_result" and role != "user":
            problems.append(f"{where}: `tool_result` blocks may only appear in user messages")
        if kind == "thinking" and not _text(block.get("signature")):
            problems.append(f"{where}.signature: a `thinking` block needs its signature")
    return problems


def _anthropic_results(i: int, message: Wire, previous: Wire | None) -> list[str]:
    """Results-first and orphan checks for one user message."""
    problems: list[str] = []
    blocks = _anthropic_blocks(message)
    seen_other = False
    for j, block in enumerate(blocks):
        if block.get("type") != "tool_result":
            seen_other = True
        elif seen_other:
            problems.append(
                f"messages.{i}.content.{j}: `tool_result` blocks must come first in a user "
                "message, before any other content"
            )
    results = _tool_result_ids(message)
    calls = _tool_use_ids(previous) if previous is not None else ()
    for orphan in orphan_results(calls, results):
        j = next(j for j, b in enumerate(blocks) if b.get("tool_use_id") == orphan)
        problems.append(
            f"messages.{i}.content.{j}: unexpected `tool_use_id` found in `tool_result` blocks: "
            f"{orphan}. Each `tool_result` block must have a corresponding `tool_use` block in "
            "the previous message."
        )
    for twice in repeated_ids(results):
        problems.append(f"messages.{i}: more than one `tool_result` answers {twice}")
    return problems


def anthropic_problems(messages: Sequence[Wire]) -> list[str]:
    """Why the Anthropic Messages API would reject this `messages` array (empty: it would not).

    Every `tool_use` needs a `tool_result` with its id in the immediately following user
    message, results first in that message; every `tool_result` needs a `tool_use` in the
    message right before; roles alternate, starting with user.
    """
    problems = _anthropic_roles(messages)
    all_calls: list[str] = []
    for i, message in enumerate(messages):
        problems += _anthropic_block_shapes(i, message)
        if message.get("role") == "user":
            previous = messages[i - 1] if i > 0 else None
            problems += _anthropic_results(i, message, previous)
        calls = _tool_use_ids(message)
        all_calls += calls
        if not calls:
            continue
        following = messages[i + 1] if i + 1 < len(messages) else None
        answered = (
            _tool_result_ids(following)
            if following is not None and following.get("role") == "user"
            else ()
        )
        missing = unanswered_calls(calls, answered)
        if missing:
            problems.append(
                f"messages.{i}: `tool_use` ids were found without `tool_result` blocks "
                f"immediately after: {_joined(missing)}. Each `tool_use` block must have a "
                "corresponding `tool_result` block in the next message."
            )
    for twice in repeated_ids(tuple(all_calls)):
        problems.append(f"messages: `tool_use` ids must be unique; {twice} is repeated")
    return problems


# ---------------------------------------------------------------------------------------------
# OpenAI Chat Completions


def _chat_call_ids(i: int, message: Wire, problems: list[str]) -> tuple[str, ...]:
    """The ids of an assistant message's `tool_calls`, reporting malformed entries."""
    raw = message.get("tool_calls")
    if raw is None:
        return ()
    calls = _mappings(raw)
    if not calls:
        problems.append(f"messages.[{i}].tool_calls: must be a non-empty list when present")
    ids: list[str] = []
    for k, call in enumerate(calls):
        function = call.get("function")
        if (
            call.get("type") != "function"
            or not isinstance(function, Mapping)
            or _text(function.get("name")) is None
            or _text(function.get("arguments")) is None
        ):
            problems.append(f"messages.[{i}].tool_calls.[{k}]: malformed function tool call")
        ids.append(_text(call.get("id")) or "")
    return tuple(ids)


def openai_chat_problems(messages: Sequence[Wire]) -> list[str]:
    """Why Chat Completions would reject this `messages` array (empty: it would not).

    An assistant message with `tool_calls` must be followed, before any other message, by one
    `role: "tool"` message per `tool_call_id`; a tool message must answer a call of the
    assistant message that opens its run of tool messages.
    """
    problems: list[str] = []
    opener: int | None = None  # index of the assistant message whose responses are being read
    open_calls: tuple[str, ...] = ()
    responded: list[str] = []

    def close_group() -> None:
        missing = unanswered_calls(open_calls, tuple(responded))
        if opener is not None and missing:
            problems.append(
                f"messages.[{opener}].role: An assistant message with 'tool_calls' must be "
                "followed by tool messages responding to each 'tool_call_id'. The following "
                f"tool_call_ids did not have response messages: {_joined(missing)}"
            )

    for i, message in enumerate(messages):
        role = message.get("role")
        if role == "tool":
            call_id = _text(message.get("tool_call_id"))
            if opener is None:
                problems.append(
                    f"messages.[{i}].role: Invalid parameter: messages with role 'tool' must be "
                    "a response to a preceeding message with 'tool_calls'."
                )
            elif call_id not in open_calls:
                problems.append(
                    f"messages.[{i}].tool_call_id: {call_id!r} is not among the 'tool_calls' "
                    f"of message [{opener}]"
                )
            elif call_id in responded:
                problems.append(f"messages.[{i}]: a second tool message responds to {call_id}")
            else:
                responded.append(call_id)
            continue
        close_group()
        opener, open_calls, responded = None, (), []
        if role == "assistant":
            calls = _chat_call_ids(i, message, problems)
            if calls:
                opener, open_calls = i, calls
            elif message.get("content") is None:
                problems.append(f"messages.[{i}]: an assistant message needs content or tool_calls")
    close_group()
    return problems


# ---------------------------------------------------------------------------------------------
# OpenAI Responses API


def _item_kind(item: Wire) -> str:
    # A bare {role, content} item is a message item with its `type` omitted.
    return _text(item.get("type")) or "message"


def _responses_adjacency(items: Sequence[Wire], answered: set[str]) -> list[str]:
    """(stricter reading) Outputs follow their call group with nothing else in between."""
    problems: list[str] = []
    i = 0
    while i < len(items):
        if _item_kind(items[i]) != "function_call":
            i += 1
            continue
        group: list[str] = []
        while i < len(items) and _item_kind(items[i]) == "function_call":
            group.append(_text(items[i].get("call_id")) or "")
            i += 1
        outputs: list[str] = []
        while i < len(items) and _item_kind(items[i]) == "function_call_output":
            outputs.append(_text(items[i].get("call_id")) or "")
            i += 1
        late = [c for c in unanswered_calls(tuple(group), tuple(outputs)) if c in answered]
        if late:
            interloper = _item_kind(items[i]) if i < len(items) else "end"
            problems.append(
                f"input[{i}]: a {interloper!r} item sits between function calls "
                f"{_joined(late)} and their outputs (stricter reading)"
            )
    return problems


def openai_responses_problems(items: Sequence[Wire]) -> list[str]:
    """Why the Responses API would reject this `input` list (empty: it would not).

    Every `function_call` needs a `function_call_output` with its `call_id` later in the input;
    every output must answer an earlier call; and (stricter reading) a call group's outputs
    come right after it.
    """
    problems: list[str] = []
    calls: list[str] = []
    answered: set[str] = set()
    for j, item in enumerate(items):
        kind = _item_kind(item)
        call_id = _text(item.get("call_id"))
        if kind not in ("function_call", "function_call_output"):
            continue
        if call_id is None:
            problems.append(f"input[{j}].call_id: a {kind} item needs a string call_id")
            continue
        if kind == "function_call":
            calls.append(call_id)
        elif call_id not in calls:
            problems.append(
                f"input[{j}]: No tool call found for function call output with call_id {call_id}."
            )
        elif call_id in answered:
            problems.append(f"input[{j}]: a second function_call_output answers {call_id}")
        else:
            answered.add(call_id)
    for missing in unanswered_calls(tuple(calls), tuple(answered)):
        problems.append(f"input: No tool output found for function call {missing}.")
    for twice in repeated_ids(tuple(calls)):
        problems.append(f"input: function_call call_id {twice} is repeated")
    return problems + _responses_adjacency(items, answered)
