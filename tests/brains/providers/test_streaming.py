"""Both providers against the fake provider: text, tool calls, usage, stop reasons."""

from __future__ import annotations

import pytest

from attn.brains.providers import ModelClient, Stop, StopAction, TextDelta, ToolCall, Usage
from attn.testing import FakeProvider, FakeToolCall, Turn
from tests.brains.providers.providerhelp import collect, make, request


async def test_streamed_text_arrives_in_deltas_then_usage_and_stop(
    client: ModelClient, fp: FakeProvider
) -> None:
    fp.script(Turn(text="Hello there, world.", usage=(12, 5), chunks=3))
    events = await collect(client)
    deltas = [event for event in events if isinstance(event, TextDelta)]
    assert len(deltas) == 3
    assert "".join(delta.text for delta in deltas) == "Hello there, world."
    usage = events[-2]
    assert isinstance(usage, Usage)
    assert (usage.input_tokens, usage.output_tokens) == (12, 5)
    if client.provider == "anthropic":  # the first request writes its cached prefix
        assert usage.cache_read_tokens == 0 and usage.cache_write_tokens > 0
    finish = "end_turn" if client.provider == "anthropic" else "stop"
    assert events[-1] == Stop(StopAction.FINISH, finish)
    assert fp.requests[0].accepted


async def test_a_tool_call_is_whole_after_the_text(client: ModelClient, fp: FakeProvider) -> None:
    fp.script(
        Turn(
            text="Let me look.",
            tool_calls=[
                FakeToolCall("search", {"q": "launch notes", "n": 2}, id="call_a"),
                FakeToolCall("search", {"q": "other", "deep": {"x": [1, 2]}}, id="call_b"),
            ],
            chunks=4,
        )
    )
    events = await collect(client)
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "Let me look."
    calls = [event for event in events if isinstance(event, ToolCall)]
    assert calls == [
        ToolCall("call_a", "search", {"q": "launch notes", "n": 2}),
        ToolCall("call_b", "search", {"q": "other", "deep": {"x": [1, 2]}}),
    ]
    assert events[-1].action is StopAction.TOOLS  # type: ignore[union-attr]
    # Tool calls come after every text delta and before the stop.
    kinds = [type(event).__name__ for event in events]
    assert kinds.index("ToolCall") > max(i for i, k in enumerate(kinds) if k == "TextDelta")


async def test_a_tool_call_without_arguments(client: ModelClient, fp: FakeProvider) -> None:
    fp.script(Turn(tool_calls=[FakeToolCall("search", {})]))
    events = await collect(client)
    calls = [event for event in events if isinstance(event, ToolCall)]
    assert len(calls) == 1
    assert calls[0].name == "search"
    assert calls[0].arguments == {}
    assert calls[0].id


@pytest.mark.parametrize(
    ("protocol", "reason", "action"),
    [
        ("anthropic", "max_tokens", StopAction.INCOMPLETE),
        ("anthropic", "refusal", StopAction.INCOMPLETE),
        ("anthropic", "pause_turn", StopAction.CONTINUE),
        ("anthropic", "stop_sequence", StopAction.FINISH),
        ("openai", "length", StopAction.INCOMPLETE),
        ("openai", "content_filter", StopAction.INCOMPLETE),
    ],
)
async def test_llm_10_stop_reasons_on_the_wire(
    fp: FakeProvider, protocol: str, reason: str, action: StopAction
) -> None:
    client = make(protocol, fp)
    fp.script(Turn(text="partial answer", stop=reason))
    events = await collect(client)
    await client.aclose()
    assert events[-1] == Stop(action, reason)
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "partial answer"


async def test_llm_10_an_unknown_stop_reason_on_the_wire_stops(
    client: ModelClient, fp: FakeProvider
) -> None:
    fp.script(Turn(text="hm", stop="something_new"))
    events = await collect(client)
    assert events[-1] == Stop(StopAction.INCOMPLETE, "something_new")


async def test_the_request_on_the_wire(client: ModelClient, fp: FakeProvider) -> None:
    fp.script(Turn(text="ok"))
    await collect(client, request(context="Queue: empty.", max_tokens=321, temperature=0.5))
    body = fp.requests[0].body
    assert body is not None
    assert body["stream"] is True
    assert body["model"] == "fake-model"
    assert body["temperature"] == 0.5
    if client.provider == "openai":
        assert body["max_tokens"] == 321
        assert body["stream_options"] == {"include_usage": True}
        assert body["messages"][0] == {"role": "system", "content": "You are Ada."}
        assert body["messages"][-1] == {"role": "user", "content": "Queue: empty."}
    else:
        assert body["max_tokens"] == 321
        assert body["system"][0]["text"] == "You are Ada."
        assert body["messages"][-1]["content"][-1] == {"type": "text", "text": "Queue: empty."}
        assert body["tools"][-1]["cache_control"] == {"type": "ephemeral"}
