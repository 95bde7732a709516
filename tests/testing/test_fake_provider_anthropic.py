"""The fake provider as the official Anthropic SDK sees it: streamed and whole messages,
tool use, usage, faults (529 overloaded included), cut streams, truncated tool JSON,
a hanging stream."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import anthropic
import httpx2
import pytest

from attn.testing import FakeProvider, FakeToolCall, Fault, Turn

USER: Any = [{"role": "user", "content": "what is 2+3?"}]


async def events(client: anthropic.AsyncAnthropic) -> list[Any]:
    stream = await client.messages.create(
        model="claude-x", max_tokens=100, messages=USER, stream=True
    )
    return [event async for event in stream]


async def test_streamed_text_builds_the_final_message_in_the_scripted_deltas(
    fp: FakeProvider, ant: anthropic.AsyncAnthropic
) -> None:
    fp.script(Turn(text="Two plus three is five.", chunks=5, usage=(40, 6)))
    async with ant.messages.stream(model="claude-x", max_tokens=100, messages=USER) as stream:
        texts = [text async for text in stream.text_stream]
        final = await stream.get_final_message()
    assert "".join(texts) == "Two plus three is five." and len(texts) == 5
    assert final.stop_reason == "end_turn"
    assert (final.usage.input_tokens, final.usage.output_tokens) == (40, 6)
    assert fp.requests[0].accepted and fp.requests[0].streamed


async def test_the_raw_events_come_in_the_api_order(
    fp: FakeProvider, ant: anthropic.AsyncAnthropic
) -> None:
    fp.script(Turn(text="hi", chunks=1, tool_calls=[FakeToolCall("add", {"a": 1})]))
    kinds = [event.type for event in await events(ant)]
    assert kinds == [
        "message_start",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "content_block_start",
        "content_block_delta",  # chunks=1: the whole JSON in one delta
        "content_block_stop",
        "message_delta",
        "message_stop",
    ]  # the ping after the first block start is skipped by the SDK


async def test_a_streamed_tool_use_has_its_id_name_and_parsed_input(
    fp: FakeProvider, ant: anthropic.AsyncAnthropic
) -> None:
    fp.script(
        Turn(
            tool_calls=[
                FakeToolCall("add", {"a": 2, "b": 3}),
                FakeToolCall("now", {}, id="toolu_x"),
            ]
        )
    )
    async with ant.messages.stream(model="claude-x", max_tokens=100, messages=USER) as stream:
        final = await stream.get_final_message()
    uses = [block for block in final.content if block.type == "tool_use"]
    assert [(u.id, u.name, u.input) for u in uses] == [
        ("toolu_fake0_0", "add", {"a": 2, "b": 3}),
        ("toolu_x", "now", {}),
    ]
    assert final.stop_reason == "tool_use"


async def test_a_whole_message_counts_usage_roughly_when_not_scripted(
    fp: FakeProvider, ant: anthropic.AsyncAnthropic
) -> None:
    fp.script(Turn(text="five", tool_calls=[FakeToolCall("add", {"a": 2})]))
    message = await ant.messages.create(model="claude-x", max_tokens=100, messages=USER)
    assert [block.type for block in message.content] == ["text", "tool_use"]
    assert message.usage.input_tokens == len(fp.requests[0].raw) // 4
    assert message.usage.output_tokens >= 1 and message.model == "claude-x"


@pytest.mark.parametrize(
    ("fault", "error", "status", "kind"),
    [
        (Fault.status(429, retry_after=30), anthropic.RateLimitError, 429, "rate_limit_error"),
        (Fault.status(500), anthropic.InternalServerError, 500, "api_error"),
        (Fault.status(400, message="bad"), anthropic.BadRequestError, 400, "invalid_request_error"),
        (Fault.status(401), anthropic.AuthenticationError, 401, "authentication_error"),
        (Fault.overloaded(retry_after=1.5), anthropic.OverloadedError, 529, "overloaded_error"),
    ],
)
async def test_each_fault_reaches_the_sdk_as_its_status_error(
    fp: FakeProvider,
    ant: anthropic.AsyncAnthropic,
    fault: Fault,
    error: type[Exception],
    status: int,
    kind: str,
) -> None:
    fp.script(fault)
    with pytest.raises(error) as caught:
        await events(ant)
    assert isinstance(caught.value, anthropic.APIStatusError)
    assert caught.value.status_code == status
    body: Any = caught.value.body
    assert body["type"] == "error" and body["error"]["type"] == kind
    expected_retry = None if fault.retry_after is None else f"{fault.retry_after:g}"
    assert caught.value.response.headers.get("retry-after") == expected_retry


async def test_a_cut_stream_raises_in_the_sdk(
    fp: FakeProvider, ant: anthropic.AsyncAnthropic
) -> None:
    fp.script(Fault.cut_stream(after_events=4))
    seen: list[str] = []
    stream = await ant.messages.create(model="claude-x", max_tokens=100, messages=USER, stream=True)
    # anthropic 2.15 does not wrap a broken body in APIConnectionError, as openai does
    with pytest.raises(httpx2.RemoteProtocolError, match="incomplete chunked read"):
        async for event in stream:
            seen.append(event.type)
    assert seen == ["message_start", "content_block_start", "content_block_delta"]  # + a ping
    assert "message_stop" not in seen
    await fp.wait_closed(fp.streams[0])


async def test_truncated_tool_json_ends_normally_with_input_json_that_does_not_parse(
    fp: FakeProvider, ant: anthropic.AsyncAnthropic
) -> None:
    fp.script(
        Fault.truncated_tool_json("search", {"query": "the weather in Lyon"}, stop="max_tokens")
    )
    raw = await events(ant)
    partial = "".join(e.delta.partial_json for e in raw if e.type == "content_block_delta")
    assert partial and '{"query": "the weather in Lyon"}'.startswith(partial)
    with pytest.raises(json.JSONDecodeError):
        json.loads(partial)
    assert raw[-2].type == "message_delta" and raw[-2].delta.stop_reason == "max_tokens"
    assert raw[-1].type == "message_stop"


async def test_max_tokens_and_refusal_stops_are_sent_as_scripted(
    fp: FakeProvider, ant: anthropic.AsyncAnthropic
) -> None:
    fp.script(Turn(text="partial", stop="max_tokens"), Turn(text="I can't", stop="refusal"))
    for reason in ("max_tokens", "refusal"):
        message = await ant.messages.create(model="claude-x", max_tokens=100, messages=USER)
        assert message.stop_reason == reason


async def test_the_server_times_the_close_of_a_hanging_stream_the_client_abandons(
    fp: FakeProvider, ant: anthropic.AsyncAnthropic
) -> None:
    fp.script(Turn(text="a long answer that stalls", hang_after=3))
    first = asyncio.Event()

    async def consume() -> None:
        async with ant.messages.stream(model="claude-x", max_tokens=100, messages=USER) as stream:
            async for _ in stream:
                first.set()

    task = asyncio.create_task(consume(), name="consume-hanging-stream")
    stream = await fp.wait_streaming()
    await first.wait()
    cancelled_at = asyncio.get_running_loop().time()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert 0 <= await fp.wait_closed(stream) - cancelled_at < 0.1
    assert stream.events_sent == 3 and stream.finished_at is None


async def test_an_overloaded_error_event_mid_stream_raises_overloaded_in_the_sdk(
    fp: FakeProvider, ant: anthropic.AsyncAnthropic
) -> None:
    fp.script(Fault.stream_error(after_events=3), Fault.stream_error())
    seen: list[str] = []
    stream = await ant.messages.create(model="claude-x", max_tokens=100, messages=USER, stream=True)
    with pytest.raises(anthropic.APIStatusError) as caught:
        async for event in stream:
            seen.append(event.type)
    assert seen == ["message_start", "content_block_start"]  # + a ping
    body: Any = caught.value.body
    assert body["error"]["type"] == "overloaded_error"
    with pytest.raises(anthropic.OverloadedError):  # not streamed: the plain 529
        await ant.messages.create(model="claude-x", max_tokens=100, messages=USER)


async def test_usage_reports_a_cache_read_only_when_the_marked_prefix_is_unchanged(
    fp: FakeProvider, ant: anthropic.AsyncAnthropic
) -> None:
    fp.script(*[Turn(text="ok")] * 4)
    system: Any = [
        {"type": "text", "text": "You are Ada. " * 40, "cache_control": {"type": "ephemeral"}}
    ]
    turn_one: Any = [
        {
            "role": "user",
            "content": [{"type": "text", "text": "first", "cache_control": {"type": "ephemeral"}}],
        }
    ]
    first = await ant.messages.create(model="m", max_tokens=5, system=system, messages=turn_one)
    assert (
        first.usage.cache_read_input_tokens == 0
        and (first.usage.cache_creation_input_tokens or 0) > 0
    )

    # the same prefix plus an appended turn (its breakpoint moved to the new last block)
    turn_two: Any = [
        {"role": "user", "content": [{"type": "text", "text": "first"}]},
        {"role": "assistant", "content": "ok"},
        {
            "role": "user",
            "content": [{"type": "text", "text": "second", "cache_control": {"type": "ephemeral"}}],
        },
    ]
    second = await ant.messages.create(model="m", max_tokens=5, system=system, messages=turn_two)
    assert second.usage.cache_read_input_tokens == first.usage.cache_creation_input_tokens
    assert (second.usage.cache_creation_input_tokens or 0) > 0  # the appended part

    edited: Any = [{**system[0], "text": "You are Bob. " * 40}]
    third = await ant.messages.create(model="m", max_tokens=5, system=edited, messages=turn_two)
    assert third.usage.cache_read_input_tokens == 0

    plain = await ant.messages.create(model="m", max_tokens=5, messages=USER)
    assert (plain.usage.cache_read_input_tokens, plain.usage.cache_creation_input_tokens) == (0, 0)
