"""LLM-04 at the provider level: cancelling the task that iterates a stream, or
leaving it early, closes the HTTP connection at once."""

from __future__ import annotations

import asyncio
import contextlib

from attn.brains.providers import ModelClient, ModelEvent, TextDelta
from attn.testing import FakeProvider, Turn
from tests.brains.providers.providerhelp import request

#: LLM-04's bound on seeing the connection close, in seconds.
CLOSE_WITHIN_S = 0.1


async def test_llm_04_cancel_closes_the_connection_within_100_ms(
    client: ModelClient, fp: FakeProvider
) -> None:
    fp.script(Turn(text="a long answer that never finishes", chunks=6, hang_after=3))
    seen: list[ModelEvent] = []

    async def consume() -> None:
        async with contextlib.aclosing(client.stream(request())) as events:
            async for event in events:
                seen.append(event)

    task = asyncio.create_task(consume(), name="consume-stream")
    stream = await fp.wait_streaming()
    cancelled_at = asyncio.get_running_loop().time()
    task.cancel()
    await asyncio.wait([task])
    assert task.cancelled()
    closed_at = await fp.wait_closed(stream)
    assert closed_at - cancelled_at < CLOSE_WITHIN_S
    assert stream.finished_at is None
    # Only text so far: no stop, no tool call came out of the aborted stream.
    assert all(isinstance(event, TextDelta) for event in seen)


async def test_llm_04_leaving_the_stream_early_closes_the_connection(
    client: ModelClient, fp: FakeProvider
) -> None:
    fp.script(Turn(text="one two three four five six", chunks=6, hang_after=4))
    async with contextlib.aclosing(client.stream(request())) as events:
        async for event in events:
            if isinstance(event, TextDelta):
                left_at = asyncio.get_running_loop().time()
                break
    stream = fp.streams[0]
    closed_at = await fp.wait_closed(stream)
    assert closed_at - left_at < CLOSE_WITHIN_S
