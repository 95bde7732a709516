"""Neutral requests as each provider's wire request (no server)."""

from __future__ import annotations

import json

import pytest

from attn.brains.llm.conversation import assistant, tool_result, user
from attn.brains.providers import ModelRequest, ToolSpec
from attn.brains.providers.anthropic_wire import messages_request
from attn.brains.providers.neutral import check_request
from attn.brains.providers.openai_wire import chat_request
from attn.errors import InvalidInput

TOOLS = [
    ToolSpec("search", "Search the notes.", {"type": "object", "properties": {}}),
    ToolSpec("publish", "Publish a post.", {"type": "object", "properties": {}}),
]

HISTORY = [
    user("find the launch notes and publish them"),
    assistant(
        "Looking.",
        [
            {"id": "call_1", "name": "search", "arguments": {"q": "launch"}},
            {"id": "call_2", "name": "search", "arguments": {"q": "notes", "n": 2}},
        ],
    ),
    tool_result("call_1", "search", '{"ok": true}'),
    tool_result("call_2", "search", '{"ok": false}', is_error=True),
    assistant("", [{"id": "call_3", "name": "publish", "arguments": {}}]),
    tool_result("call_3", "publish", '{"ok": true}'),
]


def request(**fields: object) -> ModelRequest:
    base: dict[str, object] = {
        "model": "m",
        "system": "You are Ada.",
        "messages": HISTORY,
        "tools": TOOLS,
        "context": "Queue: 2 items.",
    }
    return ModelRequest(**{**base, **fields})  # type: ignore[arg-type]


def test_openai_messages() -> None:
    kwargs = chat_request(request(), official=False)
    messages = kwargs["messages"]
    assert messages[0] == {"role": "system", "content": "You are Ada."}
    assert messages[1] == {"role": "user", "content": "find the launch notes and publish them"}
    assert messages[2]["tool_calls"][1] == {
        "id": "call_2",
        "type": "function",
        "function": {"name": "search", "arguments": '{"q":"notes","n":2}'},
    }
    assert messages[3] == {"role": "tool", "tool_call_id": "call_1", "content": '{"ok": true}'}
    assert messages[5]["content"] is None  # no text beside the tool call
    assert messages[-1] == {"role": "user", "content": "Queue: 2 items."}
    assert [tool["function"]["name"] for tool in kwargs["tools"]] == ["search", "publish"]
    assert kwargs["stream"] is True
    assert kwargs["stream_options"] == {"include_usage": True}
    assert kwargs["max_tokens"] == 4096
    assert "max_completion_tokens" not in kwargs


def test_openai_official_api_gets_max_completion_tokens_and_no_empty_tools() -> None:
    kwargs = chat_request(request(tools=[], context=None, temperature=0.3), official=True)
    assert kwargs["max_completion_tokens"] == 4096
    assert "max_tokens" not in kwargs
    assert "tools" not in kwargs
    assert kwargs["temperature"] == 0.3
    assert kwargs["messages"][-1]["role"] == "tool"


def test_anthropic_blocks_and_one_user_message_of_tool_results() -> None:
    kwargs = messages_request(request(cache=False))
    messages = kwargs["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant", "user", "assistant", "user"]
    assert messages[1]["content"] == [
        {"type": "text", "text": "Looking."},
        {"type": "tool_use", "id": "call_1", "name": "search", "input": {"q": "launch"}},
        {"type": "tool_use", "id": "call_2", "name": "search", "input": {"q": "notes", "n": 2}},
    ]
    assert messages[2]["content"] == [
        {"type": "tool_result", "tool_use_id": "call_1", "content": '{"ok": true}'},
        {
            "type": "tool_result",
            "tool_use_id": "call_2",
            "content": '{"ok": false}',
            "is_error": True,
        },
    ]
    # No text block for an empty assistant text.
    assert [block["type"] for block in messages[3]["content"]] == ["tool_use"]
    # The context joins the last user message, after its tool results.
    assert messages[4]["content"][-1] == {"type": "text", "text": "Queue: 2 items."}
    assert kwargs["system"] == [{"type": "text", "text": "You are Ada."}]
    assert kwargs["tools"][0] == {
        "name": "search",
        "description": "Search the notes.",
        "input_schema": {"type": "object", "properties": {}},
    }
    assert "cache_control" not in json.dumps(kwargs)


