"""The fake provider's server: the script and the responder, an empty script's 500,
unknown paths, keep-alive, a provider on its own thread, and bad scripts refused."""

from __future__ import annotations

import asyncio
from typing import Any

import anthropic
import httpx
import openai
import pytest

from attn.testing import FakeProvider, FakeToolCall, Fault, ReceivedRequest, Turn

USER: Any = [{"role": "user", "content": "hi"}]


async def test_an_empty_script_answers_500_saying_it_ran_out(
    fp: FakeProvider, oai: openai.AsyncOpenAI, ant: anthropic.AsyncAnthropic
) -> None:
    with pytest.raises(openai.InternalServerError, match="the script ran out"):
        await oai.chat.completions.create(model="m", messages=USER)
    with pytest.raises(anthropic.InternalServerError, match="the script ran out"):
        await ant.messages.create(model="m", max_tokens=5, messages=USER)
    assert [(r.protocol, r.status, r.accepted) for r in fp.requests] == [
        ("openai", 500, True),
        ("anthropic", 500, True),
    ]


async def test_turns_are_served_in_order_across_both_protocols(
    fp: FakeProvider, oai: openai.AsyncOpenAI, ant: anthropic.AsyncAnthropic
) -> None:
    fp.script(Turn(text="one"), Turn(text="two"))
    first = await ant.messages.create(model="m", max_tokens=5, messages=USER)
    second = await oai.chat.completions.create(model="m", messages=USER)
    assert first.content[0].text == "one"  # type: ignore[union-attr]
    assert second.choices[0].message.content == "two"
    assert fp.remaining == 0 and [r.index for r in await fp.wait_requests(2)] == [0, 1]


async def test_a_responder_answers_from_the_request(
    fp: FakeProvider, oai: openai.AsyncOpenAI
) -> None:
    def echo(request: ReceivedRequest) -> Turn:
        assert request.body is not None
        return Turn(text=f"you said {request.body['messages'][-1]['content']}")

    fp.responder = echo
    fp.script(Turn(text="not used while the responder is set"))
    reply = await oai.chat.completions.create(model="m", messages=USER)
    assert reply.choices[0].message.content == "you said hi" and fp.remaining == 1


async def test_a_failing_responder_is_a_500_naming_its_error(
    fp: FakeProvider, oai: openai.AsyncOpenAI
) -> None:
    def broken(request: ReceivedRequest) -> Turn:
        raise KeyError("no such case")

    fp.responder = broken
    with pytest.raises(openai.InternalServerError, match="no such case"):
        await oai.chat.completions.create(model="m", messages=USER)


async def test_a_responder_answer_that_is_no_turn_is_a_500_naming_its_type(
    fp: FakeProvider, oai: openai.AsyncOpenAI
) -> None:
    fp.responder = lambda request: "five"  # type: ignore[assignment,return-value]
    with pytest.raises(openai.InternalServerError, match="returned str, not a Turn or Fault"):
        await oai.chat.completions.create(model="m", messages=USER)


async def test_unknown_paths_and_methods_are_refused_and_recorded(fp: FakeProvider) -> None:
    async with httpx.AsyncClient(base_url=fp.base_url) as http:
        missing = await http.post("/v1/embeddings", json={})
        wrong = await http.get("/v1/messages")
    assert missing.status_code == 404 and wrong.status_code == 405
    assert [(r.protocol, r.accepted) for r in fp.requests] == [(None, False), ("anthropic", False)]


async def test_one_connection_carries_several_requests(fp: FakeProvider) -> None:
    fp.script(Turn(text="a"), Turn(text="b", hang_after=None))
    ports: set[tuple[str, int]] = set()
    body = {"model": "m", "messages": USER, "stream": True}
    async with httpx.AsyncClient(
        base_url=fp.openai_base_url, headers={"authorization": "Bearer k"}
    ) as http:
        for _ in range(2):
            async with http.stream("POST", "/chat/completions", json=body) as reply:
                text = b"".join([chunk async for chunk in reply.aiter_bytes()])
                assert text.endswith(b"data: [DONE]\n\n")
                stream = reply.extensions["network_stream"]
                ports.add(stream.get_extra_info("client_addr"))
    assert len(ports) == 1
    closed = await fp.wait_closed(fp.streams[1])
    assert closed >= fp.streams[1].finished_at  # type: ignore[operator]


async def test_a_cut_whole_answer_is_half_a_body_then_the_close(
    fp: FakeProvider, oai: openai.AsyncOpenAI
) -> None:
    fp.script(Fault.cut_stream(turn=Turn(text="x" * 200)))
    with pytest.raises(openai.APIConnectionError):
        await oai.chat.completions.create(model="m", messages=USER)


