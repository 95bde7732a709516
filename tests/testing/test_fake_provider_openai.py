"""The fake provider as the official OpenAI SDK sees it: streamed and whole answers,
tool calls, usage, faults, cut streams, truncated tool JSON, a hanging stream."""

from __future__ import annotations

import asyncio
import json

import openai
import pytest

from attn.testing import FakeProvider, FakeToolCall, Fault, Turn

USER = [{"role": "user", "content": "what is 2+3?"}]


async def collect(client: openai.AsyncOpenAI, **extra: object) -> list[object]:
    stream = await client.chat.completions.create(
        model="gpt-x", messages=USER, stream=True, **extra
    )
    return [chunk async for chunk in stream]


async def test_streamed_text_arrives_in_the_scripted_number_of_deltas(
    fp: FakeProvider, oai: openai.AsyncOpenAI
) -> None:
    fp.script(Turn(text="Two plus three is five.", chunks=4))
    chunks = await collect(oai)
    deltas = [
        c.choices[0].delta.content for c in chunks if c.choices and c.choices[0].delta.content
    ]
    assert "".join(deltas) == "Two plus three is five."
    assert len(deltas) == 4
    assert chunks[0].choices[0].delta.role == "assistant"
    assert chunks[-1].choices[0].finish_reason == "stop"
    assert fp.requests[0].accepted and fp.requests[0].streamed
    assert fp.streams[0].finished_at is not None


async def test_a_streamed_tool_call_carries_its_id_name_and_whole_arguments(
    fp: FakeProvider, oai: openai.AsyncOpenAI
) -> None:
    fp.script(Turn(text="Let me add.", tool_calls=[FakeToolCall("add", {"a": 2, "b": 3})]))
    chunks = await collect(oai)
    calls = [tc for c in chunks if c.choices for tc in (c.choices[0].delta.tool_calls or [])]
    assert calls[0].id == "call_fake0_0" and calls[0].function.name == "add"
    arguments = "".join(tc.function.arguments or "" for tc in calls)
    assert json.loads(arguments) == {"a": 2, "b": 3}
    assert len(calls) == 1 + 3  # the call's opening delta, then its JSON in 3 pieces
    assert chunks[-1].choices[0].finish_reason == "tool_calls"


async def test_usage_comes_as_a_last_chunk_only_when_the_request_asks_for_it(
    fp: FakeProvider, oai: openai.AsyncOpenAI
) -> None:
    fp.script(Turn(text="five", usage=(120, 7)), Turn(text="five"))
    with_usage = await collect(oai, stream_options={"include_usage": True})
    last = with_usage[-1]
    assert last.choices == [] and last.usage is not None
    assert (last.usage.prompt_tokens, last.usage.completion_tokens) == (120, 7)
    assert all(c.usage is None for c in await collect(oai))


async def test_a_whole_completion_counts_usage_roughly_when_not_scripted(
    fp: FakeProvider, oai: openai.AsyncOpenAI
) -> None:
    fp.script(Turn(tool_calls=[FakeToolCall("add", {"a": 2, "b": 3}, id="call_mine")]))
    reply = await oai.chat.completions.create(model="gpt-x", messages=USER)
    message = reply.choices[0].message
    assert message.content is None and reply.choices[0].finish_reason == "tool_calls"
    assert message.tool_calls is not None
    call = message.tool_calls[0]
    assert call.id == "call_mine" and json.loads(call.function.arguments) == {"a": 2, "b": 3}
    assert reply.usage is not None
    assert reply.usage.prompt_tokens == len(fp.requests[0].raw) // 4
    assert reply.usage.completion_tokens >= 1


