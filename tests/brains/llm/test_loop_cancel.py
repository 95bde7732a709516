"""LLM-04: a cancel aborts the in-flight model stream at once; nothing of it lands later.

A person's cancel (soft: the next yield point; hard: the brain task) and the
backstop set the focus's cancel signal, which the stream is raced against:
the fake provider sees its connection close within 100 ms, no tool of the
aborted turn runs, and no later chunk reaches the store, the caller or a
stream. The tier 1 judge decides at yield points; its cancel stops the work
there, before any further model request or tool.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import Any

import pytest

from attn import Runtime
from attn.brains.providers.base import Stop, StopAction, TextDelta, Usage
from attn.core.events import Event
from attn.models import COMPLETION_MARKER
from attn.testing import FakeClock, FakeProvider, FakeToolCall, Turn, eventually
from tests.brains.llm.loop_kit import (
    ScriptedClient,
    Tools,
    fake_agent,
    llm_agent,
    send_soon,
    text_turn,
)

#: Most seconds between the cancel and the provider seeing its connection close.
CLOSE_WITHIN_S = 0.1


def _hanging_turn() -> Turn:
    # Two text deltas go out, then the stream waits; its tool call is never sent.
    return Turn(
        text="Working on it, step by step.",
        tool_calls=[FakeToolCall("add", {"a": 1, "b": 2})],
        chunks=4,
        hang_after=3,
    )


@pytest.mark.parametrize("hard", [False, True], ids=["soft", "hard"])
async def test_llm_04_a_persons_cancel_closes_the_stream_at_once(
    runtime: Runtime, fp: FakeProvider, protocol: str, hard: bool
) -> None:
    fp.script(_hanging_turn())
    agent, _brain, tools = await fake_agent(runtime, fp, protocol)
    deltas: list[str] = []
    chat = asyncio.ensure_future(
        agent.send_message("count for me", on_delta=deltas.append, timeout_s=30)
    )
    stream = await fp.wait_streaming()
    shown = "".join(deltas)
    loop = asyncio.get_running_loop()
    cancelled_at = loop.time()
    assert await agent.cancel_processing("never mind", hard=hard) is not None
    closed_at = await fp.wait_closed(stream)
    assert closed_at - cancelled_at < CLOSE_WITHIN_S
    reply = await chat
    assert reply.cancelled and reply.text.endswith("[cancelled]")
    assert "".join(deltas) == shown  # nothing streamed after the cancel
    assert tools.calls == []
    assert len(fp.requests) == 1
    item = await runtime.store.get_item(reply.item_id)
    assert item is not None and str(item.status) == "completed"


async def test_llm_04_the_backstop_closes_the_stream_at_once(
    runtime: Runtime, clock: FakeClock, fp: FakeProvider, protocol: str
) -> None:
    fp.script(_hanging_turn(), Turn(text=f"Done on the second attempt. {COMPLETION_MARKER}"))
    agent, _brain, tools = await fake_agent(runtime, fp, protocol, backstop_s=60.0)
    task = asyncio.ensure_future(
        # No reply timeout: it would run on the fake clock, which the test moves past it.
        agent.send_message("slow work", source_type="a2a_message", sender_id="boss")
    )
    stream = await fp.wait_streaming()
    fired_at = asyncio.get_running_loop().time()
    await clock.advance(61.0)  # the backstop fires
    closed_at = await fp.wait_closed(stream)
    assert closed_at - fired_at < CLOSE_WITHIN_S
    reply = await task  # the requeued item's next attempt answered
    assert reply.text.startswith("Done on the second attempt.")
    assert tools.calls == []
    item = await runtime.store.get_item(reply.item_id)
    assert item is not None and item.attempt == 2


async def test_llm_04_the_judges_cancel_stops_before_any_further_request(
    runtime: Runtime, fp: FakeProvider, protocol: str
) -> None:
    class Judge:
        def __init__(self) -> None:
            self.asked: list[str] = []

        async def classify(self, focus: Any, new: Any, queue: list[Any], recent: list[Any]) -> str:
            self.asked.append(new.content)
            return "cancel"

    fp.script(
        Turn(text="Publishing.", tool_calls=[FakeToolCall("add", {"a": 1, "b": 2})]),
        Turn(text=f"Noted: publishing stopped. {COMPLETION_MARKER}"),  # the arrival's turn
    )
    arrivals: list[asyncio.Task[Any]] = []
    box: list[Any] = []

    def on_call(name: str, arguments: Any) -> Awaitable[None]:
        task, enqueued = send_soon(
            box[0], "stop publishing", source_type="a2a_message", sender_id="editor"
        )
        arrivals.append(task)
        return enqueued

    judge = Judge()
    agent, _brain, tools = await fake_agent(
        runtime, fp, protocol, tools=Tools(on_call), classifier=judge
    )
    box.append(agent)
    reply = await agent.send_message(
        "publish the post", source_type="a2a_message", sender_id="boss", timeout_s=30
    )
    await arrivals[0]
    assert judge.asked == ["stop publishing"]
    assert reply.cancelled
    assert len(tools.calls) == 1
    # The second request is the arrival's own: the cancelled work asked for nothing more.
    assert len(fp.requests) == 2 and "stop publishing" in fp.requests[1].raw.decode()
    assert "publish the post" not in fp.requests[1].raw.decode()


async def test_llm_04_a_late_chunk_never_reaches_a_caller_or_the_store(runtime: Runtime) -> None:
    box: list[Any] = []

    class CancelMidStream:
        """A stream that delivers one more chunk in the same step as the cancel."""

        def __init__(self) -> None:
            self.late_sent = False

        def __iter__(self) -> Any:
            yield TextDelta("before the cancel")
            box[0].controller.cancel_processing("stop now")
            self.late_sent = True
            yield TextDelta(" LATE CHUNK")

    late = CancelMidStream()
    client = ScriptedClient([late, text_turn("never asked for")])
    agent, _brain, tools = await llm_agent(runtime, client)
    box.append(agent)
    seen: list[Event] = []
    runtime.bus.subscribe(seen.append)
    deltas: list[str] = []
    reply = await agent.send_message("hello", on_delta=deltas.append, timeout_s=30)
    assert late.late_sent
    assert reply.cancelled and "LATE" not in reply.text
    assert "LATE" not in "".join(deltas)
    assert not [e for e in seen if "LATE" in repr(e.data)]
    [activity] = await runtime.store.find_activities(agent.name, [reply.item_id])
    logs = await runtime.store.find_activity_logs(activity.id)
    assert not [log for log in logs if "LATE" in log.content or "LATE" in repr(log.metadata)]
    item = await runtime.store.get_item(reply.item_id)
    assert item is not None and "LATE" not in repr(item.session)
    assert len(client.requests) == 1 and tools.calls == []


async def test_llm_04_the_judges_cancel_mid_stream_closes_it_at_once(
    runtime: Runtime, fp: FakeProvider, protocol: str
) -> None:
    """Mail arriving while a turn streams is judged at once: the judge's cancel
    aborts the stream, not only the next turn."""

    class Judge:
        async def classify(self, focus: Any, new: Any, queue: list[Any], recent: list[Any]) -> str:
            return "cancel" if "stop" in new.content else "continue"

    fp.script(_hanging_turn(), Turn(text=f"Publishing stopped. {COMPLETION_MARKER}"))
    agent, _brain, tools = await fake_agent(runtime, fp, protocol, classifier=Judge())
    work = asyncio.ensure_future(
        agent.send_message("publish it", source_type="a2a_message", sender_id="boss", timeout_s=30)
    )
    stream = await fp.wait_streaming()
    arrived_at = asyncio.get_running_loop().time()
    await agent.enqueue("a2a_message", {"content": "stop publishing"}, metadata={"senderId": "ed"})
    closed_at = await fp.wait_closed(stream)
    assert closed_at - arrived_at < CLOSE_WITHIN_S
    reply = await work
    assert reply.cancelled and tools.calls == []
    await eventually(lambda: len(fp.requests) == 2)  # then the arrival is handled
    assert "stop publishing" in fp.requests[1].raw.decode()


async def test_a_follow_up_during_a_stream_is_answered_after_it(runtime: Runtime) -> None:
    gate = asyncio.Event()
    client = ScriptedClient(
        [
            [
                TextDelta("2+3 is"),
                gate,
                TextDelta(" 5."),
                Usage(1, 1),
                Stop(StopAction.FINISH, "stop"),
            ],
            text_turn("And plus one is 6."),
        ]
    )
    agent, _brain, _tools = await llm_agent(runtime, client)
    first = asyncio.ensure_future(agent.send_message("what is 2+3?", timeout_s=30))
    await client.hanging.wait()
    follow, enqueued = send_soon(agent, "and plus one?")
    await enqueued
    await eventually(lambda: agent.mailbox.depth == 0, what="the follow-up merged mid-stream")
    gate.set()
    reply, merged = await first, await follow
    assert reply.text == merged.text == "And plus one is 6."
    second = client.requests[1].messages
    # The first answer as streamed, then ONE user message with the follow-up.
    assert second[-2:] == [
        {"role": "assistant", "content": "2+3 is 5."},
        {"role": "user", "content": "and plus one?"},
    ]