def test_a_provider_on_its_own_thread_serves_sync_clients() -> None:
    fp = FakeProvider().start_in_thread()
    try:
        assert fp.port > 0
        fp.script(Turn(text="from a thread", tool_calls=[FakeToolCall("add", {"a": 1})]))
        client = openai.OpenAI(base_url=fp.openai_base_url, api_key="k", max_retries=0)
        reply = client.chat.completions.create(model="m", messages=USER)
        client.close()
        assert reply.choices[0].message.content == "from a thread"
        assert fp.requests[0].accepted
    finally:
        fp.stop()
    with pytest.raises(httpx.ConnectError):
        httpx.post(f"{fp.openai_base_url}/chat/completions", json={})


async def test_a_test_loop_waits_for_a_provider_on_another_thread() -> None:
    fp = FakeProvider().start_in_thread()
    try:
        fp.script(Turn(text="late", hang_after=1))
        client = openai.AsyncOpenAI(base_url=fp.openai_base_url, api_key="k", max_retries=0)
        stream = await client.chat.completions.create(model="m", messages=USER, stream=True)
        record = await fp.wait_streaming()
        await stream.close()
        assert await fp.wait_closed(record) >= record.started_at
        await client.close()
    finally:
        fp.stop()


async def test_waiting_for_requests_that_never_come_fails_with_a_clear_message(
    fp: FakeProvider,
) -> None:
    with pytest.raises(AssertionError, match=r"timed out after 0\.05 s waiting for 1 request"):
        await fp.wait_requests(1, timeout_s=0.05)


async def test_a_second_start_is_refused(fp: FakeProvider) -> None:
    with pytest.raises(RuntimeError, match="already started"):
        await fp.start()


def test_bad_script_items_and_turns_are_refused_and_change_nothing() -> None:
    fp = FakeProvider()
    with pytest.raises(TypeError, match="got str"):
        fp.script(Turn(text="ok"), "not a turn")  # type: ignore[arg-type]
    assert fp.remaining == 0
    with pytest.raises(ValueError, match="chunks"):
        Turn(chunks=0)
    with pytest.raises(ValueError, match="hang_after"):
        Turn(hang_after=-1)
    with pytest.raises(ValueError, match="usage"):
        Turn(usage=(-1, 2))
    with pytest.raises(ValueError, match=r"400 \.\. 599"):
        Fault.status(200)
    with pytest.raises(ValueError, match="after_events"):
        Fault.cut_stream(after_events=-1)


async def test_closing_the_provider_ends_a_hanging_stream() -> None:
    fp = FakeProvider()
    await fp.start()
    fp.script(Turn(text="forever", hang_after=1))
    client = openai.AsyncOpenAI(base_url=fp.openai_base_url, api_key="k", max_retries=0)
    stream = await client.chat.completions.create(model="m", messages=USER, stream=True)
    record = await fp.wait_streaming()
    await asyncio.wait_for(fp.aclose(), timeout=5)
    assert record.closed_at is not None
    with pytest.raises(openai.APIConnectionError):
        async for _ in stream:
            pass
    await client.close()


async def test_a_whole_answer_that_hangs_sends_nothing_and_its_close_is_timed(
    fp: FakeProvider, ant: anthropic.AsyncAnthropic
) -> None:
    fp.script(Turn(text="never", hang_after=0))
    task = asyncio.create_task(
        ant.messages.create(model="m", max_tokens=5, messages=USER), name="whole-hanging-answer"
    )
    record = await fp.wait_streaming()
    assert not record.request.streamed and record.events_sent == 0
    cancelled_at = asyncio.get_running_loop().time()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert 0 <= await fp.wait_closed(record) - cancelled_at < 0.1


@pytest.mark.parametrize("pace_s", [-0.1, 60.5, float("nan")])
def test_a_pace_out_of_range_is_refused(pace_s: float) -> None:
    with pytest.raises(ValueError, match="pace_s"):
        Turn(text="x", pace_s=pace_s)


async def test_a_paced_turn_waits_between_events(fp: FakeProvider, oai: openai.AsyncOpenAI) -> None:
    """A demo's model types visibly: each event after the first waits ``pace_s``."""
    fp.script(Turn(text="one two three", chunks=3, pace_s=0.01))
    loop = asyncio.get_running_loop()
    started = loop.time()
    stream = await oai.chat.completions.create(model="m", messages=USER, stream=True)
    text = "".join([c.choices[0].delta.content or "" async for c in stream if c.choices])
    assert text == "one two three"
    events = fp.streams[0].events_sent
    assert events >= 4 and loop.time() - started >= 0.01 * (events - 1)