def _marks(kwargs: dict[str, object]) -> list[str]:
    """Where the cache_control marks are, as paths."""
    found: list[str] = []

    def walk(value: object, path: str) -> None:
        if isinstance(value, dict):
            if "cache_control" in value:
                assert value["cache_control"] == {"type": "ephemeral"}
                found.append(path)
            for key, item in value.items():
                walk(item, f"{path}.{key}")
        elif isinstance(value, list):
            for index, item in enumerate(value):
                walk(item, f"{path}[{index}]")

    walk(kwargs, "")
    return found


def test_llm_22_anthropic_cache_marks_the_stable_prefix() -> None:
    kwargs = messages_request(request())
    assert _marks(kwargs) == [".messages[4].content[0]", ".system[0]", ".tools[1]"]
    last = kwargs["messages"][4]["content"]  # type: ignore[index]
    assert last[0]["type"] == "tool_result"  # the last history block, not the context
    assert last[1] == {"type": "text", "text": "Queue: 2 items."}


def test_llm_22_a_first_turn_marks_tools_and_system_only() -> None:
    kwargs = messages_request(request(messages=[], context="hello"))
    assert _marks(kwargs) == [".system[0]", ".tools[1]"]
    assert kwargs["messages"] == [{"role": "user", "content": [{"type": "text", "text": "hello"}]}]


def test_llm_22_only_appended_content_differs_between_turns() -> None:
    first = messages_request(request(context="Queue: 2 items."))
    longer = [*HISTORY, assistant("Done."), user("thanks")]
    second = messages_request(request(messages=longer, context="Queue: 1 item."))

    def unmarked(message: dict[str, object]) -> dict[str, object]:
        content = [
            {k: v for k, v in block.items() if k != "cache_control"}
            for block in message["content"]  # type: ignore[attr-defined]
        ]
        return {**message, "content": content}

    before = [unmarked(m) for m in first["messages"][:-1]]  # type: ignore[index]
    after = [unmarked(m) for m in second["messages"][: len(before)]]  # type: ignore[index]
    assert before == after
    assert first["system"] == second["system"]
    assert first["tools"] == second["tools"]


def test_anthropic_joins_messages_of_one_role_and_drops_empty_ones() -> None:
    messages = [user("a"), user(""), user("b"), assistant(""), assistant("c")]
    kwargs = messages_request(request(messages=messages, context=None, cache=False))
    assert kwargs["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]},
        {"role": "assistant", "content": [{"type": "text", "text": "c"}]},
    ]


def test_anthropic_temperature_above_one_is_refused() -> None:
    with pytest.raises(InvalidInput, match="0 to 1 for Anthropic"):
        messages_request(request(temperature=1.5))
    assert messages_request(request(temperature=0.5))["extra_body"] == {"temperature": 0.5}


@pytest.mark.parametrize(
    ("fields", "match"),
    [
        ({"model": ""}, "model"),
        ({"max_tokens": 0}, "max_tokens"),
        ({"max_tokens": 10**7}, "max_tokens"),
        ({"temperature": 2.5}, "temperature"),
        ({"temperature": float("nan")}, "temperature"),
        ({"messages": [], "context": None}, "at least one message"),
        ({"messages": [{"role": "system", "content": "x"}]}, r"messages\[0\]"),
        ({"messages": [{"role": "user", "content": 3}]}, r"messages\[0\].content"),
        (
            {"messages": [{"role": "assistant", "content": "", "toolCalls": [{"id": "x"}]}]},
            r"toolCalls\[0\]",
        ),
        ({"messages": [{"role": "tool", "content": "", "name": "t"}]}, "toolCallId"),
        ({"tools": [ToolSpec("bad name", "", {})]}, "tool name"),
        ({"tools": [TOOLS[0], TOOLS[0]]}, "offered twice"),
        ({"tools": [ToolSpec("t", "", [])]}, "parameters"),  # type: ignore[arg-type]
    ],
)
def test_a_malformed_request_is_refused(fields: dict[str, object], match: str) -> None:
    with pytest.raises(InvalidInput, match=match):
        check_request(request(**fields))


def test_conversion_leaves_the_conversation_unchanged() -> None:
    before = json.dumps(HISTORY)
    messages_request(request())
    chat_request(request(), official=True)
    assert json.dumps(HISTORY) == before