@pytest.mark.parametrize(
    ("fault", "error", "status"),
    [
        (Fault.status(429, retry_after=7), openai.RateLimitError, 429),
        (Fault.status(500), openai.InternalServerError, 500),
        (Fault.status(503, retry_after=2), openai.InternalServerError, 503),
        (Fault.status(400, message="bad thing"), openai.BadRequestError, 400),
        (Fault.status(401), openai.AuthenticationError, 401),
        (Fault.overloaded(), openai.InternalServerError, 503),
    ],
)
async def test_each_fault_reaches_the_sdk_as_its_status_error(
    fp: FakeProvider, oai: openai.AsyncOpenAI, fault: Fault, error: type[Exception], status: int
) -> None:
    fp.script(fault, Turn(text="after"))
    with pytest.raises(error) as caught:
        await collect(oai)
    assert isinstance(caught.value, openai.APIStatusError)
    assert caught.value.status_code == status
    body = caught.value.body
    assert isinstance(body, dict) and isinstance(body.get("message"), str)
    if fault.message:
        assert body["message"] == fault.message
    expected_retry = None if fault.retry_after is None else f"{fault.retry_after:g}"
    assert caught.value.response.headers.get("retry-after") == expected_retry
    assert fp.requests[0].status == status
    assert (
        "".join(c.choices[0].delta.content or "" for c in await collect(oai) if c.choices)
        == "after"
    )


async def test_a_cut_stream_raises_in_the_sdk_after_the_events_before_the_cut(
    fp: FakeProvider, oai: openai.AsyncOpenAI
) -> None:
    fp.script(Fault.cut_stream(after_events=3, turn=Turn(text="abcdef", chunks=6)))
    seen: list[str] = []
    stream = await oai.chat.completions.create(model="gpt-x", messages=USER, stream=True)
    with pytest.raises(openai.APIConnectionError):
        async for chunk in stream:
            seen.append(chunk.choices[0].delta.content or "")
    assert "".join(seen) == "ab"  # the role delta, then two text deltas
    record = await fp.wait_closed(fp.streams[0])
    assert record >= fp.streams[0].started_at and fp.streams[0].finished_at is None


async def test_truncated_tool_json_ends_the_stream_normally_with_arguments_that_do_not_parse(
    fp: FakeProvider, oai: openai.AsyncOpenAI
) -> None:
    fp.script(Fault.truncated_tool_json("search", {"query": "the weather in Lyon"}))
    chunks = await collect(oai)
    calls = [tc for c in chunks if c.choices for tc in (c.choices[0].delta.tool_calls or [])]
    arguments = "".join(tc.function.arguments or "" for tc in calls)
    assert arguments and '{"query": "the weather in Lyon"}'.startswith(arguments)
    with pytest.raises(json.JSONDecodeError):
        json.loads(arguments)
    assert chunks[-1].choices[0].finish_reason == "tool_calls"


async def test_length_and_content_filter_stops_are_sent_as_scripted(
    fp: FakeProvider, oai: openai.AsyncOpenAI
) -> None:
    fp.script(Turn(text="partial", stop="length"), Turn(text="", stop="content_filter"))
    assert (await collect(oai))[-1].choices[0].finish_reason == "length"
    assert (await collect(oai))[-1].choices[0].finish_reason == "content_filter"


async def test_the_server_times_the_close_of_a_hanging_stream_the_client_abandons(
    fp: FakeProvider, oai: openai.AsyncOpenAI
) -> None:
    fp.script(Turn(text="a long answer that stalls", hang_after=2))
    got_first = asyncio.Event()

    async def consume() -> None:
        stream = await oai.chat.completions.create(model="gpt-x", messages=USER, stream=True)
        async for _ in stream:
            got_first.set()

    task = asyncio.create_task(consume(), name="consume-hanging-stream")
    stream = await fp.wait_streaming()
    await got_first.wait()
    assert stream.events_sent == 2 and stream.closed_at is None
    cancelled_at = asyncio.get_running_loop().time()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    closed_at = await fp.wait_closed(stream)
    assert 0 <= closed_at - cancelled_at < 0.1
    assert stream.finished_at is None


async def test_an_error_in_the_middle_of_a_stream_raises_an_api_error_after_the_first_deltas(
    fp: FakeProvider, oai: openai.AsyncOpenAI
) -> None:
    fp.script(Fault.stream_error(after_events=2, code=500, message="boom", turn=Turn(text="abc")))
    seen: list[str] = []
    stream = await oai.chat.completions.create(model="gpt-x", messages=USER, stream=True)
    with pytest.raises(openai.APIError, match="boom"):
        async for chunk in stream:
            seen.append(chunk.choices[0].delta.content or "")
    assert seen == ["", "a"]
    assert fp.streams[0].finished_at is not None  # the stream itself ended in good order
